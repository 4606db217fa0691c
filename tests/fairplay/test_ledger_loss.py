"""A ledger that loses its data fails closed (issue 21, items 5 and 10).

A real ``redis-server`` without persistence is restarted (it comes back empty, as Redis does without
AOF), a SQLite ledger's file is lost and recreated, and a PostgreSQL ledger's database is dropped
and created anew under the running service (its tables made again on first use, a new epoch): every token handed out before, superseded
or not, is then refused with 409 ``ledger_lost`` on ``moves``, ``state`` and ``check``, never
accepted; matches begun after the loss play normally. ``/readyz`` stays 200 whether or not a
Redis ledger answers (it is shared by every pod: its state is in ``/metrics``).

A SQLite ledger's file deleted or replaced while the service runs (issue 32): the open handle would
go on answering from the old file, and a restart would forget every match. It is noticed before the
next use: sealed requests are 503 ``ledger_unavailable`` and ``/readyz`` 503 (the file is this
pod's own store) until the same file is back at its path; then play resumes where it was.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from flask import Flask

from tests.conftest import KEY_NEW, make_app
from tests.contract import assert_conforms
from tests.fairplay.conftest import RedisServer
from tests.fairplay.helpers import new_match
from tests.servers import free_port
from tests.tools import missing

SCH = "/v1/games/schnapsen"
MATCHES = 20


def _move(client: Any, token: str, key: str, seat: int) -> Any:
    r = client.post(f"{SCH}/state?as={seat}", json={"token": token}, headers={"X-Seat-Key": key})
    assert r.status_code == 200, r.json
    mv = r.json["legal_moves"][0]
    return client.post(f"{SCH}/moves", json={"token": token, "move": mv}, headers={"X-Seat-Key": key})


def _play_matches(client: Any) -> list[dict[str, Any]]:
    """MATCHES Schnapsen matches, 1 to 4 moves each; every token handed out is kept."""
    out = []
    for i in range(MATCHES):
        env = new_match(client, "schnapsen")
        tokens = [env["token"]]
        last = env
        for _ in range(1 + i % 4):
            seat = last["to_move"][0]
            r = _move(client, last["token"], env["seat_keys"][seat], seat)
            assert r.status_code == 200, r.json
            last = r.json
            tokens.append(last["token"])
        out.append({"keys": env["seat_keys"], "tokens": tokens, "last": last})
    return out


def _every_old_token_is_refused(client: Any, matches: list[dict[str, Any]]) -> int:
    refused = 0
    for m in matches:
        for token in m["tokens"]:  # the superseded ones and the latest
            r = client.post(f"{SCH}/state", json={"token": token})
            assert r.status_code == 409 and r.json["code"] == "ledger_lost", r.json
            seat = 1  # Schnapsen: seat 1 leads the first trick; any seat's move is refused before the rules run
            r = client.post(f"{SCH}/moves", json={"token": token, "move": {"type": "play", "player": seat, "card": "AS"}},
                            headers={"X-Seat-Key": m["keys"][seat]})
            assert r.status_code == 409 and r.json["code"] == "ledger_lost", r.json
            r = client.post(f"{SCH}/check", json={"token": token, "move": {"type": "play", "player": seat, "card": "AS"}},
                            headers={"X-Seat-Key": m["keys"][seat]})
            assert r.status_code == 409 and r.json["code"] == "ledger_lost", r.json
            refused += 1
    return refused


def _a_new_match_plays(client: Any) -> None:
    env = new_match(client, "schnapsen")
    seat = env["to_move"][0]
    key = {"X-Seat-Key": env["seat_keys"][seat]}
    legal = client.post(f"{SCH}/state?as={seat}", json={"token": env["token"]}, headers=key).json["legal_moves"]
    assert len(legal) >= 2
    r = _move(client, env["token"], env["seat_keys"][seat], seat)  # legal[0]
    assert r.status_code == 200
    again = client.post(f"{SCH}/moves", json={"token": env["token"], "move": legal[1]}, headers=key)
    assert again.status_code == 409 and again.json["code"] == "token_superseded"  # and the guard holds in the new epoch


def test_redis_restarted_empty_no_superseded_token_is_accepted(tmp_path: Path) -> None:
    if shutil.which("redis-server") is None:
        missing("redis-server is not installed (.ci/run installs it)")
    redis = RedisServer(tmp_path, free_port())  # no persistence: a restart empties it
    redis.start()
    try:
        app = make_app(SEAL_KEYS=[KEY_NEW], LEDGER_URL=redis.url)
        client = app.test_client()
        matches = _play_matches(client)
        superseded = [t for m in matches for t in m["tokens"][:-1]]
        assert len(superseded) >= 2 * MATCHES
        r = client.post(f"{SCH}/state", json={"token": superseded[0]})
        assert r.status_code == 200 and r.json["state"]["seq"] == matches[0]["last"]["state"]["seq"]  # before the loss: it resumes
        redis.stop()
        redis.start()
        assert _every_old_token_is_refused(client, matches) == sum(len(m["tokens"]) for m in matches)
        _a_new_match_plays(client)
        assert _every_old_token_is_refused(client, matches[:3])  # still refused once the new epoch exists
    finally:
        redis.stop()


def test_sqlite_file_lost_no_superseded_token_is_accepted(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    url = f"sqlite:///{db}"
    client = make_app(SEAL_KEYS=[KEY_NEW], LEDGER_URL=url).test_client()
    matches = _play_matches(client)
    for f in tmp_path.glob("ledger.db*"):  # the file and its WAL: a lost volume
        f.unlink()
    restarted = make_app(SEAL_KEYS=[KEY_NEW], LEDGER_URL=url).test_client()  # the service restarted on a new file
    assert _every_old_token_is_refused(restarted, matches) == sum(len(m["tokens"]) for m in matches)
    _a_new_match_plays(restarted)


def test_postgres_database_recreated_no_superseded_token_is_accepted(postgres_server: Any) -> None:
    import time

    url = postgres_server.fresh("loss")
    name = url.rsplit("/", 1)[1]
    client = make_app(SEAL_KEYS=[KEY_NEW], LEDGER_URL=url).test_client()
    matches = _play_matches(client)
    postgres_server.server.database(name)  # dropped (its connections closed) and created empty, under the running service
    deadline = time.monotonic() + 10
    while client.post(f"{SCH}/state", json={"token": matches[0]["tokens"][0]}).status_code == 503:  # the pool reconnects
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert _every_old_token_is_refused(client, matches) == sum(len(m["tokens"]) for m in matches)
    _a_new_match_plays(client)
    assert _every_old_token_is_refused(client, matches[:3])


def test_readyz_does_not_depend_on_the_shared_ledger(tmp_path: Path) -> None:
    """The ledger is shared by every pod: its state never makes one unready (readiness failing on
    all pods at once would refuse open play too); sealed requests it cannot serve are 503
    ``ledger_unavailable`` instead, and ``/metrics`` shows it (tests/deploy/test_ledger_health.py)."""
    if shutil.which("redis-server") is None:
        missing("redis-server is not installed (.ci/run installs it)")
    redis = RedisServer(tmp_path, free_port())
    app = make_app(SEAL_KEYS=[KEY_NEW], LEDGER_URL=redis.url)
    client = app.test_client()
    r = client.get("/readyz")
    assert r.status_code == 200 and r.json == {"status": "ready", "mode": "sealed"}, r.json
    assert client.get("/healthz").status_code == 200
    redis.start()
    try:
        assert client.get("/readyz").json == {"status": "ready", "mode": "sealed"}
        redis.stop()
        assert client.get("/readyz").status_code == 200
    finally:
        redis.stop()


def test_readyz_with_a_sqlite_ledger_and_without_one(tmp_path: Path, fair_app: Flask) -> None:
    ok = make_app(SEAL_KEYS=[KEY_NEW], LEDGER_URL=f"sqlite:///{tmp_path / 'l.db'}").test_client()
    assert ok.get("/readyz").status_code == 200
    unusable = make_app(SEAL_KEYS=[KEY_NEW], LEDGER_URL=f"sqlite:///{tmp_path / 'missing' / 'l.db'}").test_client()
    r = unusable.get("/readyz")  # a SQLite ledger is this pod's own store (issue 32)
    assert r.status_code == 503 and r.json["status"] == "ledger_unavailable", r.json
    assert_conforms("GET", "/readyz", 503, "application/json", r.json)
    assert fair_app.test_client().get("/readyz").status_code == 200  # no ledger configured


def _ledger_refuses(client: Any, match: dict[str, Any], why: str) -> None:
    r = client.get("/readyz")
    assert r.status_code == 503 and r.json["status"] == "ledger_unavailable" and why in r.json["reason"], r.json
    assert_conforms("GET", "/readyz", 503, "application/json", r.json)
    seat = match["last"]["to_move"][0]
    r = client.post(f"{SCH}/state?as={seat}", json={"token": match["last"]["token"]}, headers={"X-Seat-Key": match["keys"][seat]})
    assert r.status_code == 503 and r.json["code"] == "ledger_unavailable" and r.headers["Retry-After"] == "2", r.json
    r = client.post(f"{SCH}/new", json={})
    assert r.status_code == 503 and r.json["code"] == "ledger_unavailable", r.json


def test_sqlite_file_deleted_or_replaced_under_the_service_is_refused_until_it_is_back(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    client = make_app(SEAL_KEYS=[KEY_NEW], LEDGER_URL=f"sqlite:///{db}").test_client()
    assert client.get("/readyz").status_code == 200
    match = _play_matches(client)[0]
    aside = tmp_path / "aside.db"
    db.rename(aside)  # deleted, as far as the path can tell (the service still holds it open)
    _ledger_refuses(client, match, "deleted")
    assert not db.exists()  # refusing created no file in its place
    db.write_bytes(b"")  # another file at the path (an empty volume, a restored copy)
    _ledger_refuses(client, match, "replaced")
    db.unlink()
    aside.rename(db)  # the same file back
    assert client.get("/readyz").json == {"status": "ready", "mode": "sealed"}
    seat = match["last"]["to_move"][0]
    r = _move(client, match["last"]["token"], match["keys"][seat], seat)
    assert r.status_code == 200 and r.json["state"]["seq"] == match["last"]["state"]["seq"] + 1, r.json  # play resumes
    _a_new_match_plays(client)
