"""What a player must be able to trust at the table: exact numbers, privacy when one device is
passed around, a game that survives a reload, failures told apart from rulings, play by keyboard
alone, and the desk's judgement of signed match records."""

from __future__ import annotations

import base64
import json
import urllib.request
from typing import Any

import pytest
import yaml

from tests.contract import YAML_LOADER

from .conftest import Page, needs_browser
from .helpers import (
    DECK5,
    PLAYS5,
    cards_in,
    cards_named,
    click_card,
    expect,
    http,
    scores_row,
    seq,
    shown,
    start,
    take_device,
    wait_seq,
)

pytestmark = [pytest.mark.browser, needs_browser]


# ------------------------------------------------------------------ exact numbers

def _seed_bound(base: str) -> int:
    """The largest seed the contract allows, read from the served /openapi.yaml."""
    with urllib.request.urlopen(base + "/openapi.yaml", timeout=10) as r:
        spec = yaml.load(r.read(), Loader=YAML_LOADER)
    return int(spec["components"]["schemas"]["Seed"]["maximum"])


@pytest.mark.parametrize("which", ["largest allowed", "just above 2^53"])
def test_big_seeds_deal_and_judge_exactly_what_the_api_does(page: Page, which: str) -> None:
    """Regression: seed 9007199254740993 became …992 in the page, so the desk judged a legal log
    illegal and the table dealt another game; 2^63−1 was refused."""
    bound = _seed_bound(page.base)
    seed = bound if which == "largest allowed" else 2**53 + 1
    if seed > bound:
        pytest.skip(f"the contract allows seeds up to {bound} only (I-JSON): {seed} is out of range")
    status, api = http(page.base, "POST", "/v1/games/schnapsen/new", {"seed": seed})
    if status != 201:
        pytest.skip(f"the service refuses seed {seed} ({api.get('code')}), though the contract allows it")
    p = page.open()
    start(p, seed=seed)
    assert shown(p)["state"]["seed"] == seed  # the page's state, parsed by Python: not one digit changed
    assert f"seed {seed}" in p.locator("#log > li").last.inner_text()
    for s in (0, 1):
        dealt = p.locator(f".seat[data-seat='{s}'] .hand .card").evaluate_all("cs => cs.map(c => c.dataset.card)")
        assert dealt == api["state"]["hands"][s]
    assert shown(p)["state"]["trump_card"] == api["state"]["trump_card"]
    assert p.evaluate(f"cardReferee.stringify(cardReferee.parse('{{\"seed\": {seed}, \"n\": -{seed}}}'))") == f'{{"seed":{seed},"n":-{seed}}}'
    moves = []
    for _ in range(3):
        env = shown(p)
        move = next(m for m in env["legal_moves"] if m["type"] == "play")
        click_card(p, move["card"], seat=move["player"])
        moves.append(move)
    _, verdict = http(page.base, "POST", "/v1/games/schnapsen/replay", {"players": 2, "seed": seed, "moves": moves})
    assert verdict["first_illegal"] is None
    p.click("#to-desk")
    p.wait_for_selector("#verdict[data-first-illegal='']")
    assert "3 of 3 moves legal" in p.inner_text("#verdict")
    assert json.loads(p.input_value("#desk-body"))["seed"] == seed
    assert scores_row(p, "card_points", "#desk-scores") == [str(x) for x in verdict["final"]["scores"]["card_points"]]
    href = p.get_attribute("#share-link", "href") or ""
    encoded = href.split("#desk=", 1)[1]
    shared = json.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))
    assert shared["request"]["seed"] == seed and shared["request"]["moves"] == moves


# ------------------------------------------------------------------ hot-seat privacy (sealed)

def _seen_by(base: str, moves: list[dict[str, Any]], seat: int) -> set[str]:
    """Every card ``seat`` has been shown so far: its view now, and every event it was told, from
    the service's own replays of the log's prefixes in that seat's view."""
    seen: set[str] = set()
    for k in range(len(moves) + 1):
        status, v = http(base, "POST", f"/v1/games/schnapsen/replay?as={seat}", {"players": 2, "deck": DECK5, "moves": moves[:k]})
        assert status == 200, v
        seen |= cards_in(v["final"]["events"])
        if k == len(moves):
            seen |= cards_in(v["final"]["state"])
    return seen


