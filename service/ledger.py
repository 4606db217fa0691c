"""The rewind guard: each sealed match's latest ``seq`` in a real store (``REFEREE_LEDGER_URL``).

``redis://host:port/db`` keeps it in a Redis server (several instances); ``postgresql://…`` (or
``postgres://…``, a libpq URL, several hosts allowed) in PostgreSQL, with a synchronous standby for no
single point of failure (``PostgresLedger`` says what it guarantees across a failover);
``sqlite:///path`` in a SQLite file (one machine, all its workers).

The store has an **epoch**: a random id written into the store the first time a match is
registered there, and never again. ``register(match, seq)`` records a match that begins (``new``,
or a sealed ``replay``) and answers the epoch, which the match's token carries from then on. Every
later use names that epoch: ``check(epoch, match, seq)`` reads and ``advance(epoch, match, seq)``
compares-and-sets atomically (it moves the match from ``seq`` to ``seq + 1``). Each answers

- ``CURRENT``: ``seq`` is the match's latest (``advance``: and the move is now recorded);
- ``SUPERSEDED``: the ledger holds a different latest ``seq`` (an older token);
- ``LOST``: the store's epoch is not the token's (the store came back empty, was flushed or
  replaced: it forgot every match), or the store does not hold this match although the token says
  it was registered (the entry was lost, evicted, or expired ``REFEREE_LEDGER_TTL`` seconds after
  the match's last move). Nothing in the store can tell a lost entry from a forgotten one, so both
  are refused: a match the ledger does not know is never taken as current.

**The record beside the token.** A match begun with a ledger configured keeps its accepted moves
in the store as well (``register(match, seq, moves)`` for the moves a sealed ``replay`` begins with,
then one ``move`` per ``advance``), in the same atomic step as the compare-and-set: an accepted move
is never lost, and a token that is not current cannot append. They expire with the match's entry.
``moves(match)`` reads them back, in order; the token carries only a hash chain over them
(``sealing.Match.chain``), so the referee catches a store whose moves were altered, truncated,
reordered or dropped (``referee.py``: 409 ``ledger_lost``, the store does not hold the match as
it should).

**One atomic read for every refusal.** ``history(epoch, match, seq)`` answers, in one step, the
verdict for ``seq``, the match's latest ``seq`` in the store, and the moves the store keeps (and
whether a finished match's have expired): the referee decides from that one read whether an older
token's request is a retry of the move already recorded (answered as the first time), a resume
(the current position), or refused, so a request that loses a race on another instance is told
``token_superseded``, never ``ledger_lost``.

**Retention.** The finishing move (``advance(..., finished=True)``) marks the match finished: its
stored moves then go ``finished_ttl`` seconds later (``REFEREE_LEDGER_FINISHED_TTL``, a day), while
the small entry that refuses older tokens stays ``ttl`` seconds (``REFEREE_LEDGER_TTL``, a week).

A token without an epoch (sealed before its match was ever registered: before this format, or
while no ledger was configured) is current only when the store holds its match at exactly its
``seq``; else ``LOST``. Any failure to reach the store raises ``LedgerUnavailable``: the service then
refuses, never accepts silently. ``ping()`` is the readiness probe's cheap round trip.

**Moving the ledger to another store** (``copy_ledger``, ``card-referee ledger-copy``). Every
store reads itself out (``entries()``: each match it holds as an ``Entry``, streamed: Redis by
``SCAN``, SQL in batches ordered by match id) and is written into (``claim(epoch)``, then
``write(entries)`` batch by batch) with the *source's* epoch, so every token stays current on the
new store. Each entry keeps what is left of its lifetimes (measured on the source by its own clock,
written as the same number of seconds from the target's), never a full ``ttl`` again; entries
already expired are not copied; a finished match whose moves are past their retention stays so
(archived, not lost). Which targets are taken: a store with no epoch and no match (a new one), or
one that already holds the source's epoch (a copy interrupted and run again, or the very store the
ledger was copied from, to move back); anything else is refused (``LedgerRefused``): another epoch
means referees have used it, and two ledgers merged would mix matches of two epochs. The epoch is
written first, so an interrupted copy leaves a store its rerun recognises; a match the target
already holds at a later seq is left as it is, so a copy run again after referees used the target
never takes a match back. The referees must be stopped while it runs: a move accepted on the
source after its match was copied is not on the target (``verify_copy`` finds such matches).

What no referee can detect: a store that comes back with *older* data (a snapshot restored, a
replica that lagged, writes lost in the operating system's cache) holds older ``seq``s under the
same epoch, and the tokens of those ``seq``s look current again. docs/fair-play.md says what the
store must guarantee (Redis: AOF with ``appendfsync always``; PostgreSQL: a synchronous standby, and
only it promoted) and what an operator does after a loss.
"""

from __future__ import annotations

import hashlib
import math
import os
import random
import secrets
import socket
import sqlite3
import threading
import time
import urllib.parse
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeVar

if TYPE_CHECKING:
    import psycopg
    import psycopg_pool

__all__ = [
    "CURRENT",
    "DEFAULT_FINISHED_TTL",
    "DEFAULT_TTL",
    "LOST",
    "SUPERSEDED",
    "CopyReport",
    "Copyable",
    "Entry",
    "History",
    "Ledger",
    "LedgerRefused",
    "LedgerUnavailable",
    "PostgresLedger",
    "RedisLedger",
    "SqliteLedger",
    "Verification",
    "check_url",
    "copy_ledger",
    "new_epoch",
    "open_ledger",
    "store_name",
    "verify_copy",
]

DEFAULT_TTL: Final = 7 * 24 * 3600
"""Seconds a match's entry lives after its last move (one week)."""
DEFAULT_FINISHED_TTL: Final = 24 * 3600
"""Seconds a finished match's stored moves live after its last move (one day)."""
TIMEOUT: Final = 2.0
"""Seconds a request waits for the store before answering 503 ``ledger_unavailable``."""
PING_TIMEOUT: Final = 1.0
"""Seconds the readiness probe waits for the store."""

CLOCK_SKEW: Final = 60
"""Seconds a pod's clock may be ahead of the Redis server's: a finished match's moves missing this
close to their deadline count as expired, not lost."""

CURRENT: Final = "current"
SUPERSEDED: Final = "superseded"
LOST: Final = "lost"


class LedgerUnavailable(Exception):
    """The ledger could not be read or written."""


@dataclass(frozen=True, slots=True)
class History:
    """What the store holds of a match, read in one atomic step: the ``verdict`` for the ``seq``
    asked about (``CURRENT``, ``SUPERSEDED`` or ``LOST``), the match's latest ``seq`` (None when
    ``LOST``) and the record's moves it keeps, in order (none once a finished match's moves have
    expired: ``archived``)."""

    verdict: str
    seq: int | None = None
    moves: tuple[str, ...] = ()
    archived: bool = False
    """Finished, and past the time its moves are kept (by the clock of the store, or of this pod
    for Redis, whose mark holds the deadline): moves that are missing before then were lost."""


def new_epoch() -> str:
    """A fresh epoch id (128 random bits, URL-safe)."""
    return secrets.token_urlsafe(16)


class Ledger(Protocol):
    def register(self, match_id: str, seq: int, moves: Sequence[str] = ()) -> str:
        """Record a match that begins at ``seq`` with the record's ``moves`` so far (canonical JSON
        texts; any held before under this id are dropped); the store's epoch (created on first use)."""

    def check(self, epoch: str | None, match_id: str, seq: int) -> str:
        """``CURRENT``, ``SUPERSEDED`` or ``LOST`` for a token of ``epoch`` at ``seq``."""

    def advance(self, epoch: str | None, match_id: str, seq: int, move: str | None = None, finished: bool = False) -> str:
        """As ``check``, and on ``CURRENT`` atomically moves the match to ``seq + 1`` and appends
        ``move`` (when given) to its record; ``finished``: this move ends the match (its moves then
        expire after the finished-match retention)."""

    def history(self, epoch: str | None, match_id: str, seq: int) -> History:
        """The verdict for ``seq``, the latest ``seq``, the moves and whether they expired: one atomic read."""

    def moves(self, match_id: str) -> list[str]:
        """The record's moves the store holds for a match, in order (none for a match it does not hold)."""

    def epoch(self) -> str | None:
        """The store's epoch (None before the first match was registered)."""

    def ping(self) -> None:
        """Raise LedgerUnavailable unless the store answers (within ``PING_TIMEOUT``)."""

    def usage(self) -> tuple[int, int | None]:
        """(bytes the store uses, the most it may use or None for no set limit), within
        ``PING_TIMEOUT``; LedgerUnavailable when it does not answer."""


# --- moving the ledger to another store --------------------------------------------------------

COPY_BATCH: Final = 200
"""Matches read, and written, per round trip when a ledger is copied."""
COPY_TIMEOUT: Final = 60.0
"""Seconds one batch of a copy may take (a request's ``TIMEOUT`` is for one match)."""


