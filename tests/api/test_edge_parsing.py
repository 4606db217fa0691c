"""Requests the contract calls invalid are refused at the edge, before any engine runs (issue 14,
``negative_data_rejection``; docs/wire.md, "Requests").

- a replay's log entry that is not a move of the game (``<Game>Move``): 400 with its JSON Pointer;
  a well-formed move the rules refuse stays the verdict's ``first_illegal``;
- the replay's move shapes are openapi.yaml's own (the games' move declarations, which write those
  components: tests/test_contract_generated.py) and the compiled checker agrees with a stock JSON
  Schema validator;
- a query parameter an operation does not list, or ``as`` twice: 400 naming it, on every operation;
- ``check`` judges any move object, as ``moves`` does: a malformed move is ``legal: false``.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from flask.testing import FlaskClient
from jsonschema import Draft202012Validator
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from service.engines import ENGINES
from service.schemas import SCHEMAS
from tests.contract import SPEC

GAMES = list(ENGINES)
_OPEN_DOCUMENT = Registry().with_resource("urn:openapi", DRAFT202012.create_resource(SPEC))
"""openapi.yaml as written (open responses; tests/contract.py reads it closed), as schemathesis does."""


def stock_validator(name: str) -> Draft202012Validator:
    return Draft202012Validator({"$ref": f"urn:openapi#/components/schemas/{name}"}, registry=_OPEN_DOCUMENT)

# (a log entry, the pointer inside it) for entries that are moves of no game at all
NOT_MOVES: list[tuple[Any, str]] = [
    ("play AH", ""),  # not an object
    ([{"type": "play"}], ""),
    ({"player": 0}, "/type"),  # no type: the discriminator names the member
    ({"type": "no_such_move", "player": 0}, "/type"),
    ({"type": 7, "player": 0}, "/type"),
]


def _first_move(client: FlaskClient, game: str) -> tuple[dict[str, Any], dict[str, Any]]:
    env = client.post(f"/v1/games/{game}/new", json={"seed": 7}).json
    return env, next(m for m in env["legal_moves"] if "player" in m)


def _template_filled(move: dict[str, Any]) -> dict[str, Any]:
    """A listed move as a client sends it (claim templates get their ``at``)."""
    filled = {k: v for k, v in move.items() if k not in ("min_amount", "min_to", "count")}
    if filled["type"] in ("slap", "snap", "flip"):
        filled["at"] = 1
    if "min_amount" in move:
        filled["amount"] = move["min_amount"]
    if "min_to" in move:
        filled["to"] = move["min_to"]
    return filled


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize(("entry", "inside"), NOT_MOVES)
def test_replay_refuses_an_entry_that_is_not_a_move_of_the_game(client: FlaskClient, game: str, entry: Any, inside: str) -> None:
    _, first = _first_move(client, game)
    r = client.post(f"/v1/games/{game}/replay", json={"seed": 7, "moves": [_template_filled(first), entry]})
    assert r.status_code == 400 and r.json["code"] == "invalid_request", r.json
    assert list(r.json["errors"]) == [f"/moves/1{inside}"], r.json


@pytest.mark.parametrize("game", GAMES)
def test_replay_refuses_a_wrongly_typed_member_with_its_pointer(client: FlaskClient, game: str) -> None:
    """A float ``at``, a seat as a string, ``2.0`` for an integer: the member's own pointer."""
    _, first = _first_move(client, game)
    sent = _template_filled(first)
    for member, value in (("at", 1.5), ("player", "0"), ("player", float(first["player"]))):
        bad = {**sent, member: value}
        r = client.post(f"/v1/games/{game}/replay", json={"seed": 7, "moves": [sent, sent, bad]})
        assert r.status_code == 400 and f"/moves/2/{member}" in r.json["errors"], (member, value, r.json)


@pytest.mark.parametrize("game", GAMES)
def test_replay_judges_a_well_formed_illegal_move_as_the_first_illegal(client: FlaskClient, game: str) -> None:
    """A move of the game that the rules refuse (here: a seat of the schema that is not this match's,
    or an unknown extra member) is a verdict, not a refusal."""
    engine = ENGINES[game]
    _, first = _first_move(client, game)
    sent = _template_filled(first)
    extra = {**sent, "comment": "not a member of this move"}
    r = client.post(f"/v1/games/{game}/replay", json={"seed": 7, "moves": [extra]})
    assert r.status_code == 200 and r.json["first_illegal"]["index"] == 0, r.json
    assert r.json["first_illegal"]["error"]["code"] == "invalid_move"
    if max(engine.PLAYER_COUNTS) > engine.DEFAULT_PLAYERS and "player" in sent:
        beyond = {**sent, "player": engine.DEFAULT_PLAYERS}
        assert move_problem(game, beyond) is None  # a seat of the game, not of this match
        r = client.post(f"/v1/games/{game}/replay", json={"seed": 7, "moves": [beyond]})
        assert r.status_code == 200 and r.json["first_illegal"]["error"]["code"] == "invalid_player", r.json


