"""Seven Up (All Fours, High-Low-Jack, Old Sledge): 2 or 3 players alone, or 4 in partnerships.

The contract is ``docs/rules/seven_up.md``; section numbers (§) below refer to it. Pure
functions over an immutable ``State`` (a ``NamedTuple``); decks arrive as data. Trick resolution
and the three follow rules (``may_follow``) come from ``cards/tricks.py``, the High/Low/Jack/Game
count from ``cards/all_fours.py``; the trump-making (stand, beg, give, run) and the discard are this
game's own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, ClassVar, Final, NamedTuple, assert_never, cast

from ..cards import RANKS, SUITS, Card, Suit, names
from ..cards.all_fours import count_out, game_value
from ..cards.packs import full_52
from ..cards.tricks import FOLLOW_RULES, FOLLOW_SUIT, may_follow, of_suit, strength, trick_winner
from .base import BadMove, BadSetup, Event, GameInfo, IllegalMove, Outcome, Seat, quick_replace
from .kit import Problems, applier, check_dealt, check_players, check_seats, option, option_info, refuse_early, stepper, view_head
from .kit import players as players  # noqa: PLC0414 (re-exported: state.players)
from .kit import status as status  # noqa: PLC0414 (re-exported: the envelope status, from the phase)

if TYPE_CHECKING:
    from ..typed import SevenUpEngineView
from .moves import NextDeal, Play

# §2: rank order (low → high) for tricks and for High/Low.
RANK: Final = strength(RANKS)
PACK: Final = full_52()
_PACK_SET: Final = frozenset(PACK)
HAND_SIZE: Final = 6
PACKET: Final = 3
GAME_TIES: Final = ("none", "eldest")
_JACK: Final = {s: Card("J", s) for s in SUITS}


class Phase(StrEnum):
    """§5 phases."""

    STAND_OR_BEG = "stand_or_beg"
    GIVE_OR_RUN = "give_or_run"
    DISCARD = "discard"
    PLAY = "play"
    DEAL_OVER = "deal_over"
    GAME_OVER = "game_over"


(
    _PHASE_STAND_OR_BEG, _PHASE_GIVE_OR_RUN, _PHASE_DISCARD, _PHASE_PLAY, _PHASE_DEAL_OVER, _PHASE_GAME_OVER,
) = Phase  # the members, in order, as module constants (kit: the move path)


@dataclass(frozen=True, slots=True)
class Options:
    """§3 options, defaults as in the spec. ``start_scores = ()`` means every party starts at 0."""

    dealer: Seat = option(0, type="integer", minimum=0, maximum=3, description="Dealer of the first deal (a seat 0..players-1).")
    target: int = option(7, type="integer", minimum=1, maximum=1000, description="Points needed to win.")
    follow_rule: str = option(
        FOLLOW_SUIT, type="string", enum=list(FOLLOW_RULES),
        description="follow_suit: must follow if able; follow_or_trump: may trump instead of following; "
        "follow_or_trump_compulsory: must follow or trump, and must trump when void in the led suit.",
    )
    discard_after_run: bool = option(
        True, type="boolean",
        description="After the cards were run, each player discards down to 6 (else every card is played).",
    )
    game_tie: str = option(
        "none", type="string", enum=list(GAME_TIES),
        description="A tie for Game: nobody scores it, or the tied party first from the eldest.",
    )
    gift_can_win: bool = option(
        True, type="boolean",
        description="The dealer may give one even when the gift reaches the target.",
    )
    gift_to_all_opponents: bool = option(
        False, type="boolean",
        description="Three players: take one gives a point to each non-dealer.",
    )
    blind_partners: bool = option(
        True, type="boolean",
        description="Four players: the dealer's partner and the pone see their hands only once trump is fixed.",
    )
    start_scores: tuple[int, ...] = option(
        (), type="array", items={"type": "integer", "minimum": 0},
        description="Scores per party at the start (each below the target); empty = all 0.",
    )


OPTION_INFO: Final[Mapping[str, Mapping[str, object]]] = option_info(Options)


# --- state records (§5) ---------------------------------------------------------------------------


class TrickCard(NamedTuple):
    """A card played to a trick, with who played it."""

    player: Seat
    card: Card

    def __deepcopy__(self, memo: object) -> TrickCard:
        return self  # an immutable value of immutable parts


class Trick(NamedTuple):
    """A completed trick: its leader, the cards in play order, and its winner."""

    leader: Seat
    cards: tuple[TrickCard, ...]
    winner: Seat

    def __deepcopy__(self, memo: object) -> Trick:
        return self  # an immutable value of immutable parts


class HandEvent(NamedTuple):
    """A point scored during trump-making (§7.1): ``turned_jack`` (card = the jack) or ``gift``."""

    event: str
    party: int
    points: int
    card: Card | None

    def __deepcopy__(self, memo: object) -> HandEvent:
        return self  # an immutable value of immutable parts


class Award(NamedTuple):
    """One end-of-hand point (§7.3): who earned it and whether it was credited."""

    point: str
    card: Card | None
    seat: Seat | None
    party: int | None
    credited: bool

    def __deepcopy__(self, memo: object) -> Award:
        return self  # an immutable value of immutable parts


class LastHand(NamedTuple):
    """§7.3 the record of the last completed hand."""

    deal_number: int
    trump: Suit
    awards: tuple[Award, ...]
    game_totals: tuple[int, ...]

    def __deepcopy__(self, memo: object) -> LastHand:
        return self  # an immutable value of immutable parts


@quick_replace
class State(NamedTuple):
    """The whole truth of a Seven Up match (§5), hidden parts included."""

    options: Options
    players: int
    phase: Phase
    deal_number: int
    dealer: Seat
    eldest: Seat
    to_move: tuple[Seat, ...]
    scores: tuple[int, ...]
    hands: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]
    turnup: Card | None
    first_suit: Suit | None
    set_aside: tuple[Card, ...]
    runs: int
    begged: bool
    trump: Suit | None
    discards: tuple[tuple[Card, ...], ...]
    trick: tuple[TrickCard, ...]
    trick_leader: Seat | None
    tricks: tuple[Trick, ...]
    hand_events: tuple[HandEvent, ...]
    last_hand: LastHand | None
    redeal: bool
    winner: int | None
    seq: int = 0
    seed: int | None = None


# --- moves (§6) -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Stand:
    """§6.1 eldest keeps the turned-up suit."""

    TYPE: ClassVar[str] = "stand"
    player: Seat


@dataclass(frozen=True, slots=True)
class Beg:
    """§6.1 eldest begs."""

    TYPE: ClassVar[str] = "beg"
    player: Seat


@dataclass(frozen=True, slots=True)
class Give:
    """§6.2 the dealer answers a beg with "take one"."""

    TYPE: ClassVar[str] = "give"
    player: Seat


@dataclass(frozen=True, slots=True)
class Run:
    """§6.2 the dealer runs the cards for a new trump."""

    TYPE: ClassVar[str] = "run"
    player: Seat


@dataclass(frozen=True, slots=True)
class Discard:
    """§6.3 ``{"type": "discard", "player": p, "cards": [...]}``.

    Listed in ``legal_moves`` as a template ``{"type": "discard", "player": p, "count": k}`` that
    knows the hand (not part of its value or wire form); a concrete move naming ``k`` distinct
    cards of that hand fills it.
    """

    TYPE: ClassVar[str] = "discard"
    player: Seat
    cards: tuple[Card, ...] | None = None
    count: int | None = None
    hand: tuple[Card, ...] = field(default=(), compare=False, repr=False, metadata={"wire": False})

    def filled_by(self, move: object) -> bool:
        """A concrete discard by the same seat of ``count`` distinct cards of the hand fills this template."""
        return (
            isinstance(move, Discard)
            and self.count is not None
            and move.player == self.player
            and move.count is None
            and move.cards is not None
            and len(move.cards) == self.count
            and len(set(move.cards)) == self.count
            and all(c in self.hand for c in move.cards)
        )


Move = Stand | Beg | Give | Run | Discard | Play | NextDeal  # Play: §6.4, a card to the trick (moves.Play)
GAME: Final = GameInfo(
    game_id="seven_up", name="Seven Up", rules_version="seven_up/1",
    player_counts=(2, 3, 4), default_players=2,
    move_classes={cls.TYPE: cls for cls in (Stand, Beg, Give, Run, Discard, Play, NextDeal)},
    # Parse problems §8 lists before wrong_phase; invalid_card and invalid_deck come after not_your_turn.
    parse_order=("invalid_move", "unknown_move_type", "invalid_player", "invalid_card", "invalid_deck"),
    early_parse_codes=frozenset({"invalid_move", "unknown_move_type", "invalid_player"}),
    # The game's own problem codes (§8), in the table's order; the contract's <Game>ProblemCode.
    codes=("wrong_discard_count", "must_follow_suit", "must_trump", "gift_not_allowed"),
)
GAME_ID, NAME, RULES_VERSION, PLAYER_COUNTS, DEFAULT_PLAYERS, MOVE_TYPES, MOVE_CLASSES = GAME.constants()

_SEATS: Final = range(4)
_STAND: Final = tuple(Stand(p) for p in _SEATS)
_BEG: Final = tuple(Beg(p) for p in _SEATS)
_GIVE: Final = tuple(Give(p) for p in _SEATS)
_RUN: Final = tuple(Run(p) for p in _SEATS)
_PLAY: Final = {(p, c): Play(p, c) for p in _SEATS for c in PACK}
_NEXT_DEAL: Final = tuple(NextDeal(p, pack=PACK) for p in _SEATS)
_ALLOWED_TYPES: Final = {
    _PHASE_STAND_OR_BEG: frozenset({"stand", "beg"}),
    _PHASE_GIVE_OR_RUN: frozenset({"give", "run"}),
    _PHASE_DISCARD: frozenset({"discard"}),
    _PHASE_PLAY: frozenset({"play"}),
    _PHASE_DEAL_OVER: frozenset({"next_deal"}),
}


# --- seats and parties (§2, §4) -------------------------------------------------------------------


def parties(n: int) -> int:
    """Number of scoring parties: one per seat, or two partnerships with 4 players."""
    return 2 if n == 4 else n


def party_of(n: int, seat: Seat) -> int:
    """§2 the party of ``seat``."""
    return seat % 2 if n == 4 else seat


def dealing_order(n: int, dealer: Seat) -> tuple[Seat, ...]:
    """§4 eldest, eldest+1, …, dealer."""
    return tuple((dealer + 1 + i) % n for i in range(n))


def _with(seq: tuple, index: int, value: object) -> tuple:  # type: ignore[type-arg]
    return seq[:index] + (value,) + seq[index + 1 :]


# --- setup (§4) -----------------------------------------------------------------------------------


def pack(options: Options, players: int = 2) -> tuple[Card, ...]:
    """The standard 52-card pack (§2) in canonical order."""
    return PACK


def _check_options(options: Options, players: int) -> None:
    if options.dealer >= players:
        raise BadSetup("invalid_option", f"option dealer: {options.dealer} is not a seat of {players} players", GAME.rule("3"))
    if options.follow_rule not in FOLLOW_RULES:
        raise BadSetup("invalid_option", f"option follow_rule: {options.follow_rule!r} is not one of {FOLLOW_RULES}", GAME.rule("3"))
    if options.game_tie not in GAME_TIES:
        raise BadSetup("invalid_option", f"option game_tie: {options.game_tie!r} is not one of {GAME_TIES}", GAME.rule("3"))
    start = options.start_scores
    if start and (len(start) != parties(players) or not all(0 <= x < options.target for x in start)):
        raise BadSetup(
            "invalid_option",
            f"option start_scores: needs {parties(players)} scores, each from 0 to target - 1 = {options.target - 1}",
            GAME.rule("3"),
        )


def _deal(state: State, deck: Sequence[Card], dealer: Seat, events: list[Event]) -> State:
    """§4 deal procedure from ``deck`` (top first) for ``dealer``; scores a turned jack at once."""
    check_dealt(GAME, deck, PACK, "4")
    n = state.players
    order = dealing_order(n, dealer)
    hands: list[tuple[Card, ...]] = [()] * n
    p = 0
    for _ in range(2):  # two rounds of packets of 3
        for seat in order:
            hands[seat] = hands[seat] + tuple(deck[p : p + PACKET])
            p += PACKET
    turnup = deck[p]
    eldest = order[0]
    state = state._replace(
        phase=_PHASE_STAND_OR_BEG,
        dealer=dealer,
        eldest=eldest,
        to_move=(eldest,),
        hands=tuple(hands),
        stock=tuple(deck[p + 1 :]),
        turnup=turnup,
        first_suit=turnup.suit,
        set_aside=(),
        runs=0,
        begged=False,
        trump=None,
        discards=((),) * n,
        trick=(),
        trick_leader=None,
        tricks=(),
        hand_events=(),
        redeal=False,
    )
    events.append({"type": "deal_started", "dealer": dealer, "deal_number": state.deal_number, "turnup": turnup})
    if turnup.rank == "J":  # §4 step 5
        state = _score_now(state, "turned_jack", party_of(n, dealer), turnup, events)
    return state


def new_game(options: Options, players: int, deck: Sequence[Card], seed: int | None = None) -> State:
    """Deal the first deal of a match from ``deck`` (top card first). Raises BadSetup."""
    check_players(GAME, players)
    _check_options(options, players)
    scores = options.start_scores or (0,) * parties(players)
    blank = State(
        options=options,
        players=players,
        phase=_PHASE_STAND_OR_BEG,
        deal_number=1,
        dealer=options.dealer,
        eldest=(options.dealer + 1) % players,
        to_move=(),
        scores=tuple(scores),
        hands=((),) * players,
        stock=(),
        turnup=None,
        first_suit=None,
        set_aside=(),
        runs=0,
        begged=False,
        trump=None,
        discards=((),) * players,
        trick=(),
        trick_leader=None,
        tricks=(),
        hand_events=(),
        last_hand=None,
        redeal=False,
        winner=None,
        seq=0,
        seed=seed,
    )
    return _deal(blank, deck, options.dealer, [])


def initial_events(state: State) -> list[Event]:
    """The events a new game starts with: the first deal, and a turned jack if there was one."""
    events: list[Event] = [
        {"type": "deal_started", "dealer": state.dealer, "deal_number": state.deal_number, "turnup": state.turnup}
    ]
    for e in state.hand_events:
        events.append({"type": e.event, "player": state.dealer, "party": e.party, "points": e.points, "card": e.card})
    if state.winner is not None:
        events.append({"type": "game_over", "winner": _winner_seats(state.players, state.winner), "party": state.winner})
    return events


def _score_now(state: State, event: str, party: int, card: Card | None, events: list[Event], player: Seat | None = None) -> State:
    """§7.1 a point scored during trump-making; the game ends at once if it reaches the target."""
    scores = _with(state.scores, party, state.scores[party] + 1)
    seat = state.dealer if player is None else player
    events.append({"type": event, "player": seat, "party": party, "points": 1, "card": card})
    state = state._replace(scores=scores, hand_events=state.hand_events + (HandEvent(event, party, 1, card),))
    if scores[party] >= state.options.target:
        return _game_over(state, party, events)
    return state


def _game_over(state: State, party: int, events: list[Event]) -> State:
    events.append({"type": "game_over", "winner": _winner_seats(state.players, party), "party": party})
    return state._replace(phase=_PHASE_GAME_OVER, to_move=(), winner=party)


def _winner_seats(n: int, party: int) -> list[Seat]:
    return [party, party + 2] if n == 4 else [party]


# --- whose turn, what is legal (§6) ---------------------------------------------------------------


def to_move(state: State) -> frozenset[Seat]:
    """The seats that may move now; empty once the game is over."""
    return frozenset(state.to_move)


def _gift_recipients(state: State) -> tuple[Seat, ...]:
    """§6.2 who "take one" scores for: the eldest (3 players with the option: both non-dealers)."""
    if state.players == 3 and state.options.gift_to_all_opponents:
        return (state.eldest, (state.eldest + 1) % 3)
    return (state.eldest,)


def _gift_would_win(state: State) -> bool:
    n, target = state.players, state.options.target
    return any(state.scores[party_of(n, s)] + 1 >= target for s in _gift_recipients(state))


def _playable(state: State, seat: Seat) -> tuple[Card, ...]:
    hand = state.hands[seat]
    if not state.trick:
        return hand
    assert state.trump is not None
    return may_follow(hand, state.trick[0].card.suit, state.trump, state.options.follow_rule)


def legal_moves(state: State) -> list[Move]:
    """Every legal move of every seat to move (a discard is one template per seat)."""
    phase = state.phase
    if phase is _PHASE_PLAY:
        p = state.to_move[0]
        return [_PLAY[p, c] for c in _playable(state, p)]
    if phase is _PHASE_STAND_OR_BEG:
        e = state.eldest
        return [_STAND[e], _BEG[e]]
    if phase is _PHASE_GIVE_OR_RUN:
        d = state.dealer
        if not state.options.gift_can_win and _gift_would_win(state):
            return [_RUN[d]]
        return [_GIVE[d], _RUN[d]]
    if phase is _PHASE_DISCARD:
        return [Discard(p, count=len(state.hands[p]) - HAND_SIZE, hand=state.hands[p]) for p in state.to_move]
    if phase is _PHASE_DEAL_OVER:
        return [_NEXT_DEAL[state.dealer]]
    return []


# --- checking (§8 order) --------------------------------------------------------------------------


def _check(state: State, move: Move | BadMove) -> None:
    """Raise IllegalMove with the first §8 code that applies; return if the move is legal."""
    if state.phase is _PHASE_GAME_OVER:
        raise IllegalMove("game_over", "The game has ended; no move is accepted.", GAME.rule("7.4"))
    if isinstance(move, BadMove):  # the parse problems the rules put first (GAME.early_parse_codes)
        refuse_early(GAME, move)
    if isinstance(move, Discard) and (move.cards is None or move.count is not None):
        raise IllegalMove("invalid_move", "discard needs cards (a list of card strings) and nothing else.", GAME.rule("6.3"))
    move_type = move.type if isinstance(move, BadMove) else move.TYPE
    if move.player is None or not 0 <= move.player < state.players:
        raise IllegalMove("invalid_player", f"player must be a seat 0..{state.players - 1}.", GAME.rule("8"))
    if move_type not in _ALLOWED_TYPES[state.phase]:
        raise IllegalMove("wrong_phase", f"{move_type} is not allowed in phase {state.phase.value}.", GAME.rule("6"))
    if move.player not in state.to_move:
        whose = ", ".join(map(str, state.to_move))
        raise IllegalMove("not_your_turn", f"Seat {move.player} is not to move (to move: {whose}).", GAME.rule("6"))
    match move:
        case BadMove():
            raise IllegalMove(move.code, move.detail, GAME.rule("8"))
        case NextDeal():
            if move.deck is not None:
                check_dealt(GAME, move.deck, PACK, "6.6", IllegalMove)
        case Discard():
            _check_discard(state, move)
        case Play():
            _check_play(state, move)
        case Give():
            if not state.options.gift_can_win and _gift_would_win(state):
                raise IllegalMove(
                    "gift_not_allowed", "Under gift_can_win = false the dealer may not give the winning point; run the cards.", GAME.rule("3")
                )
        case Stand() | Beg() | Run():
            pass
        case _:
            assert_never(move)


def _check_discard(state: State, move: Discard) -> None:
    cards = move.cards
    assert cards is not None
    seen: set[Card] = set()
    for c in cards:
        if c in seen:
            raise IllegalMove("duplicate_card", f"{c} is listed twice.", GAME.rule("6.3"))
        seen.add(c)
    hand = state.hands[move.player]
    for c in cards:
        if c not in hand:
            raise IllegalMove("card_not_in_hand", f"{c} is not in seat {move.player}'s hand.", GAME.rule("6.3"))
    want = len(hand) - HAND_SIZE
    if len(cards) != want:
        raise IllegalMove(
            "wrong_discard_count", f"Seat {move.player} must discard exactly {want} cards, not {len(cards)}.", GAME.rule("6.3")
        )


def _check_play(state: State, move: Play) -> None:
    p, c = move.player, move.card
    hand = state.hands[p]
    if c not in hand:
        raise IllegalMove("card_not_in_hand", f"{c} is not in seat {p}'s hand.", GAME.rule("6.4"))
    if not state.trick:
        return
    trump = state.trump
    assert trump is not None
    led = state.trick[0].card.suit
    if c in may_follow(hand, led, trump, state.options.follow_rule):
        return
    if of_suit(hand, led):
        allowed = "or trumps " if state.options.follow_rule != FOLLOW_SUIT else ""
        raise IllegalMove(
            "must_follow_suit", f"{led.value} was led and seat {p} holds {names(of_suit(hand, led))}; play {allowed}that suit.", GAME.rule("6.5")
        )
    raise IllegalMove("must_trump", f"Seat {p} is void in {led.value} and must trump with {names(of_suit(hand, trump))}.", GAME.rule("6.5"))


# --- transitions ----------------------------------------------------------------------------------


def _start_play(state: State, trump: Suit) -> State:
    e = state.eldest
    return state._replace(phase=_PHASE_PLAY, trump=trump, to_move=(e,), trick_leader=e)


def _next(state: State, move: Move, events: list[Event]) -> State:
    match move:
        case Stand(player=p):
            events.append({"type": "stand", "player": p})
            assert state.first_suit is not None
            return _start_play(state, state.first_suit)
        case Beg(player=p):
            events.append({"type": "beg", "player": p})
            return state._replace(phase=_PHASE_GIVE_OR_RUN, begged=True, to_move=(state.dealer,))
        case Give(player=p):
            events.append({"type": "give", "player": p})
            for seat in _gift_recipients(state):
                state = _score_now(state, "gift", party_of(state.players, seat), None, events, player=seat)
                if state.phase is _PHASE_GAME_OVER:
                    return state
            assert state.first_suit is not None
            return _start_play(state, state.first_suit)
        case Run(player=p):
            events.append({"type": "run", "player": p})
            return _run(state, events)
        case Discard(player=p, cards=cards):
            assert cards is not None
            gone = set(cards)
            hands = _with(state.hands, p, tuple(c for c in state.hands[p] if c not in gone))
            discards = _with(state.discards, p, tuple(cards))
            events.append({"type": "discarded", "player": p, "count": len(cards)})
            state = state._replace(hands=hands, discards=discards, to_move=tuple(s for s in state.to_move if s != p))
            if state.to_move:
                return state
            assert state.trump is not None
            return _start_play(state, state.trump)
        case Play(player=p, card=c):
            return _play(state, p, c, events)
        case NextDeal(player=q, deck=deck):
            if deck is None:
                raise IllegalMove("invalid_deck", "next_deal needs a deck; the service supplies one.", GAME.rule("6.6"))
            fresh = state._replace(deal_number=state.deal_number + 1, redeal=False)
            return _deal(fresh, deck, q, events)
        case _:
            assert_never(move)


# ``_check`` refuses a move in the rules' order, ``_next`` plays it; the new state counts one more ``seq``.
step: Final = stepper(_check, _next)
apply: Final = applier(step)


def _run(state: State, events: list[Event]) -> State:
    """§4 running the cards: packets of 3 and a new turn-up until a new suit, or a void deal."""
    n = state.players
    order = dealing_order(n, state.dealer)
    hands = list(state.hands)
    stock = state.stock
    set_aside = state.set_aside
    turnup = state.turnup
    runs = state.runs
    first = state.first_suit
    assert turnup is not None and first is not None
    while True:
        set_aside = set_aside + (turnup,)
        if len(stock) < PACKET * n + 1:  # §4 step 2: the pack is exhausted
            events.append({"type": "deal_void", "dealer": state.dealer, "set_aside": turnup})
            return state._replace(
                phase=_PHASE_DEAL_OVER,
                to_move=(state.dealer,),
                hands=tuple(hands),
                stock=stock,
                turnup=None,
                set_aside=set_aside,
                runs=runs,
                redeal=True,
            )
        for seat in order:
            hands[seat] = hands[seat] + stock[:PACKET]
            stock = stock[PACKET:]
        old, turnup, stock = turnup, stock[0], stock[1:]
        runs += 1
        events.append({"type": "cards_run", "set_aside": old, "turnup": turnup})
        if turnup.suit is not first:
            break
    state = state._replace(hands=tuple(hands), stock=stock, turnup=turnup, set_aside=set_aside, runs=runs, trump=turnup.suit)
    events.append({"type": "trump_fixed", "suit": turnup.suit, "turnup": turnup})
    if turnup.rank == "J":  # a jack of a new suit scores for the dealer
        state = _score_now(state, "turned_jack", party_of(n, state.dealer), turnup, events)
        if state.phase is _PHASE_GAME_OVER:
            return state
    if state.options.discard_after_run:
        return state._replace(phase=_PHASE_DISCARD, to_move=order)
    return _start_play(state, turnup.suit)


def _play(state: State, p: Seat, c: Card, events: list[Event]) -> State:
    """§6.4 a card to the trick; a full trick is decided and led by its winner; the last is scored."""
    n = state.players
    events.append({"type": "card_played", "player": p, "card": c})
    hands = _with(state.hands, p, tuple(x for x in state.hands[p] if x != c))
    trick = state.trick + (TrickCard(p, c),)
    if len(trick) < n:
        return state._replace(hands=hands, trick=trick, to_move=((p + 1) % n,))
    leader = trick[0].player
    winner = trick[trick_winner([t.card for t in trick], state.trump, RANK)].player
    done = Trick(leader, trick, winner)
    events.append({"type": "trick_won", "player": winner, "leader": leader, "cards": [t.card for t in trick]})
    state = state._replace(hands=hands, trick=(), tricks=state.tricks + (done,), to_move=(winner,), trick_leader=winner)
    if hands[winner]:
        return state
    return _score_hand(state, events)


def hand_awards(state: State) -> tuple[tuple[Award, ...], tuple[int, ...]]:
    """§7.2 who earns High, Low, Jack and Game from the tricks played so far (not yet credited),
    and each party's Game total."""
    n, trump = state.players, state.trump
    totals = [0] * parties(n)
    high: TrickCard | None = None
    low: TrickCard | None = None
    jack_winner: Seat | None = None
    jack = _JACK[trump] if trump is not None else None
    for t in state.tricks:
        totals[party_of(n, t.winner)] += game_value(x.card for x in t.cards)
        for tc in t.cards:
            if tc.card.suit is trump:
                r = RANK[tc.card.rank]
                if high is None or r > RANK[high.card.rank]:
                    high = tc
                if low is None or r < RANK[low.card.rank]:
                    low = tc
                if tc.card == jack:
                    jack_winner = t.winner
    best = max(totals)
    tied = [q for q, v in enumerate(totals) if v == best]
    game_party: int | None = None
    if best > 0:
        if len(tied) == 1:
            game_party = tied[0]
        elif state.options.game_tie == "eldest":
            game_party = next(party_of(n, s) for s in dealing_order(n, state.dealer) if party_of(n, s) in tied)
    awards = (
        Award("high", None if high is None else high.card, None if high is None else high.player,
              None if high is None else party_of(n, high.player), False),
        Award("low", None if low is None else low.card, None if low is None else low.player,
              None if low is None else party_of(n, low.player), False),
        Award("jack", jack if jack_winner is not None else None, jack_winner,
              None if jack_winner is None else party_of(n, jack_winner), False),
        Award("game", None, None, game_party, False),
    )
    return awards, tuple(totals)


