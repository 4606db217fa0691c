#!/usr/bin/env python3
"""Engine throughput: random full games through the engine API (legal moves + apply each step).

For every game in the registry and each of its player counts, on one core:

- **deals**: seeded random first deals (the seeded shuffle, a new seed each), played to their end
  (a ``deal_over`` or ``game_over`` status) with the move chooser of the invariant suite
  (tests/playouts.py: uniform over ``legal_moves``; timed claims mixed in for Slapjack and Snap;
  a progress bias for Russian Bank). Prints deals/s and moves/s. (Random claims end some
  Schnapsen deals early.)
- **games**: whole matches to the game's end (``next_deal`` filled from the seeded shuffle), with
  the move chooser the invariant suite uses (tests/playouts.py). Prints games/s and moves/s.
  Bragging and Stukolka have no end by default; their games here are 10 hands / deals (``GAME_OPTIONS``).

A deal or game still going after ``--max-moves`` moves is counted as ``capped`` (Russian Bank's
rules allow endless positions; random play can reach them).

Rates are per second of this process's CPU time (``time.process_time``), so that time the process
spends waiting for a core on a busy machine is not counted against the engines.

``--against DIR`` compares with another checkout (e.g. ``git worktree add /tmp/before <commit>``):
game by game, this script measures DIR's engines (its ``service`` and ``tests/playouts.py``, with
this script's measuring code) and this checkout's in turn, in separate processes (the order flips
every game), and prints both moves/s and their ratio. Usage:
python3 bench/engines.py [--seconds 2] [--game ID] [--against DIR]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]
ENGINES: Any = None
random_playout: Any = None
clock = time.process_time


def load(code: Path) -> None:
    """Import the engines and the playout driver of the checkout at ``code``."""
    global ENGINES, random_playout
    sys.path.insert(0, str(code))
    from service.engines import ENGINES as engines
    from tests.playouts import random_playout as playout

    ENGINES, random_playout = engines, playout


def deals(engine: Any, players: int, seconds: float, max_moves: int) -> tuple[int, int, int, float]:
    """Seeded random first deals (a new seed each), each played until its status leaves ``in_progress``."""
    count = moves = capped = 0
    seed = 0
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        seed += 1
        n = 0
        for _, _, after in random_playout(engine, players, seed, max_moves=max_moves):
            n += 1
            if engine.status(after) != "in_progress":
                break
        else:
            capped += n >= max_moves
        moves += n
        count += 1
    return count, moves, capped, clock() - start


# Options for whole games where the default never ends a game (bragging plays hands until stopped).
GAME_OPTIONS: dict[str, dict[str, Any]] = {"bragging": {"hands": 10}, "stukolka": {"deals": 10}}


def games(engine: Any, players: int, seconds: float, max_moves: int) -> tuple[int, int, int, float]:
    options = engine.Options(**GAME_OPTIONS.get(engine.GAME_ID, {}))
    count = moves = capped = 0
    seed = 0
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        seed += 1
        n = 0
        last = None
        for _, _, after in random_playout(engine, players, seed, options, max_moves=max_moves):
            n += 1
            last = after
        moves += n
        capped += last is not None and engine.outcome(last) is None
        count += 1
    return count, moves, capped, clock() - start


def _rows(code: Path, game_id: str, seconds: float, max_moves: int) -> list[list[str]]:
    """The table rows of ``game_id`` measured on the engines of the checkout at ``code``."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    command = [sys.executable, __file__, "--code", str(code), "--game", game_id, "--seconds", str(seconds), "--max-moves", str(max_moves)]
    out = subprocess.run(command, cwd=code, env=env, capture_output=True, text=True, check=True).stdout
    return [line.split() for line in out.splitlines()[1:] if line.strip()]


def against(other: Path, games: list[str], seconds: float, max_moves: int) -> None:
    """Both checkouts' rows game by game in alternation, and the ratio of moves/s (deals, games)."""
    here = HERE
    print("| game | players | deals: moves/deal | moves/s before | after | × | games: moves/game | moves/s before | after | × |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for i, game_id in enumerate(games):
        if i % 2:
            after, before = _rows(here, game_id, seconds, max_moves), _rows(other, game_id, seconds, max_moves)
        else:
            before, after = _rows(other, game_id, seconds, max_moves), _rows(here, game_id, seconds, max_moves)
        for b, a in zip(before, after, strict=True):
            bd, ad, bg, ag = (float(x.replace(",", "")) for x in (b[3], a[3], b[6], a[6]))
            print(
                f"| {a[0]} | {a[1]} | {a[4]} | {bd:,.0f} | {ad:,.0f} | {ad / bd:.2f} "
                f"| {a[7]} | {bg:,.0f} | {ag:,.0f} | {ag / bg:.2f} |",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per game, player count and kind")
    parser.add_argument("--max-moves", type=int, default=5000, help="cap per deal or game")
    parser.add_argument("--game", action="append", help="only this game (repeatable)")
    parser.add_argument("--against", type=Path, help="another checkout to compare with, game by game in alternation")
    parser.add_argument("--code", type=Path, default=HERE, help=argparse.SUPPRESS)  # whose engines (--against)
    args = parser.parse_args()
    load(args.code.resolve())
    if args.against:
        against(args.against.resolve(), [g for g in ENGINES if not args.game or g in args.game], args.seconds, args.max_moves)
        return
    print(f"{'game':<16}{'players':>8}{'deals/s':>10}{'moves/s':>10}{'mv/deal':>9}{'games/s':>10}{'moves/s':>10}{'mv/game':>9}{'capped':>8}")
    for game_id, engine in ENGINES.items():
        if args.game and game_id not in args.game:
            continue
        for players in engine.PLAYER_COUNTS:
            d, dm, dc, dt = deals(engine, players, args.seconds, args.max_moves)
            g, gm, gc, gt = games(engine, players, args.seconds, args.max_moves)
            print(
                f"{game_id:<16}{players:>8}{d / dt:>10,.0f}{dm / dt:>10,.0f}{dm / max(d, 1):>9.1f}"
                f"{g / gt:>10,.1f}{gm / gt:>10,.0f}{gm / max(g, 1):>9.1f}{dc + gc:>8}",
                flush=True,
            )


if __name__ == "__main__":
    main()