def test_replay_lists_at_most_fifty_malformed_entries(client: FlaskClient) -> None:
    r = client.post("/v1/games/schnapsen/replay", json={"seed": 7, "moves": ["x"] * 200})
    assert r.status_code == 400 and len(r.json["errors"]) == 50 and "/moves/49" in r.json["errors"]


def move_problem(game: str, value: Any) -> Any:
    return SCHEMAS[game].move_problem(value)


def _variants(move: dict[str, Any], pack: list[str]) -> list[Any]:
    """Mutations of a valid move: each member dropped, retyped, pushed past its range."""
    out: list[Any] = [move, None, [move], "x", {}]
    for key, value in move.items():
        out.append({k: v for k, v in move.items() if k != key})
        for other in (None, True, 1.5, 2.0, -1, 8, 2**40, "x", "AH", "10S/a", [], {}, [value], pack[:3], pack[:1] * 2):
            out.append({**move, key: other})
    out.append({**move, "extra": 1})
    return out


@pytest.mark.parametrize("game", GAMES)
def test_the_replay_move_checker_agrees_with_json_schema(client: FlaskClient, game: str) -> None:
    """move_problem says "fine" exactly when a stock 2020-12 validator of openapi.yaml's <Game>Move
    does, except that an integral float (``2.0``) is refused (the contract's Numbers rule)."""
    validator = stock_validator(SCHEMAS[game].moves.name)
    env, _ = _first_move(client, game)
    engine = ENGINES[game]
    pack = [str(c) for c in engine.pack(engine.Options(), engine.DEFAULT_PLAYERS)]
    listed = [_template_filled(m) for m in env["legal_moves"]]
    examples = [copy.deepcopy(e) for e in _examples(game)]
    seen = 0
    for base in listed + examples:
        for variant in _variants(base, pack):
            schema_ok = validator.is_valid(variant)
            ours = move_problem(game, variant) is None
            if schema_ok and _has_integral_float(variant):
                assert not ours, variant
            else:
                assert ours == schema_ok, (variant, move_problem(game, variant))
            seen += 1
    assert seen > 50


def _examples(game: str) -> list[dict[str, Any]]:
    name = SCHEMAS[game].moves.name
    branches = [ref["$ref"].rsplit("/", 1)[-1] for ref in SPEC["components"]["schemas"][name]["oneOf"]]
    return [e for b in branches for e in SPEC["components"]["schemas"][b].get("examples", [])]


