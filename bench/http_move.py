#!/usr/bin/env python3
"""HTTP throughput of one move request, beside a trivial JSON echo endpoint, on real gunicorn.

Starts each app under gunicorn with the settings the service ships (``service.gunicorn_conf``: its
worker class, JSON access log; 2 workers, 127.0.0.1 only; the referee with request ids and metrics
on, the metrics listener included), warms it up for a second, loads
it with ``wrk`` (Debian package ``wrk``) for a bounded time, and prints requests/s, p50 and p99 latency, and the referee's
ratio to the echo. The move request is a mid-game Schnapsen move (open mode: the plain state;
sealed mode: a token with the table key). The echo gets a body of the same size as the open-mode
move request. Runs here vary by up to 25% from one to the next: compare ratios of one run.

Usage: python3 bench/http_move.py [--seconds 8] [--connections 8] [--worker-class sync]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
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
  io.write(string.format("RESULT %.1f %.3f %.3f %d\n", summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, bad))
end
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _bodies(tmp: Path) -> dict[str, tuple[Path, str]]:
    """Request bodies: the open and sealed move requests, and an echo body of the open one's size."""
    from cryptography.fernet import Fernet

    from service import create_app

    key = Fernet.generate_key().decode()
    out: dict[str, tuple[Path, str]] = {}
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
        path = tmp / f"{mode}.json"
        path.write_text(json.dumps({source: env[source], "move": move}))
        out[mode] = (path, table)
    size = out["open"][0].stat().st_size
    echo = tmp / "echo.json"
    filler = "x" * max(0, size - len(json.dumps({"pad": ""})))
    echo.write_text(json.dumps({"pad": filler}))
    out["echo"] = (echo, "")
    os.environ["REFEREE_BENCH_SEAL_KEY"] = key
    return out


def _serve(app: str, port: int, env: dict[str, str], worker_class: str | None) -> subprocess.Popen[bytes]:
    extra = ["--worker-class", worker_class] if worker_class else []
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "python:service.gunicorn_conf", "--bind", f"127.0.0.1:{port}",
         "--workers", "2", *extra, app],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
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


def _load(url: str, body: Path, key: str, seconds: float, connections: int, lua: Path) -> tuple[float, float, float, int]:
    env = dict(os.environ, BODY=str(body), SEATKEY=key)
    cmd = ["wrk", "-t1", f"-c{connections}", f"-d{int(seconds)}s", "-s", str(lua), url]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=seconds + 30, check=True).stdout
    line = next(ln for ln in out.splitlines() if ln.startswith("RESULT"))
    rps, p50, p99, bad = line.split()[1:]
    return float(rps), float(p50), float(p99), int(bad)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--worker-class", default=None, help="gunicorn worker class for all three (default: the shipped one)")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed: apt-get install wrk")
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        bodies = _bodies(tmp)
        lua = tmp / "post.lua"
        lua.write_text(LUA)
        base_env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
        base_env["REFEREE_DRAIN_SECONDS"] = "0"
        referee_env = dict(base_env, REFEREE_METRICS_BIND=f"127.0.0.1:{_free_port()}")  # metrics on, as deployed
        runs = [
            ("echo", "bench.echo_app:create_app()", "/echo", base_env),
            ("open", "service:create_app()", "/v1/games/schnapsen/moves", referee_env),
            ("sealed", "service:create_app()", "/v1/games/schnapsen/moves",
             dict(referee_env, REFEREE_SEAL_KEYS=os.environ["REFEREE_BENCH_SEAL_KEY"])),
        ]
        results = {}
        for name, app, path, env in runs:
            port = _free_port()
            proc = _serve(app, port, env, args.worker_class)
            try:
                body, key = bodies[name]
                _load(f"http://127.0.0.1:{port}{path}", body, key, 1, args.connections, lua)  # warm-up, discarded
                results[name] = _load(f"http://127.0.0.1:{port}{path}", body, key, args.seconds, args.connections, lua)
            finally:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=15)
    echo_rps, _, echo_p99, _ = results["echo"]
    print(f"{'endpoint':<10}{'req/s':>10}{'p50 ms':>9}{'p99 ms':>9}{'errors':>8}{'vs echo':>9}{'p99 x':>7}")
    for name, (rps, p50, p99, bad) in results.items():
        print(f"{name:<10}{rps:>10,.0f}{p50:>9.2f}{p99:>9.2f}{bad:>8}{rps / echo_rps:>9.0%}{p99 / echo_p99:>7.1f}")


if __name__ == "__main__":
    main()
