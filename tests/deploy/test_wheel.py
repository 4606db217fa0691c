"""A wheel built in the test run, installed in a fresh venv outside the checkout, serves exactly like
the checkout (issue 14, item 4): ``/openapi.yaml`` (a real file in the wheel), ``/docs``, ``/play``
and a move, honouring ``REFEREE_BIND`` and the worker count through ``card-referee serve``.

The wheel is built from a copy of the sources without build isolation (offline). It is installed
as a user's ``pip install`` would install it: into an isolated venv (no ``--system-site-packages``)
together with the dependencies its metadata declares, from the package index pip is configured
with (issue 20: a venv that borrowed the base interpreter's packages hid a missing dependency).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from tests.servers import ROOT, call, children, free_port

pytestmark = pytest.mark.slow


def _run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE", "openapi.yaml"):
        shutil.copyfile(ROOT / name, src / name)
    shutil.copytree(ROOT / "service", src / "service", ignore=shutil.ignore_patterns("__pycache__", "_bundled"), symlinks=True)
    if (ROOT / "docs" / "rules").is_dir():
        shutil.copytree(ROOT / "docs" / "rules", src / "docs" / "rules")
    _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", tmp / "dist", f"{src}/", cwd=tmp)
    (built,) = (tmp / "dist").glob("card_referee-*.whl")
    return built


def test_the_wheel_carries_the_contract_rules_and_settings_as_real_files(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        assert zf.read("card_referee/_bundled/openapi.yaml") == (ROOT / "openapi.yaml").read_bytes()
        links = [i.filename for i in zf.infolist() if (i.external_attr >> 16) & 0o170000 == 0o120000]
        assert not links, links
        entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
        assert "card-referee = card_referee.cli:main" in zf.read(entry_points).decode()
        metadata = zf.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        (licence,) = [n for n in names if n.endswith((".dist-info/LICENSE", ".dist-info/licenses/LICENSE"))]
        assert zf.read(licence) == (ROOT / "LICENSE").read_bytes()
    assert "card_referee/gunicorn_conf.py" in names and "card_referee/gunicorn_worker.py" in names
    assert not [n for n in names if n.startswith("service/")], "the import name is card_referee: no top-level service package"
    assert "Requires-Python: >=3.11\n" in metadata
    assert "License: Apache-2.0\n" in metadata
    rules = sorted(p.name for p in (ROOT / "docs" / "rules").glob("*.md")) if (ROOT / "docs" / "rules").is_dir() else []
    assert sorted(n.rsplit("/", 1)[1] for n in names if n.startswith("card_referee/_bundled/rules/")) == rules


def test_an_installed_wheel_serves_like_the_checkout(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", venv, cwd=tmp_path)  # isolated: nothing of this interpreter's packages
    python = venv / "bin" / "python"
    _run(python, "-m", "pip", "install", "-q", "--disable-pip-version-check", wheel, cwd=tmp_path)  # with its dependencies
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REFEREE_", "PROMETHEUS_", "PYTHON"))}
    where = _run(python, "-c", "import card_referee, site; print(card_referee.__file__); print(*site.getsitepackages())", cwd=tmp_path, env=env)
    assert where.startswith(str(venv)), where  # the wheel, not the checkout
    assert all(p.startswith(str(venv)) for p in where.split()[1:]), where  # no other environment's packages
    _run(python, "-m", "pip", "check", cwd=tmp_path, env=env)  # every declared dependency present and compatible
    checked = _run(venv / "bin" / "card-referee", "check-config", cwd=tmp_path, env=env)  # loads the worker and the app
    assert "open mode" in checked, checked
    usage = _run(venv / "bin" / "card-referee", "verify", "--help", cwd=tmp_path, env=env)
    assert usage.startswith("usage: card-referee verify"), usage
    collides = subprocess.run([str(python), "-c", "import service"], cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert collides.returncode == 1 and "No module named 'service'" in collides.stderr  # an application's own `service` is free
    port = free_port()
    env.update({"REFEREE_BIND": f"127.0.0.1:{port}", "REFEREE_WORKERS": "3", "REFEREE_DRAIN_SECONDS": "0"})
    err = (tmp_path / "serve.err").open("wb")
    proc = subprocess.Popen([str(venv / "bin" / "card-referee"), "serve"], cwd=tmp_path, env=env,
                            stdout=subprocess.DEVNULL, stderr=err)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if call(f"{url}/readyz", timeout=2)[0] == 200 and len(children(proc.pid)) == 3:
                    break
            except OSError:
                pass
            assert proc.poll() is None, (tmp_path / "serve.err").read_text()[-3000:]
            time.sleep(0.2)
        assert len(children(proc.pid)) == 3  # REFEREE_WORKERS honoured
        status, spec = call(f"{url}/openapi.yaml")
        assert status == 200 and spec == (ROOT / "openapi.yaml").read_text()
        status, docs = call(f"{url}/docs")
        assert status == 200 and "swagger-ui" in docs
        status, page = call(f"{url}/play")
        assert status == 200 and "<html" in page.lower()
        status, envl = call(f"{url}/v1/games/schnapsen/new", {"seed": 7})
        assert status == 201
        status, after = call(f"{url}/v1/games/schnapsen/moves", {"state": envl["state"], "move": envl["legal_moves"][0]})
        assert status == 200 and after["state"]["seq"] == envl["state"]["seq"] + 1
        log = (tmp_path / "serve.err").read_text()
        assert f"Listening at: http://127.0.0.1:{port}" in log and "RefereeWorker" in log
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
        err.close()
