#!/usr/bin/env python3
"""Fault runner: sealed Schnapsen matches through haproxy while one fault is injected, then a verdict.

Starts, on 127.0.0.1 only, one ledger store (``--store``: redis-server configured as
k8s/base/ledger-configmap.yaml says; a PostgreSQL primary and synchronous standby; or one SQLite file;
each in a temporary directory), N sealed referee instances (``python -m gunicorn
'service:create_app()'`` from the repository root, with k8s/base/configmap.yaml's settings) and haproxy
in front of them (round robin, health checks on ``GET /readyz`` at each instance's probe listener,
a request an instance never answered sent again to another). Clients play whole sealed matches
through haproxy, retry the same request after a transport error or a 5xx, try to resume after a refusal, and now and then send an older token with
another move (a rewind, which must be refused). One fault is injected mid-run; a prober polls each
instance's ``/healthz`` directly. The figures per fault go to stdout (a table, or ``--json``); the
exit status is 1 when a match was stranded, a rewind was accepted, a 5xx other than 503
``ledger_unavailable`` was answered, or no move was accepted after the fault; 2 when a run itself
failed (a cluster that did not start: no figures).

Usage (from the repository root, with the project's virtualenv):
    .venv/bin/python scripts/faults.py --fault sigkill [--instances 3 --clients 50 --seconds 30 --seed 1]
    .venv/bin/python scripts/faults.py --fault all --json
    .venv/bin/python scripts/faults.py --fault pg-failover --store postgres

docs/dev/faults.md describes every fault and every figure. Adding a store: a class with the
``Store`` methods; adding a fault: a function decorated with ``@fault(name, summary)``.
"""

from __future__ import annotations

import argparse
import base64
import http.client
import json
import os
import random
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, Self

ROOT = Path(__file__).resolve().parents[1]
GAME = "/v1/games/schnapsen"
HOST = "127.0.0.1"
DEFAULT_PORT_BASE = 18600
MAX_INSTANCES = 10
# Ports from --port-base: the store base (PostgreSQL: the primary base, the standby base+2; base+3..9 kept for
# stores), haproxy base+1, instance i: API base+10+i, probes base+20+i, metrics base+30+i.


def log(message: str) -> None:
    print(f"[faults {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --- settings, read from the manifests -------------------------------------------------------------


def configmap_settings(path: Path) -> dict[str, str]:
    """The ``data`` of a ConfigMap whose values are all flat quoted strings (k8s/base/configmap.yaml)."""
    found: dict[str, str] = {}
    for line in path.read_text().splitlines():
        m = re.match(r'^  ([A-Z][A-Z0-9_]*):\s*"(.*)"\s*$', line)
        if m:
            found[m.group(1)] = m.group(2)
    if not found:
        raise SystemExit(f"no settings found in {path}")
    return found


def configmap_block(path: Path, key: str) -> list[str]:
    """The lines of a ``key: |`` block of a ConfigMap (k8s/base/ledger-configmap.yaml's redis.conf)."""
    lines = path.read_text().splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == f"{key}: |"), None)
    if start is None:
        raise SystemExit(f"no {key} block in {path}")
    indent = len(lines[start + 1]) - len(lines[start + 1].lstrip())
    block = []
    for line in lines[start + 1 :]:
        if line.strip() and len(line) - len(line.lstrip()) < indent:
            break
        block.append(line[indent:])
    return block


def fernet_key() -> str:
    """A fresh Fernet key (32 random bytes, url-safe base64), as the docs' one-liner makes."""
    return base64.urlsafe_b64encode(os.urandom(32)).decode()


def port_is_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the servers do: TIME_WAIT is no obstacle
        try:
            s.bind((HOST, port))
        except OSError:
            return False
    return True


def wait_until(what: str, check: Callable[[], bool], seconds: float, alive: Callable[[], bool] = lambda: True) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        if not alive():
            raise RuntimeError(f"{what}: the process exited")
        time.sleep(0.1)
    raise RuntimeError(f"{what}: not ready after {seconds:.0f} s")


def http_get_status(port: int, path: str, timeout: float) -> int | None:
    """Status of ``GET path`` on a fresh connection, None when nothing answered in time."""
    try:
        conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
        try:
            conn.request("GET", path)
            resp = conn.getresponse()
            resp.read()
            return resp.status
        finally:
            conn.close()
    except (OSError, http.client.HTTPException):
        return None


