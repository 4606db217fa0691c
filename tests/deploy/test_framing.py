"""Hostile connections and malformed framing (issue 21, findings 1-3), against real gunicorn on
127.0.0.1 started with the package's settings (tests/servers.py):

- A body that stops after its head, or trickles faster than any per-read timeout, is cut within
  the body deadline (``REFEREE_TIMEOUT`` after the head) with a 400 ``body_timeout`` problem, and
  ``/healthz`` answers in under 1 s all the while hundreds of such connections are open.
- A body cut short by the client (half-close before ``Content-Length`` bytes, or a chunked body
  without its last chunk) is 400 ``body_incomplete``, never processed; on gevent and sync workers.
- Every malformed chunked framing (chunk size not hex, negative, no CRLF after a chunk, too many
  or malformed trailer fields, a chunk extension that is not one) is 400 ``bad_framing``, and the
  connection is closed after the answer (where the next request would start is unknown).
- Each of those answers says ``Connection: close`` (issue 32: they said keep-alive, then closed),
  while an answer whose connection stays open says keep-alive.

Every answer is checked against openapi.yaml (tests/contract.py). Every wait is bounded.
"""

from __future__ import annotations

import json
import selectors
import socket
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from service.server import usable_cpus
from tests.contract import assert_conforms, assert_problem
from tests.deploy.load import probe_healthz
from tests.servers import Gunicorn, call

pytestmark = pytest.mark.slow

NEW = "/v1/games/schnapsen/new"
RULE = "/v1/games/schnapsen/new"


def _head(length: int | None = 16384, chunked: bool = False, path: str = NEW) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: referee", "Content-Type: application/json"]
    if length is not None:
        lines.append(f"Content-Length: {length}")
    if chunked:
        lines.append("Transfer-Encoding: chunked")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def _parse(raw: bytes) -> tuple[int, dict[str, str], Any]:
    """(status, headers, parsed body) of one HTTP/1.1 answer read to the end of its connection."""
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
    length = int(headers.get("content-length", len(body)))
    try:
        return status, headers, json.loads(body[:length])
    except ValueError:
        return status, headers, body[:length].decode("latin-1")


