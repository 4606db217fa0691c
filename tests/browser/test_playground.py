"""The card table at /play, in headless Chromium: a person plays every game by clicking, sees a real
table, and is told what happened in words.

Every test runs against the app served on 127.0.0.1 and checks (in the ``page`` fixture) that the
page made no request outside the service and raised no JavaScript error. The screenshots of the
README and docs/playground.md are taken here.
"""

from __future__ import annotations

import json
import re

import pytest

from service import create_app

from .conftest import PHONE, Page, needs_browser
from .helpers import (
    DECK5,
    HANDS5,
    MUST_TRUMP_AT,
    PLAYS5,
    click_card,
    expect,
    http,
    play_any,
    scores_row,
    seq,
    shoot,
    shown,
    start,
    take_device,
    wait_seq,
)

pytestmark = [pytest.mark.browser, needs_browser]


def _games() -> list[str]:
    """The live catalogue, so that every game merged later is covered without new test code."""
    client = create_app({"SEAL_KEYS": [], "TESTING": True}).test_client()
    return [g["id"] for g in client.get("/v1/games").get_json()["games"]]


def test_play_a_whole_schnapsen_deal_by_clicking_passing_the_device(page: Page) -> None:
    """Example 5 from its fixed deck; with "follow the turn" each seat takes the device in turn and
    plays from the bottom of the table."""
    p = page.open()
    start(p, deck=DECK5, follow=True)
    assert p.locator("#me .seat[data-seat='1'] .tag.you").count() == 1  # the seat to move, at the bottom
    passes = 0
    for seat, card in PLAYS5:
        if p.locator("#pass-screen").is_visible():
            assert f"seat {seat}" in p.inner_text("#pass-title")
            assert p.locator("#felt .card.face").count() == 0 and p.locator("#log li").count() == 0  # nothing shows
            passes += 1
            take_device(p)
        assert p.locator(f"#me .seat[data-seat='{seat}']").count() == 1
        click_card(p, card)
    assert passes >= 8  # the lead changes hands many times in this deal
    status = p.inner_text("#status-line")
    assert "deal over" in status and "move 20" in status
    assert scores_row(p) == ["1", "0"]
    assert scores_row(p, "tricks_won") == ["6", "4"]
    assert scores_row(p, "points") == ["59", "61"]
    summary = p.locator("#summary")
    assert summary.is_visible() and "End of the deal" in summary.inner_text()
    assert re.search(r"seat 0 wins 1 game point", summary.inner_text())
    assert "seat 0 1/7" in p.inner_text("#scores .progress-box")  # progress to the match target
    # the log speaks words and card notation; it shows what this seat was told
    log = p.locator("#log > li")
    assert log.count() == 21
    assert "Deal over" in log.first.inner_text()
    assert re.search(r"Seat 1 played\s*Q♠", p.locator("#log > li[data-seq='1']").inner_text())
    assert p.locator("#moves .move-btn").all_inner_texts() == ["deal the next hand"]


def test_the_log_shows_only_what_the_viewing_seat_may_see(page: Page) -> None:
    """Regression: switching seats showed events as the previous seat saw them (a card drawn by
    seat 1 still named under seat 0)."""
    p = page.open()
    start(p, deck=DECK5)
    click_card(p, "QS", seat=1)
    click_card(p, "JD", seat=0)  # trick 1: seat 1 wins it, then seat 1 draws KH, seat 0 draws 10H
    for me, mine, theirs in ((0, "10H", "KH"), (1, "KH", "10H")):
        p.select_option("#viewer", str(me))
        p.wait_for_selector(f"#me .seat[data-seat='{me}'] .tag.you")
        entry = p.locator("#log > li[data-seq='2']")
        assert entry.get_attribute("data-viewer") == str(me)
        drawn = entry.locator(".event[data-event='card_drawn']")
        assert drawn.count() == 2
        assert entry.locator(f"[data-card='{mine}']").count() == 1, entry.inner_text()
        assert entry.locator(f"[data-card='{theirs}']").count() == 0, entry.inner_text()
        assert "drew a hidden card" in entry.inner_text()
    p.select_option("#viewer", "")
    p.wait_for_selector("#me .seat .tag.you", state="detached")
    entry = p.locator("#log > li[data-seq='2']")
    assert entry.locator("[data-card='KH']").count() == 1 and entry.locator("[data-card='10H']").count() == 1


