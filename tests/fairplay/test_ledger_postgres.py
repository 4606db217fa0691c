"""The PostgreSQL ledger's failover (issue 30, item 1), on real servers from Debian's ``postgresql``
(``tests/pg.py``), through the service where a client would see it.

- Races: threads of two processes (forked after the ledger was used: each has its own pool) advance
  one match from one ``seq``: exactly one wins, and its move only is recorded.
- libpq multi-host URLs: a dead first host, or a standby first (``target_session_attrs=read-write``,
  also the ledger's default when the URL does not say), and the ledger writes to the primary.
- The primary restarted: 503 ``ledger_unavailable`` while it is down, and play resumes once it is
  back, without restarting the referee; a paused server (SIGSTOP): 503 within the request's
  deadline; a server turned read-only (a demoted primary): 503, not 500.
- A synchronous standby: a move answered is on the standby; the primary killed (-9) and the standby
  promoted, the old token is refused (its move's retry answered as the first time) and the latest is
  current, with the referee as it was (its URL names both hosts).
- The commit that is only on the primary: with the standby gone a move's commit waits; the request
  answers 503 at its deadline; the wait cancelled on the server leaves the move committed on the
  primary alone, and neither that request nor its retry (answered from the ledger's history) is
  ever answered 200 until the standby holds the move too.
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask

from service.engines import ENGINES
from service.ledger import CURRENT, SUPERSEDED, TIMEOUT, LedgerUnavailable, PostgresLedger
from service.schemas.common import to_wire
from tests.conftest import KEY_NEW, make_app
from tests.fairplay.helpers import new_match, true_state
from tests.pg import PostgresServer, why_missing
from tests.servers import free_port
from tests.tools import missing

SCH = "/v1/games/schnapsen"
pytestmark = pytest.mark.xdist_group("postgres-failover")  # one worker: the module's servers are started once


def _need_postgres() -> None:
    problem = why_missing()
    if problem:
        missing(problem)


@pytest.fixture(scope="module")
def primary() -> Iterator[PostgresServer]:
    """A server of this module's own (tests restart it and turn it read-only)."""
    _need_postgres()
    with PostgresServer("primary") as server:
        yield server


@pytest.fixture(scope="module")
def cluster() -> Iterator[tuple[PostgresServer, PostgresServer]]:
    """A primary and its synchronous standby (``remote_apply``: a commit is visible there when it returns)."""
    _need_postgres()
    with PostgresServer("sync-primary") as server:
        standby = server.standby("standby1")
        try:
            server.synchronous("standby1", "remote_apply")
            yield server, standby
        finally:
            standby.cleanup()


def _app(url: str) -> Flask:
    return make_app(SEAL_KEYS=[KEY_NEW], LEDGER_URL=url)


