"""The ledger's Redis as k8s/base runs it, started for real (Debian's ``redis-server``, 127.0.0.1).

Issue 30: Redis's password was on its command line (``--requirepass $(REDIS_PASSWORD)``), where the
process list shows it. Now the StatefulSet starts ``redis-server /etc/redis/redis.conf`` alone, that
file's last line includes ``/etc/redis-secret/auth.conf`` (the Secret's ``redis-auth.conf``:
``requirepass <password>``), and each probe reads the password from the same file into redis-cli's
own variable ``REDISCLI_AUTH``. Here the ConfigMap's ``redis.conf`` is started as it is, with only
``bind``, ``port`` and ``dir`` changed to 127.0.0.1, a free port and a temporary directory, and the
mounted paths mapped into that directory; the probes run as the kubelet runs them (``sh -c``).
"""

from __future__ import annotations

import secrets
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis
import yaml

from tests.servers import free_port
from tests.tools import missing

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "k8s" / "base"
CONFIG_DIR = "/etc/redis"
SECRET_DIR = "/etc/redis-secret"


def _load(name: str) -> dict[str, Any]:
    data = yaml.safe_load((BASE / name).read_text())
    assert isinstance(data, dict)
    return data


STATEFULSET = _load("ledger-statefulset.yaml")
REDIS = STATEFULSET["spec"]["template"]["spec"]["containers"][0]
REDIS_CONF = _load("ledger-configmap.yaml")["data"]["redis.conf"]
PROBES = ("startupProbe", "readinessProbe", "livenessProbe")


@dataclass
class Ledger:
    """One redis-server started from the ConfigMap's redis.conf, and where its mounts went."""

    proc: subprocess.Popen[bytes]
    port: int
    password: str
    root: Path  # stands for the pod's filesystem: <root>/etc/redis, <root>/etc/redis-secret

    def local(self, path: str) -> str:
        """A path of the pod, as it is here."""
        return str(self.root) + path

    def probe(self, name: str) -> subprocess.CompletedProcess[str]:
        """Run a probe's command as the kubelet would (its paths mapped, Redis's port added)."""
        command = [part.replace(SECRET_DIR, self.local(SECRET_DIR)) for part in REDIS[name]["exec"]["command"]]
        command[-1] = command[-1].replace("redis-cli ping", f"redis-cli -p {self.port} ping")
        return subprocess.run(command, capture_output=True, text=True, timeout=10, check=False)


def _write_secret(root: Path, password: str) -> None:
    """The Secret's `redis-auth.conf`, as ledger-secret.example.yaml's command makes it."""
    (root / SECRET_DIR.lstrip("/") / "auth.conf").write_text(f"requirepass {password}")


@pytest.fixture(scope="module")
def ledger(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ledger]:
    exe = shutil.which("redis-server")
    if exe is None or shutil.which("redis-cli") is None:
        missing("redis-server and redis-cli are not installed (Debian: apt-get install redis-server; .ci/run installs it)")
    root = tmp_path_factory.mktemp("pod")
    for folder in (CONFIG_DIR, SECRET_DIR, "/data"):
        (root / folder.lstrip("/")).mkdir(parents=True)
    port, password = free_port(), secrets.token_hex(32)
    lines = []
    for line in REDIS_CONF.splitlines():
        word = line.split(" ", 1)[0]
        replaced = {"bind": "bind 127.0.0.1", "port": f"port {port}", "dir": f"dir {root / 'data'}"}.get(word, line)
        lines.append(replaced.replace(SECRET_DIR, str(root) + SECRET_DIR))
    (root / CONFIG_DIR.lstrip("/") / "redis.conf").write_text("\n".join(lines) + "\n")
    _write_secret(root, password)
    args = [arg.replace(CONFIG_DIR, str(root) + CONFIG_DIR) for arg in REDIS["args"]]
    assert args[0] == "redis-server"
    proc = subprocess.Popen([exe, *args[1:]], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(64).startswith(b"-NOAUTH") and proc.poll() is None:
                        break  # ours, and asking for the password
            except OSError:
                pass
            assert proc.poll() is None, f"redis-server exited with {proc.returncode} on the ConfigMap's redis.conf"
            assert time.monotonic() < deadline, "redis-server did not answer within 15 s"
            time.sleep(0.05)
        yield Ledger(proc, port, password, root)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


def test_redis_starts_from_the_configmap_and_requires_the_included_password(ledger: Ledger) -> None:
    """The StatefulSet's command line alone starts Redis with the Secret's password: a client
    without it is refused, the URL the Secret's `url` takes (its host made 127.0.0.1) is served."""
    with pytest.raises(redis.AuthenticationError):
        redis.Redis(host="127.0.0.1", port=ledger.port).ping()
    with pytest.raises(redis.AuthenticationError):
        redis.Redis.from_url(f"redis://:{'0' * 64}@127.0.0.1:{ledger.port}/0").ping()
    client = redis.Redis.from_url(f"redis://:{ledger.password}@127.0.0.1:{ledger.port}/0")
    assert client.ping() is True
    assert client.config_get("appendfsync") == {"appendfsync": "always"}  # the rest of redis.conf holds too
    assert client.config_get("maxmemory-policy") == {"maxmemory-policy": "noeviction"}


def test_the_password_is_not_on_redis_command_line(ledger: Ledger) -> None:
    """The arguments Redis is started with (the container runtime's record of them, and `ps`
    until Redis retitles itself) hold no password, and neither do what `ps` shows now (its /proc
    cmdline) nor its environment."""
    assert isinstance(ledger.proc.args, list) and not any(ledger.password in str(arg) for arg in ledger.proc.args)
    cmdline = Path(f"/proc/{ledger.proc.pid}/cmdline").read_bytes().decode(errors="replace")
    assert "redis-server" in cmdline and ledger.password not in cmdline
    environ = Path(f"/proc/{ledger.proc.pid}/environ").read_bytes().decode(errors="replace")
    assert ledger.password not in environ


@pytest.mark.parametrize("name", PROBES)
def test_each_probe_authenticates_with_the_file_and_fails_without_the_right_password(ledger: Ledger, name: str) -> None:
    """The probe passes against the running Redis; with the file holding another password it fails
    (so a probe that never authenticated, or read another file, could not pass); the password is in
    no argument of the probe's command."""
    assert ledger.password not in " ".join(REDIS[name]["exec"]["command"])
    ok = ledger.probe(name)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    _write_secret(ledger.root, secrets.token_hex(32))
    try:
        wrong = ledger.probe(name)
        assert wrong.returncode != 0, "the probe passed with a wrong password"
    finally:
        _write_secret(ledger.root, ledger.password)
    (Path(ledger.local(SECRET_DIR)) / "auth.conf").unlink()
    try:
        gone = ledger.probe(name)
        assert gone.returncode != 0, "the probe passed without the password file"
    finally:
        _write_secret(ledger.root, ledger.password)