def test_switching_seats_shows_the_other_hand_as_backs(page: Page) -> None:
    p = page.open()
    start(p, deck=DECK5)
    for me, other in ((0, 1), (1, 0)):
        p.select_option("#viewer", str(me))
        p.wait_for_selector(f"#me .seat[data-seat='{me}'] .tag.you")
        assert p.locator(f".seat[data-seat='{me}'] .hand .card.face").count() == 5
        assert p.locator(f".seat[data-seat='{other}'] .hand .card.back").count() == 5
        assert p.locator(f".seat[data-seat='{other}'] .hand .card.face").count() == 0
        for card in HANDS5[other]:  # the other seat's cards appear nowhere on the table
            assert p.locator(f"#felt [data-card='{card}']").count() == 0
    p.select_option("#viewer", "")
    p.wait_for_selector("#me .seat .tag.you", state="detached")
    assert p.locator("#felt .seat .hand .card.face").count() == 10


def test_trump_and_led_suit_stay_in_view(page: Page) -> None:
    p = page.open()
    start(p, deck=DECK5)
    strip = p.locator("#facts-strip")
    assert re.search(r"Trump\s*♠\s*spades", strip.text_content() or "")  # 10S turned up
    click_card(p, "QS", seat=1)
    assert re.search(r"Led\s*♠\s*spades", strip.text_content() or "")


def test_a_refused_move_shows_its_code_detail_and_rule_in_words(page: Page) -> None:
    p = page.open()
    start(p, deck=DECK5, follow=True)
    for seat, card in PLAYS5[:MUST_TRUMP_AT]:
        take_device(p)
        click_card(p, card)
    take_device(p)
    # seat 1 holds no diamond and must trump: KH is in the hand but not offered
    kh = p.locator("#me .hand .card[data-card='KH']")
    assert "playable" not in (kh.get_attribute("class") or "")
    assert kh.get_attribute("aria-label") == "K♥, king of hearts, not playable now"
    assert p.locator("#me .card[data-card='AS']").get_attribute("aria-label") == "A♠, ace of spades, legal"
    before = seq(p)
    kh.click()
    problem = p.locator("#problem")
    problem.wait_for(state="visible")
    text = problem.inner_text()
    assert "must play a trump" in text and "Rule: Schnapsen §" in text and "K♥" in text  # in words
    assert "must_trump" not in text  # the code waits in the details, for those who want it
    problem.locator("details.for-referee > summary").click()
    text = problem.inner_text()
    assert re.search(r"trump", text.split("must_trump", 1)[1], re.IGNORECASE)
    assert p.locator("#netproblem").is_hidden()  # a refusal, not a network failure
    assert seq(p) == before
    refused = p.locator("#log > li").first
    assert "Refused: You cannot follow suit, so you must play a trump." in refused.inner_text()
    assert refused.locator(".log-problem[data-code='must_trump']").count() == 1
    shoot(p, "table.png")
    click_card(p, "AS")  # a legal card clears the error
    assert p.locator("#problem").is_hidden()


def _example5_log(illegal_at: int) -> dict:
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
    # the final position is drawn after the verdict (one more replay, up to the last legal move)
    p.wait_for_selector(f"#step-label [data-seq='{MUST_TRUMP_AT}']")
    assert f"move {MUST_TRUMP_AT}" in p.inner_text("#step-label")
    assert scores_row(p, "card_points", "#desk-scores") == ["34", "19"]
    shoot(p, "dispute.png")
    # step through by keyboard: the move list is a list of buttons
    p.click("#step-first")
    p.wait_for_selector("#step-label [data-seq='0']")
    assert p.locator("#desk-felt .seat .hand .card.face").count() == 10
    p.click("#step-next")
    p.wait_for_selector("#step-label [data-seq='1']")
    assert re.search(r"Seat 1 played\s*Q♠", p.inner_text("#desk-step-events"))
    p.locator("#steps .step[data-index='4'] button").focus()
    p.keyboard.press("Enter")
    p.wait_for_selector("#step-label [data-seq='5']")
    href = p.get_attribute("#share-link", "href")
    assert href and "#desk=" in href
    with p.expect_download() as download_info:
        p.click("#download")
    saved = json.loads(download_info.value.path().read_text(encoding="utf-8"))
    assert saved["game"] == "schnapsen" and saved["request"] == body
    assert saved["verdict"]["first_illegal"]["index"] == MUST_TRUMP_AT
    p.fill("#desk-body", "")
    p.set_input_files("#desk-file", str(download_info.value.path()))
    expect(p.locator("#desk-body")).not_to_have_value("")
    assert json.loads(p.input_value("#desk-body")) == body
    fresh = page.context.new_page()  # a new page load, as the receiver of the link would have
    fresh.goto(href)
    fresh.wait_for_selector("#verdict[data-first-illegal]")
    assert fresh.get_attribute("#verdict", "data-first-illegal") == str(MUST_TRUMP_AT)
    assert fresh.is_visible("#desk-tab") and fresh.is_hidden("#table-tab")
    assert json.loads(fresh.input_value("#desk-body")) == body
    assert page.axe("the desk") == []  # (last: without axe-core installed, only this check skips)


