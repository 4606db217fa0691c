"""Clients can be generated from openapi.yaml (issue 14, "a generator-friendly contract").

- openapi-python-client generates a client with no error and no warning (its one setting,
  ``openapi-python-client.yaml`` at the repository root, maps ``application/yaml`` — the media
  type of ``GET /openapi.yaml`` — to text, which the generator does not know by itself), and the
  client imports and types every game's operation with that game's own request and envelope.
- datamodel-code-generator turns the contract into pydantic models in which no state, view,
  move, event or score field is ``Any``, and each game's envelope parses a real response of that
  game (with its moves and events) into that game's own classes.

Both generators run in a subprocess into a temporary directory; nothing generated is committed.
"""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service import create_app
from service.engines import ENGINES
from tests.tools import tool_env, venv_tool

# one worker runs the file, so each module-scoped generation runs once
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("generators")]

REPO = Path(__file__).resolve().parents[1]
SPEC = REPO / "openapi.yaml"
CONFIG = REPO / "openapi-python-client.yaml"


def _prefix(game_id: str) -> str:
    return "".join(part.capitalize() for part in game_id.split("_"))


def _tool(name: str) -> str:
    found = venv_tool(name)  # never the caller's PATH: README's command does not activate the venv
    assert found, f"{name} is installed by the test extras (pip install -e '.[test]')"
    return str(found)


@pytest.fixture(scope="module")
def python_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    out = tmp_path_factory.mktemp("opc") / "client"
    run = subprocess.run(
        [_tool("openapi-python-client"), "generate", "--path", str(SPEC), "--output-path", str(out),
         "--overwrite", "--config", str(CONFIG)],
        capture_output=True, text=True, timeout=600, check=False, env=tool_env(),  # it runs ruff from PATH
    )
    yield out, run.stdout + run.stderr
    assert run.returncode == 0, run.stdout + run.stderr


def test_openapi_python_client_generates_without_errors_or_warnings(python_client: tuple[Path, str]) -> None:
    out, log = python_client
    assert "Generating" in log, log
    assert not re.search(r"(?i)\b(warning|error)", log), log
    package = next(p for p in out.iterdir() if (p / "__init__.py").exists())
    models = {p.stem for p in (package / "models").glob("*.py")}
    for game_id in ENGINES:
        snake = game_id  # openapi-python-client writes model modules in snake case
        for model in ("new_request", "move_with_state", "move_with_token", "envelope", "state", "replay_result"):
            assert f"{snake}_{model}" in models, f"{snake}_{model}"


def test_the_python_client_types_every_game_operation(python_client: tuple[Path, str]) -> None:
    """Each game's operations take that game's body and answer that game's envelope (no ``Any``)."""
    out, _ = python_client
    package = next(p for p in out.iterdir() if (p / "__init__.py").exists())
    for game_id in ENGINES:
        p = _prefix(game_id)
        api = package / "api" / game_id
        moves = (api / f"apply_{game_id}_move.py").read_text(encoding="utf-8")
        assert f"body: {p}MoveWithState | {p}MoveWithToken" in moves, game_id
        returns = re.search(r"^def sync\(.*?\) -> ([^:]+):", moves, flags=re.DOTALL | re.MULTILINE)
        assert returns is not None and set(returns.group(1).split(" | ")) == {f"{p}Envelope", "Problem", "None"}, (
            game_id, returns and returns.group(1))
        new = (api / f"new_{game_id}.py").read_text(encoding="utf-8")
        assert f"body: {p}NewRequest | Unset = UNSET" in new, game_id
        envelope = (package / "models" / f"{game_id}_envelope.py").read_text(encoding="utf-8")
        annotation = envelope.split("legal_moves: list[", 1)[1].split("]", 1)[0]
        assert set(re.findall(r"[A-Z]\w+", annotation)) == {
            f"{p}{''.join(w.capitalize() for w in kind.split('_'))}" for kind in ENGINES[game_id].MOVE_TYPES
        } or all(name.startswith(p) for name in re.findall(r"[A-Z]\w+", annotation)), (game_id, annotation)
    sys.path.insert(0, str(out))
    try:
        module = importlib.import_module(package.name)
        assert hasattr(module, "AuthenticatedClient")
    finally:
        sys.path.remove(str(out))


@pytest.fixture(scope="module")
def pydantic_models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dcg") / "referee_models.py"
    run = subprocess.run(
        [_tool("datamodel-codegen"), "--input", str(SPEC), "--input-file-type", "openapi", "--output", str(out),
         "--output-model-type", "pydantic_v2.BaseModel", "--formatters", "ruff-format", "--use-annotated"],
        capture_output=True, text=True, timeout=600, check=False, env=tool_env(),
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return out


_GAME_TYPE = re.compile(r"^class (\w+)\(")


def _classes(source: str) -> dict[str, str]:
    """Class name → its body, for the top-level classes of a generated module."""
    out: dict[str, str] = {}
    name = None
    for line in source.splitlines():
        match = _GAME_TYPE.match(line)
        if match:
            name = match.group(1)
            out[name] = ""
        elif name is not None and (line.startswith(" ") or not line):
            out[name] += line + "\n"
        else:
            name = None
    return out


def test_datamodel_code_generator_types_states_moves_events_and_scores(pydantic_models: Path) -> None:
    """No field of any state, view, move, event or score model is ``Any``."""
    classes = _classes(pydantic_models.read_text(encoding="utf-8"))
    kinds = re.compile(r"(State|View|Move|Event|Scores|Envelope|Play|Claim|Flip|Deal|Pass|Snap|Slap|Bet|Fold|"
                       r"Raise|Call|Check|Blind|Expose|Exchange|Close|Marriage|Discard|Tap|Stand|Beg|Give|Run)")
    checked = 0
    for name, body in classes.items():
        if not any(name.startswith(_prefix(g)) for g in ENGINES) or not kinds.search(name):
            continue
        checked += 1
        assert not re.search(r"\bAny\b", body), f"{name} has an Any field:\n{body}"
    assert checked > 150, checked


def test_the_pydantic_models_parse_each_games_envelope(pydantic_models: Path) -> None:
    """A real response of every game (its first position and the one after a move) parses into
    that game's envelope, with its moves and events as that game's own classes, and dumps back
    to the same JSON."""
    spec = importlib.util.spec_from_file_location("referee_models", pydantic_models)
    assert spec is not None and spec.loader is not None
    models: Any = importlib.util.module_from_spec(spec)
    sys.modules["referee_models"] = models
    spec.loader.exec_module(models)
    client = create_app({"SEAL_KEYS": [], "TESTING": True}).test_client()
    for game_id, engine in ENGINES.items():
        p = _prefix(game_id)
        first = client.post(f"/v1/games/{game_id}/new", json={"seed": 3}).json
        move = dict(first["legal_moves"][0])
        if game_id in ("slapjack", "snap"):
            move.setdefault("at", 1000)
        after = client.post(f"/v1/games/{game_id}/moves", json={"state": first["state"], "move": move}).json
        envelope_cls = getattr(models, f"{p}Envelope")
        for body in (first, after):
            parsed = envelope_cls.model_validate(body)
            for item in parsed.legal_moves:
                root = getattr(item, "root", item)
                assert type(root).__name__.startswith(p), (game_id, type(root).__name__)
            for event in parsed.events:
                root = getattr(event, "root", event)
                root = getattr(root, "root", root)
                assert type(root).__name__.startswith(p), (game_id, type(root).__name__)
            dumped = json.loads(parsed.model_dump_json(by_alias=True, exclude_unset=True))
            assert dumped == body, game_id
        del engine
