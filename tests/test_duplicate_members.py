"""Duplicate member names are refused everywhere a client's JSON comes in (I-JSON, RFC 7493 §2.3).

A signed record with ``"result"`` written twice, a forged value first and the signed one last, used
to be adjudicated ``result_matches: true`` (and ``service.verify`` said "record OK"): the parser
kept the last value, the one that was signed, while anyone reading the first saw the forgery. The
same for ``match_id`` and ``signature``. Now such a record is refused online (``replay`` with
``{"record": …}``: 400 with the repeated member's JSON Pointer in ``detail``) and offline
(``FAILED (duplicate_member)``, exit status 1), and so is a signed verdict with a repeated member;
a name repeated anywhere in any body (deep in a state, in a move, beside a token) is refused before
the body's shape is looked at. Every answer here goes through the contract client, so each
refusal is also validated against openapi.yaml (and checked explicitly with ``assert_conforms``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.verify import main as verify_main
from tests.conftest import KEY_NEW, make_app
from tests.contract import assert_conforms
from tests.fairplay.helpers import SHORT, new_match, play

#: The code of a refusal for a repeated name (the body parser's refusals of text that is not I-JSON).
CODE = "duplicate_member"


@pytest.fixture(scope="module")
def sealed_app() -> Flask:
    return make_app(SEAL_KEYS=[KEY_NEW])


@pytest.fixture(scope="module")
def finished(sealed_app: Flask) -> dict[str, Any]:
    """A sealed Schnapsen match played to the end: its signed record, and the signed verdict on it."""
    client = sealed_app.test_client()
    env = new_match(client, "schnapsen", None, SHORT["schnapsen"])
    for _, _, after in play(client, "schnapsen", env, seed=3, short=True):
        env = after
    assert env["status"] == "finished" and "record" in env
    r = client.post("/v1/games/schnapsen/replay", json={"record": env["record"]})
    assert r.status_code == 200 and r.json["result_matches"] is True, r.json
    return {"record": env["record"], "verdict": r.json}


def _forged_first(doc: dict[str, Any], name: str, forged: Any) -> str:
    """``doc`` as JSON text with ``name`` written twice: ``forged`` first, the genuine value last
    (where every common parser, and ours before, takes the last one)."""
    genuine = json.dumps(doc)
    return "{" + json.dumps(name) + ": " + json.dumps(forged) + ", " + genuine[1:]


def _forgery(record: dict[str, Any], name: str) -> Any:
    if name == "result":
        winner = record["result"]["winner"]
        return record["result"] | {"winner": [1 - winner[0]] if winner else [0]}
    if name == "match_id":
        return "forged-" + record["match_id"]
    return record["signature"][::-1]


def _post_text(client: FlaskClient, path: str, text: str) -> Any:
    r = client.post(path, data=text.encode(), content_type="application/json")
    assert_conforms("post", path, r.status_code, r.mimetype, r.get_data())
    return r


def _assert_refused(r: Any, pointer: str) -> None:
    assert r.status_code == 400, r.get_data(as_text=True)
    assert r.mimetype == "application/problem+json"
    body = r.json
    assert body["code"] == CODE and body["type"] == f"/errors/{CODE}"
    assert f"the member {pointer} appears more than once" in body["detail"], body["detail"]
    assert body["errors"] == {pointer: ["duplicate member"]}


@pytest.mark.parametrize("name", ["result", "match_id", "signature"])
def test_a_record_with_a_forged_member_first_is_refused_online(sealed_app: Flask, finished: dict[str, Any], name: str) -> None:
    client = sealed_app.test_client()
    record = finished["record"]
    text = '{"record": ' + _forged_first(record, name, _forgery(record, name)) + "}"
    _assert_refused(_post_text(client, "/v1/games/schnapsen/replay", text), f"/record/{name}")
    genuine = _post_text(client, "/v1/games/schnapsen/replay", '{"record": ' + json.dumps(record) + "}")
    assert genuine.status_code == 200 and genuine.json["result_matches"] is True  # the same record, once


@pytest.mark.parametrize("name", ["result", "match_id", "signature"])
def test_a_record_with_a_forged_member_first_fails_offline(
    sealed_app: Flask, finished: dict[str, Any], name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps(sealed_app.test_client().get("/v1/keys").json))
    path = tmp_path / "record.json"
    record = finished["record"]
    path.write_text(json.dumps(record))
    assert verify_main([str(path), "--keys", str(keys)]) == 0
    assert "record OK" in capsys.readouterr().out
    path.write_text(_forged_first(record, name, _forgery(record, name)))
    assert verify_main([str(path), "--keys", str(keys)]) == 1
    out = capsys.readouterr()
    assert "record OK" not in out.out
    assert f"FAILED (duplicate_member): the member /{name} appears more than once" in out.err, out.err
    envelope = tmp_path / "finished.json"  # a whole finished envelope is read for its record
    envelope.write_text('{"status": "finished", "record": ' + _forged_first(record, name, _forgery(record, name)) + "}")
    assert verify_main([str(envelope), "--keys", str(keys)]) == 1
    assert f"FAILED (duplicate_member): the member /record/{name} appears" in capsys.readouterr().err


def test_a_verdict_with_a_forged_member_first_fails_offline(
    sealed_app: Flask, finished: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps(sealed_app.test_client().get("/v1/keys").json))
    path = tmp_path / "verdict.json"
    verdict = finished["verdict"]
    path.write_text(json.dumps(verdict))
    assert verify_main([str(path), "--keys", str(keys)]) == 0
    assert "verdict OK" in capsys.readouterr().out
    path.write_text(_forged_first(verdict, "result_matches", False))
    assert verify_main([str(path), "--keys", str(keys)]) == 1
    assert "FAILED (duplicate_member): the member /result_matches appears" in capsys.readouterr().err


def test_a_key_set_with_a_repeated_member_is_unusable(
    sealed_app: Flask, finished: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jwks = sealed_app.test_client().get("/v1/keys").json
    keys = tmp_path / "keys.json"
    keys.write_text('{"keys": [' + _forged_first(jwks["keys"][0], "x", "A" * 43) + "]}")
    path = tmp_path / "record.json"
    path.write_text(json.dumps(finished["record"]))
    assert verify_main([str(path), "--keys", str(keys)]) == 2
    assert "/keys/0/x appears more than once" in capsys.readouterr().err


@pytest.fixture(scope="module")
def open_client() -> FlaskClient:
    return make_app(SEAL_KEYS=[]).test_client()


def test_repeated_names_deep_in_a_move_or_state_body_are_refused(open_client: FlaskClient) -> None:
    env = open_client.post("/v1/games/schnapsen/new", json={"seed": 8}).json
    state, move = env["state"], next(m for m in env["legal_moves"] if m["type"] == "play")
    body = json.dumps({"state": state, "move": move})
    ok = _post_text(open_client, "/v1/games/schnapsen/moves", body)
    assert ok.status_code == 200, ok.json  # the body as it is: accepted
    options = json.dumps(state["options"])
    cases = {
        "/move/card": body.replace('"card": ', '"card": "AS", "card": ', 1),
        "/state/options/target": body.replace(options, '{"target": 66, ' + options[1:], 1),
        "/state": '{"state": {}, ' + body[1:],
        "/x/a/0/b/1/c": body[:-1] + ', "x": {"a": [{"b": [0, {"c": 1, "d": {"c": 1}, "c": 2}]}]}}',  # before any shape check
        "/move/type": body.replace('"type": ', '"\\u0074ype": "play", "type": ', 1),  # one name, written two ways
    }
    for pointer, text in cases.items():
        assert text != body
        for operation in ("moves", "check"):
            _assert_refused(_post_text(open_client, f"/v1/games/schnapsen/{operation}", text), pointer)
    _assert_refused(_post_text(open_client, "/v1/games/schnapsen/state", '{"state": {}, ' + json.dumps({"state": state})[1:]), "/state")
    _assert_refused(_post_text(open_client, "/v1/games/schnapsen/new", '{"seed": 1, "seed": 2}'), "/seed")
    replay = json.dumps({"seed": 8, "moves": [move, move]})
    refused = replay.replace('"player": ', '"player": 1, "player": ')
    _assert_refused(_post_text(open_client, "/v1/games/schnapsen/replay", refused), "/moves/0/player")


def test_colons_and_escapes_in_strings_are_no_repetition(open_client: FlaskClient) -> None:
    """Bodies that take the careful path (a colon in a string, an escape) but repeat nothing are
    judged as before: the colon card is no card of the game (422), the escaped name is ``card``."""
    env = open_client.post("/v1/games/schnapsen/new", json={"seed": 8}).json
    play = next(m for m in env["legal_moves"] if m["type"] == "play")
    r = _post_text(open_client, "/v1/games/schnapsen/moves", json.dumps({"state": env["state"], "move": play | {"card": "A:S"}}))
    assert r.status_code == 422 and r.json["code"] == "invalid_card", r.json
    text = json.dumps({"state": env["state"], "move": play}).replace('"card"', '"\\u0063ard"')
    r = _post_text(open_client, "/v1/games/schnapsen/moves", text)
    assert r.status_code == 200, r.json


def test_a_sealed_body_with_a_repeated_token_is_refused(sealed_app: Flask) -> None:
    client = sealed_app.test_client()
    env = new_match(client, "schnapsen")
    body = json.dumps({"token": env["token"]})
    assert _post_text(client, "/v1/games/schnapsen/state", body).status_code == 200
    _assert_refused(_post_text(client, "/v1/games/schnapsen/state", '{"token": "forged", ' + body[1:]), "/token")
