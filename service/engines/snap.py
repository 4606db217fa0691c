"""Snap: turn cards onto your own face-up pile; call "Snap!" first when two visible tops pair.

The contract is ``docs/rules/snap.md``; section numbers (§) below refer to it. Pure functions
over an immutable ``State``; decks and the clients' timestamps arrive as data. The deal, flips and
the judging of competing claims are shared with Slapjack (``claims.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, ClassVar, Final, NamedTuple, cast

from ..cards import Card
from . import claims
from .base import Event, GameInfo, Outcome, Seat
from .claims import (
    EARLY_PARSE_CODES,
    PARSE_ORDER,
    BatchClaim,
    ClaimChecks,
    Flip,
    SingleClaim,
    Verdict,
    claims_of,
    first_seat_after,
    judge,
    listed,
    result_problems,
    setup,
)
from .claims import PACK as PACK  # noqa: PLC0414 (re-exported: the schemas read it)
from .claims import initial_events as initial_events  # noqa: PLC0414 (re-exported: the deal event, §4)
from .claims import pack as pack  # noqa: PLC0414 (re-exported: the 52-card pack, §2)
from .kit import Problems, applier, check_seats, option, option_info, stepper, view_head
from .kit import players as players  # noqa: PLC0414 (re-exported: state.players)

if TYPE_CHECKING:
    from ..typed import SnapEngineView
from .kit import status as status  # noqa: PLC0414 (re-exported: the envelope status, from the phase)

POOL: Final = -1
"""The owner of the pool's top among the visible tops (§6.2)."""


class Phase(StrEnum):
    """§6: one phase, then the end."""

    PLAY = "play"
    GAME_OVER = "game_over"


@dataclass(frozen=True, slots=True)
class Options:
    """§3 options, defaults as in the spec."""

    dealer: Seat = option(
        0, type="integer", minimum=0, maximum=7,
        description="Dealer seat (0..players-1); the seat to its left flips first.",
    )
    snap_takes: str = option(
        "seed", type="string", enum=["seed", "both"],
        description="A winning caller takes one matching pile plus his own (seed), or both matching piles.",
    )
    tie_rule: str = option(
        "list_order", type="string", enum=["list_order", "pool"],
        description="Calls tied at the earliest at: the first listed wins, or the matching piles go to the pool.",
    )
    false_call: str = option(
        "pay_each", type="string", enum=["pay_each", "to_pool", "none"],
        description="A call without a match: one card to each other player, one's face-up pile to the pool, or nothing.",
    )
    empty_stock: str = option(
        "recycle", type="string", enum=["recycle", "stop"],
        description="An empty stock: turn the face-up pile over at one's turn, or stop flipping.",
    )
    stall_limit: int | None = option(
        1040, type="integer", minimum=1, maximum=1_000_000, nullable=True,
        description="The game ends after this many flips in a row with no card changing owner; null: never.",
    )


OPTION_INFO: Final[Mapping[str, Mapping[str, object]]] = option_info(Options)


class Penalty(NamedTuple):
    """§6.7 one card (to a seat) or one pile (to the pool: ``to`` None) a false caller gave."""

    from_: Seat
    to: Seat | None


class Result(NamedTuple):
    """§6 ``last_result``: one record for the four kinds (unused members are None)."""

    kind: str  # "flip" | "snap" | "tie_to_pool" | "false_call"
    player: Seat | None = None
    card: Card | None = None
    recycled: bool | None = None
    winner: Seat | None = None
    order: tuple[Seat, ...] | None = None
    stale: tuple[Seat, ...] | None = None
    taken_from: tuple[Seat, ...] | None = None
    pool: bool | None = None
    own_pile: bool | None = None
    cards: int | None = None
    moved: tuple[Seat, ...] | None = None
    penalties: tuple[Penalty, ...] | None = None


RESULT_FIELDS: Final[Mapping[str, tuple[str, ...]]] = {
    "flip": ("kind", "player", "card", "recycled"),
    "snap": ("kind", "winner", "order", "stale", "taken_from", "pool", "own_pile", "cards"),
    "tie_to_pool": ("kind", "order", "stale", "moved"),
    "false_call": ("kind", "order", "stale", "penalties"),
}


def _penalty_wire(p: Penalty) -> dict[str, object]:
    return {"from": p.from_, "to": "pool" if p.to is None else p.to}


def result_wire(r: Result | None) -> dict[str, object] | None:
    """``last_result`` as §6 shows it: only the members of its kind; a penalty to the pool says ``"pool"``."""
    return claims.result_wire(r, RESULT_FIELDS, _penalty_wire)


