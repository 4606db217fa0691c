#!/usr/bin/env python3
"""Where the time of one move request goes (in-process, cProfile), open and sealed mode.

Runs a mid-game Schnapsen move request N times through the WSGI app and attributes each
function's own time to a stage by the module it lives in: the framework (Flask/Werkzeug), JSON
parsing, validation at the edge (marshmallow and the game codecs), the engine (rules), sealing
(Fernet/HMAC), serialization (envelope, wire dump, JSON output), the rest. cProfile slows
Python-heavy code more than C code, so read the shares, not the absolute times.
Usage: python3 bench/profile_move.py [--requests 2000] [--game schnapsen] [--top 12]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cryptography.fernet import Fernet

from service import create_app
from service.engines import ENGINES
from service.schemas import SCHEMAS
from service.schemas.common import to_wire
from tests.playouts import random_playout

STAGES = (
    ("engine (rules)", ("service/engines/", "service/cards/")),
    ("sealing", ("service/sealing.py", "cryptography/", "hmac.py", "hashlib", "base64.py", "_hashlib", "binascii")),
    ("serialization", ("service/api/envelope.py", "json/encoder.py", "encode", "common.py:to_wire", "packed.py")),
    ("validation (edge)", ("marshmallow/", "service/schemas/")),
    ("JSON parsing", ("json/decoder.py", "json/__init__.py", "raw_decode", "loads")),
    ("framework (Flask/Werkzeug)", ("flask/", "werkzeug/", "service/api/", "service/observability.py", "prometheus_client/")),
)


def stage_of(filename: str, name: str) -> str:
    where = f"{filename}:{name}"
    for stage, needles in STAGES:
        if any(n in where for n in needles):
            return stage
    return "other"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--game", default="schnapsen")
    parser.add_argument("--top", type=int, default=12)
    args = parser.parse_args()
    engine, codec = ENGINES[args.game], SCHEMAS[args.game]
    steps = list(random_playout(engine, engine.DEFAULT_PLAYERS, seed=3))
    before, move, _ = steps[len(steps) // 2]
    key = Fernet.generate_key().decode()
    for mode in ("open", "sealed"):
        app = create_app({"SEAL_KEYS": [key]} if mode == "sealed" else {})
        client = app.test_client()
        headers = {}
        if mode == "sealed":
            sealer = app.extensions["referee.sealer"]
            body = {"token": sealer.seal(args.game, "m", codec.pack(before)), "move": to_wire(move)}
            headers["X-Seat-Key"] = sealer.seat_key("m", "table")
        else:
            body = {"state": codec.dump_state(before), "move": to_wire(move)}
        raw = json.dumps(body)
        for _ in range(50):
            assert client.post(f"/v1/games/{args.game}/moves", data=raw, content_type="application/json", headers=headers).status_code == 200
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(args.requests):
            client.post(f"/v1/games/{args.game}/moves", data=raw, content_type="application/json", headers=headers)
        profiler.disable()
        stats = pstats.Stats(profiler)
        totals: dict[str, float] = defaultdict(float)
        for (filename, _, name), (_, _, tottime, _, _) in stats.stats.items():  # type: ignore[attr-defined]
            totals[stage_of(filename, name)] += tottime
        whole = sum(totals.values())
        print(f"\n{args.game} move request, {mode} mode: {whole / args.requests * 1e6:,.0f} µs per request under cProfile, {len(raw):,} B body")
        for stage, t in sorted(totals.items(), key=lambda kv: -kv[1]):
            print(f"  {stage:<28}{t / whole:>7.1%}")
        print(f"  top {args.top} functions by own time:")
        rows = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])[: args.top]  # type: ignore[attr-defined]
        for (filename, line, name), (_, calls, tottime, _, _) in rows:
            short = "/".join(Path(filename).parts[-2:])
            print(f"    {tottime / whole:>6.1%}  {calls / args.requests:>6.1f}/req  {short}:{line} {name}")


if __name__ == "__main__":
    main()
