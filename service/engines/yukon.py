"""Yukon: the trick-taking game where the four jacks ("Yukons") outrank every other card.

The contract is ``docs/rules/yukon.md``; section numbers (§) below refer to it. Pure functions
over an immutable ``State``; decks arrive as data. Following suit, trick resolution and the point
count are built from the shared helpers of ``cards/tricks.py``, the deal, the draws and the
partnerships from ``cards/turns.py``; what is Yukon's own (a jack never
counts as a card of its printed suit, the void player's duty to play a Yukon, the Grand Yukon and
"the first Yukon played wins") stays here, in ``_follow_options`` and ``_beats``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import TYPE_CHECKING, Final, NamedTuple, assert_never, cast

from ..cards import Card, Suit, names
from ..cards.packs import full_52
from ..cards.tricks import beats, of_suit, points, strength, winner_by
from ..cards.turns import deal_one_at_a_time, draw_in_turn, partnership_sides
from .base import BadMove, Event, GameInfo, IllegalMove, InvalidState, Outcome, Seat, quick_replace
from .kit import (
    Problems,
    applier,
    check_dealer,
    check_dealt,
    check_players,
    check_seats,
    option,
    option_info,
    refuse_early,
    stepper,
    view_head,
)
from .kit import players as players  # noqa: PLC0414 (re-exported: state.players)
from .kit import status as status  # noqa: PLC0414 (re-exported: the envelope status, from the phase)

if TYPE_CHECKING:
    from ..typed import YukonEngineView
from .moves import NextDeal, Play

# §2 trick rank of the cards of the suit led (jacks excluded: they are Yukons), low → high.
SUIT_ORDER: Final = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "Q", "K", "A")
RANK: Final = strength(SUIT_ORDER)
YUKON: Final = "J"  # the rank of the four Yukons
GRAND_YUKON: Final = Card.parse("JS")
# §2 card points: Yukons 10, tens 10, aces 5, kings 3, queens 2; the Grand Yukon 15.
CARD_POINTS: Final = {"J": 10, "10": 10, "A": 5, "K": 3, "Q": 2}
GRAND_YUKON_POINTS: Final = 15
HAND_POINTS_TOTAL: Final = 125
HAND_SIZE: Final = 5
REMOVABLE_TWOS: Final = ("2C", "2D", "2H", "2S")
FULL_PACK: Final = full_52()


class Phase(StrEnum):
    """§6 phases."""

    PLAY = "play"
    DEAL_OVER = "deal_over"
    GAME_OVER = "game_over"


_PHASE_PLAY, _PHASE_DEAL_OVER, _PHASE_GAME_OVER = Phase  # the members, in order, as module constants (kit: the move path)


@dataclass(frozen=True, slots=True)
class Options:
    """§3 options, defaults as in the spec."""

    dealer: Seat = option(
        0, type="integer", minimum=0, maximum=3,
        description="Dealer of the first hand (below the player count); the deal passes left.",
    )
    partnerships: bool = option(
        True, type="boolean",
        description="With 4 players: seats 0 & 2 against 1 & 3 (false: four single sides). Ignored for 2 or 3.",
    )
    target: int = option(
        250, type="integer", minimum=1, maximum=2**53 - 1,
        description="Points a side needs to win the game (alone at the top).",
    )
    removed_two: str = option(
        "2C", type="string", enum=list(REMOVABLE_TWOS),
        description="With 3 players, the two taken out of the pack. Ignored for 2 or 4.",
    )


OPTION_INFO: Final[Mapping[str, Mapping[str, object]]] = option_info(Options)


class Played(NamedTuple):
    """A card and the seat that played (or drew) it."""

    player: Seat
    card: Card


class LastTrick(NamedTuple):
    """§5 the latest completed trick: its cards in play order, winner, points and the draws after it."""

    cards: tuple[Played, ...]
    winner: Seat
    points: int
    draws: tuple[Played, ...]


@quick_replace
class State(NamedTuple):
    """The whole truth of a Yukon game (§5), hidden parts included.

    ``trick`` holds the cards of the trick in progress in play order; the first was played by
    ``leader``, the next by the seat on his left, and so on (the wire form names each seat).
    """

    options: Options
    players: int
    phase: Phase
    dealer: Seat
    hand_number: int
    hands: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]
    trick: tuple[Card, ...]
    leader: Seat
    to_move: Seat | None
    won: tuple[tuple[Card, ...], ...]
    last_trick: LastTrick | None
    hand_points: tuple[int, ...] | None
    scores: tuple[int, ...]
    winner: int | None
    seq: int = 0
    seed: int | None = None

    def __deepcopy__(self, memo: dict[int, object]) -> State:
        """A State is deeply immutable (tuples, ints, enums, frozen dataclasses, interned cards): it is its own copy."""
        return self

    @property
    def deal_number(self) -> int:
        """The shared name of ``hand_number`` (the API deals hand k of a seeded game with seed + k - 1)."""
        return self.hand_number


# --- moves (§6) -------------------------------------------------------------------------------


Move = Play | NextDeal  # Play: §6.1, lead or follow with a card (moves.Play)
GAME: Final = GameInfo(
    game_id="yukon", name="Yukon", rules_version="yukon/1",
    player_counts=(2, 3, 4), default_players=4,  # §2: "usually four play, two against two"
    move_classes={cls.TYPE: cls for cls in (Play, NextDeal)},
    parse_order=("unknown_move_type", "invalid_move", "invalid_player", "invalid_card", "invalid_deck"),
    early_parse_codes=frozenset({"invalid_move", "invalid_player"}),  # §8: after wrong_phase
    # The game's own problem codes (§8), in the table's order; the contract's <Game>ProblemCode.
    codes=("must_follow_suit", "must_play_yukon"),
)
GAME_ID, NAME, RULES_VERSION, PLAYER_COUNTS, DEFAULT_PLAYERS, MOVE_TYPES, MOVE_CLASSES = GAME.constants()

# Moves are values; the ones legal_moves lists are interned so listing them allocates nothing.
_PLAY: Final = {(p, c): Play(p, c) for p in range(4) for c in FULL_PACK}


# --- the pack, sides and card values (§2) -------------------------------------------------------


@cache
def _pack(players: int, removed_two: str) -> tuple[Card, ...]:
    if players == 3:
        gone = Card.parse(removed_two)
        return tuple(c for c in FULL_PACK if c != gone)
    return FULL_PACK


def pack(options: Options, players: int = DEFAULT_PLAYERS) -> tuple[Card, ...]:
    """§2 the game's pack in canonical order: 52 cards, or 51 (without ``removed_two``) for three."""
    return _pack(players, options.removed_two)


