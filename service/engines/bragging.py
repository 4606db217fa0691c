"""Bragging: the Russian four-card brag game at the start of seed 002 (2 to 8 players).

The contract is ``docs/rules/bragging.md``; section numbers (§) below refer to it. There is no
trick play: seats stake antes, blinds and over-blinds, receive two cards down and two up (blind
stakers and the dealer all four down), bet one round and compare hands. The referee keeps the
accounts: ``sum(balances) + pot + carry`` is 0 in every state (``money``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, ClassVar, Final, NamedTuple, assert_never, cast

from ..cards import Card
from ..cards.packs import full_52, pack_of
from .base import BadMove, BadSetup, Event, GameInfo, IllegalMove, InvalidState, Outcome, Seat, quick_replace
from .kit import Problems, applier, check_dealt, check_players, option, option_info, refuse_early, stepper, view_head
from .kit import players as players  # noqa: PLC0414 (re-exported: state.players)
from .kit import status as status  # noqa: PLC0414 (re-exported: the envelope status, from the phase)

if TYPE_CHECKING:
    from ..typed import BraggingEngineView
from .moves import NextDeal

# §2: packs, rank values, card points.
PACKS: Final = {52: full_52(), 36: pack_of(("6", "7", "8", "9", "10", "J", "Q", "K", "A"))}
RANK_VALUE: Final = {r: i for i, r in enumerate(("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"), 2)}
CARD_POINTS: Final = {r: (11 if r == "A" else min(10, v)) for r, v in RANK_VALUE.items()}
HAND_SIZE: Final = 4
MAX_STAKE: Final = 10**9
HOUSE_LIMIT: Final = 10**15  # §7.5: a balance or carry beyond it ends the game (amounts stay exact in JSON)
"""Largest blind amount or raise total a move may name (an implementation bound: JSON-safe sums)."""


class Phase(StrEnum):
    """§5 phases."""

    BLIND = "blind"
    EXPOSE = "expose"
    DEALER_EXPOSE = "dealer_expose"
    BETTING = "betting"
    DEAL_OVER = "deal_over"
    GAME_OVER = "game_over"


(
    _PHASE_BLIND, _PHASE_EXPOSE, _PHASE_DEALER_EXPOSE, _PHASE_BETTING, _PHASE_DEAL_OVER, _PHASE_GAME_OVER,
) = Phase  # the members, in order, as module constants (kit: the move path)


class ResultKind(StrEnum):
    """§7 how a hand ended."""

    SHOWDOWN = "showdown"
    UNCONTESTED = "uncontested"
    TIE_CARRIED = "tie_carried"


@dataclass(frozen=True, slots=True)
class Options:
    """§3 options, defaults as in the spec."""

    dealer: Seat = option(0, type="integer", minimum=0, maximum=7, description="Dealer of the first hand (a seat of the game).")
    pack: int = option(
        52, type="integer", enum=[36, 52],
        description="Pack used: 52 cards, or 36 (ranks 6 to A); no other value.",
    )
    ante: int = option(
        1, type="integer", minimum=0, maximum=1_000_000,
        description="The first stake every seat pays into the pot at the start of each hand.",
    )
    min_raise: int = option(
        1, type="integer", minimum=1, maximum=1_000_000,
        description="Smallest raise increment in the betting round.",
    )
    hand_ranking: str = option(
        "suit_points", type="string", enum=["suit_points", "poker4"],
        description="How hands compare at the showdown: suit points (three and four of a kind above) or Four Card Poker.",
    )
    tie_rule: str = option(
        "split", type="string", enum=["split", "carry"],
        description="Equal best hands share the pot, or the pot is carried to the next hand.",
    )
    hands: int | None = option(
        None, type="integer", nullable=True, minimum=1, maximum=1_000_000,
        description="null: open-ended; N: the game ends after hand N.",
    )


OPTION_INFO: Final[Mapping[str, Mapping[str, object]]] = option_info(Options)
HAND_RANKINGS: Final = ("suit_points", "poker4")
TIE_RULES: Final = ("split", "carry")


class Result(NamedTuple):
    """§7 ``last_result``: per-seat entries as (seat, value) pairs in seat order (objects on the wire)."""

    kind: ResultKind
    winners: tuple[Seat, ...]
    pot: int
    shares: tuple[tuple[Seat, int], ...]
    values: tuple[tuple[Seat, tuple[int, ...]], ...]
    hands: tuple[tuple[Seat, tuple[Card, ...]], ...]


@quick_replace
class State(NamedTuple):
    """The whole truth of a Bragging game (§5), hidden parts included."""

    options: Options
    players: int
    hand_number: int
    dealer: Seat
    phase: Phase
    to_move: Seat | None
    blinds: tuple[int, ...]
    hidden: tuple[tuple[Card, ...], ...]
    up: tuple[tuple[Card, ...], ...]
    exposed_count: tuple[int | None, ...]
    deck: tuple[Card, ...]
    dead: tuple[Card, ...]
    folded: tuple[bool, ...]
    contrib: tuple[int, ...]
    current_bet: int
    pending: tuple[Seat, ...]
    pot: int
    carry: int
    balances: tuple[int, ...]
    last_result: Result | None
    seq: int = 0
    seed: int | None = None

    @property
    def deal_number(self) -> int:
        """The hand number under the name the HTTP layer's seeded shuffle reads (deal k uses seed + k - 1)."""
        return self.hand_number