def _score_hand(state: State, events: list[Event]) -> State:
    """§7.3 count out High, Low, Jack, Game in order; the game may end part way."""
    awards, totals = hand_awards(state)
    credit = count_out(state.scores, [a.party for a in awards], state.options.target)
    awards = tuple(a._replace(credited=ok) for a, ok in zip(awards, credit.credited))
    assert state.trump is not None
    last = LastHand(state.deal_number, state.trump, awards, totals)
    events.append({"type": "hand_scored", "awards": awards, "game_totals": totals, "scores": credit.scores})
    state = state._replace(scores=credit.scores, last_hand=last, trick_leader=None)
    if credit.winner is not None:
        return _game_over(state, credit.winner, events)
    n = state.players
    dealer = (state.dealer + 1) % n
    return state._replace(phase=_PHASE_DEAL_OVER, dealer=dealer, eldest=(dealer + 1) % n, to_move=(dealer,))


# --- the outside view -----------------------------------------------------------------------------


def outcome(state: State) -> Outcome | None:
    """The winning party's seats once the game is over (§7.4)."""
    if state.phase is not _PHASE_GAME_OVER or state.winner is None:
        return None
    return Outcome(frozenset(_winner_seats(state.players, state.winner)), "target_reached")


def derived(state: State) -> dict[str, object]:
    """Derived values of a full state: none beyond §5 (the view adds its counts)."""
    return {}


