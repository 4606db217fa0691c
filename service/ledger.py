"""The rewind guard: each sealed match's latest ``seq`` in a real store (``REFEREE_LEDGER_URL``).

``redis://host:port/db`` keeps it in a Redis server (several instances); ``sqlite:///path`` in a
SQLite file (one machine, all its workers). ``advance(match, seq)`` is one atomic compare-and-set:
it moves the match from ``seq`` to ``seq + 1`` and answers True, or answers False when the ledger
knows a different latest ``seq`` (the token is superseded). An unknown match counts as current
(a match begun before the ledger was turned on, or whose entry expired). Entries expire
``REFEREE_LEDGER_TTL`` seconds after their last move, so the store stays bounded. Any failure to
reach the store raises ``LedgerUnavailable``: the service then refuses, never accepts silently.
"""

from __future__ import annotations

import sqlite3
import threading
import time
import urllib.parse
from typing import Any, Final, Protocol

__all__ = ["DEFAULT_TTL", "Ledger", "LedgerUnavailable", "RedisLedger", "SqliteLedger", "check_url", "open_ledger"]

DEFAULT_TTL: Final = 7 * 24 * 3600
"""Seconds a match's entry lives after its last move (one week)."""
TIMEOUT: Final = 2.0
"""Seconds a request waits for the store before answering 503 ``ledger_unavailable``."""


class LedgerUnavailable(Exception):
    """The ledger could not be read or written."""


class Ledger(Protocol):
    def current(self, match_id: str, seq: int) -> bool:
        """Whether ``seq`` is the latest the ledger knows for the match (or the match is unknown)."""

    def advance(self, match_id: str, seq: int) -> bool:
        """Atomically move the match from ``seq`` to ``seq + 1``; False if ``seq`` is not current."""


_LUA_ADVANCE: Final = """
local v = redis.call('GET', KEYS[1])
if v and tonumber(v) ~= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
return 1
"""


class RedisLedger:
    """The ledger in Redis: one key per match, ``card-referee:seq:<match id>``, set by a Lua script."""

    def __init__(self, url: str, ttl: int) -> None:
        import redis

        self._ttl = ttl
        self._client = redis.Redis.from_url(url, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT, retry_on_timeout=False)
        self._advance = self._client.register_script(_LUA_ADVANCE)
        self._errors: tuple[type[BaseException], ...] = (redis.RedisError, OSError)

    @staticmethod
    def _key(match_id: str) -> str:
        return f"card-referee:seq:{match_id}"

    def current(self, match_id: str, seq: int) -> bool:
        try:
            value = self._client.get(self._key(match_id))
        except self._errors as exc:
            raise LedgerUnavailable(str(exc)) from None
        return value is None or int(value) == seq

    def advance(self, match_id: str, seq: int) -> bool:
        try:
            return bool(self._advance(keys=[self._key(match_id)], args=[seq, seq + 1, self._ttl]))
        except self._errors as exc:
            raise LedgerUnavailable(str(exc)) from None


class SqliteLedger:
    """The ledger in a SQLite file: ``BEGIN IMMEDIATE`` makes the compare-and-set atomic across the
    processes of one machine. Expired rows are purged every ``PURGE_EVERY`` moves."""

    PURGE_EVERY: Final = 1000

    def __init__(self, path: str, ttl: int) -> None:
        self._path = path
        self._ttl = ttl
        self._local = threading.local()
        self._moves = 0
        try:
            with self._connect() as db:
                db.execute("CREATE TABLE IF NOT EXISTS ledger (match_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, expires REAL NOT NULL)")
        except sqlite3.Error as exc:
            raise LedgerUnavailable(str(exc)) from None

    def _connect(self) -> sqlite3.Connection:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self._path, timeout=TIMEOUT, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")  # WAL: durable across process crashes, one fsync per checkpoint
            self._local.db = db
        return db

    def current(self, match_id: str, seq: int) -> bool:
        try:
            row = self._connect().execute("SELECT seq FROM ledger WHERE match_id = ? AND expires > ?", (match_id, time.time())).fetchone()
        except sqlite3.Error as exc:
            raise LedgerUnavailable(str(exc)) from None
        return row is None or row[0] == seq

    def advance(self, match_id: str, seq: int) -> bool:
        now = time.time()
        try:
            db = self._connect()
            db.execute("BEGIN IMMEDIATE")
            try:
                row = db.execute("SELECT seq FROM ledger WHERE match_id = ? AND expires > ?", (match_id, now)).fetchone()
                if row is not None and row[0] != seq:
                    db.execute("ROLLBACK")
                    return False
                db.execute("INSERT OR REPLACE INTO ledger (match_id, seq, expires) VALUES (?, ?, ?)", (match_id, seq + 1, now + self._ttl))
                self._moves += 1
                if self._moves % self.PURGE_EVERY == 0:
                    db.execute("DELETE FROM ledger WHERE expires <= ?", (now,))
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise LedgerUnavailable(str(exc)) from None
        return True


def check_url(url: str) -> str | None:
    """Why ``url`` is not a ledger URL, or None."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme in ("redis", "rediss"):
        return None if parts.hostname else "a redis URL needs a host: redis://host:port/db"
    if parts.scheme == "sqlite":
        return None if url.startswith("sqlite:///") and len(url) > len("sqlite:///") else "a SQLite URL is sqlite:///path"
    return "the ledger URL must start with redis://, rediss:// or sqlite:///"


def open_ledger(url: str, ttl: int = DEFAULT_TTL) -> Any:
    """The ledger ``url`` names (see ``check_url``)."""
    problem = check_url(url)
    if problem:
        raise ValueError(problem)
    if url.startswith("sqlite:///"):
        return SqliteLedger(url[len("sqlite:///") :], ttl)
    return RedisLedger(url, ttl)
