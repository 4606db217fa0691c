"""Imports flow api → schemas → engines → cards; engines and cards stay pure."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "service"
FORBIDDEN = {"flask", "marshmallow", "cryptography", "time", "random", "secrets", "datetime", "os", "json", "werkzeug"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
            elif node.level > 0:
                names.add("." * node.level + (node.module or ""))
    return names


@pytest.mark.parametrize("path", sorted((ROOT / "engines").glob("*.py")) + sorted((ROOT / "cards").glob("*.py")), ids=lambda p: p.name)
def test_engines_and_cards_are_pure(path: Path) -> None:
    """No framework, clock, randomness or I/O in engines/ and cards/."""
    bad = _imports(path) & FORBIDDEN
    assert not bad, f"{path.name} imports {bad}"
    rel = {n for n in _imports(path) if n.startswith(".")}
    assert not any(n.lstrip(".").startswith(("api", "schemas", "sealing", "app", "config")) for n in rel)


@pytest.mark.parametrize("path", sorted((ROOT / "schemas").glob("*.py")), ids=lambda p: p.name)
def test_schemas_do_not_import_the_http_layer(path: Path) -> None:
    assert not ({"flask", "werkzeug"} & _imports(path))
    assert not any(n.lstrip(".").startswith(("api", "app")) for n in _imports(path) if n.startswith("."))


def test_every_engine_has_a_codec_and_the_uniform_interface() -> None:
    from service.engines import _SEALED, ENGINES
    from service.schemas import SCHEMAS

    names = ("GAME", "GAME_ID", "NAME", "RULES_VERSION", "PLAYER_COUNTS", "DEFAULT_PLAYERS", "MOVE_TYPES", "Options",
             "State", "OPTION_INFO", "pack", "new_game", "initial_events", "to_move", "legal_moves", "step",
             "apply", "view", "scores", "outcome", "status", "check_state", "players", "visible_cards", "derived")
    assert set(ENGINES) == set(SCHEMAS)
    for game_id, engine in ENGINES.items():
        missing = [n for n in names if not hasattr(engine, n)]
        assert not missing, f"{game_id} lacks {missing}"
        assert engine.GAME.game_id == engine.GAME_ID == game_id and engine.MOVE_TYPES == tuple(engine.GAME.move_classes)
        assert engine.GAME.uses_secret == (engine in _SEALED), "mypy checks the secret-taking engines as SealedEngine"
        assert (ROOT / "engines" / f"{game_id}.py").exists() and (ROOT / "schemas" / f"{game_id}.py").exists()


# --- README's two commands and .ci/run (issue 20) -------------------------------------------------

REPO = ROOT.parent


def test_readme_gives_two_commands_first_and_ci_runs_the_second_scrubbed() -> None:
    readme = (REPO / "README.md").read_text()
    commands = [line for line in readme.splitlines() if line.startswith("python3 -m venv")]
    section = readme.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    assert commands[:2] == [line for line in section.splitlines() if line.startswith("python3 -m venv")]
    assert commands[0].endswith("card-referee serve") and commands[1].endswith("-m pytest --durations=10")
    ci = (REPO / ".ci" / "run").read_text()
    # .ci/run reads command 2 out of README.md (so they cannot drift) and runs it under env -i
    assert "grep -E '^python3 -m venv' README.md | sed -n 2p" in ci
    assert 'scrubbed=(env -i HOME="$scratch/home" PATH="$scratch/bin:/usr/local/sbin:' in ci
    assert '"${scrubbed[@]}" bash -c "$readme_command"' in ci.splitlines()[-1]
