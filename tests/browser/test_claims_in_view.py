"""Slapjack and Snap are races: the claim keys, and the card a claim is about, must be on the first
screen at 1280 × 800 and on a 360 × 740 phone, in open and sealed mode, big enough to hit (44 × 44
CSS px), and stay exactly where they are while the log grows.

Regression: sealed Snap on a phone put the claim buttons at 745 and 779 px, at 1280 × 800 the claim
buttons were below the fold; sealed Slapjack drew the centre card as a text chip; sealed Snap
labelled each seat's face-up pile twice.
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import DESKTOP, PHONE, Page, needs_browser
from .helpers import seq, start, wait_seq

pytestmark = [pytest.mark.browser, needs_browser]

WATCHED = {"slapjack": "#table [data-field^='center'] .card.face", "snap": "#felt .seat [data-field^='faceup'] .card.face"}


def _flip(p: Any) -> None:
    before = seq(p)
    p.keyboard.press("f")
    wait_seq(p, before + 1)


def _boxes(p: Any, selector: str) -> list[dict[str, float]]:
    return [b for b in (x.bounding_box() for x in p.locator(selector).all()) if b is not None]


def _in_view(box: dict[str, float], size: dict[str, int]) -> bool:
    return box["y"] >= 0 and box["x"] >= 0 and box["y"] + box["height"] <= size["height"] and box["x"] + box["width"] <= size["width"]


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1280x800", "360x740"])
@pytest.mark.parametrize("mode", ["open", "sealed"])
@pytest.mark.parametrize("game", ["slapjack", "snap"])
def test_the_claim_keys_and_the_card_they_are_about_are_on_the_first_screen(
        page: Page, sealed_page: Page, game: str, mode: str, size: dict[str, int]) -> None:
    pg = page if mode == "open" else sealed_page
    p = pg.open()
    p.set_viewport_size(size)
    start(p, game=game, seed=3)
    for _ in range(3):
        _flip(p)
    p.evaluate("window.scrollTo(0, 0)")
    claims = _boxes(p, "#moves .claim-btn")
    watched = _boxes(p, WATCHED[game])
    assert len(claims) == 2 and len(watched) >= 1, (claims, watched)
    for box in claims + watched:
        assert _in_view(box, size), (game, mode, size, box)
    for box in claims:
        assert box["width"] >= 44 and box["height"] >= 44, box
    # every seat's panel names each of its piles once (sealed Snap said "face-up pile" twice)
    for seat in p.locator("#felt .seat").all():
        names = [t.strip() for t in seat.locator(".field-name").all_inner_texts()]
        assert len(names) == len(set(names)), names
    # the log grows (flips, a false claim): the claim keys do not move by a pixel
    for _ in range(6):
        _flip(p)
        p.evaluate("window.scrollTo(0, 0)")
        assert _boxes(p, "#moves .claim-btn") == claims
    before = seq(p)
    p.keyboard.press("a")
    wait_seq(p, before + 1)
    p.evaluate("window.scrollTo(0, 0)")
    assert p.locator("#log > li").count() >= 11
    assert _boxes(p, "#moves .claim-btn") == claims