def process_table() -> dict[int, tuple[int, int, float]]:
    """Every process now: pid → (parent pid, process group, CPU seconds). The CPU seconds are
    utime + stime + cutime + cstime of /proc/PID/stat: the process's own and that of the children it
    has reaped, so the sum over a tree stays whole while its children come and go (a gunicorn worker
    recycled, a PostgreSQL backend that ended) and counts each second once."""
    tick = os.sysconf("SC_CLK_TCK")
    table: dict[int, tuple[int, int, float]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue  # ended meanwhile
        fields = stat[stat.rfind(")") + 2 :].split()  # after "pid (comm) ": state ppid pgrp ...
        ticks = sum(int(f) for f in fields[11:15])
        table[int(entry)] = (int(fields[1]), int(fields[2]), ticks / tick)
    return table


def tree_cpu_seconds(roots: list[int], table: dict[int, tuple[int, int, float]] | None = None) -> float:
    """CPU seconds of the processes started as ``roots`` (each the leader of its own session) and of
    everything they started: the members of their process groups and every descendant (PostgreSQL's
    backends lead process groups of their own). A process that died unreaped by one of them (a
    whole tree killed -9) takes its seconds with it."""
    table = process_table() if table is None else table
    wanted = set(roots)
    children: dict[int, list[int]] = {}
    for pid, (ppid, pgrp, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    found = {pid for pid, (_, pgrp, _) in table.items() if pgrp in wanted} | (wanted & table.keys())
    todo = list(found)
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return sum(table[pid][2] for pid in found)


def stop_process(proc: subprocess.Popen[bytes] | None, first: signal.Signals, seconds: float) -> None:
    """Send ``first`` to a process started in its own session, wait (bounded), then SIGKILL its group."""
    if proc is None or proc.poll() is not None:
        return
    try:
        proc.send_signal(first)
        proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        pass
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=10)


# --- the ledger's store ------------------------------------------------------------------------------


class Store(Protocol):
    """The shared store the referees' ledger uses, chosen with ``--store``; faults reach it only
    through these (and ``pg-failover`` through PostgresStore's own)."""

    name: str
    ports: list[int]  # the ports it listens on (from the runner's port plan), checked free before a run

    @property
    def url(self) -> str:
        """``REFEREE_LEDGER_URL`` for the referees."""
        ...

    def describe(self) -> str: ...

    def start(self) -> None:
        """Start (or start again from what it persisted) and wait until it answers."""
        ...

    def stop(self, *, hard: bool = False) -> None:
        """Stop the server that takes the writes: cleanly, or ``hard`` (SIGKILL: whatever was not
        persisted is gone)."""
        ...

    def pause(self) -> None:
        """Freeze the server that takes the writes (connections stay open, nothing is answered)."""
        ...

    def resume(self) -> None: ...

    def close(self) -> None:
        """Stop every process of the store (the end of a run)."""
        ...

    def pids(self) -> list[int]:
        """The processes the runner started for it (each leads its own session): their trees are
        the store's CPU."""
        ...

    def facts(self) -> dict[str, Any]:
        """What the figures should say about the store beside its name (settings, what a fault did)."""
        ...


def signal_tree(root: int, sig: signal.Signals) -> list[int]:
    """Send ``sig`` to ``root`` and every process below it (by parent pid): first SIGSTOP them all,
    again until no new one appears (a stopped server forks no more), then ``sig`` to each. The pids."""
    seen: set[int] = set()
    for _ in range(10):
        table = process_table()
        tree = {root} if root in table else set()
        todo = list(tree)
        while todo:
            parent = todo.pop()
            for pid, (ppid, _, _) in table.items():
                if ppid == parent and pid not in tree:
                    tree.add(pid)
                    todo.append(pid)
        new = tree - seen
        if not new:
            break
        for pid in new:
            try:
                os.kill(pid, signal.SIGSTOP)
            except ProcessLookupError:
                pass
        seen |= new
    for pid in seen:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass
    if sig != signal.SIGSTOP and sig != signal.SIGKILL:
        for pid in seen:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
    return sorted(seen)


class RedisStore:
    """redis-server with k8s/base/ledger-configmap.yaml's redis.conf: AOF, ``appendfsync always``,
    ``noeviction`` and its ``maxmemory`` as given (a limit, not an allocation); changed: ``bind``,
    ``port`` and ``dir`` (127.0.0.1, the run's port, a temporary directory), and the password: any
    ``include`` line (production's includes the Secret's file) is replaced by the include of a file
    generated here holding ``requirepass`` and a random password, which the URL carries."""

    name = "redis"

    def __init__(self, workdir: Path, port_base: int, configmap: Path = ROOT / "k8s" / "base" / "ledger-configmap.yaml") -> None:
        exe = shutil.which("redis-server")
        if exe is None:
            raise SystemExit("redis-server is not installed (Debian: apt-get install redis-server)")
        self.exe = exe
        self.port = port_base
        self.ports = [port_base]
        self.dir = workdir / "redis"
        self.dir.mkdir()
        self.conf = workdir / "redis.conf"
        self.password = secrets.token_hex(16)
        auth = workdir / "redis-auth.conf"
        auth.write_text(f"requirepass {self.password}\n")
        auth.chmod(0o600)
        conf: list[str] = []
        included = False
        for line in configmap_block(configmap, "redis.conf"):
            word = line.split(" ", 1)[0]
            if word in ("include", "requirepass"):
                if not included:
                    conf.append(f"include {auth}")
                    included = True
                continue
            conf.append({"bind": f"bind {HOST}", "port": f"port {self.port}", "dir": f"dir {self.dir}"}.get(word, line))
        if not included:
            conf.append(f"include {auth}")
        self.conf.write_text("\n".join(conf) + "\n")
        self.settings = {w[0]: w[1] for w in (line.split(None, 1) for line in conf if line and not line.startswith("#")) if len(w) == 2}
        self.proc: subprocess.Popen[bytes] | None = None
        self.paused = False
        self.log = workdir / "redis.log"

    @property
    def url(self) -> str:
        return f"redis://:{self.password}@{HOST}:{self.port}/0"

    def describe(self) -> str:
        s = self.settings
        return (f"redis-server on {HOST}:{self.port}: appendonly {s.get('appendonly')}, appendfsync {s.get('appendfsync')}, "
                f"maxmemory {s.get('maxmemory')} (as in k8s/base/ledger-configmap.yaml), {s.get('maxmemory-policy')}, a password")

    def ping(self) -> bool:
        try:
            with socket.create_connection((HOST, self.port), timeout=0.5) as s:
                s.sendall(f"AUTH {self.password}\r\nPING\r\n".encode())
                got = b""
                while b"\r\n" not in got or got.count(b"\r\n") < 2:
                    chunk = s.recv(64)
                    if not chunk:
                        break
                    got += chunk
                return got.startswith(b"+OK\r\n+PONG")
        except OSError:
            return False

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen([self.exe, str(self.conf)], stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        proc = self.proc
        wait_until("redis-server", self.ping, 30, alive=lambda: proc.poll() is None)

    def stop(self, *, hard: bool = False) -> None:
        if self.proc is None:
            return
        if self.paused:
            self.resume()
        stop_process(self.proc, signal.SIGKILL if hard else signal.SIGTERM, 10)
        self.proc = None

    def pause(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)
        self.paused = True

    def resume(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)
        self.paused = False

    def close(self) -> None:
        self.stop()

    def pids(self) -> list[int]:
        return [self.proc.pid] if self.proc is not None else []

    def facts(self) -> dict[str, Any]:
        return {"servers": 1, "appendfsync": self.settings.get("appendfsync")}


class SqliteStore:
    """One SQLite file in the run's directory, shared by every instance (all on this machine): the
    ledger is in the referees' own processes, so its CPU is theirs (no store process). Nothing to
    pause or restart: the faults on the store do not apply."""

    name = "sqlite"

    def __init__(self, workdir: Path, port_base: int) -> None:
        self.path = workdir / "ledger.db"
        self.ports: list[int] = []

    @property
    def url(self) -> str:
        return f"sqlite:///{self.path}"

    def describe(self) -> str:
        return f"one SQLite file shared by every instance: {self.path}"

    def start(self) -> None:
        pass  # the first referee creates it

    def stop(self, *, hard: bool = False) -> None:
        raise NotImplementedError("a SQLite ledger has no server to stop")

    def pause(self) -> None:
        raise NotImplementedError("a SQLite ledger has no server to pause")

    def resume(self) -> None:
        raise NotImplementedError("a SQLite ledger has no server to resume")

    def close(self) -> None:
        pass

    def pids(self) -> list[int]:
        return []

    def facts(self) -> dict[str, Any]:
        return {"servers": 0, "file": self.path.name}


class NoStore:
    """No ledger at all (sealed mode without ``REFEREE_LEDGER_URL``): the baseline that the stores'
    costs are measured against (``scripts/scale.py``), with the same clients and the same moves.
    Nothing guards against rewinds here, so only the ``none`` fault runs on it, and scale.py turns
    the rewind probes off for every store alike (``--probe-every 0``)."""

    name = "none"

    def __init__(self, workdir: Path, port_base: int) -> None:
        self.ports: list[int] = []

    @property
    def url(self) -> str:
        return ""

    def describe(self) -> str:
        return "no ledger (sealed mode without REFEREE_LEDGER_URL: a baseline, rewinds are not refused)"

    def start(self) -> None:
        pass

    def stop(self, *, hard: bool = False) -> None:
        raise NotImplementedError("no ledger: nothing to stop")

    def pause(self) -> None:
        raise NotImplementedError("no ledger: nothing to pause")

    def resume(self) -> None:
        raise NotImplementedError("no ledger: nothing to resume")

    def close(self) -> None:
        pass

    def pids(self) -> list[int]:
        return []

    def facts(self) -> dict[str, Any]:
        return {"servers": 0}


def postgres_bin() -> Path | None:
    """Debian's PostgreSQL programs: the newest /usr/lib/postgresql/VERSION/bin with a ``postgres``
    and ``pg_ctl`` (not the wrappers on PATH, which need a cluster of pg_createcluster's)."""
    found = []
    for d in Path("/usr/lib/postgresql").glob("*/bin"):
        if (d / "postgres").is_file() and (d / "pg_ctl").is_file() and d.parent.name.isdigit():
            found.append((int(d.parent.name), d))
    return max(found)[1] if found else None


def as_postgres(command: list[str]) -> list[str]:
    """PostgreSQL's server programs refuse to run as root: as root, run them as the ``postgres``
    user (Debian's package creates it); otherwise as whoever runs the runner."""
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


class PgServer:
    """One PostgreSQL server of the store (a data directory and a port), run in the foreground in a
    session of its own. Named ``pg0``, ``pg1``: a standby connects with its name as
    ``application_name``, which the primary's ``synchronous_standby_names`` names."""

    def __init__(self, name: str, port: int, data: Path, bin_dir: Path, socket_dir: Path, log: Path) -> None:
        self.name = name
        self.port = port
        self.data = data
        self.bin = bin_dir
        self.socket_dir = socket_dir
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None
        self.stopped: list[int] = []  # pids SIGSTOPped by pause()

    def program(self, name: str, *args: str, seconds: float = 60) -> str:
        """Run one of PostgreSQL's programs as the server's user; its output (stderr too) appended to the log."""
        done = subprocess.run(as_postgres([str(self.bin / name), *args]), check=False, capture_output=True, text=True,
                              timeout=seconds)
        with self.log.open("a") as out:
            out.write(f"--- {name} {' '.join(args)}\n{done.stdout}{done.stderr}")
        if done.returncode != 0:
            raise RuntimeError(f"{name} {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()[-800:]}")
        return done.stdout

    def sql(self, statement: str, seconds: float = 10) -> str:
        """One statement as the superuser over the server's Unix socket (trust there), its rows as text."""
        done = subprocess.run([str(self.bin / "psql"), "-h", str(self.socket_dir), "-p", str(self.port), "-U", "postgres",
                               "-d", "postgres", "-XAtq", "-v", "ON_ERROR_STOP=1", "-c", statement],
                              check=False, capture_output=True, text=True, timeout=seconds, env={**os.environ, "PGCONNECT_TIMEOUT": "2"})
        if done.returncode != 0:
            raise RuntimeError(f"{self.name}: {statement}: {done.stderr.strip()}")
        return done.stdout.strip()

    def answers(self) -> bool:
        try:
            self.sql("SELECT 1", seconds=3)
            return True
        except (RuntimeError, subprocess.TimeoutExpired):
            return False

    def start(self) -> None:
        # The postmaster is the runner's own child (as the postgres user when root, set by Popen before
        # the exec, as runuser would but without runuser's process in between): the runner reaps it
        # when it is killed, so no zombie's pid in postmaster.pid keeps it from starting again.
        root = os.geteuid() == 0
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen([str(self.bin / "postgres"), "-D", str(self.data), "-p", str(self.port)],
                                         stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                         user="postgres" if root else None, group="postgres" if root else None,
                                         extra_groups=[] if root else None)
        proc = self.proc
        wait_until(f"postgres {self.name}", self.answers, 60, alive=lambda: proc.poll() is None)

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> list[int]:
        """SIGKILL the whole server at once: the postmaster and every backend and auxiliary process
        below it (each of PostgreSQL's children leads a process group of its own, so a kill of the
        postmaster's group alone would leave its backends serving for a moment): a machine lost."""
        assert self.proc is not None
        pids = signal_tree(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.proc = None
        self.stopped = []
        return pids

    def pause(self) -> None:
        assert self.proc is not None
        self.stopped = signal_tree(self.proc.pid, signal.SIGSTOP)

    def resume(self) -> None:
        for pid in self.stopped:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        self.stopped = []

    def stop(self) -> None:
        """A fast shutdown (``pg_ctl stop -m fast``: sessions ended, a checkpoint); SIGKILL if it hangs."""
        if self.proc is None:
            return
        self.resume()
        if self.proc.poll() is None:
            try:
                self.program("pg_ctl", "stop", "-D", str(self.data), "-m", "fast", "-w", "-t", "20", seconds=30)
                self.proc.wait(timeout=10)
            except (RuntimeError, subprocess.TimeoutExpired):
                self.kill()
        self.proc = None


class PostgresStore:
    """Debian's PostgreSQL: a primary and a synchronous standby on 127.0.0.1, data directories in the
    run's directory (owned by the ``postgres`` user when the runner is root).

    ``initdb`` makes the primary (``pg0``); the referees' role and database are created; then
    ``pg_basebackup -R`` copies it into the standby's directory (``pg1``, its ``primary_conninfo``
    carrying ``application_name=pg1``), the standby starts and streams, and the primary's
    ``synchronous_standby_names`` names it (``ALTER SYSTEM``, reloaded): from then on a commit, and
    so a move, is answered only once the standby has flushed it to disk (``synchronous_commit =
    on``). ``remote_apply`` would also wait for the standby to apply it, which matters only to
    reads on the standby; the referees read and write on the primary only (the URL's
    ``target_session_attrs=read-write``) and a promotion applies everything flushed, so ``on`` holds
    every acknowledged move at a lower cost.

    The referees get ``postgresql://referee:PASSWORD@127.0.0.1:PRIMARY,127.0.0.1:STANDBY/referee
    ?target_session_attrs=read-write``: libpq tries both and keeps the one that takes writes, so a
    failover needs no restart of a referee."""

    name = "postgres"
    database = "referee"
    role = "referee"

    def __init__(self, workdir: Path, port_base: int) -> None:
        bin_dir = postgres_bin()
        if bin_dir is None:
            raise SystemExit("PostgreSQL is not installed (Debian: apt-get install postgresql)")
        if os.geteuid() == 0 and shutil.which("runuser") is None:
            raise SystemExit("runuser is needed to run PostgreSQL as the postgres user")
        self.bin = bin_dir
        self.ports = [port_base, port_base + 2]
        self.password = secrets.token_hex(16)
        self.dir = workdir / "pg"
        self.dir.mkdir()
        socket_dir = self.dir / "sock"
        socket_dir.mkdir()
        if os.geteuid() == 0:
            workdir.chmod(0o711)  # the postgres user passes through to its own directory, and reads nothing else
            for d in (self.dir, socket_dir):
                shutil.chown(d, "postgres", "postgres")
        self.servers = [PgServer(f"pg{i}", port, self.dir / f"pg{i}", bin_dir, socket_dir, workdir / f"pg{i}.log")
                        for i, port in enumerate(self.ports)]
        self.primary, self.standby = self.servers
        self.created = False
        self.failovers = 0
        self.solo: list[tuple[float, float | None]] = []  # monotonic times the primary had no synchronous standby
        self.after_failover = ("the promoted standby commits alone (it names no synchronous standby) until the old "
                               "primary's directory is re-seeded from it (pg_basebackup) as its new standby and named "
                               "in its synchronous_standby_names: availability first, the two-copy guarantee back then")

    @property
    def url(self) -> str:
        hosts = ",".join(f"{HOST}:{p}" for p in self.ports)
        return f"postgresql://{self.role}:{self.password}@{hosts}/{self.database}?target_session_attrs=read-write"

    def version(self) -> str:
        return self.bin.parent.name

    def describe(self) -> str:
        return (f"PostgreSQL {self.version()}: primary {self.primary.name} on {HOST}:{self.primary.port}, synchronous standby "
                f"{self.standby.name} on {HOST}:{self.standby.port}, synchronous_commit on")

    def init_primary(self) -> None:
        pg = self.primary
        pg.program("initdb", "-D", str(pg.data), "-U", "postgres", "-E", "UTF8", "--locale=C",
                   "--auth-local=trust", "--auth-host=scram-sha-256")
        with (pg.data / "postgresql.conf").open("a") as conf:
            conf.write(f"""
# --- the fault runner's settings (the port is given on the command line: the standby copies this file)
listen_addresses = '{HOST}'
unix_socket_directories = '{pg.socket_dir}'
max_connections = 200
wal_level = replica
max_wal_senders = 5
wal_keep_size = '256MB'
hot_standby = on
synchronous_commit = on
wal_retrieve_retry_interval = '500ms'
log_line_prefix = '%m [%p] '
""")
        pg.start()
        pg.sql(f"CREATE ROLE {self.role} LOGIN PASSWORD '{self.password}'")
        pg.sql(f"CREATE DATABASE {self.database} OWNER {self.role}")

    def attach_standby(self) -> None:
        """Copy the primary into the standby's (emptied) directory, start it, wait until it streams,
        then name it in the primary's ``synchronous_standby_names`` and wait until it is ``sync``."""
        primary, standby = self.primary, self.standby
        if standby.data.exists():
            shutil.rmtree(standby.data)
        conninfo = f"host={primary.socket_dir} port={primary.port} user=postgres application_name={standby.name}"
        standby.program("pg_basebackup", "-d", conninfo, "-D", str(standby.data), "-R", "-X", "stream", "-c", "fast",
                        seconds=120)
        standby.start()
        query = f"SELECT state, sync_state FROM pg_stat_replication WHERE application_name = '{standby.name}'"
        wait_until(f"{standby.name} streaming", lambda: primary.sql(query).startswith("streaming"), 60)
        primary.sql(f"ALTER SYSTEM SET synchronous_standby_names = '{standby.name}'")
        primary.sql("SELECT pg_reload_conf()")
        wait_until(f"{standby.name} synchronous", lambda: primary.sql(query) == "streaming|sync", 30)

    def start(self) -> None:
        if not self.created:
            self.init_primary()
            self.attach_standby()
            self.created = True
            return
        # after stop(): the primary again from its directory; the standby reconnects by itself
        self.primary.start()
        query = f"SELECT sync_state FROM pg_stat_replication WHERE application_name = '{self.standby.name}'"
        wait_until(f"{self.standby.name} synchronous again", lambda: self.primary.sql(query) == "sync", 60)

    def stop(self, *, hard: bool = False) -> None:
        if hard:
            self.primary.kill()
        else:
            self.primary.stop()

    def pause(self) -> None:
        self.primary.pause()

    def resume(self) -> None:
        self.primary.resume()

    def close(self) -> None:
        for pg in self.servers:
            pg.stop()

    def pids(self) -> list[int]:
        return [pg.proc.pid for pg in self.servers if pg.proc is not None]

    def promote(self) -> None:
        """``pg_ctl promote`` the standby (waiting until it takes writes); it is the primary from now."""
        self.standby.program("pg_ctl", "promote", "-D", str(self.standby.data), "-w", "-t", "60", seconds=90)
        self.primary, self.standby = self.standby, self.primary
        self.failovers += 1
        self.solo.append((time.monotonic(), None))

    def reseed(self) -> None:
        """The old primary's directory re-seeded from the new primary as its synchronous standby."""
        self.attach_standby()
        start, _ = self.solo[-1]
        self.solo[-1] = (start, time.monotonic())

    def facts(self) -> dict[str, Any]:
        facts: dict[str, Any] = {
            "servers": 2, "version": self.version(), "synchronous_commit": "on",
            "primary": self.primary.name, "standby": self.standby.name, "failovers": self.failovers,
        }
        if self.failovers:
            facts["after_failover"] = self.after_failover
            facts["solo_seconds"] = round(sum((end or time.monotonic()) - start for start, end in self.solo), 2)
        return facts


STORES: dict[str, Callable[[Path, int], Store]] = {"redis": RedisStore, "postgres": PostgresStore, "sqlite": SqliteStore}
BASELINES: dict[str, Callable[[Path, int], Store]] = {"none": NoStore}
"""Stores that are no ledger: for the ``none`` fault only (scripts/scale.py's baseline)."""


# --- referee instances and the proxy -----------------------------------------------------------------


class Instance:
    """One referee (a gunicorn master and its workers) with k8s/base/configmap.yaml's settings, its listeners
    moved to 127.0.0.1 ports; started in its own session so that a SIGKILL takes the whole pod."""

    def __init__(self, index: int, workdir: Path, ports: tuple[int, int, int], env: dict[str, str], python: str) -> None:
        self.index = index
        self.api, self.probe, self.metrics = ports
        self.workdir = workdir
        self.env = env
        self.python = python
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def name(self) -> str:
        return f"r{self.index}"

    def start(self, seal_keys: list[str]) -> None:
        self.starts += 1
        keys = self.workdir / f"{self.name}-keys-{self.starts}"
        keys.write_text(",".join(seal_keys))
        keys.chmod(0o600)
        metrics_dir = self.workdir / f"{self.name}-metrics-{self.starts}"
        metrics_dir.mkdir()
        env = {
            **self.env,
            "REFEREE_SEAL_KEYS_FILE": str(keys),
            "REFEREE_BIND": f"{HOST}:{self.api}",
            "REFEREE_PROBE_BIND": f"{HOST}:{self.probe}",
            "REFEREE_METRICS_BIND": f"{HOST}:{self.metrics}",
            "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
        }
        with (self.workdir / f"{self.name}.out").open("ab") as out, (self.workdir / f"{self.name}.err").open("ab") as err:
            self.proc = subprocess.Popen([self.python, "-m", "gunicorn", "service:create_app()"], cwd=ROOT, env=env,
                                         stdout=out, stderr=err, start_new_session=True)

    def wait_ready(self, seconds: float = 90) -> None:
        proc = self.proc
        assert proc is not None
        try:
            wait_until(f"instance {self.name}", lambda: http_get_status(self.probe, "/readyz", 2) == 200, seconds,
                       alive=lambda: proc.poll() is None)
        except RuntimeError as exc:
            tail = (self.workdir / f"{self.name}.err").read_text(errors="replace")[-2000:]
            raise RuntimeError(f"{exc}\n{tail}") from None

    def kill(self) -> None:
        """SIGKILL the whole instance (master and workers), as a pod's container is killed."""
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def terminate(self, seconds: float) -> float:
        """SIGTERM the master (it drains, then stops gracefully); wait for it; the seconds it took."""
        assert self.proc is not None
        started = time.monotonic()
        stop_process(self.proc, signal.SIGTERM, seconds)
        return time.monotonic() - started

    def stop(self) -> None:
        stop_process(self.proc, signal.SIGINT, 15)  # SIGINT stops at once


class Haproxy:
    """haproxy in front of the instances: round robin, ``GET /readyz`` checks on each probe port every
    0.5 s (down after 2 failures, up after 2 successes). A request whose instance refused the
    connection or closed it without an answer (killed) is sent again, up to 3 times, to another
    instance (``retry-on conn-failure empty-response``, ``option redispatch``): safe because a move is
    answered exactly once for the same token and move, and what an operator of this service sets. The
    clients see what is left: the proxy's own 503 when no instance answers at all."""

    RISE_SECONDS = 1.5  # a server back up: 2 checks 0.5 s apart, and one period for the first

    def __init__(self, workdir: Path, port: int, instances: list[Instance]) -> None:
        exe = shutil.which("haproxy")
        if exe is None:
            raise SystemExit("haproxy is not installed (Debian: apt-get install haproxy)")
        self.exe = exe
        self.port = port
        self.cfg = workdir / "haproxy.cfg"
        self.log = workdir / "haproxy.log"
        servers = "\n".join(
            f"    server {i.name} {HOST}:{i.api} check port {i.probe} inter 500 fall 2 rise 2" for i in instances
        )
        self.cfg.write_text(f"""global
    maxconn 4000
defaults
    mode http
    timeout connect 2s
    timeout client 30s
    timeout server 20s
    timeout http-keep-alive 4s
    retries 3
    option redispatch 1
    option http-buffer-request
    retry-on conn-failure empty-response
frontend referee
    bind {HOST}:{port}
    default_backend referees
backend referees
    balance roundrobin
    option httpchk GET /readyz
    http-check expect status 200
{servers}
""")
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen([self.exe, "-db", "-f", str(self.cfg)], stdout=out, stderr=subprocess.STDOUT,
                                         start_new_session=True)
        proc = self.proc
        wait_until("haproxy", lambda: http_get_status(self.port, "/readyz", 2) == 200, 30, alive=lambda: proc.poll() is None)

    def stop(self) -> None:
        stop_process(self.proc, signal.SIGTERM, 10)


@dataclass
class Options:
    instances: int
    clients: int
    seconds: float
    seed: int
    port_base: int
    python: str
    store: str
    drain_seconds: int
    max_moves: int
    probe_every: int
    retries: int
    retry_seconds: float
    request_timeout: float
    flood_connections: int
    flood_seconds: float
    down_seconds: float
    keep: bool


class Cluster:
    """Store, instances and proxy of one run; every process is stopped on leaving (also on errors)."""

    def __init__(self, opts: Options, workdir: Path) -> None:
        self.opts = opts
        self.workdir = workdir
        self.rng = random.Random(opts.seed)
        self.t0 = time.monotonic()
        self.events: list[str] = []
        self.figures: Figures | None = None  # set by run_fault: the clients' figures (a fault marks its moment there)
        base = opts.port_base
        self.store = {**STORES, **BASELINES}[opts.store](workdir, base)
        ports = self.store.ports + [base + 1] + [base + off + i for off in (10, 20, 30) for i in range(opts.instances)]
        busy = [p for p in ports if not port_is_free(p)]
        if busy:
            raise SystemExit(f"ports in use: {busy} (choose another --port-base)")
        settings = configmap_settings(ROOT / "k8s" / "base" / "configmap.yaml")
        settings.update({"REFEREE_DRAIN_SECONDS": str(opts.drain_seconds)})
        if self.store.url:
            settings["REFEREE_LEDGER_URL"] = self.store.url
        env = {k: v for k, v in os.environ.items() if not k.startswith(("REFEREE_", "PROMETHEUS_"))}
        env.update(settings)
        self.seal_keys = [fernet_key()]
        self.instances = [
            Instance(i, workdir, (base + 10 + i, base + 20 + i, base + 30 + i), env, opts.python) for i in range(opts.instances)
        ]
        self.proxy = Haproxy(workdir, base + 1, self.instances)

    def note(self, what: str) -> None:
        line = f"t={time.monotonic() - self.t0:.1f}s {what}"
        self.events.append(line)
        log(line)

    def __enter__(self) -> Self:
        try:
            self.store.start()
            for inst in self.instances:
                inst.start(self.seal_keys)
            for inst in self.instances:
                inst.wait_ready()
            self.proxy.start()
        except BaseException:
            self.__exit__()
            raise
        self.t0 = time.monotonic()
        return self

    def __exit__(self, *exc: object) -> None:
        self.proxy.stop()
        for inst in self.instances:
            inst.stop()
        self.store.close()

    def cpu_seconds(self) -> tuple[float, float]:
        """CPU seconds so far of the referees (every gunicorn master and its workers) and of the store's
        processes (redis-server; every PostgreSQL server and its backends), from one reading of /proc."""
        table = process_table()
        referees = [inst.proc.pid for inst in self.instances if inst.proc is not None and inst.proc.poll() is None]
        return tree_cpu_seconds(referees, table), tree_cpu_seconds(self.store.pids(), table)

    def mark_fault(self) -> None:
        """The fault's moment, once its harm is done (the kill returned: nothing sent from now on can be
        answered by what it killed): the service gap is measured from it, and each client's rewind
        probe of a token answered before it is sent after it."""
        if self.figures is not None:
            self.figures.fault_at = time.monotonic()

    def restart(self, inst: Instance, keys: list[str]) -> None:
        """SIGTERM (drain, graceful stop), start with ``keys``, wait until ready."""
        took = inst.terminate(self.opts.drain_seconds + 40)
        self.note(f"{inst.name} stopped after SIGTERM in {took:.1f} s")
        inst.start(keys)
        inst.wait_ready()
        self.note(f"{inst.name} ready again (keys: {len(keys)})")
        # haproxy takes it back after 2 good checks 0.5 s apart: until then it is out of the rotation, and
        # stopping the next one could leave haproxy none (with 2 instances), as a rollout waits for readiness.
        time.sleep(Haproxy.RISE_SECONDS)


# --- faults ------------------------------------------------------------------------------------------


FaultFn = Callable[[Cluster], None]


@dataclass(frozen=True)
class Fault:
    name: str
    summary: str
    run: FaultFn
    stores: tuple[str, ...]  # the stores it applies to


FAULTS: dict[str, Fault] = {}
ALIASES = {"redis-pause": "store-pause", "redis-restart": "store-restart"}  # their names before other stores


def fault(name: str, summary: str, stores: tuple[str, ...] = tuple(STORES)) -> Callable[[FaultFn], FaultFn]:
    """Register a fault: a function that injects it into a running cluster and returns once the
    cluster is whole again (every process it stopped started again and ready). It calls
    ``cluster.mark_fault()`` at the moment of the harm (else its start is taken)."""

    def register(fn: FaultFn) -> FaultFn:
        FAULTS[name] = Fault(name, summary, fn, stores)
        return fn

    return register


@fault("none", "no fault: the baseline", (*STORES, *BASELINES))
def no_fault(cluster: Cluster) -> None:
    cluster.note("no fault")


@fault("sigkill", "SIGKILL one instance (master and workers), start it again after --down-seconds")
def sigkill(cluster: Cluster) -> None:
    inst = cluster.rng.choice(cluster.instances)
    inst.kill()
    cluster.mark_fault()
    cluster.note(f"{inst.name} SIGKILLed")
    time.sleep(cluster.opts.down_seconds)
    inst.start(cluster.seal_keys)
    inst.wait_ready()
    cluster.note(f"{inst.name} ready again")


@fault("sigterm", "SIGTERM one instance: it drains and stops; start it again")
def sigterm(cluster: Cluster) -> None:
    inst = cluster.rng.choice(cluster.instances)
    cluster.note(f"{inst.name} SIGTERM")
    cluster.restart(inst, cluster.seal_keys)


@fault("store-pause", "SIGSTOP the store (postgres: the primary, every process of it) for 5 s, then SIGCONT",
       ("redis", "postgres"))
def store_pause(cluster: Cluster) -> None:
    cluster.store.pause()
    cluster.mark_fault()
    cluster.note("store paused")
    time.sleep(5)
    cluster.store.resume()
    cluster.note("store resumed")


@fault("store-restart", "SIGKILL the store (postgres: the primary, every process of it), start it again from what "
                        "it persisted (the AOF; the WAL) after --down-seconds", ("redis", "postgres"))
def store_restart(cluster: Cluster) -> None:
    cluster.store.stop(hard=True)
    cluster.mark_fault()
    cluster.note("store killed")
    time.sleep(cluster.opts.down_seconds)
    cluster.store.start()
    cluster.note("store started again" + (" (its standby synchronous again)" if isinstance(cluster.store, PostgresStore) else ""))


@fault("pg-failover", "SIGKILL the PostgreSQL primary (every process of it), promote the synchronous standby after "
                      "--down-seconds, then re-seed the old primary's directory as the new primary's synchronous standby",
       ("postgres",))
def pg_failover(cluster: Cluster) -> None:
    store = cluster.store
    assert isinstance(store, PostgresStore)
    old, standby = store.primary, store.standby
    killed = old.kill()
    cluster.mark_fault()
    cluster.note(f"primary {old.name} killed -9 ({len(killed)} processes)")
    time.sleep(cluster.opts.down_seconds)
    store.promote()
    cluster.note(f"standby {standby.name} promoted (pg_ctl promote): the primary, with no synchronous standby")
    store.reseed()
    cluster.note(f"{old.name} re-seeded from {standby.name} (pg_basebackup), streaming, named synchronous: two copies again")


@fault("rotation", "two-phase seal-key rotation: restart each instance with 'old,new', then each with 'new,old'")
def rotation(cluster: Cluster) -> None:
    old, new = cluster.seal_keys[0], fernet_key()
    for keys in ([old, new], [new, old]):
        for inst in cluster.instances:
            cluster.note(f"{inst.name} SIGTERM for keys {'old,new' if keys[0] == old else 'new,old'}")
            cluster.restart(inst, keys)
    cluster.seal_keys = [new, old]


@fault("flood", "one client opens --flood-connections to one instance's API port, each a head with Content-Length and no body, "
                "held --flood-seconds then closed")
def flood(cluster: Cluster) -> None:
    inst = cluster.rng.choice(cluster.instances)
    head = (f"POST {GAME}/moves HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/json\r\n"
            f"Content-Length: 16384\r\n\r\n{{}}").encode()
    socks: list[socket.socket] = []
    failed = 0
    deadline = time.monotonic() + 15
    try:
        for _ in range(cluster.opts.flood_connections):
            if time.monotonic() > deadline:
                break
            try:
                s = socket.create_connection((HOST, inst.api), timeout=1)
                s.sendall(head)
                socks.append(s)
            except OSError:
                failed += 1
        cluster.note(f"{inst.name} flooded: {len(socks)} connections open, {failed} failed")
        time.sleep(cluster.opts.flood_seconds)
    finally:
        for s in socks:
            s.close()
    cluster.note(f"{inst.name} flood closed")


# --- figures -----------------------------------------------------------------------------------------


@dataclass
class Figures:
    """What one run counted; the lock guards every update from the client threads."""

    matches_started: int = 0
    matches_finished: int = 0
    matches_unfinished: int = 0  # still going when the run ended
    matches_stranded: int = 0
    new_failed: int = 0  # `new` never answered 201 after the bounded retries (no match was held)
    moves_sent: int = 0
    moves_accepted: int = 0
    retries: int = 0  # requests sent again after a transport error or a 5xx (any operation)
    resumes_tried: int = 0
    resumes_ok: int = 0
    states_sent: int = 0
    news_sent: int = 0
    rewind_probes: int = 0
    accepted_rewinds: int = 0
    refused: Counter[str] = field(default_factory=Counter)  # answers to `moves` other than 200, "status code"
    transport_errors: Counter[str] = field(default_factory=Counter)  # by operation
    answers_5xx: Counter[str] = field(default_factory=Counter)  # every 5xx, any operation, "status code"
    rewind_answers: Counter[str] = field(default_factory=Counter)
    fault_rewind_probes: int = 0  # probes of tokens answered before the fault, sent after it (also in rewind_probes)
    samples: list[str] = field(default_factory=list)  # a few details of what failed
    fault_at: float | None = None  # monotonic time of the fault's harm (Cluster.mark_fault)
    accepts: list[tuple[float, float]] = field(default_factory=list)  # each accepted move: (its last sending, its answer)
    longest_gap: float = 0.0  # the longest time any client went between two accepted moves of its own
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, **counts: int) -> None:
        with self.lock:
            for name, n in counts.items():
                setattr(self, name, getattr(self, name) + n)

    def count(self, counter: str, key: str, sample: str | None = None) -> None:
        with self.lock:
            getattr(self, counter)[key] += 1
            if sample is not None and len(self.samples) < 10:
                self.samples.append(sample)

    def accepted(self, sent: float, answered: float, gap: float | None) -> None:
        with self.lock:
            self.moves_accepted += 1
            self.accepts.append((sent, answered))
            if gap is not None:
                self.longest_gap = max(self.longest_gap, gap)

    def gap(self, seconds: float) -> None:
        with self.lock:
            self.longest_gap = max(self.longest_gap, seconds)

    def bad_5xx(self) -> int:
        return sum(n for k, n in self.answers_5xx.items() if k != "503 ledger_unavailable")


@dataclass
class Answer:
    status: int
    body: Any  # the parsed JSON, or None
    code: str  # a problem's code; "haproxy" for a proxy's own HTML page; "" for a success

    @property
    def label(self) -> str:
        return f"{self.status} {self.code}".strip()


Position = tuple[str, int, list[dict[str, Any]], dict[str, Any], float]


class Client:
    """One player thread: plays whole sealed matches through haproxy until told to stop, each seat
    moving with its own key; every loop is bounded by --max-moves, --retries and --retry-seconds."""

    def __init__(self, index: int, opts: Options, port: int, figures: Figures, stop: threading.Event,
                 stopped_at: Callable[[], float] | None = None) -> None:
        self.opts = opts
        self.stopped_at = stopped_at
        self.port = port
        self.figures = figures
        self.stop = stop
        self.rng = random.Random(opts.seed * 1_000 + index)
        self.conn: http.client.HTTPConnection | None = None
        self.last_sent = 0.0  # when the latest sending of a request began
        self.last_accept: float | None = None  # when its latest move was accepted
        self.probed_fault = False  # the tokens answered before the fault have been probed

    # transport

    def post(self, path: str, body: dict[str, Any], key: str | None) -> Answer:
        """One POST on the client's keep-alive connection; raises OSError or HTTPException when
        no answer came (the connection is then dropped)."""
        if self.conn is None:
            self.conn = http.client.HTTPConnection(HOST, self.port, timeout=self.opts.request_timeout)
        headers = {"Content-Type": "application/json"}
        if key is not None:
            headers["X-Seat-Key"] = key
        try:
            self.conn.request("POST", path, body=json.dumps(body).encode(), headers=headers)
            resp = self.conn.getresponse()
            raw = resp.read()
            ctype = resp.getheader("Content-Type", "")
            if resp.getheader("Connection", "").lower() == "close":
                self.conn.close()
                self.conn = None
        except (OSError, http.client.HTTPException):
            if self.conn is not None:
                self.conn.close()
            self.conn = None
            raise
        parsed: Any = None
        if "json" in ctype:
            try:
                parsed = json.loads(raw)
            except ValueError:
                parsed = None
        code = ""
        if resp.status >= 300:
            code = str(parsed.get("code", "?")) if isinstance(parsed, dict) else ("haproxy" if "html" in ctype else "?")
        answer = Answer(resp.status, parsed, code)
        if answer.status >= 500:
            sample = None if answer.label == "503 ledger_unavailable" else f"{path}: {answer.label}"
            self.figures.count("answers_5xx", answer.label, sample)
        return answer

    def send(self, op: str, path: str, body: dict[str, Any], key: str | None) -> Answer | None:
        """Send, and send the SAME request again after a transport error or a 5xx, with a short
        backoff, at most --retries times within --retry-seconds. The last answer (None: none came)."""
        deadline = time.monotonic() + self.opts.retry_seconds
        for attempt in range(self.opts.retries + 1):
            if attempt:
                self.figures.add(retries=1)
                time.sleep(min(2.0, 0.1 * 2**attempt) * (0.5 + self.rng.random()))
            self.figures.add(**{f"{op}_sent": 1})
            self.last_sent = time.monotonic()
            try:
                answer: Answer | None = self.post(path, body, key)
            except (OSError, http.client.HTTPException) as exc:
                self.figures.count("transport_errors", op, f"{op}: {type(exc).__name__}: {exc}" if op == "moves" else None)
                answer = None
            if answer is not None and answer.status < 500:
                return answer
            if time.monotonic() > deadline:
                break
        return answer

    # play

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                self.play_match()
        finally:
            if self.conn is not None:
                self.conn.close()
            if self.last_accept is not None and self.stopped_at is not None:  # the stretch up to the end counts too
                self.figures.gap(max(0.0, self.stopped_at() - self.last_accept))

    def state(self, token: str, seat: int, keys: list[str]) -> Answer | None:
        return self.send("states", f"{GAME}/state?as={seat}", {"token": token}, keys[seat])

    def play_match(self) -> None:
        started = self.send("news", f"{GAME}/new", {}, None)
        if started is None or started.status != 201:
            self.figures.add(new_failed=1)
            time.sleep(0.5)
            return
        self.figures.add(matches_started=1)
        keys: list[str] = started.body["seat_keys"]
        token: str = started.body["token"]
        view = self.state(token, started.body["to_move"][0], keys)
        # positions reached by accepted moves: (token, seat to move, its legal moves, the move played, when it was answered)
        history: list[Position] = []
        for _ in range(self.opts.max_moves):
            if view is None or view.status != 200:
                self.stranded(f"state: {view.label if view else 'no answer'}")
                return
            envelope = view.body
            token = envelope["token"]
            if envelope["status"] == "finished":
                self.figures.add(matches_finished=1)
                return
            if self.stop.is_set():
                self.figures.add(matches_unfinished=1)
                return
            seat = envelope["to_move"][0]
            legal = envelope["legal_moves"]
            if not legal:  # a view as another seat than the one to move: read as the right one
                view = self.state(token, seat, keys)
                continue
            move = self.rng.choice(legal)
            answer = self.send("moves", f"{GAME}/moves?as={seat}", {"token": token, "move": move}, keys[seat])
            if answer is not None and answer.status == 200:
                now = time.monotonic()
                self.figures.accepted(self.last_sent, now, None if self.last_accept is None else now - self.last_accept)
                self.last_accept = now
                history.append((token, seat, legal, move, now))
                view = answer
                fault_at = self.figures.fault_at
                if self.opts.probe_every and fault_at is not None and not self.probed_fault and self.last_sent >= fault_at:
                    # The first move this client got accepted after the fault: the latest token it held
                    # before a move accepted before the fault (with another legal move to try) must now be
                    # refused; had the store lost that move, the token would be current again.
                    self.probed_fault = True
                    before = [p for p in history[-2::-1] if p[4] < fault_at and any(m != p[3] for m in p[2])]
                    if before:
                        self.rewind(before[0], keys, after_fault=True)
                        continue
                if self.opts.probe_every and len(history) % self.opts.probe_every == 0 and len(history) >= 2:
                    self.rewind(history[-2], keys)
                continue
            if answer is None or answer.status >= 500:
                self.stranded(f"moves: {answer.label if answer else 'no answer'} after the retries")
                return
            self.figures.count("refused", answer.label)
            # Refused (409 token_superseded after a retry whose first sending was applied, say): get back
            # in with the token held. The chain of accepted tokens is broken: no rewind probe from it.
            self.figures.add(resumes_tried=1)
            view = self.state(token, seat, keys)
            history.clear()
            if view is not None and view.status == 200:
                self.figures.add(resumes_ok=1)
        self.figures.add(matches_unfinished=1)

    def stranded(self, why: str) -> None:
        self.figures.add(matches_stranded=1)
        with self.figures.lock:
            if len(self.figures.samples) < 10:
                self.figures.samples.append(f"stranded: {why}")

    def rewind(self, position: Position, keys: list[str], after_fault: bool = False) -> None:
        """The attack: a token two accepted moves back, with another legal move of that position."""
        token, seat, legal, played, _ = position
        others = [m for m in legal if m != played]
        if not others:
            return
        self.figures.add(rewind_probes=1, fault_rewind_probes=int(after_fault))
        try:
            answer = self.post(f"{GAME}/moves?as={seat}", {"token": token, "move": self.rng.choice(others)}, keys[seat])
        except (OSError, http.client.HTTPException):
            self.figures.count("transport_errors", "rewind")
            return
        self.figures.count("rewind_answers", answer.label)
        if answer.status == 200:
            self.figures.add(accepted_rewinds=1)


class Prober:
    """Polls ``/healthz`` on each instance's API port and probe port directly, every 0.2 s with a 1 s
    timeout; records each one's longest stretch without a 200 (seconds)."""

    PERIOD = 0.2

    def __init__(self, instances: list[Instance]) -> None:
        self.targets = {f"{i.name} {kind}": port for i in instances for kind, port in (("api", i.api), ("probe", i.probe))}
        self.gaps = dict.fromkeys(self.targets, 0.0)
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self.poll, args=(name,), daemon=True) for name in self.targets]

    def poll(self, name: str) -> None:
        port = self.targets[name]
        last_ok = time.monotonic()
        while not self.stop.is_set():
            started = time.monotonic()
            if http_get_status(port, "/healthz", 1.0) == 200:
                now = time.monotonic()
                self.gaps[name] = max(self.gaps[name], now - last_ok)
                last_ok = now
            self.stop.wait(max(0.0, self.PERIOD - (time.monotonic() - started)))
        self.gaps[name] = max(self.gaps[name], time.monotonic() - last_ok)

    def __enter__(self) -> Self:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(timeout=5)


