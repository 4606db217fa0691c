"""Stukolka: the Russian knocking game of the Loo family (3 to 7 players, money accounts).

The contract is ``docs/rules/stukolka.md``; section numbers (§) below refer to it. Pure
functions over an immutable ``State``; decks arrive as data. The referee keeps the accounts: every
seat's balance, the pot and the carry are in the state, and no unit of money is ever created or
lost (``money`` is the constant total; ``check_state`` refuses a state that breaks it).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from typing import TYPE_CHECKING, ClassVar, Final, NamedTuple, assert_never, cast

from ..cards import Card, Suit
from ..cards.packs import full_52, pack_of
from ..cards.tricks import beats, strength, trick_winner
from ..cards.turns import deal_one_at_a_time
from .base import BadMove, BadSetup, Event, GameInfo, IllegalMove, InvalidState, Outcome, Seat, quick_replace
from .kit import Problems, applier, check_dealt, check_players, option, option_info, refuse_early, stepper, view_head
from .kit import players as players  # noqa: PLC0414 (re-exported: state.players)
from .kit import status as status  # noqa: PLC0414 (re-exported: the envelope status, from the phase)

if TYPE_CHECKING:
    from ..typed import StukolkaEngineView
from .moves import NextDeal

# §2: rank order low → high; the two packs.
RANK_ORDER: Final = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
RANK: Final = strength(RANK_ORDER)
PACK_52: Final = full_52()
PACK_36: Final = pack_of(("6", "7", "8", "9", "10", "J", "Q", "K", "A"))
PACKS: Final = {52: PACK_52, 36: PACK_36}
HAND_SIZE: Final = 3
TRICKS: Final = 3

STAKE_BY: Final = ("dealer", "all")
LONE_TAPPER: Final = ("dealer_defends", "wins_pot")
VIOLATIONS: Final = ("refuse", "penalize")
MAX_STAKE: Final = 999_999_999
MAX_LIMIT: Final = 10**15
MAX_DEALS: Final = 100_000
HOUSE_LIMIT: Final = 10**14  # §7.4: a balance or carry beyond it ends the game (amounts stay exact in JSON)

# §6.4 the obligations, in table order (the first failing row gives the code).
MUST_LEAD_TRUMP_ACE: Final = "must_lead_trump_ace"
MUST_LEAD_TRUMP_KING: Final = "must_lead_trump_king"
MUST_FOLLOW_SUIT: Final = "must_follow_suit"
MUST_BEAT: Final = "must_beat"
MUST_TRUMP: Final = "must_trump"
VIOLATION_CODES: Final = (MUST_LEAD_TRUMP_ACE, MUST_LEAD_TRUMP_KING, MUST_FOLLOW_SUIT, MUST_BEAT, MUST_TRUMP)


class Phase(StrEnum):
    """§5 phases."""

    DECLARE = "declare"
    EXCHANGE = "exchange"
    PLAY = "play"
    DEAL_OVER = "deal_over"
    GAME_OVER = "game_over"


(
    _PHASE_DECLARE, _PHASE_EXCHANGE, _PHASE_PLAY, _PHASE_DEAL_OVER, _PHASE_GAME_OVER,
) = Phase  # the members, in order, as module constants (kit: the move path)


class Declaration(StrEnum):
    """§6.1 a seat's declaration."""

    TAP = "tap"
    PASS = "pass"


class Kind(StrEnum):
    """§6.3 / §7.1 how a deal ended."""

    PLAYED = "played"
    ALL_PASSED = "all_passed"
    DEALER_TAKES = "dealer_takes"
    LONE_TAPPER_TAKES = "lone_tapper_takes"


@dataclass(frozen=True, slots=True)
class Options:
    """§3 options, defaults as in the spec."""

    dealer: Seat = option(0, type="integer", minimum=0, maximum=6, description="Dealer of the first deal (a seat 0..players-1).")
    pack: int = option(52, type="integer", enum=[52, 36], description="52 cards, or 36 (ranks 6 to A).")
    stake: int = option(
        3, type="integer", minimum=3, maximum=MAX_STAKE, multipleOf=3,
        description="The stake; a multiple of 3 (seed rule 15).",
    )
    stake_by: str = option(
        "dealer", type="string", enum=list(STAKE_BY),
        description="Who pays the stake into the pot at the start of every deal: the dealer, or every seat.",
    )
    lone_tapper: str = option(
        "dealer_defends", type="string", enum=list(LONE_TAPPER),
        description="One non-dealer taps and the dealer passes: the dealer defends the pot, or the tapper takes it.",
    )
    violations: str = option(
        "refuse", type="string", enum=list(VIOLATIONS),
        description="Breaches of the lead and follow rules: refused, or accepted and charged a remiz.",
    )
    turnup_ace_king_lead: bool = option(
        False, type="boolean",
        description="When the turn-up is the trump ace, a leader holding the trump king must lead it.",
    )
    max_exchange: int = option(
        3, type="integer", minimum=0, maximum=3,
        description="Most cards a player may exchange when buying; 0 = no buying phase.",
    )
    remiz_limit: int | None = option(
        None, type="integer", nullable=True, minimum=1, maximum=MAX_LIMIT,
        description="null: the remiz is the whole pot; else min(pot, limit).",
    )
    deals: int | None = option(
        None, type="integer", nullable=True, minimum=1, maximum=MAX_DEALS,
        description="null: the game never ends by itself; N: it ends after deal N once a deal leaves nothing carried.",
    )


OPTION_INFO: Final[Mapping[str, Mapping[str, object]]] = option_info(Options)


# --- state records (§5) -------------------------------------------------------------------------


