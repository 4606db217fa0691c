"""Token format 2 on AES-256-GCM (issue 24, item 1), over HTTP against openapi.yaml.

Every byte of a format-2 token is authenticated: the header (format, key id) and the game are the
associated data, so a changed header byte, key id, salt, nonce, ciphertext or tag, a truncated or
extended token, and a token sent to another game's endpoint are each 403 ``bad_state_token``. The
key id picks the key: a token of a key listed second opens, and once that key is removed it is
refused cleanly. Format-1 tokens (Fernet, written here with ``cryptography.fernet``, as the service
wrote them before) are still read, with the seat keys their match was given, and the match plays
on in format 2 to a record that adjudicates.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Any

import orjson
import pybase64
import pytest
from cryptography.fernet import Fernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from flask import Flask
from flask.testing import FlaskClient

from service.referee import pad_target
from service.sealing import PURPOSES, BadToken, Sealer, _decode, derive_key
from tests.conftest import KEY_NEW, KEY_OLD, KEY_OTHER, make_app
from tests.fairplay.helpers import SHORT, new_match, play

GAME = "schnapsen"


def _raw(key: str) -> bytes:
    return base64.urlsafe_b64decode(key)


def _b64(raw: bytes) -> str:
    return pybase64.urlsafe_b64encode(raw).decode("ascii")


def legacy_seat_key(key: str, match_id: str, who: int | str) -> str:
    """A seat key as the service derived it before format 2 (and still does for a format-1 match)."""
    mac_key = hashlib.sha256(b"card-referee seat key\x00" + _raw(key)).digest()
    digest = hmac.new(mac_key, f"{match_id}:{who}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def format1_token(app: Flask, game: str, token: str, key: str = KEY_NEW) -> str:
    """``token``'s match and state written as a format-1 (Fernet) token under ``key``, as the
    service sealed them before format 2: head with ``v`` and ``game``, the moves, space padding."""
    sealer: Sealer = app.extensions["referee.sealer"]
    match, packed = sealer.open(game, token)
    head: dict[str, Any] = {"v": 2, "game": game, "id": match.match_id, "secret": match.secret.hex(), "t0": match.t0,
                            "setup": match.setup, "state": packed}
    if match.epoch is not None:
        head["epoch"] = match.epoch
    data = orjson.dumps(head) + b"\n" + match.moves.encode()
    data += b" " * max(0, pad_target(game, 2, 0) - len(data))
    return Fernet(key).encrypt(data).decode("ascii")


def state(client: FlaskClient, token: str, game: str = GAME, key: str | None = None) -> Any:
    """``state`` of ``token``; with a ``key``, as seat 0 (which that key must authorize)."""
    query = "?as=0" if key else ""
    return client.post(f"/v1/games/{game}/state{query}", json={"token": token}, headers={"X-Seat-Key": key} if key else {})


# --- format 1 is still read ---------------------------------------------------------------------


def test_a_format1_match_plays_on_in_format2_with_its_seat_keys(fair_app: Flask) -> None:
    _format1_match_plays_on(fair_app)


def test_a_format1_match_plays_on_with_a_ledger(ledger_app: Flask) -> None:
    _format1_match_plays_on(ledger_app)


def _format1_match_plays_on(app: Flask) -> None:
    client = app.test_client()
    fresh = new_match(client, GAME, None, SHORT[GAME])
    token = format1_token(app, GAME, fresh["token"])
    assert token.startswith("gAAAAA")  # a Fernet token
    match_id = app.extensions["referee.sealer"].unseal(GAME, token)[0]
    table = legacy_seat_key(KEY_NEW, match_id, "table")
    r = state(client, token, key=legacy_seat_key(KEY_NEW, match_id, 0))
    assert r.status_code == 200 and r.json["token"].startswith("crf2")
    # the keys the match was given under format 1 act; the format-2 derivation's do not, for this match
    assert state(client, token, key=fresh["table_key"]).json["code"] == "bad_seat_key"
    env = {**r.json, "table_key": table}
    env["token"] = token
    tokens = []
    for _, _, after in play(client, GAME, env, seed=5, short=True):
        tokens.append(after["token"])
        env = after
    assert env["status"] == "finished" and tokens
    assert all(t.startswith("crf2") for t in tokens)  # every later token is format 2 ...
    legacy_later = client.post(f"/v1/games/{GAME}/state?as=1", json={"token": tokens[-1]},
                               headers={"X-Seat-Key": legacy_seat_key(KEY_NEW, match_id, 1)})
    assert legacy_later.status_code == 200  # ... and still takes the match's format-1 seat keys
    verdict = client.post(f"/v1/games/{GAME}/replay", json={"record": env["record"]})
    assert verdict.status_code == 200 and verdict.json["result_matches"] is True and verdict.json["first_illegal"] is None


def test_format1_tokens_open_under_any_listed_key_and_only_those(fair_app: Flask) -> None:
    client = fair_app.test_client()
    env = new_match(client, GAME)
    for key in (KEY_NEW, KEY_OLD):
        assert state(client, format1_token(fair_app, GAME, env["token"], key)).status_code == 200
    r = state(client, format1_token(fair_app, GAME, env["token"], KEY_OTHER))
    assert r.status_code == 403 and r.json["code"] == "bad_state_token"
    seven = new_match(client, "seven_up")
    r = state(client, format1_token(fair_app, "seven_up", seven["token"]))  # its head names seven_up
    assert r.status_code == 403 and r.json["code"] == "bad_state_token"


# --- every format-2 tamper is bad_state_token -------------------------------------------------------

HEADER, SALT, NONCE, TAG = 6, 12, 12, 16
BODY = HEADER + SALT + NONCE


def _flip(raw: bytes, i: int) -> bytes:
    return raw[:i] + bytes((raw[i] ^ 0x01,)) + raw[i + 1:]


TAMPERS: dict[str, Any] = {
    "format byte": lambda raw: _flip(raw, 0),
    "format version": lambda raw: _flip(raw, 2),  # "crf3": a format this service does not know
    "key id": lambda raw: _flip(raw, 4),
    "salt": lambda raw: _flip(raw, HEADER + 3),
    "nonce": lambda raw: _flip(raw, HEADER + SALT + 5),
    "ciphertext first byte": lambda raw: _flip(raw, BODY),
    "ciphertext middle": lambda raw: _flip(raw, (BODY + len(raw)) // 2),
    "tag": lambda raw: _flip(raw, len(raw) - 1),
    "tag removed": lambda raw: raw[:-TAG],
    "truncated by one": lambda raw: raw[:-1],
    "header and nonces only": lambda raw: raw[:BODY],
    "header only": lambda raw: raw[:HEADER],
    "extended": lambda raw: raw + b"\x00",
    "another key's id": lambda raw: raw[:3] + derive_key(_raw(KEY_OLD), "key id", 3) + raw[HEADER:],
    "format 1 byte": lambda raw: b"\x80" + raw[1:],
}


@pytest.mark.parametrize("tamper", sorted(TAMPERS))
def test_every_format2_tamper_is_bad_state_token(tamper: str, fair_app: Flask) -> None:
    client = fair_app.test_client()
    env = new_match(client, GAME)
    raw = pybase64.urlsafe_b64decode(env["token"])
    assert _b64(raw) == env["token"] and state(client, _b64(raw)).status_code == 200  # the re-spelling itself is sound
    forged = _b64(TAMPERS[tamper](raw))  # canonical base64: only the cipher can catch it
    assert forged != env["token"]
    for op, body in (("state", {"token": forged}),
                     ("moves", {"token": forged, "move": {"type": "claim", "player": 1}}),
                     ("check", {"token": forged, "move": {"type": "claim", "player": 1}})):
        r = client.post(f"/v1/games/{GAME}/{op}", json=body, headers={"X-Seat-Key": env["table_key"]})
        assert r.status_code == 403 and r.json["code"] == "bad_state_token", (tamper, op, r.json)


@pytest.mark.parametrize("other", ["seven_up", "california_jack", "snap"])
def test_a_token_sent_to_another_games_endpoint_is_bad_state_token(other: str, fair_app: Flask) -> None:
    """The game is associated data: a genuine token of one game fails authentication at another's."""
    client = fair_app.test_client()
    env = new_match(client, GAME)
    r = state(client, env["token"], game=other)
    assert r.status_code == 403 and r.json["code"] == "bad_state_token"
    sealer: Sealer = fair_app.extensions["referee.sealer"]
    with pytest.raises(BadToken):
        sealer.open(other, env["token"])
    assert sealer.open(GAME, env["token"])[0].match_id  # and at its own endpoint it opens


