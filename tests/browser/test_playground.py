"""The playground at /play, in headless Chromium: a person plays and judges by clicking.

Every test runs against the app served on 127.0.0.1 and checks (in the ``page`` fixture) that the
page made no request outside the service. The screenshots of docs/playground.md are taken here.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from service import create_app

from .conftest import SCREENSHOTS, Page, needs_browser

pytestmark = [pytest.mark.browser, needs_browser]

# schnapsen.md §10 Example 5 (tests/scenarios/schnapsen/07_played_to_the_end.yaml): a deal played
# to the last trick; seat 0 wins it 59-61 on card points but takes the last trick → 1 game point.
DECK5 = ["AS", "JC", "JH", "JS", "QD", "10D", "10S", "QS", "QC", "AH",
         "JD", "KH", "10H", "KD", "KS", "QH", "10C", "AC", "KC", "AD"]
PLAYS5 = [(1, "QS"), (0, "JD"), (1, "QC"), (0, "AH"), (1, "KD"), (0, "KS"), (0, "QD"), (1, "JC"),
          (0, "AC"), (1, "10C"), (0, "AD"), (1, "AS"), (1, "JH"), (0, "QH"), (0, "10D"), (1, "10S"),
          (1, "KH"), (0, "10H"), (0, "JS"), (1, "KC")]
HANDS5 = (["JS", "QD", "10D", "AH", "JD"], ["AS", "JC", "JH", "QS", "QC"])
MUST_TRUMP_AT = 11  # after seat 0 leads AD (trump 10S, seat 1 holds no diamond), KH is refused


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as _expect  # imported late: the tests skip without playwright

    return _expect(locator)


def shoot(page: Any, name: str) -> None:
    """A screenshot for docs/playground.md, steady from run to run (no hover, no transition)."""
    page.mouse.move(0, 0)
    page.screenshot(path=str(SCREENSHOTS / name), full_page=True, animations="disabled", caret="hide")


def _games() -> list[str]:
    """The live catalogue, so that every game merged later is covered without new test code."""
    client = create_app({"SEAL_KEYS": [], "TESTING": True}).test_client()
    return [g["id"] for g in client.get("/v1/games").get_json()["games"]]


def start(page: Any, game: str = "schnapsen", deck: list[str] | None = None, follow: bool = False) -> None:
    page.select_option("#game", game)
    if deck is not None:
        page.click("#fixed summary")
        page.fill("#deck", " ".join(deck))
    page.click("#start")
    page.wait_for_selector("#status-line [data-seq='0']")
    if follow:
        if not page.is_checked("#follow"):
            page.check("#follow")
        page.wait_for_selector(".seat.on-turn .tag.you")


def seq(page: Any) -> int:
    return int(page.get_attribute("#status-line [data-seq]", "data-seq"))


def click_card(page: Any, seat: int, card: str) -> None:
    """Click ``card`` in ``seat``'s panel; it must be offered as legal, and the move must land."""
    before = seq(page)
    page.click(f".seat[data-seat='{seat}'] .card.playable[data-card='{card}']")
    page.wait_for_selector(f"#status-line [data-seq='{before + 1}']")


def scores_row(page: Any, name: str = "totals") -> list[str]:
    return [t.strip() for t in page.locator(f"#scores tr[data-score='{name}'] td").all_inner_texts()]


def test_play_a_whole_schnapsen_deal_by_clicking(page: Page) -> None:
    """Example 5 from its fixed deck, every card played by a click in the view of the seat to move."""
    p = page.open()
    start(p, deck=DECK5, follow=True)
    assert p.locator(".seat[data-seat='1'] .tag.you").count() == 1  # followed to the seat to move
    for seat, card in PLAYS5:
        click_card(p, seat, card)
        assert p.locator(".seat .tag.you").count() == 1
    status = p.inner_text("#status-line")
    assert "deal over" in status and "seq 20" in status
    assert scores_row(p) == ["1", "0"]
    assert scores_row(p, "tricks_won") == ["6", "4"]
    assert scores_row(p, "points") == ["59", "61"]
    # the log holds the deal and every move with its events, newest first
    log = p.locator("#log > li")
    assert log.count() == 21
    assert "deal over" in log.first.inner_text() and "trick won" in log.first.inner_text()
    assert p.locator("#moves .move-btn").all_inner_texts() == ["next deal"]
    # each entry is what the acting seat was told: after trick 1 seat 0 (who played JD) sees its
    # own draw (10H) and not seat 1's (KH)
    entry = p.locator("#log > li[data-seq='2']")
    assert entry.get_attribute("data-viewer") == "0" and "as seat 0 saw it" in entry.inner_text()
    assert entry.locator(".event[data-event='card_drawn']").count() == 2
    assert entry.locator("[data-card='10H']").count() == 1 and entry.locator("[data-card='KH']").count() == 0


