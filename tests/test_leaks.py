"""The hidden-card scan of tests/leaks.py can fail, and it does run on the suite's responses."""

from __future__ import annotations

import copy

from flask.testing import FlaskClient

from tests import leaks
from tests.conftest import EXAMPLE1_DECK


def test_the_scan_runs_on_sealed_and_seat_view_responses(sealed: FlaskClient, client: FlaskClient) -> None:
    before = leaks.scanned_responses
    env = sealed.post("/v1/games/schnapsen/new", json={"deck": EXAMPLE1_DECK}).json
    sealed.post("/v1/games/schnapsen/state?as=0", json={"token": env["token"]}, headers={"X-Seat-Key": env["seat_keys"][0]})
    open_env = client.post("/v1/games/schnapsen/new", json={"deck": EXAMPLE1_DECK}).json
    client.post("/v1/games/schnapsen/state?as=1", json={"state": open_env["state"]})
    assert leaks.scanned_responses >= before + 3


def test_the_scan_finds_an_opponents_card_put_into_a_view(sealed: FlaskClient) -> None:
    env = sealed.post("/v1/games/schnapsen/new", json={"deck": EXAMPLE1_DECK}).json
    r = sealed.post("/v1/games/schnapsen/state?as=0", json={"token": env["token"]}, headers={"X-Seat-Key": env["seat_keys"][0]})
    body = copy.deepcopy(r.json)
    assert leaks.hidden_cards_shown(sealed.application, "/v1/games/schnapsen/state", "0", {"token": env["token"]}, body) == set()
    opponent_card = "AH"  # in seat 1's hand in Example 1's deal (seat 0 holds QC JH AS KH KS)
    body["events"] = [{"type": "note", "card": opponent_card}]
    assert leaks.hidden_cards_shown(sealed.application, "/v1/games/schnapsen/state", "0", {"token": env["token"]}, body) == {opponent_card}