class State(NamedTuple):
    """The whole truth of a Snap game (§5), hidden stocks included."""

    options: Options
    players: int
    phase: Phase
    stocks: tuple[tuple[Card, ...], ...]
    faceups: tuple[tuple[Card, ...], ...]
    faceup_seq: tuple[int | None, ...]
    pool: tuple[Card, ...]
    pool_seq: int | None
    flip_count: int
    last_flipper: Seat | None
    to_move: Seat | None
    last_flip_at: int | None
    winners: tuple[Seat, ...] | None
    last_result: Result | None
    stall: int = 0
    seq: int = 0


# --- moves (§6) -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Snap(SingleClaim):
    """§6.3 one call: ``{"type": "snap", "player": p, "at": ms}``."""

    TYPE: ClassVar[str] = "snap"
    BATCH: ClassVar[str] = "snaps"


@dataclass(frozen=True, slots=True)
class Snaps(BatchClaim):
    """§6.3 competing calls judged together."""

    TYPE: ClassVar[str] = "snaps"


Move = Flip | Snap | Snaps
GAME: Final = GameInfo(
    game_id="snap", name="Snap", rules_version="snap/1",
    player_counts=(2, 3, 4, 5, 6, 7, 8), default_players=2,
    move_classes={cls.TYPE: cls for cls in (Flip, Snap, Snaps)},
    parse_order=PARSE_ORDER, early_parse_codes=EARLY_PARSE_CODES,  # the claim games' (claims.py)
    # The game's own problem codes (§8), in the table's order; the contract's <Game>ProblemCode.
    codes=("player_out", "bad_timestamp", "timestamp_out_of_order", "no_claims", "duplicate_claim",
           "stale_claim"),
)
GAME_ID, NAME, RULES_VERSION, PLAYER_COUNTS, DEFAULT_PLAYERS, MOVE_TYPES, MOVE_CLASSES = GAME.constants()


# --- setup (§4) -------------------------------------------------------------------------------


def new_game(options: Options, players: int, deck: Sequence[Card], seed: int | None = None) -> State:
    """§4: deal the whole deck as in Slapjack. Raises BadSetup."""
    eldest, stocks = setup(GAME, options.dealer, players, deck)
    return State(
        options=options,
        players=players,
        phase=Phase.PLAY,
        stocks=stocks,
        faceups=((),) * players,
        faceup_seq=(None,) * players,
        pool=(),
        pool_seq=None,
        flip_count=0,
        last_flipper=None,
        to_move=eldest,
        last_flip_at=None,
        winners=None,
        last_result=None,
    )


# --- derived facts (§5, §6.2) --------------------------------------------------------------------


class Member(NamedTuple):
    """A visible top (§6.2): its sequence number and its pile's owner (``POOL`` for the pool)."""

    seq: int
    owner: Seat


def target_group(state: State) -> tuple[Member, ...]:
    """§6.2: the visible tops of the rank of the most recently revealed matched card, oldest first
    (empty when there is no match)."""
    tops: list[tuple[int, Seat, str]] = [
        (seq, s, pile[-1].rank) for s, (pile, seq) in enumerate(zip(state.faceups, state.faceup_seq)) if pile and seq is not None
    ]
    if state.pool and state.pool_seq is not None:
        tops.append((state.pool_seq, POOL, state.pool[-1].rank))
    count: dict[str, int] = {}
    for _, _, rank in tops:
        count[rank] = count.get(rank, 0) + 1
    matched = [t for t in tops if count[t[2]] > 1]
    if not matched:
        return ()
    rank = max(matched)[2]
    return tuple(Member(seq, owner) for seq, owner, r in sorted(tops) if r == rank)


def has_cards(state: State, seat: Seat) -> bool:
    """§5: a seat with stock or face-up cards; one without is out."""
    return bool(state.stocks[seat]) or bool(state.faceups[seat])


def _next_flipper(state: State) -> Seat | None:
    """§5: the first seat left of the last flipper (or of the dealer) that can flip."""
    recycle = state.options.empty_stock == "recycle"
    stocks, faceups = state.stocks, state.faceups
    start = state.options.dealer if state.last_flipper is None else state.last_flipper
    return first_seat_after(start, state.players, lambda s: bool(stocks[s]) or (recycle and bool(faceups[s])))


