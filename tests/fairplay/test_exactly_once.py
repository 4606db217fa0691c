"""Exactly-once moves, resume and retention with a ledger (SQLite, a real Redis and a real PostgreSQL), through the
referee core with several referees on one store, as several instances behind a load balancer are.

- A move sent again with the same token (a reply lost, the retry landing on another instance) is
  answered as the first time: the same events and view, a current token; a seat's claim keeps the
  referee's first timestamp. Another move from that token is 409 ``token_superseded``.
- ``state`` with an older token resumes the match: the current position, never an older one.
- Racers on one token: one move is recorded; racers that sent it get its answer, the others
  ``token_superseded`` (never ``ledger_lost``), at every position of a match, the last included.
- A finished match's moves go after the finished-match retention; its old tokens stay refused.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from cryptography.fernet import Fernet

from service.config import Config
from service.engines import ENGINES
from service.ledger import PostgresLedger, RedisLedger, SqliteLedger
from service.problems import ApiError
from service.referee import Caller, Referee
from service.schemas import SCHEMAS
from service.sealing import Sealer
from tests.fairplay.helpers import SHORT, choose, wire

KEY = Fernet.generate_key().decode()
T0 = 1_700_000_000_000


class Clock:
    """The referees' shared clock (ms), moved by the test."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> int:
        return self.now


def _referees(ledger: Any, clock: Clock, count: int = 3) -> list[Referee]:
    """``count`` sealed referees with one key and one ledger: the instances of one deployment."""
    cfg = Config(seal_keys=(KEY,))
    signer = Referee.from_config(cfg).signer
    return [Referee(cfg, Sealer(cfg.seal_keys), signer, ledger, clock=clock) for _ in range(count)]