# --- key ids and rotation -------------------------------------------------------------------


def test_the_key_id_picks_the_key_and_a_removed_key_fails_cleanly(fair_app: Flask) -> None:
    before = make_app(SEAL_KEYS=[KEY_OLD])  # the old key alone
    after = make_app(SEAL_KEYS=[KEY_NEW])  # the old key removed
    rotating = fair_app.test_client()  # KEY_NEW first, KEY_OLD second
    env = new_match(before.test_client(), GAME)
    old_id, new_id = (_b64(b"\x72\xb7\xf6" + derive_key(_raw(k), "key id", 3))[4:8] for k in (KEY_OLD, KEY_NEW))
    assert env["token"][:8] == "crf2" + old_id  # readable: format 2, then the key id
    r = state(rotating, env["token"], key=env["table_key"])
    assert r.status_code == 200 and r.json["token"][:8] == "crf2" + new_id  # answered under the newest key
    legal = rotating.post(f"/v1/games/{GAME}/state?as=1", json={"token": env["token"]}, headers={"X-Seat-Key": env["table_key"]}).json
    move = legal["legal_moves"][0]
    moved = rotating.post(f"/v1/games/{GAME}/moves", json={"token": env["token"], "move": move}, headers={"X-Seat-Key": env["table_key"]})
    assert moved.status_code == 200 and moved.json["token"][:8] == "crf2" + new_id
    gone = state(after.test_client(), env["token"])
    assert gone.status_code == 403 and gone.json["code"] == "bad_state_token"
    assert state(after.test_client(), moved.json["token"]).status_code == 200  # the match lives on under the new key


