"""scripts/faults.py, the fault runner, end to end: a short baseline and a short SIGKILL of one of two
instances, through haproxy, with the ledger in a real redis-server; then a short ``pg-failover``
with the ledger in a real PostgreSQL primary and synchronous standby (docs/dev/faults.md).

One run of the runner (about 30 s) serves the Redis tests, another (about 30 s) the PostgreSQL ones;
their JSON figures must be coherent and pass the verdict. Ports 18650-18689 (the runner's own range
is 18600-18699; a developer's run uses 18600 by default); the two runs take turns (one xdist group).
Without redis-server, PostgreSQL or haproxy (Debian packages; .ci/run installs them) the tests that
need them skip and say why.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.tools import missing

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("faults")]

ROOT = Path(__file__).resolve().parents[2]
PORT_BASE = 18650


def load_runner() -> ModuleType:
    spec = importlib.util.spec_from_file_location("faults_runner", ROOT / "scripts" / "faults.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


FAULTS = load_runner()


def run_runner(*args: str) -> dict[str, dict[str, Any]]:
    """The runner's JSON figures per fault (its exit status must be its verdict)."""
    command = [sys.executable, str(ROOT / "scripts" / "faults.py"), *args, "--port-base", str(PORT_BASE), "--json"]
    runner = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = runner.communicate(timeout=150)
    except subprocess.TimeoutExpired:
        runner.terminate()  # SIGTERM: the runner stops every process it started before it exits
        out, err = runner.communicate(timeout=60)
        pytest.fail(f"the runner took more than 150 s:\n{err[-3000:]}")
    assert runner.returncode in (0, 1), f"the runner failed (status {runner.returncode}):\n{err[-3000:]}"
    try:
        report = json.loads(out)
    except ValueError:
        pytest.fail(f"the runner printed no JSON (status {runner.returncode}):\n{err[-3000:]}")
    assert report["ok"] == (runner.returncode == 0)  # the exit status is the verdict
    return {r["fault"]: r for r in report["results"]}


@pytest.fixture(scope="module")
def figures() -> dict[str, dict[str, Any]]:
    """The runner's JSON figures per fault, for ``none`` then ``sigkill`` (2 instances, 8 clients)."""
    for program, package in (("redis-server", "redis-server"), ("haproxy", "haproxy")):
        if shutil.which(program) is None:
            missing(f"{program} is not installed (Debian: apt-get install {package}; .ci/run installs it)")
    return run_runner("--fault", "none,sigkill", "--instances", "2", "--clients", "8", "--seconds", "6", "--down-seconds", "2",
                      "--seed", "7")


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


def test_the_cpu_figures_count_the_referees_and_the_store(figures: dict[str, dict[str, Any]]) -> None:
    r = figures["none"]
    cpu = r["cpu"]
    assert cpu["referees_s"] > 0 and cpu["store_s"] > 0  # gunicorn masters and workers; redis-server
    assert cpu["total_s"] == pytest.approx(cpu["referees_s"] + cpu["store_s"], abs=0.02)
    assert cpu["referees_ms_per_move"] == pytest.approx(1000 * cpu["referees_s"] / r["moves_accepted"], rel=0.05)
    assert 0 < cpu["store_share"] < 1
    assert r["moves_per_s"] == pytest.approx(r["moves_accepted"] / r["load_seconds"], rel=0.1)
    assert r["service_gap_s"] is not None and r["service_gap_s"] < 1.0  # no fault: moves went on at once
    assert r["moves_accepted_after_fault"] > 0 and r["fault_rewind_probes"] > 0


# --- Redis's password -------------------------------------------------------------------------------