# --- one run -----------------------------------------------------------------------------------------


def run_fault(name: str, opts: Options) -> dict[str, Any]:
    spec = FAULTS[name]
    if opts.store not in spec.stores:
        raise SystemExit(f"the fault {name} does not apply to the store {opts.store} (only to {', '.join(spec.stores)})")
    workdir = Path(tempfile.mkdtemp(prefix=f"faults-{name}-"))
    log(f"{name}: {spec.summary}; {opts.instances} instances, {opts.clients} clients, {opts.seconds:g} s, store {opts.store}; "
        f"files in {workdir}")
    figures = Figures()
    stop = threading.Event()
    stopped = [0.0]
    fault_seconds = 0.0
    try:
        with Cluster(opts, workdir) as cluster, Prober(cluster.instances) as prober:
            cluster.figures = figures
            log(cluster.store.describe())
            clients = [Client(i, opts, cluster.proxy.port, figures, stop, lambda: stopped[0]) for i in range(opts.clients)]
            threads = [threading.Thread(target=c.run, daemon=True, name=f"client-{i}") for i, c in enumerate(clients)]
            cpu_start = cluster.cpu_seconds()
            load_start = time.monotonic()
            for t in threads:
                t.start()
            try:
                time.sleep(max(1.0, opts.seconds * 0.3))
                fault_started = time.monotonic()
                figures.fault_at = fault_started  # the fault moves it to its harm's moment
                spec.run(cluster)
                fault_seconds = time.monotonic() - fault_started
                # Clients go on until --seconds have passed, and at least 3 s after the cluster is whole again.
                time.sleep(max(3.0, cluster.t0 + opts.seconds - time.monotonic()))
            finally:
                stopped[0] = time.monotonic()
                stop.set()
                cpu_end = cluster.cpu_seconds()
                cluster.note("stopping the clients")
                give_up = time.monotonic() + opts.retry_seconds + opts.request_timeout + 10
                for t in threads:
                    t.join(timeout=max(0.1, give_up - time.monotonic()))
            hung = sum(t.is_alive() for t in threads)
            elapsed = time.monotonic() - cluster.t0
            events = cluster.events
            gaps = {k: round(v, 2) for k, v in prober.gaps.items()}
            store_facts = {"name": cluster.store.name, "describe": cluster.store.describe(), **cluster.store.facts()}
            solo = getattr(cluster.store, "solo", [])
    finally:
        if not opts.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    load_seconds = stopped[0] - load_start
    with figures.lock:
        accepts = list(figures.accepts)
    in_load = sum(1 for _, answered in accepts if answered <= stopped[0])
    fault_at = figures.fault_at if figures.fault_at is not None else fault_started
    after = [answered for sent, answered in accepts if sent >= fault_at]
    service_gap = (min(after) - fault_at) if after else None
    if solo:
        store_facts["moves_accepted_solo"] = sum(1 for _, a in accepts if any(b <= a <= (e or stopped[0]) for b, e in solo))
    cpu = cpu_figures(cpu_end[0] - cpu_start[0], cpu_end[1] - cpu_start[1], in_load, load_seconds, opts.store)
    failures = []
    if not after:
        failures.append("no move accepted after the fault")
    if figures.matches_stranded:
        failures.append(f"{figures.matches_stranded} stranded")
    if figures.accepted_rewinds:
        failures.append(f"{figures.accepted_rewinds} accepted rewinds")
    if figures.bad_5xx():
        failures.append(f"{figures.bad_5xx()} 5xx other than 503 ledger_unavailable")
    if hung:
        failures.append(f"{hung} clients still running at the end")
    return {
        "fault": name,
        "instances": opts.instances,
        "clients": opts.clients,
        "seconds": round(elapsed, 1),
        "fault_seconds": round(fault_seconds, 1),
        "matches_started": figures.matches_started,
        "matches_finished": figures.matches_finished,
        "matches_unfinished": figures.matches_unfinished,
        "matches_stranded": figures.matches_stranded,
        "new_failed": figures.new_failed,
        "moves_sent": figures.moves_sent,
        "moves_accepted": figures.moves_accepted,
        "refused": dict(figures.refused),
        "retries": figures.retries,
        "resumes_tried": figures.resumes_tried,
        "resumes_ok": figures.resumes_ok,
        "states_sent": figures.states_sent,
        "news_sent": figures.news_sent,
        "transport_errors": dict(figures.transport_errors),
        "answers_5xx": dict(figures.answers_5xx),
        "bad_5xx": figures.bad_5xx(),
        "rewind_probes": figures.rewind_probes,
        "rewind_answers": dict(figures.rewind_answers),
        "accepted_rewinds": figures.accepted_rewinds,
        "fault_rewind_probes": figures.fault_rewind_probes,
        "answers_500": sum(n for k, n in figures.answers_5xx.items() if k.startswith("500")),
        "moves_accepted_after_fault": len(after),
        "service_gap_s": None if service_gap is None else round(service_gap, 2),
        "longest_client_gap_s": round(figures.longest_gap, 2),
        "load_seconds": round(load_seconds, 1),
        "moves_per_s": round(in_load / load_seconds, 1) if load_seconds > 0 else 0.0,
        "cpu": cpu,
        "store": store_facts,
        "healthz_longest_gap_s": gaps,
        "events": events,
        "samples": figures.samples,
        "failures": failures,
        "ok": not failures,
    }


