"""The referee core without HTTP (service/referee.py): a whole sealed match driven through
``Referee`` with seat keys given as ``Caller`` values, its finished record adjudicated, a rewind
refused by a SQLite ledger, and the refusals of a wrong key. No Flask app, no request context."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from cryptography.fernet import Fernet

from service.config import Config
from service.ledger import SqliteLedger
from service.problems import ApiError
from service.records import adjudicate, public_keys
from service.referee import TO_MOVE, Caller, Referee
from service.sealing import Sealer

GAME = "schnapsen"
KEY = Fernet.generate_key().decode()


def _referee(ledger: Any = None, clock: Any = None) -> Referee:
    """A sealed referee as an integrator builds one: its config, sealer, signer, ledger and clock."""
    cfg = Config(seal_keys=(KEY,))
    signer = Referee.from_config(cfg).signer  # derived from the seal key, as the service does
    return Referee(cfg, Sealer(cfg.seal_keys), signer, ledger, clock=clock or (lambda: 1_700_000_000_000))


def _seat_move(ref: Referee, env: dict[str, Any], rng: random.Random) -> tuple[int, dict[str, Any]]:
    """The seat to move and one of its legal moves, as that seat sees them (its own key, its view)."""
    (seat,) = env["to_move"]
    view = ref.state(GAME, {"token": env["token"]}, Caller(env["seat_keys"][seat], seat))
    assert view["legal_moves"] and all(m["player"] == seat for m in view["legal_moves"])
    move = dict(rng.choice(view["legal_moves"]))
    move.pop("deck", None)  # a next_deal is dealt by the referee, from the match secret
    return seat, move


def test_a_whole_sealed_match_through_the_core(tmp_path: Any) -> None:
    ledger = SqliteLedger(str(tmp_path / "ledger.db"), 3600)
    ref = _referee(ledger)
    rng = random.Random(22)
    first = ref.new(GAME, {"options": {"target": 2}}, Caller())
    assert {"token", "fairness", "seat_keys", "table_key"} <= set(first) and "record" not in first
    assert first["legal_moves"] == []  # the public view: no seat's moves
    env = first
    played: list[dict[str, Any]] = []
    tokens = [first["token"]]
    for _ in range(2000):
        if env["status"] == "finished":
            break
        seat, move = _seat_move(ref, env, rng)
        keys = env["seat_keys"]
        after = ref.move(GAME, {"token": env["token"], "move": move}, Caller(keys[seat]))
        assert after["legal_moves"] == [] and "seat_keys" not in after
        env = dict(after, seat_keys=keys)
        played.append(move)
        tokens.append(after["token"])
    assert env["status"] == "finished", "the match did not finish"
    assert env["fairness"]["secret"] and env["winner"]

    record = env["record"]
    assert record["match_id"] and len(record["moves"]) == len(played)
    verdict = ref.adjudicate(record, GAME)
    assert verdict["result_matches"] is True and verdict["first_illegal"] is None
    assert verdict["moves_legal"] == verdict["moves_total"] == len(played)
    assert verdict["final"]["winner"] == env["winner"] and verdict["signature"]
    # the same record, checked by the offline verifier's path (records.adjudicate, the same replay loop)
    offline = adjudicate(record, public_keys(ref.jwks()))
    assert offline.result_matches and offline.moves_legal == len(played)

    # a rewind: an earlier token of the match only resumes it (the final position, never an older one)
    for old in (tokens[0], tokens[len(tokens) // 2]):
        resumed = ref.state(GAME, {"token": old}, Caller())
        assert resumed["state"]["seq"] == env["state"]["seq"] and resumed["status"] == "finished"
        assert resumed["record"]["moves"] == record["moves"]

    # a record that was changed after signing is refused
    forged = copy.deepcopy(record)
    forged["result"]["winner"] = [1 - env["winner"][0]]
    with pytest.raises(ApiError) as bad:
        ref.adjudicate(forged, GAME)
    assert (bad.value.status, bad.value.code) == (422, "bad_signature")


def test_a_rewound_move_is_refused_and_the_match_goes_on(tmp_path: Any) -> None:
    """Two different moves from one token: the first wins, the second is 409 and leaves the match as
    it was; the first sent again is its retry, answered as the first time."""
    ref = _referee(SqliteLedger(str(tmp_path / "ledger.db"), 3600))
    env = ref.new(GAME, {}, Caller())
    keys = env["seat_keys"]
    seat, move = _seat_move(ref, env, random.Random(1))
    listed = ref.state(GAME, {"token": env["token"]}, Caller(keys[seat], seat))["legal_moves"]
    other = next(m for m in listed if m != move)
    ahead = ref.move(GAME, {"token": env["token"], "move": move}, Caller(keys[seat], seat))
    mine = ref.state(GAME, {"token": env["token"]}, Caller(keys[seat], seat))  # resumed: after the move
    with pytest.raises(ApiError) as refused:
        ref.move(GAME, {"token": env["token"], "move": other}, Caller(keys[seat]))
    assert (refused.value.status, refused.value.code) == (409, "token_superseded")
    retried = ref.move(GAME, {"token": env["token"], "move": move}, Caller(keys[seat], seat))
    assert retried["events"] == ahead["events"] and retried["state"] == ahead["state"] == mine["state"]
    assert ref.state(GAME, {"token": ahead["token"]}, Caller())["state"]["seq"] == 1
    assert ref.state(GAME, {"token": retried["token"]}, Caller())["state"]["seq"] == 1


def test_a_caller_with_a_wrong_key_is_refused() -> None:
    ref = _referee()
    env = ref.new(GAME, {}, Caller())
    (seat,) = env["to_move"]
    other = 1 - seat
    _, move = _seat_move(ref, dict(env), random.Random(2))
    body = {"token": env["token"], "move": move}
    stranger = ref.new(GAME, {}, Caller())["seat_keys"][seat]  # the same seat of another match
    for key, code in ((env["seat_keys"][other], "bad_seat_key"), (stranger, "bad_seat_key"), ("", "seat_key_required"), (None, "seat_key_required")):
        for call in (ref.move, ref.check):
            with pytest.raises(ApiError) as refused:
                call(GAME, body, Caller(key))
            assert (refused.value.status, refused.value.code) == (403, code), (key, call)
        with pytest.raises(ApiError) as peek:  # viewing as the seat needs its key too
            ref.state(GAME, {"token": env["token"]}, Caller(key, seat))
        assert (peek.value.status, peek.value.code) == (403, code)
    # the seat's own key and the table key are accepted; the table key may answer as the seat to move
    assert ref.check(GAME, body, Caller(env["seat_keys"][seat])) == {"legal": True}
    assert ref.check(GAME, body, Caller(env["table_key"])) == {"legal": True}
    after = ref.move(GAME, body, Caller(env["table_key"], TO_MOVE))
    assert after["legal_moves"] and {m["player"] for m in after["legal_moves"]} == set(after["to_move"])


def test_open_mode_replay_judges_a_log_as_it_was_played() -> None:
    """An open referee: a seeded game played move by move, then its log replayed by the same core."""
    ref = Referee.from_config(Config())
    rng = random.Random(5)
    start = {"players": 2, "seed": 41, "options": {"target": 2}}
    env = ref.new(GAME, start, Caller())
    log: list[dict[str, Any]] = []
    refusals: list[str] = []
    ref.on_refusal = lambda exc: refusals.append(exc.code)
    for _ in range(60):
        if env["status"] == "finished":
            break
        move = dict(rng.choice(env["legal_moves"]))
        move.pop("deck", None)  # dealt from the seed
        env = ref.move(GAME, {"state": env["state"], "move": move}, Caller())
        log.append(move)
    verdict = ref.replay(GAME, {**start, "moves": log}, Caller())
    assert verdict["moves_legal"] == verdict["moves_total"] == len(log) and verdict["first_illegal"] is None
    assert verdict["final"]["state"] == env["state"] and refusals == []
    # a log with an illegal move is judged up to it: the move that was already played, played again
    bad = ref.replay(GAME, {**start, "moves": [*log[:3], log[2]]}, Caller())
    assert bad["moves_legal"] == 3 and bad["first_illegal"]["index"] == 3
    assert refusals == [bad["first_illegal"]["error"]["code"]]
