"""Slapjack: turn cards to a centre pile in turn; the first hand on a jack takes the pile.

The contract is ``docs/rules/slapjack.md``; section numbers (§) below refer to it. Pure functions
over an immutable ``State``; decks, seeds and the clients' timestamps arrive as data. The deal,
flips and the judging of competing claims are shared with Snap (``claims.py``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, ClassVar, Final, NamedTuple, cast

from ..cards import Card
from ..cards.shuffle import MAX_SEED, keyed_shuffle, seeded_shuffle
from . import claims
from .base import Event, GameInfo, IllegalMove, Outcome, Seat
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
    from ..typed import SlapjackEngineView
from .kit import status as status  # noqa: PLC0414 (re-exported: the envelope status, from the phase)

JACK: Final = "J"


class Phase(StrEnum):
    """§6: one phase, then the end."""

    PLAY = "play"
    GAME_OVER = "game_over"


class Status(StrEnum):
    """§5 a seat's standing: cards in stock, empty but still in, or eliminated."""

    ACTIVE = "active"
    WAITING = "waiting"
    OUT = "out"


_OUT: Final = Status.OUT  # a module constant for the move path (an enum member lookup is slow in 3.11)


@dataclass(frozen=True, slots=True)
class Options:
    """§3 options, defaults as in the spec."""

    dealer: Seat = option(
        0, type="integer", minimum=0, maximum=7,
        description="Seat of the dealer (0..players-1); the seat to its left flips first.",
    )
    shuffle_won: bool = option(
        True, type="boolean",
        description="After a capture the winner's whole stock is shuffled (§6.6); false: won cards go under it.",
    )
    next_after_capture: str = option(
        "capturer_left", type="string", enum=["capturer_left", "rotation"],
        description="Who flips after a capture: left of the capturer, or left of the jack's player.",
    )
    false_slap_penalty: str = option(
        "give_card", type="string", enum=["give_card", "none"],
        description="A false slapper gives his top card to the player of the top centre card, or nothing.",
    )


OPTION_INFO: Final[Mapping[str, Mapping[str, object]]] = option_info(Options)


class CenterCard(NamedTuple):
    """A card of the centre pile and the seat that put it there."""

    card: Card
    player: Seat


class Penalty(NamedTuple):
    """§6.5 one false slap: who slapped, who would receive the card, whether a card moved."""

    from_: Seat
    to: Seat
    paid: bool


class Result(NamedTuple):
    """§6.1/§6.3/§6.5 ``last_result``: one record for the three kinds (unused members are None)."""

    kind: str  # "flip" | "capture" | "false_slap"
    player: Seat | None = None
    card: Card | None = None
    recycled: bool | None = None
    winner: Seat | None = None
    cards: int | None = None
    order: tuple[Seat, ...] | None = None
    stale: tuple[Seat, ...] | None = None
    out: tuple[Seat, ...] | None = None
    penalties: tuple[Penalty, ...] | None = None


RESULT_FIELDS: Final[Mapping[str, tuple[str, ...]]] = {
    "flip": ("kind", "player", "card", "recycled"),
    "capture": ("kind", "winner", "cards", "order", "stale", "out"),
    "false_slap": ("kind", "order", "stale", "penalties"),
}


def _penalty_wire(p: Penalty) -> dict[str, object]:
    return {"from": p.from_, "to": p.to, "paid": p.paid}


def result_wire(r: Result | None) -> dict[str, object] | None:
    """``last_result`` as §6 shows it: only the members of its kind; penalties as ``from``/``to``/``paid``."""
    return claims.result_wire(r, RESULT_FIELDS, _penalty_wire)


class State(NamedTuple):
    """The whole truth of a Slapjack game (§5), hidden stocks included."""

    options: Options
    players: int
    phase: Phase
    stocks: tuple[tuple[Card, ...], ...]
    status: tuple[Status, ...]
    center: tuple[CenterCard, ...]
    to_move: Seat | None
    last_flip_at: int | None
    shuffle_seed: int
    shuffle_count: int
    winner: Seat | None
    last_result: Result | None
    seq: int = 0
    shuffle_key: str | None = None
    """A sealed match's secret (hex) when it drives the §6.6 shuffles; None: ``shuffle_seed`` does."""


# --- moves (§6) -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Slap(SingleClaim):
    """§6.2 one claim: ``{"type": "slap", "player": p, "at": ms}``."""

    TYPE: ClassVar[str] = "slap"
    BATCH: ClassVar[str] = "slaps"


@dataclass(frozen=True, slots=True)
class Slaps(BatchClaim):
    """§6.2 competing claims judged together."""

    TYPE: ClassVar[str] = "slaps"