def _has_integral_float(value: Any) -> bool:
    if isinstance(value, float):
        return value.is_integer()
    if isinstance(value, dict):
        return any(_has_integral_float(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_integral_float(v) for v in value)
    return False


# --- query parameters -------------------------------------------------------------------------


def _operations() -> list[tuple[str, str]]:
    """Every documented operation as (method, a concrete path)."""
    out = []
    for path, item in SPEC["paths"].items():
        for method in ("get", "post"):
            if method in item:
                concrete = path.replace("{game_id}", "schnapsen").replace("{code}", "invalid_request")
                out.append((method, concrete.replace("{name}", "play.js")))
    return out


def _call(client: FlaskClient, method: str, path: str, query: str) -> Any:
    if method == "get":
        return client.get(f"{path}?{query}")
    return client.post(f"{path}?{query}", json={"seed": 7})


@pytest.mark.parametrize(("method", "path"), _operations())
def test_unknown_query_parameters_are_refused_naming_them(client: FlaskClient, method: str, path: str) -> None:
    try:
        client.application.url_map.bind("localhost").match(path, method=method.upper())
    except Exception:  # noqa: BLE001 - NotFound: /metrics is served on its own listener
        pytest.skip(f"{method} {path} is not served by this app")
    r = _call(client, method, path, "colour=red&sort")
    assert r.status_code == 400 and r.json["code"] == "invalid_request", (path, r.status_code)
    assert set(r.json["errors"]) == {"query.colour", "query.sort"} and "'colour'" in r.json["detail"]


@pytest.mark.parametrize("op", ["new", "moves", "state", "replay"])
def test_as_given_twice_is_refused(client: FlaskClient, op: str) -> None:
    r = client.post(f"/v1/games/schnapsen/{op}?as=0&as=1", json={"seed": 7})
    assert r.status_code == 400 and set(r.json["errors"]) == {"query.as"}


def test_as_is_not_a_parameter_of_check(client: FlaskClient, sealed: FlaskClient) -> None:
    """openapi.yaml lists no ``as`` on check (its answer carries no view): refused like any other name."""
    env, first = _first_move(client, "schnapsen")
    r = client.post("/v1/games/schnapsen/check?as=1", json={"state": env["state"], "move": first})
    assert r.status_code == 400 and set(r.json["errors"]) == {"query.as"}
    senv = sealed.post("/v1/games/schnapsen/new", json={}).json
    r = sealed.post("/v1/games/schnapsen/check?as=1", json={"token": senv["token"], "move": first})
    assert r.status_code == 400 and set(r.json["errors"]) == {"query.as"}


def test_listed_query_parameters_still_work(client: FlaskClient) -> None:
    r = client.post("/v1/games/schnapsen/new?as=1", json={"seed": 7})
    assert r.status_code == 201 and r.json["state"]["seat"] == 1


# --- check judges any move object ----------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_check_judges_a_malformed_move_as_moves_refuses_it(client: FlaskClient, game: str) -> None:
    """A move object that is no move of the game: ``moves`` answers 422 with the rules' code, and
    ``check`` gives that same problem as ``legal: false`` (docs/wire.md: the verdict is the refusal)."""
    env, first = _first_move(client, game)
    for bad in ({"type": "no_such_move", "player": first["player"]}, {**first, "player": "0"}, {**first, "at": "1"}):
        moved = client.post(f"/v1/games/{game}/moves", json={"state": env["state"], "move": bad})
        checked = client.post(f"/v1/games/{game}/check", json={"state": env["state"], "move": bad})
        assert moved.status_code == 422 and checked.status_code == 200, (bad, moved.json, checked.json)
        assert checked.json == {"legal": False, "error": moved.json}, bad
        assert re.fullmatch(r"[a-z_]+", moved.json["code"])
    # A number with a fraction is no move to judge but a body that is not the request's shape: the
    # same 400 on both (openapi.yaml "Numbers", issue 32).
    for operation in ("moves", "check"):
        r = client.post(f"/v1/games/{game}/{operation}", json={"state": env["state"], "move": {**first, "at": 1.5}})
        assert r.status_code == 400 and r.json["errors"] == {"/move/at": ["not an integer"]}, r.json


# --- bodies ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("raw", [b"", b"   \n\t "])
def test_an_empty_or_whitespace_body_on_new_means_no_members(client: FlaskClient, raw: bytes) -> None:
    """openapi.yaml: no bytes or whitespace only (no JSON value) on ``new`` is ``{}``, whatever the media type."""
    for media in ("application/json", "text/plain"):
        r = client.post("/v1/games/schnapsen/new", data=raw, content_type=media)
        assert r.status_code == 201, (raw, media, r.json)


@pytest.mark.parametrize("op", ["moves", "state", "check", "replay"])
def test_a_body_without_a_json_value_is_refused_where_one_is_required(client: FlaskClient, op: str) -> None:
    for raw in (b"", b"  \n"):
        r = client.post(f"/v1/games/schnapsen/{op}", data=raw, content_type="application/json")
        assert r.status_code == 400 and r.json["code"] == "invalid_request", (op, raw)


def test_a_malformed_log_is_refused_before_the_sealed_fixed_deck_rule(strict_sealed: FlaskClient) -> None:
    """Shape first (400), then sealed mode's refusal of client decks (403): nothing is judged either way."""
    r = strict_sealed.post("/v1/games/schnapsen/replay", json={"seed": 1, "moves": [{"type": "play", "player": "0", "card": "AS"}]})
    assert r.status_code == 400 and list(r.json["errors"]) == ["/moves/0/player"], r.json
    r = strict_sealed.post("/v1/games/schnapsen/replay", json={"seed": 1, "moves": [{"type": "claim", "player": 0}]})
    assert r.status_code == 403 and r.json["code"] == "fixed_deck_forbidden"
