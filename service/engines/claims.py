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

Checks. ``ClaimChecks`` is the §6.1/§6.2 (Snap: §6.3) order of refusals both games share, worded and
cited by each game: the parse problems, whose turn a flip is, a flip's ``at``, and a batch of
claims (seats, stamps, duplicates, seats that are out, stale stamps).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, Generic, NamedTuple, Protocol, TypeVar, cast

from ..cards import Card
from ..cards.packs import full_52
from .base import BadMove, Event, GameInfo, IllegalMove, Seat
from .kit import Problems, check_dealer, check_dealt, check_players

__all__ = [
    "EARLY_PARSE_CODES",
    "MAX_AT",
    "PACK",
    "PARSE_ORDER",
    "BatchClaim",
    "Claim",
    "ClaimChecks",
    "ClaimWindow",
    "Flip",
    "SingleClaim",
    "Verdict",
    "check_flip_at",
    "claims_of",
    "deal_stocks",
    "first_seat_after",
    "initial_events",
    "judge",
    "listed",
    "pack",
    "result_problems",
    "result_wire",
    "setup",
    "valid_at",
    "well_formed",
]

PACK: Final = full_52()
"""Both games are played with the standard 52-card pack (§2), here in canonical order."""

PARSE_ORDER: Final = ("invalid_move", "unknown_move_type", "no_claims", "invalid_player", "duplicate_claim", "bad_timestamp")
"""The parse problems of a move, in the order both games' §6.1/§6.2 (Snap: §6.3) rank them."""

EARLY_PARSE_CODES: Final = frozenset({"unknown_move_type", "invalid_move", "no_claims", "invalid_player", "duplicate_claim"})
"""The parse problems reported right after ``game_over`` (§6.2 steps 2-3; flips: §6.1 step 2); a
flip's bad ``at`` comes after its seat checks (``ClaimChecks.check``)."""

MAX_AT: Final = 2**53 - 1
"""Largest accepted timestamp (ms): the largest integer every JSON client represents exactly."""


def pack(options: object, players: int = 2) -> tuple[Card, ...]:
    """The standard 52-card pack (§2) in canonical order, whatever the options and seats."""
    return PACK


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


C = TypeVar("C", bound=SingleClaim)


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


def setup(game: GameInfo, dealer: Seat, players: int, deck: Sequence[Card]) -> tuple[Seat, tuple[tuple[Card, ...], ...]]:
    """§4 of both games: refuse a seat count (§2), a dealer (§3) or a deck (§4) the game cannot
    start with (BadSetup), then deal: the seat left of the dealer (eldest, who flips first) and
    every seat's stock."""
    check_players(game, players)
    check_dealer(game, dealer, players)
    check_dealt(game, deck, PACK, "4")
    eldest = (dealer + 1) % players
    return eldest, deal_stocks(deck, players, eldest)


_LISTED: Final[dict[tuple[type, Seat | None, int | None, frozenset[Seat], bool], tuple[Flip | SingleClaim, ...]]] = {}
"""``listed``'s interned answers (cleared when full): a position's listed moves are values."""


def listed(
    claim: type[C], flipper: Seat | None, last_flip_at: int | None, seats: frozenset[Seat], claims_open: bool = True
) -> tuple[Flip | C, ...]:
    """The listed moves of a position (both games' §6 "legal moves"): the flip of ``flipper`` (if
    any) and, while ``claims_open``, one ``claim`` template per seat of ``seats``, each with the
    position's ``ClaimWindow``. Interned: they depend only on these values."""
    key = (claim, flipper, last_flip_at, seats, claims_open)
    moves = _LISTED.get(key)
    if moves is None:
        window = ClaimWindow(last_flip_at, seats)
        out: list[Flip | SingleClaim] = []
        if flipper is not None:
            out.append(Flip(flipper, None, window))
        if claims_open:
            out.extend(claim(s, None, window) for s in sorted(seats))
        if len(_LISTED) >= 8192:
            _LISTED.clear()
        moves = _LISTED[key] = tuple(out)
    return cast("tuple[Flip | C, ...]", moves)


def first_seat_after(start: Seat, players: int, ok: Callable[[Seat], bool]) -> Seat | None:
    """The first seat among ``start+1, start+2, …, start+players`` (mod, ``start`` last) with ``ok``."""
    for d in range(1, players + 1):
        s = (start + d) % players
        if ok(s):
            return s
    return None


class _Table(Protocol):
    """What the claim checks read of a Slapjack or Snap state."""

    @property
    def players(self) -> int: ...

    @property
    def to_move(self) -> Seat | None: ...

    @property
    def last_flip_at(self) -> int | None: ...

    @property
    def phase(self) -> str: ...

    @property
    def stocks(self) -> tuple[tuple[Card, ...], ...]: ...


T = TypeVar("T", bound=_Table)


def initial_events(state: _Table) -> list[Event]:
    """The deal (both specs, §4): how many cards each seat received and who flips first."""
    return [{"type": "deal", "stock_counts": [len(s) for s in state.stocks], "to_move": state.to_move}]


class _Result(Protocol):
    """A game's ``last_result``: one NamedTuple for every kind, members of other kinds None."""

    @property
    def kind(self) -> str: ...

    @property
    def _fields(self) -> tuple[str, ...]: ...


