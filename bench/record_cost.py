#!/usr/bin/env python3
"""Fair play's cost: a sealed move with the record and the ledger on, at move 10 and move 400 of one
long match (in-process, one core), and token sizes on long matches of every game.

1. A sealed Snap match (the table key relays random moves) is played to move 400. From the tokens
   at ``seq`` 10 and 400 the next move is sent ``--repeat`` times (the ledger entry and the record's
   moves in the store are put back between tries, so every try pays the compare-and-set and the
   append): median ms per ``moves`` request, as the test client sends it (encoding the body
   included) and with the body encoded beforehand, and token length. Ledger: SQLite in a temporary
   file, or ``--redis redis://127.0.0.1:PORT/0``; the record is kept beside the token, in the
   ledger, unless ``--record-in-token`` (the token carries it, as without a ledger; the ledger still
   guards against rewinds).
2. Token length at the end of the longest of ``--matches`` random matches per game with its default
   options (Bragging 20 hands, Stukolka 20 deals: their defaults never end), and the number of moves.

Usage: python3 bench/record_cost.py [--repeat 30] [--matches 3] [--redis URL] [--record-in-token]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cryptography.fernet import Fernet
from flask.testing import FlaskClient

from service import create_app
from service.engines import ENGINES
from tests.fairplay.helpers import choose, true_state, wire

LONG_OPTIONS: dict[str, dict[str, Any]] = {"bragging": {"hands": 20}, "stukolka": {"deals": 20}}


def _move(client: FlaskClient, game: str, env: dict[str, Any], rng: random.Random, clock: int, table: str) -> Any:
    state = true_state(client, game, env["token"])
    clock = max(clock, getattr(state, "last_flip_at", None) or 0) + rng.randrange(0, 60)
    mv = wire(choose(game, state, rng, clock))
    return mv, clock


def _in_token(client: FlaskClient, game: str, token: str) -> str:
    """``token`` with its record carried in it (as before the record moved beside it): no chain."""
    sealer = client.application.extensions["referee.sealer"]
    match, packed = sealer.open(game, token)
    return sealer.seal(game, match.match_id, packed, dataclasses.replace(match, chain=None, count=0))  # type: ignore[no-any-return]


def long_match(client: FlaskClient, game: str, upto: int, seed: int, in_token: bool = False) -> dict[int, tuple[dict[str, Any], dict[str, Any]]]:
    """Envelopes (and the move played from them) at every seq of one match that reaches ``upto``."""
    for attempt in range(50):
        rng = random.Random(seed + attempt)
        env = client.post(f"/v1/games/{game}/new", json={}).json
        if in_token:
            env["token"] = _in_token(client, game, env["token"])
        table = env["table_key"]
        seen: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}
        clock = 0
        while env["status"] != "finished" and len(seen) <= upto:
            mv, clock = _move(client, game, env, rng, clock, table)
            seen[len(seen)] = (env, mv)
            r = client.post(f"/v1/games/{game}/moves", json={"token": env["token"], "move": mv}, headers={"X-Seat-Key": table})
            assert r.status_code == 200, r.json
            env = r.json
        if len(seen) > upto:
            return seen
    raise SystemExit(f"no {game} match reached {upto} moves")


def move_cost(app: Any, repeat: int, at: tuple[int, ...], in_token: bool = False) -> None:
    client = FlaskClient(app, app.response_class)
    game = "snap"
    seen = long_match(client, game, max(at), 1, in_token)
    ledger = app.extensions["referee.referee"].ledger
    where = "in the token" if in_token else "beside the token, in the ledger"
    print(f"{game}: a move request with the ledger on ({type(ledger).__name__}), the record {where}, median of {repeat}")
    for seq in at:
        env, mv = seen[seq]
        match_id = app.extensions["referee.sealer"].open(game, env["token"])[0].match_id
        stored = ledger.moves(match_id)[:seq]  # what the store held at seq (none with the record in the token)
        headers = {"X-Seat-Key": env.get("table_key") or seen[0][0]["table_key"]}
        body = {"token": env["token"], "move": mv}
        raw = json.dumps(body).encode()
        times, served = [], []
        for _ in range(repeat):
            ledger.register(match_id, seq, stored)  # back to seq: the move is accepted again
            t = time.perf_counter()
            r = client.post(f"/v1/games/{game}/moves", json=body, headers=headers)
            times.append(time.perf_counter() - t)
            assert r.status_code == 200, r.json
            ledger.register(match_id, seq, stored)
            t = time.perf_counter()
            r = client.post(f"/v1/games/{game}/moves", data=raw, content_type="application/json", headers=headers)
            served.append(time.perf_counter() - t)
            assert r.status_code == 200, r.json
        print(f"  move {seq:4d}: {statistics.median(times) * 1000:6.2f} ms   pre-encoded body {statistics.median(served) * 1000:6.2f} ms"
              f"   token {len(env['token']):6d} chars")


def token_sizes(app: Any, matches: int, in_token: bool = False) -> None:
    client = FlaskClient(app, app.response_class)
    where = "in the token" if in_token else "beside the token"
    print(f"token length at the end of the longest of {matches} random matches (default options), the record {where}")
    for game in ENGINES:
        longest = (0, 0)
        for seed in range(matches):
            rng = random.Random(seed)
            env = client.post(f"/v1/games/{game}/new", json={"options": LONG_OPTIONS.get(game, {})}).json
            if in_token:
                env["token"] = _in_token(client, game, env["token"])
            table = env["table_key"]
            clock = 0
            n = 0
            while env["status"] != "finished" and n < 3000:
                mv, clock = _move(client, game, env, rng, clock, table)
                env = client.post(f"/v1/games/{game}/moves", json={"token": env["token"], "move": mv}, headers={"X-Seat-Key": table}).json
                n += 1
            longest = max(longest, (n, len(env["token"])))
        print(f"  {game:16s} {longest[0]:5d} moves  token {longest[1]:7d} chars ({longest[1] / 1024:.1f} KiB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--redis", default=None)
    parser.add_argument("--skip-sizes", action="store_true")
    parser.add_argument("--record-in-token", action="store_true", help="the token carries the record (as without a ledger)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.redis or f"sqlite:///{tmp}/ledger.db"
        app = create_app({"SEAL_KEYS": [Fernet.generate_key().decode()], "LEDGER_URL": url})
        move_cost(app, args.repeat, (10, 400), args.record_in_token)
        if not args.skip_sizes:
            token_sizes(app, args.matches, args.record_in_token)


if __name__ == "__main__":
    main()
