"""What Slapjack and Snap share: the deal of the whole pack into face-down stocks, turning a stock's
top card, timestamped claims and how competing claims are judged.

Each game keeps its own obligations (what a claim wins, what a false claim costs, who flips next);
this module only holds the machinery that is word for word the same in both specs
(slapjack.md §4, §6.1, §6.2; snap.md §4, §6.1, §6.3). Timestamps arrive as data: nothing here
reads a clock.

Moves. ``Flip`` is the same move in both games. A single claim (Slapjack's ``slap``, Snap's
``snap``) subclasses ``SingleClaim``; a batch (``slaps``, ``snaps``) subclasses ``BatchClaim``.
``legal_moves`` lists a flip and one single claim per seat that may claim, each carrying a
``ClaimWindow`` (not part of the move's value on the wire): the listed claim is a template that a
client completes with ``at`` (docs/rules/conventions.md "Templates"), and a batch fills the template of its
first claimant. So "listed" means exactly "accepted", timestamps included.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, NamedTuple

from ..cards import Card
from .base import IllegalMove, Seat

__all__ = [
    "MAX_AT",
    "BatchClaim",
    "Claim",
    "ClaimWindow",
    "Flip",
    "SingleClaim",
    "Verdict",
    "check_flip_at",
    "claims_of",
    "deal_stocks",
    "first_seat_after",
    "judge",
    "valid_at",
    "well_formed",
]

MAX_AT: Final = 2**53 - 1
"""Largest accepted timestamp (ms): the largest integer every JSON client represents exactly."""


def valid_at(at: object) -> bool:
    """Whether ``at`` is a timestamp: an integer from 0 to ``MAX_AT`` (not a bool)."""
    return type(at) is int and 0 <= at <= MAX_AT


def check_flip_at(at: int | None, last_flip_at: int | None, rule: str) -> None:
    """A flip's optional ``at`` (both specs, §6.1): a timestamp, not before the last flip."""
    if at is None:
        return
    if not valid_at(at):
        raise IllegalMove("bad_timestamp", "at must be an integer number of milliseconds >= 0.", rule)
    if last_flip_at is not None and at < last_flip_at:
        raise IllegalMove("timestamp_out_of_order", f"at {at} is before the last flip at {last_flip_at}.", rule)


class Claim(NamedTuple):
    """One seat's claim, stamped by its client (ms)."""

    player: Seat
    at: int


class ClaimWindow(NamedTuple):
    """What a listed flip or claim needs to be filled in: the seats that may claim now and the
    earliest timestamp that is not stale (``last_flip_at``; None = any)."""

    not_before: int | None
    seats: frozenset[Seat]


def _fresh(at: int, window: ClaimWindow | None) -> bool:
    return window is None or window.not_before is None or at >= window.not_before


def well_formed(claims: Sequence[Claim]) -> bool:
    """At least one claim, every ``at`` a timestamp, no seat twice."""
    seats = {c.player for c in claims}
    return bool(claims) and len(seats) == len(claims) and all(valid_at(c.at) for c in claims)


@dataclass(frozen=True, slots=True)
class Flip:
    """``{"type": "flip", "player": p, "at"?: ms}``: turn the top card of one's stock.

    Listed with a ``window``; a concrete flip (no window) fills only itself."""

    TYPE: ClassVar[str] = "flip"
    player: Seat
    at: int | None = None
    window: ClaimWindow | None = field(default=None, repr=False, metadata={"wire": False})

    def filled_by(self, move: object) -> bool:
        """A flip by the same seat, without ``at`` or with one not before the last flip."""
        if self.window is None:
            return move == self
        if type(move) is not Flip or move.player != self.player:
            return False
        return move.at is None or (valid_at(move.at) and _fresh(move.at, self.window))