class TrickCard(NamedTuple):
    """A card of the trick in progress and the seat that played it."""

    player: Seat
    card: Card


class CompletedTrick(NamedTuple):
    """A finished trick: its cards in play order and its winner."""

    cards: tuple[Card, ...]
    winner: Seat


class Violation(NamedTuple):
    """§6.5 a breach accepted in ``penalize`` mode."""

    player: Seat
    code: str
    trick: int
    card: Card


class Winning(NamedTuple):
    """Trick money a seat received at settlement."""

    seat: Seat
    amount: int


class Result(NamedTuple):
    """§7.1 ``last_result``. ``winner`` for the no-play kinds; the rest for ``played``."""

    kind: Kind
    pot: int
    carry: int
    winner: Seat | None = None
    third: int | None = None
    remiz: int | None = None
    tricks: tuple[int, ...] = ()
    winnings: tuple[Winning, ...] = ()
    remized: tuple[Seat, ...] = ()
    penalized: tuple[Seat, ...] = ()


@quick_replace
class State(NamedTuple):
    """The whole truth of a Stukolka game (§5), hidden parts included."""

    options: Options
    players: int
    phase: Phase
    deal_number: int
    dealer: Seat
    to_move: Seat | None
    hands: tuple[tuple[Card, ...], ...]
    turnup: Card
    stock: tuple[Card, ...]
    declarations: tuple[Declaration | None, ...]
    in_play: tuple[Seat, ...]
    defender: Seat | None
    exchanged: tuple[int | None, ...]
    discards: tuple[tuple[Card, ...], ...]
    leader: Seat | None
    trick: tuple[TrickCard, ...]
    completed_tricks: tuple[CompletedTrick, ...]
    pot: int
    carry: int
    balances: tuple[int, ...]
    violations: tuple[Violation, ...]
    last_result: Result | None
    seq: int = 0
    seed: int | None = None

    def __copy__(self) -> State:
        return self

    def __deepcopy__(self, memo: object) -> State:
        """Immutable all the way down (tuples, records, frozen options, interned cards): a copy is itself."""
        return self


# --- moves (§6) ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Tap:
    """§6.1 declare to play."""

    TYPE: ClassVar[str] = "tap"
    player: Seat


@dataclass(frozen=True, slots=True)
class Pass:
    """§6.1 drop out of this deal."""

    TYPE: ClassVar[str] = "pass"
    player: Seat


@dataclass(frozen=True, slots=True, eq=False)
class Exchange:
    """§6.2 discard ``discard`` (0 to ``max_exchange`` cards) and buy as many from the stock.

    Two exchanges are equal when they discard the same cards, in any order (the discard pile is
    face down: its order means nothing).
    """

    TYPE: ClassVar[str] = "exchange"
    player: Seat
    discard: tuple[Card, ...]

    def _key(self) -> tuple[Seat, tuple[Card, ...]]:
        return self.player, tuple(sorted(self.discard))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Exchange) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())


@dataclass(frozen=True, slots=True)
class Play:
    """§6.4 play ``card`` to the trick. ``violation`` is informational and ignored for legality."""

    TYPE: ClassVar[str] = "play"
    player: Seat
    card: Card
    violation: str | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class PlayOption(Play):
    """A ``play`` as ``legal_moves`` lists it in ``penalize`` mode: ``violation`` is always shown
    (null, or the code the card would break). Any ``play`` of that seat and card fills it in."""

    violation: str | None = field(compare=False)

    def filled_by(self, move: object) -> bool:
        """A play of the same seat and card (whatever its ``violation``) is this listed move."""
        return isinstance(move, Play) and move.player == self.player and move.card == self.card


Move = Tap | Pass | Exchange | Play | NextDeal
GAME: Final = GameInfo(
    game_id="stukolka", name="Stukolka", rules_version="stukolka/1",
    player_counts=(3, 4, 5, 6, 7), default_players=4,
    move_classes={cls.TYPE: cls for cls in (Tap, Pass, Exchange, Play, NextDeal)},
    # Parse problems reported before wrong_phase (§6 step 2; CONVENTIONS puts invalid_move first).
    parse_order=("invalid_move", "unknown_move_type", "invalid_player", "invalid_card", "invalid_deck"),
    early_parse_codes=frozenset({"unknown_move_type", "invalid_move", "invalid_player"}),
    # The game's own problem codes (§8), in the table's order; the contract's <Game>ProblemCode.
    codes=("too_many_cards", "not_enough_stock", "must_lead_trump_ace", "must_lead_trump_king",
           "must_follow_suit", "must_beat", "must_trump"),
)
GAME_ID, NAME, RULES_VERSION, PLAYER_COUNTS, DEFAULT_PLAYERS, MOVE_TYPES, MOVE_CLASSES = GAME.constants()

_SEATS: Final = range(max(PLAYER_COUNTS))
_TAP: Final = tuple(Tap(p) for p in _SEATS)
_PASS: Final = tuple(Pass(p) for p in _SEATS)
_PLAY: Final = {(p, c): Play(p, c) for p in _SEATS for c in PACK_52}
_OPTION: Final = {(p, c, v): PlayOption(p, c, v) for p in _SEATS for c in PACK_52 for v in (None, *VIOLATION_CODES)}
_NEXT_DEAL: Final = {size: tuple(NextDeal(p, pack=pack) for p in _SEATS) for size, pack in PACKS.items()}
_ACE: Final = {s: Card("A", s) for s in Suit}
_KING: Final = {s: Card("K", s) for s in Suit}
_QUEEN: Final = {s: Card("Q", s) for s in Suit}