@cache
def _next_deal_template(players: int, removed_two: str, seat: Seat) -> NextDeal:
    return NextDeal(seat, pack=_pack(players, removed_two))


def sides(state: State) -> tuple[int, ...]:
    """§2 the side of each seat: 0 & 2 against 1 & 3 with four partnered players, else one per seat."""
    return partnership_sides(state.players, state.options.partnerships)


def side_count(options: Options, players: int) -> int:
    """Number of sides: 2 with partnerships, else one per seat."""
    return 2 if players == 4 and options.partnerships else players


def side_seats(state: State, side: int) -> tuple[Seat, ...]:
    """The seats of ``side``."""
    return tuple(s for s, x in enumerate(sides(state)) if x == side)


def card_points(cards: Sequence[Card]) -> int:
    """§2 points of ``cards``: the table by rank, with the Grand Yukon worth 15 instead of 10."""
    total = points(cards, CARD_POINTS)
    if GRAND_YUKON in cards:
        total += GRAND_YUKON_POINTS - CARD_POINTS[YUKON]
    return total


def is_yukon(card: Card) -> bool:
    """§2 the four jacks are the Yukons."""
    return card.rank == YUKON


# --- following and winning (§6.1) ----------------------------------------------------------------


def _follow_options(hand: tuple[Card, ...], led: Suit) -> tuple[Card, ...]:
    """§6.1 following: a non-jack card of the suit led if any, else a Yukon if any, else any card."""
    suit_cards = tuple(c for c in of_suit(hand, led) if c.rank != YUKON)  # a jack is never of its suit
    if suit_cards:
        return suit_cards
    yukons = tuple(c for c in hand if c.rank == YUKON)
    return yukons or hand


