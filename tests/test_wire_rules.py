"""Wire rules that JSON Schema alone would read otherwise, pinned as the contract declares them
(openapi.yaml ``info.description``, docs/wire.md "Numbers and names"):

- an integer written with a fraction or an exponent (``248.0``, ``2.48e2``) is refused wherever the
  contract says ``integer``, although a JSON Schema validator of the same contract accepts it: one
  answer everywhere (issue 32), 400 ``invalid_request`` with its JSON Pointer, whatever the
  operation, the mode and the part of the body it sits in (a member, ``options``, a ``state``, a
  ``move``, a replay's log);
- ``/metrics`` is not served on the API's port: 404 ``not_found``, a response the contract declares
  (the metrics listener, ``REFEREE_METRICS_BIND``, serves it).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from service.engines import ENGINES
from tests.contract import assert_conforms, assert_problem, plain_validator_at
from tests.servers import Gunicorn, free_port

GAMES = sorted(ENGINES)


def _prefix(game: str) -> str:
    return "".join(part.capitalize() for part in game.split("_"))


def _post(client: FlaskClient, path: str, text: str) -> Any:
    """POST ``text`` as it is written (``json=`` would write 248.0 the same, but say it plainly)."""
    return client.post(path, data=text.encode(), content_type="application/json")


@pytest.mark.parametrize("game", GAMES)
def test_an_integer_with_a_fraction_is_refused_where_json_schema_accepts_it(client: FlaskClient, game: str) -> None:
    new_request = plain_validator_at(f"/components/schemas/{_prefix(game)}NewRequest")
    assert new_request.is_valid({"seed": 248.0})  # JSON Schema: 248.0 is an integer
    assert _post(client, f"/v1/games/{game}/new", '{"seed": 248}').status_code == 201
    for text in ('{"seed": 248.0}', '{"seed": 2.48e2}', '{"seed": 248E0}'):
        r = _post(client, f"/v1/games/{game}/new", text)
        _assert_fraction_refused(r, "/seed")
    players = ENGINES[game].DEFAULT_PLAYERS
    _assert_fraction_refused(_post(client, f"/v1/games/{game}/new", json.dumps({"players": float(players)})), "/players")


def _assert_fraction_refused(r: Any, pointer: str) -> None:
    assert r.status_code == 400 and r.json["code"] == "invalid_request" and r.json["errors"] == {pointer: ["not an integer"]}, r.json
    assert f"The number at {pointer} is written with a fraction or an exponent" in r.json["detail"], r.json


@pytest.mark.parametrize("game", GAMES)
def test_an_integer_with_a_fraction_inside_options_state_or_move_is_the_same_400(client: FlaskClient, game: str) -> None:
    env = client.post(f"/v1/games/{game}/new", json={"seed": 8}).json
    state, move = env["state"], env["legal_moves"][0]
    path = f"/v1/games/{game}/moves"
    assert _post(client, path, json.dumps({"state": state, "move": move, "expected_seq": state["seq"]})).status_code == 200
    _assert_fraction_refused(_post(client, path, json.dumps({"state": state, "move": move, "expected_seq": float(state["seq"])})),
                             "/expected_seq")
    for operation in ("moves", "check", "state"):
        body = {"state": state | {"seq": float(state["seq"])}, "move": move}
        if operation == "state":
            del body["move"]
        _assert_fraction_refused(_post(client, f"/v1/games/{game}/{operation}", json.dumps(body)), "/state/seq")
    for name in [k for k, v in state.items() if type(v) is int]:  # derived members (talon_size) too: the body is refused first
        _assert_fraction_refused(_post(client, path, json.dumps({"state": state | {name: float(state[name])}, "move": move})), f"/state/{name}")
    for name in [k for k, v in move.items() if type(v) is int]:
        for operation in ("moves", "check"):  # check answers 400 too, not {"legal": false}: the body is not the request's shape
            as_float = _post(client, f"/v1/games/{game}/{operation}", json.dumps({"state": state, "move": move | {name: float(move[name])}}))
            _assert_fraction_refused(as_float, f"/move/{name}")
    options = {k: v for k, v in state["options"].items() if type(v) is int}
    for name, value in options.items():
        assert client.post(f"/v1/games/{game}/new", json={"options": {name: value}}).status_code == 201
        _assert_fraction_refused(_post(client, f"/v1/games/{game}/new", json.dumps({"options": {name: float(value)}})), f"/options/{name}")
    _assert_fraction_refused(_post(client, path, json.dumps({"state": state, "move": move, "expected_seq": 0.5})), "/expected_seq")


@pytest.mark.parametrize("game", GAMES)
def test_an_integer_with_a_fraction_in_a_replay_log_is_refused_with_its_pointer(client: FlaskClient, game: str) -> None:
    env = client.post(f"/v1/games/{game}/new", json={"seed": 8}).json
    move = next(m for m in env["legal_moves"] if type(m.get("player")) is int)
    assert _post(client, f"/v1/games/{game}/replay", json.dumps({"seed": 8, "moves": [move]})).status_code == 200
    r = _post(client, f"/v1/games/{game}/replay", json.dumps({"seed": 8, "moves": [move | {"player": float(move["player"])}]}))
    _assert_fraction_refused(r, "/moves/0/player")


def test_metrics_on_the_api_port_is_the_declared_404(client: FlaskClient) -> None:
    r = client.get("/metrics")
    assert r.status_code == 404 and r.json["code"] == "not_found"
    assert_conforms("GET", "/metrics", 404, r.mimetype, r.get_data())  # declared for the path, not only as "unknown path"


def _get(url: str) -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:  # 127.0.0.1 only
            return resp.status, resp.headers["Content-Type"], resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers["Content-Type"], exc.read()


def test_metrics_live_api_port_404_metrics_port_200(tmp_path: Path) -> None:
    """Under gunicorn: the API port answers the declared 404, the metrics listener the metrics
    (and a problem for any other path); every answer is checked against the contract."""
    metrics_port = free_port()
    with Gunicorn(tmp_path, workers=1, env={"REFEREE_METRICS_BIND": f"127.0.0.1:{metrics_port}"}) as g:
        status, media, body = _get(f"{g.url}/metrics")
        assert status == 404
        assert_conforms("GET", "/metrics", status, media, body)
        status, media, body = _get(f"http://127.0.0.1:{metrics_port}/metrics")
        assert status == 200 and b"referee_http_requests_total" in body
        assert_conforms("GET", "/metrics", status, media, body)
        status, media, body = _get(f"http://127.0.0.1:{metrics_port}/v1/games")
        assert status == 404 and media == "application/problem+json"
        assert_problem(json.loads(body), 404)
