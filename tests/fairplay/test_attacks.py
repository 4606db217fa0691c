"""The attacks of issue 13, tried as a seat holding only its own key would, now gain nothing.

- Branch-peeking (Schnapsen: the follower plays different cards from one token to see what each
  branch draws) and Russian Bank flip-peeking (flip, then go back to the older token): with a
  ledger (SQLite and a real Redis) every other move from an old token is 409 ``token_superseded``,
  and reading an old token (``state``) resumes the match: it shows the current position, never the
  older one (forward only).
- Deal re-rolling (the next dealer sends ``next_deal`` again and again from one token): with or
  without a ledger the same token always leads to the same deal, drawn from the match secret; with
  a ledger the repeat is answered as a retry (the first deal, exactly once).
"""

from __future__ import annotations

from typing import Any

from flask import Flask

from tests.fairplay.helpers import new_match, true_state

SCH = "/v1/games/schnapsen"


def post(client: Any, url: str, body: dict[str, Any], key: str | None = None) -> Any:
    return client.post(url, json=body, headers={"X-Seat-Key": key} if key else {})


def _legal(client: Any, game: str, token: str, seat: int, key: str) -> list[dict[str, Any]]:
    r = post(client, f"/v1/games/{game}/state?as={seat}", {"token": token}, key)
    assert r.status_code == 200, r.json
    return r.json["legal_moves"]  # type: ignore[no-any-return]


def test_schnapsen_branch_peeking_gets_409_with_a_ledger(ledger_app: Flask) -> None:
    client = ledger_app.test_client()
    env = new_match(client, "schnapsen")
    k0, k1 = env["seat_keys"]
    lead = next(m for m in _legal(client, "schnapsen", env["token"], 1, k1) if m["type"] == "play")
    r = post(client, f"{SCH}/moves?as=1", {"token": env["token"], "move": lead}, k1)
    assert r.status_code == 200
    t1 = r.json["token"]
    follows = [m for m in _legal(client, "schnapsen", t1, 0, k0) if m["type"] == "play"]
    assert len(follows) >= 2
    first = post(client, f"{SCH}/moves?as=0", {"token": t1, "move": follows[0]}, k0)
    assert first.status_code == 200
    # the second branch from the same token: refused before anything is drawn or shown
    for mv in follows[1:]:
        r = post(client, f"{SCH}/moves?as=0", {"token": t1, "move": mv}, k0)
        assert r.status_code == 409 and r.json["code"] == "token_superseded"
        assert "state" not in r.json and "token" not in r.json
    # reading the old token resumes: the current position, never the branch point (no probe)
    back = post(client, f"{SCH}/state?as=0", {"token": t1}, k0)
    assert back.status_code == 200 and back.json["state"] == first.json["state"]
    assert post(client, f"{SCH}/check", {"token": t1, "move": follows[1]}, k0).json["code"] == "token_superseded"
    # the current token plays on
    nxt = first.json["to_move"][0]
    key = (k0, k1)[nxt]
    mv = _legal(client, "schnapsen", first.json["token"], nxt, key)[0]
    assert post(client, f"{SCH}/moves", {"token": first.json["token"], "move": mv}, key).status_code == 200


def test_russian_bank_flip_peeking_gets_409_with_a_ledger(ledger_app: Flask) -> None:
    client = ledger_app.test_client()
    env = new_match(client, "russian_bank")
    seat = env["to_move"][0]
    key = env["seat_keys"][seat]
    token = env["token"]
    # play until a flip is legal, then flip: the old token is dead afterwards
    for _ in range(60):
        legal = _legal(client, "russian_bank", token, seat, key)
        flip = next((m for m in legal if m["type"] == "flip"), None)
        if flip is not None:
            break
        r = post(client, "/v1/games/russian_bank/moves", {"token": token, "move": legal[0]}, key)
        assert r.status_code == 200
        token = r.json["token"]
        seat = r.json["to_move"][0]
        key = env["seat_keys"][seat]
    assert flip is not None
    r = post(client, f"/v1/games/russian_bank/moves?as={seat}", {"token": token, "move": flip}, key)
    assert r.status_code == 200
    # the peek: the same token again, with another move when there is one (a random deal may list only the flip)
    other = next((m for m in legal if m["type"] != "flip"), flip)
    back = post(client, f"/v1/games/russian_bank/moves?as={seat}", {"token": token, "move": other}, key)
    if other != flip:
        assert back.status_code == 409 and back.json["code"] == "token_superseded"
    else:  # the same move again is a retry: the first flip's outcome, not a second flip
        assert back.status_code == 200 and back.json["events"] == r.json["events"]
    resumed = post(client, f"/v1/games/russian_bank/state?as={seat}", {"token": token}, key)
    assert resumed.status_code == 200 and resumed.json["state"] == r.json["state"]  # after the flip, never before


def _to_deal_over(client: Any) -> tuple[dict[str, Any], str, int]:
    env = new_match(client, "schnapsen")
    k1 = env["seat_keys"][1]
    r = post(client, f"{SCH}/moves", {"token": env["token"], "move": {"type": "claim", "player": 1}}, k1)
    assert r.status_code == 200 and r.json["status"] == "deal_over", r.json
    dealer = next(m["player"] for m in _legal(client, "schnapsen", r.json["token"], 1, k1) + _legal(
        client, "schnapsen", r.json["token"], 0, env["seat_keys"][0]) if m["type"] == "next_deal")
    return {**r.json, "seat_keys": env["seat_keys"]}, env["seat_keys"][dealer], dealer


def test_next_deal_twice_from_one_token_deals_the_same_cards(fair_app: Flask) -> None:
    """No ledger: re-rolling is pointless, the secret fixes the deal."""
    client = fair_app.test_client()
    env, key, dealer = _to_deal_over(client)
    hands = set()
    states = []
    for _ in range(5):
        r = post(client, f"{SCH}/moves?as={dealer}", {"token": env["token"], "move": {"type": "next_deal", "player": dealer}}, key)
        assert r.status_code == 200
        hands.add(tuple(r.json["state"]["hand"]))
        states.append(true_state(client, "schnapsen", r.json["token"]))
    assert len(hands) == 1
    assert all(s == states[0] for s in states)  # the whole deal, talon and opponent's hand included


def test_next_deal_rerolled_with_a_ledger_is_the_first_deal_again(ledger_app: Flask) -> None:
    """With a ledger the repeat is a retry: answered with the first deal, recorded once."""
    client = ledger_app.test_client()
    env, key, dealer = _to_deal_over(client)
    mv = {"type": "next_deal", "player": dealer}
    first = post(client, f"{SCH}/moves?as={dealer}", {"token": env["token"], "move": mv}, key)
    assert first.status_code == 200
    again = post(client, f"{SCH}/moves?as={dealer}", {"token": env["token"], "move": mv}, key)
    assert again.status_code == 200
    assert again.json["state"] == first.json["state"] and again.json["events"] == first.json["events"]
    assert true_state(client, "schnapsen", again.json["token"]) == true_state(client, "schnapsen", first.json["token"])


def test_two_matches_deal_differently(fair_app: Flask) -> None:
    """Each match has its own secret: the first deals of two new matches differ."""
    client = fair_app.test_client()
    a, b = (true_state(client, "schnapsen", new_match(client, "schnapsen")["token"]) for _ in range(2))
    assert a != b