def _beats(challenger: Card, best: Card) -> bool:
    """§2 trick rank: whether ``challenger`` takes the trick from ``best`` (the card winning so far).

    The Grand Yukon beats everything; a Yukon beats any non-jack, but not an earlier Yukon; two
    cards of the suit led compare by rank (the shared ``beats``, without trumps).
    """
    if challenger == GRAND_YUKON:
        return True
    if best.rank == YUKON:
        return False
    if challenger.rank == YUKON:
        return True
    return beats(challenger, best, None, RANK)


def trick_winner(cards: Sequence[Card]) -> int:
    """§6.1 the index (play order) of the card that takes the trick ``cards``."""
    return winner_by(cards, _beats)


# --- setup (§4) -------------------------------------------------------------------------------


def _deal(deck: Sequence[Card], players: int, dealer: Seat, the_pack: tuple[Card, ...]) -> tuple[tuple[tuple[Card, ...], ...], tuple[Card, ...]]:
    """§4: five rounds of one card each, from eldest round to the dealer; the rest is the stock."""
    check_dealt(GAME, deck, the_pack, "4")
    return deal_one_at_a_time(deck, players, (dealer + 1) % players, HAND_SIZE)


def new_game(options: Options, players: int, deck: Sequence[Card], seed: int | None = None) -> State:
    """Deal the first hand from ``deck`` (top card first). Raises BadSetup."""
    check_players(GAME, players)
    check_dealer(GAME, options.dealer, players)
    hands, stock = _deal(deck, players, options.dealer, pack(options, players))
    eldest = (options.dealer + 1) % players
    return State(
        options=options,
        players=players,
        phase=_PHASE_PLAY,
        dealer=options.dealer,
        hand_number=1,
        hands=hands,
        stock=stock,
        trick=(),
        leader=eldest,
        to_move=eldest,
        won=((),) * players,
        last_trick=None,
        hand_points=None,
        scores=(0,) * side_count(options, players),
        winner=None,
        seq=0,
        seed=seed,
    )


def initial_events(state: State) -> list[Event]:
    """The events a new game starts with: the first hand dealt."""
    return [{"type": "deal_started", "dealer": state.dealer, "hand_number": state.hand_number}]


# --- whose turn, what is legal (§6) ----------------------------------------------------------


def _next_dealer(state: State) -> Seat:
    return (state.dealer + 1) % state.players


def to_move(state: State) -> frozenset[Seat]:
    """The seat to act: the player in turn, the next dealer in ``deal_over``, nobody at the end (§7)."""
    if state.phase is _PHASE_PLAY:
        return frozenset() if state.to_move is None else frozenset((state.to_move,))
    if state.phase is _PHASE_DEAL_OVER:
        return frozenset((_next_dealer(state),))
    return frozenset()


def legal_moves(state: State) -> list[Move]:
    """§6.3 every legal move: one play per legal card, or the next dealer's ``next_deal`` template."""
    if state.phase is _PHASE_PLAY:
        p = state.to_move
        assert p is not None
        hand = state.hands[p]
        cards = _follow_options(hand, state.trick[0].suit) if state.trick else hand
        return [_PLAY[p, c] for c in cards]
    if state.phase is _PHASE_DEAL_OVER:
        return [_next_deal_template(state.players, state.options.removed_two, _next_dealer(state))]
    return []


# --- checking (§6, §8 order) -----------------------------------------------------------------