def test_switching_seats_shows_the_other_hand_as_backs(page: Page) -> None:
    p = page.open()
    start(p, deck=DECK5)
    for me, other in ((0, 1), (1, 0)):
        p.select_option("#viewer", str(me))
        p.wait_for_selector(f".seat[data-seat='{me}'] .tag.you")
        mine = p.locator(f".seat[data-seat='{me}'] .hand .card")
        theirs = p.locator(f".seat[data-seat='{other}'] .hand .card")
        assert mine.count() == 5 and p.locator(f".seat[data-seat='{me}'] .hand .card.face").count() == 5
        assert theirs.count() == 5
        assert p.locator(f".seat[data-seat='{other}'] .hand .card.back").count() == 5
        assert p.locator(f".seat[data-seat='{other}'] .hand .card.face").count() == 0
        for card in HANDS5[other]:  # the other seat's cards appear nowhere on the page
            assert p.locator(f"#seats [data-card='{card}'], #table [data-card='{card}']").count() == 0
    # the table view (open mode) shows every hand face up
    p.select_option("#viewer", "")
    p.wait_for_selector(".seat .tag.you", state="detached")
    assert p.locator("#seats .hand .card.face").count() == 10


def test_a_refused_move_shows_its_code_detail_and_rule(page: Page) -> None:
    p = page.open()
    start(p, deck=DECK5, follow=True)
    for seat, card in PLAYS5[:MUST_TRUMP_AT]:
        click_card(p, seat, card)
    # seat 1 holds no diamond and must trump: KH is in the hand but not offered
    kh = p.locator(".seat[data-seat='1'] .hand .card[data-card='KH']")
    assert "playable" not in (kh.get_attribute("class") or "")
    before = seq(p)
    kh.click()
    problem = p.locator("#problem")
    problem.wait_for(state="visible")
    text = problem.inner_text()
    assert "must_trump" in text and "Rule: schnapsen §" in text and "play KH" in text
    assert re.search(r"trump", text.split("must_trump", 1)[1], re.IGNORECASE)  # the detail says why
    assert seq(p) == before  # nothing applied
    assert "refused: must_trump" in p.locator("#log > li").first.inner_text()
    shoot(p, "table.png")
    # a legal card clears the error
    click_card(p, 1, "AS")
    assert p.locator("#problem").is_hidden()


def _example5_log(illegal_at: int) -> dict[str, Any]:
    moves = [{"type": "play", "player": s, "card": c} for s, c in PLAYS5]
    moves[illegal_at] = {"type": "play", "player": 1, "card": "KH"}
    return {"players": 2, "deck": DECK5, "moves": moves}