class LedgerRefused(Exception):
    """The store cannot take a copy of another ledger (it holds another epoch, or matches of its own)."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One match as a store holds it, for copying the ledger to another store. Lifetimes are the
    seconds left when it was read, by the source's clock (Redis: the keys' own expiry; SQL: the
    database's or the file's clock); a copy writes them as the same seconds from the target's."""

    match_id: str
    seq: int
    ttl: float
    """Seconds the entry (what refuses older tokens) has left; 0 or less: expired, not yet purged."""
    finished: bool
    moves_ttl: float
    """Seconds the record's moves have left: the entry's ``ttl`` unless finished; 0 or less for a
    finished match whose moves are past their retention (archived: kept so, never made lost)."""
    moves: tuple[str, ...] = ()
    """The record's moves the store keeps, in order (canonical JSON texts, copied byte for byte)."""

    @property
    def expired(self) -> bool:
        return self.ttl <= 0

    def digest(self) -> bytes:
        """What ``verify_copy`` compares: the seq, whether finished, and the moves in order."""
        h = hashlib.blake2b(digest_size=16)
        h.update(f"{self.seq}:{int(self.finished)}:{len(self.moves)}".encode())
        for move in self.moves:
            data = move.encode("utf-8")
            h.update(len(data).to_bytes(8, "big"))
            h.update(data)
        return h.digest()


class Copyable(Protocol):
    """What a store offers for copying a ledger (RedisLedger, SqliteLedger and PostgresLedger do)."""

    def epoch(self) -> str | None: ...

    def entries(self, batch: int = COPY_BATCH) -> Iterator[Entry]:
        """Every match the store holds, streamed (an order of its own; each once), expired ones
        not yet purged included (``Entry.expired``, their moves not read)."""

    def claim(self, epoch: str | None) -> bool:
        """Make the store a copy's target for ``epoch``: True when it already holds that epoch (a
        copy run again); else it must hold no epoch and no match, and ``epoch`` is written into
        it. LedgerRefused otherwise."""

    def write(self, entries: Sequence[Entry]) -> frozenset[str]:
        """Write ``entries`` (one atomic step per batch, each match whole: its seq, lifetimes,
        finished mark and moves, replacing what was held), except a match the store already holds
        at a later seq (moved on here since: never taken back); the ids of those left as they were."""


@dataclass
class CopyReport:
    """What ``copy_ledger`` did."""

    source: str
    target: str
    epoch_kept: bool = False
    """The source had an epoch, and the target now holds it."""
    again: bool = False
    """The target already held the source's epoch: a copy run again (an interrupted one, say)."""
    matches: int = 0
    """Matches written to the target."""
    moves: int = 0
    """Their moves."""
    expired: int = 0
    """Matches the source held past their lifetime (not copied)."""
    ahead: int = 0
    """Matches the target already held at a later seq (left as they were)."""
    copied: dict[str, tuple[int, bytes, float]] = field(default_factory=dict, repr=False)
    """Match id → its seq, ``Entry.digest()`` and when it expires (``time.monotonic()``) of each
    live match read from the source (for ``verify_copy``)."""


def _batches(items: Iterable[Entry], size: int) -> Iterator[list[Entry]]:
    batch: list[Entry] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _ms(seconds: float) -> int:
    """A lifetime in whole milliseconds, at least 1 (a store's expiry of 0 deletes at once)."""
    return max(1, math.ceil(seconds * 1000))


def copy_ledger(source: Copyable, target: Copyable, source_name: str = "", target_name: str = "",
                batch: int = COPY_BATCH, remember: bool = True) -> CopyReport:
    """Copy every live match of ``source`` into ``target`` with the source's epoch: see
    ``Copyable.claim`` for the targets taken, ``Copyable.write`` for what is written. The referees
    must not accept sealed moves on the source meanwhile (``verify_copy`` tells whether they did:
    it needs ``remember``, about 300 bytes per match kept in ``CopyReport.copied``)."""
    report = CopyReport(source_name, target_name)
    epoch = source.epoch()
    report.again = target.claim(epoch)
    report.epoch_kept = epoch is not None

    def live() -> Iterator[Entry]:
        for entry in source.entries(batch):
            if entry.expired:
                report.expired += 1
                continue
            if remember:
                report.copied[entry.match_id] = (entry.seq, entry.digest(), time.monotonic() + entry.ttl)
            yield entry

    for chunk in _batches(live(), batch):
        ahead = target.write(chunk)
        report.ahead += len(ahead)
        for entry in chunk:
            if entry.match_id not in ahead:
                report.matches += 1
                report.moves += len(entry.moves)
    return report


@dataclass
class Verification:
    """What ``verify_copy`` found; ``ok`` when nothing."""

    moved_on: list[str] = field(default_factory=list)
    """Matches the source holds differently from what was copied (a move accepted there since), or
    began there since."""
    not_held: list[str] = field(default_factory=list)
    """Matches copied that the target does not hold as copied (nor at a later seq)."""

    @property
    def ok(self) -> bool:
        return not self.moved_on and not self.not_held


def verify_copy(source: Copyable, target: Copyable, report: CopyReport, batch: int = COPY_BATCH) -> Verification:
    """Read both stores again after ``copy_ledger``: every live match of the source must be as it
    was copied (else a move was accepted, or a match begun, on the source during the copy: on the
    target its latest token would be refused), and the target must hold each match copied at the
    same seq with the same moves, or at a later seq (moved on there, or left so by the copy). A
    match that expired since, on either side, is not counted."""
    if (report.matches or report.ahead) and not report.copied:
        raise ValueError("nothing to verify against: the copy was made with remember=False")
    found = Verification()
    for entry in source.entries(batch):
        copied = report.copied.get(entry.match_id)
        if not entry.expired and (copied is None or copied[1] != entry.digest()):
            found.moved_on.append(entry.match_id)
    seen: set[str] = set()
    for entry in target.entries(batch):
        copied = report.copied.get(entry.match_id)
        if copied is None or entry.expired:
            continue
        seen.add(entry.match_id)
        if entry.seq < copied[0] or (entry.seq == copied[0] and entry.digest() != copied[1]):
            found.not_held.append(entry.match_id)
    soon = time.monotonic() + 1  # about to expire: may be gone on the target already, rightly
    found.not_held.extend(m for m, (_, _, expires) in report.copied.items() if m not in seen and expires > soon)
    return found


# Redis: KEYS[1] the epoch key, KEYS[2] the match's key, KEYS[3] its record's list, KEYS[4] its
# finished mark. Register: ARGV epoch, seq, ttl, then the moves. Check: ARGV epoch, seq; advance adds
# seq + 1, ttl, the moves' ttl (shorter for the finishing move), for the finishing move the time
# (Unix seconds) its moves expire (the mark's value) else 0, and optionally the move. Results:
# 1 current, 0 superseded, -1 lost. The match's key keeps its format (a number), so pods of the
# release before read it as they did.
_LUA_REGISTER: Final = """
local e = redis.call('GET', KEYS[1])
if not e then redis.call('SET', KEYS[1], ARGV[1]); e = ARGV[1] end
redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
redis.call('DEL', KEYS[3], KEYS[4])
for i = 4, #ARGV, 1000 do
  redis.call('RPUSH', KEYS[3], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
if #ARGV >= 4 then redis.call('EXPIRE', KEYS[3], ARGV[3]) end
return e
"""
_LUA_CHECK: Final = """
if ARGV[1] ~= '' and redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
local v = redis.call('GET', KEYS[2])
if not v then return -1 end
if tonumber(v) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] then
  redis.call('SET', KEYS[2], ARGV[3], 'EX', ARGV[4])
  if ARGV[7] then redis.call('RPUSH', KEYS[3], ARGV[7]) end
  redis.call('EXPIRE', KEYS[3], ARGV[5])
  if ARGV[6] ~= '0' then redis.call('SET', KEYS[4], ARGV[6], 'EX', ARGV[4]) end
end
return 1
"""
# History: ARGV epoch, seq. Result: {-1} lost, else {1 current / 0 superseded, latest seq, the finished
# mark (its moves' deadline, '0' for none), moves...}.
_LUA_HISTORY: Final = """
if ARGV[1] ~= '' and redis.call('GET', KEYS[1]) ~= ARGV[1] then return {-1} end
local v = redis.call('GET', KEYS[2])
if not v then return {-1} end
local n = tonumber(v)
local out = {n == tonumber(ARGV[2]) and 1 or 0, n, redis.call('GET', KEYS[4]) or '0'}
local moves = redis.call('LRANGE', KEYS[3], 0, -1)
for i = 1, #moves do out[#out + 1] = moves[i] end
return out
"""
_RESULTS: Final = {1: CURRENT, 0: SUPERSEDED, -1: LOST}
# Copying. Dump: KEYS, three per match: its key, its record's list, its finished mark. Result, per
# match: {seq ('' when gone), the key's PTTL, the mark ('0' for none), the list's PTTL, moves...}.
_LUA_DUMP: Final = """
local out = {}
for i = 1, #KEYS, 3 do
  local v = redis.call('GET', KEYS[i])
  local row = {v or '', redis.call('PTTL', KEYS[i]), redis.call('GET', KEYS[i + 2]) or '0', redis.call('PTTL', KEYS[i + 1])}
  if v then
    local moves = redis.call('LRANGE', KEYS[i + 1], 0, -1)
    for j = 1, #moves do row[#row + 1] = moves[j] end
  end
  out[#out + 1] = row
end
return out
"""
# Load: KEYS as for dump; ARGV per match: seq, the key's ms, the list's ms, the mark ('0' for none),
# the number of moves, the moves. A match held at a later seq is left as it is; the result lists
# those (1-based, in KEYS' order).
_LUA_LOAD: Final = """
local a, ahead = 1, {}
for i = 1, #KEYS, 3 do
  local seq, ms, moves_ms, done, n = ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], tonumber(ARGV[a + 4])
  local first = a + 5
  a = first + n
  local held = redis.call('GET', KEYS[i])
  if held and tonumber(held) > tonumber(seq) then
    ahead[#ahead + 1] = (i + 2) / 3
  else
    redis.call('SET', KEYS[i], seq, 'PX', ms)
    redis.call('DEL', KEYS[i + 1], KEYS[i + 2])
    for j = first, first + n - 1, 1000 do
      redis.call('RPUSH', KEYS[i + 1], unpack(ARGV, j, math.min(j + 999, first + n - 1)))
    end
    if n > 0 then redis.call('PEXPIRE', KEYS[i + 1], moves_ms) end
    if done ~= '0' then redis.call('SET', KEYS[i + 2], done, 'PX', ms) end
  end
end
return ahead
"""