def result_wire(
    r: _Result | None, fields: Mapping[str, tuple[str, ...]], penalty: Callable[[Any], dict[str, object]]
) -> dict[str, object] | None:
    """``last_result`` as §6 shows it: only the members of its kind (``fields``), each penalty as
    ``penalty`` writes it."""
    if r is None:
        return None
    out: dict[str, object] = {}
    for name in fields[r.kind]:
        value = getattr(r, name)
        if name == "penalties":
            value = [penalty(p) for p in value]
        out[name] = value
    return out


def result_problems(bad: Problems, r: _Result | None, fields: Mapping[str, tuple[str, ...]], kinds: str) -> None:
    """``check_state``'s test of ``last_result``: a known kind (``kinds`` names them), with exactly
    the members of that kind."""
    if r is None:
        return
    wanted = fields.get(r.kind)
    if wanted is None:
        bad("last_result.kind", f"must be {kinds}")
    elif any((getattr(r, f) is None) == (f in wanted) for f in r._fields if f != "kind"):
        bad("last_result", f"a {r.kind} result has exactly the members {', '.join(wanted)}")


@dataclass(frozen=True, slots=True)
class ClaimChecks(Generic[T]):
    """The checks of a flip and of a claim move that both claim games make, in their order.

    ``claim_section`` cites the claims' section (Slapjack §6.2, Snap §6.3; flips are §6.1 in both);
    ``claim_types`` names the single and the batch move; ``noun`` is what a claim is called in
    messages ("claim", "call"); ``nobody_flips`` says why no seat flips; ``in_game`` and
    ``out_detail`` (with ``{p}``) tell a seat that is out of the game; ``before_stale`` is a game's
    own check just before the stale-claim check (Slapjack: a centre pile to slap); ``game_over`` is
    the game's final phase (§7).
    """

    game: GameInfo
    game_over: str
    claim_section: str
    claim_types: tuple[str, str]
    noun: str
    nobody_flips: str
    in_game: Callable[[T, Seat], bool]
    out_detail: str
    before_stale: Callable[[T], None] | None = None
    flip_rule: str = field(init=False)
    """The citation of the flips' section, §6.1 (made once: flips are the move path)."""
    claim_rule: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "flip_rule", self.game.rule("6.1"))
        object.__setattr__(self, "claim_rule", self.game.rule(self.claim_section))

    def to_move(self, state: T) -> frozenset[Seat]:
        """§7 envelope: the seat that must flip (claims are open to every seat still in)."""
        return frozenset() if state.to_move is None or state.phase is self.game_over else frozenset((state.to_move,))

    def check(self, state: T, move: object) -> None:
        """Raise IllegalMove with the first code of the game's §6.1 and claim section that applies
        to ``move``; return if the move is legal (a game's ``_check``)."""
        if state.phase is self.game_over:
            raise IllegalMove("game_over", "The game is over; no move is accepted.", self.game.rule("7"))
        if isinstance(move, Flip):
            self.check_flip_turn(state, move.player)
            check_flip_at(move.at, state.last_flip_at, self.flip_rule)
            return
        if isinstance(move, BadMove):
            if move.code in self.game.early_parse_codes or move.type != "flip" or move.player is None:
                raise IllegalMove(move.code, move.detail, self.claim_rule if move.type in self.claim_types else self.flip_rule)
            self.check_flip_turn(state, move.player)  # a flip's bad `at` comes after player_out, not_your_turn
            raise IllegalMove(move.code, move.detail, self.flip_rule)
        self.check_claims(state, claims_of(move), isinstance(move, BatchClaim))

    def check_flip_turn(self, state: T, p: Seat) -> None:
        """§6.1: a seat of the game, not out, whose turn it is to flip."""
        if not 0 <= p < state.players:
            raise IllegalMove("invalid_player", f"player must be a seat 0..{state.players - 1}.", self.flip_rule)
        if not self.in_game(state, p):
            raise IllegalMove("player_out", self.out_detail.format(p=p), self.flip_rule)
        if p != state.to_move:
            who = self.nobody_flips if state.to_move is None else f"seat {state.to_move} flips next"
            raise IllegalMove("not_your_turn", f"Seat {p} may not flip: {who}.", self.flip_rule)

    def check_claims(self, state: T, claims: Sequence[Claim], batch: bool) -> None:
        """The checks of claims already in engine form (the edge checked their shape)."""
        rule, noun = self.claim_rule, self.noun
        if batch and not claims:
            raise IllegalMove("no_claims", f"{self.claim_types[1]} needs a non-empty claims list.", rule)
        seen: set[Seat] = set()
        for c in claims:
            if not 0 <= c.player < state.players:
                raise IllegalMove("invalid_player", f"player must be a seat 0..{state.players - 1}.", rule)
            if not valid_at(c.at):
                raise IllegalMove("bad_timestamp", f"Every {noun} needs at: an integer number of milliseconds >= 0.", rule)
            if c.player in seen:
                raise IllegalMove("duplicate_claim", f"Seat {c.player} {noun}s twice in one move.", rule)
            seen.add(c.player)
        for c in claims:
            if not self.in_game(state, c.player):
                raise IllegalMove("player_out", self.out_detail.format(p=c.player), rule)
        if self.before_stale is not None:
            self.before_stale(state)
        last = state.last_flip_at
        if last is not None and all(c.at < last for c in claims):
            raise IllegalMove("stale_claim", f"Every {noun} is stamped before the last flip at {last}.", rule)
