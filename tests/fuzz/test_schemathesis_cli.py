"""``schemathesis run --checks all`` against the served contract, as a client of the service would
run it (issue 32): the CLI of the test extra, pointed at ``/openapi.yaml`` of a real 2-worker
gunicorn on 127.0.0.1 (a free port), in open mode and in sealed mode, with positive and negative
data (``--mode all``, the default), every check, the repository's ``schemathesis.toml`` (the
statuses the contract documents for what JSON Schema cannot state), seeded and bounded, must
report 0 failures.

Bounded: ``REFEREE_ST_EXAMPLES`` examples per operation (default 5: about 515 requests a mode,
about 20 s each on 2 cores), phases examples, fuzzing and stateful (the coverage phase, about
33,000 requests and 4 minutes a mode, is for a longer run: ``REFEREE_ST_PHASES``), seed
``REFEREE_ST_SEED`` (default 7), so a failure reproduces. docs/dev/testing.md gives the command
and its figures.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cryptography.fernet import Fernet

from tests.servers import ROOT, Gunicorn

pytestmark = pytest.mark.slow

EXAMPLES = int(os.environ.get("REFEREE_ST_EXAMPLES", "5"))
SEED = int(os.environ.get("REFEREE_ST_SEED", "7"))
PHASES = os.environ.get("REFEREE_ST_PHASES", "examples,fuzzing,stateful")
SECONDS = 240
"""A bound on one run, far above its ~20 s, so a hang fails instead of holding CI."""

MODES = {
    "open": {"REFEREE_ALLOW_FIXED_DECKS": "1"},
    "sealed": {"REFEREE_MODE": "sealed", "REFEREE_SEAL_KEYS": Fernet.generate_key().decode()},
}


def command(url: str) -> list[str]:
    """The command docs/dev/testing.md gives, with the schemathesis of this interpreter's environment."""
    cli = Path(sys.executable).with_name("schemathesis")
    return [str(cli), "run", f"{url}/openapi.yaml", "--checks", "all", "--mode", "all", "-n", str(EXAMPLES),
            "--seed", str(SEED), "--phases", PHASES, "--no-color"]


@pytest.mark.parametrize("mode", sorted(MODES))
def test_schemathesis_run_checks_all_finds_nothing(mode: str, tmp_path: Path) -> None:
    with Gunicorn(tmp_path, workers=2, env=MODES[mode], name=mode) as g:
        started = time.monotonic()
        run = subprocess.run(command(g.url), check=False, cwd=ROOT, capture_output=True, text=True, timeout=SECONDS)
        took = time.monotonic() - started
    out = run.stdout + run.stderr
    cases = re.search(r"(\d+) generated", out)
    summary = f"{mode}: exit {run.returncode}, {cases.group(0) if cases else '?'} in {took:.0f} s"
    print(summary)
    assert run.returncode == 0 and cases is not None, f"{summary}\n{out[-6000:]}"
    assert re.search(r"(\d+) generated, \1 passed", out), f"{summary}\n{out[-6000:]}"
    assert int(cases.group(1)) >= 50 * EXAMPLES, summary  # every operation was reached
    assert "Traceback" not in g.stderr.read_text()


def test_the_documented_command_is_the_one_run_here() -> None:
    """docs/dev/testing.md prints the command this file runs (with its default budget and seed)."""
    text = (ROOT / "docs" / "dev" / "testing.md").read_text(encoding="utf-8")
    printed = command("http://127.0.0.1:8000")
    printed[0] = ".venv/bin/schemathesis"
    if (EXAMPLES, SEED, PHASES) == (5, 7, "examples,fuzzing,stateful"):
        assert " ".join(printed) in text
