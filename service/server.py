"""What the service needs from its process manager (gunicorn), kept apart from the settings:

- ``usable_cpus``: the CPUs this process may use (affinity, capped by a cgroup v1 or v2 quota);
- ``DRAIN``: a flag the master shares with its workers (anonymous shared memory made before the
  workers fork), set the moment the master gets SIGTERM;
- ``install_drain``: the master's SIGTERM handling — mark draining, keep serving for the drain
  period, then stop new connections at the socket (``refuse_new_connections``) and let gunicorn's
  graceful stop run, while each worker takes every connection already queued before it closes
  its copy of the listener (``service.gunicorn_worker``);
- ``body_deadline``: the body of a request must arrive within a total deadline after its head,
  whether it stops or trickles (``service.gunicorn_worker`` applies it to every request);
- ``serving`` and ``close_after_answer``: the app marks the answer it is writing as the
  connection's last (a body that did not arrive whole: where the next request would start is
  unknown), so gunicorn closes the connection after it *and says so* (``Connection: close``);
- ``write_problem``: gunicorn's own refusals (a malformed request line, too long a URI, too many
  or too large header fields) as ``application/problem+json`` instead of an HTML page.
"""

from __future__ import annotations

import ctypes
import json
import mmap
import os
import signal
import socket
import struct
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

__all__ = [
    "DRAIN", "BodyDeadline", "SharedFlag", "body_deadline", "close_after_answer", "install_drain", "refuse_new_connections",
    "serving", "usable_cpus", "write_problem",
]


# --- CPUs ------------------------------------------------------------------------------------


def _quota_v2(text: str) -> float | None:
    parts = text.split()
    if len(parts) < 2 or parts[0] == "max":
        return None
    return int(parts[0]) / int(parts[1])


def _quota_v1(quota_text: str, period_text: str) -> float | None:
    quota, period = int(quota_text), int(period_text)
    if quota <= 0 or period <= 0:  # -1: no limit
        return None
    return quota / period


def _cgroup_paths(root: Path, proc_cgroup: str) -> tuple[list[Path], list[Path]]:
    """Candidate folders for the v2 ``cpu.max`` and the v1 ``cpu`` controller of this process:
    the namespaced root (a container sees its own cgroup there) and the path /proc names."""
    v2 = [root]
    v1 = [root / "cpu", root / "cpu,cpuacct", root / "cpuacct,cpu"]
    for line in proc_cgroup.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        rel = path.lstrip("/")
        if not controllers:
            v2.append(root / rel)
        elif "cpu" in controllers.split(","):
            v1 = [base / rel for base in v1[:3]] + v1
    return v2, v1


def cgroup_cpu_limit(root: Path = Path("/sys/fs/cgroup"), proc_cgroup: str | None = None) -> float | None:
    """The CPU limit of this process's cgroup in CPUs (v2 ``cpu.max`` or v1 ``cpu.cfs_quota_us`` /
    ``cpu.cfs_period_us``), or None when there is none."""
    if proc_cgroup is None:
        try:
            proc_cgroup = Path("/proc/self/cgroup").read_text()
        except OSError:
            proc_cgroup = ""
    v2, v1 = _cgroup_paths(root, proc_cgroup)
    limits: list[float] = []
    for folder in v2:
        try:
            found = _quota_v2((folder / "cpu.max").read_text())
        except (OSError, ValueError):
            continue
        if found is not None:
            limits.append(found)
    for folder in v1:
        try:
            found = _quota_v1((folder / "cpu.cfs_quota_us").read_text(), (folder / "cpu.cfs_period_us").read_text())
        except (OSError, ValueError):
            continue
        if found is not None:
            limits.append(found)
    return min(limits) if limits else None


