"""``?as=to_move``: a relaying host's one round trip per move (issue 20, item 7).

In sealed mode a host holding the table key gets no legal moves without ``as`` and cannot know
before a move who moves next. ``as=to_move`` answers with the view of the seat to move once the
request is done: exactly what ``state?as=<that seat>`` would answer, events included. When no
single seat is to move (finished, or several may act), the public view. Sealed mode: table key
only, since a seat's key must never reach another seat's view. Every response here is checked
against openapi.yaml by the test client (tests/conftest.py).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from flask.testing import FlaskClient

from service.engines import ENGINES
from service.schemas import SCHEMAS
from service.schemas.common import to_wire
from tests.playouts import random_playout

GAMES = sorted(ENGINES)


def _base(game: str) -> str:
    return f"/v1/games/{game}"


def _host_plays(client: FlaskClient, game: str, moves: int, seed: int) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """A sealed match driven by a host with the table key through ``moves?as=to_move`` only;
    returns (answer, the same token viewed as the named seat by ``state?as=``) for each move."""
    rng = random.Random(seed)
    env = client.post(f"{_base(game)}/new?as=to_move", json={"seed": seed}).json
    assert "token" in env, env
    table = {"X-Seat-Key": env["table_key"]}
    seen = []
    for step in range(moves):
        if env["status"] == "finished":
            break
        legal = env["legal_moves"]
        if not legal:  # several seats may act, or none: ask a seat of to_move for its moves
            assert env["state"].get("seat") is None
            if not env["to_move"]:
                break
            legal = client.post(f"{_base(game)}/state?as={env['to_move'][0]}", json={"token": env["token"]}, headers=table).json["legal_moves"]
        legal = [m for m in legal if not {"min_amount", "min_to"} & m.keys()] or legal  # a bet is a template: take complete moves
        move = dict(rng.choice(legal))
        if move["type"] in ("flip", "slap", "snap", "claim"):  # the table sends timed moves with its own clock
            move["at"] = 1000 * (step + 1)
        r = client.post(f"{_base(game)}/moves?as=to_move", json={"token": env["token"], "move": move}, headers=table)
        assert r.status_code == 200, r.json
        env = r.json
        seat = env["state"].get("seat")
        if len(env["to_move"]) == 1:
            assert seat == env["to_move"][0]
            explicit = client.post(f"{_base(game)}/state?as={seat}", json={"token": env["token"]}, headers=table).json
            seen.append((env, explicit))
        else:
            assert seat is None and env["legal_moves"] == []  # the public view
    return seen


@pytest.mark.parametrize("game", GAMES)
def test_as_to_move_answers_the_view_of_the_seat_to_move_after_the_move(sealed: FlaskClient, game: str) -> None:
    seen = _host_plays(sealed, game, moves=12, seed=3)
    assert seen, "some answer named a single seat to move"
    for env, explicit in seen:
        assert env["state"] == explicit["state"]
        assert env["legal_moves"] == explicit["legal_moves"] and env["legal_moves"]
        assert all(m.get("player", env["to_move"][0]) == env["to_move"][0] for m in env["legal_moves"])
        assert env["scores"] == explicit["scores"]


def test_as_to_move_in_open_mode_needs_no_key_and_never_answers_the_full_state(client: FlaskClient) -> None:
    env = client.post("/v1/games/schnapsen/new?as=to_move", json={"seed": 8}).json
    (seat,) = env["to_move"]
    assert env["state"]["seat"] == seat and "hand" in env["state"]
    full = client.post("/v1/games/schnapsen/new", json={"seed": 8}).json
    move = next(m for m in full["legal_moves"] if m["player"] == seat and m["type"] == "play")
    after = client.post("/v1/games/schnapsen/moves?as=to_move", json={"state": full["state"], "move": move}).json
    (nxt,) = after["to_move"]
    assert nxt != seat and after["state"]["seat"] == nxt  # the next seat's view, not the mover's
    assert "hands" not in after["state"] and "stock" not in after["state"]


def _first_state(game: str, players: int, wanted: Any) -> Any:
    engine = ENGINES[game]
    for seed in range(20):
        for _before, _move, after in random_playout(engine, players, seed, max_moves=600):
            if wanted(engine, after):
                return after
    raise AssertionError(f"{game}: no such state in 20 seeded playouts")


@pytest.mark.parametrize(
    ("game", "players", "wanted"),
    [
        ("seven_up", 2, lambda e, s: len(e.to_move(s)) > 1),  # several seats may act at once
        ("schnapsen", 2, lambda e, s: e.status(s) == "finished"),  # nobody is to move
    ],
    ids=["several_seats", "finished"],
)
def test_as_to_move_with_no_single_seat_to_move_is_the_public_view(client: FlaskClient, game: str, players: int, wanted: Any) -> None:
    state = _first_state(game, players, wanted)
    r = client.post(f"{_base(game)}/state?as=to_move", json={"state": SCHEMAS[game].dump_state(state)})
    assert r.status_code == 200, r.json
    assert len(r.json["to_move"]) != 1
    assert r.json["state"]["seat"] is None and r.json["legal_moves"] == []
    assert r.json["state"] == to_wire(ENGINES[game].view(state, None))  # exactly the public view


def test_as_to_move_in_sealed_mode_needs_the_table_key(sealed: FlaskClient) -> None:
    env = sealed.post("/v1/games/schnapsen/new", json={"seed": 8}).json
    body = {"token": env["token"]}
    (seat,) = env["to_move"]
    r = sealed.post("/v1/games/schnapsen/state?as=to_move", json=body)
    assert r.status_code == 403 and r.json["code"] == "seat_key_required"
    for key in env["seat_keys"]:  # even the seat that is to move: a seat's key views only its seat, named
        r = sealed.post("/v1/games/schnapsen/state?as=to_move", json=body, headers={"X-Seat-Key": key})
        assert r.status_code == 403 and r.json["code"] == "bad_seat_key"
    r = sealed.post("/v1/games/schnapsen/state?as=to_move", json=body, headers={"X-Seat-Key": env["table_key"]})
    assert r.status_code == 200 and r.json["state"]["seat"] == seat


@pytest.mark.parametrize("raw", ["to_mov", "TO_MOVE", "to_move ", "next"])
def test_other_words_are_still_no_seat(client: FlaskClient, raw: str) -> None:
    r = client.post("/v1/games/schnapsen/new", json={"seed": 8}, query_string={"as": raw})
    assert r.status_code == 422 and r.json["code"] == "invalid_player"


@pytest.mark.parametrize("written", ["2.0", "2e0", "+2", " 2"])
def test_a_seat_in_as_is_written_as_a_plain_integer(client: FlaskClient, written: str) -> None:
    """The contract: ``as=2``, not ``as=2.0`` (JSON Schema would count 2.0 as the integer 2): any
    other spelling is 422 ``invalid_player``, as a seat the game does not have is."""
    assert client.post(f"{_base('bragging')}/new?as=2", json={"players": 4}).status_code == 201
    r = client.post(f"{_base('bragging')}/new?as={written}", json={"players": 4})
    assert r.status_code == 422 and r.json["code"] == "invalid_player", r.json
