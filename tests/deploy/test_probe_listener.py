"""The probe listener (``REFEREE_PROBE_BIND``): ``/healthz`` answers within 1 s whatever one client
does with its connections to the API's port.

The operator's report: with k8s/'s settings (2 gevent workers, 1000 connections each) one client
opening 2,200 connections that send a head with a ``Content-Length`` and then stop sending the body
held every greenlet of both workers' pools, for ``REFEREE_TIMEOUT`` (30 s); ``/healthz`` on the API
port went unanswered for 28 s and the liveness probe would have restarted a healthy pod. Each
listener of a worker has its own pool, so the probes get a port whose places no API client takes.
"""

from __future__ import annotations

import http.client
import resource
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from werkzeug.test import Client

from tests.conftest import make_app
from tests.servers import Gunicorn, free_port

FLOOD = 2200
"""More connections than k8s/'s 2 workers take together (2 x 1000): the rest wait in the listen queue."""
STOPPED_HEAD = (b"POST /v1/games/schnapsen/new HTTP/1.1\r\nHost: referee\r\nContent-Type: application/json\r\n"
                b"Content-Length: 16384\r\n\r\n{")


class _Local:
    """Stands in for ``gunicorn.socket``: a connection that came in on ``port``."""

    def __init__(self, port: int) -> None:
        self.port = port

    def getsockname(self) -> tuple[str, int]:
        return ("127.0.0.1", self.port)


def test_the_probe_port_serves_the_probes_and_nothing_else() -> None:
    app = make_app(PROBE_BIND="127.0.0.1:8081")
    client = Client(app.wsgi_app)
    on_probe_port = {"gunicorn.socket": _Local(8081)}
    r = client.get("/healthz", environ_base=on_probe_port)
    assert r.status_code == 200 and r.get_json() == {"status": "ok"} and r.headers["X-Request-ID"]
    assert client.get("/readyz", environ_base=on_probe_port).get_json() == {"status": "ready", "mode": "open"}
    for path in ("/v1/games", "/metrics", "/openapi.yaml", "/healthz/"):
        r = client.get(path, environ_base=on_probe_port)
        assert r.status_code == 404 and r.get_json()["code"] == "not_found", path
        assert r.headers["Content-Type"] == "application/problem+json"
    assert client.post("/healthz", environ_base=on_probe_port).status_code == 405
    # the API's own port serves all of it, the probes included, as before
    on_api_port = {"gunicorn.socket": _Local(8000)}
    assert client.get("/healthz", environ_base=on_api_port).status_code == 200
    assert client.get("/v1/games", environ_base=on_api_port).status_code == 200


@dataclass
class FloodResult:
    opened: int = 0  # flood connections established and holding a stopped body
    probes: list[tuple[float, float, str | None]] = field(default_factory=list)  # (start since flood, seconds, failure)
    api_healthz: str | None = None  # what a /healthz on the API port got during the flood (None: a 200 in time)


def _probe(port: int, timeout: float) -> tuple[float, str | None]:
    started = time.monotonic()
    failure: str | None = None
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        conn.request("GET", "/healthz")
        status = conn.getresponse().status
        conn.close()
        if status != 200:
            failure = f"status {status}"
    except (OSError, http.client.HTTPException) as exc:
        failure = repr(exc)
    return time.monotonic() - started, failure


def flood_and_probe(api_port: int, probe_port: int, *, connections: int = FLOOD, hold: float = 6.0,
                    probe_every: float = 0.25) -> FloodResult:
    """``connections`` sockets to ``api_port`` each send a head announcing 16 KiB and one byte of
    it, then stop; meanwhile, from before the first until ``hold`` seconds after the last, a new
    connection asks ``probe_port`` for ``/healthz`` every ``probe_every`` seconds (each waiting at
    most 3 s). Every socket is closed at the end."""
    result = FloodResult()
    done = threading.Event()
    began = time.monotonic()

    def probing() -> None:
        while not done.is_set():
            at = time.monotonic() - began
            took, failure = _probe(probe_port, 3.0)
            result.probes.append((at, took, failure))
            done.wait(max(0.0, probe_every - took))

    prober = threading.Thread(target=probing, daemon=True)
    prober.start()
    sockets: list[socket.socket] = []
    try:
        for _ in range(connections):
            try:
                sock = socket.create_connection(("127.0.0.1", api_port), timeout=5)
                sock.sendall(STOPPED_HEAD)
            except OSError:
                continue
            sockets.append(sock)
        result.opened = len(sockets)
        time.sleep(1.0)  # let the workers take what they can
        took, failure = _probe(api_port, 2.0)
        result.api_healthz = failure if failure is not None or took < 2.0 else "slow"
        time.sleep(max(0.0, hold - 1.0 - took))
    finally:
        done.set()
        prober.join(timeout=10)
        for sock in sockets:
            sock.close()
    return result


def _enough_descriptors(needed: int) -> None:
    """Raise this process's soft limit on open files (gunicorn inherits it) to ``needed``."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < needed:
        pytest.skip(f"the hard limit on open files ({hard}) is below the {needed} this flood needs")
    if soft != resource.RLIM_INFINITY and soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))


@pytest.mark.slow
def test_healthz_on_the_probe_port_answers_within_1s_while_stopped_bodies_hold_every_api_connection(tmp_path: Path) -> None:
    _enough_descriptors(2 * FLOOD + 1000)  # the flood's sockets here, the workers' (2 x 1000 and their own) there
    probe_port = free_port()
    env = {"REFEREE_PROBE_BIND": f"127.0.0.1:{probe_port}"}  # k8s/: 2 workers, the default 1000 connections each
    started = time.monotonic()
    with Gunicorn(tmp_path, workers=2, env=env) as g:
        result = flood_and_probe(g.port, probe_port)
        # the flood gone (its connections closed: 400 body_incomplete each), the API port answers again
        deadline = time.monotonic() + 10
        while (api := _probe(g.port, 2.0))[1] is not None and time.monotonic() < deadline:
            time.sleep(0.2)
    assert result.opened == FLOOD
    # the flood really took every place the API port has: its own /healthz was not answered in 2 s
    assert result.api_healthz is not None, "the flood did not hold the API port: this test proves nothing"
    assert len(result.probes) >= 20, result.probes
    slow = [(round(at, 2), round(took, 3), failure) for at, took, failure in result.probes if failure is not None or took >= 1.0]
    assert not slow, f"{len(slow)} of {len(result.probes)} probes failed or took 1 s or more: {slow[:10]}"
    assert api[1] is None, api
    assert time.monotonic() - started < 30
