"""Russian Bank move-count regression ("perft"), pinned in tests/data/russian_bank_perft.json.

From three fixed decks (the project's seeded shuffle of the 104-card pack, seeds in ``DECK_SEEDS``)
and two option sets, this records

- ``line``: the number of legal moves at each of the first ``LINE_PLIES`` positions of a fixed
  line of play (the progress-biased chooser of tests/playouts.py with ``random.Random(seed)``),
  which spans the first turns of both players;
- ``perft``: the number of move sequences of length 1 … ``PERFT_DEPTH`` from the layout.

Regenerate after a deliberate rules change (and review the diff)::

    python3 -m tests.russian_bank_perft --write
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any, Final

from service.cards.shuffle import deal_deck
from service.engines import russian_bank as rb
from tests.playouts import CHOOSERS

DATA: Final = Path(__file__).parent / "data" / "russian_bank_perft.json"
DECK_SEEDS: Final = (11, 22, 33)
OPTION_SETS: Final = {
    "default": {},
    "enforced_waste_top": {"priority": "enforced", "waste_top_available": True},
}
LINE_PLIES: Final = 60
PERFT_DEPTH: Final = 4


def perft(state: rb.State, depth: int) -> int:
    """The number of legal move sequences of length ``depth`` from ``state``."""
    if depth == 0 or state.phase is not rb.Phase.PLAY:
        return 1 if depth == 0 else 0
    moves = rb.legal_moves(state)
    if depth == 1:
        return len(moves)
    return sum(perft(rb.apply(state, m), depth - 1) for m in moves)


def line(state: rb.State, seed: int, plies: int) -> list[int]:
    """Legal-move counts along the fixed line of play."""
    choose = CHOOSERS[rb.GAME_ID]
    rng = random.Random(seed)
    out = []
    for _ in range(plies):
        if state.phase is not rb.Phase.PLAY:
            break
        legal = rb.legal_moves(state)
        out.append(len(legal))
        state = rb.apply(state, choose(state, legal, rng))
    return out


def compute() -> dict[str, Any]:
    """The whole table, as stored in the data file."""
    table: dict[str, Any] = {"deck_seeds": list(DECK_SEEDS), "line_plies": LINE_PLIES, "perft_depth": PERFT_DEPTH, "cases": {}}
    for name, opts in OPTION_SETS.items():
        options = rb.Options(**opts)
        for seed in DECK_SEEDS:
            start = rb.new_game(options, 2, deal_deck(rb.PACK, seed))
            table["cases"][f"{name}/{seed}"] = {
                "options": opts,
                "seed": seed,
                "line": line(start, seed, LINE_PLIES),
                "perft": [perft(start, d) for d in range(1, PERFT_DEPTH + 1)],
            }
    return table


if __name__ == "__main__":
    result = compute()
    if "--write" in sys.argv:
        DATA.parent.mkdir(exist_ok=True)
        DATA.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {DATA}")
    else:
        print(json.dumps(result, indent=1))
