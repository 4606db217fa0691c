#!/usr/bin/env python3
"""Russian Bank legal-move generation cost on a pinned busy mid-game position.

The position is reached from the seeded deck ``deal_deck(PACK, SEED)`` by the progress-biased
random chooser of tests/playouts.py (``random.Random(SEED)``), ``PLY`` moves in: a mid-game state
with many free cards and targets. Prints the legal moves of that position, the time of one
``legal_moves`` call, and the time of ``apply`` (each listed move in turn) and of a refused move.
Runs in a few seconds: python3 bench/russian_bank_movegen.py [--repeat 20000]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.cards.shuffle import deal_deck
from service.engines import russian_bank as rb
from service.engines.base import IllegalMove
from tests.playouts import CHOOSERS

SEED = 8
PLY = 108  # pinned: the busiest position between moves 100 and 300 of this game (see --find)


def position(ply: int) -> rb.State:
    state = rb.new_game(rb.Options(), 2, deal_deck(rb.PACK, SEED))
    rng = random.Random(SEED)
    choose = CHOOSERS[rb.GAME_ID]
    for _ in range(ply):
        state = rb.apply(state, choose(state, rb.legal_moves(state), rng))
    return state


def busiest(first: int, limit: int) -> int:
    state = rb.new_game(rb.Options(), 2, deal_deck(rb.PACK, SEED))
    rng = random.Random(SEED)
    choose = CHOOSERS[rb.GAME_ID]
    best, best_ply = -1, 0
    for ply in range(limit):
        if state.phase is not rb.Phase.PLAY:
            break
        legal = rb.legal_moves(state)
        if ply >= first and len(legal) > best:
            best, best_ply = len(legal), ply
        state = rb.apply(state, choose(state, legal, rng))
    return best_ply


def per_call(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=20000)
    ap.add_argument("--find", action="store_true", help="print the busiest ply of the pinned game")
    args = ap.parse_args()
    if args.find:
        print("busiest ply between 100 and 300:", busiest(100, 300))
        return
    state = position(PLY)
    legal = rb.legal_moves(state)
    tops = sum(1 for pile in state.tableau if pile)
    print(f"position: seed {SEED}, ply {PLY}, seat {state.to_move} to move, {tops} tableau tops, "
          f"stocks {[len(p.stock) for p in state.players]}, wastes {[len(p.waste) for p in state.players]}")
    print(f"legal moves per position: {len(legal)}")
    n = args.repeat
    t_legal = per_call(lambda: rb.legal_moves(state), n)
    print(f"legal_moves: {t_legal:.1f} µs per call ({t_legal / len(legal):.2f} µs per legal move)")
    reps = max(1, n // len(legal))
    start = time.perf_counter()
    for _ in range(reps):
        for m in legal:
            rb.apply(state, m)
    t_apply = (time.perf_counter() - start) / (reps * len(legal)) * 1e6
    print(f"apply (check + transition), listed moves: {t_apply:.1f} µs per call")
    bad = rb.MoveCard(state.to_move, state.tableau[0][-1] if state.tableau[0] else rb.PACK[0], "tableau:0", "opponent_stock")

    def refused() -> None:
        try:
            rb.apply(state, bad)
        except IllegalMove:
            pass

    print(f"apply refused ({bad.card} tableau:0->opponent_stock): {per_call(refused, n):.1f} µs per call")
    print(f"legal_moves + apply of one move (a playout step): {t_legal + t_apply:.1f} µs")


if __name__ == "__main__":
    main()