# --- moves (§6) -------------------------------------------------------------------------------


def _fills_range(template: Blind | Raise, move: object, value: int | None, least: int | None, name: str) -> bool:
    """Whether ``move`` fills an amount-range template (``value`` unset, its minimum ``least`` set):
    a move of the same type and seat whose ``name`` is from ``least`` up to ``MAX_STAKE``. A
    concrete move (``value`` set) is filled only by itself."""
    if value is not None:
        return move == template
    if type(move) is not type(template) or move.player != template.player or least is None:
        return False
    got = getattr(move, name)
    return got is not None and least <= got <= MAX_STAKE


@dataclass(frozen=True, slots=True)
class Blind:
    """§6.1 stake ``amount`` before the deal (blind, or over-blind).

    Listed as a template ``{"type": "blind", "player": p, "min_amount": m}``: any ``amount`` from
    ``m`` up to ``MAX_STAKE`` fills it. ``min_amount`` is not part of a concrete move.
    """

    TYPE: ClassVar[str] = "blind"
    player: Seat
    amount: int | None = None
    min_amount: int | None = field(default=None, compare=False)

    def filled_by(self, move: object) -> bool:
        return _fills_range(self, move, self.amount, self.min_amount, "amount")


@dataclass(frozen=True, slots=True)
class NoBlind:
    """§6.1 decline to stake blind."""

    TYPE: ClassVar[str] = "no_blind"
    player: Seat


@dataclass(frozen=True, slots=True)
class Expose:
    """§6.2 / §6.3 turn up ``cards`` (0–2 in the exposure phase, exactly 2 for the dealer).

    The order of ``cards`` does not matter: a listed exposure is filled by the same cards in any order.
    """

    TYPE: ClassVar[str] = "expose"
    player: Seat
    cards: tuple[Card, ...]

    def filled_by(self, move: object) -> bool:
        return (
            isinstance(move, Expose)
            and move.player == self.player
            and len(move.cards) == len(self.cards)
            and set(move.cards) == set(self.cards)
        )


@dataclass(frozen=True, slots=True)
class Fold:
    """§6.4 pass: out of the hand."""

    TYPE: ClassVar[str] = "fold"
    player: Seat


@dataclass(frozen=True, slots=True)
class Check:
    """§6.4 stay in without paying (only when not facing a bet)."""

    TYPE: ClassVar[str] = "check"
    player: Seat


@dataclass(frozen=True, slots=True)
class Call:
    """§6.4 match the current bet. Listed with ``amount`` (what the call costs); a concrete call may
    leave ``amount`` out, or name exactly that amount."""

    TYPE: ClassVar[str] = "call"
    player: Seat
    amount: int | None = None

    def filled_by(self, move: object) -> bool:
        return (
            isinstance(move, Call)
            and move.player == self.player
            and (move.amount is None or move.amount == self.amount)
        )


@dataclass(frozen=True, slots=True)
class Raise:
    """§6.4 raise the bet to a new total ``to``.

    Listed as a template ``{"type": "raise", "player": p, "min_to": m}``: any ``to`` from ``m`` up
    to ``MAX_STAKE`` fills it. ``min_to`` is not part of a concrete move.
    """

    TYPE: ClassVar[str] = "raise"
    player: Seat
    to: int | None = None
    min_to: int | None = field(default=None, compare=False)

    def filled_by(self, move: object) -> bool:
        return _fills_range(self, move, self.to, self.min_to, "to")


Move = Blind | NoBlind | Expose | Fold | Check | Call | Raise | NextDeal
GAME: Final = GameInfo(
    game_id="bragging", name="Bragging (Russian four-card brag)", rules_version="bragging/1",
    player_counts=(2, 3, 4, 5, 6, 7, 8), default_players=4,
    move_classes={cls.TYPE: cls for cls in (Blind, NoBlind, Expose, Fold, Check, Call, Raise, NextDeal)},
    # Parse problems reported right after game_over (§6 check 2; invalid_move as docs/rules/conventions.md places it).
    parse_order=("unknown_move_type", "invalid_player", "invalid_move", "invalid_amount", "invalid_card", "invalid_deck"),
    early_parse_codes=frozenset({"unknown_move_type", "invalid_player", "invalid_move"}),
    # The game's own problem codes (§8), in the table's order; the contract's <Game>ProblemCode.
    codes=("invalid_amount", "blind_too_small", "wrong_number_of_cards", "cannot_check", "nothing_to_call",
           "raise_too_small"),
)
GAME_ID, NAME, RULES_VERSION, PLAYER_COUNTS, DEFAULT_PLAYERS, MOVE_TYPES, MOVE_CLASSES = GAME.constants()

_SEATS: Final = range(max(PLAYER_COUNTS))
_NO_BLIND: Final = tuple(NoBlind(p) for p in _SEATS)
_FOLD: Final = tuple(Fold(p) for p in _SEATS)
_CHECK: Final = tuple(Check(p) for p in _SEATS)
_NEXT_DEAL: Final = {(size, p): NextDeal(p, pack=pack) for size, pack in PACKS.items() for p in _SEATS}

