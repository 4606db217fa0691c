"""The error boundary: every client mistake is a problem+json with a stable code, never a 500."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.conftest import EXAMPLE1_DECK

BASE = "/v1/games/schnapsen"


@pytest.fixture(scope="module")
def st(client: FlaskClient) -> dict[str, Any]:
    return client.post(f"{BASE}/new", json={"deck": EXAMPLE1_DECK}).json["state"]  # type: ignore[no-any-return]


PLAY = {"type": "play", "player": 1, "card": "AH"}


def _raw(client: FlaskClient, path: str, data: bytes | str, ctype: str = "application/json", method: str = "POST") -> Any:
    return client.open(path, method=method, data=data, content_type=ctype)


@pytest.mark.parametrize(
    "data,status,code",
    [
        ("{", 400, "invalid_request"),  # malformed JSON
        ("[1, 2]", 400, "invalid_request"),  # not an object
        ('"text"', 400, "invalid_request"),
        ("", 400, "invalid_request"),  # no body
        ('{"move": {"type": "play"}}', 400, "invalid_request"),  # no state or token
        ('{"state": [], "move": {}}', 400, "invalid_request"),  # state of the wrong JSON type
        ('{"state": {}, "move": "QS"}', 400, "invalid_request"),  # move of the wrong JSON type
        ('{"state": {}, "move": {}, "extra": 1}', 400, "invalid_request"),  # unknown top-level member
        ('{"state": {}, "move": {}, "expected_seq": "3"}', 400, "invalid_request"),
        ('{"state": {}, "move": {}, "expected_seq": true}', 400, "invalid_request"),
        ('{"state": {}, "token": "x", "move": {}}', 400, "invalid_request"),  # both
        ('{"token": "abc", "move": {}}', 400, "invalid_request"),  # a token in open mode
        ("[" * 5000 + "]" * 5000, 400, "invalid_request"),  # deeply nested
        ('{"state": ' + "[" * 200 + "]" * 200 + ', "move": {}}', 400, "invalid_request"),
        ('{"state": {"a": "\\ud800"}, "move": {}}', 400, "bad_encoding"),  # a lone surrogate escape: no UTF-8 text (issue 32)
        ('{"state": {}, "move": {}}', 422, "invalid_state"),  # empty state
    ],
)
def test_bad_bodies_are_refused_with_a_code(client: FlaskClient, data: str, status: int, code: str) -> None:
    r = _raw(client, f"{BASE}/moves", data)
    assert r.status_code == status, r.json
    assert r.mimetype == "application/problem+json" and r.json["code"] == code
    assert r.json["type"] == f"/errors/{code}" and r.json["status"] == status and r.json["detail"]
    if status == 400:
        assert r.json["errors"]


def test_invalid_request_names_the_field_paths(client: FlaskClient) -> None:
    r = client.post(f"{BASE}/moves", json={"state": {}, "move": "QS"})
    assert "move" in r.json["errors"]


@pytest.mark.parametrize(
    "path,method,status,code",
    [
        ("/v1/games/chess/new", "POST", 404, "unknown_game"),
        ("/v1/games/chess", "GET", 404, "unknown_game"),
        ("/v2/anything", "GET", 404, "not_found"),
        (f"{BASE}/moves", "GET", 405, "method_not_allowed"),
        ("/v1/games", "DELETE", 405, "method_not_allowed"),
    ],
)
def test_routing_problems(client: FlaskClient, path: str, method: str, status: int, code: str) -> None:
    r = client.open(path, method=method, json={} if method == "POST" else None)
    assert r.status_code == status and r.json["code"] == code and r.mimetype == "application/problem+json"


def test_oversize_body_is_413(client: FlaskClient) -> None:
    r = _raw(client, f"{BASE}/moves", '{"state": "' + "x" * (1024 * 1024 + 10) + '"}')
    assert r.status_code == 413 and r.json["code"] == "body_too_large"


@pytest.mark.parametrize("ctype", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"])
def test_wrong_media_type_is_415(client: FlaskClient, st: dict[str, Any], ctype: str) -> None:
    r = _raw(client, f"{BASE}/moves", json.dumps({"state": st, "move": PLAY}), ctype)
    assert r.status_code == 415 and r.json["code"] == "unsupported_media_type"


def test_json_subtype_media_type_is_accepted(client: FlaskClient, st: dict[str, Any]) -> None:
    r = _raw(client, f"{BASE}/moves", json.dumps({"state": st, "move": PLAY}), "application/vnd.referee+json")
    assert r.status_code == 200


def _mutate(st: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(st)
    *parents, last = path.split(".")
    node: Any = out
    for p in parents:
        node = node[int(p)] if isinstance(node, list) else node[p]
    if value is _DELETE:
        del node[int(last) if isinstance(node, list) else last]
    elif isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return out


_DELETE = object()


@pytest.mark.parametrize(
    "path,value,where",
    [
        ("hands.0.0", "AH", "hands"),  # a card twice
        ("hands.0.0", _DELETE, "hands"),  # a card missing
        ("hands.0.0", "2H", "hands.0.0"),  # not a Schnapsen card
        ("hands.0.0", 7, "hands.0.0"),
        ("talon.0", _DELETE, "hands"),
        ("trump_suit", "S", "trump_suit"),
        ("to_move", 0, "to_move"),
        ("to_move", 5, "to_move"),
        ("leader", 0, "to_move"),
        ("dealer", -1, "dealer"),
        ("phase", "bidding", "phase"),
        ("phase", "game_over", "result"),
        ("seq", -1, "seq"),
        ("game_points", [9, 0], "game_points"),
        ("closed_by", 1, "closing"),
        ("marriage_pending", "H", "marriage_pending"),
        ("options", {"target": "x"}, "options"),
        ("game", "snap", "game"),
        ("rules_version", "schnapsen/0", "rules_version"),
        ("surprise", 1, "surprise"),
        ("deal_number", 2, "results"),
        ("trick", [{"player": 0, "card": "QC"}], "trick"),
    ],
)
def test_inconsistent_states_are_422_invalid_state_with_paths(
    client: FlaskClient, st: dict[str, Any], path: str, value: Any, where: str
) -> None:
    bad = _mutate(st, path, value)
    r = client.post(f"{BASE}/moves", json={"state": bad, "move": PLAY})
    assert r.status_code == 422 and r.json["code"] == "invalid_state", r.json
    assert any(k.startswith(where) for k in r.json["errors"]), r.json["errors"]


@pytest.mark.parametrize(
    "mv,code",
    [
        ({"player": 1, "card": "AH"}, "invalid_move"),
        ({"type": "dance", "player": 1}, "unknown_move_type"),
        ({"type": "play", "player": 1}, "invalid_move"),
        ({"type": "play", "player": 1, "card": "AH", "extra": 1}, "invalid_move"),
        ({"type": "play", "player": 1, "card": 11}, "invalid_move"),
        ({"type": "play", "player": 1, "card": "AH", "at": "now"}, "invalid_move"),
        ({"type": "play", "player": 2, "card": "AH"}, "invalid_player"),
        ({"type": "play", "player": True, "card": "AH"}, "invalid_player"),
        ({"type": "play", "card": "AH"}, "invalid_player"),
        ({"type": "play", "player": 1, "card": "2H"}, "invalid_card"),
        ({"type": "marriage", "player": 1, "suit": "X"}, "invalid_move"),
        ({"type": "play", "player": 0, "card": "2H"}, "invalid_card"),  # §8: invalid_card before not_your_turn
        ({"type": "dance", "player": 7}, "unknown_move_type"),  # §8: unknown type before invalid_player
        ({"type": "play", "player": 1, "card": "AH", "at": 12}, None),  # `at` is ignored
    ],
)
def test_move_problems_follow_spec_order(client: FlaskClient, st: dict[str, Any], mv: dict[str, Any], code: str | None) -> None:
    r = client.post(f"{BASE}/moves", json={"state": st, "move": mv})
    if code is None:
        assert r.status_code == 200
    else:
        assert r.status_code == 422 and r.json["code"] == code, r.json
        assert r.json["move"] == mv


def test_huge_numbers_and_long_arrays_are_refused_not_crashed(client: FlaskClient, st: dict[str, Any]) -> None:
    for bad in (_mutate(st, "seq", 10**30), _mutate(st, "game_points", [10**30, 0])):
        r = client.post(f"{BASE}/moves", json={"state": bad, "move": PLAY})  # past 64 bits: refused at parse
        assert r.status_code == 400 and r.json["errors"] == {"body": ["out of range"]}
    for bad in (_mutate(st, "seq", 2**52), _mutate(st, "game_points", [2**52, 0]), _mutate(st, "talon", ["AD"] * 1000)):
        r = client.post(f"{BASE}/moves", json={"state": bad, "move": PLAY})
        assert r.status_code == 422 and r.json["code"] == "invalid_state"
    r = client.post(f"{BASE}/moves", json={"state": _mutate(st, "talon", ["AD"] * 5000), "move": PLAY})  # over the value budget
    assert r.status_code == 400 and r.json["errors"] == {"body": ["too many values"]}
    r = client.post(f"{BASE}/new", json={"seed": 2**64})
    assert r.status_code == 400 and r.json["code"] == "invalid_request"
