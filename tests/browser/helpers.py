"""What the browser tests share: starting a game on the page, reading it, the service's own answers
(straight over HTTP from the served app, so the page is compared with the API and not with itself)."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from typing import Any

from .conftest import SCREENSHOTS

# schnapsen.md §10 Example 5 (tests/scenarios/schnapsen/07_played_to_the_end.yaml): a deal played
# to the last trick; seat 0 wins it 59-61 on card points but takes the last trick → 1 game point.
DECK5 = ["AS", "JC", "JH", "JS", "QD", "10D", "10S", "QS", "QC", "AH",
         "JD", "KH", "10H", "KD", "KS", "QH", "10C", "AC", "KC", "AD"]
PLAYS5 = [(1, "QS"), (0, "JD"), (1, "QC"), (0, "AH"), (1, "KD"), (0, "KS"), (0, "QD"), (1, "JC"),
          (0, "AC"), (1, "10C"), (0, "AD"), (1, "AS"), (1, "JH"), (0, "QH"), (0, "10D"), (1, "10S"),
          (1, "KH"), (0, "10H"), (0, "JS"), (1, "KC")]
HANDS5 = (["JS", "QD", "10D", "AH", "JD"], ["AS", "JC", "JH", "QS", "QC"])
MUST_TRUMP_AT = 11  # after seat 0 leads AD (trump 10S, seat 1 holds no diamond), KH is refused

RANKS = {"ace": "A", "king": "K", "queen": "Q", "jack": "J", "ten": "10", "nine": "9", "eight": "8", "seven": "7",
         "six": "6", "five": "5", "four": "4", "three": "3", "two": "2"}
SUITS = {"spades": "S", "hearts": "H", "diamonds": "D", "clubs": "C", "♠": "S", "♥": "H", "♦": "D", "♣": "C"}


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as _expect  # imported late: the tests skip without playwright

    return _expect(locator)


def shoot(page: Any, name: str, full_page: bool = True) -> None:
    """A screenshot for the README and docs/playground.md, steady from run to run."""
    page.mouse.move(0, 0)
    page.screenshot(path=str(SCREENSHOTS / name), full_page=full_page, animations="disabled", caret="hide")


def http(base: str, method: str, path: str, body: Any = None, key: str | None = None) -> tuple[int, Any]:
    """The service's own answer (status, JSON), with big integers kept exact by Python's json."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if key:
        req.add_header("X-Seat-Key", key)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def start(page: Any, game: str = "schnapsen", deck: list[str] | None = None, seed: int | None = None,
          players: int | None = None, follow: bool = False) -> None:
    """Start a game from the form; with ``follow``, tick "follow the turn" and take the device."""
    if not page.locator("#setup").evaluate("d => d.open"):
        page.click("#setup > summary")
    page.select_option("#game", game)
    if players is not None:
        page.select_option("#players", str(players))
    if deck is not None or seed is not None:
        if not page.locator("#fixed").evaluate("d => d.open"):
            page.click("#fixed > summary")
        page.fill("#deck", " ".join(deck) if deck else "")
        page.fill("#seed", "" if seed is None else str(seed))
    before = int(page.get_attribute("body", "data-games") or 0)
    page.click("#start")
    page.wait_for_selector(f"body[data-games='{before + 1}']")
    page.wait_for_selector("#status-line [data-seq='0'], #pass-screen:not([hidden])")
    if follow:
        page.check("#follow")
        take_device(page)


def take_device(page: Any) -> None:
    """The pass screen, when it is up: the next seat takes the device."""
    if page.locator("#pass-screen").is_visible():
        page.click("#pass-go")
    page.wait_for_selector("#me .seat .tag.you")


def seq(page: Any) -> int:
    return int(page.get_attribute("#status-line [data-seq]", "data-seq"))


def wait_seq(page: Any, n: int) -> None:
    page.wait_for_selector(f"#status-line [data-seq='{n}']")


def click_card(page: Any, card: str, seat: int | None = None) -> None:
    """Click ``card`` (in ``seat``'s panel, else in the bottom seat's); it must be offered as legal."""
    before = seq(page)
    where = "#me" if seat is None else f".seat[data-seat='{seat}']"
    page.click(f"{where} .card.playable[data-card='{card}']")
    wait_seq(page, before + 1)


def shown(page: Any) -> Any:
    """The envelope the page is drawing (its raw view, as the service answered it)."""
    return json.loads(page.text_content("#raw") or "null")


def scores_row(page: Any, name: str = "totals", where: str = "#scores") -> list[str]:
    return [t.strip() for t in page.locator(f"{where} tr[data-score='{name}'] td").all_inner_texts()]


def cards_named(page: Any) -> set[str]:
    """Every card the page names anywhere: data-card attributes, words ("queen of spades"), card
    notation ("Q♠"), and card strings in text (the raw view, the move box)."""
    html = page.content() + " " + (page.input_value("#move-json") if page.locator("#move-json").count() else "")
    found = set(re.findall(r'data-card="([^"]+)"', html))
    for rank, suit in re.findall(r"\b(ace|king|queen|jack|ten|nine|eight|seven|six|five|four|three|two) of (spades|hearts|diamonds|clubs)", html):
        found.add(RANKS[rank] + SUITS[suit])
    for rank, suit in re.findall(r"(10|[2-9JQKA])([♠♥♦♣])", html):
        found.add(rank + SUITS[suit])
    found.update(re.findall(r'"((?:10|[2-9JQKA])[SHDC])"', html))
    return {c.split("/")[0] for c in found}


def cards_in(value: Any) -> set[str]:
    out: set[str] = set()
    if isinstance(value, str) and re.fullmatch(r"(10|[2-9JQKA])[SHDC](/[a-z])?", value):
        out.add(value.split("/")[0])
    elif isinstance(value, dict):
        for v in value.values():
            out |= cards_in(v)
    elif isinstance(value, list):
        for v in value:
            out |= cards_in(v)
    return out


def play_any(page: Any) -> None:
    """Make one legal move by clicking, whatever the game offers first (a card, a pile, a button)."""
    before = seq(page)
    page.locator("#me .card.playable, #felt .card.playable, #moves button.move-btn:not(.template-pick):not(.claim-btn):not([disabled])").first.click()
    chooser = page.locator("#chooser")
    if chooser.count():  # a card that several moves name, or a Russian Bank card: a legal destination
        legal = chooser.locator(".move-btn.legal")
        (legal if legal.count() else chooser.locator(".move-btn")).first.click()
    wait_seq(page, before + 1)
