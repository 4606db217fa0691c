"""scripts/faults.py, the fault runner, end to end: a short baseline and a short SIGKILL of one of two
instances, through haproxy, with the ledger in a real redis-server (docs/dev/faults.md).

One run of the runner (about 30 s) serves every test of this file; its JSON figures must be coherent.
Ports 18650-18689 (the runner's own range is 18600-18699; a developer's run uses 18600 by default).
Without redis-server or haproxy (Debian packages; .ci/run installs both) the tests skip and say why.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.tools import missing

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("faults")]

ROOT = Path(__file__).resolve().parents[2]
PORT_BASE = 18650


@pytest.fixture(scope="module")
def figures() -> dict[str, dict[str, Any]]:
    """The runner's JSON figures per fault, for ``none`` then ``sigkill`` (2 instances, 8 clients)."""
    for program, package in (("redis-server", "redis-server"), ("haproxy", "haproxy")):
        if shutil.which(program) is None:
            missing(f"{program} is not installed (Debian: apt-get install {package}; .ci/run installs it)")
    command = [sys.executable, str(ROOT / "scripts" / "faults.py"), "--fault", "none,sigkill", "--instances", "2",
               "--clients", "8", "--seconds", "6", "--down-seconds", "2", "--seed", "7", "--port-base", str(PORT_BASE), "--json"]
    runner = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = runner.communicate(timeout=150)
    except subprocess.TimeoutExpired:
        runner.terminate()  # SIGTERM: the runner stops every process it started before it exits
        out, err = runner.communicate(timeout=60)
        pytest.fail(f"the runner took more than 150 s:\n{err[-3000:]}")
    assert runner.returncode in (0, 1), f"the runner failed (status {runner.returncode}):\n{err[-3000:]}"
    report = json.loads(out)
    assert report["ok"] == (runner.returncode == 0)  # the exit status is the verdict
    return {r["fault"]: r for r in report["results"]}


@pytest.mark.parametrize("fault", ["none", "sigkill"])
def test_figures_are_coherent(figures: dict[str, dict[str, Any]], fault: str) -> None:
    r = figures[fault]
    assert r["matches_finished"] > 0
    assert r["moves_sent"] >= r["moves_accepted"] > 0
    # every move sent was accepted, refused, answered 5xx or lost in transport
    answered_5xx_or_lost = sum(r["answers_5xx"].values()) + sum(r["transport_errors"].values())
    assert r["moves_sent"] - r["moves_accepted"] <= sum(r["refused"].values()) + answered_5xx_or_lost
    assert r["matches_started"] >= r["matches_finished"] + r["matches_stranded"]
    assert r["rewind_probes"] > 0
    assert r["accepted_rewinds"] == 0
    assert sum(r["rewind_answers"].values()) + r["transport_errors"].get("rewind", 0) == r["rewind_probes"]
    assert r["bad_5xx"] == sum(n for k, n in r["answers_5xx"].items() if k != "503 ledger_unavailable")
    assert set(r["healthz_longest_gap_s"]) == {"r0 api", "r0 probe", "r1 api", "r1 probe"}
    assert r["ok"] == (not r["failures"])


def test_baseline_is_clean(figures: dict[str, dict[str, Any]]) -> None:
    r = figures["none"]
    assert r["moves_sent"] == r["moves_accepted"]
    assert r["answers_5xx"] == {} and r["transport_errors"] == {} and r["retries"] == 0
    assert r["rewind_answers"] == {"409 token_superseded": r["rewind_probes"]}
    assert max(r["healthz_longest_gap_s"].values()) < 2.0


def test_sigkill_is_felt_and_healed(figures: dict[str, dict[str, Any]]) -> None:
    """One instance was down for seconds (its /healthz gap says so) and came back."""
    r = figures["sigkill"]
    assert any("SIGKILLed" in e for e in r["events"]) and any("ready again" in e for e in r["events"])
    assert max(r["healthz_longest_gap_s"].values()) >= 2.0


@pytest.mark.parametrize("fault", ["none", "sigkill"])
def test_no_match_is_stranded_and_the_gate_passes(figures: dict[str, dict[str, Any]], fault: str) -> None:
    assert figures[fault]["matches_stranded"] == 0
    assert figures[fault]["bad_5xx"] == 0 and figures[fault]["ok"], figures[fault]["failures"]