_PHASE_MOVES: Final = {
    _PHASE_BLIND: frozenset({"blind", "no_blind"}),
    _PHASE_EXPOSE: frozenset({"expose"}),
    _PHASE_DEALER_EXPOSE: frozenset({"expose"}),
    _PHASE_BETTING: frozenset({"fold", "check", "call", "raise"}),
    _PHASE_DEAL_OVER: frozenset({"next_deal"}),
    _PHASE_GAME_OVER: frozenset(),
}


# --- seats and order (§4) --------------------------------------------------------------------


def eldest(state: State) -> Seat:
    """The seat on the dealer's left."""
    return (state.dealer + 1) % state.players


def order(players: int, dealer: Seat) -> tuple[Seat, ...]:
    """§4 ``order``: every seat clockwise from the eldest, dealer last."""
    return tuple((dealer + 1 + i) % players for i in range(players))


def _exposers(players: int, dealer: Seat, blinds: Sequence[int]) -> tuple[Seat, ...]:
    """§6.2 eligible seats, in order: neither the dealer nor a blind staker."""
    return tuple(p for p in order(players, dealer) if p != dealer and not blinds[p])


# --- hand values (§7.2) ----------------------------------------------------------------------


def hand_value(cards: Sequence[Card], ranking: str) -> tuple[int, ...]:
    """§7.2 the value of a four-card hand, ``(category, tie-breaks...)``; higher compares higher."""
    ranks = sorted((RANK_VALUE[c.rank] for c in cards), reverse=True)
    counts = Counter(ranks)
    if ranking == "suit_points":
        rank, n = max(counts.items(), key=lambda rc: (rc[1], rc[0]))
        if n == 4:
            return (3, rank)
        if n == 3:
            return (2, rank)
        totals: dict[str, int] = {}
        for c in cards:
            totals[c.suit] = totals.get(c.suit, 0) + CARD_POINTS[c.rank]
        return (1, max(totals.values()))
    # poker4
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    flush = len({c.suit for c in cards}) == 1
    top = _straight_top(ranks)
    if groups[0][1] == 4:
        return (8, groups[0][0])
    if flush and top:
        return (7, top)
    if groups[0][1] == 3:
        return (6, groups[0][0], groups[1][0])
    if flush:
        return (5, *ranks)
    if top:
        return (4, top)
    if groups[0][1] == 2 and groups[1][1] == 2:
        return (3, groups[0][0], groups[1][0])
    if groups[0][1] == 2:
        return (2, groups[0][0], *(r for r, _ in groups[1:]))
    return (1, *ranks)


def _straight_top(ranks: Sequence[int]) -> int:
    """Top rank of a four-card straight (A-2-3-4 counts 4), else 0. ``ranks`` sorted descending."""
    if len(set(ranks)) != 4:
        return 0
    if ranks[0] - ranks[3] == 3:
        return ranks[0]
    if tuple(ranks) == (14, 4, 3, 2):
        return 4
    return 0


# --- setup (§4) -------------------------------------------------------------------------------


def pack(options: Options, players: int = DEFAULT_PLAYERS) -> tuple[Card, ...]:
    """The pack of the ``pack`` option (§2), in canonical order."""
    return PACKS.get(options.pack, PACKS[52])


def _check_options(options: Options, players: int) -> None:
    check_players(GAME, players, called="Bragging")
    problems = []
    if not 0 <= options.dealer < players:
        problems.append(f"option dealer: must be a seat 0..{players - 1}")
    if options.pack not in PACKS:
        problems.append("option pack: must be 52 or 36")
    if options.ante < 0:
        problems.append("option ante: must not be negative")
    if options.min_raise < 1:
        problems.append("option min_raise: must be at least 1")
    if options.hand_ranking not in HAND_RANKINGS:
        problems.append("option hand_ranking: must be suit_points or poker4")
    if options.tie_rule not in TIE_RULES:
        problems.append("option tie_rule: must be split or carry")
    if options.hands is not None and options.hands < 1:
        problems.append("option hands: must be null or a positive integer")
    if problems:
        raise BadSetup("invalid_option", problems[0], GAME.rule("3"))


def _check_deck(deck: Sequence[Card], options: Options, code_cls: type[BadSetup | IllegalMove]) -> None:
    check_dealt(GAME, deck, pack(options), "4", code_cls)


def _start_hand(
    options: Options,
    players: int,
    deck: Sequence[Card],
    dealer: Seat,
    hand_number: int,
    balances: Sequence[int],
    carry: int,
    seq: int,
    seed: int | None,
) -> State:
    """§4 step 1 (ante) and the start of the blind phase."""
    ante = options.ante
    return State(
        options=options,
        players=players,
        hand_number=hand_number,
        dealer=dealer,
        phase=_PHASE_BLIND,
        to_move=(dealer + 1) % players,
        blinds=(0,) * players,
        hidden=((),) * players,
        up=((),) * players,
        exposed_count=(None,) * players,
        deck=tuple(deck),
        dead=(),
        folded=(False,) * players,
        contrib=(0,) * players,
        current_bet=0,
        pending=(),
        pot=carry + ante * players,
        carry=0,
        balances=tuple(b - ante for b in balances),
        last_result=None,
        seq=seq,
        seed=seed,
    )


