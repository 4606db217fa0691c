"""The HTTP contract (docs/rules/conventions.md, docs/wire.md), in open mode: catalogue, new, moves, state, check, replay.

Every response is also checked against openapi.yaml by the client fixture.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.conftest import EXAMPLE1_DECK

BASE = "/v1/games/schnapsen"


def new(client: FlaskClient, **body: Any) -> dict[str, Any]:
    r = client.post(f"{BASE}/new", json=body)
    assert r.status_code == 201, r.json
    return r.json  # type: ignore[no-any-return]


def move(client: FlaskClient, state: dict[str, Any], mv: dict[str, Any], status: int = 200, query: str = "") -> dict[str, Any]:
    r = client.post(f"{BASE}/moves{query}", json={"state": state, "move": mv})
    assert r.status_code == status, r.json
    return r.json  # type: ignore[no-any-return]


def test_catalogue_lists_schnapsen_with_option_defaults(client: FlaskClient) -> None:
    games = client.get("/v1/games").json["games"]
    entry = next(g for g in games if g["id"] == "schnapsen")
    assert entry["players"] == [2] and entry["default_players"] == 2
    assert entry["options"]["target"]["default"] == 7
    assert entry["options"]["show_points"]["default"] is True
    assert set(entry["move_types"]) == {"claim", "exchange", "close", "marriage", "play", "next_deal"}
    assert client.get(f"{BASE}").json == entry


def test_new_without_body_deals_a_shuffled_game(client: FlaskClient) -> None:
    r = client.post(f"{BASE}/new")
    assert r.status_code == 201
    env = r.json
    assert env["status"] == "in_progress" and env["to_move"] == [1] and env["winner"] is None
    assert env["scores"]["totals"] == [0, 0]
    assert env["state"]["seq"] == 0 and env["state"]["seed"] is None
    assert "token" not in env and "seat_keys" not in env
    assert env["events"][0]["type"] == "deal_started"


def test_new_with_deck_deals_example_1(client: FlaskClient) -> None:
    env = new(client, players=2, deck=EXAMPLE1_DECK)
    st = env["state"]
    assert st["hands"] == [["QC", "JH", "AS", "KH", "KS"], ["AH", "10S", "KD", "10H", "JD"]]
    assert st["trump_card"] == "QH" and st["talon_size"] == 10
    assert {(m["type"], m.get("card")) for m in env["legal_moves"]} == {
        ("claim", None), ("close", None), ("play", "AH"), ("play", "10S"), ("play", "KD"), ("play", "10H"), ("play", "JD")
    }


def test_seed_gives_a_reproducible_deal_and_is_kept_in_the_state(client: FlaskClient) -> None:
    a, b = new(client, seed=1234), new(client, seed=1234)
    assert a["state"] == b["state"] and a["state"]["seed"] == 1234
    assert new(client, seed=1235)["state"]["hands"] != a["state"]["hands"]


def test_deck_and_seed_together_deck_fixes_the_deal(client: FlaskClient) -> None:
    env = new(client, deck=EXAMPLE1_DECK, seed=9)
    assert env["state"]["trump_card"] == "QH" and env["state"]["seed"] == 9


@pytest.mark.parametrize(
    "body,code",
    [
        ({"players": 3}, "invalid_players"),
        ({"players": 1}, "invalid_players"),
        ({"options": {"colour": "red"}}, "invalid_option"),
        ({"options": {"target": "7"}}, "invalid_option"),
        ({"options": {"target": 0}}, "invalid_option"),
        ({"options": {"dealer": 2}}, "invalid_option"),
        ({"options": {"auto_claim": 1}}, "invalid_option"),
        ({"deck": EXAMPLE1_DECK[:-1]}, "invalid_deck"),
        ({"deck": EXAMPLE1_DECK[:-1] + ["AH"]}, "invalid_deck"),
        ({"deck": EXAMPLE1_DECK[:-1] + ["2H"]}, "invalid_deck"),
        ({"deck": EXAMPLE1_DECK[:-1] + [7]}, "invalid_deck"),
    ],
)
def test_new_refuses_bad_setup(client: FlaskClient, body: dict[str, Any], code: str) -> None:
    r = client.post(f"{BASE}/new", json=body)
    assert r.status_code == 422 and r.json["code"] == code, r.json


def test_move_applies_and_reports_events(client: FlaskClient) -> None:
    env = new(client, deck=EXAMPLE1_DECK)
    env = move(client, env["state"], {"type": "play", "player": 1, "card": "10S"})
    assert env["events"] == [{"type": "card_played", "player": 1, "card": "10S"}]
    env = move(client, env["state"], {"type": "play", "player": 0, "card": "AS"})
    kinds = [e["type"] for e in env["events"]]
    assert kinds == ["card_played", "trick_won", "card_drawn", "card_drawn"]
    assert env["events"][1] == {"type": "trick_won", "player": 0, "cards": ["10S", "AS"], "points": 21}
    assert env["state"]["seq"] == 2 and env["scores"]["points"] == [21, 0]


def test_refused_move_names_code_rule_and_move(client: FlaskClient) -> None:
    env = new(client, deck=EXAMPLE1_DECK)
    mv = {"type": "play", "player": 1, "card": "QC"}
    problem = move(client, env["state"], mv, status=422)
    assert problem["code"] == "card_not_in_hand" and problem["rule"].startswith("schnapsen §")
    assert problem["move"] == mv and problem["type"] == "/errors/card_not_in_hand"


def test_state_endpoint_applies_nothing(client: FlaskClient) -> None:
    env = new(client, deck=EXAMPLE1_DECK)
    r = client.post(f"{BASE}/state", json={"state": env["state"]})
    assert r.status_code == 200
    assert r.json["state"] == env["state"] and r.json["events"] == [] and r.json["legal_moves"] == env["legal_moves"]


def test_derived_values_are_ignored_on_input(client: FlaskClient) -> None:
    env = new(client, deck=EXAMPLE1_DECK)
    st = dict(env["state"], points=[99, 99], talon_size=3)
    r = client.post(f"{BASE}/state", json={"state": st})
    assert r.status_code == 200 and r.json["state"]["points"] == [0, 0] and r.json["state"]["talon_size"] == 10


def test_hand_written_state_may_leave_out_bookkeeping(client: FlaskClient) -> None:
    """conventions.md: seq, rules_version and options may be left out of a typed-in position."""
    st = new(client, deck=EXAMPLE1_DECK)["state"]
    for key in ("seq", "rules_version", "options", "seed", "game", "tricks_won", "card_points", "marriage_points", "points", "talon_size"):
        st.pop(key)
    r = client.post(f"{BASE}/state", json={"state": st})
    assert r.status_code == 200 and r.json["state"]["seq"] == 0 and r.json["state"]["options"]["target"] == 7


def test_as_gives_a_seat_view_and_only_its_moves(client: FlaskClient) -> None:
    env = new(client, deck=EXAMPLE1_DECK)
    r = client.post(f"{BASE}/state?as=0", json={"state": env["state"]})
    view = r.json["state"]
    assert view["seat"] == 0 and view["hand"] == ["QC", "JH", "AS", "KH", "KS"]
    assert view["opponent_hand_count"] == 5 and "hands" not in view and "talon" not in view
    assert r.json["legal_moves"] == []  # seat 1 is to move
    r = client.post(f"{BASE}/state?as=1", json={"state": env["state"]})
    assert {m["player"] for m in r.json["legal_moves"]} == {1} and r.json["state"]["legal_moves"]


def test_card_drawn_event_hides_the_card_from_the_other_seat(client: FlaskClient) -> None:
    env = new(client, deck=EXAMPLE1_DECK)
    st = move(client, env["state"], {"type": "play", "player": 1, "card": "10S"})["state"]
    seen = move(client, st, {"type": "play", "player": 0, "card": "AS"}, query="?as=1")["events"]
    drawn = [e for e in seen if e["type"] == "card_drawn"]
    assert drawn == [{"type": "card_drawn", "player": 0, "card": None}, {"type": "card_drawn", "player": 1, "card": "JS"}]


@pytest.mark.parametrize("seat", ["2", "-1", "x", "", "²", "١", "9" * 5000, "0x1", " 1"])
def test_as_must_name_a_seat(client: FlaskClient, seat: str) -> None:
    env = new(client, deck=EXAMPLE1_DECK)
    r = client.post(f"{BASE}/state?as={seat}", json={"state": env["state"]})
    assert r.status_code == 422 and r.json["code"] == "invalid_player"


def test_expected_seq_guards_against_stale_states(client: FlaskClient) -> None:
    env = new(client, deck=EXAMPLE1_DECK)
    mv = {"type": "play", "player": 1, "card": "10S"}
    ok = client.post(f"{BASE}/moves", json={"state": env["state"], "move": mv, "expected_seq": 0})
    assert ok.status_code == 200
    stale = client.post(f"{BASE}/moves", json={"state": env["state"], "move": mv, "expected_seq": 3})
    assert stale.status_code == 422 and stale.json["code"] == "stale_state"


def test_check_answers_legal_or_the_error(client: FlaskClient) -> None:
    st = new(client, deck=EXAMPLE1_DECK)["state"]
    r = client.post(f"{BASE}/check", json={"state": st, "move": {"type": "play", "player": 1, "card": "AH"}})
    assert r.status_code == 200 and r.json == {"legal": True}
    r = client.post(f"{BASE}/check", json={"state": st, "move": {"type": "exchange", "player": 1}})
    assert r.json["legal"] is False and r.json["error"]["code"] == "no_trump_jack" and r.json["error"]["status"] == 422


def _play_random_match(client: FlaskClient, seed: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    rng = random.Random(seed)
    env = new(client, seed=seed, options={"target": 3})
    log = []
    while env["status"] != "finished":
        choices = [m for m in env["legal_moves"] if m["type"] != "claim"] or env["legal_moves"]
        mv = rng.choice(choices)
        log.append(mv)
        env = move(client, env["state"], mv)
    return env, log


def test_a_whole_match_plays_over_http_and_then_refuses_moves(client: FlaskClient) -> None:
    env, log = _play_random_match(client, 5)
    assert env["winner"] and max(env["scores"]["totals"]) >= 3 and env["legal_moves"] == []
    assert any(m["type"] == "next_deal" for m in log)
    refused = move(client, env["state"], {"type": "next_deal", "player": 0}, status=422)
    assert refused["code"] == "game_over"


def test_replay_of_a_legal_log_reaches_the_live_final_state(client: FlaskClient) -> None:
    live, log = _play_random_match(client, 11)
    r = client.post(f"{BASE}/replay", json={"seed": 11, "options": {"target": 3}, "moves": log})
    assert r.status_code == 200
    assert r.json["moves_total"] == r.json["moves_legal"] == len(log) and r.json["first_illegal"] is None
    assert r.json["final"]["state"] == live["state"] and r.json["final"]["winner"] == live["winner"]


def test_replay_reports_the_first_illegal_move(client: FlaskClient) -> None:
    log = [{"type": "play", "player": 1, "card": "10S"}, {"type": "claim", "player": 0},
           {"type": "play", "player": 0, "card": "AS"}, {"type": "close", "player": 1}]
    r = client.post(f"{BASE}/replay", json={"deck": EXAMPLE1_DECK, "moves": log})
    assert r.status_code == 200
    assert r.json["moves_legal"] == 1 and r.json["moves_total"] == 4
    assert r.json["first_illegal"]["index"] == 1 and r.json["first_illegal"]["error"]["code"] == "not_leader"
    assert r.json["final"]["state"]["seq"] == 1


def test_replay_refuses_a_log_entry_that_is_not_a_move_with_its_pointer(client: FlaskClient) -> None:
    """docs/wire.md, Requests: a log entry that is not a move of the game is a malformed request."""
    r = client.post(f"{BASE}/replay", json={"deck": EXAMPLE1_DECK, "moves": [{"type": "play", "player": 1, "card": "10S"}, "play AH"]})
    assert r.status_code == 400 and r.json["code"] == "invalid_request" and list(r.json["errors"]) == ["/moves/1"]


def test_replay_needs_deck_or_seed(client: FlaskClient) -> None:
    r = client.post(f"{BASE}/replay", json={"moves": []})
    assert r.status_code == 400 and r.json["code"] == "invalid_request"


def test_next_deal_without_deck_uses_the_match_seed(client: FlaskClient) -> None:
    """conventions.md: deal k of a seeded match uses seed + k - 1."""
    from service.cards.packs import short_20
    from service.cards.shuffle import deal_deck

    st = new(client, deck=EXAMPLE1_DECK, seed=40)["state"]
    st = move(client, st, {"type": "claim", "player": 1})["state"]  # false claim ends deal 1
    env = move(client, st, {"type": "next_deal", "player": 1})
    deck = [str(c) for c in deal_deck(short_20(), 41)]
    assert env["state"]["trump_card"] == deck[6] and env["state"]["deal_number"] == 2


def test_health_readiness_contract_and_docs(client: FlaskClient) -> None:
    assert client.get("/healthz").json == {"status": "ok"}
    assert client.get("/readyz").json == {"status": "ready", "mode": "open"}
    spec = client.get("/openapi.yaml")
    assert spec.status_code == 200 and spec.data.startswith(b"openapi: 3.1")
    docs = client.get("/docs")
    assert docs.status_code == 200 and b"swagger-ui" in docs.data
    import re

    assets = re.findall(rb'(?:src|href)="([^"]+)"', docs.data)
    assert assets and all(a.startswith((b"/docs/", b"./")) for a in assets), assets  # offline, no CDN
    assert client.get("/docs/swagger-ui-bundle.js").status_code == 200