class RedisLedger:
    """The ledger in Redis: ``card-referee:epoch`` (no expiry), and per match the key
    ``card-referee:seq:<match id>``, its record's list ``card-referee:moves:<match id>`` (same
    expiry, or the finished-match retention once it is finished) and, once finished, the mark
    ``card-referee:done:<match id>`` (the key's expiry); every operation is one Lua script (atomic,
    one round trip)."""

    EPOCH_KEY: Final = "card-referee:epoch"

    def __init__(self, url: str, ttl: int, finished_ttl: int = DEFAULT_FINISHED_TTL) -> None:
        import redis

        self._ttl = ttl
        self._finished_ttl = min(finished_ttl, ttl)
        self._client = redis.Redis.from_url(url, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT, retry_on_timeout=False)
        self._probe = redis.Redis.from_url(url, socket_timeout=PING_TIMEOUT, socket_connect_timeout=PING_TIMEOUT, retry_on_timeout=False)
        self._register = self._client.register_script(_LUA_REGISTER)
        self._check = self._client.register_script(_LUA_CHECK)
        self._history = self._client.register_script(_LUA_HISTORY)
        self._dump = self._client.register_script(_LUA_DUMP)
        self._load = self._client.register_script(_LUA_LOAD)
        self._errors: tuple[type[BaseException], ...] = (redis.RedisError, OSError)

    @staticmethod
    def _key(match_id: str) -> str:
        return f"card-referee:seq:{match_id}"

    @staticmethod
    def _moves_key(match_id: str) -> str:
        return f"card-referee:moves:{match_id}"

    def _keys(self, match_id: str) -> list[str]:
        return [self.EPOCH_KEY, self._key(match_id), self._moves_key(match_id), f"card-referee:done:{match_id}"]

    def register(self, match_id: str, seq: int, moves: Sequence[str] = ()) -> str:
        try:
            epoch = self._register(keys=self._keys(match_id), args=[new_epoch(), seq, self._ttl, *moves])
        except self._errors as exc:
            raise LedgerUnavailable(str(exc)) from None
        return epoch.decode("ascii") if isinstance(epoch, bytes) else str(epoch)

    def _run(self, epoch: str | None, match_id: str, args: list[Any]) -> str:
        try:
            result = self._check(keys=self._keys(match_id), args=[epoch or "", *args])
        except self._errors as exc:
            raise LedgerUnavailable(str(exc)) from None
        return _RESULTS[int(result)]

    def check(self, epoch: str | None, match_id: str, seq: int) -> str:
        return self._run(epoch, match_id, [seq])

    def advance(self, epoch: str | None, match_id: str, seq: int, move: str | None = None, finished: bool = False) -> str:
        moves_ttl = self._finished_ttl if finished else self._ttl
        deadline = int(time.time()) + moves_ttl if finished else 0
        return self._run(epoch, match_id, [seq, seq + 1, self._ttl, moves_ttl, deadline, *([] if move is None else [move])])

    def history(self, epoch: str | None, match_id: str, seq: int) -> History:
        try:
            out = self._history(keys=self._keys(match_id), args=[epoch or "", seq])
        except self._errors as exc:
            raise LedgerUnavailable(str(exc)) from None
        if int(out[0]) == -1:
            return History(LOST)
        moves = tuple(m.decode("utf-8") if isinstance(m, bytes) else str(m) for m in out[3:])
        deadline = int(out[2])
        archived = 0 < deadline <= time.time() + CLOCK_SKEW  # Redis expires the moves by its own clock
        return History(_RESULTS[int(out[0])], int(out[1]), moves, archived)

    def moves(self, match_id: str) -> list[str]:
        try:
            items = self._client.lrange(self._moves_key(match_id), 0, -1)
        except self._errors as exc:
            raise LedgerUnavailable(str(exc)) from None
        return [m.decode("utf-8") if isinstance(m, bytes) else str(m) for m in items]

    def epoch(self) -> str | None:
        try:
            value = self._client.get(self.EPOCH_KEY)
        except self._errors as exc:
            raise LedgerUnavailable(str(exc)) from None
        if value is None:
            return None
        return value.decode("ascii") if isinstance(value, bytes) else str(value)

    def ping(self) -> None:
        try:
            self._probe.ping()
        except self._errors as exc:
            raise LedgerUnavailable(str(exc)) from None

    def usage(self) -> tuple[int, int | None]:
        """Redis's ``used_memory`` and ``maxmemory`` (None when it is 0: no limit)."""
        try:
            info = self._probe.info("memory")
        except self._errors as exc:
            raise LedgerUnavailable(str(exc)) from None
        limit = int(info.get("maxmemory", 0) or 0)
        return int(info["used_memory"]), (limit or None)

    # --- copying (see ``Copyable``) ---------------------------------------------------

    def entries(self, batch: int = COPY_BATCH) -> Iterator[Entry]:
        """Every match's key found by ``SCAN`` (never ``KEYS``), read ``batch`` at a time by one
        script each (atomic per batch). Redis drops expired keys itself: none is yielded. A key
        without expiry (not one the referee wrote) is given this ledger's ``ttl``."""
        prefix = self._key("")
        seen: set[str] = set()
        pending: list[str] = []
        try:
            for key in self._client.scan_iter(match=f"{prefix}*", count=max(batch, 100)):
                match_id = (key.decode("utf-8") if isinstance(key, bytes) else str(key))[len(prefix):]
                if match_id in seen:  # SCAN may return a key twice
                    continue
                seen.add(match_id)
                pending.append(match_id)
                if len(pending) >= batch:
                    yield from self._read(pending)
                    pending = []
            if pending:
                yield from self._read(pending)
        except self._errors as exc:
            raise LedgerUnavailable(str(exc)) from None

    def _read(self, match_ids: list[str]) -> list[Entry]:
        keys = [k for m in match_ids for k in self._keys(m)[1:]]
        rows = self._dump(keys=keys, args=[])
        now = time.time()
        out = []
        for match_id, row in zip(match_ids, rows, strict=True):
            if row[0] in (b"", ""):
                continue  # expired (or deleted) since SCAN saw it
            ttl_ms, deadline, moves_ms = int(row[1]), int(row[2]), int(row[3])
            ttl = ttl_ms / 1000 if ttl_ms >= 0 else float(self._ttl)
            finished = deadline > 0
            if moves_ms >= 0:
                moves_ttl = moves_ms / 1000
            elif moves_ms == -1:
                moves_ttl = ttl
            else:  # no list: none kept (a record in the token), or a finished match's past their deadline
                moves_ttl = deadline - now if finished else ttl
            moves = tuple(m.decode("utf-8") if isinstance(m, bytes) else str(m) for m in row[4:])
            out.append(Entry(match_id, int(row[0]), ttl, finished, moves_ttl, moves))
        return out

    def claim(self, epoch: str | None) -> bool:
        try:
            held = self.epoch()
            if held is not None:
                if held == epoch:
                    return True
                raise LedgerRefused("the target ledger already has an epoch of its own (it has been used): give an empty store")
            for _ in self._client.scan_iter(match="card-referee:*", count=1000):
                raise LedgerRefused("the target ledger holds matches but no epoch: give an empty store")
            if epoch is None:
                return False
            self._client.set(self.EPOCH_KEY, epoch, nx=True)
            if self.epoch() != epoch:
                raise LedgerRefused("the target ledger was given an epoch of its own meanwhile (is a referee using it?)")
        except self._errors as exc:
            raise LedgerUnavailable(str(exc)) from None
        return False

    def write(self, entries: Sequence[Entry]) -> frozenset[str]:
        now = time.time()
        keys: list[str] = []
        args: list[Any] = []
        for e in entries:
            moves = e.moves if e.moves_ttl > 0 else ()
            done = int(now + e.moves_ttl) if e.finished else 0
            if e.finished and done <= 0:
                done = 1  # archived long ago: still a deadline in the past
            keys += self._keys(e.match_id)[1:]
            args += [e.seq, _ms(e.ttl), _ms(e.moves_ttl), done, len(moves), *moves]
        if not keys:
            return frozenset()
        try:
            ahead = self._load(keys=keys, args=args)
        except self._errors as exc:
            raise LedgerUnavailable(str(exc)) from None
        return frozenset(entries[int(i) - 1].match_id for i in ahead)


