"""Timed claim games over HTTP: who may send a batch of claims in sealed mode, and whole games
played to the end in open and sealed mode (every response checked against openapi.yaml)."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from service.engines import ENGINES
from service.schemas import SCHEMAS
from tests.playouts import random_playout

LATE = 3_600_000
"""A judges' timestamp an hour into the match: after the flip, which the service stamps itself in sealed
mode (ms since the match began), however slowly the test runs."""

CLAIM_GAMES = {"slapjack": "slaps", "snap": "snaps"}
"""Game → its batch move type."""


def _new(client: FlaskClient, game: str, **body: Any) -> dict[str, Any]:
    r = client.post(f"/v1/games/{game}/new", json={"players": 3, "seed": 5, **body})
    assert r.status_code == 201, r.json
    return r.json  # type: ignore[no-any-return]


def _move(client: FlaskClient, game: str, env: dict[str, Any], move: dict[str, Any], key: str | None) -> Any:
    headers = {"X-Seat-Key": key} if key else {}
    return client.post(f"/v1/games/{game}/moves", json={"token": env["token"], "move": move}, headers=headers)


def _after_a_flip(client: FlaskClient, game: str) -> tuple[dict[str, Any], list[str], str]:
    env = _new(client, game)
    keys, table = env["seat_keys"], env["table_key"]
    seat = env["to_move"][0]
    r = _move(client, game, env, {"type": "flip", "player": seat, "at": 100}, keys[seat])
    assert r.status_code == 200, r.json
    return r.json, keys, table


@pytest.mark.parametrize("game", sorted(CLAIM_GAMES))
def test_batch_of_several_seats_needs_the_table_key(sealed: FlaskClient, game: str) -> None:
    """A batch judging claims of several seats is the judges' verdict: only the table key sends it."""
    env, keys, table = _after_a_flip(sealed, game)
    batch = {"type": CLAIM_GAMES[game], "claims": [{"player": 0, "at": LATE}, {"player": 1, "at": LATE}]}
    r = _move(sealed, game, env, batch, None)
    assert r.status_code == 403 and r.json["code"] == "seat_key_required"
    for key in keys:
        r = _move(sealed, game, env, batch, key)
        assert r.status_code == 403 and r.json["code"] == "bad_seat_key", r.json
        c = sealed.post(f"/v1/games/{game}/check", json={"token": env["token"], "move": batch}, headers={"X-Seat-Key": key})
        assert c.status_code == 403
    r = _move(sealed, game, env, batch, table)
    assert r.status_code == 200, r.json


@pytest.mark.parametrize("game", sorted(CLAIM_GAMES))
def test_batch_of_one_seat_needs_that_seats_key(sealed: FlaskClient, game: str) -> None:
    """A batch whose claims are all one seat's is that seat's move, like a single claim."""
    env, keys, table = _after_a_flip(sealed, game)
    batch = {"type": CLAIM_GAMES[game], "claims": [{"player": 2, "at": LATE}]}
    r = _move(sealed, game, env, batch, keys[1])
    assert r.status_code == 403 and r.json["code"] == "bad_seat_key"
    for key in (keys[2], table):
        r = _move(sealed, game, env, batch, key)
        assert r.status_code == 200, r.json


@pytest.mark.parametrize("game", sorted(CLAIM_GAMES))
def test_malformed_batch_is_refused_by_the_rules_for_any_key_of_the_match(sealed: FlaskClient, game: str) -> None:
    """A batch without readable claims names no seat: any key of the match gets the rules' answer."""
    env, keys, _ = _after_a_flip(sealed, game)
    r = _move(sealed, game, env, {"type": CLAIM_GAMES[game], "claims": []}, keys[0])
    assert r.status_code == 422 and r.json["code"] == "no_claims"
    r = _move(sealed, game, env, {"type": CLAIM_GAMES[game], "claims": []}, "not-a-key")
    assert r.status_code == 403 and r.json["code"] == "bad_seat_key"


@pytest.mark.parametrize("game", sorted(CLAIM_GAMES))
@pytest.mark.parametrize("mode", ["open", "sealed"])
def test_a_whole_game_plays_to_the_end(client: FlaskClient, sealed: FlaskClient, game: str, mode: str) -> None:
    """A seeded random game (flips, true and false claims, batches, stale stamps) played move by move
    over HTTP ends as the engine says: same winner, status finished, no move accepted after."""
    engine, codec = ENGINES[game], SCHEMAS[game]
    players, seed = 3, 11
    steps = list(random_playout(engine, players, seed))
    final = steps[-1][2]
    assert engine.outcome(final) is not None
    http = sealed if mode == "sealed" else client
    r = http.post(f"/v1/games/{game}/new", json={"players": players, "seed": seed})
    assert r.status_code == 201
    env = r.json
    headers = {"X-Seat-Key": env["table_key"]} if mode == "sealed" else {}
    for _, move, _ in steps:
        source = {"token": env["token"]} if mode == "sealed" else {"state": env["state"]}
        r = http.post(f"/v1/games/{game}/moves", json={**source, "move": codec.dump(move)}, headers=headers)
        assert r.status_code == 200, (codec.dump(move), r.json)
        env = r.json
    assert env["status"] == "finished"
    assert env["winner"] == sorted(engine.outcome(final).winners)  # type: ignore[union-attr]
    if mode == "open":
        assert codec.load_state(env["state"]) == final
    source = {"token": env["token"]} if mode == "sealed" else {"state": env["state"]}
    r = http.post(f"/v1/games/{game}/moves", json={**source, "move": {"type": "flip", "player": 0}}, headers=headers)
    assert r.status_code == 422 and r.json["code"] == "game_over"


def test_slapjack_new_without_a_seed_draws_the_shuffle_seed(client: FlaskClient) -> None:
    """slapjack.md §4: ``shuffle_seed`` is a random integer when no seed is given. The service
    draws it (two games from the same deck get different seeds); a replay never draws, so the
    same log gets the same verdict every time."""
    deck = [r + s for s in "SHDC" for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")]
    seeds = {client.post("/v1/games/slapjack/new", json={"deck": deck}).json["state"]["shuffle_seed"] for _ in range(3)}
    assert len(seeds) == 3
    finals = [client.post("/v1/games/slapjack/replay", json={"deck": deck, "moves": []}).json["final"]["state"]["shuffle_seed"] for _ in range(2)]
    assert finals[0] == finals[1]