def test_two_keys_with_one_key_id_are_refused() -> None:
    with pytest.raises(ValueError, match="key id"):
        Sealer([KEY_NEW, KEY_NEW])


# --- the cipher's inputs ----------------------------------------------------------------------


def test_no_two_tokens_share_a_salt_and_nonce() -> None:
    sealer = Sealer([KEY_NEW])
    seen = set()
    for _ in range(2000):
        raw = pybase64.urlsafe_b64decode(sealer.seal(GAME, "m", {"same": "content"}))
        assert raw[:HEADER] == b"\x72\xb7\xf6" + derive_key(_raw(KEY_NEW), "key id", 3)
        seen.add(raw[HEADER:BODY])
    assert len(seen) == 2000


def _reference_message_key(token_key: bytes, salt: bytes) -> AESGCM:
    """A token's message key as the format defines it, by ``cryptography``'s own HKDF."""
    return AESGCM(HKDF(algorithm=hashes.SHA256(), length=32, salt=salt, info=b"card-referee token v2 message key").derive(token_key))


def test_tokens_are_the_formats_under_a_reference_hkdf() -> None:
    """The sealer's message keys (HKDF written out as two HMACs) are the format's: every token it
    writes opens with the key ``cryptography``'s HKDF derives, and a token written with that key
    opens in the sealer, over many salts."""
    sealer = Sealer([KEY_NEW])
    token_key = derive_key(_raw(KEY_NEW), "token")
    header = b"\x72\xb7\xf6" + derive_key(_raw(KEY_NEW), "key id", 3)
    for i in range(300):
        raw = pybase64.urlsafe_b64decode(sealer._encrypt(GAME, b"plain %d" % i))
        salt, nonce = raw[HEADER : HEADER + 12], raw[HEADER + 12 : BODY]
        assert _reference_message_key(token_key, salt).decrypt(nonce, raw[BODY:], header + GAME.encode()) == b"plain %d" % i
        salt, nonce = bytes([i % 256]) * 12, bytes([(i * 7) % 256]) * 12
        sealed = _reference_message_key(token_key, salt).encrypt(nonce, b"theirs %d" % i, header + GAME.encode())
        assert sealer._decrypt(GAME, header + salt + nonce + sealed) == b"theirs %d" % i