def _check(state: State, move: Move | BadMove) -> None:
    """Raise IllegalMove with the first §8 code that applies; return if the move is legal."""
    if state.phase is _PHASE_GAME_OVER:
        raise IllegalMove("game_over", f"The game is over; side {state.winner} has won.", GAME.rule("7"))
    kind = move.type if isinstance(move, BadMove) else move.TYPE
    if kind not in MOVE_TYPES:  # unknown_move_type, or a move without a readable type (invalid_move)
        assert isinstance(move, BadMove)
        raise IllegalMove(move.code, move.detail, GAME.rule("6"))
    if kind == "play" and state.phase is not _PHASE_PLAY:
        raise IllegalMove("wrong_phase", "The hand is over; only next_deal is allowed.", GAME.rule("6.1"))
    if kind == "next_deal" and state.phase is not _PHASE_DEAL_OVER:
        raise IllegalMove("wrong_phase", "next_deal is only allowed once the hand is over.", GAME.rule("6.2"))
    if isinstance(move, BadMove):  # the parse problems the rules put first (GAME.early_parse_codes)
        refuse_early(GAME, move)
    p = move.player
    if p is None or not 0 <= p < state.players:
        raise IllegalMove("invalid_player", f"player must be a seat 0..{state.players - 1}.", GAME.rule("8"))
    if kind == "play":
        if p != state.to_move:
            raise IllegalMove("not_your_turn", f"It is seat {state.to_move}'s turn, not seat {p}'s.", GAME.rule("6.1"))
    elif p != _next_dealer(state):
        raise IllegalMove("not_your_turn", f"Only the new dealer, seat {_next_dealer(state)}, deals the next hand.", GAME.rule("6.2"))
    match move:
        case BadMove():  # invalid_card, invalid_deck: what the edge could not read as a card or deck
            raise IllegalMove(move.code, move.detail, GAME.rule("8"))
        case Play():
            _check_play(state, move)
        case NextDeal():
            if move.deck is None:
                raise IllegalMove("invalid_deck", "next_deal needs a deck; the service supplies one.", GAME.rule("6.2"))
            check_dealt(GAME, move.deck, pack(state.options, state.players), "6.2", IllegalMove)
        case _:
            assert_never(move)


def _check_play(state: State, move: Play) -> None:
    """§6.1 the card checks and the following rules, in §8 order."""
    p, c = move.player, move.card
    if c not in _pack_set(state.players, state.options.removed_two):
        raise IllegalMove("invalid_card", f"{c} is not a card of this game's pack (it was removed).", GAME.rule("2"))
    hand = state.hands[p]
    if c not in hand:
        raise IllegalMove("card_not_in_hand", f"{c} is not in seat {p}'s hand.", GAME.rule("6.1"))
    if not state.trick:  # leading: any card (§6.1)
        return
    led = state.trick[0].suit
    allowed = _follow_options(hand, led)  # the one statement of the following rules
    if c in allowed:
        return
    if not is_yukon(allowed[0]):
        raise IllegalMove(
            "must_follow_suit", f"{led.value} was led and seat {p} holds {names(allowed)} (a jack is not of its suit).", GAME.rule("6.1")
        )
    raise IllegalMove("must_play_yukon", f"Seat {p} has no {led.value} and must play a Yukon: {names(allowed)}.", GAME.rule("6.1"))


@cache
def _pack_set(players: int, removed_two: str) -> frozenset[Card]:
    return frozenset(_pack(players, removed_two))


# --- transitions ----------------------------------------------------------------------------


def _set(items: tuple[tuple[Card, ...], ...], seat: Seat, value: tuple[Card, ...]) -> tuple[tuple[Card, ...], ...]:
    return items[:seat] + (value,) + items[seat + 1 :]


def _next(state: State, move: Move, events: list[Event]) -> State:
    match move:
        case Play(player=p, card=c):
            events.append({"type": "card_played", "player": p, "card": c})
            hands = _set(state.hands, p, tuple(x for x in state.hands[p] if x != c))
            trick = state.trick + (c,)
            if len(trick) < state.players:
                return state._replace(hands=hands, trick=trick, to_move=(p + 1) % state.players)
            return _finish_trick(state, hands, trick, events)
        case NextDeal(player=q, deck=deck):
            assert deck is not None
            n = state.players
            hands, stock = _deal(deck, n, q, pack(state.options, n))
            eldest = (q + 1) % n
            events.append({"type": "deal_started", "dealer": q, "hand_number": state.hand_number + 1})
            return state._replace(
                phase=_PHASE_PLAY,
                dealer=q,
                hand_number=state.hand_number + 1,
                hands=hands,
                stock=stock,
                trick=(),
                leader=eldest,
                to_move=eldest,
                won=((),) * n,
                last_trick=None,
                hand_points=None,
            )
        case _:
            assert_never(move)


