#!/usr/bin/env python3
"""Growth: does the cost of a request grow with the match history? (in-process, one core)

1. ``replay`` of move logs of 10, 100 and 1,000 moves (where a game is that long) from a seeded
   deal: total time and time per move. Linear total = flat time per move.
2. ``moves`` at move 10, 100 and 1,000 of a long match: the request body size (the state carries
   what the rules need, no log) and the time per request, open mode and sealed mode.

The logs are seeded random matches (tests/playouts.py), written as the wire moves a client sends.
Usage: python3 bench/growth.py [--repeat 5] [--game ID]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cryptography.fernet import Fernet

from service import create_app
from service.engines import ENGINES
from service.schemas import SCHEMAS
from service.schemas.common import to_wire
from tests.playouts import random_playout

LENGTHS = (10, 100, 1000)
# Options that make matches long enough (bragging: unlimited hands by default, a small target elsewhere is not used).
LONG: dict[str, dict[str, Any]] = {"schnapsen": {"target": 100}, "seven_up": {"target": 100},
                                   "california_jack": {"target": 100}}


def long_match(game: str, players: int) -> tuple[int, Any, list[tuple[Any, Any]]]:
    """(seed, options, [(state before, move)...]) of the longest of a few seeded matches."""
    engine = ENGINES[game]
    options = engine.Options(**{k: v for k, v in LONG.get(game, {}).items() if hasattr(engine.Options(), k)})
    best: tuple[int, list[tuple[Any, Any]]] = (0, [])
    for seed in range(1, 6):
        steps = [(before, move) for before, move, _ in random_playout(engine, players, seed, options, max_moves=max(LENGTHS))]
        if len(steps) > len(best[1]):
            best = (seed, steps)
        if len(steps) >= max(LENGTHS):
            break
    return best[0], options, best[1]


def timed(fn: Any, repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--game", action="append")
    args = parser.parse_args()
    open_client = create_app({"ALLOW_FIXED_DECKS": True}).test_client()
    sealed_app = create_app({"SEAL_KEYS": [Fernet.generate_key().decode()], "ALLOW_FIXED_DECKS": True})
    sealed_client = sealed_app.test_client()
    sealer = sealed_app.extensions["referee.sealer"]
    print(f"{'game':<16}{'moves':>6}{'replay ms':>11}{'µs/move':>9}  |{'body B':>9}{'open ms':>9}{'sealed B':>10}{'sealed ms':>10}")
    for game, engine in ENGINES.items():
        if args.game and game not in args.game:
            continue
        codec = SCHEMAS[game]
        players = engine.DEFAULT_PLAYERS
        seed, options, steps = long_match(game, players)
        log = [to_wire(move) for _, move in steps]
        wire_options = {k: v for k, v in to_wire(options).items()} if not isinstance(to_wire(options), str) else {}
        for n in LENGTHS:
            if n > len(log):
                print(f"{game:<16}{n:>6}  (its longest random match here has {len(log)} moves)")
                break
            body = {"players": players, "seed": seed, "options": wire_options, "moves": log[:n]}

            def replay(body: dict[str, Any] = body, game: str = game, n: int = n) -> None:
                r = open_client.post(f"/v1/games/{game}/replay", json=body)
                assert r.status_code == 200 and r.json["moves_legal"] == n, r.json

            total = timed(replay, args.repeat)
            before, _ = steps[n - 1]
            move_body = {"state": codec.dump_state(before), "move": log[n - 1]}
            raw = json.dumps(move_body)
            token = sealer.seal(game, "bench", codec.pack(before))
            sealed_body = {"token": token, "move": log[n - 1]}
            sealed_raw = json.dumps(sealed_body)

            def apply_open(raw: str = raw, game: str = game) -> None:
                r = open_client.post(f"/v1/games/{game}/moves", data=raw, content_type="application/json")
                assert r.status_code == 200, r.json

            def apply_sealed(raw: str = sealed_raw, game: str = game) -> None:
                r = sealed_client.post(f"/v1/games/{game}/moves", data=raw, content_type="application/json",
                                       headers={"X-Seat-Key": sealer.seat_key("bench", "table")})
                assert r.status_code == 200, r.json

            t_open = timed(apply_open, args.repeat * 4)
            t_sealed = timed(apply_sealed, args.repeat * 4)
            print(f"{game:<16}{n:>6}{total * 1000:>11.1f}{total / n * 1e6:>9.0f}  |{len(raw):>9,}{t_open * 1000:>9.2f}"
                  f"{len(sealed_raw):>10,}{t_sealed * 1000:>10.2f}", flush=True)


if __name__ == "__main__":
    main()