_PHASE_MOVES: Final = {
    _PHASE_DECLARE: frozenset({"tap", "pass"}),
    _PHASE_EXCHANGE: frozenset({"exchange"}),
    _PHASE_PLAY: frozenset({"play"}),
    _PHASE_DEAL_OVER: frozenset({"next_deal"}),
    _PHASE_GAME_OVER: frozenset(),
}


# --- setup (§4) ---------------------------------------------------------------------------------


def pack(options: Options, players: int = DEFAULT_PLAYERS) -> tuple[Card, ...]:
    """The pack chosen by the ``pack`` option, in canonical order."""
    return PACKS[options.pack]


def _order(dealer: Seat, n: int) -> tuple[Seat, ...]:
    """§4 ``order``: eldest first, clockwise, the dealer last."""
    return tuple((dealer + 1 + i) % n for i in range(n))


def _check_options(options: Options, players: int) -> None:
    check_players(GAME, players)
    if not 0 <= options.dealer < players:
        raise BadSetup("invalid_option", f"option dealer: must be a seat 0..{players - 1}", GAME.rule("3"))
    if options.pack not in PACKS:
        raise BadSetup("invalid_option", "option pack: must be 52 or 36", GAME.rule("3"))
    if options.stake < 3 or options.stake % 3:
        raise BadSetup("invalid_option", "option stake: must be a positive multiple of 3", GAME.rule("3"))


def _deal(state: State, deck: Sequence[Card], dealer: Seat, carry: int) -> tuple[State, Event]:
    """§4 start of a deal: pot = carry + stakes; three rounds of one card; the turn-up; the stock."""
    n = state.players
    opts = state.options
    order = _order(dealer, n)
    hands, _ = deal_one_at_a_time(deck, n, order[0], HAND_SIZE)
    balances = list(state.balances)
    pot = carry
    payers = (dealer,) if opts.stake_by == "dealer" else order
    for seat in payers:
        balances[seat] -= opts.stake
        pot += opts.stake
    turnup = deck[3 * n]
    new = state._replace(
        phase=_PHASE_DECLARE,
        dealer=dealer,
        to_move=order[0],
        hands=hands,
        turnup=turnup,
        stock=tuple(deck[3 * n + 1 :]),
        declarations=(None,) * n,
        in_play=(),
        defender=None,
        exchanged=(None,) * n,
        discards=((),) * n,
        leader=None,
        trick=(),
        completed_tricks=(),
        pot=pot,
        carry=0,
        balances=tuple(balances),
        violations=(),
        last_result=None,
    )
    return new, _deal_started(new)


def _valid_deck(deck: Sequence[Card], options: Options, section: str) -> None:
    check_dealt(GAME, deck, PACKS[options.pack], section)


def new_game(options: Options, players: int, deck: Sequence[Card], seed: int | None = None) -> State:
    """Deal the first deal from ``deck`` (top card first). Raises BadSetup."""
    _check_options(options, players)
    _valid_deck(deck, options, "4")
    blank = State(
        options=options,
        players=players,
        phase=_PHASE_DECLARE,
        deal_number=1,
        dealer=options.dealer,
        to_move=None,
        hands=(),
        turnup=deck[0],
        stock=(),
        declarations=(),
        in_play=(),
        defender=None,
        exchanged=(),
        discards=(),
        leader=None,
        trick=(),
        completed_tricks=(),
        pot=0,
        carry=0,
        balances=(0,) * players,
        violations=(),
        last_result=None,
        seq=0,
        seed=seed,
    )
    return _deal(blank, tuple(deck), options.dealer, 0)[0]


def _deal_started(state: State) -> Event:
    """The event of a fresh deal: dealer, turn-up, the new pot and what each seat staked."""
    stake, by_all = state.options.stake, state.options.stake_by == "all"
    return {
        "type": "deal_started",
        "dealer": state.dealer,
        "deal_number": state.deal_number,
        "turnup": state.turnup,
        "pot": state.pot,
        "stakes": [stake if by_all or seat == state.dealer else 0 for seat in range(state.players)],
    }


def initial_events(state: State) -> list[Event]:
    """The events a new game starts with: the first deal."""
    return [_deal_started(state)]


# --- derived values -----------------------------------------------------------------------------


def trump(state: State) -> Suit:
    """§2 the trump suit: the suit of the turn-up."""
    return state.turnup.suit


def tricks_won(state: State) -> list[int]:
    """Tricks each seat has taken this deal."""
    out = [0] * state.players
    for t in state.completed_tricks:
        out[t.winner] += 1
    return out


def money(state: State) -> int:
    """The money in the game: balances plus the pot during a deal, plus the carry after it.

    Constant over a whole game (0: balances start at 0 and every payment goes between a seat and
    the pot or the carry); ``check_state`` refuses a state where it is not 0.
    """
    held = state.carry if state.phase in (_PHASE_DEAL_OVER, _PHASE_GAME_OVER) else state.pot
    return sum(state.balances) + held


def derived(state: State) -> dict[str, object]:
    """The derived values responses add to a full state; ignored on input."""
    return {"trump": trump(state), "stock_count": len(state.stock), "tricks_won": tricks_won(state)}


# --- whose turn, what is legal (§6) --------------------------------------------------------------


def _next_dealer(state: State) -> Seat:
    return (state.dealer + 1) % state.players


def to_move(state: State) -> frozenset[Seat]:
    """The seat to act: ``to_move``, the next dealer in ``deal_over``, nobody once the game is over."""
    if state.phase is _PHASE_DEAL_OVER:
        return frozenset((_next_dealer(state),))
    if state.phase is _PHASE_GAME_OVER or state.to_move is None:
        return frozenset()
    return frozenset((state.to_move,))