_PINNED: dict[str, tuple[int, int]] = {}
"""Absolute path → (``st_dev``, ``st_ino``) of the SQLite ledger file the server's master opened
before its workers forked (``pin_sqlite_file``); a forked worker inherits it."""


def pin_sqlite_file(url: str | None) -> None:
    """In the gunicorn master, before any worker forks: open the SQLite ledger ``url`` names (creating
    it if need be, once) and remember which file it is. Every worker then holds to that file, also a
    worker started later (a replacement, or ``max_requests`` recycling) while the file is gone: it
    refuses as the others do (503) and never creates another file at the path, which would give it a
    ledger of its own. Not a SQLite URL, or a file that cannot be opened: nothing is pinned (the
    workers report it as before)."""
    if not url or not url.startswith("sqlite:///"):
        return
    path = url[len("sqlite:///") :]
    try:
        ledger = SqliteLedger(path, DEFAULT_TTL)
    except LedgerUnavailable:
        return
    ledger.close()
    assert ledger._file is not None
    _PINNED[os.path.abspath(path)] = ledger._file


class SqliteLedger:
    """The ledger in a SQLite file: ``BEGIN IMMEDIATE`` makes each operation atomic across the
    processes of one machine; the epoch is the ``meta`` table's ``epoch`` row; a match's record is
    its rows of ``moves`` (``n`` from 0), which live until its ``ledger`` row's ``moves_expire``
    (its ``expires``, or the finished-match retention once ``finished``). Expired rows are purged
    every ``PURGE_EVERY`` moves. A file of the release before (no ``finished`` columns) gains them
    on open; that release's pods keep working on it (the columns have defaults).

    **The file under it.** An open handle keeps answering from a file deleted or replaced at its
    path (a restart would then open whatever the path names, and forget every match). So the
    ledger remembers the file it opened (``st_dev``, ``st_ino``) and, before every operation, stats
    the path (one ``stat``, about a microsecond): a path that names no file or another file raises
    ``LedgerUnavailable`` (503 ``ledger_unavailable``; ``/readyz`` 503, this store being the pod's
    own), until the same file is back at the path (renamed back). ``file_problem()`` says why."""

    PURGE_EVERY: Final = 1000

    def __init__(self, path: str, ttl: int, finished_ttl: int = DEFAULT_FINISHED_TTL) -> None:
        self._path = path
        self._ttl = ttl
        self._finished_ttl = min(finished_ttl, ttl)
        self._local = threading.local()
        self._moves = 0
        self._file: tuple[int, int] | None = None  # (st_dev, st_ino) of the file opened
        pinned = _PINNED.get(os.path.abspath(path))
        if pinned is not None:  # a worker of a server whose master opened the file: that file or none
            self._file = pinned
            if self.file_problem() is not None:
                return  # gone or replaced since: every operation refuses (503) until it is back
        try:
            with self._connect() as db:
                db.execute("CREATE TABLE IF NOT EXISTS ledger (match_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, expires REAL NOT NULL)")
                db.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
                db.execute("CREATE TABLE IF NOT EXISTS moves (match_id TEXT NOT NULL, n INTEGER NOT NULL, move TEXT NOT NULL, "
                           "PRIMARY KEY (match_id, n)) WITHOUT ROWID")
                columns = {row[1] for row in db.execute("PRAGMA table_info(ledger)")}
                if "finished" not in columns:
                    db.execute("ALTER TABLE ledger ADD COLUMN finished INTEGER NOT NULL DEFAULT 0")
                if "moves_expire" not in columns:  # NULL: the moves live as long as the row
                    db.execute("ALTER TABLE ledger ADD COLUMN moves_expire REAL")
            opened = os.stat(self._path)
        except sqlite3.Error as exc:
            raise LedgerUnavailable(str(exc)) from None
        except OSError as exc:
            raise LedgerUnavailable(f"the ledger file {self._path} cannot be read: {exc.strerror}") from None
        self._file = (opened.st_dev, opened.st_ino)

    def close(self) -> None:
        """Close this thread's connection (the next operation opens another)."""
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is not None:
            db.close()
            self._local.db = None

    def file_problem(self) -> str | None:
        """Why the path no longer names the file this ledger opened (deleted, replaced, unreadable), or None."""
        if self._file is None:
            return None  # still opening it
        try:
            now = os.stat(self._path)
        except FileNotFoundError:
            return "the ledger file was deleted while the service held it open"
        except OSError as exc:
            return f"the ledger file cannot be read: {exc.strerror}"
        if (now.st_dev, now.st_ino) != self._file:
            return "the ledger file was replaced by another file while the service held it open"
        return None

    def _connect(self) -> sqlite3.Connection:
        problem = self.file_problem()  # before connecting: connecting to a missing path would create a file there
        if problem is not None:
            raise LedgerUnavailable(problem)
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self._path, timeout=TIMEOUT, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")  # WAL: durable across process crashes, one fsync per checkpoint
            self._local.db = db
        return db

    def _transaction(self, body: Any) -> Any:
        try:
            db = self._connect()
            db.execute("BEGIN IMMEDIATE")
            try:
                out = body(db)
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise LedgerUnavailable(str(exc)) from None
        return out

    @staticmethod
    def _epoch(db: sqlite3.Connection) -> str | None:
        row = db.execute("SELECT value FROM meta WHERE name = 'epoch'").fetchone()
        return None if row is None else str(row[0])

    def register(self, match_id: str, seq: int, moves: Sequence[str] = ()) -> str:
        def body(db: sqlite3.Connection) -> str:
            db.execute("INSERT OR IGNORE INTO meta (name, value) VALUES ('epoch', ?)", (new_epoch(),))
            db.execute("INSERT OR REPLACE INTO ledger (match_id, seq, expires, finished, moves_expire) VALUES (?, ?, ?, 0, NULL)",
                       (match_id, seq, time.time() + self._ttl))
            db.execute("DELETE FROM moves WHERE match_id = ?", (match_id,))
            db.executemany("INSERT INTO moves (match_id, n, move) VALUES (?, ?, ?)", ((match_id, n, m) for n, m in enumerate(moves)))
            epoch = self._epoch(db)
            assert epoch is not None
            return epoch

        return self._transaction(body)  # type: ignore[no-any-return]

    def _judge(self, db: sqlite3.Connection, epoch: str | None, match_id: str, seq: int, now: float) -> str:
        if epoch is not None and self._epoch(db) != epoch:
            return LOST
        row = db.execute("SELECT seq FROM ledger WHERE match_id = ? AND expires > ?", (match_id, now)).fetchone()
        if row is None:
            return LOST
        return CURRENT if row[0] == seq else SUPERSEDED

    def check(self, epoch: str | None, match_id: str, seq: int) -> str:
        try:
            db = self._connect()
            db.execute("BEGIN")  # one snapshot for both reads
            try:
                return self._judge(db, epoch, match_id, seq, time.time())
            finally:
                db.execute("COMMIT")
        except sqlite3.Error as exc:
            raise LedgerUnavailable(str(exc)) from None

    def advance(self, epoch: str | None, match_id: str, seq: int, move: str | None = None, finished: bool = False) -> str:
        now = time.time()

        def body(db: sqlite3.Connection) -> str:
            verdict = self._judge(db, epoch, match_id, seq, now)
            if verdict != CURRENT:
                return verdict
            db.execute("UPDATE ledger SET seq = ?, expires = ?, finished = ?, moves_expire = ? WHERE match_id = ?",
                       (seq + 1, now + self._ttl, int(finished), now + (self._finished_ttl if finished else self._ttl), match_id))
            if move is not None:
                db.execute("INSERT INTO moves (match_id, n, move) SELECT ?, COALESCE(MAX(n) + 1, 0), ? FROM moves WHERE match_id = ?",
                           (match_id, move, match_id))
            self._moves += 1
            if self._moves % self.PURGE_EVERY == 0:
                self._purge(db, now)
            return CURRENT

        return self._transaction(body)  # type: ignore[no-any-return]

    @staticmethod
    def _purge(db: sqlite3.Connection, now: float) -> None:
        """Drop the moves past their retention, then the expired entries."""
        db.execute("DELETE FROM moves WHERE match_id IN (SELECT match_id FROM ledger WHERE COALESCE(moves_expire, expires) <= ?)", (now,))
        db.execute("DELETE FROM ledger WHERE expires <= ?", (now,))

    _KEPT: Final = "EXISTS (SELECT 1 FROM ledger WHERE match_id = ? AND expires > ? AND COALESCE(moves_expire, expires) > ?)"

    def history(self, epoch: str | None, match_id: str, seq: int) -> History:
        now = time.time()
        try:
            db = self._connect()
            db.execute("BEGIN")  # one snapshot for every read
            try:
                verdict = self._judge(db, epoch, match_id, seq, now)
                if verdict == LOST:
                    return History(LOST)
                latest, finished, moves_expire = db.execute(
                    "SELECT seq, finished, moves_expire FROM ledger WHERE match_id = ?", (match_id,)).fetchone()
                rows = db.execute(f"SELECT move FROM moves WHERE match_id = ? AND {self._KEPT} ORDER BY n",
                                  (match_id, match_id, now, now)).fetchall()
            finally:
                db.execute("COMMIT")
        except sqlite3.Error as exc:
            raise LedgerUnavailable(str(exc)) from None
        archived = bool(finished) and moves_expire is not None and moves_expire <= now
        return History(verdict, int(latest), tuple(str(r[0]) for r in rows), archived)

    def moves(self, match_id: str) -> list[str]:
        now = time.time()
        try:
            rows = self._connect().execute(f"SELECT move FROM moves WHERE match_id = ? AND {self._KEPT} ORDER BY n",
                                           (match_id, match_id, now, now)).fetchall()
        except sqlite3.Error as exc:
            raise LedgerUnavailable(str(exc)) from None
        return [str(r[0]) for r in rows]

    def epoch(self) -> str | None:
        try:
            return self._epoch(self._connect())
        except sqlite3.Error as exc:
            raise LedgerUnavailable(str(exc)) from None

    def ping(self) -> None:
        try:
            self._connect().execute("SELECT count(*) FROM meta").fetchone()
        except sqlite3.Error as exc:
            raise LedgerUnavailable(str(exc)) from None

    def usage(self) -> tuple[int, int | None]:
        """The file's size in bytes (pages in use times the page size); no limit of its own."""
        try:
            db = self._connect()
            pages = db.execute("PRAGMA page_count").fetchone()[0]
            size = db.execute("PRAGMA page_size").fetchone()[0]
        except sqlite3.Error as exc:
            raise LedgerUnavailable(str(exc)) from None
        return int(pages) * int(size), None

    # --- copying (see ``Copyable``) ---------------------------------------------------

    def entries(self, batch: int = COPY_BATCH) -> Iterator[Entry]:
        """Every row of ``ledger``, ``batch`` at a time in match-id order (each batch one read
        transaction), with its moves while they are kept."""
        after: str | None = None
        while True:
            now = time.time()
            try:
                db = self._connect()
                db.execute("BEGIN")
                try:
                    if after is None:
                        rows = db.execute("SELECT match_id, seq, expires, finished, moves_expire FROM ledger "
                                          "ORDER BY match_id LIMIT ?", (batch,)).fetchall()
                    else:
                        rows = db.execute("SELECT match_id, seq, expires, finished, moves_expire FROM ledger "
                                          "WHERE match_id > ? ORDER BY match_id LIMIT ?", (after, batch)).fetchall()
                    kept = [r[0] for r in rows if r[2] > now and (r[2] if r[4] is None else r[4]) > now]
                    moves: dict[str, list[str]] = {}
                    for i in range(0, len(kept), 500):
                        part = kept[i : i + 500]
                        marks = ", ".join("?" * len(part))
                        for match_id, move in db.execute(f"SELECT match_id, move FROM moves WHERE match_id IN ({marks}) "
                                                         "ORDER BY match_id, n", part):
                            moves.setdefault(match_id, []).append(str(move))
                finally:
                    db.execute("COMMIT")
            except sqlite3.Error as exc:
                raise LedgerUnavailable(str(exc)) from None
            for match_id, seq, expires, finished, moves_expire in rows:
                ttl = expires - now
                moves_ttl = ttl if moves_expire is None else moves_expire - now
                yield Entry(str(match_id), int(seq), ttl, bool(finished), moves_ttl, tuple(moves.get(match_id, ())))
            if len(rows) < batch:
                return
            after = rows[-1][0]

    def claim(self, epoch: str | None) -> bool:
        def body(db: sqlite3.Connection) -> bool:
            held = self._epoch(db)
            if held is not None:
                if held == epoch:
                    return True
                raise LedgerRefused("the target ledger already has an epoch of its own (it has been used): give an empty store")
            if db.execute("SELECT 1 FROM ledger LIMIT 1").fetchone() is not None:
                raise LedgerRefused("the target ledger holds matches but no epoch: give an empty store")
            if epoch is not None:
                db.execute("INSERT INTO meta (name, value) VALUES ('epoch', ?)", (epoch,))
            return False

        return self._transaction(body)  # type: ignore[no-any-return]

    def write(self, entries: Sequence[Entry]) -> frozenset[str]:
        now = time.time()

        def body(db: sqlite3.Connection) -> frozenset[str]:
            ahead = set()
            for e in entries:
                held = db.execute("SELECT seq FROM ledger WHERE match_id = ? AND expires > ?", (e.match_id, now)).fetchone()
                if held is not None and held[0] > e.seq:
                    ahead.add(e.match_id)
                    continue
                db.execute("INSERT OR REPLACE INTO ledger (match_id, seq, expires, finished, moves_expire) VALUES (?, ?, ?, ?, ?)",
                           (e.match_id, e.seq, now + _ms(e.ttl) / 1000, int(e.finished), now + e.moves_ttl))
                db.execute("DELETE FROM moves WHERE match_id = ?", (e.match_id,))
                if e.moves_ttl > 0:
                    db.executemany("INSERT INTO moves (match_id, n, move) VALUES (?, ?, ?)",
                                   ((e.match_id, n, m) for n, m in enumerate(e.moves)))
            return frozenset(ahead)

        return self._transaction(body)  # type: ignore[no-any-return]


