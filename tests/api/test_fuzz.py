"""No client input gets a 500: random bodies, random moves and mutated states, over every game.

Property-based (hypothesis, derandomized so CI is reproducible). The contract-checking client
also validates every response against openapi.yaml.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.engines import ENGINES
from service.engines.claims import MAX_AT
from tests.playouts import is_timed

GAMES = sorted(ENGINES)
TIMED = {g for g in GAMES if is_timed(ENGINES[g])}
"""Games whose moves carry a timestamp: there ``at`` must be an integer 0..MAX_AT (else bad_timestamp)."""
FUZZ = settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
ALLOWED = {200, 201, 400, 403, 404, 413, 415, 422}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=25,
)


def _check(r: Any) -> None:
    assert r.status_code in ALLOWED, r.get_data()
    if r.status_code >= 400:
        assert r.mimetype == "application/problem+json" and r.json["code"]


def _start(client: FlaskClient, game: str) -> dict[str, Any]:
    r = client.post(f"/v1/games/{game}/new", json={"seed": 7})
    assert r.status_code == 201
    return r.json  # type: ignore[no-any-return]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("endpoint", ["new", "moves", "state", "check", "replay"])
@FUZZ
@given(body=json_values)
def test_random_bodies_never_fail(client: FlaskClient, game: str, endpoint: str, body: Any) -> None:
    r = client.post(f"/v1/games/{game}/{endpoint}", data=json.dumps(body), content_type="application/json")
    _check(r)


def _moves(game: str) -> st.SearchStrategy[dict[str, Any]]:
    engine = ENGINES[game]
    cards = [str(c) for c in engine.pack(engine.Options(), engine.DEFAULT_PLAYERS)]
    value = st.sampled_from(cards) | st.sampled_from(["S", "H", "D", "C"]) | json_values
    return st.fixed_dictionaries(
        {"type": st.sampled_from(list(engine.MOVE_TYPES)) | st.text(max_size=8)},
        optional={
            "player": st.integers(-1, engine.DEFAULT_PLAYERS) | json_values,
            "card": value,
            "suit": value,
            "deck": st.lists(st.sampled_from(cards), max_size=len(cards)) | json_values,
            "at": st.integers(0, 2**40) | json_values,
            "extra": json_values,
        },
    )


@pytest.mark.parametrize("game", GAMES)
def test_random_moves_are_accepted_exactly_when_listed(client: FlaskClient, game: str) -> None:
    env = _start(client, game)

    @FUZZ
    @given(move=_moves(game))
    def run(move: dict[str, Any]) -> None:
        r = client.post(f"/v1/games/{game}/moves", json={"state": env["state"], "move": move})
        _check(r)
        at = move.get("at")
        ignorable = isinstance(at, int) and not isinstance(at, bool) and (game not in TIMED or 0 <= at <= MAX_AT)
        plain = {k: v for k, v in move.items() if k != "at"} if ignorable else move
        # an integer `at` is ignored by games without timing; in a timed game it fills a listed claim,
        # which is listed without `at` but needs one (only a flip may leave it out)
        listed = plain in env["legal_moves"] and (game not in TIMED or ignorable or move.get("type") == "flip")
        assert (r.status_code == 200) == listed or move.get("type") == "next_deal", (move, r.json)
        if r.status_code == 422:
            assert r.json["code"] not in ("invalid_state", "invalid_request")

    run()


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, prefix + (i,))
    return out


@pytest.mark.parametrize("game", GAMES)
def test_mutated_states_are_refused_or_consistent(client: FlaskClient, game: str) -> None:
    env = _start(client, game)
    paths = _paths(env["state"])
    move = env["legal_moves"][0]

    @FUZZ
    @given(index=st.integers(0, len(paths) - 1), value=json_values, drop=st.booleans())
    def run(index: int, value: Any, drop: bool) -> None:
        state = copy.deepcopy(env["state"])
        *parents, last = paths[index]
        node = state
        for p in parents:
            node = node[p]
        if drop:
            del node[last]
        else:
            node[last] = value
        r = client.post(f"/v1/games/{game}/moves", json={"state": state, "move": move})
        _check(r)
        # 400 only for an integer outside 64 bits (refused at parse, openapi.yaml "Limits") or a number
        # with a fraction anywhere (openapi.yaml "Numbers": one answer, its JSON Pointer)
        errors = r.json.get("errors") or {}
        assert r.status_code in (200, 422) or errors == {"body": ["out of range"]} or (
            r.status_code == 400 and list(errors.values()) == [["not an integer"]]), r.json

    run()


@pytest.mark.parametrize("game", GAMES)
def test_random_query_and_seat_keys_never_fail(client: FlaskClient, sealed: FlaskClient, game: str) -> None:
    """``?as=`` and ``X-Seat-Key`` take any text: refused with a code, never a 500."""
    env = _start(client, game)
    sealed_env = _start(sealed, game)

    @FUZZ
    # a header is Latin-1 text on WSGI: printable ASCII and the printable half of Latin-1 (é, ÿ)
    @given(as_=st.text(max_size=30),
           key=st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=255, exclude_categories=("Cc",)), max_size=60))
    def run(as_: str, key: str) -> None:
        r = client.post(f"/v1/games/{game}/state", query_string={"as": as_}, json={"state": env["state"]})
        _check(r)
        r = sealed.post(f"/v1/games/{game}/state", query_string={"as": as_}, json={"token": sealed_env["token"]},
                        headers={"X-Seat-Key": key})
        _check(r)
        assert r.status_code in (200, 403, 422)

    run()


def test_a_seat_key_outside_ascii_is_refused_not_a_500(sealed: FlaskClient) -> None:
    """Regression: a non-ASCII ``X-Seat-Key`` (``clé``) reached ``hmac.compare_digest``, which takes
    ASCII text only, and answered 500; it is a key of no seat: asked for seat 0's view, 403
    ``bad_seat_key`` (without ``as``, the public view, as for any key of no seat)."""
    env = _start(sealed, "schnapsen")
    r = sealed.post("/v1/games/schnapsen/state?as=0", json={"token": env["token"]}, headers={"X-Seat-Key": "clé"})
    _check(r)
    assert r.status_code == 403 and r.json["code"] == "bad_seat_key", r.json
