"""Fixtures of the fair-play tests: a real ``redis-server`` and a real PostgreSQL (Debian packages)
on 127.0.0.1, started and stopped by the tests, and sealed apps with a SQLite, Redis or PostgreSQL
ledger (``record_app``: every record mode, the record in the token or beside it in each store).

Ports: free ones the kernel picks, so parallel workers and two test runs on one machine never share
a Redis (a fixed range let one run's tests talk to, and lose, another run's server). Without ``redis-server`` on the PATH the Redis tests skip and say why (``.ci/run``
installs it); the same for PostgreSQL (``tests/pg.py``: one throwaway server per test session, a
fresh database for each ledger).
"""

from __future__ import annotations

import itertools
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from tests.conftest import KEY_NEW, KEY_OLD, make_app
from tests.pg import PostgresServer, why_missing
from tests.servers import free_port
from tests.tools import missing


class RedisServer:
    """One ``redis-server`` on 127.0.0.1 without persistence; ``stop``/``start`` for outage tests."""

    def __init__(self, tmp: Path, port_number: int) -> None:
        self.port = port_number
        self.url = f"redis://127.0.0.1:{port_number}/0"
        self.tmp = tmp
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        exe = shutil.which("redis-server")
        assert exe is not None
        self.proc = subprocess.Popen(
            [exe, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", str(self.tmp)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG") and self.proc.poll() is None:
                        return  # our own server (one that failed to bind has exited: the PONG was another's)
            except OSError:
                pass
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self.proc = None


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    if shutil.which("redis-server") is None:
        missing("redis-server is not installed (Debian: apt-get install redis-server; .ci/run installs it)")
    server = RedisServer(tmp_path_factory.mktemp("redis"), free_port())
    server.start()
    try:
        yield server
    finally:
        server.stop()


class Postgres:
    """The session's PostgreSQL server; ``fresh()`` makes a new empty database and gives its URL."""

    _names = itertools.count()

    def __init__(self, server: PostgresServer) -> None:
        self.server = server

    def fresh(self, prefix: str = "t") -> str:
        return self.server.database(f"{prefix}_{os.getpid()}_{next(self._names)}")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Postgres]:
    """One throwaway PostgreSQL for the session (each test takes a fresh database of it); skipped,
    and says why, where PostgreSQL is not installed."""
    problem = why_missing()
    if problem:
        missing(problem)
    with PostgresServer("fairplay") as server:
        yield Postgres(server)


def ledger_url(kind: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A new ledger of ``kind`` (``sqlite``, ``redis``: the module's server, ``postgres``: a fresh database)."""
    if kind == "sqlite":
        return f"sqlite:///{tmp_path_factory.mktemp('ledger') / 'ledger.db'}"
    if kind == "postgres":
        return str(request.getfixturevalue("postgres_server").fresh())
    return str(request.getfixturevalue("redis_server").url)


@pytest.fixture(scope="module", params=["sqlite", "redis", "postgres"])
def ledger_app(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Flask:
    """Sealed mode as in production (no fixed decks) with a ledger in SQLite, Redis or PostgreSQL."""
    return make_app(SEAL_KEYS=[KEY_NEW, KEY_OLD], LEDGER_URL=ledger_url(request.param, request, tmp_path_factory))


@pytest.fixture(scope="module")
def fair_app() -> Flask:
    """Sealed mode as in production, without a ledger."""
    return make_app(SEAL_KEYS=[KEY_NEW, KEY_OLD])


@pytest.fixture(scope="module", params=["token", "sqlite", "redis", "postgres"],
                ids=["record in token", "record in sqlite", "record in redis", "record in postgres"])
def record_app(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Flask:
    """Sealed mode as in production in each record mode: without a ledger (the token carries the
    record), or with a SQLite, Redis or PostgreSQL ledger (the record beside the token, its hash
    chain in it)."""
    if request.param == "token":
        return make_app(SEAL_KEYS=[KEY_NEW, KEY_OLD])
    return make_app(SEAL_KEYS=[KEY_NEW, KEY_OLD], LEDGER_URL=ledger_url(request.param, request, tmp_path_factory))
