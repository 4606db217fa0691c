"""California Jack: two-handed All Fours with a face-up stock and a trump that moves.

The contract is ``docs/rules/california_jack.md``; section numbers (§) below refer to it. Pure
functions over an immutable ``State`` (a ``NamedTuple``: cheap ``_replace`` copies); decks arrive as
data. Trick resolution, suit helpers and the three follow rules (``may_follow``, with the current
trump) come from ``cards/tricks.py``, the High/Low/Jack/Game count from ``cards/all_fours.py``; what
is California Jack's own (the changing trump, the draws and who sees them) stays here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Final, NamedTuple, assert_never, cast

from ..cards import RANKS, SUITS, Card, Suit, names
from ..cards.all_fours import count_out, game_value
from ..cards.packs import full_52
from ..cards.tricks import FOLLOW_RULES, FOLLOW_SUIT, beats, may_follow, of_suit, strength
from ..cards.turns import draw_in_turn
from .base import BadMove, BadSetup, Event, GameInfo, IllegalMove, InvalidState, Outcome, Seat, quick_replace
from .kit import Problems, applier, check_dealt, check_players, option, option_info, refuse_early, stepper, view_head
from .kit import status as status  # noqa: PLC0414 (re-exported: the envelope status, from the phase)

if TYPE_CHECKING:
    from ..typed import CaliforniaJackEngineView
from .moves import NextDeal, Play

PACK: Final = full_52()
RANK: Final = strength(RANKS)  # §2: 2 low … A high
HAND_SIZE: Final = 6
STOCK_SIZE: Final = 40
TRICKS_PER_HAND: Final = 26
DRAWING_TRICKS: Final = STOCK_SIZE // 2  # tricks 1..20 are followed by draws

# §3 option values
CHANGING: Final = "changing"
FIXED: Final = "fixed"
TRUMP_MODES: Final = (CHANGING, FIXED)
MAX_TARGET: Final = 1000


class Phase(StrEnum):
    """§5 phases."""

    PLAY = "play"
    DEAL_OVER = "deal_over"
    GAME_OVER = "game_over"


_PHASE_PLAY, _PHASE_DEAL_OVER, _PHASE_GAME_OVER = Phase  # the members, in order, as module constants (kit: the move path)


@dataclass(frozen=True, slots=True)
class Options:
    """§3 options, defaults as in the spec."""

    dealer: Seat = option(0, type="integer", minimum=0, maximum=1, description="Dealer of the first hand.")
    target: int = option(10, type="integer", minimum=1, maximum=MAX_TARGET, description="Points needed to win.")
    trump_mode: str = option(
        CHANGING, type="string", enum=list(TRUMP_MODES),
        description="changing: each trick's trump is the suit of the stock's top card (the last one stays); "
        "fixed: the first turn-up's suit is trump for the whole hand.",
    )
    stock_face_up: bool = option(
        True, type="boolean",
        description="The stock lies face up and every drawn card is public; false (Shasta Sam): face down.",
    )
    game_point: bool = option(
        False, type="boolean",
        description="A fourth point, Game, for the greater card value in tricks (a tie scores nobody).",
    )
    follow_rule: str = option(
        FOLLOW_SUIT, type="string", enum=list(FOLLOW_RULES),
        description="follow_suit: follow if able; follow_or_trump: follow or trump; "
        "follow_or_trump_compulsory: follow or trump, and a seat void in the led suit must trump if able.",
    )
    start_scores: tuple[int, int] = option(
        (0, 0), type="array", items={"type": "integer", "minimum": 0}, minItems=2, maxItems=2,
        description="Scores at the start, one per seat, each below the target.",
    )


OPTION_INFO: Final[Mapping[str, Mapping[str, object]]] = option_info(Options)


class PlayedCard(NamedTuple):
    """A card of a trick and the seat that played it."""

    player: Seat
    card: Card


class Trick(NamedTuple):
    """A completed trick (§5 ``tricks``): leader, both cards in play order, winner, its trump."""

    leader: Seat
    cards: tuple[PlayedCard, ...]
    winner: Seat
    trump: Suit


class Draw(NamedTuple):
    """A card taken from the stock after trick ``trick`` (§5 ``draws``); ``public``: seen by both."""

    trick: int
    player: Seat
    card: Card
    public: bool


class Award(NamedTuple):
    """One end-of-hand point (§7): High, Low, Jack or Game."""

    point: str
    card: Card | None
    seat: Seat | None
    credited: bool


class LastHand(NamedTuple):
    """§7 ``last_hand``: how the last finished hand was scored."""

    deal_number: int
    trump: Suit
    awards: tuple[Award, ...]
    game_totals: tuple[int, int]


@quick_replace
class State(NamedTuple):
    """The whole truth of a California Jack match (§5), hidden parts included."""

    options: Options
    phase: Phase
    deal_number: int
    dealer: Seat
    to_move: tuple[Seat, ...]
    scores: tuple[int, int]
    hands: tuple[tuple[Card, ...], tuple[Card, ...]]
    stock: tuple[Card, ...]
    trump: Suit
    trick: tuple[PlayedCard, ...]
    trick_leader: Seat
    tricks: tuple[Trick, ...]
    draws: tuple[Draw, ...]
    last_hand: LastHand | None
    winner: Seat | None
    seq: int = 0
    seed: int | None = None


# --- moves (§6) -------------------------------------------------------------------------------


Move = Play | NextDeal  # Play: §6.1, lead or follow with a card (moves.Play)
GAME: Final = GameInfo(
    game_id="california_jack", name="California Jack", rules_version="california_jack/1",
    player_counts=(2,), default_players=2,
    move_classes={cls.TYPE: cls for cls in (Play, NextDeal)},
    # Parse problems that §8 puts before wrong_phase and not_your_turn.
    parse_order=("invalid_move", "unknown_move_type", "invalid_player", "invalid_card", "invalid_deck"),
    early_parse_codes=frozenset({"invalid_move", "unknown_move_type", "invalid_player"}),
    # The game's own problem codes (§8), in the table's order; the contract's <Game>ProblemCode.
    codes=("must_follow_suit", "must_trump"),
)
GAME_ID, NAME, RULES_VERSION, PLAYER_COUNTS, DEFAULT_PLAYERS, MOVE_TYPES, MOVE_CLASSES = GAME.constants()

_PLAY: Final = {(p, c): Play(p, c) for p in (0, 1) for c in PACK}
_NEXT_DEAL: Final = (NextDeal(0, pack=PACK), NextDeal(1, pack=PACK))
_HIGH: Final = {s: Card.parse("A" + s.value) for s in SUITS}
_LOW: Final = {s: Card.parse("2" + s.value) for s in SUITS}
_JACK: Final = {s: Card.parse("J" + s.value) for s in SUITS}


# --- setup (§4) -------------------------------------------------------------------------------


def pack(options: Options, players: int = 2) -> tuple[Card, ...]:
    """The standard 52-card pack in canonical order."""
    return PACK


def _check_options(options: Options) -> None:
    """§3 bounds, for options built directly (the edge's schema checks the same)."""
    problems = []
    if options.dealer not in (0, 1):
        problems.append("dealer must be 0 or 1")
    if not 1 <= options.target <= MAX_TARGET:
        problems.append(f"target must be 1..{MAX_TARGET}")
    if options.trump_mode not in TRUMP_MODES:
        problems.append(f"trump_mode must be one of {', '.join(TRUMP_MODES)}")
    if options.follow_rule not in FOLLOW_RULES:
        problems.append(f"follow_rule must be one of {', '.join(FOLLOW_RULES)}")
    scores = options.start_scores
    if len(scores) != 2 or not all(0 <= x < options.target for x in scores):
        problems.append("start_scores must be two scores, each 0 <= x < target")
    if problems:
        raise BadSetup("invalid_option", "option " + problems[0], GAME.rule("3"))


def _deal(state_fields: dict[str, object], deck: Sequence[Card], dealer: Seat) -> dict[str, object]:
    """§4: packets of 3, non-dealer first; the rest is the stock, its top card sets trumps."""
    check_dealt(GAME, deck, PACK, "4")
    nd = 1 - dealer
    nd_hand = tuple(deck[0:3]) + tuple(deck[6:9])
    d_hand = tuple(deck[3:6]) + tuple(deck[9:12])
    stock = tuple(deck[12:])
    state_fields.update(
        phase=_PHASE_PLAY,
        dealer=dealer,
        to_move=(nd,),
        hands=(d_hand, nd_hand) if dealer == 0 else (nd_hand, d_hand),
        stock=stock,
        trump=stock[0].suit,
        trick=(),
        trick_leader=nd,
        tricks=(),
        draws=(),
    )
    return state_fields


def new_game(options: Options, players: int, deck: Sequence[Card], seed: int | None = None) -> State:
    """Deal the first hand of a match from ``deck`` (top card first). Raises BadSetup."""
    check_players(GAME, players)
    _check_options(options)
    fields = _deal({}, deck, options.dealer)
    return State(
        options=options,
        deal_number=1,
        scores=tuple(options.start_scores),  # type: ignore[arg-type]
        last_hand=None,
        winner=None,
        seq=0,
        seed=seed,
        **fields,  # type: ignore[arg-type]
    )


def _deal_started(state: State) -> Event:
    return {
        "type": "deal_started",
        "dealer": state.dealer,
        "deal_number": state.deal_number,
        "trump": state.trump,
        "stock_top": state.stock[0],
    }


def initial_events(state: State) -> list[Event]:
    """The events a new game starts with: the first deal."""
    return [_deal_started(state)]


# --- whose turn, what is legal (§6) ----------------------------------------------------------


def players(state: State) -> int:
    """Number of seats (always 2)."""
    return 2


def to_move(state: State) -> frozenset[Seat]:
    """The seat to act; empty once the match is over."""
    return frozenset(state.to_move)


def legal_moves(state: State) -> list[Move]:
    """One ``play`` per legal card of the seat to move, or the ``next_deal`` template."""
    if state.phase is not _PHASE_PLAY:
        if state.phase is _PHASE_DEAL_OVER:
            return [_NEXT_DEAL[state.to_move[0]]]
        return []
    p = state.to_move[0]
    hand = state.hands[p]
    if state.trick:
        hand = may_follow(hand, state.trick[0].card.suit, state.trump, state.options.follow_rule, led_first=True)
    return [_PLAY[p, c] for c in hand]


# --- checking (§8 order) --------------------------------------------------------------------


def _check(state: State, move: Move | BadMove) -> None:
    """Raise IllegalMove with the first §8 code that applies; return if the move is legal."""
    if state.phase is _PHASE_GAME_OVER:
        raise IllegalMove("game_over", "The game is over; no move is accepted.", GAME.rule("6.3"))
    if isinstance(move, BadMove):  # the parse problems the rules put first (GAME.early_parse_codes)
        refuse_early(GAME, move)
    move_type = move.type if isinstance(move, BadMove) else move.TYPE
    if state.phase is _PHASE_DEAL_OVER and move_type != "next_deal":
        raise IllegalMove("wrong_phase", "The hand is over; only next_deal is allowed.", GAME.rule("6.2"))
    if state.phase is _PHASE_PLAY and move_type == "next_deal":
        raise IllegalMove("wrong_phase", "next_deal is only allowed once the hand is over.", GAME.rule("6.2"))
    if move.player not in state.to_move:
        raise IllegalMove("not_your_turn", f"It is seat {state.to_move[0]}'s turn, not seat {move.player}'s.", GAME.rule("6"))
    match move:
        case BadMove():  # invalid_card, invalid_deck
            raise IllegalMove(move.code, move.detail, GAME.rule("8"))
        case NextDeal():
            if move.deck is None:
                raise IllegalMove("invalid_deck", "next_deal needs a deck; the service supplies one.", GAME.rule("6.2"))
            check_dealt(GAME, move.deck, PACK, "6.2", IllegalMove)
        case Play():
            _check_play(state, move)
        case _:
            assert_never(move)


def _check_play(state: State, move: Play) -> None:
    p, c = move.player, move.card
    hand = state.hands[p]
    if c not in hand:
        raise IllegalMove("card_not_in_hand", f"{c} is not in seat {p}'s hand.", GAME.rule("6.1"))
    if not state.trick:
        return
    led, trump, rule = state.trick[0].card.suit, state.trump, state.options.follow_rule
    if c in may_follow(hand, led, trump, rule):  # §6.1 follow rules: the one statement of them
        return
    same = of_suit(hand, led)
    if same:
        also = "" if rule == FOLLOW_SUIT or led is trump else f" or a trump ({trump.value})"
        raise IllegalMove(
            "must_follow_suit", f"{led.value} was led and seat {p} holds {names(same)}; play {led.value}{also}.", GAME.rule("6.1")
        )
    raise IllegalMove(
        "must_trump", f"Seat {p} is void in {led.value} and must trump with {names(of_suit(hand, trump))}.", GAME.rule("6.1")
    )


# --- transitions ----------------------------------------------------------------------------


def _next(state: State, move: Move, events: list[Event]) -> State:
    match move:
        case Play(player=p, card=c):
            events.append({"type": "card_played", "player": p, "card": c})
            hand = tuple(x for x in state.hands[p] if x != c)
            hands = (hand, state.hands[1]) if p == 0 else (state.hands[0], hand)
            trick = state.trick + (PlayedCard(p, c),)
            if len(trick) == 1:
                return state._replace(hands=hands, trick=trick, to_move=(1 - p,))
            return _finish_trick(state._replace(hands=hands), trick, events)
        case NextDeal(player=q, deck=deck):
            assert deck is not None
            fields = _deal({}, deck, q)
            new = state._replace(deal_number=state.deal_number + 1, **fields)  # type: ignore[arg-type]
            events.append(_deal_started(new))
            return new
        case _:
            assert_never(move)


# ``_check`` refuses a move in the rules' order, ``_next`` plays it; the new state counts one more ``seq``.
step: Final = stepper(_check, _next)
apply: Final = applier(step)


def _public_draws(options: Options, trick_number: int) -> tuple[bool, bool]:
    """§4 exposure table: whether the winner's and the loser's draws after trick ``k`` are public."""
    if options.stock_face_up:
        return True, True
    if options.trump_mode == CHANGING:
        return True, False
    return trick_number == 1, False


def _finish_trick(state: State, trick: tuple[PlayedCard, ...], events: list[Event]) -> State:
    """§6.1: decide the trick, draw (winner first), move the trump, winner leads; after 26, score."""
    led, followed = trick
    trump = state.trump
    winner = followed.player if beats(followed.card, led.card, trump, RANK) else led.player
    loser = 1 - winner
    number = len(state.tricks) + 1
    tricks = state.tricks + (Trick(led.player, trick, winner, trump),)
    events.append({"type": "trick_won", "player": winner, "cards": [led.card, followed.card], "trump": trump})
    stock, hands, draws = state.stock, state.hands, state.draws
    if stock:
        public = dict(zip((winner, loser), _public_draws(state.options, number)))
        after, stock, drawn = draw_in_turn(hands, stock, winner)
        hands = (after[0], after[1])
        new_draws = tuple(Draw(number, p, c, public[p]) for p, c in drawn)
        for d in new_draws:
            event: Event = {"type": "card_drawn", "player": d.player, "card": d.card, "trick": number, "public": d.public}
            if not d.public:
                event.update(private_to=d.player, private=("card",))
            events.append(event)
        draws = draws + new_draws
        if stock and state.options.trump_mode == CHANGING:
            trump = stock[0].suit
            events.append({"type": "trump_set", "trump": trump, "card": stock[0]})
    new = state._replace(
        hands=hands,
        stock=stock,
        trump=trump,
        trick=(),
        trick_leader=winner,
        tricks=tricks,
        draws=draws,
        to_move=(winner,),
    )
    if number == TRICKS_PER_HAND:
        return _score_hand(new, events)
    return new


def _captors(tricks: tuple[Trick, ...], wanted: Mapping[Card, str]) -> dict[str, Seat]:
    """Point name → the seat that won the trick holding its card."""
    found: dict[str, Seat] = {}
    for t in tricks:
        for pc in t.cards:
            name = wanted.get(pc.card)
            if name is not None:
                found[name] = t.winner
    return found


def game_totals(state: State) -> tuple[int, int]:
    """Card value (§2, for Game) of the tricks each seat has won so far."""
    totals = [0, 0]
    for t in state.tricks:
        totals[t.winner] += game_value(pc.card for pc in t.cards)
    return totals[0], totals[1]


def _score_hand(state: State, events: list[Event]) -> State:
    """§7: High, Low, Jack (and Game) of the final trump, to their captors, counted out in order."""
    t = state.trump
    cards = {_HIGH[t]: "high", _LOW[t]: "low", _JACK[t]: "jack"}
    captor = _captors(state.tricks, cards)
    awards: list[tuple[str, Card | None, Seat | None]] = [(name, card, captor[name]) for card, name in cards.items()]
    totals = game_totals(state)
    if state.options.game_point:
        game_seat = None if totals[0] == totals[1] else (0 if totals[0] > totals[1] else 1)
        awards.append(("game", None, game_seat))
    credit = count_out(state.scores, [seat for _, _, seat in awards], state.options.target)
    last = LastHand(
        state.deal_number,
        t,
        tuple(Award(name, card, seat, ok) for (name, card, seat), ok in zip(awards, credit.credited)),
        totals,
    )
    scores = (credit.scores[0], credit.scores[1])
    events.append(
        {"type": "hand_over", "deal_number": state.deal_number, "trump": t, "awards": last.awards,
         "game_totals": totals, "scores": scores}
    )
    if credit.winner is not None:
        events.append({"type": "game_over", "winner": [credit.winner]})
        return state._replace(phase=_PHASE_GAME_OVER, scores=scores, last_hand=last, winner=credit.winner, to_move=())
    dealer = 1 - state.dealer
    return state._replace(phase=_PHASE_DEAL_OVER, scores=scores, last_hand=last, dealer=dealer, to_move=(dealer,))


# --- the outside view ------------------------------------------------------------------------


def outcome(state: State) -> Outcome | None:
    """The winner once the game is over (§7)."""
    if state.phase is not _PHASE_GAME_OVER or state.winner is None:
        return None
    return Outcome(frozenset((state.winner,)), "target_reached")


def stock_top(state: State) -> Card | None:
    """§4: the top card of the stock if both seats may see it, else None."""
    if not state.stock:
        return None
    o = state.options
    if o.stock_face_up or o.trump_mode == CHANGING or not state.draws:
        return state.stock[0]
    return None


def known_cards(state: State, seat: Seat) -> list[Card]:
    """§5: the cards now in ``seat``'s hand that it drew publicly (what the opponent knows)."""
    hand = state.hands[seat]
    return [d.card for d in state.draws if d.player == seat and d.public and d.card in hand]


def derived(state: State) -> dict[str, object]:
    """The derived values responses add to a full state; ignored on input."""
    return {
        "stock_count": len(state.stock),
        "stock_top": stock_top(state),
        "known_cards": [known_cards(state, 0), known_cards(state, 1)],
        "game_totals": list(game_totals(state)),
    }


def scores(state: State, seat: Seat | None = None) -> dict[str, object]:
    """``totals`` = match points; this hand's tricks won and card value (public: tricks are)."""
    return {
        "totals": list(state.scores),
        "tricks_won": [sum(t.winner == p for t in state.tricks) for p in (0, 1)],
        "game_totals": list(game_totals(state)),
    }


def _draw_view(d: Draw, seat: Seat | None) -> dict[str, object]:
    shown = d.public or d.player == seat
    return {"trick": d.trick, "player": d.player, "card": d.card if shown else None, "public": d.public}


def view(state: State, seat: Seat | None) -> CaliforniaJackEngineView:
    """§5 what ``seat`` may see (``None``: the public view, no hand at all)."""
    out: dict[str, object] = {
        **view_head(GAME, state, seat),
        "options": state.options,
        "phase": state.phase,
        "deal_number": state.deal_number,
        "dealer": state.dealer,
        "to_move": state.to_move,
        "scores": state.scores,
        "hands": [state.hands[p] if p == seat else None for p in (0, 1)],
        "hand_counts": [len(state.hands[0]), len(state.hands[1])],
        "known_cards": [known_cards(state, 0), known_cards(state, 1)],
        "stock_count": len(state.stock),
        "stock_top": stock_top(state),
        "trump": state.trump,
        "trick": state.trick,
        "trick_leader": state.trick_leader,
        "tricks": state.tricks,
        "draws": [_draw_view(d, seat) for d in state.draws],
        "last_hand": state.last_hand,
        "winner": state.winner,
    }
    if seat is not None and seat in state.to_move:
        out["legal_moves"] = legal_moves(state)
    return cast("CaliforniaJackEngineView", out)


def visible_cards(state: State, seat: Seat | None) -> frozenset[Card]:
    """Every card ``seat`` may see now (tests scan views against it).

    The cards ``last_hand`` names (last hand's High, Low, Jack) are a record of the previous hand,
    public to all, not a place of a card in this one.
    """
    seen: set[Card] = set()
    if seat is not None:
        seen.update(state.hands[seat])
    for d in state.draws:
        if d.public:
            seen.add(d.card)
    for t in state.tricks:
        seen.update(pc.card for pc in t.cards)
    seen.update(pc.card for pc in state.trick)
    top = stock_top(state)
    if top is not None:
        seen.add(top)
    if state.last_hand is not None:
        seen.update(a.card for a in state.last_hand.awards if a.card is not None)
    return frozenset(seen)


# --- consistency of a client-supplied state (docs/rules/conventions.md "State validation")----------------


def check_state(state: State) -> None:
    """Raise InvalidState (with field paths) unless the state could arise in play."""
    bad = Problems()
    s = state
    try:
        _check_options(s.options)
    except BadSetup as exc:
        bad("options", exc.detail)
    if s.deal_number < 1:
        bad("deal_number", "must be at least 1")
    if s.seq < 0:
        bad("seq", "must not be negative")
    places: list[Card] = [*s.hands[0], *s.hands[1], *s.stock, *(pc.card for pc in s.trick)]
    for t in s.tricks:
        places += [pc.card for pc in t.cards]
    bad.cards("hands", places, PACK, "cards in hands, stock, trick and tricks must be the pack")
    bad.check()
    n = len(s.tricks)
    if n > TRICKS_PER_HAND:
        bad("tricks", f"at most {TRICKS_PER_HAND} tricks in a hand")
        raise InvalidState(bad.errors)
    _check_tricks(s, bad)
    _check_draws(s, bad)
    target = s.options.target
    if s.phase is _PHASE_PLAY:
        _check_play_phase(s, bad)
    else:
        if n != TRICKS_PER_HAND:
            bad("tricks", "a finished hand has 26 tricks")
        if s.last_hand is None or s.last_hand.deal_number != s.deal_number:
            bad("last_hand", "a finished hand is recorded in last_hand with this deal_number")
        elif s.last_hand.trump is not s.trump:
            bad("last_hand.trump", "must be the final trump")
        if s.phase is _PHASE_DEAL_OVER:
            if max(s.scores) >= target:
                bad("phase", "deal_over although a seat reached the target")
            if s.to_move != (s.dealer,):
                bad("to_move", "in deal_over the new dealer is to move")
            if s.winner is not None:
                bad("winner", "must be null before the game is over")
        else:
            if s.winner is None or s.scores[s.winner] < target:
                bad("winner", "game_over needs a winner at or above the target")
            if s.to_move:
                bad("to_move", "must be empty in game_over")
    if s.last_hand is not None and s.last_hand.deal_number > s.deal_number:
        bad("last_hand.deal_number", "cannot be a later hand")
    bad.check()


def _check_tricks(s: State, bad: Callable[[str, str], None]) -> None:
    """Each trick: two cards of different seats, led by its leader, won by the rules, leader chain."""
    # the hand's dealer: in deal_over the dealer has already passed to the other seat (§7)
    leader = s.dealer if s.phase is _PHASE_DEAL_OVER else 1 - s.dealer
    fixed_trump = s.tricks[0].trump if s.tricks else None
    for i, t in enumerate(s.tricks):
        where = f"tricks.{i}"
        if len(t.cards) != 2 or t.cards[0].player != t.leader or t.cards[1].player != 1 - t.leader:
            bad(where, "a trick holds the leader's card, then the other seat's")
            return
        if t.leader != leader:
            bad(f"{where}.leader", f"must be {leader}: the non-dealer leads trick 1, then each trick's winner")
        led, followed = t.cards
        want = followed.player if beats(followed.card, led.card, t.trump, RANK) else led.player
        if t.winner != want:
            bad(f"{where}.winner", f"must be {want}")
        if s.options.trump_mode == FIXED and t.trump is not fixed_trump:
            bad(f"{where}.trump", "with a fixed trump every trick has the same trump")
        if i >= DRAWING_TRICKS and t.trump is not s.tricks[DRAWING_TRICKS - 1].trump:
            bad(f"{where}.trump", "once the stock is empty the trump no longer changes")
        leader = t.winner
    if s.tricks and s.trick_leader != leader:
        bad("trick_leader", f"must be {leader}, the winner of the last trick")
    if not s.tricks and s.trick_leader != 1 - s.dealer:
        bad("trick_leader", "the non-dealer leads the first trick")


def _check_draws(s: State, bad: Callable[[str, str], None]) -> None:
    """Two draws per drawing trick, winner first, each card where it can be, exposure per §4."""
    n = len(s.tricks)
    want = 2 * min(n, DRAWING_TRICKS)
    if len(s.draws) != want:
        bad("draws", f"must hold {want} draws after {n} tricks")
        return
    if len(s.stock) != STOCK_SIZE - want:
        bad("stock", f"must hold {STOCK_SIZE - want} cards after {n} tricks")
    # card -> (seat that played it, index of its trick: tricks[i] is trick i + 1, the current one is n)
    played = {pc.card: (pc.player, i) for i, t in enumerate(s.tricks) for pc in t.cards}
    played.update((pc.card, (pc.player, n)) for pc in s.trick)
    for i, d in enumerate(s.draws):
        k = i // 2 + 1
        t = s.tricks[k - 1]
        taker = t.winner if i % 2 == 0 else 1 - t.winner
        if d.trick != k or d.player != taker:
            bad(f"draws.{i}", f"must be trick {k}'s draw by seat {taker} (winner first)")
            continue
        if d.public is not _public_draws(s.options, k)[i % 2]:
            bad(f"draws.{i}.public", "does not fit the stock's exposure (§4)")
        where = played.get(d.card)
        if d.card not in s.hands[d.player] and (where is None or where[0] != d.player or where[1] < k):
            bad(f"draws.{i}.card", "a drawn card is in the drawer's hand or was played by him in a later trick")
    # the trump of each trick follows the stock (changing mode), and the current trump
    if s.options.trump_mode == CHANGING:
        # trick k's trump = suit of the winner's draw after trick k (that card was the top before trick k)
        for k in range(1, min(n, DRAWING_TRICKS) + 1):
            if s.tricks[k - 1].trump is not s.draws[2 * (k - 1)].card.suit:
                bad(f"tricks.{k - 1}.trump", "must be the suit of the top card before the trick")
        if s.stock:
            if s.trump is not s.stock[0].suit:
                bad("trump", "must be the suit of the stock's top card")
        elif n and s.trump is not s.tricks[min(n, DRAWING_TRICKS) - 1].trump:
            bad("trump", "once the stock is empty the last trump stays")
    else:
        first = s.draws[0].card.suit if s.draws else s.stock[0].suit
        if s.trump is not first:
            bad("trump", "with a fixed trump it is the suit of the first turn-up")
        if s.tricks and s.tricks[0].trump is not first:
            bad("tricks.0.trump", "with a fixed trump it is the suit of the first turn-up")


def _check_play_phase(s: State, bad: Callable[[str, str], None]) -> None:
    """A hand in progress: turn, hand sizes, no result yet for this hand."""
    if max(s.scores) >= s.options.target:
        bad("phase", "play although a seat reached the target")
    if s.winner is not None:
        bad("winner", "must be null during play")
    if len(s.tricks) >= TRICKS_PER_HAND:
        bad("tricks", "a hand in play has fewer than 26 tricks")
    if len(s.trick) > 1:
        bad("trick", "holds at most the led card")
    if s.trick and s.trick[0].player != s.trick_leader:
        bad("trick", "the led card belongs to trick_leader")
    want = (1 - s.trick_leader,) if s.trick else (s.trick_leader,)
    if s.to_move != want:
        bad("to_move", f"must be [{want[0]}]")
    n = len(s.tricks)
    size = HAND_SIZE if n < DRAWING_TRICKS else HAND_SIZE - (n - DRAWING_TRICKS)
    lead, other = s.trick_leader, 1 - s.trick_leader
    if len(s.hands[lead]) + len(s.trick) != size or len(s.hands[other]) != size:
        bad("hands", f"hands hold {size} cards before trick {n + 1}")
    if s.last_hand is not None and s.last_hand.deal_number != s.deal_number - 1:
        bad("last_hand", "during play it records the previous hand")
    if s.last_hand is None and s.deal_number != 1:
        bad("last_hand", "after the first hand it records the previous hand")