# --- PostgreSQL --------------------------------------------------------------------------------

_T = TypeVar("_T")

_PG_SCHEMA: Final = (
    "CREATE TABLE IF NOT EXISTS card_referee_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    ("CREATE TABLE IF NOT EXISTS card_referee_ledger (match_id TEXT PRIMARY KEY, seq BIGINT NOT NULL, expires TIMESTAMPTZ NOT NULL, "
     "finished BOOLEAN NOT NULL DEFAULT FALSE, moves_expire TIMESTAMPTZ NOT NULL, purged BOOLEAN NOT NULL DEFAULT FALSE)"),
    "CREATE TABLE IF NOT EXISTS card_referee_moves (match_id TEXT NOT NULL, n BIGINT NOT NULL, move TEXT NOT NULL, PRIMARY KEY (match_id, n))",
    "CREATE INDEX IF NOT EXISTS card_referee_ledger_expires ON card_referee_ledger (expires)",
    "CREATE INDEX IF NOT EXISTS card_referee_ledger_moves_expire ON card_referee_ledger (purged, moves_expire)",
)
_PG_EPOCH: Final = "(SELECT value FROM card_referee_meta WHERE name = 'epoch')"
_PG_CHECK: Final = f"SELECT {_PG_EPOCH}, (SELECT seq FROM card_referee_ledger WHERE match_id = %s AND expires > now())"
# The compare-and-set and the appended move: one statement (atomic; PostgreSQL's READ COMMITTED
# re-checks the WHERE against a row another transaction changed meanwhile, so of two racers the
# second finds seq moved on and changes nothing). A move's n is the seq it was made from.
_PG_ADVANCE: Final = f"""
WITH moved AS (
  UPDATE card_referee_ledger
     SET seq = seq + 1, expires = now() + %(ttl)s * INTERVAL '1 second', finished = %(finished)s,
         moves_expire = now() + %(moves_ttl)s * INTERVAL '1 second'
   WHERE match_id = %(match)s AND seq = %(seq)s AND expires > now()
     AND (%(epoch)s::TEXT IS NULL OR %(epoch)s::TEXT = {_PG_EPOCH})
  RETURNING match_id),
added AS (
  INSERT INTO card_referee_moves (match_id, n, move)
  SELECT match_id, %(seq)s, %(move)s::TEXT FROM moved WHERE %(move)s::TEXT IS NOT NULL
  RETURNING n)
SELECT count(*) FROM moved
"""
_PG_HISTORY: Final = f"""
SELECT {_PG_EPOCH}, l.seq, l.finished, l.moves_expire <= now(),
       ARRAY(SELECT mv.move FROM card_referee_moves mv WHERE mv.match_id = %(match)s AND l.moves_expire > now() ORDER BY mv.n)
  FROM (SELECT 1) AS one LEFT JOIN card_referee_ledger l ON l.match_id = %(match)s AND l.expires > now()
"""
_PG_MOVES: Final = """
SELECT mv.move FROM card_referee_moves mv JOIN card_referee_ledger l ON l.match_id = mv.match_id
 WHERE mv.match_id = %s AND l.expires > now() AND l.moves_expire > now() ORDER BY mv.n
"""
# A write whose commit waits for the synchronous standby like any other: it confirms that every
# transaction committed before it (all that a read just saw) is on the standby too.
_PG_BARRIER: Final = "UPDATE card_referee_ledger SET seq = seq WHERE match_id = %s"
_PG_PURGE_MOVES: Final = """
WITH gone AS (
  UPDATE card_referee_ledger SET purged = TRUE
   WHERE match_id IN (SELECT match_id FROM card_referee_ledger WHERE purged = FALSE AND moves_expire <= now() LIMIT %(batch)s)
     AND moves_expire <= now()
  RETURNING match_id)
DELETE FROM card_referee_moves WHERE match_id IN (SELECT match_id FROM gone)
"""
_PG_PURGE_ENTRIES: Final = """
DELETE FROM card_referee_ledger
 WHERE match_id IN (SELECT match_id FROM card_referee_ledger WHERE purged = TRUE AND expires <= now() LIMIT %(batch)s)
   AND purged = TRUE AND expires <= now()
"""
_PG_USAGE: Final = ("SELECT pg_total_relation_size('card_referee_ledger') + pg_total_relation_size('card_referee_moves') "
                    "+ pg_total_relation_size('card_referee_meta')")