@pytest.fixture(params=["sqlite", "redis", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """A fresh ledger (a day's retention for finished matches unless a test makes its own)."""
    if request.param == "sqlite":
        yield SqliteLedger(str(tmp_path / "ledger.db"), 3600)
    elif request.param == "postgres":
        ledger = PostgresLedger(request.getfixturevalue("postgres_server").fresh(), 3600)
        yield ledger
        ledger.close()
    else:
        server = request.getfixturevalue("redis_server")
        ledger = RedisLedger(server.url, 3600)
        ledger._client.flushdb()
        yield ledger


def _true_state(ref: Referee, game: str, token: str) -> Any:
    assert ref.sealer is not None
    _, packed = ref.sealer.open(game, token)
    return SCHEMAS[game].unpack(packed)


def _caller(env: dict[str, Any], move: dict[str, Any], now: int, view_as: int | None = None) -> Caller:
    """The key a player would send the move with: its seat's, or the table's for claims of several seats."""
    claims = move.get("claims")
    seats = {c["player"] for c in claims} if isinstance(claims, list) else {move.get("player")}
    key = env["table_key"] if len(seats) != 1 else env["seat_keys"][seats.pop()]
    return Caller(key, view_as, now)


def _same(a: dict[str, Any], b: dict[str, Any]) -> None:
    """Two answers that say the same (each token is sealed afresh: its bytes differ)."""
    assert {k: v for k, v in a.items() if k != "token"} == {k: v for k, v in b.items() if k != "token"}


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_a_retry_on_another_instance_is_answered_as_the_first_time(store: Any, game: str) -> None:
    clock = Clock()
    a, b, _ = _referees(store, clock)
    rng = random.Random(game)
    env = a.new(game, {"options": SHORT[game]}, Caller())
    keys = {"seat_keys": env["seat_keys"], "table_key": env["table_key"]}
    for step in range(40):
        if env["status"] == "finished":
            break
        clock.now += rng.randrange(1, 400)
        mv = wire(choose(game, _true_state(a, game, env["token"]), rng, clock.now - T0, short=True))
        viewer = mv.get("player") if isinstance(mv.get("player"), int) else None
        first = a.move(game, {"token": env["token"], "move": mv}, _caller(keys, mv, clock.now, viewer))
        clock.now += 5_000  # the retry comes later: a seat's claim keeps the first stamp
        again = b.move(game, {"token": env["token"], "move": mv}, _caller(keys, mv, clock.now, viewer))
        _same(first, again)
        env = again if step % 2 else first  # both tokens are current: the match plays on from either
    assert step > 0


def test_another_move_from_a_used_token_is_superseded_and_a_seat_cannot_retry_another_seats_move(store: Any) -> None:
    clock = Clock()
    a, b, _ = _referees(store, clock)
    env = a.new("schnapsen", {}, Caller())
    (seat,) = env["to_move"]
    key = env["seat_keys"][seat]
    listed = a.state("schnapsen", {"token": env["token"]}, Caller(key, seat))["legal_moves"]
    first = a.move("schnapsen", {"token": env["token"], "move": listed[0]}, Caller(key, seat))
    for other in listed[1:3]:
        with pytest.raises(ApiError) as refused:
            b.move("schnapsen", {"token": env["token"], "move": other}, Caller(key, seat))
        assert (refused.value.status, refused.value.code) == (409, "token_superseded")
    # the other seat sends the recorded move with its own key: refused for its key, so it learns nothing
    with pytest.raises(ApiError) as refused:
        b.move("schnapsen", {"token": env["token"], "move": listed[0]}, Caller(env["seat_keys"][1 - seat]))
    assert (refused.value.status, refused.value.code) == (403, "bad_seat_key")
    # and check stays a question about the current position only
    with pytest.raises(ApiError) as refused:
        b.check("schnapsen", {"token": env["token"], "move": listed[0]}, Caller(key))
    assert refused.value.code == "token_superseded"
    assert b.move("schnapsen", {"token": env["token"], "move": listed[0]}, Caller(key, seat))["state"] == first["state"]


def _play(ref: Referee, game: str, env: dict[str, Any], rng: random.Random, moves: int, clock: Clock) -> list[dict[str, Any]]:
    """Up to ``moves`` random moves, each with its mover's key; every answer, in order."""
    out = []
    for _ in range(moves):
        if env["status"] == "finished":
            break
        clock.now += rng.randrange(1, 300)
        mv = wire(choose(game, _true_state(ref, game, env["token"]), rng, clock.now - T0, short=True))
        env = dict(ref.move(game, {"token": env["token"], "move": mv}, _caller(env, mv, clock.now)),
                   seat_keys=env["seat_keys"], table_key=env["table_key"])
        out.append(env)
    return out


@pytest.mark.parametrize("game", ["schnapsen", "snap", "russian_bank"])
def test_resume_from_a_token_several_moves_old(store: Any, game: str) -> None:
    clock = Clock()
    a, b, c = _referees(store, clock)
    env = a.new(game, {}, Caller())  # default rules: eight moves never end the match
    answers = _play(a, game, env, random.Random(7), 8, clock)
    assert len(answers) == 8
    latest = answers[-1]
    for old in (env, answers[0], answers[4]):
        for seat in range(len(env["seat_keys"])):
            resumed = b.state(game, {"token": old["token"]}, Caller(env["seat_keys"][seat], seat))
            now = c.state(game, {"token": latest["token"]}, Caller(env["seat_keys"][seat], seat))
            _same(resumed, now)  # the current position as this seat sees it, never the older one
        public = b.state(game, {"token": old["token"]}, Caller())
        assert public["state"]["seq"] == latest["state"]["seq"] and public["legal_moves"] == []
        with pytest.raises(ApiError) as refused:  # another seat's view still needs its key
            b.state(game, {"token": old["token"]}, Caller(env["seat_keys"][0], 1))
        assert refused.value.code == "bad_seat_key"
    # the resumed token is current: the match plays on from it
    resumed = dict(b.state(game, {"token": env["token"]}, Caller()), seat_keys=env["seat_keys"], table_key=env["table_key"])
    assert _play(c, game, resumed, random.Random(8), 2, clock)


def test_a_retry_after_later_moves_answers_its_events_then_what_followed(store: Any) -> None:
    clock = Clock()
    a, b, _ = _referees(store, clock)
    env = a.new("schnapsen", {}, Caller())
    rng = random.Random(3)
    mv = wire(choose("schnapsen", _true_state(a, "schnapsen", env["token"]), rng, 0))
    seat = mv["player"]
    first = a.move("schnapsen", {"token": env["token"], "move": mv}, Caller(env["seat_keys"][seat], seat))
    later = _play(a, "schnapsen", dict(first, seat_keys=env["seat_keys"], table_key=env["table_key"]), rng, 3, clock)
    again = b.move("schnapsen", {"token": env["token"], "move": mv}, Caller(env["seat_keys"][seat], seat))
    assert again["events"][: len(first["events"])] == first["events"]
    assert len(again["events"]) > len(first["events"])
    assert again["state"]["seq"] == later[-1]["state"]["seq"]
    _same(again, dict(b.state("schnapsen", {"token": later[-1]["token"]}, Caller(env["seat_keys"][seat], seat)),
                      events=again["events"]))


def test_race_losers_are_superseded_never_lost_at_every_position(store: Any) -> None:
    """At each position of a whole match three instances race four requests from one token: two
    send the move that may win, two another; exactly one is recorded."""
    clock = Clock()
    refs = _referees(store, clock)
    env = refs[0].new("schnapsen", {"options": {"target": 2}}, Caller())
    rng = random.Random(11)
    positions = 0
    while env["status"] != "finished" and positions < 200:
        state = _true_state(refs[0], "schnapsen", env["token"])
        legal = list({repr(wire(m)): wire(m) for m in ENGINES["schnapsen"].legal_moves(state)}.values())
        distinct = rng.sample(legal, min(2, len(legal)))
        sent = [distinct[i % len(distinct)] for i in range(4)]
        barrier = threading.Barrier(4)

        def race(i: int, sent: list[dict[str, Any]] = sent, barrier: threading.Barrier = barrier,
                 env: dict[str, Any] = env) -> tuple[int, Any]:
            barrier.wait(timeout=10)
            try:
                return i, refs[i % 3].move("schnapsen", {"token": env["token"], "move": sent[i]}, _caller(env, sent[i], clock.now))
            except ApiError as exc:
                return i, (exc.status, exc.code)

        with ThreadPoolExecutor(4) as pool:
            results = [f.result() for f in [pool.submit(race, i) for i in range(4)]]
        won = [i for i, r in results if isinstance(r, dict)]
        assert won and len({repr(sent[i]) for i in won}) == 1, results
        for i, r in results:
            if i not in won:
                assert r == (409, "token_superseded") and sent[i] != sent[won[0]], (i, r)
        answers = [r for i, r in results if i in won]
        for r in answers[1:]:
            _same(answers[0], r)
        env = dict(answers[0], seat_keys=env["seat_keys"], table_key=env["table_key"])
        positions += 1
    assert env["status"] == "finished" and "record" in env


def _finished_match(ref: Referee, clock: Clock) -> list[dict[str, Any]]:
    env = ref.new("schnapsen", {"options": {"target": 1}}, Caller())
    answers = [env, *_play(ref, "schnapsen", env, random.Random(5), 400, clock)]
    assert answers[-1]["status"] == "finished" and "record" in answers[-1]
    return answers


def test_a_finished_matchs_moves_go_after_the_retention_and_its_old_tokens_stay_refused(
    request: pytest.FixtureRequest, tmp_path: Path, store: Any
) -> None:
    ledger: Any
    if isinstance(store, SqliteLedger):
        ledger = SqliteLedger(str(tmp_path / "short.db"), 3600, finished_ttl=1)
    elif isinstance(store, PostgresLedger):
        ledger = PostgresLedger(request.getfixturevalue("postgres_server").fresh(), 3600, finished_ttl=1)
    else:
        ledger = RedisLedger(request.getfixturevalue("redis_server").url, 3600, finished_ttl=1)
    clock = Clock()
    a, b, _ = _referees(ledger, clock)
    answers = _finished_match(a, clock)
    final, before = answers[-1], answers[-2]
    match_id = a.sealer.unseal("schnapsen", final["token"])[0]  # type: ignore[union-attr]
    assert ledger.moves(match_id)
    # within the window: the final token shows the record, an old token resumes to it
    assert b.state("schnapsen", {"token": final["token"]}, Caller())["record"] == final["record"]
    assert b.state("schnapsen", {"token": before["token"]}, Caller())["record"] == final["record"]
    time.sleep(1.2)
    assert ledger.moves(match_id) == []
    after = b.state("schnapsen", {"token": final["token"]}, Caller())  # the final position, its record issued before
    assert after["status"] == "finished" and "record" not in after and after["state"] == final["state"]
    for old in answers[:-1]:
        with pytest.raises(ApiError) as refused:
            b.state("schnapsen", {"token": old["token"]}, Caller())
        assert (refused.value.status, refused.value.code) == (409, "token_superseded")
        assert "REFEREE_LEDGER_FINISHED_TTL" in refused.value.detail
    last = final["record"]["moves"][-1]
    mover = last.get("player")
    caller = Caller(final["seat_keys"][mover] if isinstance(mover, int) else final["table_key"])
    with pytest.raises(ApiError) as refused:  # a retry of the last move, too late
        b.move("schnapsen", {"token": before["token"], "move": last}, caller)
    assert refused.value.code == "token_superseded"