def cpu_figures(referees: float, store: float, moves: int, seconds: float, store_name: str) -> dict[str, Any]:
    """The server side's CPU over the load window (clients started → told to stop): seconds, the
    cores busy on average, and milliseconds per accepted move; the store's share of a move's CPU.
    SQLite runs inside the referees' processes: its cost is in theirs, and its share is None."""

    def per_move(sec: float) -> float | None:
        return round(sec * 1000 / moves, 3) if moves else None

    total = referees + store
    return {
        "referees_s": round(referees, 2), "store_s": round(store, 2), "total_s": round(total, 2),
        "referees_cores": round(referees / seconds, 2) if seconds > 0 else None,
        "store_cores": round(store / seconds, 2) if seconds > 0 else None,
        "referees_ms_per_move": per_move(referees), "store_ms_per_move": per_move(store), "total_ms_per_move": per_move(total),
        "store_share": None if store_name == "sqlite" or total <= 0 else round(store / total, 3),
    }


# --- output ------------------------------------------------------------------------------------------


def counts(d: dict[str, int]) -> str:
    return ", ".join(f"{k}: {v}" for k, v in sorted(d.items())) or "-"


ROWS: list[tuple[str, Callable[[dict[str, Any]], str]]] = [
    ("seconds (fault)", lambda r: f"{r['seconds']} ({r['fault_seconds']})"),
    ("matches started / finished", lambda r: f"{r['matches_started']} / {r['matches_finished']}"),
    ("unfinished at the end", lambda r: str(r["matches_unfinished"])),
    ("stranded", lambda r: str(r["matches_stranded"])),
    ("moves sent / accepted", lambda r: f"{r['moves_sent']} / {r['moves_accepted']}"),
    ("moves refused", lambda r: counts(r["refused"])),
    ("retries (any request)", lambda r: str(r["retries"])),
    ("resumes tried / ok", lambda r: f"{r['resumes_tried']} / {r['resumes_ok']}"),
    ("transport errors", lambda r: counts(r["transport_errors"])),
    ("5xx answers", lambda r: counts(r["answers_5xx"])),
    ("5xx not ledger_unavailable", lambda r: str(r["bad_5xx"])),
    ("rewind probes / accepted", lambda r: f"{r['rewind_probes']} / {r['accepted_rewinds']}"),
    ("rewind answers", lambda r: counts(r["rewind_answers"])),
    ("new failed", lambda r: str(r["new_failed"])),
    ("rewinds after the fault (probes)", lambda r: str(r["fault_rewind_probes"])),
    ("moves accepted after the fault", lambda r: str(r["moves_accepted_after_fault"])),
    ("service gap from the fault (s)", lambda r: str(r["service_gap_s"])),
    ("longest gap of a client (s)", lambda r: str(r["longest_client_gap_s"])),
    ("moves/s (load window, s)", lambda r: f"{r['moves_per_s']} ({r['load_seconds']})"),
    ("CPU s referees / store", lambda r: f"{r['cpu']['referees_s']} / {r['cpu']['store_s']}"),
    ("CPU ms/move referees / store / all", lambda r: f"{r['cpu']['referees_ms_per_move']} / {r['cpu']['store_ms_per_move']} / "
                                                      f"{r['cpu']['total_ms_per_move']}"),
    ("store's share of a move's CPU", lambda r: str(r["cpu"]["store_share"])),
]