def new_game(options: Options, players: int, deck: Sequence[Card], seed: int | None = None) -> State:
    """The first hand, from ``deck`` (top card first), antes paid. Raises BadSetup."""
    _check_options(options, players)
    _check_deck(deck, options, BadSetup)
    return _start_hand(options, players, deck, options.dealer, 1, (0,) * players, 0, 0, seed)


def _hand_started(state: State) -> Event:
    return {
        "type": "hand_started",
        "hand_number": state.hand_number,
        "dealer": state.dealer,
        "ante": state.options.ante,
        "pot": state.pot,
    }


def initial_events(state: State) -> list[Event]:
    """The events a new game starts with: the first hand and its antes."""
    return [_hand_started(state)]


def money(state: State) -> int:
    """The money in the game: balances + pot + carry. Constant (0) in every state (§2)."""
    return sum(state.balances) + state.pot + state.carry


# --- whose turn, what is legal (§6) ----------------------------------------------------------


def _next_dealer(state: State) -> Seat:
    return (state.dealer + 1) % state.players


def to_move(state: State) -> frozenset[Seat]:
    """The seat to act (the next dealer in ``deal_over``); empty once the game is over."""
    if state.phase is _PHASE_DEAL_OVER:
        return frozenset((_next_dealer(state),))
    return frozenset() if state.to_move is None else frozenset((state.to_move,))


def legal_moves(state: State) -> list[Move]:
    """Every legal move of the seat to act, in §6.4's listing order."""
    phase = state.phase
    p = state.to_move
    if phase is _PHASE_DEAL_OVER:
        return [_NEXT_DEAL[len(pack(state.options)), _next_dealer(state)]]
    if p is None:
        return []
    if phase is _PHASE_BLIND:
        least = max(state.blinds) + 1
        return [_NO_BLIND[p], Blind(p, min_amount=least)] if least <= MAX_STAKE else [_NO_BLIND[p]]
    if phase is _PHASE_EXPOSE:
        a, b = state.hidden[p]
        return [Expose(p, ()), Expose(p, (a,)), Expose(p, (b,)), Expose(p, (a, b))]
    if phase is _PHASE_DEALER_EXPOSE:
        h = state.hidden[p]
        return [Expose(p, (h[i], h[j])) for i in range(len(h)) for j in range(i + 1, len(h))]
    # betting
    out: list[Move] = [_FOLD[p]]
    due = state.current_bet - state.contrib[p]
    out.append(_CHECK[p] if due <= 0 else Call(p, due))
    min_to = state.current_bet + state.options.min_raise
    if min_to <= MAX_STAKE:
        out.append(Raise(p, min_to=min_to))
    return out


# --- checking (§6, §8 order) -----------------------------------------------------------------


def _check(state: State, move: Move | BadMove) -> None:
    """Raise IllegalMove with the first §6/§8 code that applies; return if the move is legal."""
    phase = state.phase
    if phase is _PHASE_GAME_OVER:
        raise IllegalMove("game_over", "The game is over; no move is accepted.", GAME.rule("7.5"))
    if isinstance(move, BadMove):  # the parse problems the rules put first (GAME.early_parse_codes)
        refuse_early(GAME, move)
    move_type = move.type if isinstance(move, BadMove) else move.TYPE
    if move_type not in _PHASE_MOVES[phase]:
        raise IllegalMove("wrong_phase", f"{move_type} is not allowed in the {phase.value} phase.", GAME.rule("6"))
    mover = _next_dealer(state) if phase is _PHASE_DEAL_OVER else state.to_move
    if move.player != mover:
        raise IllegalMove("not_your_turn", f"It is seat {mover}'s turn, not seat {move.player}'s.", GAME.rule("6"))
    match move:
        case BadMove():
            raise IllegalMove(move.code, move.detail, GAME.rule("8"))
        case Blind():
            _check_amount(move.amount, "amount")
            highest = max(state.blinds)
            if move.amount <= highest:  # type: ignore[operator]
                raise IllegalMove(
                    "blind_too_small", f"A blind must exceed the highest blind so far ({highest}).", GAME.rule("6.1")
                )
        case NoBlind() | Fold():
            return
        case Expose():
            _check_expose(state, move)
        case Check():
            if state.contrib[move.player] != state.current_bet:
                due = state.current_bet - state.contrib[move.player]
                raise IllegalMove("cannot_check", f"Seat {move.player} faces a bet: call {due}, raise or fold.", GAME.rule("6.4"))
        case Call():
            if move.amount is not None and move.amount < 1:
                raise IllegalMove("invalid_amount", "amount must be a positive integer.", GAME.rule("6.4"))
            due = state.current_bet - state.contrib[move.player]
            if due <= 0:
                raise IllegalMove("nothing_to_call", "There is no bet to match; check, raise or fold.", GAME.rule("6.4"))
            if move.amount is not None and move.amount != due:
                raise IllegalMove("invalid_amount", f"The call costs {due}, not {move.amount}.", GAME.rule("6.4"))
        case Raise():
            _check_amount(move.to, "to")
            least = state.current_bet + state.options.min_raise
            if move.to < least:  # type: ignore[operator]
                raise IllegalMove("raise_too_small", f"A raise must bring the bet to at least {least}.", GAME.rule("6.4"))
        case NextDeal():
            if move.deck is not None:
                _check_deck(move.deck, state.options, IllegalMove)
        case _:
            assert_never(move)


