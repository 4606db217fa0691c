"""The side-by-side benchmark's own sanity checks (bench/vs_schnapsen.py), on a few hundred deals:
both engines play the same rules subset (every deal ends at 66 or at the last trick, never by a
close or an explicit claim), with moves per deal in agreement, so the rates it prints may be set
side by side. No timing is asserted.

Needs the VU engine (PyPI ``schnapsen==0.0.5``, installed with ``--no-deps``; docs/dev/performance.md).
"""

from __future__ import annotations

import random

import pytest

pytest.importorskip(
    "schnapsen.game", reason="the VU engine is not installed: python3 -m pip install --no-deps 'schnapsen==0.0.5'"
)

from bench.vs_schnapsen import MAX_MOVES_GAP, OPTIONS, Tally, comparable, play_ours, play_theirs
from service.engines import schnapsen

DEALS = 400


@pytest.fixture(scope="module")
def tallies() -> tuple[Tally, Tally]:
    rng = random.Random(2024)
    return play_theirs(rng, deals=DEALS), play_ours(rng, deals=DEALS)


def test_every_deal_of_both_engines_ends_at_66_or_at_the_last_trick(tallies: tuple[Tally, Tally]) -> None:
    theirs, ours = tallies
    for tally in (theirs, ours):
        assert tally.deals == DEALS
        assert tally.ends["other"] == 0, tally.ends
        assert tally.ends["66"] + tally.ends["last_trick"] == DEALS
        # random play reaches 66 in most deals, and plays some to the last trick
        assert 0.5 < tally.share_66 < 0.95, tally.ends


def test_moves_per_deal_agree_so_the_rates_are_comparable(tallies: tuple[Tally, Tally]) -> None:
    theirs, ours = tallies
    assert 12 < theirs.moves_per_deal < 21  # ten tricks at most: twenty plays, plus exchanges and marriages
    assert abs(ours.moves_per_deal - theirs.moves_per_deal) <= MAX_MOVES_GAP * theirs.moves_per_deal
    assert comparable(theirs, ours) == []


def test_the_comparison_is_declared_void_when_the_counts_disagree() -> None:
    theirs = Tally(deals=100, moves=1600, ends={"66": 70, "last_trick": 30, "other": 0})
    longer = Tally(deals=100, moves=1800, ends={"66": 70, "last_trick": 30, "other": 0})
    other_ends = Tally(deals=100, moves=1600, ends={"66": 40, "last_trick": 55, "other": 5})
    assert comparable(theirs, theirs) == []
    assert "moves per deal differ by 12.5%" in comparable(theirs, longer)[0]
    problems = comparable(theirs, other_ends)
    assert any("ending at 66" in p for p in problems) and any("5 deals ended neither" in p for p in problems)


def test_our_side_plays_the_shared_subset() -> None:
    """Auto-claim (no claim move), the exchange while any talon card is left, and close never chosen."""
    assert OPTIONS.auto_claim and OPTIONS.exchange_with_two_left
    rng = random.Random(7)
    for _ in range(50):
        deck = list(schnapsen.PACK)
        rng.shuffle(deck)
        state = schnapsen.new_game(OPTIONS, 2, deck)
        while schnapsen.status(state) == "in_progress":
            legal = schnapsen.legal_moves(state)
            assert not any(isinstance(m, schnapsen.Claim) for m in legal)
            choices = [m for m in legal if not isinstance(m, schnapsen.Close)]
            state = schnapsen.apply(state, choices[rng.randrange(len(choices))])
        assert state.closed_by is None
        assert state.result is not None and state.result.reason in (schnapsen.Reason.CLAIM, schnapsen.Reason.LAST_TRICK)
