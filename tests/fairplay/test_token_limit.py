"""The service never hands out a token it would refuse (issue 21, items 8 and 9).

A Snap match with a stall limit too high to end it is flipped, move after move, up to the real
limit (``MAX_TOKEN_CHARS``, 524,288 characters): every token handed out fits, the move that would
cross the limit is 422 ``token_too_large``, and the token sent stays current (with a ledger: the
same move is refused again the same way, not as superseded; ``state`` and ``check`` still answer).
The length the sealer predicts is the length it writes, byte for byte. With the record in the ledger
(issue 24, item 2) a Snap token stays the same size from move 10 to move 400 and far past the move
where a self-contained token reaches the limit (the limit test plays a match whose token carries its
record, as every match did before, with the ledger on). A token sealed with the
service's keys (a host tool could) whose ``seq`` no token can have (2^70) is a clean 403
``bad_state_token``, not a 500 in the padding code.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import secrets
from pathlib import Path
from typing import Any

import orjson
import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.cards.shuffle import deal_deck
from service.engines import ENGINES
from service.referee import pad_target
from service.schemas import SCHEMAS
from service.sealing import MAX_TOKEN_CHARS, Sealer, TokenTooLarge, token_chars
from tests.conftest import KEY_NEW, make_app


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Flask:
    return make_app(SEAL_KEYS=[KEY_NEW], LEDGER_URL=f"sqlite:///{tmp_path_factory.mktemp('ledger') / 'l.db'}")


def test_predicted_token_length_is_the_written_one() -> None:
    sealer = Sealer([base64.urlsafe_b64encode(os.urandom(32)).decode()])
    for n in [*range(70), 1000, 1023, 1024, 1025, 393_000, 393_215, 393_216]:
        assert len(sealer._encrypt("snap", b" " * n)) == token_chars(n), n
    biggest = max(n for n in range(393_000, 393_300) if token_chars(n) <= MAX_TOKEN_CHARS)
    assert token_chars(biggest) <= MAX_TOKEN_CHARS < token_chars(biggest + 1)


def test_the_sealer_refuses_to_make_a_token_over_the_limit() -> None:
    sealer = Sealer([KEY_NEW])
    with pytest.raises(TokenTooLarge):
        sealer.seal("snap", "m", {"x": "y" * MAX_TOKEN_CHARS})
    with pytest.raises(TokenTooLarge):
        sealer.seal("snap", "m", {}, pad_to=2**70)  # refused before any padding is allocated
    assert len(sealer.seal("snap", "m", {}, pad_to=390_000)) <= MAX_TOKEN_CHARS


def _record_in_token(app: Flask, game: str, token: str) -> str:
    """``token`` as it was sealed before the record moved beside it: the moves in the token, no chain."""
    sealer = app.extensions["referee.sealer"]
    match, packed = sealer.open(game, token)
    assert match.record_in_ledger
    return sealer.seal(game, match.match_id, packed, dataclasses.replace(match, chain=None, count=0))  # type: ignore[no-any-return]


def _flips(plain: FlaskClient, env: dict[str, Any], at: int) -> dict[str, Any]:
    move = {"type": "flip", "player": env["to_move"][0], "at": at}
    return {"token": env["token"], "move": move}


def test_a_snap_match_flipped_to_the_token_limit(app: Flask) -> None:
    plain = FlaskClient(app, app.response_class)  # speed: thousands of moves; the refusal goes through the contract client
    r = plain.post("/v1/games/snap/new", json={"options": {"stall_limit": 1_000_000}})
    assert r.status_code == 201
    env = {**r.json, "token": _record_in_token(app, "snap", r.json["token"])}
    headers = {"X-Seat-Key": env["table_key"]}
    at, longest, moves = 0, 0, 0
    refused = None
    for _ in range(6000):
        at += 5
        move = {"type": "flip", "player": env["to_move"][0], "at": at}
        r = plain.post("/v1/games/snap/moves", data=orjson.dumps({"token": env["token"], "move": move}),
                       content_type="application/json", headers=headers)
        if r.status_code != 200:
            refused = (r, move)
            break
        env = r.json
        assert env["status"] == "in_progress"
        longest = max(longest, len(env["token"]))
        assert longest <= MAX_TOKEN_CHARS, f"move {moves + 1} handed out a token of {longest} characters"
        moves += 1
    assert refused is not None, "the match never reached the limit"
    r, move = refused
    assert r.status_code == 422 and r.json["code"] == "token_too_large", r.json
    step = token_chars(2048) - token_chars(1024)  # a token grows by whole padding steps (1 KiB of plaintext)
    assert moves > 3500 and longest > MAX_TOKEN_CHARS - step  # the real limit, within one step
    contract = app.test_client()
    again = contract.post("/v1/games/snap/moves", json={"token": env["token"], "move": move}, headers=headers)
    assert again.status_code == 422 and again.json["code"] == "token_too_large"  # the ledger did not move: not superseded
    state = contract.post("/v1/games/snap/state", json={"token": env["token"]})
    assert state.status_code == 200 and state.json["state"]["seq"] == moves
    check = contract.post("/v1/games/snap/check", json={"token": env["token"], "move": move}, headers=headers)
    assert check.status_code == 200 and check.json == {"legal": True}


def test_with_the_record_in_the_ledger_a_snap_token_does_not_grow(app: Flask) -> None:
    plain = FlaskClient(app, app.response_class)
    r = plain.post("/v1/games/snap/new", json={"options": {"stall_limit": 1_000_000}})
    env = r.json
    headers = {"X-Seat-Key": env["table_key"]}
    lengths = {0: len(env["token"])}
    for n in range(1, 4001):
        r = plain.post("/v1/games/snap/moves", data=orjson.dumps(_flips(plain, env, 5 * n)), content_type="application/json", headers=headers)
        assert r.status_code == 200, (n, r.json)
        env = r.json
        lengths[n] = len(env["token"])
    assert lengths[400] == lengths[10] == lengths[0] < 6000  # the padded size of the state and the chain
    assert all(length == token_chars(pad_target("snap", 2, n, record_in_token=False)) for n, length in lengths.items())
    assert lengths[4000] < 12_000  # past the move where a self-contained token reaches the limit


def _forged(app: Flask, game: str, seq: int) -> str:
    """A token sealed with the app's own keys, as a host tool holding them could, at ``seq``."""
    engine, codec = ENGINES[game], SCHEMAS[game]
    options = engine.Options()
    state = engine.new_game(options, 2, deal_deck(engine.pack(options, 2), 1), 1)
    a, b = codec.pack(state._replace(seq=11))["s"], codec.pack(state._replace(seq=12))["s"]
    where = next(i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y)
    packed = codec.pack(state)
    packed["s"][where] = seq
    head = {"id": secrets.token_urlsafe(16), "secret": "00" * 32, "t0": 0, "setup": None, "state": packed}
    sealer = app.extensions["referee.sealer"]
    return sealer._encrypt(game, json.dumps(head).encode() + b"\n")  # type: ignore[no-any-return]