def scores(state: State, seat: Seat | None = None) -> dict[str, object]:
    """``totals`` per seat (partners show their party's score), ``parties``, and this hand's
    Game totals so far (every trick is public)."""
    n = state.players
    _, totals = hand_awards(state)
    return {
        "totals": [state.scores[party_of(n, s)] for s in range(n)],
        "parties": list(state.scores),
        "game_totals": list(totals),
    }


def _blind(state: State, seat: Seat) -> bool:
    """§5 four-handed blind rule: the dealer's partner and the pone cannot see their own hand yet."""
    return (
        state.players == 4
        and state.options.blind_partners
        and state.trump is None
        and state.phase in (_PHASE_STAND_OR_BEG, _PHASE_GIVE_OR_RUN)
        and seat in ((state.dealer + 2) % 4, (state.dealer + 3) % 4)
    )


def view(state: State, seat: Seat | None) -> SevenUpEngineView:
    """§5 what ``seat`` may see (``None``: the public view, no hand at all)."""
    n = state.players
    own = seat is not None and not _blind(state, seat)
    out: dict[str, object] = {
        **view_head(GAME, state, seat),
        "options": state.options,
        "players": n,
        "phase": state.phase,
        "deal_number": state.deal_number,
        "dealer": state.dealer,
        "eldest": state.eldest,
        "to_move": state.to_move,
        "scores": state.scores,
        "hands": [state.hands[s] if own and s == seat else None for s in range(n)],
        "hand_counts": [len(h) for h in state.hands],
        "stock_count": len(state.stock),
        "turnup": state.turnup,
        "first_suit": state.first_suit,
        "set_aside": state.set_aside,
        "runs": state.runs,
        "begged": state.begged,
        "trump": state.trump,
        "discards": [state.discards[s] if s == seat else None for s in range(n)],
        "discard_counts": [len(d) for d in state.discards],
        "trick": state.trick,
        "trick_leader": state.trick_leader,
        "tricks": state.tricks,
        "hand_events": state.hand_events,
        "last_hand": state.last_hand,
        "redeal": state.redeal,
        "winner": state.winner,
    }
    if seat is not None and seat in state.to_move:
        out["legal_moves"] = [m for m in legal_moves(state) if m.player == seat]
    return cast("SevenUpEngineView", out)