Move = Flip | Slap | Slaps
GAME: Final = GameInfo(
    game_id="slapjack", name="Slapjack", rules_version="slapjack/1",
    player_counts=(2, 3, 4, 5, 6, 7, 8), default_players=2,
    move_classes={cls.TYPE: cls for cls in (Flip, Slap, Slaps)},
    parse_order=PARSE_ORDER, early_parse_codes=EARLY_PARSE_CODES,  # the claim games' (claims.py)
    # §4: ``shuffle_seed`` is the creation ``seed``, or a random integer when none is given. Engines
    # draw no randomness, so the service draws it (``new``); without one (``replay`` of a deck, direct
    # engine use) ``new_game`` derives it from the deck, which keeps a replay reproducible.
    #
    # A sealed match passes its match secret instead (``new_game(..., secret=...)``, kept in
    # ``shuffle_key``): shuffle c (0, 1, ...) is then ``keyed_shuffle(stock, secret, "slapjack", c)``, so a
    # verifier who learns the secret at the end recomputes every shuffle. ``shuffle_key`` is never in a
    # view, an event or the open-mode wire form.
    draws_seed=True,
    # ``new_game`` takes the match secret of a sealed match (docs/fair-play.md).
    uses_secret=True,
    # The game's own problem codes (§8), in the table's order; the contract's <Game>ProblemCode.
    codes=("player_out", "bad_timestamp", "timestamp_out_of_order", "no_claims", "duplicate_claim",
           "center_empty", "stale_claim"),
)
GAME_ID, NAME, RULES_VERSION, PLAYER_COUNTS, DEFAULT_PLAYERS, MOVE_TYPES, MOVE_CLASSES = GAME.constants()


# --- setup (§4) -------------------------------------------------------------------------------


def _derived_seed(deck: Sequence[Card]) -> int:
    """A shuffle seed drawn from the (shuffled) deck when the client gave none (§4.5, see wire.md)."""
    digest = hashlib.sha256(("slapjack:seed:" + " ".join(map(str, deck))).encode("ascii")).digest()
    return int.from_bytes(digest[:8], "big") & MAX_SEED


def new_game(options: Options, players: int, deck: Sequence[Card], seed: int | None = None, secret: bytes | None = None) -> State:
    """§4: deal the whole deck from eldest. Raises BadSetup. ``secret`` (a sealed match's, when no
    seed was given) keys the §6.6 shuffles instead of a seed."""
    eldest, stocks = setup(GAME, options.dealer, players, deck)
    return State(
        options=options,
        players=players,
        phase=Phase.PLAY,
        stocks=stocks,
        status=(Status.ACTIVE,) * players,
        center=(),
        to_move=eldest,
        last_flip_at=None,
        shuffle_seed=_derived_seed(deck) if seed is None else seed,
        shuffle_count=0,
        winner=None,
        last_result=None,
        shuffle_key=secret.hex() if secret is not None and seed is None else None,
    )


# --- whose turn, what is legal (§6.7) ---------------------------------------------------------


def _claimants(state: State) -> frozenset[Seat]:
    return frozenset(s for s, st in enumerate(state.status) if st is not Status.OUT)


def legal_moves(state: State) -> list[Move]:
    """§6.7: the flip of ``to_move`` and, with a centre pile, one slap per seat not out (add ``at``)."""
    if state.phase is Phase.GAME_OVER:
        return []
    return list(listed(Slap, state.to_move, state.last_flip_at, _claimants(state), claims_open=bool(state.center)))


# --- checking (§6.1, §6.2 order: claims.ClaimChecks) ----------------------------------------------------------------


def _center_to_slap(state: State) -> None:
    if not state.center:
        raise IllegalMove("center_empty", "There is no centre pile to slap.", GAME.rule("6.2"))


_CLAIMS: Final[ClaimChecks[State]] = ClaimChecks(
    GAME, Phase.GAME_OVER, claim_section="6.2", claim_types=("slap", "slaps"), noun="claim", nobody_flips="nobody may flip: only slaps",
    in_game=lambda state, p: state.status[p] is not _OUT, out_detail="Seat {p} is out of the game.",
    before_stale=_center_to_slap,
)
to_move: Final = _CLAIMS.to_move


# --- transitions ------------------------------------------------------------------------------


def _next(state: State, move: Move, events: list[Event]) -> State:
    """A flip, or a batch of slaps judged against the top card (§6.1, §6.2)."""
    if isinstance(move, Flip):
        new = _flip(state, move, events)
    else:
        verdict = judge(claims_of(move), state.last_flip_at)
        top = state.center[-1]
        if top.card.rank == JACK:
            new = _capture(state, verdict, events)
        else:
            new = _false_slaps(state, verdict, top.player, events)
    return new


