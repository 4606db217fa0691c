"""The rewind guard on real stores (issue 13, item 5): the ledger's compare-and-set and its epoch in
SQLite, in a real ``redis-server`` and in a real PostgreSQL (issue 30; its failover in
test_ledger_postgres.py), the record's moves appended by it alone (issue 24), expiry (an expired match is refused, never current), two gunicorn instances sharing keys and the Redis ledger with
many threads racing one token (exactly one move wins), and Redis stopped mid-run (503
``ledger_unavailable`` with ``Retry-After``, never 200; ``/readyz`` stays 200: the store is shared)."""

from __future__ import annotations

import functools
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from cryptography.fernet import Fernet

from service.ledger import (
    CURRENT,
    LOST,
    SUPERSEDED,
    TIMEOUT,
    LedgerUnavailable,
    PostgresLedger,
    RedisLedger,
    SqliteLedger,
    check_url,
    open_ledger,
    store_name,
)
from tests.fairplay.conftest import RedisServer
from tests.pg import PostgresServer, why_missing
from tests.servers import Gunicorn, call, free_port
from tests.tools import missing

STORES = ["sqlite", "redis", "postgres"]


def _store(kind: str, tmp_path: Path, request: pytest.FixtureRequest, ttl: int = 3600) -> Any:
    if kind == "sqlite":
        return SqliteLedger(str(tmp_path / "l.db"), ttl)
    if kind == "postgres":
        return PostgresLedger(request.getfixturevalue("postgres_server").fresh(), ttl)
    return RedisLedger(request.getfixturevalue("redis_server").url, ttl)


