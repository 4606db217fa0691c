"""Sealed mode (docs/rules/conventions.md "Two modes of trust"): tokens, rotation, seat keys, views."""

from __future__ import annotations

from typing import Any

import pytest
from cryptography.fernet import Fernet
from flask.testing import FlaskClient

from service.sealing import BadToken, Sealer
from tests.conftest import EXAMPLE1_DECK, KEY_NEW, KEY_OLD, KEY_OTHER, make_app

BASE = "/v1/games/schnapsen"


def new_sealed(client: FlaskClient, **body: Any) -> dict[str, Any]:
    body.setdefault("deck", EXAMPLE1_DECK)
    r = client.post(f"{BASE}/new", json=body)
    assert r.status_code == 201, r.json
    return r.json  # type: ignore[no-any-return]


def post(client: FlaskClient, endpoint: str, body: dict[str, Any], key: str | None = None, query: str = "") -> Any:
    headers = {"X-Seat-Key": key} if key else {}
    return client.post(f"{BASE}/{endpoint}{query}", json=body, headers=headers)


def test_new_returns_token_public_view_and_keys(sealed: FlaskClient) -> None:
    env = new_sealed(sealed)
    assert env["token"] and len(env["seat_keys"]) == 2 and env["table_key"]
    assert len(set(env["seat_keys"] + [env["table_key"]])) == 3
    view = env["state"]
    assert view["seat"] is None and "hands" not in view and "hand" not in view and "talon" not in view
    assert view["hand_counts"] == [5, 5] and env["legal_moves"] == []
    assert "seed" not in view


def test_seat_key_acts_and_views_as_its_seat(sealed: FlaskClient) -> None:
    env = new_sealed(sealed)
    k0, k1 = env["seat_keys"]
    r = post(sealed, "moves", {"token": env["token"], "move": {"type": "play", "player": 1, "card": "10S"}}, k1, "?as=1")
    assert r.status_code == 200 and r.json["state"]["hand"] == ["AH", "KD", "10H", "JD"]
    r2 = post(sealed, "state", {"token": r.json["token"]}, k0, "?as=0")
    assert r2.status_code == 200 and r2.json["state"]["hand"] == ["QC", "JH", "AS", "KH", "KS"]
    assert {m["player"] for m in r2.json["legal_moves"]} == {0}


def test_acting_needs_the_seats_key(sealed: FlaskClient) -> None:
    env = new_sealed(sealed)
    k0, _ = env["seat_keys"]
    mv = {"type": "play", "player": 1, "card": "10S"}
    r = post(sealed, "moves", {"token": env["token"], "move": mv})
    assert r.status_code == 403 and r.json["code"] == "seat_key_required"
    r = post(sealed, "moves", {"token": env["token"], "move": mv}, k0)
    assert r.status_code == 403 and r.json["code"] == "bad_seat_key"
    r = post(sealed, "moves", {"token": env["token"], "move": mv}, "forged-key")
    assert r.status_code == 403 and r.json["code"] == "bad_seat_key"


def test_check_needs_the_key_so_hands_cannot_be_probed(sealed: FlaskClient) -> None:
    env = new_sealed(sealed)
    k0, k1 = env["seat_keys"]
    probe = {"token": env["token"], "move": {"type": "play", "player": 1, "card": "AH"}}
    assert post(sealed, "check", probe).json["code"] == "seat_key_required"
    assert post(sealed, "check", probe, k0).json["code"] == "bad_seat_key"
    assert post(sealed, "check", probe, k1).json == {"legal": True}


def test_viewing_as_a_seat_needs_its_key(sealed: FlaskClient) -> None:
    env = new_sealed(sealed)
    k0, k1 = env["seat_keys"]
    assert post(sealed, "state", {"token": env["token"]}, None, "?as=0").json["code"] == "seat_key_required"
    assert post(sealed, "state", {"token": env["token"]}, k1, "?as=0").json["code"] == "bad_seat_key"
    assert post(sealed, "state", {"token": env["token"]}, k0, "?as=0").status_code == 200