def cards_held(state: State) -> list[int]:
    """§7 score: stock plus face-up pile."""
    return [len(a) + len(b) for a, b in zip(state.stocks, state.faceups)]


# --- whose turn, what is legal (§6.8) ---------------------------------------------------------


def _callers(state: State) -> frozenset[Seat]:
    return frozenset(s for s in range(state.players) if has_cards(state, s))


def legal_moves(state: State) -> list[Move]:
    """§6.8: the flip of ``to_move`` and one call per seat with cards (the client adds ``at``)."""
    if state.phase is Phase.GAME_OVER:
        return []
    return list(listed(Snap, state.to_move, state.last_flip_at, _callers(state)))


# --- checking (§6.1, §6.3 order: claims.ClaimChecks) ----------------------------------------------------------------


_CLAIMS: Final[ClaimChecks[State]] = ClaimChecks(
    GAME, Phase.GAME_OVER, claim_section="6.3", claim_types=("snap", "snaps"), noun="call", nobody_flips="nobody can flip: only calls",
    in_game=has_cards, out_detail="Seat {p} has no cards: it is out.",
)
to_move: Final = _CLAIMS.to_move


# --- transitions ------------------------------------------------------------------------------


def _next(state: State, move: Move, events: list[Event]) -> State:
    """A flip, or a batch of calls judged against the matching piles (§6.1, §6.3); then §6.4's settling."""
    if isinstance(move, Flip):
        new = _flip(state, move, events)
    else:
        verdict = judge(claims_of(move), state.last_flip_at)
        group = target_group(state)
        if not group:
            new = _false_calls(state, verdict, events)
        elif state.options.tie_rule == "pool" and len(verdict.tied()) > 1:
            new = _tie_to_pool(state, verdict, group, events)
        else:
            new = _win(state, verdict, group, events)
    return _settle(new, events)


# ``_CLAIMS.check`` refuses a move in the rules' order, ``_next`` plays it; the new state counts one more ``seq``.
step: Final = stepper(_CLAIMS.check, _next)
apply: Final = applier(step)


def _flip(state: State, move: Flip, events: list[Event]) -> State:
    """§6.1 effect 1-2, 4."""
    p = move.player
    stocks, faceups, seqs = list(state.stocks), list(state.faceups), list(state.faceup_seq)
    recycled = not stocks[p]
    if recycled:  # only reachable with empty_stock = recycle (else the seat cannot be to move)
        stocks[p], faceups[p] = faceups[p], ()
    card, stocks[p] = stocks[p][0], stocks[p][1:]
    faceups[p] = faceups[p] + (card,)
    count = state.flip_count + 1
    seqs[p] = count
    events.append({"type": "flip", "player": p, "card": card, "recycled": recycled})
    return state._replace(
        stocks=tuple(stocks),
        faceups=tuple(faceups),
        faceup_seq=tuple(seqs),
        flip_count=count,
        last_flipper=p,
        last_flip_at=state.last_flip_at if move.at is None else move.at,
        stall=state.stall + 1,
        last_result=Result("flip", player=p, card=card, recycled=recycled),
    )


def _win(state: State, verdict: Verdict, group: tuple[Member, ...], events: list[Event]) -> State:
    """§6.5: the winning caller takes the won piles (and, in seed mode, his own) under his stock."""
    w = verdict.order[0].player
    faceups, seqs = list(state.faceups), list(state.faceup_seq)
    pool_won = any(m.owner == POOL for m in group)
    players_in_g = [m.owner for m in group if m.owner != POOL]
    if pool_won or state.options.snap_takes == "both":
        won = players_in_g
    else:
        won = [next(s for s in players_in_g if s != w)] if any(s != w for s in players_in_g) else []
    own_moves = bool(faceups[w]) and (state.options.snap_takes == "seed" or w in won)
    packet: tuple[Card, ...] = faceups[w] if own_moves else ()
    if pool_won:
        packet += state.pool
    taken = [s for s in won if s != w]
    for s in taken:
        packet += faceups[s]
    for s in ([w] if own_moves else []) + taken:
        faceups[s], seqs[s] = (), None
    stocks = list(state.stocks)
    stocks[w] = stocks[w] + packet
    result = Result(
        "snap", winner=w, order=verdict.seats, stale=verdict.stale, taken_from=tuple(taken),
        pool=pool_won, own_pile=own_moves, cards=len(packet),
    )
    events.append(
        {
            "type": "snap",
            "winner": w,
            "order": list(verdict.seats),
            "slower": list(verdict.seats[1:]),
            "stale": list(verdict.stale),
            "taken_from": taken,
            "pool": pool_won,
            "own_pile": own_moves,
            "cards": len(packet),
        }
    )
    return state._replace(
        stocks=tuple(stocks),
        faceups=tuple(faceups),
        faceup_seq=tuple(seqs),
        pool=() if pool_won else state.pool,
        pool_seq=None if pool_won else state.pool_seq,
        stall=0,
        last_result=result,
    )


