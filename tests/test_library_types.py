"""The library's engines are typed by their own games (issue 22, item 4): ``find("schnapsen")``
is ``Engine[schnapsen.State, schnapsen.Move, schnapsen.Options]``, not ``Any``, so mypy catches a
move used as something else, and accepts the typed use that docs/library.md shows."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.tools import tool_env

REPO = Path(__file__).resolve().parents[1]

SNIPPET = '''\
from service.cards import Suit
from service.cards.shuffle import deal_deck
from service.engines import find

engine = find("schnapsen")
options = engine.Options()
state = engine.new_game(options, 2, deal_deck(engine.pack(options, 2), 8))
moves = engine.legal_moves(state)
after, events = engine.step(state, moves[0])
seq: int = after.seq
trump: Suit = after.trump_suit
wrong: int = moves[0]
'''


@pytest.mark.slow
def test_find_with_a_literal_id_gives_the_games_own_types(tmp_path: Path) -> None:
    example = tmp_path / "typed_use.py"
    example.write_text(SNIPPET)
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", str(tmp_path / "cache"), str(example)],
        cwd=REPO, env=tool_env({"MYPYPATH": str(REPO)}), capture_output=True, text=True, timeout=300, check=False,
    )
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1, done.stdout + done.stderr  # the typed uses pass ...
    assert "typed_use.py:12:" in errors[0] and 'variable has type "int"' in errors[0], errors  # ... and a move is no int
