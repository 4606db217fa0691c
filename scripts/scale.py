#!/usr/bin/env python3
"""Scale figures: the fault runner's baseline (``--fault none``) for each store and instance count, one
run after the other, and one table: moves accepted per second, the server side's CPU per accepted
move (the referees', the store's, both), the store's share of it, and the ledger's whole share of a
move's server CPU (its store's and the referees' work for it: beside the ``none`` baseline, sealed
play without a ledger, same clients and moves).

Each run is scripts/faults.py's own (a fresh cluster: store, instances, haproxy; clients playing
whole sealed matches for --seconds; every process stopped at its end), so the figures are those of
its JSON (``moves_per_s``, ``cpu``). docs/dev/faults.md says what they mean and how to read them.

Usage (from the repository root, with the project's virtualenv):
    .venv/bin/python scripts/scale.py [--stores none,sqlite,redis,postgres --instances 1,2,3 --clients 30 --seconds 20]

The rewind probes are off in every run (``--probe-every 0``): without a ledger nothing refuses them,
and the runs must do the same work per move to be compared.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import faults  # scripts/faults.py, beside this file


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    known = [*faults.BASELINES, *faults.STORES]
    p.add_argument("--stores", default="none,sqlite,redis,postgres", help="comma-separated, among " + ", ".join(known))
    p.add_argument("--instances", default="1,2,3", help="comma-separated instance counts")
    p.add_argument("--clients", type=int, default=30, help="client threads of each run (the same for every run)")
    p.add_argument("--seconds", type=float, default=20, help="length of each run")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--port-base", type=int, default=faults.DEFAULT_PORT_BASE)
    p.add_argument("--json", action="store_true", help="print every run's figures as JSON instead of the table")
    a = p.parse_args(argv)
    a.stores = a.stores.split(",")
    unknown = [s for s in a.stores if s not in known]
    if unknown:
        p.error(f"unknown store(s) {', '.join(unknown)}: choose among {', '.join(known)}")
    try:
        a.instances = [int(n) for n in a.instances.split(",")]
    except ValueError:
        p.error("--instances: comma-separated numbers")
    return a


def cell(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def ledger_share(r: dict[str, Any], baselines: dict[int, dict[str, Any]]) -> str:
    """The ledger's share of a move's server CPU: what this run costs per move beyond the baseline
    (no ledger) of as many instances, over this run's cost ("-" without a baseline run)."""
    base = baselines.get(r["instances"])
    if base is None or r["store"]["name"] == "none":
        return "-"
    total, without = r["cpu"]["total_ms_per_move"], base["cpu"]["total_ms_per_move"]
    return f"{100 * (total - without) / total:.0f} %" if total else "-"


def table(results: list[dict[str, Any]]) -> str:
    head = ("store", "instances", "moves/s", "referees ms/move", "store ms/move", "total ms/move", "store share",
            "ledger share", "referees cores", "store cores", "verdict")
    rows = [head]
    baselines = {r["instances"]: r for r in results if r["store"]["name"] == "none"}
    for r in results:
        c = r["cpu"]
        name = r["store"]["name"]
        share = "-" if name == "none" else "in referees" if name == "sqlite" else cell(
            None if c["store_share"] is None else 100 * c["store_share"], 1) + " %"
        rows.append((name, str(r["instances"]), cell(r["moves_per_s"], 1), cell(c["referees_ms_per_move"]),
                     cell(c["store_ms_per_move"]), cell(c["total_ms_per_move"]), share, ledger_share(r, baselines),
                     cell(c["referees_cores"]), cell(c["store_cores"]), "ok" if r["ok"] else "FAIL: " + "; ".join(r["failures"])))
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    return "\n".join("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip() for row in rows)


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    results = []
    with faults.sigterm_as_interrupt():
        for store in a.stores:
            for n in a.instances:
                _, opts, _ = faults.parse_args(["--fault", "none", "--store", store, "--instances", str(n), "--clients",
                                                str(a.clients), "--seconds", str(a.seconds), "--seed", str(a.seed),
                                                "--port-base", str(a.port_base), "--probe-every", "0"])
                results.append(faults.run_fault("none", opts))
    if a.json:
        print(json.dumps({"ok": all(r["ok"] for r in results), "results": results}, indent=2))
    else:
        print(f"{a.clients} clients, {a.seconds:g} s a run, seed {a.seed}; CPU over each run's load window")
        print(table(results))
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