def _winning(state: State) -> Card:
    """The card currently winning the trick in progress (``W`` of §6.4)."""
    cards = [tc.card for tc in state.trick]
    return cards[trick_winner(cards, trump(state), RANK)]


def _lead_rule(state: State, hand: tuple[Card, ...]) -> tuple[Card, str] | None:
    """§6.4 L1–L3: the card the leader must lead and the code for not leading it, or None."""
    t = trump(state)
    if _ACE[t] in hand:
        return _ACE[t], MUST_LEAD_TRUMP_ACE  # L1
    if _KING[t] in hand:
        if _QUEEN[t] in hand:
            return _KING[t], MUST_LEAD_TRUMP_KING  # L2
        if state.options.turnup_ace_king_lead and state.turnup == _ACE[t]:
            return _KING[t], MUST_LEAD_TRUMP_KING  # L3
    return None


def _violation(state: State, hand: tuple[Card, ...], card: Card) -> str | None:
    """The first §6.4 obligation that playing ``card`` from ``hand`` breaks, or None."""
    if not state.trick:
        rule = _lead_rule(state, hand)
        return None if rule is None or card == rule[0] else rule[1]
    led = state.trick[0].card.suit
    w = _winning(state)
    t = trump(state)
    same = [c for c in hand if c.suit is led]
    if same:  # F1a, F1b
        if card.suit is not led:
            return MUST_FOLLOW_SUIT
        if not beats(card, w, t, RANK) and any(beats(c, w, t, RANK) for c in same):
            return MUST_BEAT
        return None
    if not beats(card, w, t, RANK) and any(c.suit is t and beats(c, w, t, RANK) for c in hand):
        return MUST_TRUMP  # F2
    return None  # F3


@lru_cache(maxsize=4096)
def _exchanges(player: Seat, hand: tuple[Card, ...], most: int) -> tuple[Exchange, ...]:
    """Every exchange of ``hand`` with at most ``most`` cards, smallest first, in hand order."""
    return tuple(Exchange(player, combo) for k in range(most + 1) for combo in itertools.combinations(hand, k))


def legal_moves(state: State) -> list[Move]:
    """Every legal move of the seat to act (§6.4 "Legal moves list")."""
    phase = state.phase
    if phase is _PHASE_DEAL_OVER:
        return [_NEXT_DEAL[state.options.pack][_next_dealer(state)]]
    p = state.to_move
    if p is None or phase is _PHASE_GAME_OVER:
        return []
    if phase is _PHASE_DECLARE:
        return [_TAP[p], _PASS[p]]
    hand = state.hands[p]
    if phase is _PHASE_EXCHANGE:
        return list(_exchanges(p, hand, min(state.options.max_exchange, len(state.stock))))
    if state.options.violations == "penalize":
        return [_OPTION[p, c, _violation(state, hand, c)] for c in hand]
    return [_PLAY[p, c] for c in hand if _violation(state, hand, c) is None]


# --- checking (§6 order, §8 codes) --------------------------------------------------------------


def _check(state: State, move: Move | BadMove) -> None:
    """Raise IllegalMove with the first code that applies (§6, §8); return if the move is legal."""
    if state.phase is _PHASE_GAME_OVER:
        raise IllegalMove("game_over", "The game is over; no move is accepted.", GAME.rule("7.4"))
    if isinstance(move, BadMove):  # the parse problems the rules put first (GAME.early_parse_codes)
        refuse_early(GAME, move, "6")
    move_type = move.type if isinstance(move, BadMove) else move.TYPE
    if move_type not in _PHASE_MOVES[state.phase]:
        allowed = ", ".join(sorted(_PHASE_MOVES[state.phase]))
        raise IllegalMove("wrong_phase", f"In phase {state.phase.value} only {allowed} is allowed, not {move_type}.", GAME.rule("6"))
    want = _next_dealer(state) if state.phase is _PHASE_DEAL_OVER else state.to_move
    if move.player != want:
        raise IllegalMove("not_your_turn", f"It is seat {want}'s turn, not seat {move.player}'s.", GAME.rule("6"))
    match move:
        case BadMove():
            raise IllegalMove(move.code, move.detail, GAME.rule("6"))
        case Tap() | Pass():
            return
        case Exchange():
            _check_exchange(state, move)
            return
        case Play():
            _check_play(state, move)
            return
        case NextDeal():
            if move.deck is not None:
                check_dealt(GAME, move.deck, PACKS[state.options.pack], "6.6", IllegalMove)
            return
        case _:
            assert_never(move)


def _of_this_pack(state: State, cards: Sequence[Card]) -> None:
    pack_cards = PACKS[state.options.pack]
    for c in cards:
        if state.options.pack != 52 and c not in pack_cards:
            raise IllegalMove("invalid_card", f"{c} is not a card of the {state.options.pack}-card pack.", GAME.rule("2"))


def _check_exchange(state: State, move: Exchange) -> None:
    """§6.2 checks, in order."""
    _of_this_pack(state, move.discard)
    if len(set(move.discard)) != len(move.discard):
        dup = next(c for c in move.discard if move.discard.count(c) > 1)
        raise IllegalMove("duplicate_card", f"{dup} is listed twice in discard.", GAME.rule("6.2"))
    hand = state.hands[move.player]
    for c in move.discard:
        if c not in hand:
            raise IllegalMove("card_not_in_hand", f"Seat {move.player} does not hold {c}.", GAME.rule("6.2"))
    k = len(move.discard)
    if k > state.options.max_exchange:
        raise IllegalMove("too_many_cards", f"At most {state.options.max_exchange} cards may be exchanged, not {k}.", GAME.rule("6.2"))
    if k > len(state.stock):
        raise IllegalMove("not_enough_stock", f"The stock holds {len(state.stock)} cards, fewer than {k}.", GAME.rule("6.2"))


