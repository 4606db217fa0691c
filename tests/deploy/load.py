"""Bounded load against a live server: SIGTERM under a stream of requests, and slow clients.

Shared by the deploy tests and ``bench/ops_under_fire.py`` (which runs the same measurements
against any checkout, to compare before and after). Every loop is bounded in count and time.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any

BODY = json.dumps({"seed": 5, "options": {"target": 7}}).encode()
HEADERS = {"Content-Type": "application/json"}


@dataclass
class DrainResult:
    sent: int = 0  # requests written on an established connection
    answered: int = 0  # ... that got a complete response
    refused_connects: int = 0  # connections never established (after the listener stopped taking them)
    lost: list[str] = field(default_factory=list)  # sent and never answered: what must not happen
    readyz: list[tuple[float, int, str]] = field(default_factory=list)  # (seconds after SIGTERM, status, body)
    closes_after_term: int = 0  # answers after SIGTERM carrying Connection: close
    answers_after_term: int = 0
    last_answer_after_term: float = 0.0
    unclosed_after_term: list[float] = field(default_factory=list)  # when each answer after SIGTERM without close came


def _request(conn: http.client.HTTPConnection, path: str, body: bytes | None) -> tuple[int, str, bytes]:
    conn.request("POST" if body is not None else "GET", path, body=body, headers=HEADERS if body is not None else {})
    resp = conn.getresponse()
    data = resp.read()
    return resp.status, resp.getheader("Connection", ""), data


def probe_healthz(port: int, timeout: float = 5.0) -> tuple[str | None, float]:
    """One ``GET /healthz`` on a new connection: what went wrong (None: a 200) and how long it took."""
    started = time.monotonic()
    failure: str | None = None
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        status, _, _ = _request(conn, "/healthz", None)
        conn.close()
        if status != 200:
            failure = f"status {status}"
    except OSError as exc:
        failure = repr(exc)
    return failure, time.monotonic() - started


def sigterm_under_load(
    pid: int, port: int, *, clients: int = 8, before: float = 1.0, after: float = 10.0, max_requests: int = 20_000
) -> DrainResult:
    """``clients`` threads send requests (half on keep-alive connections, half one connection per
    request) for ``before`` seconds, then ``pid`` gets SIGTERM, and they go on for ``after``
    seconds or until the server stops accepting. Another thread polls ``/readyz``."""
    result = DrainResult()
    lock = threading.Lock()
    budget = iter(range(max_requests))
    term_at: list[float] = []
    stop_at = time.monotonic() + before + after

    def since_term() -> float:
        return time.monotonic() - term_at[0] if term_at else -1.0

    def client(index: int) -> None:
        keep_alive = index % 2 == 0
        conn: http.client.HTTPConnection | None = None
        while time.monotonic() < stop_at:
            with lock:
                n = next(budget, None)
            if n is None:
                return
            if conn is None:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
                try:
                    conn.connect()
                except OSError:
                    conn = None
                    with lock:
                        result.refused_connects += 1
                    if term_at:
                        return  # the listener is gone: this client is done
                    time.sleep(0.05)
                    continue
            with lock:
                result.sent += 1
            try:
                status, connection, _ = _request(conn, "/v1/games/schnapsen/new", BODY)
            except (OSError, http.client.HTTPException) as exc:
                with lock:
                    result.lost.append(f"client {index} request {n} ({since_term():.2f} s after SIGTERM): {exc!r}")
                conn.close()
                conn = None
                continue
            with lock:
                result.answered += 1 if status == 201 else 0
                if status != 201:
                    result.lost.append(f"client {index} request {n}: status {status}")
                if term_at:
                    result.answers_after_term += 1
                    result.last_answer_after_term = max(result.last_answer_after_term, since_term())
                    result.closes_after_term += connection.lower() == "close"
                    if connection.lower() != "close":
                        result.unclosed_after_term.append(since_term())
            if not keep_alive or connection.lower() == "close":
                conn.close()
                conn = None
        if conn is not None:
            conn.close()

    def poll_readyz() -> None:
        while time.monotonic() < stop_at:
            if term_at:
                try:
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                    status, _, data = _request(conn, "/readyz", None)
                    conn.close()
                    with lock:
                        result.readyz.append((since_term(), status, data.decode()))
                except OSError:
                    return
            time.sleep(0.1)

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
    threads.append(threading.Thread(target=poll_readyz, daemon=True))
    for t in threads:
        t.start()
    time.sleep(before)
    term_at.append(time.monotonic())
    os.kill(pid, signal.SIGTERM)
    for t in threads:
        t.join(timeout=before + after + 30)
    return result


@dataclass
class SlowResult:
    probes: int = 0
    slowest: float = 0.0
    failures: list[str] = field(default_factory=list)
    trickled_bytes: int = 0


def slow_clients(port: int, *, connections: int = 50, seconds: float = 10.0, probe_every: float = 0.25) -> SlowResult:
    """``connections`` sockets trickle a request head one byte at a time (a new socket when the
    server cuts one) for ``seconds``, while ``/healthz`` is probed; each probe waits at most 5 s."""
    result = SlowResult()
    head = b"POST /v1/games/schnapsen/new HTTP/1.1\r\nHost: referee\r\nContent-Type: application/json\r\n" + b"X-Padding: " + b"p" * 4000
    stop_at = time.monotonic() + seconds
    lock = threading.Lock()

    def trickle() -> None:
        sock: socket.socket | None = None
        sent = 0
        while time.monotonic() < stop_at:
            try:
                if sock is None:
                    sock = socket.create_connection(("127.0.0.1", port), timeout=2)
                    sent = 0
                sock.sendall(head[sent % len(head) : sent % len(head) + 1])
                sent += 1
                with lock:
                    result.trickled_bytes += 1
            except OSError:
                if sock is not None:
                    sock.close()
                sock = None
            time.sleep(0.1)
        if sock is not None:
            sock.close()

    threads = [threading.Thread(target=trickle, daemon=True) for _ in range(connections)]
    for t in threads:
        t.start()
    time.sleep(0.5)
    while time.monotonic() < stop_at:
        failure, took = probe_healthz(port)
        if failure is not None:
            result.failures.append(failure)
        result.probes += 1
        result.slowest = max(result.slowest, took)
        time.sleep(max(0.0, probe_every - took))
    for t in threads:
        t.join(timeout=5)
    return result


def as_dict(result: Any) -> dict[str, Any]:
    return {k: v for k, v in vars(result).items()}
