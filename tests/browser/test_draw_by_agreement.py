"""Russian Bank's draw by agreement (offer_draw, accept_draw, decline_draw), when the service lists
it: buttons in players' words and events as sentences; without it the table is unchanged."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .conftest import Page, needs_browser
from .helpers import start

pytestmark = [pytest.mark.browser, needs_browser]

WORDS = {"offer_draw": "Offer a draw", "accept_draw": "Accept the draw", "decline_draw": "Decline the draw"}


def test_draw_moves_are_buttons_in_words_and_their_events_sentences(page: Page) -> None:
    p = page.open()

    def add_draws(route: Any) -> None:
        # the moves another engineer is adding, appended to the service's own answer
        response = route.fetch()
        env = response.json()
        seat = env["to_move"][0]
        env["legal_moves"] += [{"type": t, "player": seat} for t in WORDS]
        route.fulfill(response=response, body=json.dumps(env))

    start(p, game="russian_bank", seed=7)
    assert p.locator("#moves .move-btn[data-move*='_draw']").count() == 0  # absent: nothing breaks
    p.route("**/v1/games/russian_bank/state*", add_draws)
    p.select_option("#viewer", "0")
    p.wait_for_selector("#moves .move-btn[data-move*='offer_draw']")
    for t, words in WORDS.items():
        assert p.locator(f"#moves .move-btn[data-move*='\"{t}\"']").inner_text() == words
    texts = p.evaluate("""evs => evs.map(e => cardReferee.eventText(e))""",
                       [{"type": "draw_offered", "player": 0}, {"type": "draw_accepted", "player": 1}, {"type": "draw_declined", "player": 1}])
    assert texts == ["Seat 0 offers a draw.", "Seat 1 accepts the draw: the game ends in a draw by agreement.", "Seat 1 declines the draw; play goes on."]
