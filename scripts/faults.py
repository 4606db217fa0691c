#!/usr/bin/env python3
"""Fault runner: sealed Schnapsen matches through haproxy while one fault is injected, then a verdict.

Starts, on 127.0.0.1 only, one ledger store (redis-server configured as k8s/ledger-configmap.yaml
says, in a temporary directory), N sealed referee instances (``python -m gunicorn
'service:create_app()'`` from the repository root, with k8s/configmap.yaml's settings) and haproxy
in front of them (round robin, health checks on ``GET /readyz`` at each instance's probe listener,
a request an instance never answered sent again to another). Clients play whole sealed matches
through haproxy, retry the same request after a transport error or a 5xx, try to resume after a refusal, and now and then send an older token with
another move (a rewind, which must be refused). One fault is injected mid-run; a prober polls each
instance's ``/healthz`` directly. The figures per fault go to stdout (a table, or ``--json``); the
exit status is 1 when a match was stranded, a rewind was accepted, or a 5xx other than 503
``ledger_unavailable`` was answered.

Usage (from the repository root, with the project's virtualenv):
    .venv/bin/python scripts/faults.py --fault sigkill [--instances 3 --clients 50 --seconds 30 --seed 1]
    .venv/bin/python scripts/faults.py --fault all --json

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
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
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
MAX_INSTANCES = 10  # ports: store base, haproxy base+1, instance i: API base+10+i, probes base+20+i, metrics base+30+i


def log(message: str) -> None:
    print(f"[faults {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --- settings, read from the manifests -------------------------------------------------------------


def configmap_settings(path: Path) -> dict[str, str]:
    """The ``data`` of a ConfigMap whose values are all flat quoted strings (k8s/configmap.yaml)."""
    found: dict[str, str] = {}
    for line in path.read_text().splitlines():
        m = re.match(r'^  ([A-Z][A-Z0-9_]*):\s*"(.*)"\s*$', line)
        if m:
            found[m.group(1)] = m.group(2)
    if not found:
        raise SystemExit(f"no settings found in {path}")
    return found


def configmap_block(path: Path, key: str) -> list[str]:
    """The lines of a ``key: |`` block of a ConfigMap (k8s/ledger-configmap.yaml's redis.conf)."""
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
    """The shared store the referees' ledger uses. A new store (PostgreSQL primary and standby, say)
    implements these and is chosen with ``--store``; faults reach it only through them."""

    name: str

    @property
    def url(self) -> str:
        """``REFEREE_LEDGER_URL`` for the referees."""
        ...

    def describe(self) -> str: ...

    def start(self) -> None:
        """Start (or start again from what it persisted) and wait until it answers."""
        ...

    def stop(self, *, hard: bool = False) -> None:
        """Stop: cleanly, or ``hard`` (SIGKILL: whatever was not persisted is gone)."""
        ...

    def pause(self) -> None:
        """Freeze it (connections stay open, nothing is answered)."""
        ...

    def resume(self) -> None: ...


class RedisStore:
    """redis-server with k8s/ledger-configmap.yaml's redis.conf: AOF, ``appendfsync always``,
    ``noeviction`` and its ``maxmemory`` as given (a limit, not an allocation); only ``bind``,
    ``port`` and ``dir`` are changed, to 127.0.0.1, the run's port and a temporary directory."""

    name = "redis"

    def __init__(self, workdir: Path, port: int) -> None:
        exe = shutil.which("redis-server")
        if exe is None:
            raise SystemExit("redis-server is not installed (Debian: apt-get install redis-server)")
        self.exe = exe
        self.port = port
        self.dir = workdir / "redis"
        self.dir.mkdir()
        self.conf = workdir / "redis.conf"
        conf = []
        for line in configmap_block(ROOT / "k8s" / "ledger-configmap.yaml", "redis.conf"):
            word = line.split(" ", 1)[0]
            conf.append({"bind": f"bind {HOST}", "port": f"port {port}", "dir": f"dir {self.dir}"}.get(word, line))
        self.conf.write_text("\n".join(conf) + "\n")
        self.settings = {w[0]: w[1] for w in (line.split(None, 1) for line in conf if line and not line.startswith("#")) if len(w) == 2}
        self.proc: subprocess.Popen[bytes] | None = None
        self.paused = False
        self.log = workdir / "redis.log"

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.port}/0"

    def describe(self) -> str:
        s = self.settings
        return (f"redis-server on {HOST}:{self.port}: appendonly {s.get('appendonly')}, appendfsync {s.get('appendfsync')}, "
                f"maxmemory {s.get('maxmemory')} (as in k8s/ledger-configmap.yaml), {s.get('maxmemory-policy')}")

    def ping(self) -> bool:
        try:
            with socket.create_connection((HOST, self.port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
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


STORES: dict[str, Callable[[Path, int], Store]] = {"redis": RedisStore}


# --- referee instances and the proxy -----------------------------------------------------------------


class Instance:
    """One referee (a gunicorn master and its workers) with k8s/configmap.yaml's settings, its listeners
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
        base = opts.port_base
        ports = [base, base + 1] + [base + off + i for off in (10, 20, 30) for i in range(opts.instances)]
        busy = [p for p in ports if not port_is_free(p)]
        if busy:
            raise SystemExit(f"ports in use: {busy} (choose another --port-base)")
        self.store = STORES[opts.store](workdir, base)
        settings = configmap_settings(ROOT / "k8s" / "configmap.yaml")
        settings.update({"REFEREE_LEDGER_URL": self.store.url, "REFEREE_DRAIN_SECONDS": str(opts.drain_seconds)})
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
        self.store.stop()

    def restart(self, inst: Instance, keys: list[str]) -> None:
        """SIGTERM (drain, graceful stop), start with ``keys``, wait until ready."""
        took = inst.terminate(self.opts.drain_seconds + 40)
        self.note(f"{inst.name} stopped after SIGTERM in {took:.1f} s")
        inst.start(keys)
        inst.wait_ready()
        self.note(f"{inst.name} ready again (keys: {len(keys)})")


# --- faults ------------------------------------------------------------------------------------------


FaultFn = Callable[[Cluster], None]


@dataclass(frozen=True)
class Fault:
    name: str
    summary: str
    run: FaultFn


FAULTS: dict[str, Fault] = {}


def fault(name: str, summary: str) -> Callable[[FaultFn], FaultFn]:
    """Register a fault: a function that injects it into a running cluster and returns once the
    cluster is whole again (every process it stopped started again and ready)."""

    def register(fn: FaultFn) -> FaultFn:
        FAULTS[name] = Fault(name, summary, fn)
        return fn

    return register


@fault("none", "no fault: the baseline")
def no_fault(cluster: Cluster) -> None:
    cluster.note("no fault")


@fault("sigkill", "SIGKILL one instance (master and workers), start it again after --down-seconds")
def sigkill(cluster: Cluster) -> None:
    inst = cluster.rng.choice(cluster.instances)
    inst.kill()
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


@fault("redis-pause", "SIGSTOP the store for 5 s, then SIGCONT")
def store_pause(cluster: Cluster) -> None:
    cluster.store.pause()
    cluster.note("store paused")
    time.sleep(5)
    cluster.store.resume()
    cluster.note("store resumed")


@fault("redis-restart", "SIGKILL the store, start it again from what it persisted (the AOF) after --down-seconds")
def store_restart(cluster: Cluster) -> None:
    cluster.store.stop(hard=True)
    cluster.note("store killed")
    time.sleep(cluster.opts.down_seconds)
    cluster.store.start()
    cluster.note("store started again")


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
    samples: list[str] = field(default_factory=list)  # a few details of what failed
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


class Client:
    """One player thread: plays whole sealed matches through haproxy until told to stop, each seat
    moving with its own key; every loop is bounded by --max-moves, --retries and --retry-seconds."""

    def __init__(self, index: int, opts: Options, port: int, figures: Figures, stop: threading.Event) -> None:
        self.opts = opts
        self.port = port
        self.figures = figures
        self.stop = stop
        self.rng = random.Random(opts.seed * 1_000 + index)
        self.conn: http.client.HTTPConnection | None = None

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
        # positions reached by accepted moves: (token, seat to move, its legal moves, the move played)
        history: list[tuple[str, int, list[dict[str, Any]], dict[str, Any]]] = []
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
                self.figures.add(moves_accepted=1)
                history.append((token, seat, legal, move))
                view = answer
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

    def rewind(self, position: tuple[str, int, list[dict[str, Any]], dict[str, Any]], keys: list[str]) -> None:
        """The attack: a token two accepted moves back, with another legal move of that position."""
        token, seat, legal, played = position
        others = [m for m in legal if m != played]
        if not others:
            return
        self.figures.add(rewind_probes=1)
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
    workdir = Path(tempfile.mkdtemp(prefix=f"faults-{name}-"))
    log(f"{name}: {spec.summary}; {opts.instances} instances, {opts.clients} clients, {opts.seconds:g} s; files in {workdir}")
    figures = Figures()
    stop = threading.Event()
    try:
        with Cluster(opts, workdir) as cluster, Prober(cluster.instances) as prober:
            log(cluster.store.describe())
            clients = [Client(i, opts, cluster.proxy.port, figures, stop) for i in range(opts.clients)]
            threads = [threading.Thread(target=c.run, daemon=True, name=f"client-{i}") for i, c in enumerate(clients)]
            for t in threads:
                t.start()
            try:
                time.sleep(max(1.0, opts.seconds * 0.3))
                fault_started = time.monotonic()
                spec.run(cluster)
                fault_seconds = time.monotonic() - fault_started
                # Clients go on until --seconds have passed, and at least 3 s after the cluster is whole again.
                time.sleep(max(3.0, cluster.t0 + opts.seconds - time.monotonic()))
            finally:
                stop.set()
                cluster.note("stopping the clients")
                give_up = time.monotonic() + opts.retry_seconds + opts.request_timeout + 10
                for t in threads:
                    t.join(timeout=max(0.1, give_up - time.monotonic()))
            hung = sum(t.is_alive() for t in threads)
            elapsed = time.monotonic() - cluster.t0
            events = cluster.events
            gaps = {k: round(v, 2) for k, v in prober.gaps.items()}
    finally:
        if not opts.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    failures = []
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
        "healthz_longest_gap_s": gaps,
        "events": events,
        "samples": figures.samples,
        "failures": failures,
        "ok": not failures,
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
]


def print_table(results: list[dict[str, Any]]) -> None:
    width = max(len(name) for name, _ in ROWS) + 2
    for r in results:
        print(f"== {r['fault']} ({r['instances']} instances, {r['clients']} clients): {'ok' if r['ok'] else 'FAIL: ' + '; '.join(r['failures'])}")
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
                   help=f"the fault to inject, several separated by commas, or 'all' (each in turn): {', '.join(FAULTS)}")
    p.add_argument("--instances", type=int, default=3)
    p.add_argument("--clients", type=int, default=50)
    p.add_argument("--seconds", type=float, default=30, help="length of each run (at least the fault and 3 s after it)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true", help="print the figures as JSON instead of the table")
    p.add_argument("--store", choices=sorted(STORES), default="redis")
    p.add_argument("--port-base", type=int, default=DEFAULT_PORT_BASE, help="store: base, haproxy: base+1, instances: base+10..39")
    p.add_argument("--python", default=sys.executable, help="the interpreter that runs gunicorn (one with the project installed)")
    p.add_argument("--drain-seconds", type=int, default=3,
                   help="REFEREE_DRAIN_SECONDS (k8s: 10, for the kubelet's probe period; haproxy here checks every 0.5 s)")
    p.add_argument("--max-moves", type=int, default=300, help="moves per match at most")
    p.add_argument("--probe-every", type=int, default=10, help="a rewind probe after every Nth accepted move of a match (0: none)")
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
    names = list(FAULTS) if a.fault == "all" else a.fault.split(",")
    unknown = [n for n in names if n not in FAULTS]
    if unknown:
        p.error(f"unknown fault(s) {', '.join(unknown)}: choose among {', '.join(FAULTS)} or 'all'")
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
            results.append(run_fault(name, opts))
    if as_json:
        print(json.dumps({"ok": all(r["ok"] for r in results), "results": results}, indent=2))
    else:
        print_table(results)
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