_PG_DUMP_COLUMNS: Final = "match_id, seq, expires, finished, moves_expire, now()"
# A match written by a copy, whole (the moves replaced beside it); lifetimes in milliseconds.
_PG_LOAD: Final = """
INSERT INTO card_referee_ledger (match_id, seq, expires, finished, moves_expire, purged)
VALUES (%s, %s, now() + %s * INTERVAL '1 millisecond', %s, now() + %s * INTERVAL '1 millisecond', FALSE)
ON CONFLICT (match_id) DO UPDATE SET seq = excluded.seq, expires = excluded.expires, finished = excluded.finished,
  moves_expire = excluded.moves_expire, purged = FALSE
"""
_PG_RETRY: Final = frozenset({"40001", "40P01"})
"""SQLSTATEs of a transaction to run again: serialization failure (CockroachDB's SERIALIZABLE), deadlock."""
_PG_FAILOVER_CLASSES: Final = ("08", "57", "25006", "53300")
"""SQLSTATEs (or their class) after which the pool's every connection may be to the wrong or a dead
server: connection exceptions, operator intervention (admin shutdown, crash, cannot connect now),
``read_only_sql_transaction`` (a demoted primary), too many connections."""


def _shut(fd: int) -> None:
    """Shut down the socket ``fd`` (both ways): whatever waits on it gets an error at once."""
    try:
        sock = socket.socket(fileno=os.dup(fd))
    except OSError:
        return
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    finally:
        sock.close()


class _Watchdog:
    """The client's own deadline on a connection: a socket still in use at its deadline is shut down
    (a paused, partitioned or stuck server never makes a request wait longer). One thread per
    process, ticking only while some connection is armed."""

    TICK: Final = 0.05

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._armed: dict[int, tuple[float, int]] = {}
        self._next = 0
        self._thread: threading.Thread | None = None

    def arm(self, fd: int, deadline: float) -> int:
        with self._cond:
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="ledger-watchdog", daemon=True)
                self._thread.start()
            self._next += 1
            self._armed[self._next] = (deadline, fd)
            if len(self._armed) == 1:
                self._cond.notify()
            return self._next

    def disarm(self, key: int) -> None:
        with self._cond:
            self._armed.pop(key, None)

    def _loop(self) -> None:
        while True:
            with self._cond:
                while not self._armed:
                    self._cond.wait()
            time.sleep(self.TICK)
            now = time.monotonic()
            with self._cond:
                for key, (deadline, fd) in list(self._armed.items()):
                    if now >= deadline:
                        del self._armed[key]
                        _shut(fd)  # under the lock: the connection's owner has not disarmed, so its fd is still its own


class _Unconfirmed(Exception):
    """A write came back with a WARNING: e.g. a commit whose wait for the synchronous standby was
    cancelled (committed here, maybe not replicated)."""


