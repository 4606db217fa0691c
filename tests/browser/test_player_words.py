"""Every refusal and event the table shows reads as a sentence for players: no code, no field path,
no seat paying itself; the code stays in the details (and the title) for those who want it.

Regression: a false slap read "seat 0 pays nothing to seat 0"; refusals showed "invalid_move" and
field paths where a player needs a sentence.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from service import create_app

from .conftest import Page, needs_browser
from .helpers import seq, shown, start, wait_seq

pytestmark = [pytest.mark.browser, needs_browser]

CODE = re.compile(r"\b[a-z]+_[a-z_]+\b|\bmove\.[a-z]|\$\.|/[a-z]+/\d")


def _games() -> list[str]:
    client = create_app({"SEAL_KEYS": [], "TESTING": True}).test_client()
    return [g["id"] for g in client.get("/v1/games").get_json()["games"]]


def _send(p: Any, move: dict[str, Any]) -> str:
    """Send a move from the JSON box; the problem box's visible words once refused."""
    if not p.locator("details:has(#move-json)").evaluate("d => d.open"):
        p.click("details:has(#move-json) > summary")
    p.fill("#move-json", json.dumps(move))
    p.click("#send-move")
    problem = p.locator("#problem")
    problem.wait_for(state="visible")
    assert problem.locator("[data-code]").count() == 1  # a refusal, with its code kept
    return problem.locator(".player-words").inner_text()


@pytest.mark.parametrize("game", _games())
def test_every_games_refusals_read_as_sentences(page: Page, game: str) -> None:
    p = page.open()
    start(p, game=game, seed=20261201)
    env = shown(p)
    n = len(env["scores"]["totals"])
    legal = env["legal_moves"][0]
    other = next((s for s in range(n) if s not in env["to_move"]), None)
    tries = [{**legal, "type": "no_such_move"}, {"type": legal["type"]}, {**legal, "player": 99}]
    if other is not None and game not in ("slapjack", "snap"):
        tries.append({**legal, "player": other})
    for move in tries:
        words = _send(p, move)
        assert words.endswith(".") and words[0].isupper(), (move, words)
        assert not CODE.search(words), (move, words)
        entry = p.locator("#log > li.refused").first
        text = entry.locator(".log-problem").inner_text()
        assert not CODE.search(text) and entry.locator(".log-problem").get_attribute("data-code"), text


@pytest.mark.parametrize("game", ["slapjack", "snap"])
def test_false_claims_read_as_sentences(page: Page, game: str) -> None:
    p = page.open()
    start(p, game=game, seed=3)
    said = []
    for key in "alla":  # claims on cards that match nothing: false, whoever put the top card there
        before = seq(p)
        p.keyboard.press("f")
        wait_seq(p, before + 1)
        before = seq(p)
        p.keyboard.press(key)
        wait_seq(p, before + 1)
        said.append(p.locator("#log > li").first.inner_text())
    text = "\n".join(said)
    assert "False" in text
    assert not re.search(r"seat (\d) (pays|gives) nothing to seat \1", text), text
    assert not CODE.search(text), text