def print_table(results: list[dict[str, Any]]) -> None:
    width = max(len(name) for name, _ in ROWS) + 2
    for r in results:
        print(f"== {r['fault']} ({r['instances']} instances, {r['clients']} clients, store {r['store']['name']}): "
              f"{'ok' if r['ok'] else 'FAIL: ' + '; '.join(r['failures'])}")
        print(f"  {r['store']['describe']}")
        for key in ("after_failover", "solo_seconds", "moves_accepted_solo"):
            if key in r["store"]:
                print(f"  store {key.replace('_', ' ')}: {r['store'][key]}")
        for name, cell in ROWS:
            print(f"  {name:<{width}}{cell(r)}")
        gaps = r["healthz_longest_gap_s"]
        print(f"  {'longest /healthz gap (s)':<{width}}" + ", ".join(f"{k} {v}" for k, v in gaps.items()))
        for e in r["events"]:
            print(f"    {e}")
        for s in r["samples"]:
            print(f"    e.g. {s}")


def parse_args(argv: list[str] | None) -> tuple[list[str], Options, bool]:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--fault", required=True, metavar="NAME[,NAME...]",
                   help=f"the fault to inject, several separated by commas, or 'all' (each in turn that applies to the "
                        f"store): {', '.join(FAULTS)}")
    p.add_argument("--instances", type=int, default=3)
    p.add_argument("--clients", type=int, default=50)
    p.add_argument("--seconds", type=float, default=30, help="length of each run (at least the fault and 3 s after it)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true", help="print the figures as JSON instead of the table")
    p.add_argument("--store", choices=sorted({*STORES, *BASELINES}), default="redis",
                   help="the ledger's store; 'none': no ledger, a baseline for the 'none' fault only")
    p.add_argument("--port-base", type=int, default=DEFAULT_PORT_BASE,
                   help="store: base (postgres: base and base+2), haproxy: base+1, instances: base+10..39")
    p.add_argument("--python", default=sys.executable, help="the interpreter that runs gunicorn (one with the project installed)")
    p.add_argument("--drain-seconds", type=int, default=3,
                   help="REFEREE_DRAIN_SECONDS (k8s: 10, for the kubelet's probe period; haproxy here checks every 0.5 s)")
    p.add_argument("--max-moves", type=int, default=300, help="moves per match at most")
    p.add_argument("--probe-every", type=int, default=10,
                   help="a rewind probe after every Nth accepted move of a match (0: none, nor after the fault)")
    p.add_argument("--retries", type=int, default=12, help="times a request is sent again after a transport error or a 5xx")
    p.add_argument("--retry-seconds", type=float, default=20, help="... within this many seconds")
    p.add_argument("--request-timeout", type=float, default=15)
    p.add_argument("--flood-connections", type=int, default=2200)
    p.add_argument("--flood-seconds", type=float, default=8)
    p.add_argument("--down-seconds", type=float, default=3, help="how long a killed instance or store stays down")
    p.add_argument("--keep", action="store_true", help="keep each run's directory (configs, logs)")
    a = p.parse_args(argv)
    if not 1 <= a.instances <= MAX_INSTANCES:
        p.error(f"--instances must be 1..{MAX_INSTANCES}")
    if a.clients < 1 or a.seconds <= 0:
        p.error("--clients and --seconds must be positive")
    names = ([n for n, f in FAULTS.items() if a.store in f.stores] if a.fault == "all"
             else [ALIASES.get(n, n) for n in a.fault.split(",")])
    unknown = [n for n in names if n not in FAULTS]
    if unknown:
        p.error(f"unknown fault(s) {', '.join(unknown)}: choose among {', '.join(FAULTS)} or 'all'")
    misplaced = [n for n in names if a.store not in FAULTS[n].stores]
    if misplaced:
        p.error(f"not with --store {a.store}: {', '.join(misplaced)} (applies to {', '.join(FAULTS[misplaced[0]].stores)})")
    opts = Options(a.instances, a.clients, a.seconds, a.seed, a.port_base, a.python, a.store, a.drain_seconds, a.max_moves,
                   a.probe_every, a.retries, a.retry_seconds, a.request_timeout, a.flood_connections, a.flood_seconds,
                   a.down_seconds, a.keep)
    return names, opts, a.json


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM to the runner unwinds like Ctrl-C, so every process it started is stopped."""

    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: list[str] | None = None) -> int:
    names, opts, as_json = parse_args(argv)
    results = []
    with sigterm_as_interrupt():
        for name in names:
            try:
                results.append(run_fault(name, opts))
            except (RuntimeError, OSError, subprocess.SubprocessError) as exc:  # a cluster that did not start, say
                traceback.print_exc()
                log(f"{name}: the run itself failed: {exc}")
                return 2  # not a verdict (0 or 1): no figures
    if as_json:
        print(json.dumps({"ok": all(r["ok"] for r in results), "results": results}, indent=2))
    else:
        print_table(results)
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