def test_table_key_acts_and_views_for_any_seat(sealed: FlaskClient) -> None:
    env = new_sealed(sealed)
    t = env["table_key"]
    r = post(sealed, "moves", {"token": env["token"], "move": {"type": "play", "player": 1, "card": "10S"}}, t, "?as=0")
    assert r.status_code == 200 and r.json["state"]["seat"] == 0
    r = post(sealed, "moves", {"token": r.json["token"], "move": {"type": "play", "player": 0, "card": "AS"}}, t)
    assert r.status_code == 200 and r.json["state"]["seat"] is None


def test_plain_state_is_refused_in_sealed_mode(sealed: FlaskClient, client: FlaskClient) -> None:
    st = client.post(f"{BASE}/new", json={"deck": EXAMPLE1_DECK}).json["state"]
    r = post(sealed, "moves", {"state": st, "move": {"type": "play", "player": 1, "card": "10S"}})
    assert r.status_code == 403 and r.json["code"] == "token_required"


def _flip(token: str, i: int) -> str:
    c = token[i]
    return token[:i] + ("A" if c != "A" else "B") + token[i + 1:]


@pytest.mark.parametrize("mangle", [
    lambda t: _flip(t, 10), lambda t: _flip(t, len(t) // 2), lambda t: _flip(t, len(t) - 3),
    lambda t: t[:-10], lambda t: t[: len(t) // 2], lambda t: t[len(t) // 2:] + t[: len(t) // 2],
    lambda t: "x" * 40, lambda t: t + "AAAA", lambda t: "€" + t,
], ids=["flip-head", "flip-middle", "flip-tail", "truncated", "half", "rotated", "junk", "extended", "non-ascii"])
def test_forged_and_truncated_tokens_are_403(sealed: FlaskClient, mangle: Any) -> None:
    env = new_sealed(sealed)
    r = post(sealed, "state", {"token": mangle(env["token"])})
    assert r.status_code == 403 and r.json["code"] == "bad_state_token"


def test_empty_token_is_a_bad_request(sealed: FlaskClient) -> None:
    r = post(sealed, "state", {"token": ""})
    assert r.status_code == 400 and r.json["code"] == "invalid_request"


def test_token_of_another_game_is_refused() -> None:
    sealer = Sealer([KEY_NEW])
    token = sealer.seal("snap", "m1", {"phase": "play"})
    with pytest.raises(BadToken):
        sealer.unseal("schnapsen", token)


def test_token_of_another_game_is_refused_over_http(sealed: FlaskClient) -> None:
    """A genuine token, sealed with the service's own key, but for another game: 403."""
    env = new_sealed(sealed)
    foreign = Sealer([KEY_NEW]).seal("seven_up", "m1", [])
    r = post(sealed, "state", {"token": foreign})
    assert r.status_code == 403 and r.json["code"] == "bad_state_token"
    # and a schnapsen token whose payload is not a packed state is refused the same way
    odd = Sealer([KEY_NEW]).seal("schnapsen", "m1", {"phase": "play"})
    r = post(sealed, "moves", {"token": odd, "move": {"type": "claim", "player": 1}}, env["table_key"])
    assert r.status_code == 403 and r.json["code"] == "bad_state_token"


def test_token_from_other_keys_is_refused(sealed: FlaskClient) -> None:
    other = make_app(SEAL_KEYS=[KEY_OTHER], ALLOW_FIXED_DECKS=True).test_client()
    env = new_sealed(other)
    r = post(sealed, "state", {"token": env["token"]})
    assert r.status_code == 403 and r.json["code"] == "bad_state_token"


def test_rotation_accepts_tokens_and_seat_keys_of_an_older_key(sealed: FlaskClient) -> None:
    """Tokens and seat keys minted under the old key still work once a new key is put first."""
    before = make_app(SEAL_KEYS=[KEY_OLD], ALLOW_FIXED_DECKS=True).test_client()
    env = new_sealed(before)
    k1 = env["seat_keys"][1]
    r = post(sealed, "moves", {"token": env["token"], "move": {"type": "play", "player": 1, "card": "10S"}}, k1)
    assert r.status_code == 200
    # the new token is sealed under the newest key: the old-only instance no longer reads it
    assert post(before, "state", {"token": r.json["token"]}).json["code"] == "bad_state_token"


def test_two_instances_with_the_same_keys_share_a_match(sealed: FlaskClient) -> None:
    twin = make_app(SEAL_KEYS=[KEY_NEW, KEY_OLD], ALLOW_FIXED_DECKS=True).test_client()
    env = new_sealed(sealed, options={"target": 1})
    keys = env["seat_keys"]
    clients = [sealed, twin]
    token, i = env["token"], 0
    while True:
        c = clients[i % 2]
        i += 1
        seat = post(c, "state", {"token": token}).json["to_move"]
        if not seat:
            break
        s = seat[0]
        legal = post(c, "state", {"token": token}, keys[s], f"?as={s}").json["legal_moves"]
        mv = next((m for m in legal if m["type"] == "play"), legal[0])
        r = post(c, "moves", {"token": token, "move": mv}, keys[s])
        assert r.status_code == 200, r.json
        token = r.json["token"]
    final = post(twin, "state", {"token": token}).json
    assert final["status"] == "finished" and final["winner"]


def test_fixed_decks_are_refused_unless_allowed(strict_sealed: FlaskClient) -> None:
    for body in ({"deck": EXAMPLE1_DECK}, {"seed": 3}):
        r = strict_sealed.post(f"{BASE}/new", json=body)
        assert r.status_code == 403 and r.json["code"] == "fixed_deck_forbidden"
    r = strict_sealed.post(f"{BASE}/replay", json={"seed": 1, "moves": []})
    assert r.status_code == 403 and r.json["code"] == "fixed_deck_forbidden"
    env = strict_sealed.post(f"{BASE}/new").json
    assert env["status"] == "in_progress"
    k1 = env["seat_keys"][1]
    r = post(strict_sealed, "moves", {"token": env["token"], "move": {"type": "claim", "player": 1}}, k1)
    assert r.status_code == 200 and r.json["status"] == "deal_over"
    r = post(strict_sealed, "moves", {"token": r.json["token"], "move": {"type": "next_deal", "player": 1, "deck": EXAMPLE1_DECK}}, k1)
    assert r.status_code == 403 and r.json["code"] == "fixed_deck_forbidden"


def test_sealed_views_never_leak_the_opponents_hand(sealed: FlaskClient) -> None:
    env = new_sealed(sealed)
    k1 = env["seat_keys"][1]
    r = post(sealed, "moves", {"token": env["token"], "move": {"type": "play", "player": 1, "card": "10S"}}, k1, "?as=1")
    text = r.get_data(as_text=True)
    for card in ("QC", "JH", "AS", "KH", "KS", "AD", "JS"):  # seat 0's hand and the talon
        assert f'"{card}"' not in text


def test_sealer_unseal_round_trips() -> None:
    sealer = Sealer([Fernet.generate_key().decode()])
    token = sealer.seal("schnapsen", "id-1", {"a": [1, 2]})
    assert sealer.unseal("schnapsen", token) == ("id-1", {"a": [1, 2]})
    assert sealer.identify("id-1", 2, sealer.seat_key("id-1", 1)) == 1
    assert sealer.identify("id-2", 2, sealer.seat_key("id-1", 1)) is None


# The token format itself (format 2 on AES-256-GCM, format 1 still read, canonical spelling,
# every tamper refused): tests/fairplay/test_token_format2.py.