# ``_CLAIMS.check`` refuses a move in the rules' order, ``_next`` plays it; the new state counts one more ``seq``.
step: Final = stepper(_CLAIMS.check, _next)
apply: Final = applier(step)


def _with_stock(state: State) -> Callable[[Seat], bool]:
    stocks = state.stocks
    return lambda s: bool(stocks[s])


def _flip(state: State, move: Flip, events: list[Event]) -> State:
    """§6.1 effect."""
    p = move.player
    stocks = list(state.stocks)
    status = list(state.status)
    card, stocks[p] = stocks[p][0], stocks[p][1:]
    center = state.center + (CenterCard(card, p),)
    if not stocks[p]:
        status[p] = Status.WAITING
    nxt = first_seat_after(p, state.players, lambda s: bool(stocks[s]))
    recycled = False
    if nxt is None and card.rank != JACK:  # §6.1 step 4 / §9 #12: nobody can flip and nothing to slap
        stocks[p] = tuple(cc.card for cc in center)
        center = ()
        status[p] = Status.ACTIVE
        nxt = p
        recycled = True
    result = Result("flip", player=p, card=card, recycled=recycled)
    events.append({"type": "flip", "player": p, "card": card, "recycled": recycled, "to_move": nxt})
    return state._replace(
        stocks=tuple(stocks),
        status=tuple(status),
        center=center,
        to_move=nxt,
        last_flip_at=state.last_flip_at if move.at is None else move.at,
        last_result=result,
    )


def _capture(state: State, verdict: Verdict, events: list[Event]) -> State:
    """§6.3: the first valid claim takes the pile; waiting seats that lost it are out."""
    seats = verdict.seats
    w = seats[0]
    n = state.players
    won = tuple(cc.card for cc in state.center)
    stock = state.stocks[w] + won
    shuffle_count = state.shuffle_count
    shuffled = state.options.shuffle_won
    if shuffled:  # §6.6
        if state.shuffle_key is not None:
            stock = keyed_shuffle(stock, bytes.fromhex(state.shuffle_key), GAME_ID, shuffle_count)
        else:
            stock = seeded_shuffle(stock, GAME_ID, state.shuffle_seed, shuffle_count)
        shuffle_count += 1
    stocks = list(state.stocks)
    stocks[w] = stock
    status = list(state.status)
    status[w] = Status.ACTIVE
    out = tuple(s for s in range(n) if s != w and status[s] is Status.WAITING)
    for s in out:
        status[s] = Status.OUT
    start = w if state.options.next_after_capture == "capturer_left" else state.center[-1].player
    nxt = first_seat_after(start, n, lambda s: bool(stocks[s]))
    remaining = sum(st is not Status.OUT for st in status)
    over = remaining == 1
    result = Result("capture", winner=w, cards=len(won), order=seats, stale=verdict.stale, out=out)
    events.append(
        {
            "type": "capture",
            "winner": w,
            "cards": len(won),
            "order": list(seats),
            "slower": list(seats[1:]),
            "stale": list(verdict.stale),
            "out": list(out),
            "shuffled": shuffled,
            "to_move": None if over else nxt,
        }
    )
    if over:
        events.append({"type": "game_over", "winner": [w]})
    return state._replace(
        phase=Phase.GAME_OVER if over else Phase.PLAY,
        stocks=tuple(stocks),
        status=tuple(status),
        center=(),
        to_move=None if over else nxt,
        shuffle_count=shuffle_count,
        winner=w if over else None,
        last_result=result,
    )


def _false_slaps(state: State, verdict: Verdict, r: Seat, events: list[Event]) -> State:
    """§6.5: every valid claim on a non-jack is a false slap, processed in the judged order."""
    stocks = list(state.stocks)
    status = list(state.status)
    give = state.options.false_slap_penalty == "give_card"
    penalties: list[Penalty] = []
    for s in verdict.seats:
        paid = give and s != r and bool(stocks[s])
        if paid:
            card, stocks[s] = stocks[s][0], stocks[s][1:]
            stocks[r] = stocks[r] + (card,)
            if not stocks[s]:
                status[s] = Status.WAITING
            if status[r] is Status.WAITING:
                status[r] = Status.ACTIVE
        penalties.append(Penalty(s, r, paid))
    nxt = state.to_move
    if nxt is not None and not stocks[nxt]:
        nxt = first_seat_after(nxt, state.players, lambda s: bool(stocks[s]))
    result = Result("false_slap", order=verdict.seats, stale=verdict.stale, penalties=tuple(penalties))
    events.append(
        {
            "type": "false_slap",
            "order": list(verdict.seats),
            "stale": list(verdict.stale),
            "penalties": [_penalty_wire(p) for p in penalties],
            "to_move": nxt,
        }
    )
    return state._replace(stocks=tuple(stocks), status=tuple(status), to_move=nxt, last_result=result)