def _check_amount(value: int | None, name: str) -> None:
    if value is None or value < 1 or value > MAX_STAKE:
        raise IllegalMove("invalid_amount", f"{name} must be a positive integer (at most {MAX_STAKE}).", GAME.rule("8"))


def _check_expose(state: State, move: Expose) -> None:
    cards = move.cards
    the_pack = pack(state.options)
    for c in cards:
        if c not in the_pack:
            raise IllegalMove("invalid_card", f"{c} is not a card of the {len(the_pack)}-card pack.", GAME.rule("2"))
    if len(set(cards)) != len(cards):
        raise IllegalMove("duplicate_card", "A card is listed twice.", GAME.rule("6.2"))
    if state.phase is _PHASE_DEALER_EXPOSE:
        if len(cards) != 2:
            raise IllegalMove("wrong_number_of_cards", "The dealer turns up exactly two cards.", GAME.rule("6.3"))
    elif len(cards) > 2:
        raise IllegalMove("wrong_number_of_cards", "At most two cards may be turned up.", GAME.rule("6.2"))
    hidden = state.hidden[move.player]
    for c in cards:
        if c not in hidden:
            raise IllegalMove("card_not_in_hand", f"{c} is not one of seat {move.player}'s hidden cards.", GAME.rule("6.2"))


# --- applying --------------------------------------------------------------------------------


def _set(values: tuple, seat: Seat, value: object) -> tuple:  # type: ignore[type-arg]
    return values[:seat] + (value,) + values[seat + 1 :]


def _next(state: State, move: Move, events: list[Event]) -> State:
    p = move.player
    match move:
        case Blind():
            amount = move.amount
            assert amount is not None
            events.append({"type": "blind", "player": p, "amount": amount})
            state = state._replace(
                blinds=_set(state.blinds, p, amount),
                balances=_set(state.balances, p, state.balances[p] - amount),
                pot=state.pot + amount,
            )
            if p == state.dealer:
                return _end_blind_phase(state, events)
            return state._replace(to_move=(p + 1) % state.players)
        case NoBlind():
            events.append({"type": "no_blind", "player": p})
            if p == state.dealer or p == eldest(state):  # §6.1: the eldest's no_blind ends the phase
                return _end_blind_phase(state, events)
            return state._replace(to_move=(p + 1) % state.players)
        case Expose():
            return _expose(state, move, events)
        case Fold():
            events.append({"type": "fold", "player": p})
            state = state._replace(folded=_set(state.folded, p, True), pending=tuple(s for s in state.pending if s != p))
            return _after_bet(state, p, events)
        case Check():
            events.append({"type": "check", "player": p})
            return _after_bet(state._replace(pending=tuple(s for s in state.pending if s != p)), p, events)
        case Call():
            due = state.current_bet - state.contrib[p]
            events.append({"type": "call", "player": p, "amount": due})
            state = _pay(state, p, due)._replace(pending=tuple(s for s in state.pending if s != p))
            return _after_bet(state, p, events)
        case Raise():
            to = move.to
            assert to is not None
            paid = to - state.contrib[p]
            events.append({"type": "raise", "player": p, "to": to, "amount": paid})
            pending = tuple(s for s in range(state.players) if s != p and not state.folded[s])
            return _after_bet(_pay(state, p, paid)._replace(current_bet=to, pending=pending), p, events)
        case NextDeal():
            deck = move.deck
            assert deck is not None
            new = _start_hand(
                state.options, state.players, deck, p, state.hand_number + 1,
                state.balances, state.carry, state.seq, state.seed,
            )
            events.append(_hand_started(new))
            return new
        case _:
            assert_never(move)


# ``_check`` refuses a move in the rules' order, ``_next`` plays it; the new state counts one more ``seq``.
step: Final = stepper(_check, _next)
apply: Final = applier(step)


def _pay(state: State, p: Seat, amount: int) -> State:
    return state._replace(
        contrib=_set(state.contrib, p, state.contrib[p] + amount),
        balances=_set(state.balances, p, state.balances[p] - amount),
        pot=state.pot + amount,
    )


def _end_blind_phase(state: State, events: list[Event]) -> State:
    """§4 step 3: the first two rounds, all face down; then the exposure phase (or what follows it)."""
    n = state.players
    seats = order(n, state.dealer)
    deck = state.deck
    hidden = list(state.hidden)
    for i, seat in enumerate(seats):
        hidden[seat] = (deck[i], deck[n + i])
        events.append({"type": "cards_dealt", "player": seat, "face_down": hidden[seat], "face_up": (),
                       "private_to": seat, "private": ("face_down",)})
    state = state._replace(hidden=tuple(hidden), deck=deck[2 * n :])
    exposers = _exposers(n, state.dealer, state.blinds)
    if exposers:
        return state._replace(phase=_PHASE_EXPOSE, to_move=exposers[0])
    return _deal_last_rounds(state, events)


def _expose(state: State, move: Expose, events: list[Event]) -> State:
    p = move.player
    chosen = set(move.cards)
    hidden = state.hidden[p]
    shown = tuple(c for c in hidden if c in chosen)  # hidden order, whatever order the move names
    events.append({"type": "expose", "player": p, "cards": shown})
    state = state._replace(
        hidden=_set(state.hidden, p, tuple(c for c in hidden if c not in chosen)),
        up=_set(state.up, p, state.up[p] + shown),
    )
    if state.phase is _PHASE_DEALER_EXPOSE:
        return _start_betting(state, events)
    state = state._replace(exposed_count=_set(state.exposed_count, p, len(shown)))
    exposers = _exposers(state.players, state.dealer, state.blinds)
    i = exposers.index(p)
    if i + 1 < len(exposers):
        return state._replace(to_move=exposers[i + 1])
    return _deal_last_rounds(state, events)