def test_seat_keys_are_hmacs_of_the_match_and_seat() -> None:
    """A seat key is base64url(HMAC-SHA256(seat-keys key, "<match id>:<seat>")), unpadded, and
    ``identify`` finds the seat (or the table) from it."""
    sealer = Sealer([KEY_OLD, KEY_NEW])
    for match_id in ("m", "a" * 22, "é-match"):
        for who in ("table", 0, 1, 5):
            mac = hmac.new(derive_key(_raw(KEY_OLD), "seat keys"), f"{match_id}:{who}".encode(), hashlib.sha256).digest()
            expected = base64.urlsafe_b64encode(mac).rstrip(b"=").decode("ascii")
            assert sealer.seat_key(match_id, who) == expected
            assert sealer.identify(match_id, 6, expected) == who
            assert sealer.seat_key(match_id, who, legacy=True) == legacy_seat_key(KEY_OLD, match_id, who)
    other = Sealer([KEY_NEW]).seat_key("m", 0)
    assert sealer.identify("m", 2, other) == 0  # a key listed second still identifies
    assert Sealer([KEY_OTHER]).identify("m", 2, other) is None


def test_per_purpose_keys_are_distinct_and_the_signing_key_is_unchanged() -> None:
    raw = _raw(KEY_NEW)
    keys = {purpose: derive_key(raw, purpose) for purpose in PURPOSES}
    assert len(set(keys.values())) == len(PURPOSES) and raw not in keys.values()
    # the signing key's label is the one records were signed under before format 2: published keys stay
    before = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=b"card-referee record signing key v1").derive(raw)
    assert keys["signing"] == before


def test_only_canonical_base64_is_read() -> None:
    """One sealed token has one spelling: stray characters, text after the padding, set unused
    bits and the standard alphabet are refused, though a lax decoder would read the same bytes;
    so for a format-1 token, which ``cryptography.fernet`` would decode laxly."""
    sealer = Sealer([KEY_NEW])
    format2 = sealer._encrypt(GAME, b"x")  # 47 bytes: the text ends in one "="
    format1 = Fernet(KEY_NEW).encrypt(b"the state" * 3).decode()  # 57 + 32 bytes: one "=" too
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    for token in (format2, format1):
        assert token.endswith("=") and not token.endswith("==") and _decode(token) == pybase64.urlsafe_b64decode(token)
        last = token[-2]
        low_bit = alphabet[alphabet.index(last) ^ 1]  # the same 4 data bits, one unused bit set
        spellings = [
            token[:-2] + low_bit + "=",
            token[:10] + "\n" + token[10:],
            token + "AAAA",
            token[:-1],
            token + "=",
            token.replace("-", "+").replace("_", "/") if ("-" in token or "_" in token) else "+" + token[1:],
        ]
        for spelling in spellings:
            assert spelling != token
            with pytest.raises(BadToken):
                _decode(spelling)
            with pytest.raises(BadToken):
                sealer.open(GAME, spelling)
