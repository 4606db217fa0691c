#!/usr/bin/env python3
"""Engine throughput: random full games through the engine API (legal moves + apply each step).

For every game in the registry and each of its player counts, on one core:

- **deals**: seeded random deals from a fresh deck, played to their end (a ``deal_over`` or
  ``game_over`` status), moves chosen uniformly from ``legal_moves`` at every step. Prints
  deals/s and moves/s. (Random claims end some Schnapsen deals early; ``--no-claims`` never
  claims, so every Schnapsen deal is played to its last trick, the harder case.)
- **games**: whole matches to the game's end (``next_deal`` filled from the seeded shuffle), with
  the move chooser the invariant suite uses (tests/playouts.py). Prints games/s and moves/s.
  Bragging has no end by default; its games here are 10 hands (``GAME_OPTIONS``).

A deal or game still going after ``--max-moves`` moves is counted as ``capped`` (Russian Bank's
rules allow endless positions; random play can reach them). Usage:
python3 bench/engines.py [--seconds 2] [--no-claims] [--game ID]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.engines import ENGINES
from tests.playouts import fill_template, is_template, random_playout


def deals(engine: Any, players: int, seconds: float, no_claims: bool, max_moves: int) -> tuple[int, int, int, float]:
    rng = random.Random(1)
    options = engine.Options()
    pack = engine.pack(options, players)
    count = moves = capped = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(20):
            deck = list(pack)
            rng.shuffle(deck)
            state = engine.new_game(options, players, deck)
            for _ in range(max_moves):
                if engine.status(state) != "in_progress":
                    break
                legal = engine.legal_moves(state)
                if no_claims:
                    legal = [m for m in legal if m.TYPE != "claim"] or legal
                move = legal[rng.randrange(len(legal))]
                if is_template(move):  # an amount range (a raise "to" at least ...): its minimum or a bit more
                    move = fill_template(move, (), bump=rng.choice((0, 0, 1, 2)))
                state = engine.apply(state, move)
                moves += 1
            else:
                capped += 1
            count += 1
    return count, moves, capped, time.perf_counter() - start


# Options for whole games where the default never ends a game (bragging plays hands until stopped).
GAME_OPTIONS: dict[str, dict[str, Any]] = {"bragging": {"hands": 10}}


def games(engine: Any, players: int, seconds: float, max_moves: int) -> tuple[int, int, int, float]:
    options = engine.Options(**GAME_OPTIONS.get(engine.GAME_ID, {}))
    count = moves = capped = 0
    seed = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        seed += 1
        n = 0
        last = None
        for _, _, after in random_playout(engine, players, seed, options, max_moves=max_moves):
            n += 1
            last = after
        moves += n
        capped += last is not None and engine.outcome(last) is None
        count += 1
    return count, moves, capped, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per game, player count and kind")
    parser.add_argument("--no-claims", action="store_true", help="never choose a claim move (deals)")
    parser.add_argument("--max-moves", type=int, default=5000, help="cap per deal or game")
    parser.add_argument("--game", action="append", help="only this game (repeatable)")
    args = parser.parse_args()
    print(f"{'game':<16}{'players':>8}{'deals/s':>10}{'moves/s':>10}{'mv/deal':>9}{'games/s':>10}{'moves/s':>10}{'mv/game':>9}{'capped':>8}")
    for game_id, engine in ENGINES.items():
        if args.game and game_id not in args.game:
            continue
        for players in engine.PLAYER_COUNTS:
            d, dm, dc, dt = deals(engine, players, args.seconds, args.no_claims, args.max_moves)
            g, gm, gc, gt = games(engine, players, args.seconds, args.max_moves)
            print(
                f"{game_id:<16}{players:>8}{d / dt:>10,.0f}{dm / dt:>10,.0f}{dm / max(d, 1):>9.1f}"
                f"{g / gt:>10,.1f}{gm / gt:>10,.0f}{gm / max(g, 1):>9.1f}{dc + gc:>8}",
                flush=True,
            )


if __name__ == "__main__":
    main()
