"""Live servers for the generated-client tests: one gunicorn in open mode, one in sealed mode, on
127.0.0.1, started once per test session (every test module here puts its tests in the ``clients``
xdist group, so one worker runs them all and starts each server once)."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.fernet import Fernet

from tests.servers import Gunicorn, free_port

_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
_INDEX = int(_WORKER[2:]) if _WORKER[2:].isdigit() else 0
PORTS = range(18200 + 25 * _INDEX, 18225 + 25 * _INDEX)
"""Ports tried first (the range these tests own, a slice per xdist worker so that two workers never
race for one port); any free port otherwise."""

_TAKEN: set[int] = set()


def _port() -> int:
    for port in PORTS:
        if port in _TAKEN:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            _TAKEN.add(port)
            return port
    return free_port()


def _serve(tmp: Path, name: str, env: dict[str, str]) -> Iterator[Gunicorn]:
    server = Gunicorn(tmp, workers=2, env=env, name=name)
    server.port = _port()
    server.url = f"http://127.0.0.1:{server.port}"
    server.env["REFEREE_BIND"] = f"127.0.0.1:{server.port}"
    with server:
        yield server


@pytest.fixture(scope="session")
def open_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gunicorn]:
    yield from _serve(tmp_path_factory.mktemp("open-server"), "open", {})


@pytest.fixture(scope="session")
def sealed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gunicorn]:
    env = {"REFEREE_SEAL_KEYS": Fernet.generate_key().decode(), "REFEREE_ALLOW_FIXED_DECKS": "1"}
    yield from _serve(tmp_path_factory.mktemp("sealed-server"), "sealed", env)


@pytest.fixture(scope="session")
def servers(open_server: Gunicorn, sealed_server: Gunicorn) -> dict[str, Gunicorn]:
    return {"open": open_server, "sealed": sealed_server}
