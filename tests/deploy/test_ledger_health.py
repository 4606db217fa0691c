"""The shared ledger's health is the metrics' business, not readiness's (the operator's report: a
paused Redis made every pod unready at once, and the load balancer refused everything).

- a sealed request the ledger cannot serve is 503 ``ledger_unavailable`` with ``Retry-After``, over
  HTTP against a ``redis://`` URL on a closed port, while ``/readyz``, ``/healthz`` and everything
  that needs no ledger answer 200, and an open instance with the same URL plays on;
- ``/metrics`` carries ``referee_ledger_up`` and the store's memory (``LedgerWatch``): refreshed at
  most every few seconds, not on API requests, a warning past 80% of the limit, one series per
  store across workers.
"""

from __future__ import annotations

import json
import logging
import shutil
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import REGISTRY
from redis import Redis

from service.api.problems import RETRY_AFTER_SECONDS
from service.ledger import LedgerUnavailable
from service.observability import LedgerWatch
from service.problems import ApiError
from tests.conftest import KEY_NEW, make_app
from tests.servers import Gunicorn, free_port
from tests.tools import missing

NEW = "/v1/games/schnapsen/new"


def _request(url: str, body: object | None = None) -> tuple[int, dict[str, str], Any]:
    """(status, headers, parsed body) of one request."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            status, headers, raw = r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        status, headers, raw = e.code, dict(e.headers), e.read()
    text = raw.decode()
    return status, headers, (json.loads(text) if text.startswith(("{", "[")) else text)


def test_unreachable_ledger_refuses_sealed_play_with_retry_after_and_nothing_else(tmp_path: Path) -> None:
    closed = free_port()  # nothing listens there: every connection is refused at once
    metrics = free_port()
    ledger = {"REFEREE_LEDGER_URL": f"redis://127.0.0.1:{closed}/0"}
    sealed = {**ledger, "REFEREE_MODE": "sealed", "REFEREE_SEAL_KEYS": KEY_NEW, "REFEREE_METRICS_BIND": f"127.0.0.1:{metrics}"}
    with Gunicorn(tmp_path, workers=2, env=sealed, name="sealed") as g:  # Gunicorn waits for /readyz 200: ready regardless
        for _ in range(3):
            status, headers, body = _request(f"{g.url}{NEW}", {})
            assert status == 503 and body["code"] == "ledger_unavailable", body
            assert headers["Content-Type"] == "application/problem+json"
            assert headers["Retry-After"] == str(RETRY_AFTER_SECONDS) == "2"
        assert _request(f"{g.url}/readyz")[:3:2] == (200, {"status": "ready", "mode": "sealed"})
        assert _request(f"{g.url}/healthz")[0] == 200
        status, headers, _ = _request(f"{g.url}/v1/games")
        assert status == 200 and "Retry-After" not in headers  # only a 503 says when to come back
        status, _, text = _request(f"http://127.0.0.1:{metrics}/metrics")
        assert status == 200
        # one series across both workers (multiprocess mode "mostrecent"), saying the store is down
        assert [line for line in text.splitlines() if line.startswith("referee_ledger_up")] == ['referee_ledger_up{store="redis"} 0.0']
        assert "referee_ledger_used_bytes{" not in text  # never answered: nothing to report
    with Gunicorn(tmp_path, workers=1, env={**ledger, "REFEREE_MODE": "open"}, name="open") as g:
        status, _, new = _request(f"{g.url}{NEW}", {"seed": 3})
        assert status == 201
        status, _, _ = _request(f"{g.url}/v1/games/schnapsen/moves", {"state": new["state"], "move": new["legal_moves"][0]})
        assert status == 200
        assert _request(f"{g.url}/readyz")[:3:2] == (200, {"status": "ready", "mode": "open"})


class _Stub:
    """A ledger that answers ``usage`` with what it is given (an exception is raised), counting calls."""

    def __init__(self, *answers: tuple[int, int | None] | Exception) -> None:
        self.answers = list(answers)
        self.calls = 0

    def usage(self) -> tuple[int, int | None]:
        self.calls += 1
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def _gauge(name: str, store: str) -> float | None:
    return REGISTRY.get_sample_value(name, {"store": store})


def test_ledger_watch_asks_the_store_at_most_every_few_seconds() -> None:
    now = [100.0]
    stub = _Stub((10, 1000), (20, 1000), LedgerUnavailable("timed out"))
    watch = LedgerWatch(lambda: stub, "t-cache", clock=lambda: now[0])  # type: ignore[arg-type,return-value]
    watch.refresh()
    for _ in range(50):
        watch.refresh()  # a burst of scrapes within the period: one round trip
    assert stub.calls == 1
    assert (_gauge("referee_ledger_up", "t-cache"), _gauge("referee_ledger_used_bytes", "t-cache")) == (1.0, 10.0)
    assert _gauge("referee_ledger_limit_bytes", "t-cache") == 1000.0
    now[0] += LedgerWatch.EVERY - 0.01
    watch.refresh()
    assert stub.calls == 1
    now[0] += 0.02
    watch.refresh()
    assert stub.calls == 2 and _gauge("referee_ledger_used_bytes", "t-cache") == 20.0
    now[0] += LedgerWatch.EVERY
    watch.refresh()
    # down: up says so, the memory figures stay the last ones the store gave
    assert stub.calls == 3 and _gauge("referee_ledger_up", "t-cache") == 0.0
    assert _gauge("referee_ledger_used_bytes", "t-cache") == 20.0


def test_ledger_watch_warns_once_when_use_passes_80_percent(caplog: pytest.LogCaptureFixture) -> None:
    now = [0.0]
    stub = _Stub((800, 1000), (801, 1000), (950, 1000), (100, 1000), (900, 1000), (5000, None))
    watch = LedgerWatch(lambda: stub, "t-full", clock=lambda: now[0])  # type: ignore[arg-type,return-value]
    said: list[list[str]] = []
    with caplog.at_level(logging.WARNING, logger="service"):
        for _ in stub.answers[:]:
            caplog.clear()
            watch.refresh()
            said.append([r.getMessage() for r in caplog.records if "over 80%" in r.getMessage()])
            now[0] += LedgerWatch.EVERY
    # 80% itself is not past it; past it, once until it drops back; no limit, no warning
    assert [bool(messages) for messages in said] == [False, True, False, False, True, False]
    assert said[1] == ["the ledger uses 801 of its 1000 bytes (over 80%): it refuses every sealed move once full"]


def test_ledger_watch_counts_a_ledger_that_cannot_be_opened_as_down() -> None:
    def cannot_open() -> Any:
        raise ApiError(503, "ledger_unavailable", "The ledger cannot be reached.")

    LedgerWatch(cannot_open, "t-open").refresh()
    assert _gauge("referee_ledger_up", "t-open") == 0.0
    # no answer, no figures: the memory series do not exist (rather than a made-up 0)
    assert _gauge("referee_ledger_used_bytes", "t-open") is None and _gauge("referee_ledger_limit_bytes", "t-open") is None
    stub = _Stub((5000, None))
    LedgerWatch(lambda: stub, "t-nolimit").refresh()  # type: ignore[arg-type,return-value]
    assert _gauge("referee_ledger_used_bytes", "t-nolimit") == 5000.0 and _gauge("referee_ledger_limit_bytes", "t-nolimit") is None


def _sample(text: str, name: str) -> float:
    """The value of ``name{store="redis"}`` in a scrape."""
    return float(next(line for line in text.splitlines() if line.startswith(f'{name}{{store="redis"}} ')).split()[-1])


def test_metrics_listener_reports_a_real_redis_fill_and_api_requests_never_touch_it(tmp_path: Path) -> None:
    if shutil.which("redis-server") is None:
        missing("redis-server is not installed (.ci/run installs it)")
    from tests.fairplay.conftest import RedisServer

    redis = RedisServer(tmp_path, free_port())
    redis.start()
    try:
        store = Redis.from_url(redis.url, socket_timeout=5)
        store.config_set("maxmemory", 64 * 1024 * 1024)
        metrics_port = 9100

        class Sock:
            def __init__(self, port: int) -> None:
                self.port = port

            def getsockname(self) -> tuple[str, int]:
                return ("127.0.0.1", self.port)

        app = make_app(SEAL_KEYS=[KEY_NEW], LEDGER_URL=redis.url, METRICS_BIND=f"127.0.0.1:{metrics_port}")
        client = app.test_client()
        before = int(store.info("stats")["total_commands_processed"])
        for _ in range(5):
            assert client.get("/readyz").status_code == 200
            assert client.get("/v1/games").status_code == 200
        after = int(store.info("stats")["total_commands_processed"])
        assert after - before == 1  # the INFO that read the count itself: readiness never asks the store
        scrape = client.get("/metrics", environ_base={"gunicorn.socket": Sock(metrics_port)})
        text = scrape.get_data(as_text=True)
        assert scrape.status_code == 200 and _sample(text, "referee_ledger_up") == 1.0
        assert _sample(text, "referee_ledger_limit_bytes") == 64 * 1024 * 1024
        assert 100_000 < _sample(text, "referee_ledger_used_bytes") < 64 * 1024 * 1024
        redis.stop()
        started = time.monotonic()
        text = client.get("/metrics", environ_base={"gunicorn.socket": Sock(metrics_port)}).get_data(as_text=True)
        assert _sample(text, "referee_ledger_up") == 1.0  # within the period: the cached answer, no round trip
        assert time.monotonic() - started < 0.5
    finally:
        redis.stop()


def test_sqlite_file_deleted_under_running_gunicorn_is_503_and_unready_until_renamed_back(tmp_path: Path) -> None:
    """Issue 32: every worker holds the SQLite file open; deleting or replacing it is noticed on the
    next request of every worker (503 ``ledger_unavailable``, ``/readyz`` 503), and renaming the
    same file back restores play where it was."""
    db = tmp_path / "ledger.db"
    sealed = {"REFEREE_LEDGER_URL": f"sqlite:///{db}", "REFEREE_MODE": "sealed", "REFEREE_SEAL_KEYS": KEY_NEW}
    with Gunicorn(tmp_path, workers=2, env=sealed, name="sqlite") as g:
        status, _, env = _request(f"{g.url}{NEW}", {})
        assert status == 201, env
        aside = tmp_path / "aside.db"
        for change in ("deleted", "replaced"):
            if change == "deleted":
                db.rename(aside)
            else:
                db.write_bytes(b"SQLite format 3\x00" + bytes(4080))  # another file at the path
            for _ in range(6):  # both workers (each request may land on either)
                status, headers, body = _request(f"{g.url}{NEW}", {})
                assert status == 503 and body["code"] == "ledger_unavailable" and headers["Retry-After"] == "2", body
                status, _, body = _request(f"{g.url}/readyz")
                assert status == 503 and body["status"] == "ledger_unavailable" and change in body["reason"], body
        db.unlink()
        aside.rename(db)
        for _ in range(6):
            assert _request(f"{g.url}/readyz")[0] == 200
        status, _, state = _request(f"{g.url}{NEW[:-4]}/state", {"token": env["token"]})
        assert status == 200 and state["state"]["seq"] == env["state"]["seq"], state  # the match is still known
    assert "Traceback" not in g.stderr.read_text()


def test_a_worker_started_while_the_sqlite_file_is_gone_makes_no_ledger_of_its_own(tmp_path: Path) -> None:
    """Workers recycled (``REFEREE_MAX_REQUESTS``, as after a crash) while the file is gone hold to
    the file the master opened (``pin_sqlite_file``): each refuses (503) as the others do and none
    creates a new file at the path, which would be a ledger of its own (every old token
    ``ledger_lost``, new matches on a store the other workers do not see); the file renamed back,
    play resumes where it was."""
    db = tmp_path / "ledger.db"
    env = {"REFEREE_LEDGER_URL": f"sqlite:///{db}", "REFEREE_MODE": "sealed", "REFEREE_SEAL_KEYS": KEY_NEW,
           "REFEREE_MAX_REQUESTS": "3", "REFEREE_MAX_REQUESTS_JITTER": "0"}
    with Gunicorn(tmp_path, workers=2, env=env, name="recycled") as g:
        status, _, match = _request(f"{g.url}{NEW}", {})
        assert status == 201, match
        db.rename(tmp_path / "aside.db")
        first = set(g.worker_pids())
        served_by_newborns = 0
        for _ in range(60):  # every worker serves 3 requests, then another takes its place (bounded)
            status, _, body = _request(f"{g.url}{NEW}", {})
            assert status == 503 and body["code"] == "ledger_unavailable", body
            assert not db.exists(), "a worker created a ledger file of its own"
            if set(g.worker_pids()).isdisjoint(first):  # both workers now born while the file was gone
                served_by_newborns += 1
                if served_by_newborns >= 6:
                    break
            time.sleep(0.2)
        assert served_by_newborns >= 6, f"the workers were not recycled: {first} {g.worker_pids()}"
        (tmp_path / "aside.db").rename(db)
        status, _, state = _request(f"{g.url}{NEW[:-4]}/state", {"token": match["token"]})
        assert status == 200 and state["state"]["seq"] == match["state"]["seq"], state
    assert "Traceback" not in g.stderr.read_text()
