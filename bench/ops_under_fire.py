#!/usr/bin/env python3
"""Requests lost on SIGTERM and /healthz under slow clients, for any checkout (before/after).

Starts ``python -m gunicorn 'service:create_app()'`` from ``--root`` (that checkout's own
configuration, as its README's command 1 does) on 127.0.0.1, then:

1. **SIGTERM under load**: 8 clients (half keep-alive) send ``new`` requests; after 1 s the master
   gets SIGTERM; counts requests sent on an established connection and answered, and what
   ``/readyz`` said meanwhile;
2. **slow clients** (a fresh instance): 50 connections trickle a request head for 10 s while
   ``/healthz`` is probed every 0.25 s; prints the slowest probe and the failures.

Usage: python3 bench/ops_under_fire.py [--root PATH] [--port 18450] [--workers 2]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))

from tests.deploy.load import sigterm_under_load, slow_clients


def start(root: Path, port: int, workers: int, env_extra: dict[str, str]) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REFEREE_", "PROMETHEUS_"))}
    env.update({"REFEREE_BIND": f"127.0.0.1:{port}", "REFEREE_WORKERS": str(workers), "PYTHONPATH": str(root), **env_extra})
    with open(os.environ.get("OPS_BENCH_LOG", os.devnull), "ab") as log:  # the child keeps its own copy
        proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "service:create_app()"], cwd=root, env=env,
                                stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as r:
                if r.status == 200:
                    time.sleep(1.0)  # every worker booted
                    return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("the server did not become ready")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=HERE)
    parser.add_argument("--port", type=int, default=18450)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only-drain", action="store_true")
    parser.add_argument("--drain", default="3", help="REFEREE_DRAIN_SECONDS (ignored by checkouts without it)")
    args = parser.parse_args()
    print(f"checkout: {args.root}")
    proc = start(args.root, args.port, args.workers, {"REFEREE_DRAIN_SECONDS": args.drain})
    try:
        r = sigterm_under_load(proc.pid, args.port, after=float(args.drain) + 6)
    finally:
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
    draining = sum(1 for _, status, body in r.readyz if status == 503 and "draining" in body)
    print(f"SIGTERM under load: sent {r.sent}, answered {r.answered}, lost {len(r.lost)}, "
          f"connections refused {r.refused_connects}; answers after SIGTERM {r.answers_after_term} "
          f"(last {r.last_answer_after_term:.2f} s after), with Connection: close {r.closes_after_term}; "
          f"/readyz polls after SIGTERM {len(r.readyz)}, 'draining' {draining}")
    for line in r.lost[:5]:
        print("  lost:", line)
    if args.only_drain:
        return
    proc = start(args.root, args.port + 1, args.workers, {})
    try:
        s = slow_clients(args.port + 1)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
    print(f"slow clients (50 for 10 s): /healthz probes {s.probes}, slowest {s.slowest:.3f} s, failures {len(s.failures)}"
          f"{' e.g. ' + s.failures[0] if s.failures else ''}")


if __name__ == "__main__":
    main()