@pytest.mark.parametrize("kind", STORES)
def test_compare_and_set(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    led = _store(kind, tmp_path, request)
    m = f"cas-{kind}-{time.monotonic_ns()}"
    assert led.check(None, m, 0) == LOST  # never registered: not taken as current
    epoch = led.register(m, 0)
    assert led.epoch() == epoch and led.register(f"{m}-b", 0) == epoch  # one epoch per store
    assert led.check(epoch, m, 0) == CURRENT and led.check(epoch, m, 7) == SUPERSEDED
    assert led.advance(epoch, m, 0) == CURRENT
    assert led.advance(epoch, m, 0) == SUPERSEDED  # the same token again
    assert led.check(epoch, m, 1) == CURRENT and led.check(epoch, m, 0) == SUPERSEDED
    assert led.advance(epoch, m, 1) == CURRENT and led.advance(epoch, m, 1) == SUPERSEDED and led.advance(epoch, m, 0) == SUPERSEDED
    assert led.check(epoch, f"{m}-unknown", 0) == LOST  # registered in this epoch, yet not held: lost
    assert led.advance(epoch, f"{m}-unknown", 0) == LOST
    assert led.check("another-epoch", m, 2) == LOST and led.advance("another-epoch", m, 2) == LOST
    assert led.check(epoch, m, 2) == CURRENT  # nothing moved on a refusal
    assert led.check(None, m, 2) == CURRENT and led.check(None, m, 1) == SUPERSEDED  # a token from before epochs
    assert led.advance(epoch, f"{m}-b", 0) == CURRENT  # matches are independent
    led.ping()


@pytest.mark.parametrize("kind", STORES)
def test_the_record_is_appended_by_the_compare_and_set_only(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """A move joins the stored record exactly when ``advance`` answers current; ``register`` starts
    the record over (a sealed replay's moves, or none)."""
    led = _store(kind, tmp_path, request)
    m = f"rec-{kind}-{time.monotonic_ns()}"
    epoch = led.register(m, 3, ['{"a":1}', '{"a":2}', '{"a":3}'])
    assert led.moves(m) == ['{"a":1}', '{"a":2}', '{"a":3}'] and led.moves(f"{m}-none") == []
    assert led.advance(epoch, m, 3, '{"a":4}') == CURRENT
    assert led.advance(epoch, m, 3, '{"b":4}') == SUPERSEDED  # a token that is not current appends nothing
    assert led.advance("another-epoch", m, 4, '{"c":5}') == LOST
    assert led.check(epoch, m, 4) == CURRENT and led.moves(m) == ['{"a":1}', '{"a":2}', '{"a":3}', '{"a":4}']
    assert led.advance(epoch, m, 4) == CURRENT and len(led.moves(m)) == 4  # a record kept in the token: nothing stored
    led.register(m, 0)
    assert led.moves(m) == []
    assert led.register(f"{m}-long", 2500, [f'{{"n":{i}}}' for i in range(2500)]) == epoch  # more than one Lua unpack
    assert led.moves(f"{m}-long") == [f'{{"n":{i}}}' for i in range(2500)]


@pytest.mark.parametrize("kind", STORES)
def test_entries_expire_and_an_expired_match_is_refused(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    led = _store(kind, tmp_path, request, ttl=1)
    m = f"ttl-{kind}-{time.monotonic_ns()}"
    epoch = led.register(m, 0)
    assert led.advance(epoch, m, 0, '{"a":1}') == CURRENT and led.check(epoch, m, 0) == SUPERSEDED
    assert led.moves(m) == ['{"a":1}']
    time.sleep(1.2)
    assert led.check(epoch, m, 0) == LOST and led.check(epoch, m, 1) == LOST  # forgotten (the store stays bounded), never current
    assert led.moves(m) == []  # the record expires with the match


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_threads_racing(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    led = _store(kind, tmp_path, request)
    epoch = led.register("race", 0)
    wins = []
    barrier = threading.Barrier(12)

    def go(i: int) -> None:
        barrier.wait(timeout=10)
        wins.append((led.advance(epoch, "race", 0, f'{{"t":{i}}}'), i))

    threads = [threading.Thread(target=go, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=20)
    verdicts = [v for v, _ in wins]
    assert verdicts.count(CURRENT) == 1 and verdicts.count(SUPERSEDED) == 11
    winner = next(i for v, i in wins if v == CURRENT)
    assert led.moves("race") == [f'{{"t":{winner}}}']  # the winner's move, and only it


def test_urls() -> None:
    assert check_url("redis://127.0.0.1:6379/0") is None and check_url("sqlite:////tmp/x.db") is None
    assert check_url("postgresql://u@h1:5432,h2:5433/db?target_session_attrs=read-write") is None
    assert check_url("postgres://u:p@h/db") is None and check_url("postgresql:///db?host=/run/postgresql") is None
    assert check_url("http://x") and check_url("sqlite://") and check_url("redis:///0") and check_url("postgresql:///db")
    assert check_url("postgresql://h/db?no_such_option=1")
    with pytest.raises(ValueError):
        open_ledger("mysql://x")
    assert isinstance(open_ledger("postgresql://u@127.0.0.1:1/db"), PostgresLedger)  # nothing connects before first use


def test_store_name_is_the_metrics_label() -> None:
    assert [store_name(u) for u in ("redis://h/0", "rediss://h/0", "sqlite:////x.db", "postgresql://h/db", "postgres://h/db")] == [
        "redis", "redis", "sqlite", "postgresql", "postgresql"]


@pytest.mark.parametrize("kind", ["redis", "postgres"])
def test_unreachable_store_raises(kind: str) -> None:
    port = free_port()  # nothing listens there
    led = RedisLedger(f"redis://127.0.0.1:{port}/0", 60) if kind == "redis" else PostgresLedger(f"postgresql://u@127.0.0.1:{port}/db", 60)
    calls = (lambda: led.advance("e", "m", 0), lambda: led.check("e", "m", 0), lambda: led.register("m", 0), led.ping, led.epoch,
             lambda: led.moves("m"), lambda: led.history("e", "m", 0), led.usage)

    def timed(call_it: Any) -> float:
        began = time.monotonic()
        with pytest.raises(LedgerUnavailable):
            call_it()
        return time.monotonic() - began

    with ThreadPoolExecutor(len(calls)) as pool:  # at once: each may wait out the deadline (PostgreSQL's pool does)
        waits = list(pool.map(timed, calls))
    assert max(waits) < TIMEOUT + 0.5, waits  # never longer than a request may wait for the store


def _gunicorn(tmp: Path, name: str, env: dict[str, str]) -> Gunicorn:
    g = Gunicorn(tmp, workers=2, env=env, name=name)
    g.port = free_port()
    g.url = f"http://127.0.0.1:{g.port}"
    g.env["REFEREE_BIND"] = f"127.0.0.1:{g.port}"
    g.wait_ready = functools.partial(Gunicorn.wait_ready, g, 120)  # type: ignore[method-assign]  # a busy machine
    return g


@pytest.mark.parametrize("kind", ["redis", "postgres"])
def test_two_instances_one_shared_ledger_exactly_one_move_wins_then_the_store_stops(kind: str, tmp_path: Path) -> None:
    """Gunicorn's gevent workers (forked by the master) on one Redis, or one PostgreSQL (a pool per worker)."""
    import shutil

    store: RedisServer | PostgresServer
    if kind == "redis":
        if shutil.which("redis-server") is None:
            missing("redis-server is not installed (.ci/run installs it)")
        store = RedisServer(tmp_path, free_port())
        store.start()
        url = store.url
    else:
        problem = why_missing()
        if problem:
            missing(problem)
        store = PostgresServer("instances")
        store.init().start()
        url = store.url()
    env = {"REFEREE_SEAL_KEYS": Fernet.generate_key().decode(), "REFEREE_LEDGER_URL": url, "REFEREE_GRACEFUL_TIMEOUT": "3"}
    try:
        a, b = _gunicorn(tmp_path, "a", env), _gunicorn(tmp_path, "b", env)
        with ExitStack() as stack:
            for g in (a, b):
                stack.callback(g.__exit__, None, None, None)  # stopped even when the other never got ready
            with ThreadPoolExecutor(2) as pool:  # start both at once (each waits until its workers are ready)
                for started in [pool.submit(g.__enter__) for g in (a, b)]:
                    started.result()
            status, new = call(f"{a.url}/v1/games/schnapsen/new", {})
            assert status == 201
            k1 = new["seat_keys"][1]
            status, view = call(f"{b.url}/v1/games/schnapsen/state?as=1", {"token": new["token"]}, {"X-Seat-Key": k1})
            plays = [m for m in view["legal_moves"] if m["type"] == "play"]
            results: list[tuple[int, tuple[int, Any]]] = []
            barrier = threading.Barrier(16)

            def race(i: int) -> None:
                url = (a.url, b.url)[i % 2]
                barrier.wait(timeout=20)
                results.append((i, call(f"{url}/v1/games/schnapsen/moves", {"token": new["token"], "move": plays[i % len(plays)]},
                                        {"X-Seat-Key": k1})))

            threads = [threading.Thread(target=race, args=(i,)) for i in range(16)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(timeout=60)
            assert len(results) == 16
            # exactly one move wins; the racers that sent that same move get its answer (exactly
            # once), every other is 409 token_superseded, never ledger_lost
            won = {i % len(plays) for i, (st, _) in results if st == 200}
            assert len(won) == 1, results
            for i, (st, body) in results:
                if i % len(plays) in won:
                    assert st == 200 and body["state"]["seq"] == 1, (i, st, body)
                else:
                    assert st == 409 and body["code"] == "token_superseded", (i, st, body)
            assert len({json.dumps(body["state"], sort_keys=True) for _, (st, body) in results if st == 200}) == 1
            # the old token resumes: the position after the winning move
            status, resumed = call(f"{a.url}/v1/games/schnapsen/state?as=1", {"token": new["token"]}, {"X-Seat-Key": k1})
            assert status == 200 and resumed["state"]["seq"] == 1
            # the store goes away mid-match: every sealed move is refused with 503, never accepted
            store.stop()
            for url in (a.url, b.url, a.url):
                st, body = call(f"{url}/v1/games/schnapsen/moves", {"token": new["token"], "move": plays[0]}, {"X-Seat-Key": k1})
                assert st == 503 and body["code"] == "ledger_unavailable", body
                st, body = call(f"{url}/v1/games/schnapsen/state", {"token": new["token"]})
                assert st == 503
            assert call(f"{a.url}/healthz")[0] == 200  # the service itself stays up
            # ... and ready: the store is every pod's, so its outage must not take them all out of the
            # load balancer (open play and every other request would be refused with them)
            assert call(f"{a.url}/readyz") == (200, {"status": "ready", "mode": "sealed"})
    finally:
        store.stop()
        if isinstance(store, PostgresServer):
            store.cleanup()


def test_a_sqlite_file_of_the_release_before_gains_the_retention_columns_and_keeps_its_matches(tmp_path: Path) -> None:
    """A ledger file written before the finished-match retention existed (no ``finished`` or
    ``moves_expire`` columns) is opened as it is: its matches stay current, their moves are read
    back, and their finishing move marks them finished."""
    import sqlite3

    path = tmp_path / "old.db"
    with sqlite3.connect(path) as db:  # the tables as the release before created them
        db.execute("CREATE TABLE ledger (match_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, expires REAL NOT NULL)")
        db.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("CREATE TABLE moves (match_id TEXT NOT NULL, n INTEGER NOT NULL, move TEXT NOT NULL, PRIMARY KEY (match_id, n)) WITHOUT ROWID")
        db.execute("INSERT INTO meta VALUES ('epoch', 'e1')")
        db.execute("INSERT INTO ledger VALUES ('m', 2, ?)", (time.time() + 3600,))
        db.executemany("INSERT INTO moves VALUES ('m', ?, ?)", [(0, '{"a":0}'), (1, '{"a":1}')])
    ledger = SqliteLedger(str(path), 3600, finished_ttl=60)
    history = ledger.history("e1", "m", 1)
    assert (history.verdict, history.seq, history.moves, history.archived) == (SUPERSEDED, 2, ('{"a":0}', '{"a":1}'), False)
    assert ledger.advance("e1", "m", 2, '{"a":2}', finished=True) == CURRENT
    assert ledger.moves("m") == ['{"a":0}', '{"a":1}', '{"a":2}']
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT seq, finished FROM ledger WHERE match_id = 'm'").fetchone() == (3, 1)