def _deal_last_rounds(state: State, events: list[Event]) -> State:
    """§4 steps 5–7: rounds 3 and 4 (up or down by the table), dead cards, the dealer's exposure."""
    n = state.players
    deck = state.deck
    hidden, up = list(state.hidden), list(state.up)
    for i, seat in enumerate(order(n, state.dealer)):
        third, fourth = deck[i], deck[n + i]
        count = state.exposed_count[seat]
        downs: tuple[Card, ...]
        ups: tuple[Card, ...]
        if count is None:  # the dealer or a blind staker: both down
            downs, ups = (third, fourth), ()
        elif count == 0:
            downs, ups = (), (third, fourth)
        elif count == 1:  # §9.9: the round-3 card up, the round-4 card down
            downs, ups = (fourth,), (third,)
        else:
            downs, ups = (third, fourth), ()
        hidden[seat] = hidden[seat] + downs
        up[seat] = up[seat] + ups
        events.append({"type": "cards_dealt", "player": seat, "face_down": downs, "face_up": ups,
                       "private_to": seat, "private": ("face_down",)})
    state = state._replace(hidden=tuple(hidden), up=tuple(up), deck=(), dead=deck[2 * n :])
    if state.blinds[state.dealer]:  # §6.3: a blind dealer keeps all four down
        return _start_betting(state, events)
    return state._replace(phase=_PHASE_DEALER_EXPOSE, to_move=state.dealer)


def _start_betting(state: State, events: list[Event]) -> State:
    """§6.4 start: contrib = blinds; first to act after the highest blind staker, else the eldest."""
    n = state.players
    current = max(state.blinds)
    if current:
        first = (state.blinds.index(current) + 1) % n
    else:
        first = eldest(state)
    return state._replace(
        phase=_PHASE_BETTING,
        to_move=first,
        contrib=state.blinds,
        current_bet=current,
        pending=tuple(range(n)),
    )


def _after_bet(state: State, p: Seat, events: list[Event]) -> State:
    """§6.4 after each move: uncontested win, showdown, or the next pending seat clockwise."""
    n = state.players
    active = [s for s in range(n) if not state.folded[s]]
    if len(active) == 1:
        w = active[0]
        pot = state.pot
        result = Result(ResultKind.UNCONTESTED, (w,), pot, ((w, pot),), (), ())
        state = state._replace(balances=_set(state.balances, w, state.balances[w] + pot), pot=0)
        return _end_hand(state, result, events)
    if not state.pending:
        return _showdown(state, active, events)
    pending = set(state.pending)
    for k in range(1, n + 1):
        s = (p + k) % n
        if s in pending:
            return state._replace(to_move=s)
    raise AssertionError("unreachable: pending seats exist")  # pragma: no cover


def _showdown(state: State, active: list[Seat], events: list[Event]) -> State:
    """§7.1–7.3 compare the active hands; pay the best, split a tie or carry it."""
    ranking = state.options.hand_ranking
    hands = {s: _full_hand(state, s) for s in active}
    values = {s: hand_value(hands[s], ranking) for s in active}
    best = max(values.values())
    tied = [s for s in order(state.players, state.dealer) if s in values and values[s] == best]
    pot = state.pot
    balances = list(state.balances)
    shares: list[tuple[Seat, int]] = []
    carry = 0
    if len(tied) > 1 and state.options.tie_rule == "carry":
        kind, carry = ResultKind.TIE_CARRIED, pot
    else:
        kind = ResultKind.SHOWDOWN
        each, rest = divmod(pot, len(tied))
        for i, s in enumerate(tied):  # remainder one each from the eldest (§7.3)
            share = each + (1 if i < rest else 0)
            balances[s] += share
            shares.append((s, share))
    result = Result(
        kind,
        tuple(sorted(tied)),
        pot,
        tuple(sorted(shares)),
        tuple((s, values[s]) for s in active),
        tuple((s, hands[s]) for s in active),
    )
    state = state._replace(balances=tuple(balances), pot=0, carry=carry)
    return _end_hand(state, result, events)


def _full_hand(state: State, seat: Seat) -> tuple[Card, ...]:
    return state.hidden[seat] + state.up[seat]


def _end_hand(state: State, result: Result, events: list[Event]) -> State:
    """§7.4/§7.5: deal_over, or game_over after hand N."""
    events.append({"type": "hand_over", **_result_wire(result)})
    over = _hand_limit_met(state) or past_house_limit(state)
    state = state._replace(
        phase=_PHASE_GAME_OVER if over else _PHASE_DEAL_OVER, to_move=None, pending=(), last_result=result
    )
    if over:
        outcome_ = outcome(state)
        assert outcome_ is not None
        events.append({"type": "game_over", "winner": sorted(outcome_.winners)})
    return state


def _hand_limit_met(state: State) -> bool:
    """§7.5: hand N of the ``hands`` option is over."""
    return state.options.hands is not None and state.hand_number >= state.options.hands


