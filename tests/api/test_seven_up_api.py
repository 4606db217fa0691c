"""Seven Up over HTTP: whole matches in open and sealed mode, views, creation errors, and the
openapi.yaml components that describe the game (every response is also checked against
openapi.yaml by the client fixtures)."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest
from flask.testing import FlaskClient

from service.engines import seven_up as S
from tests.contract import SPEC

BASE = "/v1/games/seven_up"
SCHEMAS = SPEC["components"]["schemas"]
EX1 = ["2C", "KS", "10D", "AC", "5C", "3S", "4D", "9S", "QH", "10S", "KD", "6H", "JC", "2S", "4S", "5S", "6S", "7S",
       "8S", "JS", "QS", "AS", "2H", "3H", "4H", "5H", "7H", "8H", "9H", "10H", "JH", "KH", "AH", "2D", "3D", "5D",
       "6D", "7D", "8D", "9D", "JD", "QD", "AD", "3C", "4C", "6C", "7C", "8C", "9C", "10C", "QC", "KC"]
EX5 = ["AH", "3S", "KS", "2H", "QS", "4C", "JH", "5S", "AC", "10H", "7S", "KC", "10C", "5D", "9D", "7C", "10D", "6S",
       "8C", "2D", "3D", "QD", "4D", "9S", "8H", "2S", "4S", "8S", "10S", "JS", "AS", "3H", "4H", "5H", "6H", "7H",
       "9H", "QH", "KH", "6D", "7D", "8D", "JD", "KD", "AD", "2C", "3C", "5C", "6C", "9C", "JC", "QC"]


def _concrete(move: dict[str, Any], hand: list[str], rng: random.Random) -> dict[str, Any]:
    """A listed move ready to send: a discard template gets ``count`` cards of the hand."""
    if move["type"] == "discard" and "count" in move:
        return {"type": "discard", "player": move["player"], "cards": rng.sample(hand, move["count"])}
    return move


def _play_open(client: FlaskClient, players: int, seed: int, options: dict[str, Any]) -> tuple[dict[str, Any], int]:
    rng = random.Random(seed)
    r = client.post(f"{BASE}/new", json={"players": players, "seed": seed, "options": options})
    assert r.status_code == 201, r.json
    env = r.json
    deals = 1
    for _ in range(3000):
        if env["status"] == "finished":
            return env, deals
        move = rng.choice(env["legal_moves"])
        hand = env["state"]["hands"][move["player"]]
        deals += move["type"] == "next_deal"
        r = client.post(f"{BASE}/moves", json={"state": env["state"], "move": _concrete(move, hand, rng)})
        assert r.status_code == 200, r.json
        env = r.json
    raise AssertionError("match did not finish")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_whole_match_over_http_open_mode(client: FlaskClient, players: int) -> None:
    """Done criterion: a whole match to the target of 7, every move over HTTP in open mode."""
    env, deals = _play_open(client, players, seed=11 + players, options={})
    st = env["state"]
    assert st["phase"] == "game_over" and max(st["scores"]) >= 7 and deals >= 2
    w = st["winner"]
    assert env["winner"] == ([w, w + 2] if players == 4 else [w])
    assert env["legal_moves"] == [] and env["to_move"] == []


def _play_sealed(sealed: FlaskClient, players: int, seed: int, options: dict[str, Any]) -> dict[str, Any]:
    rng = random.Random(seed)
    r = sealed.post(f"{BASE}/new", json={"players": players, "seed": seed, "options": options})
    assert r.status_code == 201, r.json
    env = r.json
    keys = env["seat_keys"]
    token = env["token"]
    assert env["legal_moves"] == [] and all(h is None for h in env["state"]["hands"])
    for _ in range(3000):
        if env["status"] == "finished":
            return env
        seat = env["to_move"][0]
        mine = sealed.post(f"{BASE}/state?as={seat}", json={"token": token}, headers={"X-Seat-Key": keys[seat]}).json
        view = mine["state"]
        assert all(h is None for i, h in enumerate(view["hands"]) if i != seat)
        assert all(d is None for i, d in enumerate(view["discards"]) if i != seat)
        move = rng.choice(mine["legal_moves"])
        assert move["player"] == seat
        other = (seat + 1) % players
        refused = sealed.post(f"{BASE}/moves", json={"token": token, "move": move}, headers={"X-Seat-Key": keys[other]})
        assert refused.status_code == 403 and refused.json["code"] == "bad_seat_key"
        move = _concrete(move, view["hands"][seat], rng)
        r = sealed.post(f"{BASE}/moves?as={seat}", json={"token": token, "move": move}, headers={"X-Seat-Key": keys[seat]})
        assert r.status_code == 200, r.json
        env = r.json
        token = env["token"]
    raise AssertionError("match did not finish")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_whole_match_over_http_sealed_mode(sealed: FlaskClient, players: int) -> None:
    """Done criterion: a whole match in sealed mode, each seat acting with its own key and seeing only its view."""
    env = _play_sealed(sealed, players, seed=30 + players, options={"target": 5, "follow_rule": "follow_or_trump"})
    assert env["status"] == "finished" and env["winner"]
    assert max(env["scores"]["parties"]) >= 5


def test_blind_partners_through_http(client: FlaskClient, sealed: FlaskClient) -> None:
    """§5 / Example 5 views: seats 2 and 3 see null for their own hand until trump is fixed."""
    env = client.post(f"{BASE}/new", json={"players": 4, "deck": EX5}).json
    for seat, own in ((0, True), (1, True), (2, False), (3, False)):
        view = client.post(f"{BASE}/state?as={seat}", json={"state": env["state"]}).json["state"]
        assert (view["hands"][seat] is not None) == own and view["hand_counts"] == [6, 6, 6, 6]
    after = client.post(f"{BASE}/moves?as=2", json={"state": env["state"], "move": {"type": "stand", "player": 1}}).json
    assert after["state"]["hands"][2] == ["2H", "QS", "4C", "7C", "10D", "6S"]
    s = sealed.post(f"{BASE}/new", json={"players": 4, "deck": EX5}).json
    view = sealed.post(f"{BASE}/state?as=3", json={"token": s["token"]}, headers={"X-Seat-Key": s["seat_keys"][3]}).json
    assert view["state"]["hands"] == [None, None, None, None]


def test_replay_judges_example_1(client: FlaskClient) -> None:
    """The replay endpoint plays §10 Example 1 and stops at an illegal move."""
    plays = ["1:KS", "0:3S", "1:10D", "0:KD", "0:AC", "1:2C", "0:10S", "1:9S", "0:6H", "1:QH", "1:4D", "0:5C"]
    moves = [{"type": "stand", "player": 1}] + [
        {"type": "play", "player": int(p.split(":")[0]), "card": p.split(":")[1]} for p in plays
    ]
    r = client.post(f"{BASE}/replay", json={"players": 2, "deck": EX1, "moves": moves})
    assert r.status_code == 200 and r.json["first_illegal"] is None
    assert r.json["final"]["scores"]["totals"] == [3, 1] and r.json["final"]["status"] == "deal_over"
    bad = moves[:2] + [{"type": "play", "player": 0, "card": "AC"}]
    r = client.post(f"{BASE}/replay", json={"players": 2, "deck": EX1, "moves": bad})
    assert r.json["first_illegal"]["index"] == 2 and r.json["first_illegal"]["error"]["code"] == "must_follow_suit"
    assert r.json["first_illegal"]["error"]["rule"] == "seven_up §6.5"


@pytest.mark.parametrize(
    ("body", "code"),
    [({"players": 5}, "invalid_players"), ({"players": 1}, "invalid_players"),
     ({"players": 2, "options": {"dealer": 2}}, "invalid_option"),
     ({"players": 3, "options": {"start_scores": [0, 0]}}, "invalid_option"),
     ({"options": {"follow_rule": "any"}}, "invalid_option"),
     ({"deck": EX1[:-1]}, "invalid_deck")],
)
def test_creation_errors(client: FlaskClient, body: dict[str, Any], code: str) -> None:
    """§8 creation errors: invalid_players, invalid_option, invalid_deck."""
    r = client.post(f"{BASE}/new", json=body)
    assert r.status_code == 422 and r.json["code"] == code


def test_catalogue_entry(client: FlaskClient) -> None:
    """The catalogue lists Seven Up with its player counts, moves and every §3 option."""
    entry = client.get(BASE).json
    assert entry["players"] == [2, 3, 4] and entry["default_players"] == 2
    assert entry["move_types"] == list(S.MOVE_TYPES)
    assert set(entry["options"]) == {f.name for f in dataclasses.fields(S.Options)}
    assert entry["options"]["start_scores"]["default"] == [] and entry["options"]["target"]["default"] == 7


def test_openapi_move_union_is_the_engines() -> None:
    """SevenUpMove is a discriminated union over exactly MOVE_TYPES with the engine's wire fields."""
    move = SCHEMAS["SevenUpMove"]
    mapping = move["discriminator"]["mapping"]
    assert move["discriminator"]["propertyName"] == "type" and set(mapping) == set(S.MOVE_TYPES)
    for kind, ref in mapping.items():
        branch = SCHEMAS[ref.rsplit("/", 1)[-1]]
        fields = {f.name for f in dataclasses.fields(S.MOVE_CLASSES[kind]) if f.metadata.get("wire", True)}
        assert branch["properties"]["type"] == {"type": "string", "const": kind}
        assert set(branch["properties"]) == {"type", "at"} | fields, kind


def test_openapi_options_are_the_engines() -> None:
    """SevenUpOptions: the Options fields, with the engine's defaults and descriptions."""
    schema = SCHEMAS["SevenUpOptions"]
    defaults = {f.name: f.default for f in dataclasses.fields(S.Options)}
    assert set(schema["properties"]) == set(defaults) == set(S.OPTION_INFO)
    for name, prop in schema["properties"].items():
        want = list(defaults[name]) if isinstance(defaults[name], tuple) else defaults[name]
        assert prop["default"] == want and prop["description"] == S.OPTION_INFO[name]["description"], name
        assert prop["type"] == S.OPTION_INFO[name]["type"], name
