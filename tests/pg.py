"""Throwaway PostgreSQL servers for tests, from Debian's ``postgresql`` package.

``PostgresServer`` runs ``initdb`` into a fresh directory under /tmp and ``postgres`` on a free
127.0.0.1 port (no Unix socket, trust authentication for 127.0.0.1 only, ``fsync`` off: a test
server needs to survive its processes being killed, which the operating system's page cache
does, not a power loss). As root (a container, CI) it runs every program as the ``postgres``
user through ``runuser``, the directory chowned to it; otherwise as the user running the tests.
Each server is its own process group (and each backend one of its own, as PostgreSQL makes them),
every process of it killed when stopped. ``standby()`` makes a streaming
replica with ``pg_basebackup -R`` named by ``application_name``, which ``synchronous()`` makes the
primary's synchronous standby; ``promote()`` makes a standby the primary.

The binaries are found in /usr/lib/postgresql/<version>/bin (the newest), never on PATH: Debian
puts only wrappers there, and a new machine may have none.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Self

from tests.servers import children, free_port

PG_ROOT = Path("/usr/lib/postgresql")
USER = "postgres"


def pg_bin() -> Path | None:
    """The newest /usr/lib/postgresql/<version>/bin that has initdb and postgres, or None."""
    found = []
    for bin_dir in PG_ROOT.glob("*/bin"):
        if (bin_dir / "initdb").is_file() and (bin_dir / "postgres").is_file():
            version = bin_dir.parent.name
            found.append((int(version) if version.isdigit() else 0, bin_dir))
    return max(found)[1] if found else None


def why_missing() -> str | None:
    """Why no throwaway server can be started here, or None."""
    if pg_bin() is None:
        return "PostgreSQL is not installed (Debian: apt-get install postgresql; .ci/run installs it)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam(USER)
        except KeyError:
            return "running as root without a postgres user to run PostgreSQL as (Debian's postgresql package creates it)"
        if shutil.which("runuser") is None:
            return "running as root without runuser (util-linux) to start PostgreSQL as the postgres user"
    return None


def _as_owner(cmd: Sequence[str | Path]) -> list[str]:
    """``cmd`` run as the server's owner: the postgres user when we are root."""
    args = [str(c) for c in cmd]
    return ["runuser", "-u", USER, "--", *args] if os.geteuid() == 0 else args


def _chown(path: Path) -> None:
    if os.geteuid() != 0:
        return
    user = pwd.getpwnam(USER)
    os.chown(path, user.pw_uid, user.pw_gid)
    for root, dirs, files in os.walk(path):
        for name in [*dirs, *files]:
            os.chown(os.path.join(root, name), user.pw_uid, user.pw_gid, follow_symlinks=False)


