#!/usr/bin/env python3
"""HTTP throughput of one move request, beside a trivial JSON echo endpoint, on real gunicorn.

Starts each app under gunicorn with the settings the service ships (``service.gunicorn_conf``: its
worker class, JSON access log; 2 workers, 127.0.0.1 only; the referee with request ids and metrics
on, the metrics listener included), warms each up for a second, loads it with ``wrk`` (Debian
package ``wrk``) for a bounded time, and prints requests/s, p50 and p99 latency, and the referee's
ratio to the echo. The move request is a mid-game Schnapsen move (open mode: the plain state;
sealed mode: a token with the table key). The echo is loaded with a body of the same size as each
move request: ``echo`` as the open one, ``echo·sealed`` as the sealed one (a padded token makes it
about four times larger); each mode's ratio is to the echo of its own body size (the sealed one is
also given against the open-size echo, as this script reported it before). ``GET /healthz`` on the
open referee measures its framework alone (Flask, the hooks, request ids, metrics, the access log),
beside the echo's. The servers run side
by side (each idle while another is loaded) and are loaded in alternating rounds: a slow spell of
the machine hits all of them alike. Single runs here vary by up to 25%; the medians of the
per-round ratios are the figures to read.

``--against DIR`` also serves the referee from another source tree (e.g. a checkout of the commit
before a change), open and sealed, in the same rounds, against the same echo; each tree is loaded
with the move request its own code made (the same seed, moves and seal key), as a release is.

Usage: python3 bench/http_move.py [--seconds 8] [--connections 8] [--rounds 3] [--worker-class sync]
       [--against DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LUA = r"""
local f = io.open(os.getenv("BODY"), "r"); local body = f:read("*a"); f:close()
wrk.method = "POST"; wrk.body = body
wrk.headers["Content-Type"] = "application/json"
local key = os.getenv("SEATKEY"); if key and key ~= "" then wrk.headers["X-Seat-Key"] = key end
done = function(summary, latency, requests)
  local bad = summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format("RESULT %.1f %.3f %.3f %d %d\n", summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, bad, summary.requests))
end
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


_MOVE_BODIES = """
import json, sys
from service import create_app
key, out = sys.argv[1], sys.argv[2]
found = {}
for mode, config in (("open", {"SEAL_KEYS": []}), ("sealed", {"SEAL_KEYS": [key], "ALLOW_FIXED_DECKS": True})):
    client = create_app(config).test_client()
    env = client.post("/v1/games/schnapsen/new", json={"seed": 3}).json
    table = env.get("table_key", "")
    headers = {"X-Seat-Key": table} if table else {}
    source = "token" if table else "state"
    for i in range(5):  # a few tricks in: a mid-game position
        seat = env["to_move"][0]
        legal = client.post(f"/v1/games/schnapsen/state?as={seat}", json={source: env[source]}, headers=headers).json
        move = next(m for m in legal["legal_moves"] if m["type"] == "play")
        if i == 4:
            break
        env = client.post("/v1/games/schnapsen/moves", json={source: env[source], "move": move}, headers=headers).json
    found[mode] = {"body": {source: env[source], "move": move}, "key": table}
print(json.dumps(found), file=open(out, "w"))
"""
"""Writes a tree's own open and sealed move requests (run in that tree, by its own code: each tree is
loaded with a body it sealed, as each release would be)."""