def _tie_to_pool(state: State, verdict: Verdict, group: tuple[Member, ...], events: list[Event]) -> State:
    """§6.6: tied earliest calls win nothing; the matching player piles go onto the pool."""
    faceups, seqs = list(state.faceups), list(state.faceup_seq)
    pool, pool_seq = state.pool, state.pool_seq
    moved = tuple(m.owner for m in group if m.owner != POOL)
    for s in moved:
        pool += faceups[s]
        pool_seq = seqs[s]
        faceups[s], seqs[s] = (), None
    events.append(
        {
            "type": "tie_to_pool",
            "order": list(verdict.seats),
            "tied": [c.player for c in verdict.tied()],
            "stale": list(verdict.stale),
            "moved": list(moved),
        }
    )
    return state._replace(
        faceups=tuple(faceups),
        faceup_seq=tuple(seqs),
        pool=pool,
        pool_seq=pool_seq,
        stall=0,
        last_result=Result("tie_to_pool", order=verdict.seats, stale=verdict.stale, moved=moved),
    )


def _false_calls(state: State, verdict: Verdict, events: list[Event]) -> State:
    """§6.7: every valid call without a match is false; penalties in the judged order."""
    n = state.players
    stocks, faceups, seqs = list(state.stocks), list(state.faceups), list(state.faceup_seq)
    pool, pool_seq = state.pool, state.pool_seq
    recycle = state.options.empty_stock == "recycle"
    rule = state.options.false_call
    penalties: list[Penalty] = []
    for c in verdict.seats:
        if rule == "pay_each":
            for d in range(1, n):
                r = (c + d) % n
                if not (stocks[r] or faceups[r]):
                    continue
                if not stocks[c] and recycle and faceups[c]:
                    stocks[c], faceups[c], seqs[c] = faceups[c], (), None
                if not stocks[c]:
                    break
                card, stocks[c] = stocks[c][0], stocks[c][1:]
                stocks[r] = stocks[r] + (card,)
                penalties.append(Penalty(c, r))
        elif rule == "to_pool" and faceups[c]:
            pool += faceups[c]
            pool_seq = seqs[c]
            faceups[c], seqs[c] = (), None
            penalties.append(Penalty(c, None))
    events.append(
        {
            "type": "false_call",
            "order": list(verdict.seats),
            "stale": list(verdict.stale),
            "penalties": [_penalty_wire(p) for p in penalties],
        }
    )
    return state._replace(
        stocks=tuple(stocks),
        faceups=tuple(faceups),
        faceup_seq=tuple(seqs),
        pool=pool,
        pool_seq=pool_seq,
        stall=0 if penalties else state.stall,
        last_result=Result("false_call", order=verdict.seats, stale=verdict.stale, penalties=tuple(penalties)),
    )


def _settle(state: State, events: list[Event]) -> State:
    """§5 `to_move` recomputed after every move, then the end of §7."""
    nxt = _next_flipper(state)
    events[-1]["to_move"] = nxt
    holders = [s for s in range(state.players) if has_cards(state, s)]
    reason = None
    winners: tuple[Seat, ...] = ()
    if len(holders) == 1:
        reason, winners = "all_cards", (holders[0],)
    elif (nxt is None and not target_group(state)) or (
        state.options.stall_limit is not None and state.stall >= state.options.stall_limit
    ):
        reason = "blocked" if nxt is None else "stall"
        held = cards_held(state)
        top = max(held)
        winners = tuple(s for s in range(state.players) if held[s] == top)
    if reason is None:
        return state._replace(to_move=nxt)
    events[-1]["to_move"] = None
    events.append({"type": "game_over", "winner": list(winners), "reason": reason})
    return state._replace(phase=Phase.GAME_OVER, to_move=None, winners=winners)


# --- the outside view -------------------------------------------------------------------------


def outcome(state: State) -> Outcome | None:
    """§7: the winning seats once the game is over."""
    if state.phase is not Phase.GAME_OVER or state.winners is None:
        return None
    return Outcome(frozenset(state.winners), "game_over")