def past_house_limit(state: State) -> bool:
    """§7.5 house limit: a balance or the carry has gone beyond ±HOUSE_LIMIT, so the game ends.

    One hand moves at most a few times ``MAX_STAKE`` per seat, so from any position within the limit
    every amount stays within ±(2^53 − 1), where every JSON client reads it exactly.
    """
    return state.carry > HOUSE_LIMIT or any(abs(b) > HOUSE_LIMIT for b in state.balances)


def _result_wire(result: Result) -> dict[str, object]:
    """``last_result`` as §7.1 writes it: per-seat entries as objects keyed by seat."""
    return {
        "kind": result.kind,
        "winners": result.winners,
        "pot": result.pot,
        "shares": {str(s): v for s, v in result.shares},
        "values": {str(s): v for s, v in result.values},
        "hands": {str(s): v for s, v in result.hands},
    }


# --- the outside view ------------------------------------------------------------------------


def outcome(state: State) -> Outcome | None:
    """Once hand N has ended: the seats with the highest balance (docs/rules/conventions.md)."""
    if state.phase is not _PHASE_GAME_OVER:
        return None
    top = max(state.balances)
    return Outcome(frozenset(s for s, b in enumerate(state.balances) if b == top), "hands_played" if _hand_limit_met(state) else "house_limit")


def derived(state: State) -> dict[str, object]:
    """Derived values responses add to a full state; ignored on input."""
    return {"eldest": eldest(state), "order": order(state.players, state.dealer)}


def scores(state: State, seat: Seat | None = None) -> dict[str, object]:
    """``totals`` = balances; the pot, the carried amount and this hand's bets."""
    return {"totals": list(state.balances), "pot": state.pot, "carry": state.carry, "contrib": list(state.contrib)}


def view(state: State, seat: Seat | None) -> BraggingEngineView:
    """§5 what ``seat`` may see (``None``: the public view): face-down cards only the owner's."""
    out: dict[str, object] = {
        **view_head(GAME, state, seat),
        "options": state.options,
        "players": state.players,
        "hand_number": state.hand_number,
        "dealer": state.dealer,
        "phase": state.phase,
        "to_move": state.to_move,
        "blinds": state.blinds,
        "hidden_counts": [len(h) for h in state.hidden],
        "up": state.up,
        "exposed_count": state.exposed_count,
        "deck_count": len(state.deck),
        "dead_count": len(state.dead),
        "folded": state.folded,
        "contrib": state.contrib,
        "current_bet": state.current_bet,
        "pending": state.pending,
        "pot": state.pot,
        "carry": state.carry,
        "balances": state.balances,
        "last_result": None if state.last_result is None else _result_wire(state.last_result),
    }
    if seat is not None:
        out["hand"] = state.hidden[seat]
        if seat in to_move(state):
            out["legal_moves"] = legal_moves(state)
    return cast("BraggingEngineView", out)


def visible_cards(state: State, seat: Seat | None) -> frozenset[Card]:
    """Every card ``seat`` may see now: face-up cards, its own face-down cards, showdown hands."""
    seen: set[Card] = set()
    for cards in state.up:
        seen.update(cards)
    if seat is not None:
        seen.update(state.hidden[seat])
    if state.last_result is not None:
        for _, cards in state.last_result.hands:
            seen.update(cards)
    return frozenset(seen)


# --- consistency of a client-supplied state ----------------------------------------------------


def check_state(state: State) -> None:
    """Raise InvalidState (with field paths) unless the state could arise in play."""
    bad = Problems()
    s = state
    n = s.players
    try:
        _check_options(s.options, n)
    except BadSetup as exc:
        bad("options" if exc.code == "invalid_option" else "players", exc.detail)
        raise InvalidState(bad.errors) from None
    for name in ("blinds", "hidden", "up", "exposed_count", "folded", "contrib", "balances"):
        if len(getattr(s, name)) != n:
            bad(name, f"must have one entry per seat ({n})")
    for path, seat in (("dealer", s.dealer), ("to_move", s.to_move)):
        bad.seat(path, seat, n)
    if any(not 0 <= p < n for p in s.pending) or len(set(s.pending)) != len(s.pending) or list(s.pending) != sorted(s.pending):
        bad("pending", "must list distinct seats in seat order")
    bad.check()
    places = [c for h in s.hidden for c in h] + [c for u in s.up for c in u] + list(s.deck) + list(s.dead)
    bad.cards("hidden", places, pack(s.options), "hidden, up, deck and dead must hold the pack")
    if s.hand_number < 1 or (s.options.hands is not None and s.hand_number > s.options.hands):
        bad("hand_number", "must be from 1 to the hands option")
    if s.seq < 0:
        bad("seq", "must not be negative")
    if money(s) != 0:
        bad("balances", "sum(balances) + pot + carry must be 0: money is neither created nor lost")
    if any(b < 0 for b in s.blinds) or any(c < 0 for c in s.contrib) or s.pot < 0 or s.carry < 0:
        bad("pot", "stakes, pot and carry are never negative")
    bad.check()
    _check_phase(s, bad)
    bad.check()