# ``_check`` refuses a move in the rules' order, ``_next`` plays it; the new state counts one more ``seq``.
step: Final = stepper(_check, _next)
apply: Final = applier(step)


def _finish_trick(state: State, hands: tuple[tuple[Card, ...], ...], trick: tuple[Card, ...], events: list[Event]) -> State:
    """§6.1 a complete trick: the winner takes it, everyone draws (winner first), the winner leads."""
    n = state.players
    leader = state.leader
    w = (leader + trick_winner(trick)) % n
    gained = card_points(trick)
    played = tuple(Played((leader + i) % n, c) for i, c in enumerate(trick))
    events.append({"type": "trick_won", "player": w, "cards": played, "points": gained})
    won = _set(state.won, w, state.won[w] + trick)
    # §6.1 step 3: each seat draws, the winner first (the stock is a multiple of n: all or nobody)
    hands, stock, drawn = draw_in_turn(hands, state.stock, w)
    draws = tuple(Played(seat, card) for seat, card in drawn)
    for seat, card in drawn:
        events.append({"type": "card_drawn", "player": seat, "card": card, "private_to": seat, "private": ("card",)})
    new = state._replace(
        hands=hands,
        stock=stock,
        trick=(),
        won=won,
        last_trick=LastTrick(played, w, gained, draws),
        leader=w,
        to_move=w,
    )
    if not hands[w]:  # every hand empties together: the hand is over (§7)
        return _end_hand(new, events)
    return new


def _hand_points(state: State) -> tuple[int, ...]:
    """§7 points per side in the cards its seats have won this hand."""
    totals = [0] * side_count(state.options, state.players)
    for seat, side in enumerate(sides(state)):
        totals[side] += card_points(state.won[seat])
    return tuple(totals)


def _leader_side(scores: Sequence[int], target: int) -> int | None:
    """§7 the side that has won: the single highest score, if it reaches the target."""
    top = max(scores)
    if top < target or scores.count(top) > 1:
        return None
    return scores.index(top)


def _end_hand(state: State, events: list[Event]) -> State:
    """§7 score the hand; the game ends when one side alone has the highest score at or past the target."""
    gained = _hand_points(state)
    totals = tuple(a + b for a, b in zip(state.scores, gained))
    events.append({"type": "deal_over", "hand_points": gained, "scores": totals})
    winner = _leader_side(totals, state.options.target)
    if winner is not None:
        events.append({"type": "game_over", "winner": list(side_seats(state, winner))})
    return state._replace(
        phase=_PHASE_DEAL_OVER if winner is None else _PHASE_GAME_OVER,
        hand_points=gained,
        scores=totals,
        winner=winner,
        to_move=None,
    )


# --- the outside view ------------------------------------------------------------------------


def outcome(state: State) -> Outcome | None:
    """The winning side's seats once the game is over (§7)."""
    if state.phase is not _PHASE_GAME_OVER or state.winner is None:
        return None
    return Outcome(frozenset(side_seats(state, state.winner)), "target_reached")


def _counts(piles: tuple[tuple[Card, ...], ...]) -> list[int]:
    return [len(p) for p in piles]


def derived(state: State) -> dict[str, object]:
    """The derived values responses add to a full state; ignored on input."""
    return {
        "hand_counts": _counts(state.hands),
        "stock_count": len(state.stock),
        "won_counts": _counts(state.won),
        "sides": list(sides(state)),
    }


def scores(state: State, seat: Seat | None = None) -> dict[str, object]:
    """§7 envelope scores: ``totals`` per seat (partners show their side's), the side totals and the hand's points."""
    side = sides(state)
    return {
        "totals": [state.scores[side[s]] for s in range(state.players)],
        "side_totals": list(state.scores),
        "sides": list(side),
        "hand_points": None if state.hand_points is None else list(state.hand_points),
    }


def _trick_view(state: State) -> list[dict[str, object]]:
    n, leader = state.players, state.leader
    return [{"player": (leader + i) % n, "card": c} for i, c in enumerate(state.trick)]