def test_redis_include_is_replaced_by_a_generated_password(tmp_path: Path) -> None:
    """A redis.conf that includes the Secret's file (as production's may) runs here with a password of
    the runner's own in a file it generates; the URL carries it, and Redis refuses a client without it."""
    if shutil.which("redis-server") is None:
        missing("redis-server is not installed (Debian: apt-get install redis-server; .ci/run installs it)")
    configmap = tmp_path / "ledger-configmap.yaml"
    configmap.write_text((ROOT / "k8s" / "base" / "ledger-configmap.yaml").read_text().replace(
        "    port 6379\n", "    port 6379\n    include /etc/redis/secret/auth.conf\n"))
    workdir = tmp_path / "run"
    workdir.mkdir()
    store = FAULTS.RedisStore(workdir, PORT_BASE + 5, configmap)
    conf = store.conf.read_text().splitlines()
    assert "/etc/redis/secret" not in store.conf.read_text()
    includes = [line for line in conf if line.startswith("include ")]
    assert includes == [f"include {workdir / 'redis-auth.conf'}"]
    assert (workdir / "redis-auth.conf").read_text() == f"requirepass {store.password}\n"
    assert store.url == f"redis://:{store.password}@127.0.0.1:{PORT_BASE + 5}/0" and len(store.password) >= 32
    store.start()
    try:
        with socket.create_connection(("127.0.0.1", PORT_BASE + 5), timeout=2) as s:
            s.sendall(b"PING\r\n")
            assert s.recv(64).startswith(b"-NOAUTH")
        assert store.ping()  # AUTH with the password, then PING
    finally:
        store.close()


# --- PostgreSQL: a primary and a synchronous standby, the primary killed -9 ----------------------------

DOWN_SECONDS = 2


@pytest.fixture(scope="module")
def failover() -> dict[str, Any]:
    """The runner's figures for ``pg-failover`` (2 instances, 6 clients, the primary down 2 s)."""
    if FAULTS.postgres_bin() is None:
        missing("PostgreSQL is not installed (Debian: apt-get install postgresql; .ci/run installs it)")
    if shutil.which("haproxy") is None:
        missing("haproxy is not installed (Debian: apt-get install haproxy; .ci/run installs it)")
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        missing("runuser is not installed (Debian: util-linux), needed to run PostgreSQL as postgres")
    results = run_runner("--fault", "pg-failover", "--store", "postgres", "--instances", "2", "--clients", "6",
                         "--seconds", "8", "--down-seconds", str(DOWN_SECONDS), "--seed", "7")
    return results["pg-failover"]


def test_pg_failover_passes_the_verdict(failover: dict[str, Any]) -> None:
    """No 500, no 5xx other than 503 ledger_unavailable, no stranded match, no accepted rewind."""
    r = failover
    assert r["ok"] and not r["failures"], r["failures"]
    assert r["answers_500"] == 0 and r["bad_5xx"] == 0
    assert set(r["answers_5xx"]) <= {"503 ledger_unavailable"}
    assert r["matches_stranded"] == 0 and r["accepted_rewinds"] == 0


def test_pg_failover_is_felt_then_served_again(failover: dict[str, Any]) -> None:
    """Moves were refused 503 while no primary took writes, and accepted again after the promotion: the
    gap from the kill to the first move accepted is at least the time the primary was down."""
    r = failover
    assert r["answers_5xx"].get("503 ledger_unavailable", 0) > 0
    assert r["moves_accepted_after_fault"] > 0
    assert DOWN_SECONDS <= r["service_gap_s"] < 30
    assert r["longest_client_gap_s"] >= DOWN_SECONDS


def test_pg_failover_probes_the_tokens_answered_before_the_kill(failover: dict[str, Any]) -> None:
    r = failover
    assert r["fault_rewind_probes"] > 0
    assert r["accepted_rewinds"] == 0
    # refused as old; a probe sent just before the kill may have met the outage instead
    assert r["rewind_answers"].get("409 token_superseded", 0) >= r["fault_rewind_probes"]
    assert set(r["rewind_answers"]) <= {"409 token_superseded", "503 ledger_unavailable"}


def test_pg_failover_promotes_the_standby_and_reseeds_the_old_primary(failover: dict[str, Any]) -> None:
    r = failover
    events = " | ".join(r["events"])
    assert "primary pg0 killed -9" in events and "standby pg1 promoted" in events and "pg0 re-seeded from pg1" in events
    store = r["store"]
    assert store["name"] == "postgres" and store["synchronous_commit"] == "on"
    assert store["failovers"] == 1 and store["primary"] == "pg1" and store["standby"] == "pg0"
    assert "commits alone" in store["after_failover"]
    assert 0 < store["solo_seconds"] < 60 and store["moves_accepted_solo"] >= 0
    assert r["cpu"]["store_s"] > 0 and r["cpu"]["referees_s"] > 0