@pytest.mark.parametrize("seq", [2**70, 2**64, -1])
def test_a_sealed_seq_no_token_can_have_is_bad_state_token(seq: int, tmp_path: Path) -> None:
    app = make_app(SEAL_KEYS=[KEY_NEW])
    client = app.test_client()
    token = _forged(app, "schnapsen", seq)
    for op, body in (("state", {"token": token}), ("moves", {"token": token, "move": {"type": "claim", "player": 1}})):
        r = client.post(f"/v1/games/schnapsen/{op}", json=body)
        assert r.status_code == 403 and r.json["code"] == "bad_state_token", (op, r.json)
    fine = client.post("/v1/games/schnapsen/state", json={"token": _forged(app, "schnapsen", 12)})
    assert fine.status_code == 200  # a plausible seq from the same tool is served


def test_the_largest_plausible_seq_still_answers() -> None:
    """The guard is the padding's own bound: the last ``seq`` whose padded token fits is served."""
    app = make_app(SEAL_KEYS=[KEY_NEW])
    seq = 0
    while token_chars(pad_target("schnapsen", 2, seq + 1)) <= MAX_TOKEN_CHARS:
        seq += 1
    client = app.test_client()
    r = client.post("/v1/games/schnapsen/state", json={"token": _forged(app, "schnapsen", seq)})
    assert r.status_code == 200, r.json
    assert len(r.json["token"]) <= MAX_TOKEN_CHARS
    r = client.post("/v1/games/schnapsen/state", json={"token": _forged(app, "schnapsen", seq + 1)})
    assert r.status_code == 403 and r.json["code"] == "bad_state_token"
