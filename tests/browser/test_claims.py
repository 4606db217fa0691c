"""Slapjack and Snap played from the keyboard of one device: the page stamps ``at`` from its own
clock, each seat has a key, and presses close together become one batch that the service judges.

Regression: clicking the listed ``slap`` sent it without ``at`` and every slap and snap was refused
``bad_timestamp``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from .conftest import Page, needs_browser
from .helpers import expect, seq, shown, start, wait_seq

pytestmark = [pytest.mark.browser, needs_browser]

MAX_FLIPS = 150


def _sent(p: Any) -> list[dict[str, Any]]:
    """The moves the page sends (its own requests, not the per-seat re-asks with ?as=)."""
    moves: list[dict[str, Any]] = []

    def record(r: Any) -> None:
        if r.method == "POST" and r.url.endswith("/moves") and r.post_data:
            moves.append(json.loads(r.post_data)["move"])

    p.on("request", record)
    return moves


def _flip_until(p: Any, ready: Callable[[dict[str, Any]], bool]) -> None:
    for _ in range(MAX_FLIPS):
        if ready(shown(p)["state"]):
            return
        before = seq(p)
        p.keyboard.press("f")
        wait_seq(p, before + 1)
    raise AssertionError(f"no such position within {MAX_FLIPS} flips")


def _claim(p: Any, *keys: str) -> str:
    """Press the seats' keys together; return the newest log entry once the service has judged."""
    before = seq(p)
    for k in keys:
        p.keyboard.down(k)
    for k in keys:
        p.keyboard.up(k)
    wait_seq(p, before + 1)
    assert p.locator("#problem").is_hidden(), p.inner_text("#problem")
    return p.locator("#log > li").first.inner_text()


def _slapjack_top(state: dict[str, Any]) -> str | None:
    return state["center"][-1]["card"] if state["center"] else None


def test_slapjack_by_keyboard_a_false_slap_a_correct_slap_and_two_at_once(page: Page) -> None:
    p = page.open()
    moves = _sent(p)
    start(p, game="slapjack", seed=3)
    keys = p.locator("#moves .claim-btn kbd").all_inner_texts()
    assert keys == ["A", "L"]  # each seat's key is on screen
    _flip_until(p, lambda s: _slapjack_top(s) is not None and not _slapjack_top(s).startswith("J"))
    entry = _claim(p, "a")
    assert "False slap by seat 0" in entry
    assert moves[-1]["type"] == "slap" and moves[-1]["player"] == 0 and isinstance(moves[-1]["at"], int)
    _flip_until(p, lambda s: (_slapjack_top(s) or "").startswith("J"))
    entry = _claim(p, "l")
    assert "Seat 1 slapped first and takes" in entry
    _flip_until(p, lambda s: (_slapjack_top(s) or "").startswith("J"))
    entry = _claim(p, "a", "l")
    batch = moves[-1]
    assert batch["type"] == "slaps" and sorted(c["player"] for c in batch["claims"]) == [0, 1]
    assert all(isinstance(c["at"], int) for c in batch["claims"])
    assert "slapped first and takes" in entry and "was slower" in entry  # judged: one wins, one was slower
    assert not any(m.get("type") == "slap" and "at" not in m for m in moves)


def _snap_match(state: dict[str, Any]) -> bool:
    tops = [pile[-1][:-1] for pile in state["faceups"] if pile]
    return len(tops) != len(set(tops))


def test_snap_by_keyboard_a_false_call_a_snap_and_two_at_once(page: Page) -> None:
    p = page.open()
    moves = _sent(p)
    start(p, game="snap", seed=11)
    assert p.locator("#moves .claim-btn kbd").all_inner_texts() == ["A", "L"]
    _flip_until(p, lambda s: sum(1 for pile in s["faceups"] if pile) == 1)
    entry = _claim(p, "l")
    assert "False snap by seat 1" in entry
    _flip_until(p, _snap_match)
    entry = _claim(p, "a")
    assert "Seat 0 called snap first and takes" in entry
    _flip_until(p, _snap_match)
    entry = _claim(p, "l", "a")
    batch = moves[-1]
    assert batch["type"] == "snaps" and sorted(c["player"] for c in batch["claims"]) == [0, 1]
    assert "called snap first" in entry and "was slower" in entry
    # the verdict is announced: the page empties the live region and refills it 30 ms later (so a
    # screen reader speaks a repeated text again), so wait for it rather than read it at once
    expect(p.locator("#announce")).not_to_be_empty()


def test_sealed_mode_claims_two_seats_at_once_with_the_table_key(sealed_page: Page) -> None:
    """On one device in sealed mode the page holds every key: a single claim goes with its seat's
    key, a batch of several seats with the table key; the service judges both."""
    p = sealed_page.open()
    moves = _sent(p)
    keys: list[str | None] = []
    p.on("request", lambda r: keys.append(r.headers.get("x-seat-key")) if r.url.endswith("/moves") else None)
    start(p, game="slapjack", seed=3)
    before = seq(p)
    p.keyboard.press("f")
    wait_seq(p, before + 1)
    top = p.locator("#table [data-field='center_top'] [data-card]").get_attribute("data-card") or ""
    entry = _claim(p, "a", "l")
    assert moves[-1]["type"] == "slaps" and len(moves[-1]["claims"]) == 2
    assert keys[-1] and keys[-1] not in (keys[0],)  # the table key, not the flipper's seat key
    assert ("slapped first" if top.startswith("J") else "False slap by seat 0 and seat 1") in entry
