"""TypeScript: types generated from openapi.yaml with openapi-typescript, calls through openapi-fetch,
checked by ``tsc --noEmit``, then whole matches played from node against a live gunicorn.

The project is ``tests/clients/ts`` (package.json and package-lock.json pin openapi-typescript,
openapi-fetch, typescript and @types/node). Per session it is copied to a temporary directory,
its dependencies installed with ``npm ci`` (node_modules kept in pytest's cache directory, keyed by
the lockfile's hash, so a second run skips the install), the types generated from the repository's
openapi.yaml (no warning allowed), the scripts and docs/integrate.md's TypeScript example type-checked
(``src/wrong-uses.ts`` must fail to type-check line by line, so the types cannot silently degrade
to ``any``) and compiled, and
``dist/play.js`` plays a whole Schnapsen match and two hands of Bragging, open and sealed.
Skipped, saying so, only when node or npm is missing.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.servers import Gunicorn
from tests.tools import missing

pytestmark = pytest.mark.xdist_group("clients")

ROOT = Path(__file__).resolve().parents[2]
PROJECT = Path(__file__).parent / "ts"
SOURCES = ("package.json", "package-lock.json", "tsconfig.json", "src/play.ts", "src/wrong-uses.ts")
NODE, NPM = shutil.which("node"), shutil.which("npm")
ENV = {**os.environ, "NO_COLOR": "1", "FORCE_COLOR": "0", "npm_config_update_notifier": "false"}


def run(args: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=ENV, capture_output=True, text=True, timeout=timeout, check=False)


GUIDE = ROOT / "docs" / "integrate.md"  # the integrator's guide README.md links to
README_MARKER = "<!-- the block below is type-checked by tests/clients/test_typescript_client.py"


README_PROJECT = "<!-- package.json: the blocks from here to the TypeScript example"


def readme_ts_project() -> dict[str, str]:
    """The files docs/integrate.md tells a TypeScript user to write: package.json, tsconfig.json, src/index.ts."""
    text = GUIDE.read_text(encoding="utf-8")
    after = text[text.index(README_PROJECT) :]
    blocks = re.findall(r"```(json|sh|ts)\n(.*?)```", after[: after.index(README_MARKER) + 2000], re.DOTALL)
    jsons = [body for kind, body in blocks if kind == "json"]
    assert len(jsons) == 2, blocks
    return {"package.json": jsons[0], "tsconfig.json": jsons[1], "src/index.ts": readme_ts_example()}


def readme_ts_example() -> str:
    """The TypeScript block of docs/integrate.md (type-checked with the scripts)."""
    text = GUIDE.read_text(encoding="utf-8")
    after = text[text.index(README_MARKER) :]
    start = after.index("```ts\n") + len("```ts\n")
    return after[start : after.index("```", start)]


@dataclass
class Build:
    work: Path
    generate: subprocess.CompletedProcess[str]
    check: subprocess.CompletedProcess[str]
    emit: subprocess.CompletedProcess[str]


def _node_modules(request: pytest.FixtureRequest, tmp: Path) -> Path:
    """``npm ci`` of the pinned lockfile, once per lockfile (pytest's cache directory, else ``tmp``)."""
    digest = hashlib.sha256((PROJECT / "package-lock.json").read_bytes()).hexdigest()[:16]
    cache = request.config.cache
    home = cache.mkdir(f"clients-npm-{digest}") if cache is not None else tmp / "npm"
    done = home / "installed"
    home.mkdir(parents=True, exist_ok=True)
    # One install at a time: xdist workers (or two pytest runs) share this directory, and two
    # concurrent ``npm ci`` runs into it fail with ENOTEMPTY.
    with open(home.parent / f"{home.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists() or not (home / "node_modules").is_dir():
            for name in ("package.json", "package-lock.json"):
                shutil.copy(PROJECT / name, home / name)
            installed = run([str(NPM), "ci", "--no-audit", "--no-fund", "--ignore-scripts"], home, timeout=600)
            assert installed.returncode == 0, installed.stdout + installed.stderr
            done.write_text(digest)
    return home / "node_modules"


@pytest.fixture(scope="session")
def ts_build(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Build:
    if NODE is None or NPM is None:
        missing("node and npm are not installed (CI machines have node 20 and npm): the TypeScript client is not tried")
    work = tmp_path_factory.mktemp("ts-client")
    for name in SOURCES:
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(PROJECT / name, work / name)
    (work / "src/readme-example.ts").write_text(readme_ts_example().replace('"./referee.js"', '"./generated/api.js"'))
    (work / "node_modules").symlink_to(_node_modules(request, work))
    bin_ = work / "node_modules" / ".bin"
    generate = run([str(bin_ / "openapi-typescript"), str(ROOT / "openapi.yaml"), "--default-non-nullable", "false",
                    "--output", "src/generated/api.d.ts"], work)
    info = ["--incremental", "--tsBuildInfoFile", str(work / "tsbuildinfo")]
    check = run([str(bin_ / "tsc"), "--noEmit", *info], work)
    emit = run([str(bin_ / "tsc"), *info], work) if check.returncode == 0 else check
    return Build(work, generate, check, emit)


def test_types_generate_without_error_or_warning(ts_build: Build) -> None:
    out = ts_build.generate.stdout + ts_build.generate.stderr
    assert ts_build.generate.returncode == 0, out
    assert "warn" not in out.lower() and "error" not in out.lower(), out
    assert (ts_build.work / "src/generated/api.d.ts").stat().st_size > 0


def test_the_scripts_type_check_against_the_generated_types(ts_build: Build) -> None:
    """``tsc --noEmit`` passes: play.ts and docs/integrate.md's example use the API as typed, and every
    wrong use in wrong-uses.ts is a type error (an unused ``@ts-expect-error`` would fail the check)."""
    assert ts_build.check.returncode == 0, ts_build.check.stdout + ts_build.check.stderr
    assert ts_build.emit.returncode == 0, ts_build.emit.stdout + ts_build.emit.stderr
    assert (ts_build.work / "dist/play.js").exists()


def test_the_readme_project_passes_tsc_strict_as_printed(
    request: pytest.FixtureRequest, servers: dict[str, Gunicorn], tmp_path: Path,
) -> None:
    """docs/integrate.md's TypeScript path, as printed: its package.json and tsconfig.json, its
    ``npx openapi-typescript`` command against a live server's ``/openapi.yaml``, its example as
    ``src/index.ts``, then ``tsc --strict --noEmit``. The packages are this suite's pinned ones
    (package-lock.json) rather than whatever ``npm install`` would fetch today."""
    if NODE is None or NPM is None:
        missing("node and npm are not installed (CI machines have node 20 and npm)")
    for name, body in readme_ts_project().items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(body)
    json.loads((tmp_path / "package.json").read_text())  # both are valid JSON as printed
    json.loads((tmp_path / "tsconfig.json").read_text())
    (tmp_path / "node_modules").symlink_to(_node_modules(request, tmp_path))
    guide = GUIDE.read_text(encoding="utf-8")
    (command,) = [line for line in guide.splitlines() if line.startswith("npx openapi-typescript ")]
    args = command.split()[2:]
    args = [a.replace("http://127.0.0.1:8000", servers["open"].url) for a in args]
    bin_ = tmp_path / "node_modules" / ".bin"
    generated = run([str(bin_ / "openapi-typescript"), *args], tmp_path)
    assert generated.returncode == 0, generated.stdout + generated.stderr
    assert (tmp_path / "src" / "referee.d.ts").stat().st_size > 0
    checked = run([str(bin_ / "tsc"), "--strict", "--noEmit", "-p", "."], tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.parametrize("mode", ["open", "sealed"])
@pytest.mark.parametrize("game", ["schnapsen", "bragging"])
def test_a_whole_match_from_node(ts_build: Build, servers: dict[str, Gunicorn], game: str, mode: str) -> None:
    if ts_build.emit.returncode != 0:
        pytest.fail("the TypeScript client did not compile (see test_the_scripts_type_check_against_the_generated_types)")
    played = run([str(NODE), "dist/play.js", servers[mode].url, mode, game], ts_build.work, timeout=300)
    assert played.returncode == 0, played.stdout + played.stderr
    result = json.loads(played.stdout.strip().splitlines()[-1])
    assert result["game"] == game and result["mode"] == mode and result["moves"] > 0, result
    print(result)