def _legal(client: Any, env: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    r = client.post(f"{SCH}/state?as={seat}", json={"token": env["token"]}, headers={"X-Seat-Key": env["seat_keys"][seat]})
    assert r.status_code == 200, r.json
    return r.json["legal_moves"]  # type: ignore[no-any-return]


def _send(client: Any, env: dict[str, Any], move: dict[str, Any]) -> Any:
    seat = move["player"]
    return client.post(f"{SCH}/moves", json={"token": env["token"], "move": move}, headers={"X-Seat-Key": env["seat_keys"][seat]})


def _play(client: Any, env: dict[str, Any], moves: int) -> list[dict[str, Any]]:
    """``moves`` first legal moves from ``env``; every answer, the seat keys kept."""
    out = []
    for _ in range(moves):
        (seat,) = env["to_move"]
        legal = _legal(client, env, seat)
        r = _send(client, env, next((m for m in legal if m["type"] == "play"), legal[0]))  # tricks: the deal goes on
        assert r.status_code == 200, r.json
        env = dict(r.json, seat_keys=env["seat_keys"])
        out.append(env)
    return out


def _unavailable(r: Any) -> None:
    assert r.status_code == 503 and r.json["code"] == "ledger_unavailable", (r.status_code, r.json)


# --- races ----------------------------------------------------------------------------------


def _racer(ledger: PostgresLedger, epoch: str, barrier: Any, out: Any, tag: int) -> None:
    """In a forked child: the parent's ledger object, which opens a pool of this process's own."""
    results = []

    def go(i: int) -> None:
        barrier.wait(timeout=20)
        results.append(ledger.advance(epoch, "race", 0, f'{{"p":{tag},"t":{i}}}'))

    threads = [threading.Thread(target=go, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=20)
    out.put(results)


def test_threads_of_two_processes_racing_one_token_exactly_one_wins(primary: PostgresServer) -> None:
    url = primary.database("race")
    ledger = PostgresLedger(url, 3600)
    epoch = ledger.register("race", 0)  # the parent's pool is open before the fork
    ctx = multiprocessing.get_context("fork")
    barrier, out = ctx.Barrier(8), ctx.Queue()
    procs = [ctx.Process(target=_racer, args=(ledger, epoch, barrier, out, p)) for p in range(2)]  # fork: inherited, not pickled
    for p in procs:
        p.start()
    verdicts = [v for _ in procs for v in out.get(timeout=30)]
    for p in procs:
        p.join(timeout=10)
    assert sorted(verdicts) == sorted([CURRENT] + [SUPERSEDED] * 7), verdicts
    assert len(ledger.moves("race")) == 1 and ledger.check(epoch, "race", 1) == CURRENT
    assert ledger.advance(epoch, "race", 1, '{"after":1}') == CURRENT  # the parent's pool still works after the fork


def test_under_serializable_isolation_racers_are_run_again_and_one_wins(primary: PostgresServer) -> None:
    """CockroachDB's default, SERIALIZABLE, here on PostgreSQL: a racer whose update meets another's
    gets SQLSTATE 40001, is run again, and then finds the winner's seq: superseded, never 503."""
    url = primary.database("serializable")
    primary.sql("ALTER DATABASE serializable SET default_transaction_isolation = 'serializable'")
    ledger = PostgresLedger(url, 3600)
    epoch = ledger.register("race", 0)
    assert primary.sql("SHOW default_transaction_isolation", db="serializable") == [("serializable",)]
    for seq in range(3):
        barrier = threading.Barrier(8)
        verdicts: list[Any] = []

        def go(i: int, seq: int = seq, barrier: threading.Barrier = barrier, verdicts: list[Any] = verdicts) -> None:
            barrier.wait(timeout=10)
            try:
                verdicts.append(ledger.advance(epoch, "race", seq, f'{{"s":{seq},"t":{i}}}'))
            except LedgerUnavailable as exc:
                verdicts.append(exc)

        threads = [threading.Thread(target=go, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=20)
        assert sorted(map(str, verdicts)) == sorted([CURRENT] + [SUPERSEDED] * 7), verdicts
    assert len(ledger.moves("race")) == 3


# --- multi-host URLs ------------------------------------------------------------------------


def test_a_dead_first_host_is_skipped(primary: PostgresServer) -> None:
    primary.database("multi")
    dead = free_port()
    app = _app(f"postgresql://postgres@127.0.0.1:{dead},127.0.0.1:{primary.port}/multi?target_session_attrs=read-write&connect_timeout=2")
    client = app.test_client()
    env = new_match(client, "schnapsen")
    assert len(_play(client, env, 2)) == 2


def test_a_standby_first_is_skipped_for_the_read_write_primary(cluster: tuple[PostgresServer, PostgresServer]) -> None:
    server, standby = cluster
    server.database("standbyfirst")
    for query in ("?target_session_attrs=read-write", ""):  # read-write is the ledger's default
        client = _app(f"postgresql://postgres@127.0.0.1:{standby.port},127.0.0.1:{server.port}/standbyfirst{query}").test_client()
        env = new_match(client, "schnapsen")
        assert len(_play(client, env, 2)) == 2
    assert standby.sql("SELECT pg_is_in_recovery()", db="standbyfirst")[0][0] is True


# --- outages and a read-only server ---------------------------------------------------------


def test_the_primary_restarted_is_503_while_down_then_play_resumes_without_a_referee_restart(primary: PostgresServer) -> None:
    url = primary.database("restart")
    client = _app(url).test_client()
    env = new_match(client, "schnapsen")
    env = _play(client, env, 1)[-1]
    (seat,) = env["to_move"]
    move = _legal(client, env, seat)[0]
    primary.stop()
    try:
        began = time.monotonic()
        _unavailable(_send(client, env, move))
        assert time.monotonic() - began < TIMEOUT + 0.5  # within the request's bound
    finally:
        primary.start()
    deadline = time.monotonic() + 15
    while (r := _send(client, env, move)).status_code == 503 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert r.status_code == 200, r.json
    assert r.json["state"]["seq"] == env["state"]["seq"] + 1
    resumed = time.monotonic() - (deadline - 15)
    assert resumed < 10, f"service resumed {resumed:.1f} s after the server was back"


def test_a_paused_server_is_503_within_the_timeout_then_play_resumes(primary: PostgresServer) -> None:
    """SIGSTOP: the server accepts nothing and answers nothing (nor does the kernel refuse): the
    ledger's own deadline shuts the connection, 503 within ``TIMEOUT``; SIGCONT, and play resumes."""
    import signal

    url = primary.database("paused")
    client = _app(url).test_client()
    env = _play(client, new_match(client, "schnapsen"), 1)[-1]
    (seat,) = env["to_move"]
    move = _legal(client, env, seat)[0]
    primary.signal(signal.SIGSTOP)
    try:
        began = time.monotonic()
        _unavailable(_send(client, env, move))  # its pooled connection shut at the deadline
        assert time.monotonic() - began < TIMEOUT + 0.5
    finally:
        primary.signal(signal.SIGCONT)
    deadline = time.monotonic() + 10
    while (r := _send(client, env, move)).status_code == 503 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert r.status_code == 200 and r.json["state"]["seq"] == env["state"]["seq"] + 1, r.json


def test_a_read_only_server_is_503_not_500_and_writable_again_resumes(primary: PostgresServer) -> None:
    """A demoted primary: its transactions are read-only (SQLSTATE 25006), and new connections are
    refused by ``target_session_attrs=read-write``."""
    url = primary.database("readonly")
    client = _app(url).test_client()
    env = _play(client, new_match(client, "schnapsen"), 1)[-1]
    (seat,) = env["to_move"]
    move = _legal(client, env, seat)[0]
    primary.sql("ALTER SYSTEM SET default_transaction_read_only = on")
    primary.sql("SELECT pg_reload_conf()")
    try:
        time.sleep(0.2)
        _unavailable(_send(client, env, move))  # a pooled connection: 25006 (and the pool drained)
        _unavailable(client.post(f"{SCH}/new", json={}))  # a new connection: refused by target_session_attrs
    finally:
        primary.sql("ALTER SYSTEM RESET default_transaction_read_only")  # the superuser's own session sets it read-write
        primary.sql("SELECT pg_reload_conf()")
    time.sleep(0.2)
    r = _send(client, env, move)
    assert r.status_code == 200, r.json


# --- a synchronous standby ------------------------------------------------------------------


def test_a_move_the_standby_does_not_hold_is_never_answered(cluster: tuple[PostgresServer, PostgresServer]) -> None:
    """With the synchronous standby gone a commit waits: the move is 503 at the request's deadline,
    and so is its retry once the wait was cancelled on the server (the move committed on the
    primary alone, visible there); it is answered, as the first time, once the standby is back."""
    server, standby = cluster
    url = server.database("unconfirmed")
    client = _app(url).test_client()
    env = _play(client, new_match(client, "schnapsen"), 1)[-1]
    (seat,) = env["to_move"]
    move = _legal(client, env, seat)[0]
    ledger = PostgresLedger(url, 3600)
    epoch = ledger.register("another", 0)
    standby.stop()
    try:
        began = time.monotonic()
        _unavailable(_send(client, env, move))  # its commit waits for the standby
        assert time.monotonic() - began < TIMEOUT + 1
        # an operator cancels the waits (or a timeout does): committed on the primary, perhaps nowhere else
        waits = server.sql("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE wait_event = 'SyncRep'", db="unconfirmed")
        assert waits and all(ok for (ok,) in waits)
        deadline = time.monotonic() + 5
        while ledger.check(epoch, _match_id(client, env), env["state"]["seq"]) != SUPERSEDED:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        _unavailable(_send(client, env, move))  # the retry: the recorded move is not answered from the primary alone
        # a write that PostgreSQL reports committed with a WARNING (its wait cancelled) is a failure
        while server.sql("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE wait_event = 'SyncRep'", db="unconfirmed"):
            time.sleep(0.05)  # the retry's confirming write, still waiting (holding the match's row) though its client is gone
        flag: list[Any] = []
        thread = threading.Thread(target=lambda: flag.append(_advance_or_error(ledger, epoch, "another", 0)))
        thread.start()
        deadline = time.monotonic() + TIMEOUT
        while not server.sql("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE wait_event = 'SyncRep' "
                             "AND position('WITH moved AS' IN query) > 0", db="unconfirmed"):
            assert time.monotonic() < deadline
            time.sleep(0.02)
        thread.join(timeout=5)
        assert flag and isinstance(flag[0], LedgerUnavailable) and "not confirmed" in str(flag[0]), flag
    finally:
        standby.start()
    server.synchronous("standby1", "remote_apply")
    r = _send(client, env, move)  # the retry, once the standby holds the move: as the first time
    assert r.status_code == 200 and r.json["state"]["seq"] == env["state"]["seq"] + 1, r.json
    assert standby.sql("SELECT seq FROM card_referee_ledger WHERE match_id = %s", [_match_id(client, env)], db="unconfirmed")[0][0] >= \
        env["state"]["seq"] + 1


def _advance_or_error(ledger: PostgresLedger, epoch: str | None, match: str, seq: int) -> Any:
    try:
        return ledger.advance(epoch, match, seq, '{"x":1}')
    except LedgerUnavailable as exc:
        return exc


def _match_id(client: Any, env: dict[str, Any]) -> str:
    return str(client.application.extensions["referee.sealer"].unseal("schnapsen", env["token"])[0])


def test_the_standby_holds_every_answered_move_and_after_a_failover_no_old_token_is_current() -> None:
    _need_postgres()
    with PostgresServer("failover-primary") as server:
        standby = server.standby("standby1")
        try:
            server.synchronous("standby1", "remote_apply")
            server.database("failover")
            url = f"postgresql://postgres@127.0.0.1:{server.port},127.0.0.1:{standby.port}/failover?target_session_attrs=read-write"
            client = _app(url).test_client()
            env = new_match(client, "schnapsen")
            answers = [env, *_play(client, env, 4)]
            latest = answers[-1]
            match = _match_id(client, latest)
            held = standby.sql("SELECT seq FROM card_referee_ledger WHERE match_id = %s", [match], db="failover")
            assert held == [(latest["state"]["seq"],)]  # on the standby as soon as it was answered
            assert len(standby.sql("SELECT n FROM card_referee_moves WHERE match_id = %s", [match], db="failover")) == 4
            server.kill()  # -9, the whole server
            standby.promote()
            began = time.monotonic()
            while True:  # the referee is not restarted: its next requests reach the promoted standby
                r = client.post(f"{SCH}/state", json={"token": latest["token"]})
                if r.status_code != 503 or time.monotonic() - began > 15:
                    break
                time.sleep(0.1)
            assert r.status_code == 200 and r.json["state"]["seq"] == latest["state"]["seq"], r.json
            # the old tokens: a different move refused, the move recorded from it answered as the first time
            before, after = answers[-2], answers[-1]
            (seat,) = before["to_move"]
            legal = [to_wire(m) for m in ENGINES["schnapsen"].legal_moves(true_state(client, "schnapsen", before["token"]))]
            assert len(legal) >= 2 and all(m["player"] == seat for m in legal), legal
            r = client.post(f"{SCH}/check", json={"token": before["token"], "move": legal[0]}, headers={"X-Seat-Key": before["seat_keys"][seat]})
            assert r.status_code == 409 and r.json["code"] == "token_superseded", r.json
            for old in answers[:-1]:
                resumed = client.post(f"{SCH}/state", json={"token": old["token"]})
                assert resumed.status_code == 200 and resumed.json["state"]["seq"] == latest["state"]["seq"]
            answered = [_send(client, before, m) for m in legal]
            codes = sorted(r.json.get("code", "ok") for r in answered)
            assert codes == ["ok"] + ["token_superseded"] * (len(legal) - 1), codes  # the move recorded from it only: a retry
            assert next(r for r in answered if r.status_code == 200).json["state"]["seq"] == latest["state"]["seq"]
            assert after["state"]["seq"] == before["state"]["seq"] + 1
            moved = _play(client, latest, 1)[-1]  # and the latest token plays on
            assert moved["state"]["seq"] == latest["state"]["seq"] + 1
        finally:
            standby.cleanup()


# --- the schema and the purge ---------------------------------------------------------------


def test_pods_starting_together_create_the_tables_once(primary: PostgresServer) -> None:
    """Eight ledgers (pods) use one empty database at the same moment: each creates the tables if
    they are missing (a concurrent CREATE TABLE IF NOT EXISTS may fail: it is tried again), and all
    share one epoch."""
    url = primary.database("together")
    ledgers = [PostgresLedger(url, 3600) for _ in range(8)]
    barrier = threading.Barrier(8)
    epochs: list[Any] = []

    def go(i: int) -> None:
        barrier.wait(timeout=10)
        try:
            epochs.append(ledgers[i].register(f"m{i}", 0))
        except LedgerUnavailable as exc:
            epochs.append(exc)

    threads = [threading.Thread(target=go, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=20)
    assert len(epochs) == 8 and len(set(epochs)) == 1 and isinstance(epochs[0], str), epochs


def test_the_purge_deletes_expired_moves_then_entries_in_bounded_batches(primary: PostgresServer) -> None:
    url = primary.database("purge")
    ledger = PostgresLedger(url, 3600, finished_ttl=60)
    ledger.PURGE_BATCH = 2  # type: ignore[misc]
    epoch = ledger.register("live", 0)
    for m in ("a", "b", "c"):
        ledger.register(m, 0)
        assert ledger.advance(epoch, m, 0, '{"x":0}', finished=True) == CURRENT
    ledger.advance(epoch, "live", 0, '{"x":0}')
    # the clock moved on: a, b, c past their moves' retention, a and b past their entries' too
    primary.sql("UPDATE card_referee_ledger SET moves_expire = now() - INTERVAL '1 second' WHERE match_id IN ('a', 'b', 'c')", db="purge")
    primary.sql("UPDATE card_referee_ledger SET expires = now() - INTERVAL '1 second' WHERE match_id IN ('a', 'b')", db="purge")

    def rows(table: str) -> list[str]:
        return sorted(r[0] for r in primary.sql(f"SELECT match_id FROM {table}", db="purge"))

    history = ledger.history(epoch, "c", 0)
    assert history.archived and history.moves == () and history.seq == 1  # expired moves are gone to readers at once
    ledger.purge()
    assert len(rows("card_referee_moves")) == 2  # two of the three expired records deleted, one batch
    ledger.purge()
    ledger.purge()
    assert rows("card_referee_moves") == ["live"] and rows("card_referee_ledger") == ["c", "live"]
    assert ledger.check(epoch, "c", 1) == CURRENT and ledger.check(epoch, "a", 1) != CURRENT


def test_usage_is_the_ledger_tables_bytes_without_a_limit(primary: PostgresServer) -> None:
    ledger = PostgresLedger(primary.database("usage"), 3600)
    ledger.register("small", 0)
    before, limit = ledger.usage()
    assert before > 0 and limit is None
    ledger.register("big", 3000, [f'{{"type":"play","player":{i % 2},"card":"10S","n":{i}}}' for i in range(3000)])
    after, _ = ledger.usage()
    assert after > before + 3000 * 40  # the moves' rows and their index
    ledger.ping()


def test_a_paused_server_under_gunicorn_blocks_only_the_requests_that_wait_for_it(primary: PostgresServer, tmp_path: Any) -> None:
    """The deployed shape: one gevent worker, a paused PostgreSQL, sealed moves sent all along by
    three clients (each waits for its pooled connection or for a new one, which its pool tries to
    make, then 503 within the ledger's deadline). Only they wait: the same worker answers ``/healthz``
    all the while. Before, the gunicorn master imported psycopg (checking the URL) before gevent
    patched the workers: its C wait froze the whole worker while one query waited, and its
    connection attempts (a selector class bound at import) froze it while one connected. The master
    now never loads psycopg (its memory map is checked)."""
    import signal
    from concurrent.futures import ThreadPoolExecutor

    from cryptography.fernet import Fernet

    from tests.servers import Gunicorn, call

    env = {"REFEREE_SEAL_KEYS": Fernet.generate_key().decode(), "REFEREE_LEDGER_URL": primary.database("gunicorn_paused")}
    with Gunicorn(tmp_path, workers=1, env=env, name="paused") as g:
        assert g.proc is not None
        maps = open(f"/proc/{g.proc.pid}/maps").read()  # noqa: SIM115 - one read of a procfs file
        assert "psycopg" not in maps, "the gunicorn master loaded psycopg"
        status, new = call(f"{g.url}{SCH}/new", {})
        assert status == 201
        k1 = new["seat_keys"][1]
        status, view = call(f"{g.url}{SCH}/state?as=1", {"token": new["token"]}, {"X-Seat-Key": k1})
        move = next(m for m in view["legal_moves"] if m["type"] == "play")
        stop = time.monotonic() + TIMEOUT * 2.5
        answers: list[tuple[int, float]] = []

        def keep_moving() -> None:
            while time.monotonic() < stop:
                began = time.monotonic()
                status, body = call(f"{g.url}{SCH}/moves", {"token": new["token"], "move": move}, {"X-Seat-Key": k1},
                                    timeout=TIMEOUT + 10)
                answers.append((status, time.monotonic() - began))
                assert status == 503 and body["code"] == "ledger_unavailable", body

        primary.signal(signal.SIGSTOP)
        try:
            with ThreadPoolExecutor(3) as pool:
                movers = [pool.submit(keep_moving) for _ in range(3)]
                time.sleep(0.2)  # the moves now wait on the paused server
                gaps = []
                while time.monotonic() < stop:
                    asked = time.monotonic()
                    assert call(f"{g.url}/healthz", timeout=3)[0] == 200
                    gaps.append(time.monotonic() - asked)
                    time.sleep(0.1)
                for mover in movers:
                    mover.result(timeout=TIMEOUT + 15)
        finally:
            primary.signal(signal.SIGCONT)
        assert len(answers) >= 6 and max(seconds for _, seconds in answers) < TIMEOUT + 1.5, answers
        assert max(gaps) < 0.5, f"/healthz waited {max(gaps):.2f} s while the ledger was paused"