class PostgresLedger:
    """The ledger in PostgreSQL (``postgresql://`` or ``postgres://``, a libpq URL: several hosts and
    ``target_session_attrs=read-write`` for failover without a restart), through psycopg 3 and a
    connection pool opened in the process that uses it (gunicorn forks its workers).

    Tables (created on first use, ``IF NOT EXISTS``): ``card_referee_meta`` (the ``epoch`` row),
    ``card_referee_ledger`` (a match's ``seq``, ``expires``, ``finished``, ``moves_expire``: its
    ``expires``, or the finished-match retention once finished) and ``card_referee_moves`` (a
    match's record, ``n`` the ``seq`` each move was made from). Times are the database's
    ``now()``, never a pod's clock. ``advance`` is one statement: the compare-and-set and the
    appended move commit together or not at all; ``check``, ``history`` and ``moves`` are one
    statement each (one snapshot). Every ``PURGE_EVERY`` registrations and moves a background
    thread deletes up to ``PURGE_BATCH`` expired matches' moves and entries.

    **Bounds.** A request waits at most ``TIMEOUT`` for the store in all: for a pooled connection
    (the pool's timeout; connections are made with libpq's ``connect_timeout``), then on the
    socket, which a watchdog shuts down at the deadline (a paused or unreachable server).
    ``lock_timeout`` bounds lock waits on the server side. No ``statement_timeout`` (it is set to
    0 on each connection, overriding a role's or database's): a cancelled statement is how
    PostgreSQL ends a commit's wait for its synchronous standby *with the commit kept*, see below.

    **Failover.** A connection error, a server shutting down (SQLSTATE class 08, 57) or a server
    that has become read-only (25006, a demoted primary) fails the request (503; the client
    retries, and a move is exactly-once) and drains the pool: the next request connects anew and
    libpq picks the host that is read-write now. ``target_session_attrs=read-write`` is the default
    when the URL does not say, so no connection is ever made to a standby. A serialization failure
    or deadlock (40001, 40P01; CockroachDB's SERIALIZABLE) runs the statement again, within the
    deadline.

    **Synchronous replication: what a read may answer.** With ``synchronous_standby_names`` and
    ``synchronous_commit`` ``on`` or ``remote_apply`` a commit returns only once the standby holds
    it, and nobody sees the transaction before then. But when that wait is ended early (the
    statement cancelled, the backend terminated, the server restarted) the transaction stays
    committed on the primary, visible to every later read, maybe not on the standby. So:

    - the ledger never cancels a commit: no ``statement_timeout``; at its deadline it shuts the
      socket instead, and PostgreSQL (without ``client_connection_check_interval``) goes on
      waiting for the standby, the transaction invisible until it is replicated;
    - a write answered with a WARNING (what a commit whose wait was cancelled says) is a
      failure (``LedgerUnavailable``), never a success;
    - ``history`` of a superseded ``seq`` (what answers a retry or a resume: moves the caller was
      maybe never told of) writes once more before it answers (``_PG_BARRIER``, on the match's
      own row), and that write's commit waits for the standby to hold every earlier one. So a move
      that is only on the primary is answered only once the standby has it too: if the standby is
      gone the answer is 503; if the primary dies first, the move is lost with it having been
      answered to nobody, and the token it superseded is current again on the promoted standby.
      (Meanwhile a *refusal*, 409 ``token_superseded`` for another move from that token, may have
      come from it: a refusal shows no position, and the seat may send that move again.)

    A current ``seq`` needs no such step: its token was handed out by a confirmed commit."""

    PURGE_EVERY: Final = 1000
    PURGE_BATCH: Final = 1000
    POOL_SIZE: Final = 10
    """Connections per process at most (each gunicorn worker has its own pool)."""
    RETRIES: Final = 5

    def __init__(self, url: str, ttl: int, finished_ttl: int = DEFAULT_FINISHED_TTL) -> None:
        psycopg = import_psycopg()
        import psycopg_pool

        self._psycopg = psycopg
        self._pool_module = psycopg_pool
        self._url = url
        self._ttl = ttl
        self._finished_ttl = min(finished_ttl, ttl)
        given = psycopg.conninfo.conninfo_to_dict(url)
        defaults = {"connect_timeout": max(2, int(TIMEOUT)), "target_session_attrs": "read-write", "application_name": "card-referee"}
        self._kwargs: dict[str, Any] = {k: v for k, v in defaults.items() if k not in given}
        self._kwargs["autocommit"] = True
        self._lock = threading.Lock()
        self._pool: psycopg_pool.ConnectionPool[Any] | None = None
        self._pid = 0
        self._watchdog = _Watchdog()
        self._notices: weakref.WeakKeyDictionary[Any, list[str]] = weakref.WeakKeyDictionary()
        self._schema = False
        self._writes = 0
        self._purging = threading.Lock()

    # --- connections ------------------------------------------------------------------

    def _get_pool(self) -> psycopg_pool.ConnectionPool[Any]:
        pid = os.getpid()
        if self._pool is None or self._pid != pid:
            with self._lock:
                if self._pool is None or self._pid != pid:
                    # a forked child never uses (nor closes) its parent's connections: a pool of its own
                    self._watchdog = _Watchdog()
                    self._pool = self._pool_module.ConnectionPool(
                        self._url, kwargs=self._kwargs, min_size=1, max_size=self.POOL_SIZE, open=False,
                        configure=self._configure, timeout=TIMEOUT, num_workers=2, reconnect_timeout=2 * TIMEOUT,
                        name="card-referee-ledger",
                    )
                    self._pool.open(wait=False)
                    self._pid = pid
        return self._pool

    def _configure(self, conn: psycopg.Connection[Any]) -> None:
        """Each new connection: no statement_timeout (see the class), a lock_timeout within the
        request's, WARNINGs collected (a write that gets one failed)."""
        for setting in ("SET statement_timeout = 0", f"SET lock_timeout = {int(TIMEOUT * 750)}",
                        f"SET idle_in_transaction_session_timeout = {int(TIMEOUT * 5000)}"):
            try:
                conn.execute(setting)
            except self._psycopg.errors.UndefinedObject:  # a PostgreSQL-compatible server without this setting
                pass
        notes: list[str] = []

        def notice(diag: psycopg.errors.Diagnostic) -> None:
            if diag.severity_nonlocalized == "WARNING":
                notes.append(f"{diag.sqlstate}: {diag.message_primary} {diag.message_detail or ''}".strip())

        conn.add_notice_handler(notice)
        self._notices[conn] = notes

    @contextmanager
    def _connection(self, deadline: float) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection until ``deadline`` (monotonic): its socket is shut down then if still in use."""
        pool = self._get_pool()
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise self._pool_module.PoolTimeout("no time left for the ledger")
        conn = pool.getconn(timeout=remaining)
        key = None
        try:
            key = self._watchdog.arm(conn.pgconn.socket, deadline)
            if not self._schema:
                self._create_schema(conn)
            yield conn
        except BaseException as exc:
            if key is not None:
                self._watchdog.disarm(key)
                key = None
            if not isinstance(exc, self._psycopg.Error) or self._failover(exc, conn):
                conn.close()  # the pool drops a closed connection
            raise
        finally:
            if key is not None:
                self._watchdog.disarm(key)
            pool.putconn(conn)

    def _failover(self, exc: BaseException, conn: psycopg.Connection[Any]) -> bool:
        """Whether ``exc`` says the pool's connections may all be to a dead or read-only server (then
        the pool is drained: each is replaced by a fresh one, to the host that is read-write now)."""
        state = getattr(exc, "sqlstate", None) or ""
        if conn.closed or conn.broken or isinstance(exc, _Unconfirmed) or state.startswith(_PG_FAILOVER_CLASSES) or not state:
            pool = self._pool
            if pool is not None:
                with suppress(Exception):  # draining is a courtesy to the next requests
                    pool.drain()
            return True
        return False

    def _create_schema(self, conn: psycopg.Connection[Any]) -> None:
        errors = self._psycopg.errors
        for attempt in range(10):
            try:
                for statement in _PG_SCHEMA:
                    conn.execute(statement)
            except (errors.UniqueViolation, errors.DuplicateTable, errors.DuplicateObject):
                if attempt == 9:
                    raise
                time.sleep(random.uniform(0.01, 0.05))  # another pod creating the same at the same moment: again, once it is done
                continue
            break
        self._schema = True

    def _run(self, body: Callable[[psycopg.Connection[Any]], _T], timeout: float = TIMEOUT, write: bool = False) -> _T:
        """``body`` on a pooled connection within ``timeout``: again on a serialization failure or a
        deadlock (a few times, with jitter), once more after the tables vanished (a database
        recreated: made anew, a new epoch); every other failure is ``LedgerUnavailable``."""
        psycopg, errors = self._psycopg, self._psycopg.errors
        deadline = time.monotonic() + timeout
        attempt = 0
        while True:
            attempt += 1
            try:
                with self._connection(deadline) as conn:
                    notes = self._notices.get(conn)
                    if notes:
                        notes.clear()
                    out = body(conn)
                    if write and notes:
                        raise _Unconfirmed("; ".join(notes))
                    return out
            except _Unconfirmed as exc:
                raise LedgerUnavailable(f"the ledger's write was not confirmed: {exc}") from None
            except errors.UndefinedTable as exc:
                self._schema = False
                if attempt > 1:
                    raise LedgerUnavailable(str(exc)) from None
            except psycopg.Error as exc:
                state = getattr(exc, "sqlstate", None)
                if state not in _PG_RETRY or attempt >= self.RETRIES or time.monotonic() >= deadline:
                    raise LedgerUnavailable(str(exc) or exc.__class__.__name__) from None
                time.sleep(min(max(0.0, deadline - time.monotonic()), random.uniform(0.005, 0.02) * attempt))

    def close(self) -> None:
        """Close this process's pool (the next operation opens another)."""
        pool, self._pool = self._pool, None
        if pool is not None and self._pid == os.getpid():
            pool.close(timeout=TIMEOUT)

    # --- the ledger -------------------------------------------------------------------

    def _written(self) -> None:
        """Count a registration or move; every ``PURGE_EVERY``-th starts a bounded purge in the background."""
        self._writes += 1
        if self._writes % self.PURGE_EVERY == 0 and not self._purging.locked():
            threading.Thread(target=self.purge, name="ledger-purge", daemon=True).start()

    def purge(self) -> None:
        """Delete up to ``PURGE_BATCH`` matches' expired moves, then as many expired entries (best effort)."""
        if not self._purging.acquire(blocking=False):
            return
        try:
            self._run(lambda conn: conn.execute(_PG_PURGE_MOVES, {"batch": self.PURGE_BATCH}))
            self._run(lambda conn: conn.execute(_PG_PURGE_ENTRIES, {"batch": self.PURGE_BATCH}))
        except LedgerUnavailable:
            pass
        finally:
            self._purging.release()

    def register(self, match_id: str, seq: int, moves: Sequence[str] = ()) -> str:
        def body(conn: psycopg.Connection[Any]) -> str:
            with conn.transaction():
                conn.execute("INSERT INTO card_referee_meta (name, value) VALUES ('epoch', %s) ON CONFLICT (name) DO NOTHING", (new_epoch(),))
                conn.execute(
                    "INSERT INTO card_referee_ledger (match_id, seq, expires, finished, moves_expire, purged) "
                    "VALUES (%(match)s, %(seq)s, now() + %(ttl)s * INTERVAL '1 second', FALSE, now() + %(ttl)s * INTERVAL '1 second', FALSE) "
                    "ON CONFLICT (match_id) DO UPDATE SET seq = excluded.seq, expires = excluded.expires, finished = FALSE, "
                    "moves_expire = excluded.moves_expire, purged = FALSE",
                    {"match": match_id, "seq": seq, "ttl": self._ttl})
                conn.execute("DELETE FROM card_referee_moves WHERE match_id = %s", (match_id,))
                if moves:
                    with conn.cursor() as cur:
                        first = seq - len(moves)
                        cur.executemany("INSERT INTO card_referee_moves (match_id, n, move) VALUES (%s, %s, %s)",
                                        [(match_id, first + i, m) for i, m in enumerate(moves)])
                row = conn.execute(f"SELECT {_PG_EPOCH}").fetchone()
            assert row is not None and row[0] is not None
            return str(row[0])

        epoch = self._run(body, write=True)
        self._written()
        return epoch

    @staticmethod
    def _judge(epoch: str | None, store_epoch: str | None, latest: int | None, seq: int) -> str:
        if epoch is not None and store_epoch != epoch:
            return LOST
        if latest is None:
            return LOST
        return CURRENT if latest == seq else SUPERSEDED

    def check(self, epoch: str | None, match_id: str, seq: int) -> str:
        row = self._run(lambda conn: conn.execute(_PG_CHECK, (match_id,)).fetchone())
        assert row is not None
        return self._judge(epoch, row[0], row[1], seq)

    def advance(self, epoch: str | None, match_id: str, seq: int, move: str | None = None, finished: bool = False) -> str:
        params = {"match": match_id, "seq": seq, "epoch": epoch, "move": move, "finished": finished, "ttl": self._ttl,
                  "moves_ttl": self._finished_ttl if finished else self._ttl}

        def body(conn: psycopg.Connection[Any]) -> str:
            for _ in range(3):
                row = conn.execute(_PG_ADVANCE, params).fetchone()
                if row is not None and row[0]:
                    return CURRENT
                row = conn.execute(_PG_CHECK, (match_id,)).fetchone()
                assert row is not None
                verdict = self._judge(epoch, row[0], row[1], seq)
                if verdict != CURRENT:  # current: it moved back meanwhile (registered anew); compare-and-set again
                    return verdict
            return SUPERSEDED

        verdict = self._run(body, write=True)
        if verdict == CURRENT:
            self._written()
        return verdict

    def history(self, epoch: str | None, match_id: str, seq: int) -> History:
        def body(conn: psycopg.Connection[Any]) -> History:
            row = conn.execute(_PG_HISTORY, {"match": match_id}).fetchone()
            assert row is not None
            store_epoch, latest, finished, expired, moves = row
            verdict = self._judge(epoch, store_epoch, latest, seq)
            if verdict == LOST:
                return History(LOST)
            if verdict == SUPERSEDED:  # moves after this token: answered only once the standby holds them
                conn.execute(_PG_BARRIER, (match_id,))
            return History(verdict, int(latest), tuple(str(m) for m in moves), bool(finished) and bool(expired))

        return self._run(body, write=True)

    def moves(self, match_id: str) -> list[str]:
        rows = self._run(lambda conn: conn.execute(_PG_MOVES, (match_id,)).fetchall())
        return [str(r[0]) for r in rows]

    def epoch(self) -> str | None:
        row = self._run(lambda conn: conn.execute(f"SELECT {_PG_EPOCH}").fetchone())
        return None if row is None or row[0] is None else str(row[0])

    def ping(self) -> None:
        self._run(lambda conn: conn.execute("SELECT 1").fetchone(), timeout=PING_TIMEOUT)

    def usage(self) -> tuple[int, int | None]:
        """The bytes of the ledger's three tables and their indexes (``pg_total_relation_size``); no
        limit of its own (the volume's is the operator's to watch). A PostgreSQL-compatible server
        without that function (CockroachDB) answers 0: it is up, its size is not known here."""
        errors = self._psycopg.errors

        def body(conn: psycopg.Connection[Any]) -> int:
            try:
                row = conn.execute(_PG_USAGE).fetchone()
            except (errors.UndefinedFunction, errors.FeatureNotSupported):
                conn.execute("SELECT 1").fetchone()
                return 0
            return int(row[0]) if row is not None and row[0] is not None else 0

        return self._run(body, timeout=PING_TIMEOUT), None

    # --- copying (see ``Copyable``) ---------------------------------------------------

    def entries(self, batch: int = COPY_BATCH) -> Iterator[Entry]:
        """Every row of ``card_referee_ledger``, ``batch`` at a time in match-id order (keyset
        pages, each with its moves in one transaction), lifetimes by the database's ``now()``."""
        after: str | None = None
        while True:
            def body(conn: psycopg.Connection[Any], after: str | None = after) -> tuple[list[Any], dict[str, list[str]]]:
                with conn.transaction():
                    if after is None:
                        rows = conn.execute(f"SELECT {_PG_DUMP_COLUMNS} FROM card_referee_ledger ORDER BY match_id LIMIT %s",
                                            (batch,)).fetchall()
                    else:
                        rows = conn.execute(f"SELECT {_PG_DUMP_COLUMNS} FROM card_referee_ledger WHERE match_id > %s "
                                            "ORDER BY match_id LIMIT %s", (after, batch)).fetchall()
                    kept = [r[0] for r in rows if r[2] > r[5] and r[4] > r[5]]
                    moves: dict[str, list[str]] = {}
                    if kept:
                        for match_id, move in conn.execute("SELECT match_id, move FROM card_referee_moves WHERE match_id = ANY(%s) "
                                                           "ORDER BY match_id, n", (kept,)):
                            moves.setdefault(match_id, []).append(str(move))
                return rows, moves

            rows, moves = self._run(body, timeout=COPY_TIMEOUT)
            for match_id, seq, expires, finished, moves_expire, now in rows:
                yield Entry(str(match_id), int(seq), (expires - now).total_seconds(), bool(finished),
                            (moves_expire - now).total_seconds(), tuple(moves.get(match_id, ())))
            if len(rows) < batch:
                return
            after = rows[-1][0]

    def claim(self, epoch: str | None) -> bool:
        def body(conn: psycopg.Connection[Any]) -> bool:
            with conn.transaction():
                row = conn.execute(f"SELECT {_PG_EPOCH}").fetchone()
                held = None if row is None else row[0]
                if held is not None:
                    if held == epoch:
                        return True
                    raise LedgerRefused("the target ledger already has an epoch of its own (it has been used): give an empty store")
                if conn.execute("SELECT 1 FROM card_referee_ledger LIMIT 1").fetchone() is not None:
                    raise LedgerRefused("the target ledger holds matches but no epoch: give an empty store")
                if epoch is None:
                    return False
                conn.execute("INSERT INTO card_referee_meta (name, value) VALUES ('epoch', %s) ON CONFLICT (name) DO NOTHING", (epoch,))
                row = conn.execute(f"SELECT {_PG_EPOCH}").fetchone()
                if row is None or row[0] != epoch:
                    raise LedgerRefused("the target ledger was given an epoch of its own meanwhile (is a referee using it?)")
                return False

        return self._run(body, timeout=COPY_TIMEOUT, write=True)

    def write(self, entries: Sequence[Entry]) -> frozenset[str]:
        seqs = {e.match_id: e.seq for e in entries}

        def body(conn: psycopg.Connection[Any]) -> frozenset[str]:
            with conn.transaction():
                held = conn.execute("SELECT match_id, seq FROM card_referee_ledger WHERE match_id = ANY(%s) AND expires > now() FOR UPDATE",
                                    (list(seqs),)).fetchall()
                later = {str(m) for m, seq in held if int(seq) > seqs[str(m)]}
                todo = [e for e in entries if e.match_id not in later]
                if todo:
                    with conn.cursor() as cur:
                        cur.executemany(_PG_LOAD, [(e.match_id, e.seq, _ms(e.ttl), e.finished, math.floor(e.moves_ttl * 1000)) for e in todo])
                        cur.execute("DELETE FROM card_referee_moves WHERE match_id = ANY(%s)", ([e.match_id for e in todo],))
                        rows = [(e.match_id, e.seq - len(e.moves) + n, m) for e in todo if e.moves_ttl > 0 for n, m in enumerate(e.moves)]
                        if rows:
                            cur.executemany("INSERT INTO card_referee_moves (match_id, n, move) VALUES (%s, %s, %s)", rows)
            return frozenset(later)

        return self._run(body, timeout=COPY_TIMEOUT, write=True)


