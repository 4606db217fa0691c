"""Hot-seat holds on one device: while the game goes on, nothing the page offers lets the seat
holding the device learn another seat's hidden cards (not the log, the desk tab, the game link, a
second tab of the page, the titles), and the seed that deals every hand appears once it is over.

Each test here fails on the page before hot-seat was made to hold across tabs and links.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from .conftest import Page, needs_browser
from .helpers import cards_named, http, play_any, start, take_device

pytestmark = [pytest.mark.browser, needs_browser]


def _stored(p: Any) -> dict[str, Any]:
    """The game this device keeps, as the browser's developer tools show it (what hot-seat cannot hide)."""
    return json.loads(p.evaluate("localStorage.getItem('card-referee.table.v1')"))


def _hidden_hand(base: str, game: dict[str, Any], holder: int) -> set[str]:
    """Every card hidden from ``holder`` now: the other seats' hands, the talon, from the full state."""
    status, env = http(base, "POST", "/v1/games/schnapsen/state", {"state": game["full"]})
    assert status == 200, env
    status, view = http(base, "POST", f"/v1/games/schnapsen/state?as={holder}", {"state": game["full"]})
    assert status == 200, view
    from .helpers import cards_in
    return cards_in(env["state"]) - cards_in(view["state"])


def _leaks(p: Any, base: str, holder: int) -> list[str]:
    """What the page shows that the seat holding the device may not know: another seat's hidden card
    (anywhere in the page: text, attributes, titles, the raw view) or the seed of the deal."""
    game = _stored(p)
    seed = str(game["request"]["seed"])
    found = []
    hidden = _hidden_hand(base, game, holder) & cards_named(p)
    if hidden:
        found.append(f"cards {sorted(hidden)}")
    html = p.content() + " " + p.title() + " " + p.url
    if re.search(rf"(?<!\d){seed}(?!\d)", html) or seed in p.evaluate("[...document.querySelectorAll('input, textarea')].map(i => i.value).join(' ')"):
        found.append(f"the seed {seed}")
    return found


def test_no_way_the_page_offers_shows_another_seats_cards_during_hot_seat(page: Page) -> None:
    """Regression: the log named the deal's seed, so the desk tab replayed {"seed": …, "moves": []}
    into every hand; a link made before hot-seat, opened in a second tab, gave the full view."""
    p = page.open()
    start(p, game="schnapsen")  # the page picks the seed (open mode)
    seed = _stored(p)["request"]["seed"]
    assert f"seed {seed}" in p.inner_text("#log")  # without hot-seat the log names it
    p.click("#link")  # a link made before hot-seat: it carries the full state
    link = p.get_attribute("#game-link", "href")
    p.click("#tab-desk")
    p.click("#tab-table")
    p.check("#follow")
    take_device(p)
    holder = _stored(p)["revealed"]
    assert _leaks(p, page.base, holder) == []
    assert "#game=" not in p.url
    # the desk tab: the seed from the browser's storage (developer tools) is not judged meanwhile
    p.click("#tab-desk")
    assert _leaks(p, page.base, holder) == []
    p.select_option("#desk-game", "schnapsen")
    p.fill("#desk-body", json.dumps({"players": 2, "seed": seed, "moves": []}))
    p.click("#desk-run")
    problem = p.locator("#desk-problem[data-held='1']")
    problem.wait_for()
    assert "hot-seat" in problem.inner_text() and p.locator("#desk-result").is_hidden()
    p.fill("#desk-body", "")
    p.click("#tab-table")
    # a second tab of the page, then the old link in a third: hot-seat holds in both
    for where in (f"{page.base}/play", link):
        other = page.context.new_page()
        other.goto(where)
        other.wait_for_selector("body[data-ready='1']")
        other.wait_for_selector("#pass-screen:not([hidden]), #me .seat .tag.you")
        assert other.is_checked("#follow")
        assert other.locator("#viewer option[value='']").is_disabled()
        assert _leaks(other, page.base, holder) == [], where
        if where == link:
            assert "hot-seat" in other.inner_text("#problem")
        # turning hot-seat off in one tab is written in the log every tab shows, and kept
        if where == link:
            other.uncheck("#follow")
            p.locator("#log li.note-entry").wait_for()
            assert "Hot-seat turned off" in p.inner_text("#log")
            take_device(p) if p.locator("#pass-screen").is_visible() else None
            play_any(p)  # a move in the first tab keeps the note
            assert any(e.get("kind") == "note" for e in _stored(p)["log"])
        other.close()


def test_the_seed_appears_once_the_hot_seat_game_is_over(page: Page) -> None:
    p = page.open()
    p.select_option("#game", "schnapsen")
    p.fill("#options [data-option='target']", "1")  # the match ends with this deal
    p.click("#start")
    p.wait_for_selector("body[data-games='1']")
    p.check("#follow")
    seed = str(_stored(p)["request"]["seed"])
    for _ in range(80):
        if "finished" in p.inner_text("#status-line"):
            break
        take_device(p)
        assert seed not in p.inner_text("#log")
        play_any(p)
    assert "finished" in p.inner_text("#status-line")
    take_device(p)
    assert f"seed {seed}" in p.inner_text("#log")
