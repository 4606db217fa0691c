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


def _page_examples() -> str:
    """docs/library.md's doctest examples, as one script."""
    import doctest

    text = (REPO / "docs" / "library.md").read_text(encoding="utf-8")
    return "".join(example.source for example in doctest.DocTestParser().get_examples(text))


def _mypy(tmp_path: Path, *flags: str) -> list[str]:
    """mypy's errors on docs/library.md's examples, ``card_referee`` seen as a static path (the
    checkout's ``service/`` linked under that name, as a strict editable install lays it out)."""
    (tmp_path / "path").mkdir(exist_ok=True)
    link = tmp_path / "path" / "card_referee"
    if not link.exists():
        link.symlink_to(REPO / "service")
    example = tmp_path / "library_page.py"
    example.write_text(_page_examples())
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", *flags, "--follow-imports=silent", "--no-incremental",
         "--cache-dir", str(tmp_path / "cache"), str(example)],
        cwd=tmp_path, env=tool_env({"MYPYPATH": str(tmp_path / "path")}), capture_output=True, text=True, timeout=300,
        check=False,
    )
    return [line for line in done.stdout.splitlines() if ": error:" in line] or ([done.stderr] if done.returncode else [])


@pytest.mark.slow
def test_the_library_page_is_clean_under_mypy_strict(tmp_path: Path) -> None:
    """Views and envelopes are typed records (``card_referee.typed``): ``view(state, 0)["hand"]`` is a
    ``Sequence[Card]``, ``referee.state(...)["state"]`` a union of views narrowed by ``"hand" in``."""
    assert _mypy(tmp_path) == []


@pytest.mark.slow
def test_the_library_page_has_no_any_under_disallow_any_expr(tmp_path: Path) -> None:
    """Under ``--disallow-any-expr`` too, every example is typed: the wire form through
    ``codec_of`` (the engine's ``State`` and ``Move``, the wire state as ``<Game>State``), the
    referee's configuration from a key the standard library makes."""
    assert _mypy(tmp_path, "--disallow-any-expr") == []


def test_the_typed_records_are_written_from_the_declarations() -> None:
    """service/typed.py is what ``python3 -m service.schemas.typed`` writes (run it after a declaration changes)."""
    from service.schemas.typed import source

    assert (REPO / "service" / "typed.py").read_text(encoding="utf-8") == source(), "run python3 -m service.schemas.typed"


def test_engine_views_hold_what_their_typed_record_says() -> None:
    """Each engine's ``view`` answers its ``<Game>EngineView``: every required member, no other, and
    the cards, suits, numbers and nulls the record names (a few moves into a seeded deal, every seat)."""
    import typing

    from service import typed
    from service.cards import Card, Suit
    from service.cards.shuffle import deal_deck
    from service.engines import ENGINES
    from service.schemas import SCHEMAS

    leaf = {"int": int, "bool": bool, "None": type(None), "cards.Card": Card, "cards.Suit": Suit, "str": str}
    for game_id, engine in ENGINES.items():
        record = getattr(typed, SCHEMAS[game_id].moves.prefix + "EngineView")
        hints = {key: getattr(hint, "__forward_arg__", str(hint)) for key, hint in record.__annotations__.items()}
        state = engine.new_game(engine.Options(), engine.GAME.default_players,
                                deal_deck(engine.pack(engine.Options(), engine.GAME.default_players), 3), seed=3)
        for _ in range(12):
            for seat in (None, *range(engine.players(state))):
                view = engine.view(state, seat)
                required = {key for key, hint in hints.items() if not str(hint).startswith("NotRequired[")}  # (lazy annotations)
                assert required <= set(view) <= set(hints), (game_id, seat)
                for key, value in view.items():
                    text = str(hints[key]).removeprefix("NotRequired[").removesuffix("]")
                    kinds = [leaf.get(part.strip()) for part in text.split("|")]
                    if all(kinds) and not text.startswith(("Literal", "Sequence")):
                        assert isinstance(value, tuple(typing.cast(list[type], kinds))), (game_id, key, value, text)
            legal = engine.legal_moves(state)
            if not legal or engine.status(state) != "in_progress":
                break
            state = engine.step(state, legal[0])[0]