def visible_cards(state: State, seat: Seat | None) -> frozenset[Card]:
    """Every card ``seat`` may see now (tests scan views and events against it)."""
    seen: set[Card] = set(state.set_aside)
    if state.turnup is not None:
        seen.add(state.turnup)
    seen.update(t.card for t in state.trick)
    for t in state.tricks:
        seen.update(x.card for x in t.cards)
    for e in state.hand_events:
        if e.card is not None:
            seen.add(e.card)
    if state.last_hand is not None:
        seen.update(a.card for a in state.last_hand.awards if a.card is not None)
    if seat is not None:
        seen.update(state.discards[seat])
        if not _blind(state, seat):
            seen.update(state.hands[seat])
    return frozenset(seen)


# --- consistency of a client-supplied state -------------------------------------------------------


def check_state(state: State) -> None:
    """Raise InvalidState (with field paths) unless the state could arise in play."""
    bad = Problems()
    s = state
    n = s.players
    check_seats(GAME, n)
    try:
        _check_options(s.options, n)
    except BadSetup as exc:
        bad("options", exc.detail)
    k = parties(n)
    if len(s.hands) != n:
        bad("hands", f"one hand per seat ({n})")
    if len(s.discards) != n:
        bad("discards", f"one list per seat ({n})")
    if len(s.scores) != k:
        bad("scores", f"one score per party ({k})")
    for path, seat in (("dealer", s.dealer), ("eldest", s.eldest), ("trick_leader", s.trick_leader)):
        bad.seat(path, seat, n)
    if any(not 0 <= p < n for p in s.to_move) or len(set(s.to_move)) != len(s.to_move):
        bad("to_move", f"distinct seats 0..{n - 1}")
    if any(not 0 <= t.player < n for t in s.trick):
        bad("trick", f"players must be seats 0..{n - 1}")
    for i, t in enumerate(s.tricks):
        if len(t.cards) != n or any(not 0 <= x.player < n for x in t.cards):
            bad(f"tricks.{i}", f"a trick holds one card of each of the {n} seats")
    for i, e in enumerate(s.hand_events):
        if e.event not in ("turned_jack", "gift") or not 0 <= e.party < k or e.points != 1:
            bad(f"hand_events.{i}", "an event is turned_jack or gift, for a party, worth 1")
    if s.winner is not None and not 0 <= s.winner < k:
        bad("winner", "must be a party or null")
    if s.deal_number < 1:
        bad("deal_number", "must be at least 1")
    if s.runs < 0:
        bad("runs", "must not be negative")
    bad.check()
    places: list[Card] = [*s.stock, *s.set_aside, *(t.card for t in s.trick)]
    for h in s.hands:
        places += h
    for d in s.discards:
        places += d
    for t in s.tricks:
        places += (x.card for x in t.cards)
    if s.turnup is not None:
        places.append(s.turnup)
    if len(places) != len(PACK) or frozenset(places) != _PACK_SET:  # the fast test first
        bad.cards("hands", places, PACK, "hands, stock, turnup, set_aside, discards, trick and tricks must hold the pack")
    if s.eldest != (s.dealer + 1) % n:
        bad("eldest", "must be the seat after the dealer")
    target = s.options.target
    if any(x < 0 for x in s.scores):
        bad("scores", "must not be negative")
    bad.check()
    if s.phase is _PHASE_GAME_OVER:
        if s.to_move:
            bad("to_move", "must be empty in game_over")
        if s.winner is None or s.scores[s.winner] < target:
            bad("winner", "the winner's score must have reached the target")
        if s.trick:
            bad("trick", "no trick is in progress once the game is over")
    else:
        if s.winner is not None:
            bad("winner", "must be null until the game is over")
        if max(s.scores) >= target:
            bad("phase", "a party reached the target: the game is over")
        _check_phase(s, bad)
    bad.check()