def test_a_legal_log_and_a_game_sent_from_the_table(page: Page) -> None:
    p = page.open()
    start(p, deck=DECK5)
    for seat, card in PLAYS5[:4]:
        click_card(p, card, seat=seat)
    p.click("#to-desk")
    p.wait_for_selector("#verdict[data-first-illegal='']")
    assert "Every move is legal" in p.inner_text("#verdict") and "4 of 4 moves legal" in p.inner_text("#verdict")
    assert json.loads(p.input_value("#desk-body"))["moves"][3] == {"type": "play", "player": 0, "card": "AH"}


def test_the_desk_explains_empty_malformed_and_other_games_input(page: Page) -> None:
    """Regression: an empty box reported a raw SyntaxError, and a Schnapsen log judged as Yukon was
    called "illegal at index 1" instead of a log of another game."""
    p = page.open()
    p.click("#tab-desk")
    p.click("#desk-run")
    problem = p.locator("#desk-problem")
    expect(problem).to_contain_text("Nothing to judge yet")
    p.fill("#desk-body", '{"players": 2,\n "moves": [}')
    p.click("#desk-run")
    expect(problem).to_contain_text("not valid JSON: at line 2, column 12")
    assert "SyntaxError" not in problem.inner_text()
    p.fill("#desk-body", "[1, 2]")
    p.click("#desk-run")
    expect(problem).to_contain_text("a list")
    # a seeded Schnapsen log (the service's own first legal moves), judged with Yukon selected
    status, env = http(page.base, "POST", "/v1/games/schnapsen/new", {"seed": 5})
    moves = []
    for _ in range(6):
        move = env["legal_moves"][-1]
        moves.append(move)
        status, env = http(page.base, "POST", "/v1/games/schnapsen/moves", {"state": env["state"], "move": move})
        assert status == 200
    body = {"players": 2, "seed": 5, "moves": moves}
    p.select_option("#desk-game", "yukon")
    p.fill("#desk-body", json.dumps(body))
    p.click("#desk-run")
    other = p.locator("#other-game")
    expect(other).to_be_visible()
    assert other.get_attribute("data-other-game") == "schnapsen"
    assert "belongs to another game: Schnapsen" in other.inner_text() and "every move is legal" in other.inner_text()
    p.click("#judge-other")
    p.wait_for_selector("#verdict[data-first-illegal='']")
    assert p.input_value("#desk-game") == "schnapsen" and "6 of 6 moves legal" in p.inner_text("#verdict")
    assert p.locator("#other-game").is_hidden()


@pytest.mark.parametrize("game", _games())
def test_every_game_is_a_table_that_plays_by_click(page: Page, game: str) -> None:
    """Each catalogue game from its generated form: the seat to move at the bottom (in a real-time
    game every seat keeps its place, seat 0 at the bottom), one legal move clicked, the move told in
    words; no serious or critical axe-core violation; the screenshots (1280 × 800 and 360 × 740);
    then on a phone's screen, one more move."""
    p = page.open()
    start(p, game=game, seed=20261201)
    assert p.locator("#problem").is_hidden()
    env = shown(p)
    realtime = p.locator("#felt.realtime").count() == 1
    assert p.locator(f"#me .seat[data-seat='{0 if realtime else env['to_move'][0]}']").count() == 1
    play_any(p)
    assert p.locator("#problem").is_hidden()
    assert p.locator("#log > li").count() == 2
    assert "{" not in p.inner_text("#log") and '"' not in p.inner_text("#log")  # words, not JSON
    assert p.locator("#scores tr[data-score='totals'] td").count() >= 1
    shoot(p, f"table-{game}.png")
    desktop_violations = page.axe(f"the {game} table", skip=False)
    # the same table on a phone (360 × 740): no horizontal scroll, the seat to move on the first screen
    p.set_viewport_size(PHONE)
    p.evaluate("window.scrollTo(0, 0)")
    assert p.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    box = p.locator("#me .seat").bounding_box()
    assert box is not None and 0 <= box["y"] < PHONE["height"]
    first = p.locator("#me .card").first
    if first.count():  # its hand (or its piles), whole
        b = first.bounding_box()
        assert b is not None and b["y"] + b["height"] <= PHONE["height"], (game, b)
    p.evaluate("window.scrollTo(0, 0)")
    shoot(p, f"phone-{game}.png", full_page=False)
    play_any(p)
    assert p.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert desktop_violations + page.axe(f"the {game} table on a phone") == []