def derived(state: State) -> dict[str, object]:
    """Derived values added to a full state (ignored on input)."""
    return {"cards_held": cards_held(state)}


def scores(state: State, seat: Seat | None = None) -> dict[str, object]:
    """§7: ``totals`` = cards held (stock + face-up pile) per seat."""
    held = cards_held(state)
    return {"totals": held, "cards_held": held}


def view(state: State, seat: Seat | None) -> SnapEngineView:
    """§5: every seat sees the same: counts, the face-up tops and the pool top; no stock card."""
    return cast("SnapEngineView", {
        **view_head(GAME, state, seat),
        "players": state.players,
        "options": state.options,
        "phase": state.phase,
        "stock_counts": [len(s) for s in state.stocks],
        "faceup_tops": [p[-1] if p else None for p in state.faceups],
        "faceup_counts": [len(p) for p in state.faceups],
        "faceup_seq": state.faceup_seq,
        "pool_top": state.pool[-1] if state.pool else None,
        "pool_count": len(state.pool),
        "pool_seq": state.pool_seq,
        "flip_count": state.flip_count,
        "last_flipper": state.last_flipper,
        "to_move": state.to_move,
        "last_flip_at": state.last_flip_at,
        "stall": state.stall,
        "winners": state.winners,
        "last_result": result_wire(state.last_result),
        "cards_held": cards_held(state),
    })


def visible_cards(state: State, seat: Seat | None) -> frozenset[Card]:
    """Cards face up on the table: every face-up pile and the pool."""
    seen = set(state.pool)
    for pile in state.faceups:
        seen.update(pile)
    return frozenset(seen)


# --- consistency of a client-supplied state (§5) --------------------------------------------------


def check_state(state: State) -> None:
    """Raise InvalidState (with field paths) unless the state is one play could reach."""
    bad = Problems()
    s = state
    n = s.players
    check_seats(GAME, n)
    bad.seat("options.dealer", s.options.dealer, n)
    for name in ("stocks", "faceups", "faceup_seq"):
        if len(getattr(s, name)) != n:
            bad(name, f"must hold {n} entries")
    for name, seat in (("to_move", s.to_move), ("last_flipper", s.last_flipper)):
        if seat is not None and not 0 <= seat < n:
            bad(name, f"must be a seat 0..{n - 1} or null")
    bad.check()
    bad.cards("stocks", [c for x in s.stocks for c in x] + [c for x in s.faceups for c in x] + list(s.pool), PACK, "stocks, face-up piles and pool must hold the 52-card pack")
    seqs = [q for q in (*s.faceup_seq, s.pool_seq) if q is not None]
    for p in range(n):
        if (s.faceup_seq[p] is None) != (not s.faceups[p]):
            bad(f"faceup_seq.{p}", "is null exactly when the face-up pile is empty")
    if (s.pool_seq is None) != (not s.pool):
        bad("pool_seq", "is null exactly when the pool is empty")
    if any(not 1 <= q <= s.flip_count for q in seqs) or len(set(seqs)) != len(seqs):
        bad("faceup_seq", "sequence numbers are distinct flip numbers 1..flip_count")
    if (s.last_flipper is None) != (s.flip_count == 0):
        bad("last_flipper", "is null exactly before the first flip")
    if s.stall < 0 or s.seq < 0 or (s.last_flip_at is not None and s.last_flip_at < 0):
        bad("state", "counters and timestamps are not negative")
    result_problems(bad, s.last_result, RESULT_FIELDS, "flip, snap, tie_to_pool or false_call")
    bad.check()
    nxt = _next_flipper(s)
    if s.phase is Phase.PLAY:
        if s.winners is not None:
            bad("winners", "is null while play goes on")
        if s.to_move != nxt:
            bad("to_move", f"must be {nxt}: the first seat left of the last flipper that can flip")
        if sum(has_cards(s, p) for p in range(n)) <= 1:
            bad("phase", "play ends once at most one seat has cards")
        elif nxt is None and not target_group(s):
            bad("phase", "play ends once nobody can flip and no match shows")
        elif s.options.stall_limit is not None and s.stall >= s.options.stall_limit:
            bad("stall", "play ends once the stall limit is reached")
    else:
        if s.to_move is not None:
            bad("to_move", "must be null once the game is over")
        if not s.winners or any(not 0 <= w < n for w in s.winners) or len(set(s.winners)) != len(s.winners):
            bad("winners", "a finished game names its winning seats")
    bad.check()