def _exchange(port: int, data: bytes, *, half_close: bool = False, seconds: float = 20) -> tuple[int, dict[str, str], Any, bool]:
    """Send ``data`` (then half-close when asked) and read until the server closes. Returns the
    answer and whether the server closed the connection after it (within ``seconds``)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=seconds)
    try:
        sock.sendall(data)
        if half_close:
            sock.shutdown(socket.SHUT_WR)
        deadline = time.monotonic() + seconds
        raw = b""
        closed = False
        while time.monotonic() < deadline:
            try:
                part = sock.recv(65536)
            except TimeoutError:
                break
            except ConnectionResetError:
                closed = True
                break
            if not part:
                closed = True
                break
            raw += part
        assert raw, f"no answer within {seconds} s"
        status, headers, body = _parse(raw)
        return status, headers, body, closed
    finally:
        sock.close()


def _assert_refused(status: int, headers: dict[str, str], body: Any, code: str, rule: str | None = RULE) -> None:
    assert status == 400 and isinstance(body, dict) and body.get("code") == code, (status, body)
    # the server closes the connection after each of these answers, and says so (issue 32)
    assert headers.get("connection") == "close", headers
    assert headers.get("content-type", "").startswith("application/problem+json")
    assert_problem(body, 400)
    if rule is not None:
        assert_conforms("post", rule, status, headers["content-type"], body)


# --- finding 1: bodies that stop or trickle ----------------------------------------------------


@dataclass
class Held:
    """What became of connections that sent a head and then (almost) nothing of the body."""

    opened: int = 0
    closed_after: list[float] = field(default_factory=list)  # seconds from the head to the server's close
    still_open: int = 0  # when the observation ended
    answers: Counter[tuple[int, str]] = field(default_factory=Counter)  # (status, code) of each answer
    trickled_bytes: int = 0
    probes: int = 0
    probe_failures: list[str] = field(default_factory=list)
    slowest_probe: float = 0.0


def hold_bodies(
    port: int, *, idle: int, trickled: int, seconds: float, trickle_every: float = 1.0, probe_every: float = 0.25,
) -> Held:
    """Open ``idle`` connections that send a head with ``Content-Length: 16384`` and the body
    ``{}``, then nothing, and ``trickled`` ones that send the same head and then one byte of the
    body every ``trickle_every`` seconds; watch for at most ``seconds`` (or until the server has
    closed all of them) while ``/healthz`` is probed every ``probe_every`` s (each waits at most 5 s)."""
    result = Held()
    stop = threading.Event()

    def probe() -> None:
        while not stop.is_set():
            failure, took = probe_healthz(port)
            if failure is not None:
                result.probe_failures.append(failure)
            result.probes += 1
            result.slowest_probe = max(result.slowest_probe, took)
            stop.wait(max(0.0, probe_every - took))

    selector = selectors.DefaultSelector()
    started: dict[socket.socket, float] = {}
    received: dict[socket.socket, bytes] = {}
    trickling: dict[socket.socket, float] = {}  # socket → when to send its next byte
    head = _head(16384)
    prober = threading.Thread(target=probe, daemon=True)
    prober.start()
    try:
        for n in range(idle + trickled):
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            sock.sendall(head + (b"{}" if n < idle else b""))
            sock.setblocking(False)
            started[sock] = time.monotonic()
            received[sock] = b""
            if n >= idle:
                trickling[sock] = started[sock] + trickle_every
            selector.register(sock, selectors.EVENT_READ)
            result.opened += 1
        end = time.monotonic() + seconds
        while started and time.monotonic() < end:
            for key, _ in selector.select(timeout=0.1):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                try:
                    part = sock.recv(65536)
                except BlockingIOError:
                    continue
                except ConnectionResetError:
                    part = b""
                if part:
                    received[sock] += part
                    continue
                result.closed_after.append(time.monotonic() - started.pop(sock))
                trickling.pop(sock, None)
                selector.unregister(sock)
                if received[sock]:
                    status, _, body = _parse(received[sock])
                    result.answers[(status, body.get("code", "") if isinstance(body, dict) else "")] += 1
                sock.close()
            now = time.monotonic()
            for sock, when in list(trickling.items()):
                if now >= when:
                    try:
                        sock.send(b" ")
                        result.trickled_bytes += 1
                    except OSError:
                        pass
                    trickling[sock] = now + trickle_every
        result.still_open = len(started)
    finally:
        stop.set()
        prober.join(timeout=10)
        for sock in started:
            selector.unregister(sock)
            sock.close()
        selector.close()
    return result


def test_stalled_and_trickled_bodies_are_cut_at_the_deadline_while_healthz_stays_fast(tmp_path: Path) -> None:
    timeout = 3
    with Gunicorn(tmp_path, workers=2 * usable_cpus(), env={"REFEREE_TIMEOUT": str(timeout)}) as g:  # default worker count
        held = hold_bodies(g.port, idle=250, trickled=50, seconds=timeout + 8, trickle_every=1.0)
        assert call(f"{g.url}/healthz")[0] == 200
    assert held.opened == 300
    assert held.still_open == 0, f"{held.still_open} of {held.opened} connections still open {timeout + 8} s after their head"
    assert max(held.closed_after) <= timeout + 3, sorted(held.closed_after)[-5:]
    assert held.trickled_bytes >= 50  # the trickle went on, faster than any per-read timeout
    assert held.answers == {(400, "body_timeout"): 300}, held.answers
    assert not held.probe_failures, held.probe_failures[:5]
    assert held.probes >= 8 and held.slowest_probe < 1.0, (held.probes, held.slowest_probe)


def test_a_stalled_body_is_answered_with_a_problem_and_the_connection_closed(tmp_path: Path) -> None:
    with Gunicorn(tmp_path, workers=1, env={"REFEREE_TIMEOUT": "2"}) as g:
        started = time.monotonic()
        status, headers, body, closed = _exchange(g.port, _head(16384) + b"{}", seconds=10)
        took = time.monotonic() - started
        # A chunked body that stops after its first chunk is cut the same way.
        chunked = _exchange(g.port, _head(None, chunked=True) + b"2\r\n{}\r\n", seconds=10)
    _assert_refused(status, headers, body, "body_timeout")
    assert closed and 1.5 <= took <= 6, took
    _assert_refused(chunked[0], chunked[1], chunked[2], "body_timeout")
    assert chunked[3]


# --- finding 2: a body cut short ---------------------------------------------------------------

TRUNCATED = {
    "content-length": _head(16384) + b"{}",
    "chunk-cut-mid-chunk": _head(None, chunked=True) + b"10\r\n{}",
    "chunk-no-last-chunk": _head(None, chunked=True) + b"2\r\n{}\r\n",
    "chunk-no-crlf-after-chunk": _head(None, chunked=True) + b"2\r\n{}",
    "chunk-no-final-crlf": _head(None, chunked=True) + b"2\r\n{}\r\n0\r\n",
    "chunk-cut-in-trailers": _head(None, chunked=True) + b"2\r\n{}\r\n0\r\nX-Trailer: 1\r\n",
}


@pytest.mark.parametrize("worker", ["default", "sync"])
def test_a_body_cut_short_by_a_half_close_is_400_and_never_processed(tmp_path: Path, worker: str) -> None:
    args = ["--worker-class", "sync"] if worker == "sync" else []
    with Gunicorn(tmp_path, workers=1, args=args) as g:
        for name, data in TRUNCATED.items():
            status, headers, body, closed = _exchange(g.port, data, half_close=True, seconds=10)
            assert status == 400, (name, status, body)
            _assert_refused(status, headers, body, "body_incomplete")
            assert closed, name
        # The whole body, half-closed after it, is served as usual.
        status, _, body, _ = _exchange(g.port, _head(2) + b"{}", half_close=True, seconds=10)
        assert status == 201, body
    created = [line for line in g.access_log() if line["path"] == NEW and line["status"] == 201]
    assert len(created) == 1  # nothing cut short was processed
    if worker == "sync":
        return  # gunicorn's sync worker closes after every answer
    with Gunicorn(tmp_path, workers=1, name="keep") as g:
        # A refusal after a whole body keeps the connection (and says so): the next request follows.
        sock = socket.create_connection(("127.0.0.1", g.port), timeout=10)
        try:
            sock.sendall(_head(2) + b"[]" + _head(2) + b"{}")
            raw = b""
            while raw.count(b"HTTP/1.1 ") < 2 or not raw.rstrip().endswith(b"}"):
                part = sock.recv(65536)
                assert part, raw
                raw += part
        finally:
            sock.close()
        first = raw.split(b"HTTP/1.1 ")[1]
        assert first.startswith(b"400") and b"connection: keep-alive" in first.lower(), first


# --- finding 3: malformed chunked framing ------------------------------------------------------

TRAILERS = b"".join(b"X-T%d: v\r\n" % n for n in range(101))
MALFORMED = {
    "size-not-hex": b"zz\r\n{}\r\n0\r\n\r\n",
    "size-negative": b"-5\r\n{}\r\n0\r\n\r\n",
    "size-empty": b"\r\n{}\r\n0\r\n\r\n",
    "size-line-without-end": b"2" * 9000,
    "no-crlf-after-chunk": b"2\r\n{}XX0\r\n\r\n",
    "bad-extension": b"2;=\r\n{}\r\n0\r\n\r\n",
    "too-many-trailers": b"2\r\n{}\r\n0\r\n" + TRAILERS + b"\r\n",
    "trailer-bare-lf": b"2\r\n{}\r\n0\r\nX-T: v\n\r\n",
    "trailer-without-colon": b"2\r\n{}\r\n0\r\nnot a field\r\n\r\n",
}


def test_every_malformed_chunked_framing_is_400_bad_framing_and_closes(tmp_path: Path) -> None:
    with Gunicorn(tmp_path, workers=1) as g:
        for name, chunks in MALFORMED.items():
            status, headers, body, closed = _exchange(g.port, _head(None, chunked=True) + chunks, seconds=10)
            assert status == 400, (name, status, body)
            _assert_refused(status, headers, body, "bad_framing")
            assert closed, name
        # Both a Content-Length and chunked: gunicorn refuses the head itself (RFC 9112 §6.1), as a problem.
        status, headers, body, closed = _exchange(g.port, _head(2, chunked=True) + b"2\r\n{}\r\n0\r\n\r\n", seconds=10)
        assert status == 400 and headers["content-type"] == "application/problem+json" and closed, (status, body)
        assert_problem(body, 400)
        assert body["code"] == "invalid_request"
        # Well-formed chunked framing (extension, trailers) is still served.
        status, _, body, _ = _exchange(g.port, _head(None, chunked=True) + b"2;x=1\r\n{}\r\n0\r\nX-T: v\r\n\r\n", half_close=True)
        assert status == 201, body
        assert call(f"{g.url}/healthz")[0] == 200
    assert "Traceback" not in g.stderr.read_text()
