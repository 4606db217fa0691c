"""Real gunicorn instances for tests: started on a free 127.0.0.1 port, every wait bounded.

``Gunicorn`` runs ``python -m gunicorn 'service:create_app()'`` from the repository root, so the
repository's ``gunicorn.conf.py`` applies (a test may point ``-c`` at another file). Its stdout
(the JSON access log) and stderr go to files in a temporary directory, read back by the tests.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Self

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def call(url: str, body: object | None = None, headers: Mapping[str, str] | None = None, timeout: float = 10) -> tuple[int, Any]:
    """(status, parsed JSON body) of one request; the body is text when it is not JSON."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            status, raw = r.status, r.read()
    except urllib.error.HTTPError as e:
        status, raw = e.code, e.read()
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, raw.decode()


def children(pid: int) -> list[int]:
    """Live child processes of ``pid`` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(entry.name))
    return sorted(found)


class Gunicorn:
    """One gunicorn master with ``workers`` sync workers; use as a context manager.

    ``command``: how the master is started, if not ``python -m gunicorn ARGS 'service:create_app()'``
    from the checkout (e.g. ``card-referee serve``, from ``cwd``); it must honour ``REFEREE_BIND`` and
    ``REFEREE_WORKERS``."""

    def __init__(
        self, tmp: Path, *, workers: int = 2, env: Mapping[str, str] | None = None, args: Sequence[str] = (), name: str = "g",
        command: Sequence[str | Path] | None = None, cwd: Path = ROOT,
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.workers = workers
        self.stdout = tmp / f"{name}.out"
        self.stderr = tmp / f"{name}.err"
        base = {k: v for k, v in os.environ.items() if not k.startswith(("REFEREE_", "PROMETHEUS_"))}
        # No drain period unless a test asks for one: SIGTERM stops at once (still losing nothing queued).
        self.env = {**base, "REFEREE_BIND": f"127.0.0.1:{self.port}", "REFEREE_WORKERS": str(workers), "REFEREE_DRAIN_SECONDS": "0", **(env or {})}
        self.args = list(args)
        self.command = [str(c) for c in command] if command is not None else [sys.executable, "-m", "gunicorn", *self.args, "service:create_app()"]
        self.cwd = cwd
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Self:
        with self.stdout.open("wb") as out, self.stderr.open("wb") as err:
            self.proc = subprocess.Popen(self.command, cwd=self.cwd, env=self.env, stdout=out, stderr=err)
        self.wait_ready()
        return self

    def wait_ready(self, seconds: float = 30) -> None:
        assert self.proc is not None
        deadline = time.monotonic() + seconds
        while True:
            try:
                if call(f"{self.url}/readyz", timeout=2)[0] == 200 and len(self.worker_pids()) == self.workers:
                    return
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"gunicorn did not become ready:\n{self.stderr.read_text()[-3000:]}")
            time.sleep(0.1)

    def worker_pids(self) -> list[int]:
        assert self.proc is not None
        return children(self.proc.pid)

    def access_log(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.stdout.read_text().splitlines() if line.startswith("{")]

    def terminate(self, seconds: float = 40) -> int:
        """SIGTERM the master and wait (bounded) for it to exit; returns its exit code."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)
            raise

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                self.terminate()
            except subprocess.TimeoutExpired:
                pass