def test_follow_the_turn_in_sealed_mode_shows_nothing_a_seat_may_not_see(sealed_page: Page) -> None:
    p = sealed_page.open()
    start(p, deck=DECK5)
    p.check("#follow")
    moves: list[dict[str, Any]] = []
    checked = 0
    for seat, card in PLAYS5[:9]:
        if p.locator("#pass-screen").is_visible():
            assert cards_named(p) == set(), "the pass screen names a card"
            take_device(p)
        names = cards_named(p)
        allowed = _seen_by(sealed_page.base, moves, seat)
        assert names <= allowed, f"seat {seat} is shown {sorted(names - allowed)}"
        assert any(c in names for c in allowed)  # (the scan sees the seat's own cards)
        checked += 1
        click_card(p, card)
        moves.append({"type": "play", "player": seat, "card": card})
    assert checked == 9


# ------------------------------------------------------------------ resilience

def test_a_reload_continues_the_game_and_take_back_restores(page: Page) -> None:
    p = page.open()
    start(p, deck=DECK5)
    for seat, card in PLAYS5[:2]:
        click_card(p, card, seat=seat)
    hands = shown(p)["state"]["hands"]
    p = page.reload()
    wait_seq(p, 2)
    assert shown(p)["state"]["hands"] == hands
    assert p.locator("#log > li").count() == 3
    seat, card = PLAYS5[2]
    click_card(p, card, seat=seat)
    assert card not in shown(p)["state"]["hands"][seat]
    p.click("#undo")
    wait_seq(p, 2)
    assert card in shown(p)["state"]["hands"][seat] and shown(p)["state"]["hands"] == hands
    assert p.locator("#log > li").count() == 3
    p.click("#undo")
    wait_seq(p, 1)
    click_card(p, PLAYS5[1][1], seat=PLAYS5[1][0])  # the same move again, from the restored state
    # a link carries the game to a fresh browser (no storage)
    p.click("#link")
    href = p.get_attribute("#game-link", "href")
    other = page.browser.new_context()
    try:
        q = other.new_page()
        q.goto(href)
        q.wait_for_selector("#status-line [data-seq='2']")
        assert json.loads(q.text_content("#raw") or "")["state"]["hands"] == shown(p)["state"]["hands"]
    finally:
        other.close()


def test_a_network_failure_is_not_a_refusal_and_can_be_retried(page: Page) -> None:
    p = page.open()
    start(p, deck=DECK5)
    p.route("**/v1/games/schnapsen/moves", lambda route: route.abort())
    p.click(".seat[data-seat='1'] .card.playable[data-card='QS']")
    net = p.locator("#netproblem")
    expect(net).to_be_visible()
    assert "not judged" in net.inner_text() and p.locator("#problem").is_hidden()
    assert seq(p) == 0 and p.locator("#log > li").count() == 1  # nothing logged as a ruling
    p.unroute("**/v1/games/schnapsen/moves")
    net.locator("button.retry").click()
    wait_seq(p, 1)
    assert net.is_hidden()


def test_a_catalogue_failure_offers_a_retry(page: Page) -> None:
    p = page.page
    p.route("**/v1/games", lambda route: route.abort())
    p.goto(f"{page.base}/play")
    fatal = p.locator("#fatal")
    expect(fatal).to_be_visible()
    assert "could not reach the service" in fatal.inner_text()
    p.unroute("**/v1/games")
    p.click("#fatal-retry")
    p.wait_for_selector("body[data-ready='1']")
    assert fatal.is_hidden() and p.locator("#game option").count() >= 9


# ------------------------------------------------------------------ keyboard only

