#!/usr/bin/env python3
"""Our Schnapsen engine beside the VU Amsterdam course's public engine (PyPI ``schnapsen`` 0.0.5).

Install the other engine without its dependencies (they pin an old Flask)::

    python3 -m pip install --no-deps 'schnapsen==0.0.5'

Both engines play whole random deals on the rules they share, in one process, in alternating
rounds (the order flips every round, so neither always runs on a warm or a cold cache):

- a deal ends when the winner of a trick reaches 66 points (marriages count once their declarer has
  won a trick), or at the last trick; no closing, no explicit claim. Ours runs with
  ``auto_claim=True`` (the deal ends as a correct claim the moment a player has 66) and
  ``exchange_with_two_left=True`` (theirs allows the trump exchange while any talon card is left);
  ``close`` is left out of the choice (a drawn ``close`` is drawn again, which keeps the choice
  uniform among the other moves);
- the policy is the same for both: each move uniform among the legal moves (``randrange`` over the
  listed moves), and each deal dealt from ``random.Random.shuffle`` of the 20-card pack, so the
  figure measures the engines, not a shuffle;
- each side is driven through its public API: theirs ``GamePlayEngine.play_game`` with a bot that
  picks from ``perspective.valid_moves()``; ours ``legal_moves`` then ``apply`` (which checks the move
  again) until the status leaves ``in_progress``.

Printed per round: deals and moves per second of CPU time (``time.process_time``, so that waiting for
a core on a busy machine counts against neither) and moves per deal of each, and our deals/s over theirs; at the
end the median ratio. The counts must agree: if the two engines' moves per deal differ by more than
``MAX_MOVES_GAP`` (5%), or their deals do not end the same ways in like shares, the script says the
comparison is void. (A marriage is one move in theirs, declaring and leading the King; two in ours,
declaring then leading K or Q; the gap that makes is about 1%.)

Usage: python3 bench/vs_schnapsen.py [--rounds 7] [--seconds 2]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.engines import schnapsen as ours

MAX_MOVES_GAP = 0.05
"""Largest relative gap in moves per deal for which the two rates may be set side by side."""

MAX_SHARE_GAP = 0.10
"""Largest gap in the share of deals that end at 66 (the rest end at the last trick)."""

OPTIONS = ours.Options(auto_claim=True, exchange_with_two_left=True)

clock = time.process_time
"""Rates are per second of this process's CPU time: on a shared machine, time spent waiting for a
core is not counted against either engine."""


@dataclass
class Tally:
    """Deals, moves and how the deals ended, for one engine."""

    deals: int = 0
    moves: int = 0
    seconds: float = 0.0
    ends: dict[str, int] = field(default_factory=lambda: {"66": 0, "last_trick": 0, "other": 0})

    def add(self, other: Tally) -> None:
        self.deals += other.deals
        self.moves += other.moves
        self.seconds += other.seconds
        for k, v in other.ends.items():
            self.ends[k] += v

    @property
    def moves_per_deal(self) -> float:
        return self.moves / max(self.deals, 1)

    @property
    def share_66(self) -> float:
        return self.ends["66"] / max(self.deals, 1)


# --- ours ---------------------------------------------------------------------------------------


def play_ours(rng: random.Random, deals: int | None = None, seconds: float | None = None) -> Tally:
    """Random deals through our engine's API until ``deals`` are played or ``seconds`` have passed."""
    pack = list(ours.PACK)
    legal_moves, apply, status, new_game, close = ours.legal_moves, ours.apply, ours.status, ours.new_game, ours.Close
    tally = Tally()
    start = clock()
    deadline = start + (seconds if seconds is not None else 1e9)
    while (deals is None or tally.deals < deals) and (seconds is None or clock() < deadline):
        deck = pack[:]
        rng.shuffle(deck)
        state = new_game(OPTIONS, 2, deck)
        n = 0
        while status(state) == "in_progress":
            legal = legal_moves(state)
            move = legal[rng.randrange(len(legal))]
            while type(move) is close:  # drawn again: uniform among the moves other than close
                move = legal[rng.randrange(len(legal))]
            state = apply(state, move)
            n += 1
        tally.deals += 1
        tally.moves += n
        tally.ends[_our_end(state)] += 1
    tally.seconds = clock() - start
    return tally


def _our_end(state: Any) -> str:
    """How one of our deals ended, in the shared terms."""
    result = state.result
    if result is None:
        return "other"
    if result.reason is ours.Reason.LAST_TRICK and not state.hands[0] and not state.hands[1]:
        return "last_trick"
    if result.reason is ours.Reason.CLAIM and state.closed_by is None and max(result.points) >= ours.WINNING_POINTS:
        return "66"
    return "other"