def _bodies(tmp: Path, trees: list[tuple[str, Path]]) -> dict[str, tuple[Path, str]]:
    """Request bodies: each tree's open and sealed move requests (rows ``<prefix>open`` and
    ``<prefix>sealed``), made by that tree's code with one seal key, and echo bodies of this
    tree's move requests' sizes."""
    from cryptography.fernet import Fernet

    key = Fernet.generate_key().decode()
    out: dict[str, tuple[Path, str]] = {}
    for prefix, tree in trees:
        made = tmp / f"{prefix.strip() or 'this'}-bodies.json"
        subprocess.run([sys.executable, "-c", _MOVE_BODIES, key, str(made)], cwd=tree, check=True,
                       env={k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")})
        for mode, found in json.loads(made.read_text()).items():
            path = tmp / f"{prefix.strip() or 'this'}-{mode}.json"
            path.write_text(json.dumps(found["body"]))
            out[prefix + mode] = (path, found["key"])
    for name, like in (("echo", "open"), ("echo·sealed", "sealed")):  # the echo's bodies: each move request's size
        size = out[like][0].stat().st_size
        echo = tmp / f"{like}-echo.json"
        filler = "x" * max(0, size - len(json.dumps({"pad": ""})))
        echo.write_text(json.dumps({"pad": filler}))
        out[name] = (echo, "")
    os.environ["REFEREE_BENCH_SEAL_KEY"] = key
    return out


def _serve(app: str, port: int, env: dict[str, str], worker_class: str | None, tree: Path = ROOT) -> subprocess.Popen[bytes]:
    extra = ["--worker-class", worker_class] if worker_class else []
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "python:service.gunicorn_conf", "--bind", f"127.0.0.1:{port}",
         "--workers", "2", *extra, app],
        cwd=tree, env=dict(env, PYTHONPATH=str(tree)), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"{app} did not start")