def _check_phase(s: State, bad: Callable[[str, str], None]) -> None:
    """Consistency of the deal in progress for each phase other than game_over."""
    n = s.players
    phase = s.phase
    if phase is _PHASE_DEAL_OVER:
        if s.to_move != (s.dealer,):
            bad("to_move", "the dealer of the coming deal is to move")
        if s.trick:
            bad("trick", "no trick is in progress between deals")
        if s.redeal and (s.trump is not None or s.turnup is not None):
            bad("redeal", "a void deal fixed no trump and has no turn-up")
        if not s.redeal and any(s.hands):
            bad("hands", "every card was played in a completed hand")
        return
    if s.redeal:
        bad("redeal", "only while waiting after a void deal")
    if s.turnup is None or s.first_suit is None:
        bad("turnup", "a deal in progress has a turn-up and a first suit")
        return
    base = HAND_SIZE + PACKET * s.runs
    stock_left = len(PACK) - n * (HAND_SIZE + PACKET * s.runs) - 1 - s.runs
    if len(s.stock) != stock_left:
        bad("stock", f"after {s.runs} runs the stock holds {stock_left} cards")
    if len(s.set_aside) != s.runs:
        bad("set_aside", "one set-aside turn-up per run")
    if s.runs and not s.begged:
        bad("runs", "the cards are run only after a beg")
    if any(c.suit is not s.first_suit for c in s.set_aside[1:]) or (s.set_aside and s.set_aside[0].suit is not s.first_suit):
        bad("set_aside", "only turn-ups of the first suit are set aside")
    if phase in (_PHASE_STAND_OR_BEG, _PHASE_GIVE_OR_RUN):
        want = (s.eldest,) if phase is _PHASE_STAND_OR_BEG else (s.dealer,)
        if s.to_move != want:
            bad("to_move", f"must be [{want[0]}]")
        if s.begged != (phase is _PHASE_GIVE_OR_RUN):
            bad("begged", "true exactly in give_or_run")
        if s.trump is not None or s.runs:
            bad("trump", "no trump is fixed and no cards were run yet")
        if s.turnup.suit is not s.first_suit:
            bad("first_suit", "must be the turn-up's suit")
        if any(len(h) != HAND_SIZE for h in s.hands) or any(s.discards) or s.trick or s.tricks:
            bad("hands", "six cards each, nothing discarded or played before trump is fixed")
        if s.trick_leader is not None:
            bad("trick_leader", "null before play")
        return
    if s.trump is None or s.turnup.suit is not s.trump:
        bad("trump", "the trump is the turn-up's suit")
        return
    if (s.runs == 0) != (s.trump is s.first_suit):
        bad("trump", "the first suit without a run, a new suit after running")
    discarding = s.runs > 0 and s.options.discard_after_run
    if phase is _PHASE_DISCARD:
        if not discarding:
            bad("phase", "discarding only follows a run with discard_after_run")
        order = dealing_order(n, s.dealer)
        if s.to_move != tuple(p for p in order if p in s.to_move) or not s.to_move:
            bad("to_move", "the seats yet to discard, in dealing order")
        for p in range(n):
            waiting = p in s.to_move
            want_hand, want_discards = (base, 0) if waiting else (HAND_SIZE, base - HAND_SIZE)
            if len(s.hands[p]) != want_hand or len(s.discards[p]) != want_discards:
                bad(f"hands.{p}", f"holds {want_hand} cards with {want_discards} discarded")
        if s.trick or s.tricks or s.trick_leader is not None:
            bad("trick", "no card is played while discarding")
        return
    if phase is not _PHASE_PLAY:  # pragma: no cover - every phase is handled
        bad("phase", "unknown phase")
        return
    kept = HAND_SIZE if discarding else base
    for p in range(n):
        if len(s.discards[p]) != base - kept:
            bad(f"discards.{p}", f"must hold {base - kept} cards")
    leader = s.eldest
    for i, t in enumerate(s.tricks):
        if t.leader != leader or [x.player for x in t.cards] != [(leader + j) % n for j in range(n)]:
            bad(f"tricks.{i}", "led by the previous winner (the eldest first), then clockwise")
        elif t.winner != t.cards[trick_winner([x.card for x in t.cards], s.trump, RANK)].player:
            bad(f"tricks.{i}.winner", "is not the trick's winner")
        leader = t.winner
    if s.trick_leader != leader:
        bad("trick_leader", f"must be {leader}")
    if [x.player for x in s.trick] != [(leader + j) % n for j in range(len(s.trick))] or len(s.trick) >= n:
        bad("trick", "played clockwise from the trick leader, fewer cards than seats")
    if s.to_move != ((leader + len(s.trick)) % n,):
        bad("to_move", "the next seat of the trick is to move")
    played = len(s.tricks)
    if played >= kept:
        bad("tricks", "every trick was played: the hand should have been scored")
    in_trick = {x.player for x in s.trick}
    for p in range(n):
        if len(s.hands[p]) != kept - played - (p in in_trick):
            bad(f"hands.{p}", "hand size does not fit the tricks played")