def _check_play(state: State, move: Play) -> None:
    """§6.4 checks: the card is held; then, in ``refuse`` mode, the lead and follow obligations."""
    _of_this_pack(state, (move.card,))
    hand = state.hands[move.player]
    if move.card not in hand:
        raise IllegalMove("card_not_in_hand", f"Seat {move.player} does not hold {move.card}.", GAME.rule("6.4"))
    if state.options.violations == "refuse":
        code = _violation(state, hand, move.card)
        if code is not None:
            raise IllegalMove(code, _explain(state, hand, move.card, code), GAME.rule("6.4"))


def _explain(state: State, hand: tuple[Card, ...], card: Card, code: str) -> str:
    legal = ", ".join(str(c) for c in hand if _violation(state, hand, c) is None)
    reasons = {
        MUST_LEAD_TRUMP_ACE: "the leader holds the trump ace and must lead it",
        MUST_LEAD_TRUMP_KING: "the leader must lead the trump king",
        MUST_FOLLOW_SUIT: "the player holds the suit led and must follow it",
        MUST_BEAT: "the player can beat the winning card in the suit led and must",
        MUST_TRUMP: "the player is void in the suit led and must trump with a trump that beats the winning card",
    }
    return f"{card} breaks the rule: {reasons[code]} (legal: {legal})."


# --- applying -----------------------------------------------------------------------------------


def _next(state: State, move: Move, events: list[Event]) -> State:
    match move:
        case Tap() | Pass():
            return _declare(state, move, events)
        case Exchange():
            return _exchange(state, move, events)
        case Play():
            return _play(state, move, events)
        case NextDeal():
            assert move.deck is not None, "the HTTP layer fills a next_deal template with a deck"
            nxt = state._replace(deal_number=state.deal_number + 1)
            new, event = _deal(nxt, move.deck, _next_dealer(state), state.carry)
            events.append(event)
            return new
        case _:
            assert_never(move)


# ``_check`` refuses a move in the rules' order, ``_next`` plays it; the new state counts one more ``seq``.
step: Final = stepper(_check, _next)
apply: Final = applier(step)


def _set(values: tuple, seat: Seat, value: object) -> tuple:  # type: ignore[type-arg]
    return values[:seat] + (value,) + values[seat + 1 :]


def _declare(state: State, move: Tap | Pass, events: list[Event]) -> State:
    """§6.1 one declaration; after the dealer's, §6.3 resolves the deal."""
    p = move.player
    decl = Declaration.TAP if isinstance(move, Tap) else Declaration.PASS
    events.append({"type": "declared", "player": p, "declaration": decl})
    declarations = _set(state.declarations, p, decl)
    state = state._replace(declarations=declarations)
    if p != state.dealer:
        return state._replace(to_move=(p + 1) % state.players)
    order = _order(state.dealer, state.players)
    tapped = tuple(s for s in order if declarations[s] is Declaration.TAP)
    if not tapped:  # §6.3 everybody passed: the pot is carried whole
        return _end_without_play(state, Kind.ALL_PASSED, None, events)
    if tapped == (state.dealer,):
        return _end_without_play(state, Kind.DEALER_TAKES, state.dealer, events)
    if len(tapped) == 1 and state.options.lone_tapper == "wins_pot":
        return _end_without_play(state, Kind.LONE_TAPPER_TAKES, tapped[0], events)
    in_play, defender = _resolve(state, tapped)  # a lone tapper plays against the defending dealer
    events.append({"type": "in_play", "in_play": in_play, "defender": defender})
    state = state._replace(in_play=in_play, defender=defender)
    if state.options.max_exchange == 0:
        return _start_play(state)
    return state._replace(phase=_PHASE_EXCHANGE, to_move=in_play[0])


def _start_play(state: State) -> State:
    first = state.in_play[0]
    return state._replace(phase=_PHASE_PLAY, leader=first, to_move=first)


def _exchange(state: State, move: Exchange, events: list[Event]) -> State:
    """§6.2 discard, then buy as many cards from the top of the stock."""
    p = move.player
    hand = state.hands[p]
    gone = frozenset(move.discard)
    out = tuple(c for c in hand if c in gone)  # hand order: the pile's order means nothing
    k = len(out)
    drawn, stock = state.stock[:k], state.stock[k:]
    events.append(
        {"type": "exchanged", "player": p, "count": k, "discard": out, "drawn": drawn,
         "private_to": p, "private": ("discard", "drawn")}
    )
    state = state._replace(
        hands=_set(state.hands, p, tuple(c for c in hand if c not in gone) + drawn),
        stock=stock,
        discards=_set(state.discards, p, state.discards[p] + out),
        exchanged=_set(state.exchanged, p, k),
    )
    i = state.in_play.index(p)
    if i + 1 < len(state.in_play):
        return state._replace(to_move=state.in_play[i + 1])
    return _start_play(state)