def usable_cpus(root: Path = Path("/sys/fs/cgroup"), proc_cgroup: str | None = None) -> int:
    """CPUs this process may use: its affinity, capped by a cgroup CPU quota (rounded up)."""
    count = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    limit = cgroup_cpu_limit(root, proc_cgroup)
    if limit is not None:
        count = min(count, max(1, -int(-limit // 1)))  # ceiling
    return max(1, count)


# --- the drain flag ----------------------------------------------------------------------------


class SharedFlag:
    """One byte of anonymous shared memory: set in one process, seen by every process forked
    after it was made (the gunicorn master makes it before its workers exist)."""

    def __init__(self) -> None:
        self._mem = mmap.mmap(-1, 1)

    def set(self) -> None:
        self._mem[0] = 1

    def clear(self) -> None:
        self._mem[0] = 0

    def is_set(self) -> bool:
        return self._mem[0] == 1


DRAIN = SharedFlag()


# --- closing a listener without resetting what is queued on it ------------------------------

_SO_ATTACH_FILTER = 26
_BPF_RET_K = 0x06


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


_DROP_ALL = (_SockFilter * 1)(_SockFilter(_BPF_RET_K, 0, 0, 0))  # "return 0": keep no byte of any packet


def refuse_new_connections(sock: socket.socket) -> bool:
    """Attach a socket filter that drops every packet reaching the listening socket (Linux).

    New connection attempts (SYNs) no longer reach the accept queue, while the connections already
    queued stay there to be accepted and answered; a client whose SYN was dropped retries and is
    refused once the listener is closed, like any client of a stopped service. Returns False where
    the platform has no socket filters (then closing may reset what arrives meanwhile).
    """
    if not hasattr(socket, "AF_INET") or os.uname().sysname != "Linux":
        return False
    program = struct.pack("HL", 1, ctypes.addressof(_DROP_ALL))
    try:
        sock.setsockopt(socket.SOL_SOCKET, _SO_ATTACH_FILTER, program)
    except OSError:
        return False
    return True


def install_drain(arbiter: Any, seconds: float) -> None:
    """Make ``arbiter`` (gunicorn's master) drain on SIGTERM instead of stopping at once.

    On the first SIGTERM: the shared flag is set (``/readyz`` answers 503 ``draining`` and every
    response carries ``Connection: close``) and the master keeps its listeners and workers as they
    are for ``seconds``. Then, or on a second SIGTERM: new connections are refused at the socket,
    and gunicorn's graceful stop runs (listeners closed, workers told to finish; each worker first
    takes what is queued). SIGINT and SIGQUIT still stop at once, as gunicorn documents.
    """
    stop_now = arbiter.handle_term
    murder = arbiter.murder_workers
    reap = arbiter.reap_workers
    deadline: list[float] = []
    told: list[float] = []  # when the workers were last told to stop

    def stop() -> None:
        filtered = [refuse_new_connections(listener.sock) for listener in arbiter.LISTENERS]
        arbiter.log.info("stopping: new connections %s; queued ones are answered", "refused" if all(filtered) else "NOT refused")
        told.append(time.monotonic())
        stop_now()  # raises StopIteration: the master's loop halts gracefully

    def reap_workers() -> None:
        # gunicorn's graceful stop sends SIGTERM once. A worker forked just before (a replacement
        # still booting) may get it before it has its own handlers, and the handler it inherited
        # from the master swallows it: that worker would serve on until the graceful timeout ends
        # in SIGKILL. So while stopping, workers still alive are told again, once a second.
        reap()
        if told and arbiter.WORKERS and time.monotonic() - told[-1] >= 1.0:
            told.append(time.monotonic())
            arbiter.kill_workers(signal.SIGTERM)

    def handle_term() -> None:
        if deadline or seconds <= 0:
            stop()
        DRAIN.set()
        deadline.append(time.monotonic() + seconds)
        arbiter.log.info("SIGTERM: draining for %s s (readiness 503, Connection: close), then stopping", seconds)

    def murder_workers() -> None:
        murder()
        if deadline and time.monotonic() >= deadline[0]:
            arbiter.log.info("drain period over: stopping")
            stop()

    arbiter.handle_term = handle_term
    arbiter.murder_workers = murder_workers
    arbiter.reap_workers = reap_workers


# --- a total deadline for a request's body ----------------------------------------------------


class BodyDeadline:
    """Stands in for a connection's socket while one request's body is read: each ``recv`` waits
    at most what is left of ``seconds`` (counted from this object's creation, the end of the
    request's head), so a body that stops, or trickles a byte at a time, ends in ``TimeoutError``
    once the deadline has passed, however many reads it took. Everything else is the socket's."""

    def __init__(self, sock: Any, seconds: float) -> None:
        self._sock = sock
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds

    def _late(self) -> TimeoutError:
        return TimeoutError(f"the request body did not arrive within {self.seconds:g} s of its head")

    def recv(self, size: int, *flags: int) -> bytes:
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise self._late()
        before = self._sock.gettimeout()
        self._sock.settimeout(remaining if before is None else min(before, remaining))
        try:
            return self._sock.recv(size, *flags)  # type: ignore[no-any-return]
        except TimeoutError:
            raise self._late() from None
        finally:
            self._sock.settimeout(before)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


@contextmanager
def body_deadline(req: Any, seconds: float) -> Iterator[None]:
    """While the block runs, gunicorn's request ``req`` reads its body under ``BodyDeadline``
    (through the connection's unreader, which also holds what was read ahead with the head). The
    socket itself comes back afterwards, for the next request's head (which has its own deadline,
    ``keepalive``). ``seconds`` 0 or less: no deadline."""
    unreader: Any = getattr(req, "unreader", None)
    sock = getattr(unreader, "sock", None)
    if seconds <= 0 or sock is None or not hasattr(sock, "recv"):
        yield
        return
    unreader.sock = BodyDeadline(sock, seconds)
    try:
        yield
    finally:
        unreader.sock = sock


# --- an answer that closes its connection says so ----------------------------------------------

_REQUEST: ContextVar[Any] = ContextVar("referee_gunicorn_request", default=None)
"""gunicorn's request object being answered in this greenlet (gevent worker) or thread (sync)."""


def serving(req: Any) -> None:
    """gunicorn's ``pre_request`` hook names the request about to reach the app. The app keeps
    this function as ``app.extensions["referee.serving"]``, so the hook reaches the module copy
    the app imported (a configuration file run by path imports the checkout's ``service`` package,
    an installed app is ``card_referee``)."""
    _REQUEST.set(req)


def close_after_answer() -> None:
    """The answer being written is this connection's last: gunicorn writes it with
    ``Connection: close`` and then closes (its ``must_close``, as while draining). Without gunicorn
    (in-process tests, another WSGI server) this does nothing."""
    req = _REQUEST.get()
    if req is not None:
        req.must_close = True


# --- gunicorn's own refusals as problems -------------------------------------------------------

_CODES: Mapping[int, str] = {400: "invalid_request", 403: "forbidden", 414: "uri_too_long", 417: "invalid_request",
                             431: "headers_too_large", 500: "internal", 501: "not_implemented"}


def write_problem(sock: Any, status_int: int, reason: str, mesg: str) -> None:
    """Stand-in for ``gunicorn.util.write_error``: the same refusal, as problem+json."""
    code = _CODES.get(status_int, "invalid_request" if status_int < 500 else "internal")
    detail = mesg or reason
    body = json.dumps(
        {"type": f"/errors/{code}", "title": reason, "status": status_int, "code": code, "detail": detail[:500]},
        separators=(",", ":"),
    ).encode()
    head = (
        f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: application/problem+json\r\n"
        f"Content-Length: {len(body)}\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n\r\n"
    ).encode("latin-1")
    from gunicorn.util import write_nonblock

    write_nonblock(sock, head + body)
