"""Safe, explicit configuration at start-up (issue 15, item 4), with real gunicorn processes:

- sealed mode required and keys missing, empty or malformed: the master exits at once with
  status 78 and one line saying why; it never serves in open mode;
- keys from a mounted file (REFEREE_SEAL_KEYS_FILE) work, rotation included: a token sealed
  under the old key is still accepted after the file lists "new, old", and refused once "old" is
  dropped, while new tokens are sealed with the new key.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.fernet import Fernet

from tests.servers import ROOT, Gunicorn, call, free_port

pytestmark = pytest.mark.slow
GAME = "/v1/games/schnapsen"


def _start_refused(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("REFEREE_", "PROMETHEUS_"))}
    base.update({"REFEREE_BIND": f"127.0.0.1:{free_port()}", "REFEREE_WORKERS": "1", **env})
    return subprocess.run(
        [sys.executable, "-m", "gunicorn", "-c", "python:service.gunicorn_conf"],
        cwd=ROOT, env=base, capture_output=True, text=True, timeout=60, check=False,
    )


@pytest.mark.parametrize(
    ("env", "why"),
    [
        ({"REFEREE_MODE": "sealed"}, "REFEREE_MODE=sealed needs seal keys"),
        ({"REFEREE_MODE": "sealed", "REFEREE_SEAL_KEYS": ""}, "holds no key"),
        ({"REFEREE_SEAL_KEYS": " , "}, "holds no key"),  # set but empty, even without REFEREE_MODE: never open
        ({"REFEREE_MODE": "sealed", "REFEREE_SEAL_KEYS": "not-a-key"}, "is not a Fernet key"),
        ({"REFEREE_MODE": "sealed", "REFEREE_SEAL_KEYS_FILE": "/nonexistent/keys"}, "cannot be read"),
        ({"REFEREE_MODE": "open", "REFEREE_SEAL_KEYS": Fernet.generate_key().decode()}, "REFEREE_MODE=open but seal keys"),
        ({"REFEREE_MODE": "maybe"}, "REFEREE_MODE must be"),
    ],
    ids=["sealed-no-keys", "sealed-empty", "keys-set-empty", "malformed", "missing-file", "open-with-keys", "bad-mode"],
)
def test_a_refused_configuration_stops_the_service_and_says_why(env: dict[str, str], why: str) -> None:
    done = _start_refused(env)
    assert done.returncode == 78, done.stderr[-2000:]
    assert "card-referee: refusing to start: " in done.stderr and why in done.stderr, done.stderr[-2000:]
    assert "Booting worker" not in done.stderr  # refused before any worker started


def test_an_empty_key_file_is_refused(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    keys.write_text("\n\n")
    done = _start_refused({"REFEREE_MODE": "sealed", "REFEREE_SEAL_KEYS_FILE": str(keys)})
    assert done.returncode == 78 and "holds no key" in done.stderr


def test_keys_from_a_file_work_with_rotation(tmp_path: Path) -> None:
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    keys = tmp_path / "keys"
    keys.write_text(old + "\n")
    env = {"REFEREE_MODE": "sealed", "REFEREE_SEAL_KEYS_FILE": str(keys)}
    with Gunicorn(tmp_path, workers=1, env=env, name="old") as g:
        assert call(f"{g.url}/readyz")[1] == {"status": "ready", "mode": "sealed"}
        status, first = call(f"{g.url}{GAME}/new", {})
        assert status == 201 and "token" in first
    keys.write_text(f"{new}\n{old}\n")  # rotation: the new key first, the old one still accepted
    with Gunicorn(tmp_path, workers=1, env=env, name="both") as g:
        status, seen = call(f"{g.url}{GAME}/state", {"token": first["token"]})
        assert status == 200 and seen["state"] == first["state"]
        status, second = call(f"{g.url}{GAME}/new", {})
        assert status == 201
    keys.write_text(new)  # the old key dropped
    with Gunicorn(tmp_path, workers=1, env=env, name="new") as g:
        assert call(f"{g.url}{GAME}/state", {"token": second["token"]})[0] == 200  # sealed with the new key
        status, problem = call(f"{g.url}{GAME}/state", {"token": first["token"]})
        assert (status, problem["code"]) == (403, "bad_state_token")