def _play(state: State, move: Play, events: list[Event]) -> State:
    """§6.4 a card to the trick; the third card of the last seat completes it."""
    p, card = move.player, move.card
    hand = state.hands[p]
    violations = state.violations
    code = _violation(state, hand, card) if state.options.violations == "penalize" else None
    trick_no = len(state.completed_tricks) + 1
    played: Event = {"type": "card_played", "player": p, "card": card}
    if code is not None:
        violations = violations + (Violation(p, code, trick_no, card),)
        played["violation"] = code
    events.append(played)
    trick = state.trick + (TrickCard(p, card),)
    hands = _set(state.hands, p, tuple(c for c in hand if c != card))
    in_play = state.in_play
    if len(trick) < len(in_play):
        nxt = in_play[(in_play.index(p) + 1) % len(in_play)]
        return state._replace(hands=hands, trick=trick, to_move=nxt, violations=violations)
    cards = tuple(tc.card for tc in trick)
    winner = trick[trick_winner(cards, trump(state), RANK)].player
    events.append({"type": "trick_won", "player": winner, "cards": cards, "trick": trick_no})
    state = state._replace(
        hands=hands,
        trick=(),
        completed_tricks=state.completed_tricks + (CompletedTrick(cards, winner),),
        violations=violations,
        leader=winner,
        to_move=winner,
    )
    if trick_no < TRICKS:
        return state
    return _settle(state, events)


def _remiz(state: State, pot: int) -> int:
    limit = state.options.remiz_limit
    return pot if limit is None else min(pot, limit)


def _settle(state: State, events: list[Event]) -> State:
    """§7.1 settlement after the third trick."""
    pot = state.pot
    third = pot // 3
    r = _remiz(state, pot)
    carry = pot % 3
    balances = list(state.balances)
    won = tricks_won(state)
    money_won = [0] * state.players
    for t in state.completed_tricks:
        if t.winner == state.defender:
            carry += third
        else:
            balances[t.winner] += third
            money_won[t.winner] += third
    remized = tuple(s for s in state.in_play if s != state.defender and won[s] == 0)
    penalized = tuple(sorted({v.player for v in state.violations}))
    for s in remized + penalized:
        balances[s] -= r
        carry += r
    result = Result(
        kind=Kind.PLAYED,
        pot=pot,
        carry=carry,
        third=third,
        remiz=r,
        tricks=tuple(won),
        winnings=tuple(Winning(s, money_won[s]) for s in range(state.players) if money_won[s]),
        remized=remized,
        penalized=penalized,
    )
    return _end_deal(state._replace(balances=tuple(balances), carry=carry), result, events)


def _end_without_play(state: State, kind: Kind, winner: Seat | None, events: list[Event]) -> State:
    """§6.3 the deal ends at the declarations: the pot is carried, or taken by ``winner``."""
    balances = state.balances
    carry = state.pot
    if winner is not None:
        balances = _set(balances, winner, balances[winner] + state.pot)
        carry = 0
    result = Result(kind=kind, pot=state.pot, carry=carry, winner=winner)
    return _end_deal(state._replace(balances=balances, carry=carry), result, events)


def _end_deal(state: State, result: Result, events: list[Event]) -> State:
    """§7.1 step 5 and §7.4: ``deal_over``, or ``game_over`` once the deal limit is met with nothing carried."""
    events.append({"type": "deal_over", "result": result_wire(result)})
    over = _deal_limit_met(state) or past_house_limit(state)
    state = state._replace(
        phase=_PHASE_GAME_OVER if over else _PHASE_DEAL_OVER, to_move=None, leader=None, last_result=result
    )
    if over:
        events.append({"type": "game_over", "winner": sorted(_leaders(state))})
    return state


# --- the outside view ---------------------------------------------------------------------------


def result_wire(r: Result) -> dict[str, object]:
    """§7.1 ``last_result`` as the spec writes it: the ``played`` shape, or the no-play shape."""
    if r.kind is Kind.PLAYED:
        return {
            "kind": r.kind.value,
            "pot": r.pot,
            "third": r.third,
            "remiz": r.remiz,
            "tricks": list(r.tricks),
            "winnings": {str(w.seat): w.amount for w in r.winnings},
            "remized": list(r.remized),
            "penalized": list(r.penalized),
            "carry": r.carry,
        }
    return {"kind": r.kind.value, "pot": r.pot, "winner": r.winner, "carry": r.carry}


def _deal_limit_met(state: State) -> bool:
    """§7.4: the last deal of the ``deals`` option is over and nothing is carried."""
    limit = state.options.deals
    return limit is not None and state.deal_number >= limit and state.carry == 0


def past_house_limit(state: State) -> bool:
    """§7.4 house limit: a balance or the carry has gone beyond ±HOUSE_LIMIT, so the game ends.

    Remizes can grow the carry geometrically; the limit keeps every amount the service writes within
    ±(2^53 − 1), where every JSON client reads it exactly (the next deal's stakes and remizes stay
    far inside that bound from any position within the limit).
    """
    return state.carry > HOUSE_LIMIT or any(abs(b) > HOUSE_LIMIT for b in state.balances)


def _leaders(state: State) -> frozenset[Seat]:
    top = max(state.balances)
    return frozenset(s for s, b in enumerate(state.balances) if b == top)


def outcome(state: State) -> Outcome | None:
    """Once the game is over: the seats with the highest balance (docs/rules/conventions.md)."""
    if state.phase is not _PHASE_GAME_OVER:
        return None
    return Outcome(_leaders(state), "deal_limit" if _deal_limit_met(state) else "house_limit")


def scores(state: State, seat: Seat | None = None) -> dict[str, object]:
    """``totals`` = balances; the pot, the carry and this deal's tricks."""
    return {"totals": list(state.balances), "pot": state.pot, "carry": state.carry, "tricks_won": tricks_won(state)}


