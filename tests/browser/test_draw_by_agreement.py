"""Russian Bank's draw by agreement at the table (russian_bank.md §6.8): the offer, the decline and
the accept as buttons in players' words, their events as sentences; and a finished sealed match
taken from the table to the desk: its signed record downloaded and judged, verified in the page as
the desk verifies any record (and offline, by ``card-referee verify``'s checks)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from service.records import adjudicate, public_keys

from .conftest import Page, needs_browser
from .helpers import expect, http, seq, start, take_device, wait_seq

pytestmark = [pytest.mark.browser, needs_browser]

WORDS = {"offer_draw": "Offer a draw", "accept_draw": "Accept the draw", "decline_draw": "Decline the draw"}


def _button(p: Any, move_type: str) -> Any:
    return p.locator(f"#moves .move-btn[data-move*='\"type\":\"{move_type}\"']").first


def _draw_move(p: Any, move_type: str) -> None:
    before = seq(p)
    _button(p, move_type).click()
    wait_seq(p, before + 1)


def test_draw_moves_are_buttons_in_words_and_their_events_sentences(page: Page) -> None:
    p = page.open()
    start(p, game="russian_bank", seed=7)
    assert _button(p, "offer_draw").inner_text() == WORDS["offer_draw"]
    assert _button(p, "accept_draw").count() == 0
    _draw_move(p, "offer_draw")
    assert {_button(p, t).inner_text() for t in ("accept_draw", "decline_draw")} == {WORDS["accept_draw"], WORDS["decline_draw"]}
    assert _button(p, "offer_draw").count() == 0  # only an answer while the offer waits
    answerer = json.loads(_button(p, "accept_draw").get_attribute("data-move"))["player"]
    # any other move of the answering seat is refused, in words (the code kept for who wants it)
    if not p.locator("details:has(#move-json)").evaluate("d => d.open"):
        p.click("details:has(#move-json) > summary")
    p.fill("#move-json", json.dumps({"type": "flip", "player": answerer}))
    p.click("#send-move")
    problem = p.locator("#problem")
    expect(problem.locator(".player-words")).to_have_text("A draw has been offered: accept it or decline it first.")
    assert problem.locator("[data-code='draw_offer_pending']").count() == 1
    expect(p.locator("#log")).to_contain_text("offers a draw")
    _draw_move(p, "decline_draw")
    expect(p.locator("#log")).to_contain_text("declines the draw; play goes on")
    assert _button(p, "offer_draw").count() == 0  # once per turn (§6.8)
    texts = p.evaluate("""evs => evs.map(e => cardReferee.eventText(e))""",
                       [{"type": "draw_offered", "player": 0}, {"type": "draw_accepted", "player": 1}, {"type": "draw_declined", "player": 1}])
    assert texts == ["Seat 0 offers a draw.", "Seat 1 accepts the draw: the game ends in a draw by agreement.", "Seat 1 declines the draw; play goes on."]


def test_a_finished_sealed_match_goes_from_the_table_to_the_desk_with_its_record_verified(sealed_page: Page, tmp_path: Path) -> None:
    base = sealed_page.base
    status, jwks = http(base, "GET", "/v1/keys")
    assert status == 200 and jwks["keys"], "the sealed test server signs records"
    p = sealed_page.open()
    start(p, game="russian_bank", follow=True)  # hot-seat: the device goes to the seat that answers
    assert p.locator("#record-save").is_hidden() and p.locator("#record-judge").is_hidden()  # nothing to sign yet
    _draw_move(p, "offer_draw")
    take_device(p)
    _draw_move(p, "accept_draw")
    expect(p.locator("#status-line")).to_contain_text("draw")
    expect(p.locator("#record-save")).to_be_visible()
    with p.expect_download() as download:
        p.click("#record-save")
    saved = tmp_path / "record.json"
    download.value.save_as(saved)
    record = json.loads(saved.read_text(encoding="utf-8"))
    assert record["game"] == "russian_bank" and [m["type"] for m in record["moves"]] == ["offer_draw", "accept_draw"]
    verdict = adjudicate(record, public_keys(jwks))  # what `card-referee verify` checks, offline
    assert verdict.first_illegal is None and verdict.result_matches
    p.click("#record-judge")
    checks = p.locator("#verdict[data-signature]")
    expect(checks).to_be_visible()
    assert checks.get_attribute("data-signature") == "ok" and checks.get_attribute("data-commitment") == "ok"
    assert "the replay ends as the record says" in checks.inner_text()
    assert json.loads(p.input_value("#desk-body")) == {"record": record}
    assert sealed_page.axe("the desk with the table's record") == []


def test_the_stall_option_ends_a_russian_bank_game_from_the_form(page: Page) -> None:
    """The house option `stall_limit` (russian_bank.md §7.5), set in the new-game form: a flip makes
    no progress, so with a limit of 1 the first flip ends the game drawn, and the table says so."""
    p = page.open()
    p.select_option("#game", "russian_bank")
    p.fill("#options [data-option='stall_limit']", "1")
    p.click("#start")
    p.wait_for_selector("body[data-games='1']")
    _draw_move(p, "flip")
    expect(p.locator("#status-line")).to_contain_text("finished")
    log = p.inner_text("#log")
    assert "too many moves in a row without progress (the stall limit)" in log, log
    assert _button(p, "offer_draw").count() == 0 and p.locator("#moves .move-btn").count() == 0
