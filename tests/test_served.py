"""The README's run command works: the app under real gunicorn on 127.0.0.1 answers a game.

Starts gunicorn with two sync workers on a free loopback port, waits (bounded) for /healthz, plays
a move, and stops it with SIGTERM. Every wait here is bounded in time.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _call(url: str, body: object | None = None) -> tuple[int, dict[str, object]]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "--workers", "2", "service:create_app()"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                if _call(f"{base}/healthz")[0] == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("gunicorn did not start: " + (proc.stderr.read().decode() if proc.poll() is not None and proc.stderr else ""))
            time.sleep(0.1)
        yield base
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


def test_gunicorn_serves_a_game(server: str) -> None:
    status, env = _call(f"{server}/v1/games/schnapsen/new", {"seed": 1})
    assert status == 201 and env["status"] == "in_progress"
    move = env["legal_moves"][-1]  # type: ignore[index]
    status, after = _call(f"{server}/v1/games/schnapsen/moves", {"state": env["state"], "move": move})
    assert status == 200 and after["state"]["seq"] == 1  # type: ignore[index]
    status, problem = _call(f"{server}/v1/games/schnapsen/moves", {"state": env["state"], "move": {"type": "dance"}})
    assert status == 422 and problem["code"] == "unknown_move_type"
    assert _call(f"{server}/readyz") == (200, {"status": "ready", "mode": "open"})