def test_the_dispute_desk_highlights_the_first_illegal_move(page: Page) -> None:
    p = page.open()
    p.click("#tab-desk")
    body = _example5_log(MUST_TRUMP_AT)
    p.fill("#desk-body", json.dumps(body))
    p.click("#desk-run")
    p.wait_for_selector("#verdict[data-first-illegal]")
    assert p.get_attribute("#verdict", "data-first-illegal") == str(MUST_TRUMP_AT)
    illegal = p.locator("#steps .step.illegal")
    assert illegal.count() == 1 and illegal.get_attribute("data-index") == str(MUST_TRUMP_AT)
    assert "must_trump" in illegal.inner_text() and "schnapsen §" in illegal.inner_text()
    assert p.locator("#steps .step.ok[data-index]").count() == MUST_TRUMP_AT
    assert p.locator("#steps .step.unjudged").count() == len(PLAYS5) - MUST_TRUMP_AT - 1
    verdict = p.inner_text("#verdict")
    assert f"Illegal move at index {MUST_TRUMP_AT}" in verdict and f"{MUST_TRUMP_AT} of 20 moves legal" in verdict
    # the final position (after the last legal move) and its scores are shown
    assert f"seq {MUST_TRUMP_AT}" in p.inner_text("#step-label")
    assert [t.strip() for t in p.locator("#desk-scores tr[data-score='card_points'] td").all_inner_texts()] == ["34", "19"]
    shoot(p, "dispute.png")
    # step through: back to the deal, then one move on
    p.click("#step-first")
    p.wait_for_selector("#step-label [data-seq='0']")
    assert p.locator("#desk-seats .card.face").count() == 10
    p.click("#step-next")
    p.wait_for_selector("#step-label [data-seq='1']")
    assert "card played" in p.inner_text("#desk-step-events") and "QS" in p.inner_text("#desk-step-events")
    p.click("#steps .step[data-index='4']")
    p.wait_for_selector("#step-label [data-seq='5']")
    # the share link carries exactly the judged request, and opening it judges again
    href = p.get_attribute("#share-link", "href")
    assert href and "#desk=" in href
    with p.expect_download() as download_info:
        p.click("#download")
    saved = json.loads(download_info.value.path().read_text(encoding="utf-8"))
    assert saved["game"] == "schnapsen" and saved["request"] == body
    assert saved["verdict"]["first_illegal"]["index"] == MUST_TRUMP_AT
    # the saved file, uploaded, brings the same request back
    p.fill("#desk-body", "")
    p.set_input_files("#desk-file", str(download_info.value.path()))
    expect(p.locator("#desk-body")).not_to_have_value("")  # (no wait_for_function: the page's CSP forbids eval)
    assert json.loads(p.input_value("#desk-body")) == body
    fresh = page.context.new_page()  # a new page load, as the receiver of the link would have
    fresh.goto(href)
    fresh.wait_for_selector("#verdict[data-first-illegal]")
    assert fresh.get_attribute("#verdict", "data-first-illegal") == str(MUST_TRUMP_AT)
    assert fresh.is_visible("#desk-tab") and fresh.is_hidden("#table-tab")
    assert json.loads(fresh.input_value("#desk-body")) == body
    assert fresh.locator("#steps .step.illegal").get_attribute("data-index") == str(MUST_TRUMP_AT)


def test_a_legal_log_and_a_game_sent_from_the_table(page: Page) -> None:
    p = page.open()
    start(p, deck=DECK5, follow=True)
    for seat, card in PLAYS5[:4]:
        click_card(p, seat, card)
    p.click("#to-desk")
    p.wait_for_selector("#verdict[data-first-illegal='']")
    assert "Every move is legal" in p.inner_text("#verdict") and "4 of 4 moves legal" in p.inner_text("#verdict")
    assert json.loads(p.input_value("#desk-body"))["moves"][3] == {"type": "play", "player": 0, "card": "AH"}


@pytest.mark.parametrize("game", _games())
def test_every_game_starts_and_takes_a_legal_move_by_click(page: Page, game: str) -> None:
    """Each catalogue game from its generated form (defaults), one legal move clicked in the table view."""
    p = page.open()
    start(p, game=game)
    assert p.locator("#problem").is_hidden()
    target = p.locator("#seats .card.playable, #table .card.playable, #moves button.move-btn:not(.template-pick)").first
    target.click()
    if p.locator("#chooser").count():  # a card that several legal moves name: pick the first
        p.locator("#chooser .move-btn").first.click()
    p.wait_for_selector("#status-line [data-seq='1']")
    assert p.locator("#problem").is_hidden()
    assert p.locator("#log > li").count() == 2
    assert p.locator("#scores tr[data-score='totals'] td").count() >= 1


def test_sealed_mode_plays_with_tokens_and_keys(sealed_page: Page) -> None:
    p = sealed_page.open()
    assert p.inner_text("#mode") == "sealed mode"
    start(p, deck=DECK5, follow=True)
    raw = json.loads(p.text_content("#raw") or "")
    assert raw["state"]["seat"] == 1 and "token" in raw  # a seat's view, never the full state
    click_card(p, 1, "QS")
    click_card(p, 0, "JD")
    assert json.loads(p.text_content("#raw") or "")["state"]["seat"] == 1
    # the public view shows both hands as backs and offers no move
    p.uncheck("#follow")
    p.select_option("#viewer", "")
    p.wait_for_selector(".seat .tag.you", state="detached")
    assert p.locator("#seats .card.face[data-in-hand]").count() == 0
    assert p.locator("#moves .move-btn, .card.playable").count() == 0
    # a refused move in sealed mode: seat 0 out of turn, sent with the table key
    p.click("details:has(#move-json) > summary")
    p.fill("#move-json", json.dumps({"type": "play", "player": 0, "card": "JS"}))
    p.click("#send-move")
    p.locator("#problem").wait_for(state="visible")
    assert "not_your_turn" in p.inner_text("#problem")