@dataclass(frozen=True, slots=True)
class SingleClaim:
    """A single claim ``{"type": TYPE, "player": p, "at": ms}``.

    Listed as a template without ``at`` (with a ``window``); a concrete claim fills only itself."""

    TYPE: ClassVar[str] = ""
    BATCH: ClassVar[str] = ""
    player: Seat
    at: int | None = None
    window: ClaimWindow | None = field(default=None, repr=False, metadata={"wire": False})

    def filled_by(self, move: object) -> bool:
        """A claim (single, or a batch whose first claimant is this seat) that would be accepted."""
        window = self.window
        if window is None:
            return move == self
        kind = getattr(move, "TYPE", None)
        if kind == self.TYPE:  # the common case, without building a claims tuple
            at = move.at  # type: ignore[attr-defined]
            return (
                move.player == self.player  # type: ignore[attr-defined]
                and valid_at(at)
                and self.player in window.seats
                and (window.not_before is None or at >= window.not_before)
            )
        if kind != self.BATCH:
            return False
        claims = claims_of(move)
        if not well_formed(claims) or claims[0].player != self.player:
            return False
        return all(c.player in window.seats for c in claims) and any(_fresh(c.at, window) for c in claims)


@dataclass(frozen=True, slots=True)
class BatchClaim:
    """Several competing claims judged together: ``{"type": TYPE, "claims": [{"player", "at"}, ...]}``.

    ``player`` is always None (a batch has no single actor; a top-level ``player`` on the wire is
    ignored, as the specs say). Never listed: it fills the template of its first claimant."""

    TYPE: ClassVar[str] = ""
    claims: tuple[Claim, ...] = ()
    player: Seat | None = None


def claims_of(move: Any) -> tuple[Claim, ...]:
    """The claims a claim move carries, in list order (a single claim is a batch of one)."""
    claims = getattr(move, "claims", None)
    if claims is not None:
        return tuple(claims)
    return (Claim(move.player, move.at),)


class Verdict(NamedTuple):
    """The judged claims: ``order`` = valid claims by ``at`` (ties keep list order), ``stale`` =
    seats whose claim was stamped before the last flip, in list order."""

    order: tuple[Claim, ...]
    stale: tuple[Seat, ...]

    @property
    def seats(self) -> tuple[Seat, ...]:
        return tuple(c.player for c in self.order)

    def tied(self) -> tuple[Claim, ...]:
        """The valid claims sharing the earliest ``at`` (one claim when there is no tie)."""
        if not self.order:
            return ()
        first = self.order[0].at
        return tuple(c for c in self.order if c.at == first)


def judge(claims: Sequence[Claim], last_flip_at: int | None) -> Verdict:
    """Slapjack §6.2 / Snap §6.3: drop stale claims, order the rest by ``at``, list order breaking ties."""
    if last_flip_at is None:
        stale: tuple[Seat, ...] = ()
        valid = list(claims)
    else:
        stale = tuple(c.player for c in claims if c.at < last_flip_at)
        valid = [c for c in claims if c.at >= last_flip_at]
    valid.sort(key=lambda c: c.at)  # stable: equal stamps keep their list order
    return Verdict(tuple(valid), stale)


def deal_stocks(deck: Sequence[Card], players: int, eldest: Seat) -> tuple[tuple[Card, ...], ...]:
    """Slapjack §4 (Snap §4 by reference): the whole deck one card at a time from ``eldest``, each
    card dropped on top of its receiver's stock; each stock is returned top first."""
    stocks: list[tuple[Card, ...]] = [()] * players
    for s in range(players):
        k = (s - eldest) % players
        stocks[s] = tuple(reversed(deck[k::players]))
    return tuple(stocks)


def first_seat_after(start: Seat, players: int, ok: Callable[[Seat], bool]) -> Seat | None:
    """The first seat among ``start+1, start+2, …, start+players`` (mod, ``start`` last) with ``ok``."""
    for d in range(1, players + 1):
        s = (start + d) % players
        if ok(s):
            return s
    return None