# --- the outside view -------------------------------------------------------------------------


def outcome(state: State) -> Outcome | None:
    """§7: the seat that captured all the cards."""
    if state.phase is not Phase.GAME_OVER or state.winner is None:
        return None
    return Outcome(frozenset((state.winner,)), "all_cards")


def cards_held(state: State) -> list[int]:
    """§5 score: stock sizes."""
    return [len(s) for s in state.stocks]


def derived(state: State) -> dict[str, object]:
    """Derived values added to a full state (ignored on input)."""
    return {"cards_held": cards_held(state)}


def scores(state: State, seat: Seat | None = None) -> dict[str, object]:
    """§7: ``totals`` = cards held per seat."""
    return {"totals": cards_held(state), "cards_held": cards_held(state)}


def view(state: State, seat: Seat | None) -> SlapjackEngineView:
    """§5: every seat sees the same: counts, the top centre card, no face-down card."""
    return cast("SlapjackEngineView", {
        **view_head(GAME, state, seat),
        "players": state.players,
        "options": state.options,
        "phase": state.phase,
        "stock_counts": [len(s) for s in state.stocks],
        "status": state.status,
        "center_top": state.center[-1] if state.center else None,
        "center_count": len(state.center),
        "to_move": state.to_move,
        "last_flip_at": state.last_flip_at,
        "shuffle_count": state.shuffle_count,
        "winner": state.winner,
        "last_result": result_wire(state.last_result),
        "cards_held": cards_held(state),
    })


def visible_cards(state: State, seat: Seat | None) -> frozenset[Card]:
    """Cards anyone has seen face up: the centre pile and the card just flipped (even if recycled)."""
    seen = {cc.card for cc in state.center}
    if state.last_result is not None and state.last_result.card is not None:
        seen.add(state.last_result.card)
    return frozenset(seen)


# --- consistency of a client-supplied state (§5 invariants) --------------------------------------


def check_state(state: State) -> None:
    """Raise InvalidState (with field paths) unless the state satisfies §5's invariants."""
    bad = Problems()
    s = state
    n = s.players
    check_seats(GAME, n)
    bad.seat("options.dealer", s.options.dealer, n)
    if len(s.stocks) != n:
        bad("stocks", f"must hold {n} stocks")
    if len(s.status) != n:
        bad("status", f"must hold {n} statuses")
    bad.check()
    for i, cc in enumerate(s.center):
        bad.seat(f"center.{i}.player", cc.player, n)
    bad.cards("stocks", [c for stock in s.stocks for c in stock] + [cc.card for cc in s.center], PACK, "stocks and centre must hold the 52-card pack")
    for p in range(n):
        if s.stocks[p] and s.status[p] is not Status.ACTIVE:
            bad(f"status.{p}", "a seat with stock cards is active")
        if not s.stocks[p] and s.status[p] is Status.ACTIVE:
            bad(f"status.{p}", "a seat with an empty stock is waiting or out")
    in_game = sum(st is not Status.OUT for st in s.status)
    if s.to_move is not None and not 0 <= s.to_move < n:
        bad("to_move", f"must be a seat 0..{n - 1} or null")
    if s.winner is not None and not 0 <= s.winner < n:
        bad("winner", f"must be a seat 0..{n - 1} or null")
    if s.shuffle_count < 0 or s.shuffle_seed < 0 or s.seq < 0 or (s.last_flip_at is not None and s.last_flip_at < 0):
        bad("state", "counters, seeds and timestamps are not negative")
    bad.check()
    if s.phase is Phase.PLAY:
        if in_game < 2:
            bad("status", "in play at least two seats are not out")
        if s.winner is not None:
            bad("winner", "is null while play goes on")
        if s.to_move is None:
            if any(s.stocks) or not s.center or s.center[-1].card.rank != JACK:
                bad("to_move", "is null only when no seat has a stock card and a jack is on top")
        elif not s.stocks[s.to_move]:
            bad("to_move", "must be a seat with stock cards")
    else:
        if s.to_move is not None:
            bad("to_move", "must be null once the game is over")
        if s.winner is None or in_game != 1 or s.status[s.winner] is Status.OUT:
            bad("winner", "the game is over when exactly one seat, the winner, is not out")
    result_problems(bad, s.last_result, RESULT_FIELDS, "flip, capture or false_slap")
    bad.check()
