"""A clock no seat can seize (issue 13, item 7): in sealed mode a flip or claim sent with a seat's
own key is stamped by the service (ms since the match began) and the client's ``at`` is ignored;
claims sent with the table key keep the judges' timestamps.

The attack: one seat flips with ``at`` = 2^53 − 1. Before, every later slap of the others was
``stale_claim`` and their flips ``timestamp_out_of_order``; now both go through.
"""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask

from service.engines.claims import MAX_AT
from tests.fairplay.helpers import new_match, true_state

CLAIM = {"slapjack": "slap", "snap": "snap"}
BATCH = {"slapjack": "slaps", "snap": "snaps"}


def post(client: Any, game: str, endpoint: str, body: dict[str, Any], key: str) -> Any:
    return client.post(f"/v1/games/{game}/{endpoint}", json=body, headers={"X-Seat-Key": key})


@pytest.mark.parametrize("game", ["slapjack", "snap"])
def test_a_future_timestamp_no_longer_freezes_the_others_out(fair_app: Flask, game: str) -> None:
    client = fair_app.test_client()
    env = new_match(client, game)
    keys = env["seat_keys"]
    liar = env["to_move"][0]
    honest = 1 - liar
    r = post(client, game, "moves", {"token": env["token"], "move": {"type": "flip", "player": liar, "at": MAX_AT}}, keys[liar])
    assert r.status_code == 200, r.json
    stamped = true_state(client, game, r.json["token"]).last_flip_at
    assert 0 <= stamped < 60_000  # the service's clock since the match began, not the liar's
    after_flip = r.json["token"]
    # the honest seat's claim, with a silly `at` of its own: judged at the service's time, never stale
    slap = post(client, game, "moves", {"token": after_flip, "move": {"type": CLAIM[game], "player": honest, "at": 0}}, keys[honest])
    assert slap.status_code in (200, 422), slap.json
    if slap.status_code == 422:
        assert slap.json["code"] not in ("stale_claim", "bad_timestamp"), slap.json
    # the honest seat flips in turn (with `at` 1, far before the liar's claimed time): accepted
    flip = post(client, game, "moves", {"token": after_flip, "move": {"type": "flip", "player": honest, "at": 1}}, keys[honest])
    assert flip.status_code == 200, flip.json
    assert true_state(client, game, flip.json["token"]).last_flip_at >= stamped
    # `at` may even be left out: the service stamps it
    nxt = flip.json["to_move"][0]
    again = post(client, game, "moves", {"token": flip.json["token"], "move": {"type": "flip", "player": nxt}}, keys[nxt])
    assert again.status_code == 200
    assert true_state(client, game, again.json["token"]).last_flip_at is not None


@pytest.mark.parametrize("game", ["slapjack", "snap"])
def test_the_table_key_keeps_the_judges_timestamps(fair_app: Flask, game: str) -> None:
    client = fair_app.test_client()
    env = new_match(client, game)
    table = env["table_key"]
    first = env["to_move"][0]
    r = post(client, game, "moves", {"token": env["token"], "move": {"type": "flip", "player": first, "at": 5000}}, table)
    assert r.status_code == 200
    assert true_state(client, game, r.json["token"]).last_flip_at == 5000  # the judges' time, kept
    batch = {"type": BATCH[game], "claims": [{"player": 0, "at": 4000}, {"player": 1, "at": 4999}]}
    stale = post(client, game, "moves", {"token": r.json["token"], "move": batch}, table)
    assert stale.status_code == 422 and stale.json["code"] == "stale_claim"


def test_stamped_times_are_in_the_record(record_app: Flask) -> None:
    """The record holds each move as applied: the service's `at`, not the client's (in the token or beside it)."""
    from flask.testing import FlaskClient

    from tests.fairplay.helpers import play

    plain = FlaskClient(record_app, record_app.response_class)
    env = new_match(plain, "slapjack")
    keys = env["seat_keys"]
    token, seat = env["token"], env["to_move"][0]
    r = post(plain, "slapjack", "moves", {"token": token, "move": {"type": "flip", "player": seat, "at": MAX_AT}}, keys[seat])
    assert r.status_code == 200
    last = r.json
    for _, _, after in play(plain, "slapjack", {**r.json, "table_key": env["table_key"]}, 3, short=True):
        last = after
    assert last["status"] == "finished"
    first_move = last["record"]["moves"][0]
    assert first_move["type"] == "flip" and first_move["at"] < 60_000
