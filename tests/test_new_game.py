"""docs/adding-a-game.md walked on a throwaway game (issue 33): War (``tests/data/new_game``), with no
options and no problem codes of its own, goes into a copy of the repository by the guide's steps,
each writer the guide names runs once, and the client generators the project uses accept the
contract that results.

The copy gets only what the guide lists: the engine and schema modules, the registry lines of
step 3, the README's list of games; every file the test touches must be one the guide names, so a
step the guide leaves out fails here. The generators: openapi-spec-validator, openapi-python-client
(the repository's settings, no warning), openapi-typescript (the pinned project of tests/clients/ts;
skipped, saying so, without node and npm).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from service.engines import ENGINES
from tests.clients.pyclient import generator_config
from tests.tools import missing, tool_env

pytestmark = pytest.mark.xdist_group("clients")  # shares the TypeScript packages' install with tests/clients

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "adding-a-game.md"
WAR = ROOT / "tests" / "data" / "new_game"
_SKIP = {".git", ".venv", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis", "build", "dist", "node_modules",
         "__pycache__", "_bundled"}


def _copy(tmp: Path) -> Path:
    tree = tmp / "repo"
    shutil.copytree(ROOT, tree, ignore=lambda _dir, names: [n for n in names if n in _SKIP or n.endswith(".egg-info")])
    return tree


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, (path, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


def _add_war(tree: Path) -> set[str]:
    """The guide's steps 1 to 3 and its README line; returns the files touched."""
    shutil.copy(WAR / "engine.py", tree / "service/engines/war.py")
    shutil.copy(WAR / "schema.py", tree / "service/schemas/war.py")
    engines = tree / "service/engines/__init__.py"
    _edit(engines, "snap, stukolka, yukon\n", "snap, stukolka, war, yukon\n")
    _edit(engines, "\n_MODULES: Final[tuple[AnyEngine, ...]] = (\n    _SCHNAPSEN,",
          "_WAR: Final[Engine[war.State, war.Move, war.Options]] = war\n\n_MODULES: Final[tuple[AnyEngine, ...]] = (\n    _SCHNAPSEN, _WAR,")
    _edit(engines, "@overload\ndef find(game_id: str)",
          '@overload\ndef find(game_id: Literal["war"]) -> Engine[war.State, war.Move, war.Options]: ...\n@overload\ndef find(game_id: str)')
    schemas = tree / "service/schemas/__init__.py"
    _edit(schemas, "snap, stukolka, yukon\n", "snap, stukolka, war, yukon\n")
    _edit(schemas, "snap, russian_bank)}", "snap, russian_bank, war)}")
    _edit(tree / "README.md", " Snap and Russian Bank.", " Snap, Russian Bank and War.")
    return {"service/engines/war.py", "service/schemas/war.py", "service/engines/__init__.py", "service/schemas/__init__.py",
            "README.md"}


def _writers() -> list[list[str]]:
    """The writer commands the guide prints, in order (after the README's setup: ``.venv/bin/python``)."""
    found = re.findall(r"^ *(\.venv/bin/python -m [\w.]+)$", GUIDE.read_text(encoding="utf-8"), flags=re.MULTILINE)
    assert found == [".venv/bin/python -m service.schemas.contract", ".venv/bin/python -m service.examples",
                     ".venv/bin/python -m service.schemas.typed"], found
    return [command.split()[1:] for command in found]


def test_every_game_is_in_the_readmes_list() -> None:
    """The README's first paragraph names every registered game (by its name without a gloss)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    games = text[text.index("Games ("):].split("\n\n", 1)[0].replace("\n", " ").lower()
    for game, engine in ENGINES.items():
        assert engine.NAME.partition(" (")[0].lower() in games, game


@pytest.mark.slow
def test_a_new_game_goes_in_by_the_guide(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    tree = _copy(tmp_path)
    touched = _add_war(tree)
    guide = GUIDE.read_text(encoding="utf-8")
    for path in touched - {"service/engines/war.py", "service/schemas/war.py"}:
        assert path in guide, f"the guide never names {path}, which a new game needs"
    env = tool_env({"PYTHONPATH": str(tree)})
    for args in _writers():
        done = subprocess.run([sys.executable, *args], cwd=tree, env=env, capture_output=True, text=True, timeout=600, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "added" in done.stdout and "war" in done.stdout.lower(), done.stdout  # every entry, listed in one run
        again = subprocess.run([sys.executable, *args, "--check"], cwd=tree, env=env, capture_output=True, text=True,
                               timeout=600, check=False)
        assert again.returncode == 0, "one run of each writer is enough: " + again.stdout + again.stderr
    spec_path = tree / "openapi.yaml"
    text = spec_path.read_text(encoding="utf-8")
    spec = yaml.safe_load(text)
    schemas = spec["components"]["schemas"]
    assert "WarProblemCode" not in schemas and "enum: []" not in text  # no codes of its own: no empty enum
    assert "war" in schemas["GameId"]["enum"] and "war" in schemas["GameEntry"]["properties"]["id"]["x-enum-known"]
    assert {"name": "war", "description": "Play War."} in spec["tags"]
    typed = (tree / "service" / "typed.py").read_text(encoding="utf-8")
    assert "class WarEnvelope(TypedDict" in typed and "class WarEngineView(TypedDict" in typed, "the typed writer"
    assert "/v1/games/war/new" in spec["paths"] and "WarNewResponse" in spec["components"]["examples"]
    from openapi_spec_validator import validate

    validate(spec)

    out = tmp_path / "python-client"
    out.mkdir()
    config = out / "generator.yaml"
    config.write_text(yaml.safe_dump(generator_config()))
    generated = subprocess.run(
        [sys.executable, "-m", "openapi_python_client", "generate", "--path", str(spec_path), "--config", str(config),
         "--meta", "none", "--output-path", str(out / "client"), "--overwrite"],
        cwd=out, env=tool_env(), capture_output=True, text=True, timeout=600, check=False,
    )
    said = generated.stdout + generated.stderr
    assert generated.returncode == 0, said
    for word in ("Error", "Warning", "Unable to", "Cannot", "Could not"):
        assert word not in said, said
    assert (out / "client" / "models" / "war_envelope.py").exists()

    from tests.clients.test_typescript_client import NODE, NPM, _node_modules, run

    if NODE is None or NPM is None:
        missing("node and npm are not installed: openapi-typescript is not tried on the new game's contract")
    ts = tmp_path / "ts"
    ts.mkdir()
    (ts / "node_modules").symlink_to(_node_modules(request, ts))
    typed = run([str(ts / "node_modules/.bin/openapi-typescript"), str(spec_path), "--default-non-nullable", "false",
                 "--output", "api.d.ts"], ts)
    said = typed.stdout + typed.stderr
    assert typed.returncode == 0 and "warn" not in said.lower() and "error" not in said.lower(), said
    assert '"WarEnvelope"' in (ts / "api.d.ts").read_text(encoding="utf-8") or "WarEnvelope:" in (ts / "api.d.ts").read_text()
