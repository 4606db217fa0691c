"""What the ledger holds per match, measured on a real Redis: bytes of a live match's entry and of
its moves per move, of a finished match within REFEREE_LEDGER_FINISHED_TTL, and of the small entry
that stays after it until REFEREE_LEDGER_TTL; then the memory a deployment needs for a given load.

    python3 bench/ledger_size.py [--matches 40] [--game schnapsen] [--redis-server PATH]

Matches are played through the referee core (sealed, seat keys, a random legal move each time) on
a Redis started here on 127.0.0.1 (a temporary directory, no persistence: sizes only). Redis's own
``MEMORY USAGE`` of each key is summed (with its per-key overhead), and ``used_memory`` before and
after is printed beside it. Bounded: at most --matches matches of at most 2,000 moves each.
"""

from __future__ import annotations

import argparse
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cryptography.fernet import Fernet

from service.config import Config
from service.engines import ENGINES
from service.ledger import RedisLedger
from service.referee import Caller, Referee
from service.schemas import SCHEMAS
from service.schemas.common import to_wire
from service.sealing import Sealer


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _key_bytes(ledger: RedisLedger, match_id: str) -> dict[str, int]:
    client = ledger._client
    out = {}
    for name in ("seq", "moves", "done"):
        size = client.memory_usage(f"card-referee:{name}:{match_id}", samples=0)
        out[name] = int(size or 0)
    return out


def _play(ref: Referee, game: str, rng: random.Random) -> tuple[str, int]:
    """A whole sealed match, each move sent with its seat's key; (match id, moves)."""
    env = ref.new(game, {}, Caller())
    keys = env["seat_keys"]
    assert ref.sealer is not None
    codec, engine = SCHEMAS[game], ENGINES[game]
    match = None
    moves = 0
    while env["status"] != "finished" and moves < 2000:
        match, packed = ref.sealer.open(game, env["token"])
        state = codec.unpack(packed)
        move = rng.choice(engine.legal_moves(state))
        wire: dict[str, Any] = to_wire(move)
        if wire.get("type") == "next_deal":
            wire.pop("deck", None)
        env = ref.move(game, {"token": env["token"], "move": wire}, Caller(keys[wire["player"]]))
        moves += 1
    assert match is not None
    return match.match_id, moves


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument("--game", default="schnapsen")
    parser.add_argument("--redis-server", default=shutil.which("redis-server"))
    parser.add_argument("--moves-per-second", type=float, default=736.0, help="for the sizing example")
    args = parser.parse_args()
    if not args.redis_server:
        print("redis-server not found (Debian: apt-get install redis-server)", file=sys.stderr)
        return 2
    port = _free_port()
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen([args.redis_server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                                 "--dir", tmp], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 10
            import redis

            client = redis.Redis(port=port)
            while True:
                try:
                    client.ping()
                    break
                except redis.ConnectionError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)
            ledger = RedisLedger(f"redis://127.0.0.1:{port}/0", 7 * 24 * 3600)
            cfg = Config(seal_keys=(Fernet.generate_key().decode(),))
            ref = Referee(cfg, Sealer(cfg.seal_keys), Referee.from_config(cfg).signer, ledger)
            rng = random.Random(1)
            before = int(client.info("memory")["used_memory"])
            played = [_play(ref, args.game, rng) for _ in range(args.matches)]
            after = int(client.info("memory")["used_memory"])
            sizes = [(_key_bytes(ledger, mid), n) for mid, n in played]
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    per_move = statistics.mean(s["moves"] / n for s, n in sizes)
    moves_mean = statistics.mean(n for _, n in sizes)
    entry = statistics.mean(s["seq"] for s, _ in sizes)
    done = statistics.mean(s["done"] for s, _ in sizes)
    finished_full = statistics.mean(s["seq"] + s["moves"] + s["done"] for s, _ in sizes)
    print(f"{args.game}: {len(sizes)} finished matches, {moves_mean:.0f} moves on average")
    print(f"  the match's entry (seq):               {entry:7.0f} B")
    print(f"  its moves:                             {per_move:7.1f} B per move ({per_move * moves_mean:.0f} B a match)")
    print(f"  its finished mark:                     {done:7.0f} B")
    print(f"  a finished match within the window:    {finished_full:7.0f} B")
    print(f"  after the window (entry + mark):       {entry + done:7.0f} B")
    print(f"  used_memory grew {after - before} B ({(after - before) / len(sizes):.0f} B a match, allocator and dict overhead included)")
    m = args.moves_per_second
    per_match_s = m / moves_mean
    window, week = 24 * 3600, 7 * 24 * 3600
    need = per_match_s * window * finished_full + per_match_s * (week - window) * (entry + done)
    print(f"  at {m:g} moves/s ({per_match_s:.1f} matches/s finishing), a day's finished moves and a week's entries: "
          f"{need / 2**20:.0f} MiB (live matches add {entry + per_move * moves_mean / 2:.0f} B each)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
