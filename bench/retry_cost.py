"""What a retry costs beside the move it repeats, and what a resume costs, in-process.

    python3 bench/retry_cost.py [--ledger sqlite|redis://127.0.0.1:6379/0] [--repeat 200]

A sealed Schnapsen match is played to a position ``k`` moves in (k = 1, 10, 40, default rules, plays preferred);
then, from the token at that position, each is timed ``--repeat`` times (median, µs):

- **move**: the move applied from the current token (the ledger's compare-and-set wins): the
  request path as it is for every move (a fresh ledger entry is made for each timing, so every
  timing is a first sending);
- **retry**: the same move sent again with the same token after it was recorded (a lost reply):
  one atomic read of the match, the hash chain of the ``k`` moves before checked, the move compared
  and re-applied, a fresh token sealed;
- **resume**: ``state`` with the token one move old.

Same work per unit: the same game, position, move and keys for all three. Bounded by --repeat.
"""

from __future__ import annotations

import argparse
import random
import statistics
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
from service.ledger import open_ledger
from service.referee import Caller, Referee
from service.schemas import SCHEMAS
from service.schemas.common import to_wire
from service.sealing import Sealer

GAME = "schnapsen"


def _next(ref: Referee, env: dict[str, Any], rng: random.Random) -> tuple[dict[str, Any], Caller]:
    assert ref.sealer is not None
    state = SCHEMAS[GAME].unpack(ref.sealer.open(GAME, env["token"])[1])
    legal = ENGINES[GAME].legal_moves(state)
    plays = [m for m in legal if type(m).__name__ == "Play"] or legal  # plays keep a deal going longest
    wire: dict[str, Any] = to_wire(rng.choice(plays))
    if wire["type"] == "next_deal":
        wire.pop("deck", None)
    return wire, Caller(env["seat_keys"][wire["player"]])


def _timed(fn: Any, repeat: int, setup: Any = None) -> float:
    """Median µs of ``fn()`` (``setup()`` before each, untimed)."""
    samples = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return statistics.median(samples) * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ledger", default="sqlite")
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/ledger.db" if args.ledger == "sqlite" else args.ledger
        ledger = open_ledger(url)
        cfg = Config(seal_keys=(Fernet.generate_key().decode(),))
        ref = Referee(cfg, Sealer(cfg.seal_keys), Referee.from_config(cfg).signer, ledger)
        print(f"{GAME}, ledger {url.split(':')[0]}, median of {args.repeat} (µs)")
        print(f"{'k':>4} {'move':>8} {'retry':>8} {'resume':>8}  retry/move")
        for k in (1, 10, 40):
            rng = random.Random(k)
            env = ref.new(GAME, {}, Caller())
            for _ in range(k - 1):
                if env["status"] == "finished":
                    break
                move, caller = _next(ref, env, rng)
                env = {**ref.move(GAME, {"token": env["token"], "move": move}, caller), "seat_keys": env["seat_keys"]}
            if env["status"] == "finished":
                print(f"{k:>4} (the match ended before: skipped)")
                continue
            move, caller = _next(ref, env, rng)
            body = {"token": env["token"], "move": move}

            assert ref.sealer is not None
            match_id = ref.sealer.open(GAME, body["token"])[0].match_id
            before = ledger.moves(match_id)[: k - 1]

            def rewind(match_id: str = match_id, before: list[str] = before, k: int = k) -> None:
                """The match as it was before the move (untimed): each timed move is a first sending."""
                ledger.register(match_id, k - 1, before)

            t_move = _timed(lambda body=body, caller=caller: ref.move(GAME, body, caller), args.repeat, rewind)
            ref.move(GAME, body, caller)  # recorded once more: what follows are retries
            t_retry = _timed(lambda body=body, caller=caller: ref.move(GAME, body, caller), args.repeat)
            t_resume = _timed(lambda body=body, caller=caller: ref.state(GAME, {"token": body["token"]}, caller), args.repeat)
            print(f"{k:>4} {t_move:8.0f} {t_retry:8.0f} {t_resume:8.0f}  {t_retry / t_move:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