def test_russian_bank_piles_are_labelled_and_destinations_chosen_by_click(page: Page) -> None:
    """Regression: an illegal click answered "move needs 'from'". A card is chosen, then a pile."""
    p = page.open()
    start(p, game="russian_bank", seed=7)
    assert p.locator("#table [data-pile='tableau:0'] .group-name").inner_text() == "tableau 0"
    assert p.locator("#table [data-pile='foundations:7'] .group-name").inner_text() == "foundation 7"
    env = shown(p)
    legal = [m for m in env["legal_moves"] if m["type"] == "move"]
    m = legal[0]
    p.click(f"#felt .card[data-card='{m['card']}'][data-from='{m['from']}']")
    chooser = p.locator("#chooser")
    expect(chooser).to_be_visible()
    assert chooser.locator(f".move-btn.legal[data-to='{m['to']}']").count() == 1
    # an illegal destination is asked anyway and refused in the referee's words
    wrong = chooser.locator(".move-btn:not(.legal)").first
    wrong.click()
    problem = p.locator("#problem")
    problem.wait_for(state="visible")
    assert "needs" not in problem.inner_text() and "Rule: Russian Bank §" in problem.inner_text()
    assert seq(p) == 0
    p.click(f"#felt .card[data-card='{m['card']}'][data-from='{m['from']}']")
    p.click(f"#chooser .move-btn[data-to='{m['to']}']")
    wait_seq(p, 1)
    assert p.locator("#problem").is_hidden()


def test_partnerships_are_teams_and_money_is_in_view(page: Page) -> None:
    p = page.open()
    start(p, game="yukon", players=4, seed=3)
    teams = p.locator("#scores .teams li")
    assert teams.count() == 2 and "seat 0 & seat 2" in teams.first.inner_text()
    assert p.locator("#felt .seat .tag.team").count() == 4
    assert "sides" not in p.inner_text("#scores")
    start(p, game="bragging", players=3, seed=3)
    assert "Pot" in p.inner_text("#facts-strip")
    assert p.locator("#felt .seat .money.balances").count() == 3


def test_a_new_game_counts_as_started_only_once_it_is_drawn(page: Page) -> None:
    """The page counts a started game (``body[data-games]``, what ``start`` waits for) once the new
    game is on the table, not when its first answer arrives: the seats' views come back later, and
    a reader who went by the count saw the previous game's facts (a loaded CI machine did)."""
    p = page.open()
    start(p, game="yukon", players=4, seed=3)
    assert "Pot" not in p.inner_text("#facts-strip")

    # the seats' views of a new game arrive half a second late (delayed in the page itself: a
    # Playwright route handler would hold up the test's own waits as well)
    p.evaluate("""() => {
        const send = window.fetch;
        window.fetch = (url, init) => /[/]new[?]as=[0-9]+$/.test(String(url))
            ? new Promise((done) => setTimeout(done, 500)).then(() => send(url, init))
            : send(url, init);
    }""")
    start(p, game="bragging", players=3, seed=3)
    assert "Bragging" in p.inner_text("#status-line") and "Pot" in p.inner_text("#facts-strip")


def test_sealed_mode_plays_with_tokens_and_keys(sealed_page: Page) -> None:
    p = sealed_page.open()
    assert p.inner_text("#mode") == "sealed mode"
    start(p, deck=DECK5, follow=True)
    raw = shown(p)
    assert raw["state"]["seat"] == 1  # a seat's view, never the full state
    assert p.locator("#undo").is_hidden()  # no take-back in sealed mode
    click_card(p, "QS")
    take_device(p)
    click_card(p, "JD")
    take_device(p)
    assert shown(p)["state"]["seat"] == 1
    p.uncheck("#follow")
    p.select_option("#viewer", "")
    p.wait_for_selector("#me .seat .tag.you", state="detached")
    assert p.locator("#felt .card.face[data-in-hand]").count() == 0
    assert p.locator("#moves .move-btn, .card.playable").count() == 0
    p.click("details:has(#move-json) > summary")
    p.fill("#move-json", json.dumps({"type": "play", "player": 0, "card": "JS"}))
    p.click("#send-move")
    p.locator("#problem").wait_for(state="visible")
    assert p.locator("#problem [data-code='not_your_turn']").count() == 1 and "not seat 0's turn" in p.inner_text("#problem")
