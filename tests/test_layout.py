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


def _module_file(dotted: list[str]) -> Path | None:
    """The file of module ``service.<...>`` (a module or a package), if it is one of the package's."""
    base = ROOT.parent.joinpath(*dotted)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _executed(tree: ast.AST, *, functions: bool) -> list[ast.AST]:
    """The nodes of ``tree`` that can run: not under ``if TYPE_CHECKING:``, and (unless
    ``functions``) not in a function body (the package's ``__init__`` imports the app factory lazily,
    inside ``create_app``)."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        out.append(node)
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            todo.extend(node.orelse)
            continue
        if not functions and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        todo.extend(ast.iter_child_nodes(node))
    return out


def _package_imports(path: Path) -> set[Path]:
    """The files of the package's own modules that ``path`` imports (anywhere that can run, relative
    or ``service.``-absolute), with the packages they sit in."""
    rel = path.relative_to(ROOT.parent).with_suffix("").parts
    package = list(rel[:-1])  # a module's package; a package's __init__ is its own package
    found: set[Path] = set()
    for node in _executed(ast.parse(path.read_text()), functions=path != ROOT / "__init__.py"):
        targets: list[list[str]] = []
        if isinstance(node, ast.Import):
            targets = [a.name.split(".") for a in node.names if a.name.split(".")[0] == "service"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)] + (node.module.split(".") if node.module else [])
            elif node.module and node.module.split(".")[0] == "service":
                base = node.module.split(".")
            else:
                continue
            targets = [base] + [base + [a.name] for a in node.names]
        for dotted in targets:
            for depth in range(1, len(dotted) + 1):  # the module and every package above it
                file = _module_file(dotted[:depth])
                if file is not None:
                    found.add(file)
    return found


def _runtime_imports(path: Path) -> set[str]:
    """The top-level names of what ``path`` imports where it can run (see ``_executed``)."""
    names: set[str] = set()
    for node in _executed(ast.parse(path.read_text()), functions=path != ROOT / "__init__.py"):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _closure(start: Path) -> set[Path]:
    seen: set[Path] = set()
    todo = [start, ROOT / "__init__.py"]
    while todo:
        path = todo.pop()
        if path not in seen:
            seen.add(path)
            todo.extend(_package_imports(path) - seen)
    return seen


@pytest.mark.parametrize("core", ["referee.py", "verify.py"])
def test_the_referee_core_imports_no_flask(core: str) -> None:
    """The referee core (and the offline verifier on its replay loop) run without the web framework:
    neither they nor any module of the package they import, at any depth, imports flask or werkzeug."""
    modules = _closure(ROOT / core)
    assert ROOT / "replay.py" in modules and ROOT / "records.py" in modules
    web = {str(p.relative_to(ROOT)): bad for p in modules if (bad := _runtime_imports(p) & {"flask", "werkzeug"})}
    assert not web, f"{core} reaches the web framework through {web}"
    assert not any(p.is_relative_to(ROOT / "api") for p in modules), sorted(str(p.relative_to(ROOT)) for p in modules)


def test_importing_the_referee_core_loads_no_flask() -> None:
    """The same, as Python sees it: importing the core in a fresh interpreter loads no flask or werkzeug."""
    import subprocess
    import sys

    probe = "import sys, service.referee, service.verify; print(sorted(m for m in sys.modules if m.split('.')[0] in ('flask', 'werkzeug')))"
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT.parent, capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "[]", done.stdout


def test_every_engine_has_a_codec_and_the_uniform_interface() -> None:
    from service.engines import _SEALED, ENGINES
    from service.schemas import SCHEMAS

    names = ("GAME", "GAME_ID", "NAME", "RULES_VERSION", "PLAYER_COUNTS", "DEFAULT_PLAYERS", "MOVE_TYPES", "Options",
             "State", "Phase", "OPTION_INFO", "pack", "new_game", "initial_events", "to_move", "legal_moves", "step",
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


def _module_graph() -> dict[str, set[str]]:
    """service's modules → the service modules each imports anywhere in its text (lazy imports
    inside functions count: a cycle through one is still two modules that need each other)."""
    modules: dict[str, Path] = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else [])) if node.level else (node.module or "")
                if node.module and base in modules:
                    deps.add(base)  # ``from . import x`` imports x, not the package running it
                deps.update(f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules)
            elif isinstance(node, ast.Import):
                deps.update(a.name for a in node.names if a.name in modules)
        graph[name] = deps - {name}
    return graph


def test_no_two_modules_import_each_other() -> None:
    """No circle of imports in service/, lazy ones included (each module's dependencies come first)."""
    graph = _module_graph()
    assert graph["service.schemas.common"] and graph["service.referee"], "the graph was read"
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in path:
            raise AssertionError("import cycle: " + " → ".join(path[path.index(name):] + (name,)))
        if name in done:
            return
        for dep in sorted(graph[name]):
            visit(dep, path + (name,))
        done.add(name)

    for name in sorted(graph):
        visit(name, ())