# --- theirs -------------------------------------------------------------------------------------


def _their_engine() -> tuple[Any, type]:
    """The VU engine and a uniform random bot class for it (imported late: it is optional)."""
    from schnapsen.game import Bot, SchnapsenGamePlayEngine

    class UniformBot(Bot):  # type: ignore[misc]
        """Picks uniformly among ``valid_moves()``; counts its moves and notes how the deal ended."""

        def __init__(self, rng: random.Random) -> None:
            super().__init__()
            self.rng = rng
            self.moves = 0
            self.end = "other"

        def get_move(self, perspective: Any, leader_move: Any) -> Any:
            moves = perspective.valid_moves()
            self.moves += 1
            return moves[self.rng.randrange(len(moves))]

        def notify_game_end(self, won: bool, perspective: Any) -> None:
            if won:
                cards_left = len(perspective.get_hand()) + perspective.get_talon_size()
                if perspective.get_my_score().direct_points >= 66 and cards_left:
                    self.end = "66"
                elif not cards_left:
                    self.end = "last_trick"

    return SchnapsenGamePlayEngine(), UniformBot


def play_theirs(rng: random.Random, deals: int | None = None, seconds: float | None = None) -> Tally:
    """Random deals through the VU engine's ``play_game`` until ``deals`` or ``seconds``."""
    engine, bot_class = _their_engine()
    tally = Tally()
    start = clock()
    deadline = start + (seconds if seconds is not None else 1e9)
    while (deals is None or tally.deals < deals) and (seconds is None or clock() < deadline):
        a, b = bot_class(rng), bot_class(rng)
        engine.play_game(a, b, rng)
        tally.deals += 1
        tally.moves += a.moves + b.moves
        winner_end = a.end if a.end != "other" else b.end
        tally.ends[winner_end] += 1
    tally.seconds = clock() - start
    return tally


# --- the comparison -----------------------------------------------------------------------------


def comparable(theirs: Tally, mine: Tally) -> list[str]:
    """Why the two tallies may not be set side by side (empty: they may)."""
    problems = []
    gap = abs(mine.moves_per_deal - theirs.moves_per_deal) / max(theirs.moves_per_deal, 1e-9)
    if gap > MAX_MOVES_GAP:
        problems.append(
            f"moves per deal differ by {gap:.1%} (ours {mine.moves_per_deal:.2f}, theirs {theirs.moves_per_deal:.2f})"
        )
    if abs(mine.share_66 - theirs.share_66) > MAX_SHARE_GAP:
        problems.append(f"deals ending at 66: ours {mine.share_66:.1%}, theirs {theirs.share_66:.1%}")
    for name, t in (("ours", mine), ("theirs", theirs)):
        if t.ends["other"]:
            problems.append(f"{name}: {t.ends['other']} deals ended neither at 66 nor at the last trick")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=2.0, help="time per engine per round")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    try:
        import schnapsen.game  # noqa: F401
    except ImportError:
        print("needs the VU engine: python3 -m pip install --no-deps 'schnapsen==0.0.5'", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    play_theirs(rng, deals=200)  # warm both up
    play_ours(rng, deals=200)
    total_theirs, total_ours = Tally(), Tally()
    ratios = []
    print("| round | VU engine deals/s | moves/s | moves/deal | ours deals/s | moves/s | moves/deal | ours / VU |")
    print("|---|---|---|---|---|---|---|---|")
    for r in range(1, args.rounds + 1):
        if r % 2:
            t = play_theirs(rng, seconds=args.seconds)
            m = play_ours(rng, seconds=args.seconds)
        else:
            m = play_ours(rng, seconds=args.seconds)
            t = play_theirs(rng, seconds=args.seconds)
        total_theirs.add(t)
        total_ours.add(m)
        tr, mr = t.deals / t.seconds, m.deals / m.seconds
        ratios.append(mr / tr)
        print(
            f"| {r} | {tr:,.0f} | {t.moves / t.seconds:,.0f} | {t.moves_per_deal:.2f} "
            f"| {mr:,.0f} | {m.moves / m.seconds:,.0f} | {m.moves_per_deal:.2f} | {mr / tr:.2f} |",
            flush=True,
        )
    print(
        f"all rounds: moves/deal VU {total_theirs.moves_per_deal:.2f}, ours {total_ours.moves_per_deal:.2f}; "
        f"deals ending at 66: VU {total_theirs.share_66:.1%}, ours {total_ours.share_66:.1%} (the rest at the last trick)"
    )
    problems = comparable(total_theirs, total_ours)
    if problems:
        print("VOID: the two engines did not play comparable deals: " + "; ".join(problems))
        return 1
    print(f"median ratio (ours deals/s over the VU engine's): {statistics.median(ratios):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