def test_a_schnapsen_deal_by_keyboard_alone(page: Page) -> None:
    p = page.open()
    # the tabs: arrow keys move between them
    p.focus("#tab-table")
    p.keyboard.press("ArrowRight")
    assert p.get_attribute("#tab-desk", "aria-selected") == "true" and p.is_visible("#desk-tab")
    p.keyboard.press("ArrowLeft")
    assert p.get_attribute("#tab-table", "aria-selected") == "true"
    # the form: type the deck, Enter starts the game
    p.focus("#fixed > summary")
    p.keyboard.press("Enter")
    p.focus("#deck")
    p.keyboard.type(" ".join(DECK5))
    p.focus("#seed")
    p.keyboard.press("Enter")
    wait_seq(p, 0)
    for i, (seat, card) in enumerate(PLAYS5):
        focused = p.locator(":focus")
        # the focus stays where play continues: on a legal card of the seat to move
        assert focused.get_attribute("data-owner") == str(seat) and "playable" in (focused.get_attribute("class") or "")
        for _ in range(6):
            if p.locator(":focus").get_attribute("data-card") == card:
                break
            p.keyboard.press("ArrowRight")
        if card == "QS":
            assert p.locator(":focus").get_attribute("aria-label") == "Q♠, queen of spades, legal"  # what it shows, then words
        p.keyboard.press("Enter")
        wait_seq(p, i + 1)
        expect(p.locator("#announce")).to_contain_text(f"Seat {seat}: play")
    assert "deal over" in p.inner_text("#status-line")
    assert p.locator(":focus").inner_text() == "deal the next hand"
    assert scores_row(p) == ["1", "0"]


# ------------------------------------------------------------------ match records at the desk

def _records_offered(base: str) -> bool:
    """Whether the service publishes signing keys (an open service answers 200 with no keys)."""
    status, jwks = http(base, "GET", "/v1/keys")
    return status == 200 and bool(jwks.get("keys"))


def test_the_desk_says_when_records_are_not_offered(page: Page) -> None:
    if _records_offered(page.base):
        pytest.skip("this service publishes signing keys (GET /v1/keys lists some)")
    p = page.open()
    p.click("#tab-desk")
    expect(p.locator("#records-offer[data-records='0']")).to_contain_text("has no signing keys")
    p.fill("#desk-body", json.dumps({"record": {"game": "schnapsen", "moves": [], "signature": "x", "fairness": {}}}))
    p.click("#desk-run")
    expect(p.locator("#desk-problem")).to_contain_text("cannot judge match records")


def _finished_record(base: str) -> dict[str, Any]:
    status, env = http(base, "POST", "/v1/games/schnapsen/new", {"options": {"target": 1}})
    assert status == 201, env
    table_key = env["table_key"]
    for _ in range(200):
        if env["status"] == "finished":
            break
        seat = env["to_move"][0]
        _, view = http(base, "POST", f"/v1/games/schnapsen/state?as={seat}", {"token": env["token"]}, table_key)
        move = next((m for m in view["legal_moves"] if m["type"] == "play"), view["legal_moves"][0])
        status, env = http(base, "POST", "/v1/games/schnapsen/moves", {"token": env["token"], "move": move}, table_key)
        assert status == 200, env
    assert env["status"] == "finished" and "record" in env, "a finished sealed match carries its record"
    return dict(env["record"])


def test_the_desk_verifies_a_signed_match_record(sealed_page: Page) -> None:
    base = sealed_page.base
    if not _records_offered(base):
        pytest.skip("this service publishes no signing keys (GET /v1/keys lists none)")
    record = _finished_record(base)
    p = sealed_page.open()
    p.click("#tab-desk")
    expect(p.locator("#records-offer")).to_contain_text("judges signed match records")
    p.fill("#desk-body", json.dumps({"record": record}))
    p.click("#desk-run")
    verdict = p.locator("#verdict[data-signature]")
    expect(verdict).to_be_visible()
    assert verdict.get_attribute("data-signature") == "ok" and verdict.get_attribute("data-commitment") == "ok"
    assert "Signature: verifies" in verdict.inner_text() and "Commitment: verifies" in verdict.inner_text()
    forged = json.loads(json.dumps(record))
    first = forged["moves"][0] if forged.get("moves") else None
    if isinstance(first, dict) and first.get("player") in (0, 1):
        forged["moves"][0] = {**first, "player": 1 - first["player"]}  # one changed seat
    else:
        forged["match_id"] = str(forged["match_id"])[:-1] + ("0" if str(forged["match_id"])[-1:] != "0" else "1")
    p.fill("#desk-body", json.dumps(forged))
    p.click("#desk-run")
    expect(p.locator("#verdict[data-signature='bad']")).to_be_visible()
    assert "does NOT verify" in p.inner_text("#verdict") and "bad_signature" in p.inner_text("#verdict")
    assert sealed_page.axe("the desk with a record") == []