def _last_trick_view(state: State, seat: Seat | None) -> dict[str, object] | None:
    last = state.last_trick
    if last is None:
        return None
    return {
        "cards": last.cards,
        "winner": last.winner,
        "points": last.points,
        "draws": [{"player": d.player, "card": d.card if d.player == seat else None} for d in last.draws],
    }


def view(state: State, seat: Seat | None) -> YukonEngineView:
    """§5 what ``seat`` may see (``None``: the public view, no hand at all).

    Hands are the owner's only, the stock nobody's; won cards show as counts until the hand is
    over; a draw of the last trick shows its card to the drawer alone.
    """
    out: dict[str, object] = {
        **view_head(GAME, state, seat),
        "options": state.options,
        "players": state.players,
        "phase": state.phase,
        "dealer": state.dealer,
        "hand_number": state.hand_number,
    }
    if seat is not None:
        out["hand"] = state.hands[seat]
    out.update(
        hand_counts=_counts(state.hands),
        stock_count=len(state.stock),
        trick=_trick_view(state),
        leader=state.leader,
        to_move=state.to_move,
        won_counts=_counts(state.won),
        won=state.won if state.phase is not _PHASE_PLAY else None,
        last_trick=_last_trick_view(state, seat),
        hand_points=state.hand_points,
        scores=state.scores,
        sides=sides(state),
        winner=state.winner,
    )
    if seat is not None and seat in to_move(state):
        out["legal_moves"] = legal_moves(state)
    return cast("YukonEngineView", out)


def visible_cards(state: State, seat: Seat | None) -> frozenset[Card]:
    """Every card ``seat`` may see now (tests scan views against it)."""
    seen: set[Card] = set(state.trick)
    if seat is not None:
        seen.update(state.hands[seat])
    last = state.last_trick
    if last is not None:
        seen.update(p.card for p in last.cards)
        seen.update(d.card for d in last.draws if d.player == seat)
    if state.phase is not _PHASE_PLAY:
        for pile in state.won:
            seen.update(pile)
    return frozenset(seen)


# --- consistency of a client-supplied state (docs/rules/conventions.md "State validation")----------------


def check_state(state: State) -> None:
    """Raise InvalidState (with field paths) unless the state could arise in play."""
    bad = Problems()
    s = state
    n = s.players
    check_seats(GAME, n)
    bad.seat("options.dealer", s.options.dealer, n)
    for path, value in (("dealer", s.dealer), ("leader", s.leader), ("to_move", s.to_move)):
        bad.seat(path, value, n)
    for path, seq in (("hands", s.hands), ("won", s.won)):
        if len(seq) != n:
            bad(path, f"must hold one list per seat ({n})")
    k = side_count(s.options, n)
    if len(s.scores) != k:
        bad("scores", f"must hold one total per side ({k})")
    if s.hand_points is not None and len(s.hand_points) != k:
        bad("hand_points", f"must hold one total per side ({k})")
    if s.winner is not None and not 0 <= s.winner < k:
        bad("winner", f"must be a side 0..{k - 1} or null")
    if len(s.trick) >= n:
        bad("trick", f"a trick in progress holds at most {n - 1} cards")
    bad.check()
    the_pack = pack(s.options, n)
    places = [c for h in s.hands for c in h] + list(s.stock) + list(s.trick) + [c for w in s.won for c in w]
    fast = len(places) == len(the_pack) and _pack_set(n, s.options.removed_two).issuperset(places) and len(set(places)) == len(places)
    if not fast and not bad.cards("hands", places, the_pack, "cards in hands, stock, trick and won must be the pack"):
        raise InvalidState(bad.errors)  # the fast test failed, and the problem is named
    if any(x < 0 for x in s.scores):
        bad("scores", "must not be negative")
    taken = sum(len(w) for w in s.won)
    if any(len(w) % n for w in s.won):
        bad("won", f"each seat's won cards are whole tricks of {n}")
    tricks_done = taken // n
    _check_last_trick(s, tricks_done, bad)
    if s.phase is _PHASE_PLAY:
        _check_play_phase(s, tricks_done, bad)
    else:
        _check_hand_over(s, bad)
    bad.check()