def _check_phase(s: State, bad: Callable[[str, str], None]) -> None:
    """The per-phase shape: who holds how many cards, whose turn, what is staked."""
    n = s.players
    phase = s.phase
    seats = order(n, s.dealer)
    staked = [b for b in (s.blinds[p] for p in seats) if b]
    if staked != sorted(set(staked)) or (staked and not s.blinds[seats[0]]):
        bad("blinds", "blinds rise strictly along the order, opened by the eldest")
    if phase is _PHASE_BLIND:
        if any(c is not None for c in s.exposed_count):
            bad("exposed_count", "nobody has exposed before the deal")
        if any(s.hidden) or any(s.up) or s.dead:
            bad("hidden", "no card is dealt in the blind phase")
        if s.to_move not in seats or s.to_move is None:
            bad("to_move", "must be a seat")
        else:
            before = seats[: seats.index(s.to_move)]
            later = seats[seats.index(s.to_move) :]
            if any(s.blinds[p] for p in later) or (before and not s.blinds[seats[0]]):
                bad("to_move", "does not fit the blinds staked so far")
    exposers = _exposers(n, s.dealer, s.blinds)
    for p in range(n):
        eligible = p in exposers
        cnt = s.exposed_count[p]
        if cnt is not None and (not eligible or not 0 <= cnt <= 2):
            bad(f"exposed_count.{p}", "0-2 for an eligible seat that has exposed, else null")
    if phase is _PHASE_DEALER_EXPOSE and s.blinds[s.dealer]:
        bad("phase", "a dealer who staked blind does not expose")
    if phase is not _PHASE_BLIND:
        if phase is _PHASE_EXPOSE:
            if s.to_move not in exposers:
                bad("to_move", "must be an eligible seat in the exposure phase")
            else:
                done = exposers[: exposers.index(s.to_move)]
                for p in exposers:
                    if (s.exposed_count[p] is not None) != (p in done):
                        bad(f"exposed_count.{p}", "set exactly for the seats that have exposed")
                for p in range(n):
                    want = 2 - (s.exposed_count[p] or 0)
                    if len(s.hidden[p]) != want or len(s.up[p]) != 2 - want:
                        bad(f"hidden.{p}", "two cards per seat after the first two rounds")
                if len(s.deck) != len(pack(s.options)) - 2 * n or s.dead:
                    bad("deck", "the undealt cards stay in the deck until rounds 3 and 4")
        else:
            if s.deck or len(s.dead) != len(pack(s.options)) - HAND_SIZE * n:
                bad("dead", "after the deal the rest of the pack is dead")
            for p in range(n):
                if len(s.hidden[p]) + len(s.up[p]) != HAND_SIZE:
                    bad(f"hidden.{p}", "four cards per seat after the deal")
                    continue
                if p == s.dealer:
                    want_up = 0 if (s.blinds[p] or phase is _PHASE_DEALER_EXPOSE) else 2
                elif s.blinds[p]:
                    want_up = 0
                else:
                    want_up = 2
                    if s.exposed_count[p] is None:
                        bad(f"exposed_count.{p}", "an eligible seat has exposed once the deal is over")
                if len(s.up[p]) != want_up:
                    bad(f"up.{p}", f"must hold {want_up} face-up cards")
    if phase in (_PHASE_BLIND, _PHASE_EXPOSE, _PHASE_DEALER_EXPOSE):
        if any(s.folded) or any(s.contrib) or s.current_bet or s.pending or s.last_result is not None:
            bad("contrib", "no betting before the betting round")
        if phase is _PHASE_DEALER_EXPOSE and s.to_move != s.dealer:
            bad("to_move", "the dealer exposes")
        if s.carry:
            bad("carry", "is 0 during a hand")
    elif phase is _PHASE_BETTING:
        active = [p for p in range(n) if not s.folded[p]]
        if len(active) < 2:
            bad("folded", "at least two seats are in during betting")
        if s.current_bet != max(s.contrib):
            bad("current_bet", "must be the highest contrib")
        if any(c < b for c, b in zip(s.contrib, s.blinds)):
            bad("contrib", "includes the seat's blind")
        if s.to_move is None or s.to_move not in s.pending:
            bad("to_move", "must be a pending seat")
        if any(s.folded[p] for p in s.pending) or not s.pending:
            bad("pending", "non-empty, and only seats still in")
        for p in active:
            if p not in s.pending and s.contrib[p] != s.current_bet:
                bad(f"contrib.{p}", "a seat that has acted has matched the current bet")
        if s.carry or s.last_result is not None:
            bad("carry", "is 0 during a hand, and no result yet")
    else:  # deal_over, game_over
        if s.to_move is not None or s.pending or s.pot:
            bad("to_move", "null once the hand is over; the pot is paid out or carried")
        if s.last_result is None:
            bad("last_result", "a finished hand has a result")
        elif s.last_result.kind is not ResultKind.TIE_CARRIED and s.carry:
            bad("carry", "only a carried tie leaves a carry")
        elif s.last_result.kind is ResultKind.TIE_CARRIED and s.carry != s.last_result.pot:
            bad("carry", "a carried tie carries its pot")
        over = _hand_limit_met(s) or past_house_limit(s)
        if phase is Phase.GAME_OVER and not over:
            bad("phase", "game_over only after hand N of the hands option, or past the house limit")
        if phase is Phase.DEAL_OVER and over:
            bad("phase", "hand N of the hands option, or passing the house limit, ends the game")