# --- URLs --------------------------------------------------------------------------------------

_PG_SCHEMES: Final = ("postgresql", "postgres")


_PSYCOPG_KEPT_OUT_OF: int | None = None
"""The pid of the process that must never import psycopg (the gunicorn master), or None."""


def keep_psycopg_out_of_this_process() -> None:
    """Called by the gunicorn master before it checks the configuration (``on_starting``).

    psycopg binds how it waits for its sockets when first imported: its C wait, and the selector
    class its connection attempts use. Imported in the master, before any worker forks and gevent
    patches it, every gevent worker would inherit the blocking ones: one request waiting on a
    paused or unreachable server, or one connection attempt, would freeze the worker's every other
    request and its probes (the fault runner's paused primary: every instance's ``/healthz`` silent
    for 3 s). So the master never imports it: ``check_url`` asks libpq in a child process there,
    and ``import_psycopg`` refuses. Forked workers have another pid: they import it after gevent's
    patching, and psycopg then waits cooperatively by itself."""
    global _PSYCOPG_KEPT_OUT_OF
    _PSYCOPG_KEPT_OUT_OF = os.getpid()


def import_psycopg() -> Any:
    """psycopg, imported (never in the process ``keep_psycopg_out_of_this_process`` named)."""
    if _PSYCOPG_KEPT_OUT_OF == os.getpid():
        raise RuntimeError("psycopg must not be imported in the gunicorn master (see keep_psycopg_out_of_this_process)")
    import psycopg

    return psycopg


_LIBPQ_CHECK: Final = """
import json, sys
from psycopg.conninfo import conninfo_to_dict
try:
    given = conninfo_to_dict(sys.stdin.read())
except Exception:
    print(json.dumps(None))
else:
    print(json.dumps({"host": bool(given.get("host") or given.get("hostaddr"))}))
"""


def _libpq_reads(url: str) -> dict[str, bool] | None:
    """What libpq's own parser makes of ``url`` (whether it names a host), or None when it cannot
    read it; in a child process where this one must not import psycopg (the URL goes through a
    pipe, never a command line)."""
    if _PSYCOPG_KEPT_OUT_OF != os.getpid():
        try:
            given = import_psycopg().conninfo.conninfo_to_dict(url)
        except Exception:  # noqa: BLE001 - libpq's own parser: any refusal is an unusable URL
            return None
        return {"host": bool(given.get("host") or given.get("hostaddr"))}
    import json
    import subprocess
    import sys

    try:
        done = subprocess.run([sys.executable, "-c", _LIBPQ_CHECK], input=url, capture_output=True, text=True, timeout=60, check=True)
        answer = json.loads(done.stdout)
    except (OSError, subprocess.SubprocessError, ValueError) as exc:
        raise LedgerUnavailable(f"libpq could not be asked to read the postgresql URL: {exc.__class__.__name__}") from None
    return None if answer is None else {"host": bool(answer["host"])}


def store_name(url: str) -> str:
    """The kind of store ``url`` names, as the metrics label it: ``redis``, ``sqlite`` or ``postgresql``."""
    scheme = urllib.parse.urlsplit(url).scheme
    if scheme in _PG_SCHEMES:
        return "postgresql"
    return "sqlite" if scheme == "sqlite" else "redis"


def check_url(url: str) -> str | None:
    """Why ``url`` is not a ledger URL, or None (never quoting it: it may hold a password)."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme in ("redis", "rediss"):
        return None if parts.hostname else "a redis URL needs a host: redis://host:port/db"
    if parts.scheme == "sqlite":
        return None if url.startswith("sqlite:///") and len(url) > len("sqlite:///") else "a SQLite URL is sqlite:///path"
    if parts.scheme in _PG_SCHEMES:
        try:
            given = _libpq_reads(url)
        except LedgerUnavailable as exc:
            return str(exc)
        if given is None:
            return "a postgresql URL that libpq cannot read: postgresql://user@host:port,host2:port/dbname?target_session_attrs=read-write"
        if not given["host"]:
            return "a postgresql URL needs a host: postgresql://user@host:port/dbname (or ?host=... in its query)"
        return None
    return "the ledger URL must start with redis://, rediss://, postgresql://, postgres:// or sqlite:///"


def open_ledger(url: str, ttl: int = DEFAULT_TTL, finished_ttl: int = DEFAULT_FINISHED_TTL) -> RedisLedger | SqliteLedger | PostgresLedger:
    """The ledger ``url`` names (see ``check_url``); ``finished_ttl`` is capped at ``ttl``."""
    problem = check_url(url)
    if problem:
        raise ValueError(problem)
    if url.startswith("sqlite:///"):
        return SqliteLedger(url[len("sqlite:///") :], ttl, finished_ttl)
    if store_name(url) == "postgresql":
        return PostgresLedger(url, ttl, finished_ttl)
    return RedisLedger(url, ttl, finished_ttl)