def _check_last_trick(s: State, tricks_done: int, bad: Callable[[str, str], None]) -> None:
    n = s.players
    last = s.last_trick
    if last is None:
        if tricks_done:
            bad("last_trick", "is set once a trick has been completed")
        return
    if not tricks_done:
        bad("last_trick", "must be null before the first trick is complete")
        return
    cards = tuple(p.card for p in last.cards)
    first = last.cards[0].player if last.cards else 0
    if len(cards) != n or any(p.player != (first + i) % n for i, p in enumerate(last.cards)):
        bad("last_trick.cards", f"must be {n} cards played by consecutive seats")
        return
    if last.winner != (first + trick_winner(cards)) % n:
        bad("last_trick.winner", "is not the winner of these cards")
    elif s.won[last.winner][-n:] != cards:
        bad("last_trick.cards", "must be the last trick in the winner's won cards")
    if last.points != card_points(cards):
        bad("last_trick.points", f"must be {card_points(cards)}")
    if last.draws:
        if len(last.draws) != n or any(d.player != (last.winner + i) % n for i, d in enumerate(last.draws)):
            bad("last_trick.draws", f"are {n} draws from the winner on, or none")
        elif s.phase is _PHASE_PLAY:
            played = dict(zip(((s.leader + i) % n for i in range(len(s.trick))), s.trick))
            for i, d in enumerate(last.draws):
                if d.card not in s.hands[d.player] and played.get(d.player) != d.card:
                    bad(f"last_trick.draws.{i}.card", "a drawn card is still in the drawer's hand or in the trick")
    if s.phase is _PHASE_PLAY and s.leader != last.winner:
        bad("leader", "the winner of the last trick leads")


def _check_play_phase(s: State, tricks_done: int, bad: Callable[[str, str], None]) -> None:
    """A hand in progress: turn, hand sizes, stock, no score of the hand yet."""
    n = s.players
    per_seat = len(pack(s.options, n)) // n
    if s.hand_points is not None:
        bad("hand_points", "must be null during play")
    if s.winner is not None:
        bad("winner", "must be null during play")
    if _leader_side(s.scores, s.options.target) is not None:
        bad("phase", "play although a side has won")
    if tricks_done == 0 and s.leader != (s.dealer + 1) % n:
        bad("leader", "eldest leads the first trick")
    if s.to_move != (s.leader + len(s.trick)) % n:
        bad("to_move", f"must be {(s.leader + len(s.trick)) % n}: the seat after the last card of the trick")
    holding = per_seat - tricks_done  # cards each seat holds before playing to the current trick
    if holding <= 0:
        bad("hands", "a hand in play has cards left")
        return
    want_stock = n * max(0, holding - HAND_SIZE)
    if len(s.stock) != want_stock:
        bad("stock", f"holds {want_stock} cards after {tricks_done} tricks")
    played = {(s.leader + i) % n for i in range(len(s.trick))}
    for seat, hand in enumerate(s.hands):
        want = min(holding, HAND_SIZE) - (seat in played)
        if len(hand) != want:
            bad(f"hands.{seat}", f"must hold {want} cards")


def _check_hand_over(s: State, bad: Callable[[str, str], None]) -> None:
    """``deal_over`` / ``game_over``: the hand played out and scored, the winner as §7 says."""
    if any(s.hands) or s.stock or s.trick:
        bad("hands", "a finished hand leaves no card in hands, stock or trick")
        return
    if s.to_move is not None:
        bad("to_move", "must be null once the hand is over")
    if s.hand_points is None or tuple(s.hand_points) != _hand_points(s):
        bad("hand_points", f"must be the points won this hand: {list(_hand_points(s))}")
    elif any(a < b for a, b in zip(s.scores, s.hand_points)):
        bad("scores", "include this hand's points")
    side = _leader_side(s.scores, s.options.target)
    if s.phase is _PHASE_DEAL_OVER and (side is not None or s.winner is not None):
        bad("phase", "deal_over although a side has won")
    if s.phase is _PHASE_GAME_OVER and (side is None or s.winner != side):
        bad("winner", f"must be the single side with the highest score at or past the target ({side})")