def _cpu_seconds(master: int) -> float:
    """CPU time (user + system) used so far by a gunicorn master and its workers, from /proc: the
    live ones', and those of workers that ended (recycled after ``max_requests``), which the
    master's own entry counts once it has reaped them."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(entry.name) == master:
            total += sum(int(f) for f in fields[11:15]) / tick  # utime, stime, and its reaped children's
        elif int(fields[1]) == master:  # fields[1]: the parent's pid
            total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
    return total


def _load(url: str, body: Path, key: str, seconds: float, connections: int, lua: Path,
          master: int) -> tuple[float, float, float, int, float]:
    """(requests/s, p50 ms, p99 ms, errors, the server's CPU µs per request) of one wrk run."""
    env = dict(os.environ, BODY=str(body), SEATKEY=key)
    cmd = ["wrk", "-t1", f"-c{connections}", f"-d{int(seconds)}s", "-s", str(lua), url]
    cpu = _cpu_seconds(master)
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=seconds + 30, check=True).stdout
    cpu = _cpu_seconds(master) - cpu
    line = next(ln for ln in out.splitlines() if ln.startswith("RESULT"))
    rps, p50, p99, bad, count = line.split()[1:]
    return float(rps), float(p50), float(p99), int(bad), cpu / max(int(count), 1) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds over the endpoints (medians printed)")
    parser.add_argument("--worker-class", default=None, help="gunicorn worker class for all of them (default: the shipped one)")
    parser.add_argument("--against", type=Path, default=None, help="also serve the referee from this source tree")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed: apt-get install wrk")
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        trees = [("", ROOT)] if args.against is None else [("before ", args.against.resolve()), ("", ROOT)]
        bodies = _bodies(tmp, trees)
        lua = tmp / "post.lua"
        lua.write_text(LUA)
        get_lua = tmp / "get.lua"  # the referee's trivial route: its framework alone
        get_lua.write_text(LUA.replace('wrk.method = "POST"; wrk.body = body', 'wrk.method = "GET"'))
        base_env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_") and k != "PYTHONDONTWRITEBYTECODE"}
        base_env["REFEREE_DRAIN_SECONDS"] = "0"
        # Bytecode is cached (outside the trees) as an installed package has it: a worker recycled
        # after max_requests would otherwise compile every module it imports again, on the clock.
        base_env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
        move_path = "/v1/games/schnapsen/moves"
        runs = [("echo", "bench.echo_app:create_app()", "/echo", base_env, ROOT)]
        for prefix, tree in trees:  # the referees with metrics on, as deployed (each its own metrics listener)
            runs.append((prefix + "open", "service:create_app()", move_path,
                         dict(base_env, REFEREE_METRICS_BIND=f"127.0.0.1:{_free_port()}"), tree))
            runs.append((prefix + "sealed", "service:create_app()", move_path,
                         dict(base_env, REFEREE_METRICS_BIND=f"127.0.0.1:{_free_port()}",
                              REFEREE_SEAL_KEYS=os.environ["REFEREE_BENCH_SEAL_KEY"]), tree))
        # (row, server, body, the echo row it is compared with)
        loads = [("echo", "echo", "echo", "echo"), ("echo·sealed", "echo", "echo·sealed", "echo·sealed")]
        loads += [(name, name, name, "echo" if name.endswith("open") else "echo·sealed")
                  for name, *_ in runs[1:]]
        loads.append(("GET /healthz", "open", "echo", "echo"))  # the open referee's framework, nothing of a move
        servers: dict[str, tuple[subprocess.Popen[bytes], str]] = {}
        rounds: list[dict[str, tuple[float, float, float, int, float]]] = []
        try:
            for name, app, path, env, tree in runs:  # all up at once; only one is loaded at a time
                port = _free_port()
                servers[name] = (_serve(app, port, env, args.worker_class, tree), f"http://127.0.0.1:{port}{path}")

            def target(row: str, server: str) -> tuple[str, Path]:
                if row == "GET /healthz":
                    return servers[server][1].rsplit("/v1/", 1)[0] + "/healthz", get_lua
                return servers[server][1], lua

            for row, server, body_name, _ in loads:
                body, key = bodies[body_name]
                url, script = target(row, server)
                _load(url, body, key, 1, args.connections, script, servers[server][0].pid)  # warm-up, discarded
            for _ in range(args.rounds):  # alternating: a slow spell of the machine hits every endpoint alike
                measured = {}
                for row, server, body_name, _ in loads:
                    body, key = bodies[body_name]
                    url, script = target(row, server)
                    measured[row] = _load(url, body, key, args.seconds, args.connections, script, servers[server][0].pid)
                rounds.append(measured)
        finally:
            for proc, _ in servers.values():
                proc.send_signal(signal.SIGTERM)
            for proc, _ in servers.values():
                proc.wait(timeout=15)
    baseline = {row: echo for row, _, _, echo in loads}
    print(f"{'round':<7}{'endpoint':<15}{'req/s':>10}{'p50 ms':>9}{'p99 ms':>9}{'errors':>8}{'vs echo':>9}{'p99 x':>7}"
          f"{'CPU µs/req':>12}{'CPU vs echo':>13}")
    ratios: dict[str, list[tuple[float, float, float]]] = {row: [] for row in baseline}
    to_open_echo: dict[str, list[float]] = {row: [] for row in baseline}
    for i, measured in enumerate(rounds, 1):
        for row, (rps, p50, p99, bad, cpu) in measured.items():
            echo_rps, _, echo_p99, _, echo_cpu = measured[baseline[row]]
            ratios[row].append((rps / echo_rps, p99 / echo_p99, echo_cpu / cpu))
            to_open_echo[row].append(rps / measured["echo"][0])
            print(f"{i:<7}{row:<15}{rps:>10,.0f}{p50:>9.2f}{p99:>9.2f}{bad:>8}{rps / echo_rps:>9.0%}{p99 / echo_p99:>7.1f}"
                  f"{cpu:>12,.0f}{echo_cpu / cpu:>13.0%}")
    print(f"median of {len(rounds)} rounds, each to the echo of its body size ('CPU': the echo's server CPU per request"
          " over this one's, what the req/s ratio would be with the workers' CPU the only limit):")
    for row, triples in ratios.items():
        if row.startswith("echo"):
            continue
        line = (f"  {row:<14} {statistics.median(r for r, _, _ in triples):.0%} of the echo's req/s, "
                f"p99 {statistics.median(q for _, q, _ in triples):.1f}x the echo's, CPU {statistics.median(c for _, _, c in triples):.0%}")
        if row.endswith("sealed"):
            line += f" ({statistics.median(to_open_echo[row]):.0%} of the open-size echo's req/s)"
        if row == "GET /healthz":
            line += " (the referee's framework alone: the rest of a move's cost is the move's own work)"
        print(line)
    for mode in ("open", "sealed") if args.against is not None else ():  # this tree against the other, round by round
        gains = [measured[mode][0] / measured["before " + mode][0] for measured in rounds]
        cpu = [measured[mode][4] / measured["before " + mode][4] for measured in rounds]
        print(f"  {mode} req/s, this tree / the other, median of the rounds: {statistics.median(gains):.2f}"
              f" (range {min(gains):.2f}–{max(gains):.2f}); CPU per request {statistics.median(cpu):.2f}"
              f" (range {min(cpu):.2f}–{max(cpu):.2f})")


if __name__ == "__main__":
    main()