def view(state: State, seat: Seat | None) -> StukolkaEngineView:
    """§5 what ``seat`` may see (``None``: the public view): hands, stock and discards become counts."""
    out: dict[str, object] = {
        **view_head(GAME, state, seat),
        "options": state.options,
        "players": state.players,
        "deal_number": state.deal_number,
        "dealer": state.dealer,
        "phase": state.phase,
        "to_move": state.to_move,
    }
    if seat is not None:
        out["hand"] = state.hands[seat]
    out.update(
        hand_counts=[len(h) for h in state.hands],
        turnup=state.turnup,
        trump=trump(state),
        stock_count=len(state.stock),
        declarations=state.declarations,
        in_play=state.in_play,
        defender=state.defender,
        exchanged=state.exchanged,
        discard_counts=[len(d) for d in state.discards],
        leader=state.leader,
        trick=state.trick,
        completed_tricks=state.completed_tricks,
        tricks_won=tricks_won(state),
        pot=state.pot,
        carry=state.carry,
        balances=state.balances,
        violations=state.violations,
        last_result=None if state.last_result is None else result_wire(state.last_result),
    )
    if seat is not None and seat in to_move(state):
        out["legal_moves"] = legal_moves(state)
    return cast("StukolkaEngineView", out)


def visible_cards(state: State, seat: Seat | None) -> frozenset[Card]:
    """Every card ``seat`` may see now: its hand, the turn-up, the cards played this deal."""
    seen: set[Card] = {state.turnup}
    if seat is not None:
        seen.update(state.hands[seat])
    seen.update(tc.card for tc in state.trick)
    for t in state.completed_tricks:
        seen.update(t.cards)
    return frozenset(seen)


# --- consistency of a client-supplied state ----------------------------------------------------


def check_state(state: State) -> None:
    """Raise InvalidState (with field paths) unless the state could arise in play."""
    bad = Problems()
    s = state
    n = s.players
    if n not in PLAYER_COUNTS:
        raise InvalidState({"players": [f"must be 3 to 7, not {n}"]})
    try:
        _check_options(s.options, n)
    except BadSetup as exc:
        raise InvalidState({"options": [exc.detail]}) from None
    for name in ("hands", "declarations", "exchanged", "discards", "balances"):
        if len(getattr(s, name)) != n:
            bad(name, f"must have one entry per seat ({n})")
    seats = range(n)
    for name in ("dealer", "to_move", "defender", "leader"):
        v = getattr(s, name)
        if v is not None and v not in seats:
            bad(name, f"must be a seat 0..{n - 1}")
    for i, p in enumerate(s.in_play):
        if p not in seats:
            bad(f"in_play.{i}", f"must be a seat 0..{n - 1}")
    for i, tc in enumerate(s.trick):
        if tc.player not in seats:
            bad(f"trick.{i}.player", f"must be a seat 0..{n - 1}")
    for i, t in enumerate(s.completed_tricks):
        if t.winner not in seats:
            bad(f"completed_tricks.{i}.winner", f"must be a seat 0..{n - 1}")
    for i, v in enumerate(s.violations):
        if v.player not in seats:
            bad(f"violations.{i}.player", f"must be a seat 0..{n - 1}")
    bad.check()
    places: list[Card] = [s.turnup, *s.stock, *(tc.card for tc in s.trick)]
    for h in s.hands:
        places += h
    for d in s.discards:
        places += d
    for t in s.completed_tricks:
        places += t.cards
    if not bad.cards("hands", places, PACKS[s.options.pack], "hands, stock, turn-up, discards and tricks must hold the pack"):
        raise InvalidState(bad.errors)
    _check_flow(s, bad)
    bad.check()


def _check_flow(s: State, bad: Callable[[str, str], None]) -> None:
    """The deal's phase, turn, hands and accounts agree with each other."""
    n = s.players
    order = _order(s.dealer, n)
    if s.deal_number < 1:
        bad("deal_number", "must be at least 1")
    if s.pot < 0 or s.carry < 0:
        bad("pot", "pot and carry must not be negative")
    ended = s.phase in (_PHASE_DEAL_OVER, _PHASE_GAME_OVER)
    if money(s) != 0:
        held = "carry" if ended else "pot"
        bad("balances", f"sum(balances) + {held} must be 0: no money is created or lost")
    if not ended and s.carry != 0:
        bad("carry", "is 0 during a deal")
    if s.pot < s.options.stake:
        bad("pot", "holds at least this deal's stake")
    # declarations: a prefix of ``order``
    k = 0
    while k < n and s.declarations[order[k]] is not None:
        k += 1
    if any(s.declarations[order[j]] is not None for j in range(k, n)):
        bad("declarations", "seats declare in order, eldest first")
    if s.phase is _PHASE_DECLARE:
        if k == n:
            bad("declarations", "every seat has declared but the phase is still declare")
        elif s.to_move != order[k]:
            bad("to_move", f"must be {order[k]}, the next seat to declare")
        if s.in_play or s.defender is not None or s.trick or s.completed_tricks or any(x is not None for x in s.exchanged):
            bad("phase", "nothing is in play before the declarations end")
    elif k != n:
        bad("declarations", f"every seat has declared in phase {s.phase.value}")
    tapped = tuple(p for p in order if s.declarations[p] is Declaration.TAP)
    no_play = s.last_result is not None and s.last_result.kind is not Kind.PLAYED
    if s.phase is not _PHASE_DECLARE:
        if no_play or (ended and s.last_result is None):
            if s.in_play or s.completed_tricks:
                bad("in_play", "no tricks are played in a deal without play")
        else:
            want_in, want_def = _resolve(s, tapped)
            if s.in_play != want_in or s.defender != want_def:
                bad("in_play", f"the declarations give in_play {list(want_in)} and defender {want_def}")
    for p in range(n):
        if s.exchanged[p] is not None and p not in s.in_play:
            bad(f"exchanged.{p}", "only seats in play buy")
        if len(s.discards[p]) != (s.exchanged[p] or 0):
            bad(f"discards.{p}", "holds the cards the seat exchanged")
        if s.exchanged[p] is not None and not 0 <= s.exchanged[p] <= s.options.max_exchange:  # type: ignore[operator]
            bad(f"exchanged.{p}", "at most max_exchange cards")
    done = 0
    while done < len(s.in_play) and s.exchanged[s.in_play[done]] is not None:
        done += 1
    if any(s.exchanged[p] is not None for p in s.in_play[done:]):
        bad("exchanged", "seats buy in in_play order")
    if s.phase is _PHASE_EXCHANGE:
        if done >= len(s.in_play):
            bad("exchanged", "every seat in play has bought but the phase is still exchange")
        elif s.to_move != s.in_play[done]:
            bad("to_move", f"must be {s.in_play[done]}, the next seat to buy")
        if s.trick or s.completed_tricks:
            bad("trick", "no card is played while buying")
    elif s.phase is not _PHASE_DECLARE and s.in_play and s.options.max_exchange > 0 and done != len(s.in_play):
        bad("exchanged", "every seat in play buys before the tricks")
    _check_tricks(s, bad, ended)
    _check_result(s, bad, ended, tapped)


