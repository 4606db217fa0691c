"""Schnapsen: the two-handed Austrian member of the Sixty-six family.

The contract is ``docs/rules/schnapsen.md``; section numbers (§) below refer to it. Pure
functions over an immutable ``State``; decks arrive as data.

The state is a ``NamedTuple``: immutable like a frozen dataclass, but built and copied about four
times faster, which the engine benchmark (bench/engines.py) showed matters on the move path.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Final, NamedTuple, assert_never, cast

from ..cards import Card, Suit, names
from ..cards.packs import short_20
from ..cards.tricks import of_suit
from .base import BadMove, Event, GameInfo, IllegalMove, Outcome, Seat, quick_replace
from .kit import Problems, check_dealt, check_players, option, option_info, refuse_early, view_head
from .kit import status as status  # noqa: PLC0414 (re-exported: the envelope status, from the phase)

if TYPE_CHECKING:
    from ..typed import SchnapsenEngineView
from .moves import NextDeal, Play

# §2: rank order low → high and card points.
RANK_ORDER: Final = ("J", "Q", "K", "10", "A")
RANK: Final = {r: i for i, r in enumerate(RANK_ORDER)}
CARD_POINTS: Final = {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2}
MARRIAGE_POINTS: Final = 20
TRUMP_MARRIAGE_POINTS: Final = 40
WINNING_POINTS: Final = 66
HAND_SIZE: Final = 5
PACK: Final = short_20()
SUIT_ORDER: Final = (Suit.S, Suit.H, Suit.D, Suit.C)  # §6.8 reference order of marriages
_MOST_CARD_POINTS: Final = tuple(sum(sorted((CARD_POINTS[c.rank] for c in PACK), reverse=True)[: 2 * n]) for n in range(11))
"""The most card points ``n`` tricks can hold (their 2n cards the pack's highest): 3 tricks hold at most 64."""


class Phase(StrEnum):
    """§5.1 phases."""

    PLAY = "play"
    DEAL_OVER = "deal_over"
    GAME_OVER = "game_over"


_PHASE_PLAY, _PHASE_DEAL_OVER, _PHASE_GAME_OVER = Phase  # the members, in order, as module constants (kit: the move path)


class Reason(StrEnum):
    """§7.3 ways a deal ends."""

    CLAIM = "claim"
    FALSE_CLAIM = "false_claim"
    LAST_TRICK = "last_trick"
    CLOSER_FAILED = "closer_failed"


_REASON_CLAIM: Final = Reason.CLAIM
_REASON_FALSE_CLAIM: Final = Reason.FALSE_CLAIM
_REASON_LAST_TRICK: Final = Reason.LAST_TRICK
_REASON_CLOSER_FAILED: Final = Reason.CLOSER_FAILED


@dataclass(frozen=True, slots=True)
class Options:
    """§3 options, defaults as in the spec."""

    dealer: Seat = option(0, type="integer", minimum=0, maximum=1, description="Dealer of the first deal.")
    target: int = option(7, type="integer", minimum=1, maximum=1000, description="Game points needed to win the match.")
    exchange_with_two_left: bool = option(
        False, type="boolean",
        description="Allow the trump-Jack exchange when the talon size is exactly 2.",
    )
    marriage_requires_trick: bool = option(
        False, type="boolean",
        description="A marriage may be declared only after winning a trick in the deal.",
    )
    auto_claim: bool = option(
        False, type="boolean",
        description="End the deal as a correct claim as soon as a player could claim 66; explicit claims are refused.",
    )
    show_points: bool = option(True, type="boolean", description="Views show trick contents and point totals.")


OPTION_INFO: Final[Mapping[str, Mapping[str, object]]] = option_info(Options)


class Closing(NamedTuple):
    """§6.4 snapshot of the non-closer at the moment of closing."""

    opp_tricks: int
    opp_points: int


class Meld(NamedTuple):
    """A declared marriage: its suit and its value (20, or 40 in trumps)."""

    suit: Suit
    points: int


class Reveal(NamedTuple):
    """A card of ``player``'s hand that the opponent has seen (§5.1 ``revealed``)."""

    player: Seat
    card: Card


class LastTrick(NamedTuple):
    """The most recent completed trick: ``cards`` = (led, followed)."""

    cards: tuple[Card, Card]
    leader: Seat
    winner: Seat


class Result(NamedTuple):
    """§7.3 outcome of one deal."""

    winner: Seat
    game_points: int
    reason: Reason
    points: tuple[int, int]


@quick_replace
class State(NamedTuple):
    """The whole truth of a Schnapsen match (§5.1), hidden parts included."""

    options: Options
    phase: Phase
    deal_number: int
    dealer: Seat
    game_points: tuple[int, int]
    hands: tuple[tuple[Card, ...], tuple[Card, ...]]
    talon: tuple[Card, ...]
    trump_card: Card | None
    trump_suit: Suit
    closed_by: Seat | None
    closing: Closing | None
    leader: Seat
    to_move: Seat | None
    trick: tuple[Card, ...]  # () or (led card,); the led card belongs to ``leader``
    marriage_pending: Suit | None
    tricks: tuple[tuple[tuple[Card, Card], ...], tuple[tuple[Card, Card], ...]]
    marriages: tuple[tuple[Meld, ...], tuple[Meld, ...]]
    revealed: tuple[Reveal, ...]
    last_trick: LastTrick | None
    result: Result | None
    results: tuple[Result, ...]
    seq: int = 0
    seed: int | None = None


# --- moves (§6) -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Claim:
    """§6.2 the leader states he has 66."""

    TYPE: ClassVar[str] = "claim"
    player: Seat


@dataclass(frozen=True, slots=True)
class Exchange:
    """§6.3 trump Jack for the trump card."""

    TYPE: ClassVar[str] = "exchange"
    player: Seat


@dataclass(frozen=True, slots=True)
class Close:
    """§6.4 close the talon."""

    TYPE: ClassVar[str] = "close"
    player: Seat


@dataclass(frozen=True, slots=True)
class Marriage:
    """§6.5 declare K and Q of ``suit``."""

    TYPE: ClassVar[str] = "marriage"
    player: Seat
    suit: Suit


Move = Claim | Exchange | Close | Marriage | Play | NextDeal  # Play: §6.6, a card led or followed (moves.Play)
GAME: Final = GameInfo(
    game_id="schnapsen", name="Schnapsen", rules_version="schnapsen/1",
    player_counts=(2,), default_players=2,
    move_classes={cls.TYPE: cls for cls in (Claim, Exchange, Close, Marriage, Play, NextDeal)},
    # Parse problems reported before the turn check, in §8 order (the edge ranks them).
    parse_order=("unknown_move_type", "invalid_move", "invalid_player", "invalid_card", "invalid_deck"),
    early_parse_codes=frozenset({"unknown_move_type", "invalid_move", "invalid_player", "invalid_card"}),
    # The game's own problem codes (§8), in the table's order; the contract's <Game>ProblemCode.
    codes=("not_leader", "claim_not_allowed", "marriage_pending", "talon_closed", "talon_exhausted",
           "no_trump_jack", "talon_too_small", "no_marriage", "marriage_requires_trick",
           "must_play_marriage_card", "must_follow_suit", "must_head_trick", "must_trump"),
)
GAME_ID, NAME, RULES_VERSION, PLAYER_COUNTS, DEFAULT_PLAYERS, MOVE_TYPES, MOVE_CLASSES = GAME.constants()

# Moves are values; the ones legal_moves lists are interned so listing them allocates nothing.
_CLAIM: Final = (Claim(0), Claim(1))
_EXCHANGE: Final = (Exchange(0), Exchange(1))
_CLOSE: Final = (Close(0), Close(1))
_MARRIAGE: Final = {(p, s): Marriage(p, s) for p in (0, 1) for s in SUIT_ORDER}
_PLAY: Final = {(p, c): Play(p, c) for p in (0, 1) for c in PACK}
_PLAY_OF: Final = tuple({c: _PLAY[p, c] for c in PACK} for p in (0, 1))  # by seat, then card
_MARRIAGE_OF: Final = tuple({s: _MARRIAGE[p, s] for s in SUIT_ORDER} for p in (0, 1))
_NEXT_DEAL: Final = (NextDeal(0, pack=PACK), NextDeal(1, pack=PACK))
_KING: Final = {s: Card("K", s) for s in SUIT_ORDER}
_QUEEN: Final = {s: Card("Q", s) for s in SUIT_ORDER}
_JACK: Final = {s: Card("J", s) for s in SUIT_ORDER}


# --- setup (§4) -------------------------------------------------------------------------------


def pack(options: Options, players: int = 2) -> tuple[Card, ...]:
    """The 20-card pack (§2) in canonical order."""
    return PACK


def _deal(options: Options, deck: Sequence[Card], dealer: Seat) -> tuple[
    tuple[tuple[Card, ...], tuple[Card, ...]], tuple[Card, ...], Card
]:
    """§4.2: 3 to eldest, 3 to dealer, trump card, 2 to eldest, 2 to dealer, rest the talon."""
    check_dealt(GAME, deck, PACK, "4.2")
    eldest_hand = tuple(deck[0:3]) + tuple(deck[7:9])
    dealer_hand = tuple(deck[3:6]) + tuple(deck[9:11])
    hands = (dealer_hand, eldest_hand) if dealer == 0 else (eldest_hand, dealer_hand)
    return hands, tuple(deck[11:]), deck[6]


def _fresh_deal(state: State, deck: Sequence[Card], dealer: Seat, deal_number: int) -> State:
    """``state`` (its match fields: options, game points, results, seq, seed) with deal
    ``deal_number`` dealt from ``deck`` by ``dealer`` (§4)."""
    hands, talon, trump = _deal(state.options, deck, dealer)
    eldest = 1 - dealer
    fields = list(state)
    fields[_PHASE] = _PHASE_PLAY
    fields[_DEAL_NUMBER] = deal_number
    fields[_DEALER] = dealer
    fields[_HANDS] = hands
    fields[_TALON] = talon
    fields[_TRUMP_CARD] = trump
    fields[_TRUMP_SUIT] = trump.suit
    fields[_CLOSED_BY] = fields[_CLOSING] = fields[_PENDING] = fields[_LAST_TRICK] = fields[_RESULT] = None
    fields[_LEADER] = fields[_TO_MOVE] = eldest  # §4.3: the eldest leads
    fields[_TRICK] = fields[_REVEALED] = ()
    fields[_TRICKS] = fields[_MARRIAGES] = ((), ())
    return _new_state(State, fields)


def new_game(options: Options, players: int, deck: Sequence[Card], seed: int | None = None) -> State:
    """Deal the first deal of a match from ``deck`` (top card first). Raises BadSetup."""
    check_players(GAME, players)
    blank = _new_state(State, (options, _PHASE_PLAY, 1, options.dealer, (0, 0)) + (None,) * 15 + ((), 0, seed))
    return _fresh_deal(blank, deck, options.dealer, 1)  # the match fields, then the first deal


def initial_events(state: State) -> list[Event]:
    """The events a new game starts with: the first deal."""
    return [{"type": "deal_started", "dealer": state.dealer, "deal_number": state.deal_number, "trump_card": state.trump_card}]


# --- derived values (§5.1, §7.1) ----------------------------------------------------------------


def talon_size(state: State) -> int:
    """Face-down talon cards, plus one while the trump card lies under the talon."""
    return len(state.talon) + (state.trump_card is not None)


def card_points(state: State, seat: Seat) -> int:
    """Card points of the tricks ``seat`` has won."""
    cp = CARD_POINTS
    total = 0
    for a, b in state.tricks[seat]:
        total += cp[a.rank] + cp[b.rank]
    return total


def points(state: State, seat: Seat) -> int:
    """§7.1 counted points: card points, plus marriages once the seat has won a trick."""
    total = card_points(state, seat)
    if state.tricks[seat]:
        for m in state.marriages[seat]:
            total += m.points
    return total


def _strict(state: State) -> bool:
    """§6.6: strict following once the talon is closed or exhausted."""
    return state.closed_by is not None or (not state.talon and state.trump_card is None)


def _value(opp_tricks: int, opp_points: int) -> int:
    """§7.2 value table."""
    if opp_tricks == 0:
        return 3
    return 2 if opp_points < 33 else 1


def _penalty(tricks: int) -> int:
    """§7.2 penalty for a failed close or a false claim."""
    return 3 if tricks == 0 else 2


# --- whose turn, what is legal (§6) ----------------------------------------------------------


def players(state: State) -> int:
    """Number of seats (always 2)."""
    return 2


def to_move(state: State) -> frozenset[Seat]:
    """The seat to act; empty once the match is over."""
    return frozenset() if state.to_move is None else frozenset((state.to_move,))


def _follow_options(hand: tuple[Card, ...], led: Card, trump: Suit) -> Sequence[Card]:
    """§6.6 strict play: head the trick in suit, else any of the suit, else trump, else anything."""
    suit, floor = led.suit, RANK[led.rank]
    same: list[Card] = []
    heading: list[Card] = []
    for c in hand:  # loops, not comprehensions (a call each in Python 3.11): listed, then checked, at every strict follow
        if c.suit is suit:
            same.append(c)
            if RANK[c.rank] > floor:
                heading.append(c)
    if same:
        return heading or same
    if suit is not trump:
        trumps: list[Card] = []
        for c in hand:
            if c.suit is trump:
                trumps.append(c)
        if trumps:
            return trumps
    return hand


def _playable(state: State, p: Seat) -> Sequence[Card]:
    """The cards seat ``p`` (the seat to act in a deal in play) may play now: the one statement
    that ``legal_moves`` lists and ``step`` accepts a ``play`` by (§6.5, §6.6)."""
    hand = state.hands[p]
    if state.trick:  # follow turn: strict play once the talon is closed or exhausted
        if state.closed_by is None and (state.talon or state.trump_card is not None):
            return hand
        return _follow_options(hand, state.trick[0], state.trump_suit)
    pending = state.marriage_pending
    if pending is not None:  # §6.5: lead the K or Q of the declared suit
        king, queen = _KING[pending], _QUEEN[pending]
        return [c for c in hand if c == king or c == queen]
    return hand


def legal_moves(state: State) -> list[Move]:
    """Every legal move of the seat to act, in §6.8 reference order."""
    if state.phase is not _PHASE_PLAY:
        if state.phase is _PHASE_DEAL_OVER:
            return [_NEXT_DEAL[state.to_move]]  # type: ignore[index]
        return []
    p = state.to_move
    assert p is not None
    plays = _PLAY_OF[p].__getitem__
    if state.trick:  # follow turn
        return list(map(plays, _playable(state, p)))
    opts = state.options
    out: list[Move] = [] if opts.auto_claim else [_CLAIM[p]]
    if state.marriage_pending is not None:  # §6.5: only claim, or lead the K or Q of the declared suit
        out.extend(map(plays, _playable(state, p)))
        return out
    exchange, close = _talon_refusals(state, p)
    if exchange is None:
        out.append(_EXCHANGE[p])
    if close is None:
        out.append(_CLOSE[p])
    hand = state.hands[p]
    suits = []
    for c in hand:  # a loop, not a comprehension: this runs at every lead; each King held is a candidate
        if c.rank == "K" and _marriage_refusal(state, p, c.suit) is None:
            suits.append(c.suit)
    if suits:
        if len(suits) > 1:
            suits.sort(key=SUIT_ORDER.index)
        marriages = _MARRIAGE_OF[p]
        out.extend([marriages[s] for s in suits])
    out.extend(map(plays, hand))
    return out


def _talon_refusals(state: State, p: Seat) -> tuple[str | None, str | None]:
    """§6.1, §6.3: the first §8 code refusing the leader ``p`` (no marriage pending) an ``exchange``
    and a ``close``, each None when he may: the one statement that ``legal_moves`` lists both by and
    ``step`` refuses them by."""
    if state.closed_by is not None:
        return "talon_closed", "talon_closed"
    trump = state.trump_card
    size = len(state.talon) + (trump is not None)
    if size == 0:
        return "talon_exhausted", "talon_exhausted"
    close = "talon_too_small" if size < 3 else None
    if trump is None or _JACK[state.trump_suit] not in state.hands[p]:  # the turned-up trump is never in a hand
        return "no_trump_jack", close
    return ("talon_too_small" if size < (2 if state.options.exchange_with_two_left else 3) else None), close


def _marriage_refusal(state: State, p: Seat, suit: Suit) -> str | None:
    """§6.5, §3: the first §8 code refusing the leader ``p`` (no marriage pending) a marriage in
    ``suit``, or None when he may declare it: the one statement that ``legal_moves`` lists marriages
    by and ``step`` refuses them by."""
    hand = state.hands[p]
    if _KING[suit] not in hand or _QUEEN[suit] not in hand:
        return "no_marriage"
    if state.options.marriage_requires_trick and not state.tricks[p]:
        return "marriage_requires_trick"
    return None


# --- checking (§8 order) --------------------------------------------------------------------


def _check(state: State, move: Move | BadMove) -> None:
    """Raise IllegalMove with the first §8 code that applies; return if the move is legal."""
    if state.phase is _PHASE_GAME_OVER:
        raise IllegalMove("game_over", "The match is over; no move is accepted.", GAME.rule("7.4"))
    move_type = move.type if isinstance(move, BadMove) else move.TYPE
    if state.phase is _PHASE_DEAL_OVER and move_type != "next_deal":
        raise IllegalMove("wrong_phase", "The deal is over; only next_deal is allowed.", GAME.rule("6.7"))
    if state.phase is _PHASE_PLAY and move_type == "next_deal":
        raise IllegalMove("wrong_phase", "next_deal is only allowed once the deal is over.", GAME.rule("6.7"))
    if isinstance(move, BadMove):  # the parse problems the rules put first (GAME.early_parse_codes)
        refuse_early(GAME, move)
    if move.player != state.to_move:
        raise IllegalMove("not_your_turn", f"It is seat {state.to_move}'s turn, not seat {move.player}'s.", GAME.rule("6.1"))
    match move:
        case BadMove():
            raise IllegalMove(move.code, move.detail, GAME.rule("8"))
        case NextDeal():
            if move.deck is not None:
                check_dealt(GAME, move.deck, PACK, "6.7", IllegalMove)
            return
        case Play():
            _check_play(state, move)
            return
        case Claim() | Exchange() | Close() | Marriage():
            _check_lead_action(state, move)
            return
        case _:
            assert_never(move)


def _check_lead_action(state: State, move: Claim | Exchange | Close | Marriage) -> None:
    p = move.player
    if state.trick:
        raise IllegalMove("not_leader", f"Only the leader may {move.TYPE}; seat {p} is following.", GAME.rule("6.1"))
    if isinstance(move, Claim):
        if state.options.auto_claim:
            raise IllegalMove("claim_not_allowed", "Claims are automatic under the auto_claim option.", GAME.rule("3"))
        return
    if state.marriage_pending is not None:
        raise IllegalMove(
            "marriage_pending", f"A marriage in {state.marriage_pending.value} was declared; lead its K or Q.", GAME.rule("6.1")
        )
    if isinstance(move, Marriage):
        code = _marriage_refusal(state, p, move.suit)  # worded here, decided there
        if code is None:
            return
        if code == "no_marriage":
            raise IllegalMove("no_marriage", f"Seat {p} does not hold K and Q of {move.suit.value}.", GAME.rule("6.5"))
        raise IllegalMove("marriage_requires_trick", "A marriage needs a trick won first in this deal.", GAME.rule("3"))
    exchange = isinstance(move, Exchange)
    code = _talon_refusals(state, p)[0 if exchange else 1]  # worded here, decided there
    if code is None:
        return
    if code == "talon_closed":
        raise IllegalMove("talon_closed", f"The talon was closed by seat {state.closed_by}.", GAME.rule("6.1"))
    if code == "talon_exhausted":
        raise IllegalMove("talon_exhausted", "The talon is exhausted.", GAME.rule("6.1"))
    if code == "no_trump_jack":
        raise IllegalMove("no_trump_jack", f"Seat {p} does not hold the trump Jack {_JACK[state.trump_suit]}.", GAME.rule("6.3"))
    size = talon_size(state)  # talon_too_small
    raise IllegalMove("talon_too_small", f"The talon size is {size}; " + (
        "too small to exchange." if exchange else "closing needs at least 3."), GAME.rule("6.1"))


def _check_play(state: State, move: Play) -> None:
    p, c = move.player, move.card
    hand = state.hands[p]
    if c not in hand:
        raise IllegalMove("card_not_in_hand", f"{c} is not in seat {p}'s hand.", GAME.rule("6.6"))
    if not state.trick:
        pending = state.marriage_pending
        if pending is not None and c not in (_KING[pending], _QUEEN[pending]):
            raise IllegalMove(
                "must_play_marriage_card", f"After declaring {pending.value}, lead its K or Q, not {c}.", GAME.rule("6.5")
            )
        return
    if not _strict(state):
        return
    led = state.trick[0]
    allowed = _follow_options(hand, led, state.trump_suit)  # the one statement of §6.6 strict play
    if c in allowed:
        return
    # refused: name the rule of §6.6 it breaks, the first in §8 order
    if allowed[0].suit is led.suit and c.suit is not led.suit:
        raise IllegalMove("must_follow_suit", f"{led.suit.value} was led and seat {p} holds {names(of_suit(hand, led.suit))}.", GAME.rule("6.6"))
    if allowed[0].suit is led.suit:
        raise IllegalMove("must_head_trick", f"{c} does not beat {led}; seat {p} holds {names(allowed)}.", GAME.rule("6.6"))
    raise IllegalMove("must_trump", f"Seat {p} is void in {led.suit.value} and must trump with {names(allowed)}.", GAME.rule("6.6"))


# --- transitions ----------------------------------------------------------------------------


def apply(state: State, move: Move | BadMove) -> State:
    """The state after ``move``. Raises IllegalMove (state unchanged) unless the move is legal."""
    return _advance(state, move, None)


def step(state: State, move: Move | BadMove) -> tuple[State, list[Event]]:
    """``apply``, also returning the events the move caused, in order."""
    events: list[Event] = []
    return _advance(state, move, events), events


def _advance(state: State, move: Move | BadMove, events: list[Event] | None) -> State:
    """The state after ``move``, appending its events to ``events`` unless it is None (``apply``)."""
    if type(move) is Play and state.phase is _PHASE_PLAY:
        # the common move: a card the seat to act may play (the same ``_playable`` that
        # legal_moves lists) goes straight to its transition; anything else, and every refusal,
        # takes the full §8 check below
        p, c = move.player, move.card
        if p == state.to_move:
            if state.trick:
                if c in _playable(state, p):
                    if events is not None:
                        events.append({"type": "card_played", "player": p, "card": c})
                    return _finish_trick(state, p, c, events)
            elif c in (state.hands[p] if state.marriage_pending is None else _playable(state, p)):  # _playable's lead
                if events is not None:
                    events.append({"type": "card_played", "player": p, "card": c})
                return _lead(state, p, c)
    _check(state, move)
    assert not isinstance(move, BadMove)
    new = _next(state, move, [] if events is None else events)
    if type(move) is not Play:  # a play's transition (_lead, _finish_trick) sets ``seq`` itself
        new = new._replace(seq=state.seq + 1)
    return new


# Field positions in ``State``: the move path builds the next state from a list of the fields
# (``tuple.__new__``), several times faster than ``NamedTuple._replace``.
_F: Final = {name: i for i, name in enumerate(State._fields)}
_PHASE, _DEAL_NUMBER, _DEALER, _HANDS, _TALON = _F["phase"], _F["deal_number"], _F["dealer"], _F["hands"], _F["talon"]
_TRUMP_CARD, _TRUMP_SUIT, _CLOSED_BY, _CLOSING, _LEADER = _F["trump_card"], _F["trump_suit"], _F["closed_by"], _F["closing"], _F["leader"]
_TO_MOVE, _MARRIAGES, _RESULT = _F["to_move"], _F["marriages"], _F["result"]
_TRICK, _PENDING, _TRICKS, _REVEALED, _LAST_TRICK, _SEQ = (
    _F["trick"], _F["marriage_pending"], _F["tricks"], _F["revealed"], _F["last_trick"], _F["seq"]
)
_new_state: Final = tuple.__new__


def _lead(state: State, p: Seat, c: Card) -> State:
    """§6.6 the leader plays ``c``; after a marriage (§6.5) its other card becomes known."""
    fields = list(state)
    hands = state.hands
    hand = hands[p]
    i = hand.index(c)
    hand = hand[:i] + hand[i + 1:]
    fields[_HANDS] = (hand, hands[1]) if p == 0 else (hands[0], hand)
    pending = state.marriage_pending
    if pending is not None:
        partner = _QUEEN[pending] if c.rank == "K" else _KING[pending]
        fields[_REVEALED] = state.revealed + (Reveal(p, partner),)
        fields[_PENDING] = None
    fields[_TRICK] = (c,)
    fields[_TO_MOVE] = 1 - p
    fields[_SEQ] = state.seq + 1
    return _new_state(State, fields)


def _next(state: State, move: Move, events: list[Event]) -> State:
    match move:
        case Claim(player=p):
            total = points(state, p)
            correct = total >= WINNING_POINTS
            events.append({"type": "claim", "player": p, "points": total, "correct": correct})
            return _end_by_claim(state, p, correct, events)
        case Exchange(player=p):
            old = state.trump_card
            jack = _JACK[state.trump_suit]
            assert old is not None
            hand = tuple(c for c in state.hands[p] if c != jack) + (old,)
            events.append({"type": "exchange", "player": p, "card": old, "jack": jack})
            return state._replace(
                hands=_set(state.hands, p, hand),
                trump_card=jack,
                revealed=state.revealed + (Reveal(p, old),),
            )
        case Close(player=p):
            opp = 1 - p
            snapshot = Closing(len(state.tricks[opp]), points(state, opp))
            events.append({"type": "close", "player": p})
            return state._replace(closed_by=p, closing=snapshot)
        case Marriage(player=p, suit=s):
            value = TRUMP_MARRIAGE_POINTS if s is state.trump_suit else MARRIAGE_POINTS
            events.append({"type": "marriage", "player": p, "suit": s, "points": value})
            new = state._replace(
                marriages=_set(state.marriages, p, state.marriages[p] + (Meld(s, value),)), marriage_pending=s
            )
            if state.options.auto_claim and new.tricks[p] and points(new, p) >= WINNING_POINTS:
                events.append({"type": "claim", "player": p, "points": points(new, p), "correct": True, "auto": True})
                return _end_by_claim(new, p, True, events)
            return new
        case Play(player=p, card=c):
            events.append({"type": "card_played", "player": p, "card": c})
            if state.trick:
                return _finish_trick(state, p, c, events)
            return _lead(state, p, c)
        case NextDeal(player=q, deck=deck):
            if deck is None:
                raise IllegalMove("invalid_deck", "next_deal needs a deck; the service supplies one.", GAME.rule("6.7"))
            new = _fresh_deal(state, deck, q, state.deal_number + 1)
            events.append({"type": "deal_started", "dealer": q, "deal_number": new.deal_number, "trump_card": new.trump_card})
            return new
        case _:
            assert_never(move)


def _set(pair: tuple, seat: Seat, value: object) -> tuple:  # type: ignore[type-arg]
    return (value, pair[1]) if seat == 0 else (pair[0], value)


def _finish_trick(state: State, follower: Seat, followed: Card, events: list[Event] | None) -> State:
    """§6.6 trick resolution, drawing, and the end-of-trick checks (events to ``events`` unless None)."""
    leader = state.leader
    led = state.trick[0]
    if followed.suit is led.suit:  # beats(): the higher rank of the suit, else only a trump
        winner = follower if RANK[followed.rank] > RANK[led.rank] else leader
    else:
        winner = follower if followed.suit is state.trump_suit else leader
    hands = list(state.hands)
    hand = hands[follower]
    i = hand.index(followed)
    hands[follower] = hand[:i] + hand[i + 1:]
    trick = (led, followed)
    tricks = state.tricks
    won = tricks[winner] + (trick,)
    if events is not None:
        gained = CARD_POINTS[led.rank] + CARD_POINTS[followed.rank]
        events.append({"type": "trick_won", "player": winner, "cards": trick, "points": gained})
    fields: list[Any] = list(state)
    talon = state.talon
    if state.closed_by is None and talon:  # the winner draws first, the trump card comes last
        loser = 1 - winner
        if len(talon) >= 2:
            hands[winner] = hands[winner] + (talon[0],)
            hands[loser] = hands[loser] + (talon[1],)
            fields[_TALON] = talon[2:]
            if events is not None:
                events.append({"type": "card_drawn", "player": winner, "card": talon[0], "private_to": winner, "private": ("card",)})
                events.append({"type": "card_drawn", "player": loser, "card": talon[1], "private_to": loser, "private": ("card",)})
        else:
            _draw_last(state, winner, hands, fields, events)
    elif state.closed_by is None and state.trump_card is not None:
        _draw_last(state, winner, hands, fields, events)
    fields[_HANDS] = (hands[0], hands[1])
    fields[_TRICKS] = (won, tricks[1]) if winner == 0 else (tricks[0], won)
    fields[_TRICK] = ()
    fields[_LAST_TRICK] = _new_state(LastTrick, (trick, leader, winner))
    fields[_LEADER] = fields[_TO_MOVE] = winner
    fields[_SEQ] = state.seq + 1
    new: State = _new_state(State, fields)
    if not hands[0] and not hands[1]:
        return _end_of_play(new, winner, events)
    # points(new, winner), inline, and only once 66 is within reach
    if state.options.auto_claim and _MOST_CARD_POINTS[len(won)] + 40 * len(state.marriages[winner]) >= WINNING_POINTS:
        cp = CARD_POINTS
        total = 0
        for a, b in won:
            total += cp[a.rank] + cp[b.rank]
        for meld in state.marriages[winner]:
            total += meld.points
        if total >= WINNING_POINTS:
            if events is not None:
                events.append({"type": "claim", "player": winner, "points": total, "correct": True, "auto": True})
            return _end_by_claim(new, winner, True, events)
    return new


def _draw_last(state: State, winner: Seat, hands: list[tuple[Card, ...]], fields: list[Any], events: list[Event] | None) -> None:
    """§6.6 the draws from a talon of one card or less: each seat from the winner on takes the top
    card while one is left, then the trump card (which becomes known)."""
    talon, trump_card = state.talon, state.trump_card
    for taker in (winner, 1 - winner):
        if talon:
            drawn, talon = talon[0], talon[1:]
            if events is not None:
                events.append({"type": "card_drawn", "player": taker, "card": drawn, "private_to": taker, "private": ("card",)})
        elif trump_card is not None:
            drawn, trump_card = trump_card, None
            fields[_REVEALED] = state.revealed + (Reveal(taker, drawn),)
            if events is not None:
                events.append({"type": "card_drawn", "player": taker, "card": drawn, "trump_card": True})
        else:
            break
        hands[taker] = hands[taker] + (drawn,)
    fields[_TALON] = talon
    fields[_TRUMP_CARD] = trump_card


def _end_by_claim(state: State, x: Seat, correct: bool, events: list[Event] | None) -> State:
    """§7.3 rows for a correct or false claim by ``x``."""
    y = 1 - x
    closer, closing = state.closed_by, state.closing
    if correct:
        if closer is None:
            value = _value(len(state.tricks[y]), points(state, y))
        elif closer == x:
            assert closing is not None
            value = _value(closing.opp_tricks, closing.opp_points)
        else:
            assert closing is not None
            value = _penalty(closing.opp_tricks)
        return _end_deal(state, x, value, _REASON_CLAIM, events)
    if closer == x:
        assert closing is not None
        value = _penalty(closing.opp_tricks)
    else:
        value = _penalty(len(state.tricks[y]))
    return _end_deal(state, y, value, _REASON_FALSE_CLAIM, events)


def _end_of_play(state: State, last_winner: Seat, events: list[Event] | None) -> State:
    """§7.3 rows for a deal played out to the last trick."""
    closer, closing = state.closed_by, state.closing
    if closer is None:
        loser = 1 - last_winner
        return _end_deal(state, last_winner, _value(len(state.tricks[loser]), points(state, loser)), _REASON_LAST_TRICK, events)
    assert closing is not None
    if last_winner == closer and points(state, closer) >= WINNING_POINTS:
        return _end_deal(state, closer, _value(closing.opp_tricks, closing.opp_points), _REASON_CLAIM, events)
    return _end_deal(state, 1 - closer, _penalty(closing.opp_tricks), _REASON_CLOSER_FAILED, events)


def _end_deal(state: State, winner: Seat, value: int, reason: Reason, events: list[Event] | None) -> State:
    """Record the deal's result; §7.4 match end or wait for the next dealer (events to ``events``
    unless None)."""
    result: Result = _new_state(Result, (winner, value, reason, (points(state, 0), points(state, 1))))
    game_points = _set(state.game_points, winner, state.game_points[winner] + value)
    over = game_points[winner] >= state.options.target
    if events is not None:
        events.append({"type": "deal_over", "winner": winner, "game_points": value, "reason": reason, "points": result.points})
        if over:
            events.append({"type": "game_over", "winner": [winner]})
    return state._replace(
        phase=_PHASE_GAME_OVER if over else _PHASE_DEAL_OVER,
        game_points=game_points,
        result=result,
        results=state.results + (result,),
        to_move=None if over else 1 - state.dealer,
        trick=(),
        marriage_pending=None,
    )


# --- the outside view ------------------------------------------------------------------------


def outcome(state: State) -> Outcome | None:
    """The match winner once the match is over (§7.4)."""
    if state.phase is not _PHASE_GAME_OVER or state.result is None:
        return None
    return Outcome(frozenset((state.result.winner,)), "target_reached")


def derived(state: State) -> dict[str, object]:
    """The derived values responses add to a full state (§5.1); ignored on input."""
    return {
        "tricks_won": [len(state.tricks[0]), len(state.tricks[1])],
        "card_points": [card_points(state, 0), card_points(state, 1)],
        "marriage_points": [sum(m.points for m in state.marriages[p]) for p in (0, 1)],
        "points": [points(state, 0), points(state, 1)],
        "talon_size": talon_size(state),
    }


def scores(state: State, seat: Seat | None = None) -> dict[str, object]:
    """``totals`` = game points; this deal's tricks, and its points when ``show_points`` is on."""
    out: dict[str, object] = {
        "totals": list(state.game_points),
        "tricks_won": [len(state.tricks[0]), len(state.tricks[1])],
    }
    if state.options.show_points:
        out["card_points"] = [card_points(state, 0), card_points(state, 1)]
        out["marriage_points"] = [sum(m.points for m in state.marriages[p]) for p in (0, 1)]
        out["points"] = [points(state, 0), points(state, 1)]
    return out


def _known_in_hand(state: State, seat: Seat) -> list[Card]:
    hand = state.hands[seat]
    seen: list[Card] = []
    for r in state.revealed:
        if r.player == seat and r.card in hand and r.card not in seen:
            seen.append(r.card)
    return seen


def view(state: State, seat: Seat | None) -> SchnapsenEngineView:
    """§5.3 what ``seat`` may see (``None``: the public view, no hand at all)."""
    out: dict[str, object] = {
        **view_head(GAME, state, seat),
        "options": state.options,
        "phase": state.phase,
        "deal_number": state.deal_number,
        "dealer": state.dealer,
        "game_points": state.game_points,
    }
    if seat is None:
        out["hand_counts"] = [len(state.hands[0]), len(state.hands[1])]
        out["known_cards"] = [_known_in_hand(state, 0), _known_in_hand(state, 1)]
    else:
        out["hand"] = state.hands[seat]
        out["opponent_hand_count"] = len(state.hands[1 - seat])
        out["known_opponent_cards"] = _known_in_hand(state, 1 - seat)
    out.update(
        talon_count=len(state.talon),
        talon_size=talon_size(state),
        trump_card=state.trump_card,
        trump_suit=state.trump_suit,
        closed_by=state.closed_by,
        closing=state.closing,
        leader=state.leader,
        to_move=state.to_move,
        trick=[{"player": state.leader, "card": c} for c in state.trick],
        marriage_pending=state.marriage_pending,
        marriages=state.marriages,
        tricks_won=[len(state.tricks[0]), len(state.tricks[1])],
        last_trick=state.last_trick,
        result=state.result,
        results=state.results,
    )
    if state.options.show_points:
        out["tricks"] = state.tricks
        out["card_points"] = [card_points(state, 0), card_points(state, 1)]
        out["points"] = [points(state, 0), points(state, 1)]
    if seat is not None and seat == state.to_move:
        out["legal_moves"] = legal_moves(state)
    return cast("SchnapsenEngineView", out)


def visible_cards(state: State, seat: Seat | None) -> frozenset[Card]:
    """Every card ``seat`` may see now (tests scan views against it)."""
    seen: set[Card] = set()
    if seat is not None:
        seen.update(state.hands[seat])
    for p in (0, 1):
        seen.update(_known_in_hand(state, p))
        for a, b in state.tricks[p]:
            seen.update((a, b))
    if state.trump_card is not None:
        seen.add(state.trump_card)
    seen.update(state.trick)
    for r in state.revealed:
        seen.add(r.card)
    return frozenset(seen)


# --- consistency of a client-supplied state (docs/rules/conventions.md "State validation")----------------


def check_state(state: State) -> None:
    """Raise InvalidState (with field paths) unless the state could arise in play."""
    bad = Problems()
    s = state
    if s.dealer not in (0, 1):
        bad("dealer", "must be 0 or 1")
    if s.leader not in (0, 1):
        bad("leader", "must be 0 or 1")
    for path, seat in (("closed_by", s.closed_by), ("to_move", s.to_move)):
        if seat is not None and seat not in (0, 1):
            bad(path, "must be 0, 1 or null")
    if s.deal_number < 1:
        bad("deal_number", "must be at least 1")
    if s.seq < 0:
        bad("seq", "must not be negative")
    if len(s.trick) > 1:
        bad("trick", "holds at most the led card")
    if any(g < 0 for g in s.game_points):
        bad("game_points", "must not be negative")
    # every card of the pack exactly once
    places: list[Card] = [*s.hands[0], *s.hands[1], *s.talon, *s.trick]
    if s.trump_card is not None:
        places.append(s.trump_card)
    for p in (0, 1):
        for a, b in s.tricks[p]:
            places += (a, b)
    bad.cards("hands", places, PACK, "cards in hands, talon, trump card, trick and tricks must be the pack")
    bad.check()
    if s.trump_card is not None and s.trump_card.suit is not s.trump_suit:
        bad("trump_suit", f"must be the suit of the trump card {s.trump_card}")
    if (s.closed_by is None) != (s.closing is None):
        bad("closing", "is set exactly when closed_by is set")
    for p in (0, 1):
        suits = [m.suit for m in s.marriages[p]]
        if len(set(suits)) != len(suits):
            bad(f"marriages.{p}", "a suit is declared twice")
        for i, m in enumerate(s.marriages[p]):
            want = TRUMP_MARRIAGE_POINTS if m.suit is s.trump_suit else MARRIAGE_POINTS
            if m.points != want:
                bad(f"marriages.{p}.{i}.points", f"must be {want}")
    n_tricks = len(s.tricks[0]) + len(s.tricks[1])
    if n_tricks > 10:
        bad("tricks", "at most 10 tricks in a deal")
    # results and game points agree; the phase fits the scores
    totals = [0, 0]
    for r in s.results:
        if r.winner in (0, 1):
            totals[r.winner] += r.game_points
    if tuple(totals) != tuple(s.game_points):
        bad("game_points", "must equal the sum of the results' game points")
    target = s.options.target
    if s.phase is _PHASE_PLAY:
        _check_play_phase(s, n_tricks, bad)
    else:
        if s.result is None or not s.results or s.result != s.results[-1]:
            bad("result", "a finished deal has a result equal to the last of results")
        if s.phase is _PHASE_DEAL_OVER:
            if max(s.game_points) >= target:
                bad("phase", "deal_over although a seat reached the target")
            if s.to_move != 1 - s.dealer:
                bad("to_move", "in deal_over the next dealer (1 - dealer) is to move")
        else:
            if max(s.game_points) < target:
                bad("phase", "game_over although no seat reached the target")
            if s.to_move is not None:
                bad("to_move", "must be null in game_over")
        if s.trick or s.marriage_pending is not None:
            bad("trick", "no trick is in progress once the deal is over")
    bad.check()


def _check_play_phase(s: State, n_tricks: int, add: Callable[[str, str], None]) -> None:
    """Consistency of a deal in progress: turn, hand sizes, talon, pending marriage."""
    if max(s.game_points) >= s.options.target:
        add("phase", "play although a seat reached the target")
    if s.result is not None and (not s.results or s.result != s.results[-1]):
        add("result", "must be null or the last of results")
    if len(s.results) != s.deal_number - 1:
        add("results", "one result per finished deal (deal_number - 1)")
    follower = 1 - s.leader
    want_to_move = follower if s.trick else s.leader
    if s.to_move != want_to_move:
        add("to_move", f"must be {want_to_move}: the {'follower' if s.trick else 'leader'}")
    lead_hand, follow_hand = len(s.hands[s.leader]), len(s.hands[follower])
    if lead_hand + len(s.trick) != follow_hand or follow_hand > HAND_SIZE or follow_hand == 0:
        add("hands", "hand sizes do not fit the trick in progress")
    size = len(s.talon) + (s.trump_card is not None)
    if s.closed_by is None:
        if size != max(0, 10 - 2 * n_tricks):
            add("talon", f"an open talon holds {max(0, 10 - 2 * n_tricks)} cards after {n_tricks} tricks")
        if size and follow_hand != HAND_SIZE:
            add("hands", "hands hold 5 cards while the talon lasts")
    if s.trump_card is None and s.talon:
        add("trump_card", "the trump card is drawn last")
    if s.marriage_pending is not None:
        hand = s.hands[s.leader]
        if s.trick or (_KING[s.marriage_pending] not in hand and _QUEEN[s.marriage_pending] not in hand):
            add("marriage_pending", "the leader must still hold the K or Q of the declared suit")
        if not s.marriages[s.leader] or s.marriages[s.leader][-1].suit is not s.marriage_pending:
            add("marriage_pending", "must be the leader's last declared marriage")
    if s.closed_by is not None and s.closing is not None and s.closing.opp_tricks > len(s.tricks[1 - s.closed_by]):
        add("closing.opp_tricks", "cannot exceed the tricks the non-closer has won")
