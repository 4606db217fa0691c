#!/usr/bin/env python3
"""Engine throughput: random full games through the engine API (legal moves + apply each step).

For every game in the registry, plays seeded random deals on one core and prints moves/s and
deals/s. A deal is played from a fresh deck to its end (a deal_over or game_over phase); moves
are chosen uniformly from legal_moves at every step, so random claims end some Schnapsen deals
early. ``--no-claims`` plays Schnapsen deals without claims (every deal to the last trick), the
harder case. Usage: python3 bench/engines.py [--seconds 3] [--no-claims]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.engines import ENGINES
from service.engines.moves import NextDeal


def run(engine, players: int, seconds: float, no_claims: bool) -> tuple[int, int, float]:
    rng = random.Random(1)
    options = engine.Options()
    pack = engine.pack(options, players)
    deals = moves = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(100):
            deck = list(pack)
            rng.shuffle(deck)
            state = engine.new_game(options, players, deck)
            status = engine.status(state)
            while status == "in_progress":
                legal = engine.legal_moves(state)
                if no_claims:
                    legal = [m for m in legal if m.TYPE != "claim"] or legal
                move = legal[rng.randrange(len(legal))]
                if isinstance(move, NextDeal):
                    break
                state = engine.apply(state, move)
                status = engine.status(state)
                moves += 1
            deals += 1
    return deals, moves, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per game and player count")
    parser.add_argument("--no-claims", action="store_true", help="never choose a claim move")
    args = parser.parse_args()
    print(f"{'game':<16}{'players':>8}{'deals/s':>12}{'moves/s':>12}{'moves/deal':>12}")
    for game_id, engine in ENGINES.items():
        for players in engine.PLAYER_COUNTS:
            deals, moves, dt = run(engine, players, args.seconds, args.no_claims)
            print(f"{game_id:<16}{players:>8}{deals / dt:>12,.0f}{moves / dt:>12,.0f}{moves / max(deals, 1):>12.1f}")


if __name__ == "__main__":
    main()