class PostgresServer:
    """One PostgreSQL server on 127.0.0.1 in a directory of its own; a context manager."""

    def __init__(self, name: str = "primary", root: Path | None = None, port: int | None = None) -> None:
        bin_dir = pg_bin()
        assert bin_dir is not None, why_missing()
        self.bin = bin_dir
        self.name = name
        self.root = root or Path(tempfile.mkdtemp(prefix=f"card-referee-pg-{name}-", dir="/tmp"))
        self._own_root = root is None
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.settings: dict[str, str] = {}

    # --- life -------------------------------------------------------------------------

    def init(self) -> Self:
        """``initdb`` (trust for local connections and replication on 127.0.0.1; UTF-8, C locale)."""
        _chown(self.root)
        subprocess.run(_as_owner([self.bin / "initdb", "-D", self.data, "-U", USER, "--auth=trust", "-E", "UTF8", "--no-locale",
                                  "--no-sync"]), check=True, capture_output=True, timeout=120)
        return self

    def start(self, timeout: float = 30) -> Self:
        settings = {
            "listen_addresses": "127.0.0.1", "port": str(self.port), "unix_socket_directories": "", "fsync": "off",
            "full_page_writes": "off", "shared_buffers": "16MB", "max_connections": "60", "max_wal_senders": "4",
            "wal_level": "replica", "hot_standby": "on", "logging_collector": "off", "log_min_messages": "warning",
            **self.settings,
        }
        args: list[str | Path] = [self.bin / "postgres", "-D", self.data]
        for key, value in settings.items():
            args += ["-c", f"{key}={value}"]
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(_as_owner(args), stdout=log, stderr=log, start_new_session=True)
        self.wait_ready(timeout)
        return self

    def wait_ready(self, timeout: float = 30) -> None:
        import psycopg

        deadline = time.monotonic() + timeout
        while True:
            try:
                with psycopg.connect(self.url(), connect_timeout=2):
                    return
            except psycopg.OperationalError:
                pass
            if self.proc is None or self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"PostgreSQL ({self.name}) did not start on port {self.port}:\n{self.log.read_text()[-3000:]}")
            time.sleep(0.05)

    def processes(self) -> list[int]:
        """The server's processes: ``runuser`` (as root), the postmaster and its children (each
        child of the postmaster is a process group of its own: ``setsid`` in PostgreSQL)."""
        if self.proc is None:
            return []
        found, todo = [], [self.proc.pid]
        while todo:
            pid = todo.pop()
            found.append(pid)
            todo.extend(children(pid))
        return found

    def signal(self, sig: int) -> None:
        """Send ``sig`` to every process of the server (SIGSTOP: a paused server, SIGCONT: going on)."""
        for pid in self.processes():
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        """SIGKILL every process of the server (the postmaster and every backend): a crash.
        Returns once nothing listens on its port any more (a dead process has closed its sockets)."""
        if self.proc is None:
            return
        self.signal(signal.SIGKILL)
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        self.proc = None
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
            except OSError:
                return
            time.sleep(0.02)

    def stop(self) -> None:
        """A fast shutdown (SIGINT to the postmaster), then the group killed if anything is left."""
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGINT)
            self.proc.wait(timeout=15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
        self.kill()

    def restart(self) -> Self:
        self.stop()
        return self.start()

    def cleanup(self) -> None:
        self.kill()
        if self._own_root:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Self:
        try:
            return self.init().start()
        except BaseException:
            self.cleanup()
            raise

    def __exit__(self, *exc: object) -> None:
        self.cleanup()

    # --- use --------------------------------------------------------------------------

    def url(self, db: str = "postgres") -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{db}"

    def sql(self, query: str, params: Sequence[Any] | None = None, db: str = "postgres") -> list[tuple[Any, ...]]:
        """Run ``query`` (autocommit) and return its rows (none for a statement without)."""
        import psycopg

        with psycopg.connect(self.url(db), autocommit=True, connect_timeout=5) as conn:
            cur = conn.execute(query, params)  # type: ignore[arg-type]
            return cur.fetchall() if cur.description else []

    def database(self, name: str) -> str:
        """A new empty database ``name`` (dropped first if it exists); its URL."""
        self.sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        self.sql(f'CREATE DATABASE "{name}"')
        return self.url(name)

    # --- replication ------------------------------------------------------------------

    def standby(self, name: str = "standby1") -> PostgresServer:
        """A streaming replica of this server (``pg_basebackup -R``), started, its ``application_name`` ``name``."""
        replica = PostgresServer(name)
        _chown(replica.root)
        subprocess.run(_as_owner([self.bin / "pg_basebackup", "-h", "127.0.0.1", "-p", str(self.port), "-U", USER,
                                  "-D", replica.data, "-R", "-X", "stream", "--no-sync", "--checkpoint=fast"]),
                       check=True, capture_output=True, timeout=120)
        with (replica.data / "postgresql.auto.conf").open("a") as conf:  # the last line wins
            conf.write(f"primary_conninfo = 'host=127.0.0.1 port={self.port} user={USER} application_name={name}'\n")
        try:
            replica.start()
        except BaseException:
            replica.cleanup()
            raise
        return replica

    def synchronous(self, standby: str = "standby1", commit: str = "on") -> None:
        """Make ``standby`` (an application_name) this server's synchronous standby: a commit waits
        until it holds the transaction (``commit``: ``on``, flushed there; ``remote_apply``, visible there)."""
        self.sql(f"ALTER SYSTEM SET synchronous_standby_names = '{standby}'")
        self.sql(f"ALTER SYSTEM SET synchronous_commit = '{commit}'")
        self.sql("SELECT pg_reload_conf()")
        deadline = time.monotonic() + 30
        while self.sql("SELECT count(*) FROM pg_stat_replication WHERE application_name = %s AND sync_state = 'sync'", [standby])[0][0] != 1:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{standby} did not become a synchronous standby")
            time.sleep(0.05)

    def promote(self) -> None:
        """This standby becomes a primary (``pg_promote``, waiting until it accepts writes)."""
        assert self.sql("SELECT pg_promote(true, 30)")[0][0] is True