def _resolve(s: State, tapped: tuple[Seat, ...]) -> tuple[tuple[Seat, ...], Seat | None]:
    if len(tapped) == 1 and tapped[0] != s.dealer:
        return (tapped[0], s.dealer), s.dealer
    return tapped, None


def _check_tricks(s: State, bad: Callable[[str, str], None], ended: bool) -> None:
    t = trump(s)
    leader = s.in_play[0] if s.in_play else None
    m = len(s.in_play)
    for i, ct in enumerate(s.completed_tricks):
        if len(ct.cards) != m or leader is None:
            bad(f"completed_tricks.{i}", "a trick holds one card of each seat in play")
            return
        start = s.in_play.index(leader)
        seats = [s.in_play[(start + j) % m] for j in range(m)]
        want = seats[trick_winner(ct.cards, t, RANK)]
        if ct.winner != want:
            bad(f"completed_tricks.{i}.winner", f"must be {want}, who played the winning card")
            return
        leader = ct.winner
    if len(s.completed_tricks) > TRICKS:
        bad("completed_tricks", "a deal has 3 tricks")
    played_now = {tc.player for tc in s.trick}
    if s.phase is _PHASE_PLAY:
        if len(s.completed_tricks) >= TRICKS:
            bad("completed_tricks", "the deal is over after 3 tricks")
        if s.leader != leader:
            bad("leader", f"must be {leader}: in_play[0], then each trick's winner")
        if leader is not None and len(s.trick) < m:
            start = s.in_play.index(leader)
            seats = [s.in_play[(start + j) % m] for j in range(m)]
            if [tc.player for tc in s.trick] != seats[: len(s.trick)]:
                bad("trick", "cards are played in turn from the leader")
            elif s.to_move != seats[len(s.trick)]:
                bad("to_move", f"must be {seats[len(s.trick)]}")
        else:
            bad("trick", "holds fewer cards than seats in play")
    else:
        if s.leader is not None or s.trick:
            bad("trick", "no trick is in progress outside the play phase")
    if ended and s.to_move is not None:
        bad("to_move", "is null once the deal is over")
    for p in range(s.players):
        want_len = HAND_SIZE
        if p in s.in_play:
            want_len -= len(s.completed_tricks) + (p in played_now)
        if len(s.hands[p]) != want_len:
            bad(f"hands.{p}", f"must hold {want_len} cards")
    if s.violations and s.options.violations != "penalize":
        bad("violations", "only in penalize mode")
    for i, v in enumerate(s.violations):
        if v.code not in VIOLATION_CODES or v.player not in s.in_play or not 1 <= v.trick <= len(s.completed_tricks) + 1:
            bad(f"violations.{i}", "must name a seat in play, a trick played and a rule of §6.4")


def _check_result(s: State, bad: Callable[[str, str], None], ended: bool, tapped: tuple[Seat, ...]) -> None:
    r = s.last_result
    if not ended:
        if r is not None:
            bad("last_result", "is null during a deal")
        return
    if r is None:
        bad("last_result", "a finished deal has a result")
        return
    if r.pot != s.pot or r.carry != s.carry:
        bad("last_result", "pot and carry must be the state's")
    if r.kind is Kind.PLAYED:
        if len(s.completed_tricks) != TRICKS:
            bad("completed_tricks", "a played deal ends after 3 tricks")
        if list(r.tricks) != tricks_won(s) or r.third != s.pot // 3 or r.remiz != _remiz(s, s.pot) or r.winner is not None:
            bad("last_result", "must be the settlement of the tricks (§7.1)")
    else:
        want = {Kind.ALL_PASSED: (), Kind.DEALER_TAKES: (s.dealer,)}.get(r.kind)
        if want is None:
            lone = len(tapped) == 1 and tapped[0] != s.dealer and s.options.lone_tapper == "wins_pot"
            ok = lone and r.winner == tapped[0]
        else:
            ok = tapped == want and r.winner == (want[0] if want else None)
        if not ok or r.third is not None or r.remiz is not None or r.tricks or r.winnings or r.remized or r.penalized:
            bad("last_result", f"{r.kind.value} does not fit the declarations")
        if r.carry != (s.pot if r.kind is Kind.ALL_PASSED else 0):
            bad("last_result.carry", "the pot is carried only when everybody passed")
    over = _deal_limit_met(s) or past_house_limit(s)
    if (s.phase is Phase.GAME_OVER) != over:
        bad("phase", "game_over exactly when the deal limit is reached with nothing carried, or past the house limit (§7.4)")
