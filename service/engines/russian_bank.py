"""Russian Bank (Crapette): two players, two packs, a race to get rid of one's own cards.

The contract is ``docs/rules/russian_bank.md``; section numbers (§) below refer to it. Pure
functions over an immutable ``State``; decks arrive as data.

Move generation (§6.7) is linear in the number of free cards plus the number of moves: one pass
over the eight foundations and the eight tableau piles builds lookup tables ("which foundation
wants this suit and rank", "which tableau piles want this rank and colour"), and each free card
then finds its targets by dictionary lookups, never by rescanning the piles. ``_check`` (§8 order)
judges one move with the same building predicates, and the §6.6 priority gate is one function
used by both, so listing and checking cannot disagree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, ClassVar, Final, NamedTuple, cast

from ..cards import RANKS, Card, Suit
from ..cards.packs import pack_of
from .base import BadMove, Event, GameInfo, IllegalMove, Outcome, Seat, quick_replace
from .kit import Problems, applier, check_dealt, check_players, option, option_info, stepper, view_head

if TYPE_CHECKING:
    from ..typed import RussianBankEngineView
from .kit import status as status  # noqa: PLC0414 (re-exported: the envelope status, from the phase)

PACK_A: Final = pack_of(RANKS, deck="a")
PACK_B: Final = pack_of(RANKS, deck="b")
PACK: Final = PACK_A + PACK_B
STOCK_SIZE: Final = 13
TABLEAU_PER_SEAT: Final = 4
PILES: Final = 8
WIN_BASE: Final = 30  # §7.1 pagat scoring
IDLE_LIMIT: Final = 2  # §6.5


# --- §2 card values, precomputed per card (cards are interned, so dict lookups are cheap) -------

_RANK_VALUE: Final = {**{r: int(r) for r in RANKS if r.isdigit()}, "J": 11, "Q": 12, "K": 13, "A": 1}
SUIT_ORDER: Final = {Suit.S: 4, Suit.H: 3, Suit.D: 2, Suit.C: 1}  # §4.3 tie-break S > H > D > C
VALUE: Final[Mapping[Card, int]] = {c: _RANK_VALUE[c.rank] for c in PACK}
RED: Final[Mapping[Card, bool]] = {c: c.is_red for c in PACK}
# what a card is, as a key of the lookup tables below
_FKEY: Final[Mapping[Card, tuple[Suit, int]]] = {c: (c.suit, VALUE[c]) for c in PACK}
_TKEY: Final[Mapping[Card, tuple[int, bool]]] = {c: (VALUE[c], RED[c]) for c in PACK}
_ACES: Final = frozenset(c for c in PACK if VALUE[c] == 1)
_NONE: Final[frozenset[Card]] = frozenset()
# what a pile topped by the card wants next (None: nothing)
_FNEXT: Final[Mapping[Card, tuple[Suit, int] | None]] = {
    c: (c.suit, VALUE[c] + 1) if VALUE[c] < 13 else None for c in PACK
}
_TNEXT: Final[Mapping[Card, tuple[int, bool] | None]] = {
    c: (VALUE[c] - 1, not RED[c]) if VALUE[c] > 1 else None for c in PACK
}
# §2 loading: the cards that may go on a stock or waste topped by the key card (same suit, ±1)
_LOADS_ON: Final[Mapping[Card, frozenset[Card]]] = {
    t: frozenset(c for c in PACK if c.suit is t.suit and abs(VALUE[c] - VALUE[t]) == 1) for t in PACK
}


def fits_foundation(card: Card, top: Card | None) -> bool:
    """§2: an Ace on an empty foundation; else same suit, one rank up."""
    if top is None:
        return VALUE[card] == 1
    return _FNEXT[top] == _FKEY[card]


def fits_tableau(card: Card, top: Card | None) -> bool:
    """§2: anything on an empty pile; else one rank lower in the other colour."""
    return top is None or _TNEXT[top] == _TKEY[card]


def fits_load(card: Card, top: Card) -> bool:
    """§2 loading an opponent's stock or waste topped by ``top``: same suit, one rank apart."""
    return card in _LOADS_ON[top]


# --- §3 options ---------------------------------------------------------------------------------


class FirstPlayer(StrEnum):
    HIGHER_STOCK = "higher_stock"
    LOWER_STOCK = "lower_stock"
    SEAT0 = "seat0"
    SEAT1 = "seat1"


@dataclass(frozen=True, slots=True)
class Options:
    """§3 options, defaults as in the spec (strings are checked by the option schema)."""

    first_player: str = option(
        "higher_stock", type="string", enum=[f.value for f in FirstPlayer],
        description="Who moves first: the higher stock top (seed), the lower (pagat), or a fixed seat.",
    )
    waste_loading: str = option(
        "both", type="string", enum=["both", "second_player_only"],
        description="Who may load the opponent's waste: both players, or only the player who did not move first.",
    )
    waste_top_available: bool = option(
        False, type="boolean",
        description="The top of one's own waste is a free card (pagat variant).",
    )
    priority: str = option(
        "off", type="string", enum=["off", "enforced"],
        description="Enforce the standard priorities (stock to foundation, foundation moves, fill spaces) as legality.",
    )
    stall_limit: int | None = option(
        None, type="integer", minimum=1, maximum=1_000_000, nullable=True,
        description="The game ends drawn after this many moves in a row without progress (§7.5); null: never.",
    )


OPTION_INFO: Final[Mapping[str, Mapping[str, object]]] = option_info(Options)


# --- §5 state -----------------------------------------------------------------------------------


class Phase(StrEnum):
    PLAY = "play"
    GAME_OVER = "game_over"


_PHASE_PLAY, _PHASE_GAME_OVER = Phase  # the members, in order, as module constants (kit: the move path)


class Reason(StrEnum):
    OUT = "out"
    STALEMATE = "stalemate"
    AGREED = "agreed"
    STALLED = "stalled"


class PlayerPiles(NamedTuple):
    """One seat's own piles (§5.1 ``players[s]``), each bottom → top."""

    stock: tuple[Card, ...]
    hand: tuple[Card, ...]
    hand_card: Card | None
    waste: tuple[Card, ...]


class Result(NamedTuple):
    """§7: the winner (None: a draw), how the game ended, the points."""

    winner: Seat | None
    reason: Reason
    points: int


@quick_replace
class State(NamedTuple):
    """The whole truth of a Russian Bank game (§5.1), hidden parts included."""

    options: Options
    phase: Phase
    first_player: Seat
    to_move: Seat | None
    turn_number: int
    idle_turns: int
    acted_this_turn: bool
    players: tuple[PlayerPiles, PlayerPiles]
    tableau: tuple[tuple[Card, ...], ...]
    foundations: tuple[tuple[Card, ...], ...]
    result: Result | None
    # The fields below came with §6.8 and §7.5. Their defaults are what a match sealed before them
    # gets (docs/dev/upgrades.md): no offer made, no stall counted, and as the fewest cards left 0,
    # which every position satisfies; such a match has no stall_limit, so the count decides nothing.
    draw_offer: Seat | None = None  # §6.8 the seat whose offer awaits the answer of ``to_move``
    draw_offered_this_turn: bool = False  # §6.8 the seat whose turn it is has offered a draw in it
    stall: int = 0  # §7.5 play moves in a row without progress
    fewest_left: tuple[int, int] = (0, 0)  # §7.5 each seat's fewest cards left so far
    seq: int = 0


# --- §6 moves -----------------------------------------------------------------------------------

SOURCES: Final = ("stock", "hand", "waste", *(f"tableau:{i}" for i in range(PILES)))
TARGETS: Final = ("foundation", *(f"tableau:{i}" for i in range(PILES)), "opponent_stock", "opponent_waste")
_SRC_INDEX: Final = {s: i for i, s in enumerate(SOURCES)}  # 0 stock, 1 hand, 2 waste, 3+i tableau i
_TGT_INDEX: Final = {t: i for i, t in enumerate(TARGETS)}  # 0 foundation, 1+i tableau i, 9, 10
_S_STOCK, _S_HAND, _S_WASTE, _S_TAB = 0, 1, 2, 3
_T_FOUND, _T_TAB, _T_OSTOCK, _T_OWASTE = 0, 1, 9, 10


@dataclass(frozen=True, slots=True)
class MoveCard:
    """§6.2 ``{"type": "move", "player", "card", "from", "to"}``: one free card onto a pile."""

    TYPE: ClassVar[str] = "move"
    player: Seat
    card: Card
    source: str = field(metadata={"wire_name": "from"})
    target: str = field(metadata={"wire_name": "to"})


@dataclass(frozen=True, slots=True)
class Flip:
    """§6.3 turn up the next hand card (turning the waste over first if the hand is empty)."""

    TYPE: ClassVar[str] = "flip"
    player: Seat


@dataclass(frozen=True, slots=True)
class Discard:
    """§6.4 put the hand card on one's own waste; the turn ends."""

    TYPE: ClassVar[str] = "discard"
    player: Seat


@dataclass(frozen=True, slots=True)
class Pass:
    """§6.5 end the turn when there is no card to turn."""

    TYPE: ClassVar[str] = "pass"
    player: Seat


@dataclass(frozen=True, slots=True)
class OfferDraw:
    """§6.8 offer the opponent a draw; the opponent answers before play goes on."""

    TYPE: ClassVar[str] = "offer_draw"
    player: Seat


@dataclass(frozen=True, slots=True)
class AcceptDraw:
    """§6.8 accept the pending draw offer: the game ends drawn (§7.4)."""

    TYPE: ClassVar[str] = "accept_draw"
    player: Seat


@dataclass(frozen=True, slots=True)
class DeclineDraw:
    """§6.8 decline the pending draw offer: the offerer's turn goes on."""

    TYPE: ClassVar[str] = "decline_draw"
    player: Seat


Move = MoveCard | Flip | Discard | Pass | OfferDraw | AcceptDraw | DeclineDraw
_ANSWERS: Final = (AcceptDraw, DeclineDraw)
GAME: Final = GameInfo(
    game_id="russian_bank", name="Russian Bank", rules_version="russian_bank/1",
    player_counts=(2,), default_players=2,
    move_classes={cls.TYPE: cls for cls in (MoveCard, Flip, Discard, Pass, OfferDraw, AcceptDraw, DeclineDraw)},
    # §8: every parse-level code comes before not_your_turn (the engine raises them first)
    parse_order=("unknown_move_type", "invalid_move", "invalid_player", "invalid_card"),
    # The game's own problem codes (§8), in the table's order; the contract's <Game>ProblemCode.
    codes=("draw_offer_pending", "no_draw_offer", "draw_already_offered", "invalid_source", "invalid_target", "source_empty", "card_mismatch", "same_pile",
           "foundation_mismatch", "tableau_mismatch", "waste_loading_not_allowed", "target_empty",
           "load_mismatch", "hand_card_up", "nothing_to_flip", "no_hand_card", "cannot_pass",
           "priority_violation"),
)
GAME_ID, NAME, RULES_VERSION, PLAYER_COUNTS, DEFAULT_PLAYERS, MOVE_TYPES, MOVE_CLASSES = GAME.constants()

_FLIP: Final = (Flip(0), Flip(1))
_DISCARD: Final = (Discard(0), Discard(1))
_PASS: Final = (Pass(0), Pass(1))
_OFFER: Final = (OfferDraw(0), OfferDraw(1))
_ANSWER: Final[tuple[tuple[Move, Move], ...]] = ((AcceptDraw(0), DeclineDraw(0)), (AcceptDraw(1), DeclineDraw(1)))
# interned card moves: _MOVE[player][source index][target index] maps card -> move (filled lazily)
_MOVE: Final[list[list[list[dict[Card, MoveCard]]]]] = [
    [[{} for _ in TARGETS] for _ in SOURCES] for _ in (0, 1)
]


def _mv(p: Seat, s: int, t: int, card: Card) -> MoveCard:
    table = _MOVE[p][s][t]
    move = table.get(card)
    if move is None:
        move = table[card] = MoveCard(p, card, SOURCES[s], TARGETS[t])
    return move


# --- §4 setup -----------------------------------------------------------------------------------


def pack(options: Options, players: int = 2) -> tuple[Card, ...]:
    """The 104 tagged cards (§2): pack ``a`` then pack ``b``, each in canonical order."""
    return PACK


def _layout(p: Sequence[Card]) -> tuple[PlayerPiles, tuple[tuple[Card, ...], ...]]:
    """§4.2 one seat's layout from its pack (top first): stock, four tableau cards, hand."""
    stock = tuple(p[:STOCK_SIZE])
    tableau = tuple((c,) for c in p[STOCK_SIZE:STOCK_SIZE + TABLEAU_PER_SEAT])
    hand = tuple(reversed(p[STOCK_SIZE + TABLEAU_PER_SEAT:]))
    return PlayerPiles(stock, hand, None, ()), tableau


def _first_player(option: str, stocks: tuple[Card, Card], tableau: Sequence[tuple[Card, ...]]) -> Seat:
    """§4.3: compare (stock top, 4 tableau cards) by rank, then by suit; seat 0 on a full tie."""
    if option == FirstPlayer.SEAT0:
        return 0
    if option == FirstPlayer.SEAT1:
        return 1
    keys = [[stocks[s]] + [tableau[TABLEAU_PER_SEAT * s + k][0] for k in range(TABLEAU_PER_SEAT)] for s in (0, 1)]
    lower = option == FirstPlayer.LOWER_STOCK
    by_rank = [(VALUE[a], VALUE[b]) for a, b in zip(keys[0], keys[1])]
    by_suit = [(SUIT_ORDER[a.suit], SUIT_ORDER[b.suit]) for a, b in zip(keys[0], keys[1])]
    for va, vb in by_rank + by_suit:
        if va != vb:
            return (0 if va < vb else 1) if lower else (0 if va > vb else 1)
    return 0


def new_game(options: Options, players: int, deck: Sequence[Card], seed: int | None = None) -> State:
    """§4: lay out both packs from ``deck`` (the ``/a`` cards are seat 0's pack, in order)."""
    check_players(GAME, players)
    check_dealt(GAME, deck, PACK, "4.1")
    seat0, tab0 = _layout([c for c in deck if c.deck == "a"])
    seat1, tab1 = _layout([c for c in deck if c.deck == "b"])
    tableau = tab0 + tab1
    first = _first_player(options.first_player, (seat0.stock[-1], seat1.stock[-1]), tableau)
    return State(
        options=options,
        phase=_PHASE_PLAY,
        first_player=first,
        to_move=first,
        turn_number=1,
        idle_turns=0,
        acted_this_turn=False,
        players=(seat0, seat1),
        tableau=tableau,
        foundations=((),) * PILES,
        result=None,
        draw_offer=None,
        draw_offered_this_turn=False,
        stall=0,
        fewest_left=(cards_left_of(seat0), cards_left_of(seat1)),
        seq=0,
    )


def initial_events(state: State) -> list[Event]:
    """The layout's public facts: who moves first and the two stock tops."""
    return [
        {
            "type": "layout",
            "first_player": state.first_player,
            "stock_tops": [s.stock[-1] if s.stock else None for s in state.players],
        }
    ]


# --- whose turn -----------------------------------------------------------------------------


def players(state: State) -> int:
    return 2


def to_move(state: State) -> frozenset[Seat]:
    return frozenset() if state.to_move is None else frozenset((state.to_move,))


def _may_load_waste(state: State, p: Seat) -> bool:
    """§3 ``waste_loading``: under ``second_player_only`` the first player may not."""
    return state.options.waste_loading != "second_player_only" or p != state.first_player


# --- legal moves (§6.7) ---------------------------------------------------------------------


def _sources(state: State, p: Seat) -> list[tuple[int, Card]]:
    """§6.1 the free cards of ``p``: (source index, card)."""
    me = state.players[p]
    out: list[tuple[int, Card]] = []
    if me.stock:
        out.append((_S_STOCK, me.stock[-1]))
    if me.hand_card is not None:
        out.append((_S_HAND, me.hand_card))
    if me.waste and state.options.waste_top_available:
        out.append((_S_WASTE, me.waste[-1]))
    for i, pile in enumerate(state.tableau):
        if pile:
            out.append((_S_TAB + i, pile[-1]))
    return out


def _foundation_wants(state: State) -> tuple[dict[tuple[Suit, int], int], int | None]:
    """(card key → lowest foundation index it fits, lowest empty foundation for an Ace)."""
    wants: dict[tuple[Suit, int], int] = {}
    empty: int | None = None
    for j, f in enumerate(state.foundations):
        if f:
            key = _FNEXT[f[-1]]
            if key is not None and key not in wants:
                wants[key] = j
        elif empty is None:
            empty = j
    return wants, empty


def _foundation_index(card: Card, wants: Mapping[tuple[Suit, int], int], empty: int | None) -> int | None:
    """§6.2 the lowest-indexed foundation ``card`` fits on, or None."""
    if VALUE[card] == 1:
        return empty
    return wants.get(_FKEY[card])


def _foundation_moves(state: State, p: Seat, srcs: Sequence[tuple[int, Card]]) -> list[MoveCard]:
    wants, empty = _foundation_wants(state)
    return [_mv(p, s, _T_FOUND, c) for s, c in srcs if _foundation_index(c, wants, empty) is not None]


def _gate(state: State, p: Seat, fmoves: Sequence[MoveCard]) -> tuple[list[MoveCard] | None, bool]:
    """§6.6 priorities: (the only moves allowed under P1/P2, or None; whether P3 bars ending the turn).

    With ``priority = "off"``: (None, False). The one statement of the priority rules, used both
    to list moves and to refuse them.
    """
    if state.options.priority != "enforced":
        return None, False
    if fmoves:
        stock = [m for m in fmoves if m.source == "stock"]  # P1
        return (stock or list(fmoves)), False  # P2
    return None, bool(state.players[p].stock) and any(not pile for pile in state.tableau)  # P3


def legal_moves(state: State) -> list[Move]:
    """Every legal move of the seat to move (§6.7), in the reference order.

    One pass over the tableau collects its free cards, the card keys its piles want and its empty
    piles; each free card then finds its targets by lookups (no rescan of the piles per card).
    """
    if state.phase is not _PHASE_PLAY or state.to_move is None:
        return []
    p = state.to_move
    if state.draw_offer is not None:  # §6.8 only the answer
        return list(_ANSWER[p])
    me = state.players[p]
    opp = state.players[1 - p]
    srcs = _sources(state, p)
    fwants, fempty = _foundation_wants(state)
    interned = _MOVE[p]
    fmoves = []
    for s, c in srcs:
        if (fempty is not None) if c in _ACES else (_FKEY[c] in fwants):
            fmoves.append(interned[s][_T_FOUND].get(c) or _mv(p, s, _T_FOUND, c))
    only, no_end = _gate(state, p, fmoves)
    if only is not None:
        return list(only)
    # tableau piles by the card key they want; empty piles take anything
    twants: dict[tuple[int, bool], list[int]] = {}
    empties: list[int] = []
    for i, pile in enumerate(state.tableau):
        if pile:
            key = _TNEXT[pile[-1]]
            if key is not None:
                if key in twants:
                    twants[key].append(i)
                else:
                    twants[key] = [i]
        else:
            empties.append(i)
    ostock = _LOADS_ON[opp.stock[-1]] if opp.stock else _NONE
    owaste = _LOADS_ON[opp.waste[-1]] if opp.waste and _may_load_waste(state, p) else _NONE
    out: list[Move] = []
    fi = 0
    nf = len(fmoves)
    for s, c in srcs:
        row = interned[s]
        if fi < nf and fmoves[fi].card is c and fmoves[fi].source == SOURCES[s]:
            out.append(fmoves[fi])
            fi += 1
        wanted = twants.get(_TKEY[c])
        piles = sorted(wanted + empties) if wanted and empties else (wanted or empties)
        own = s - _S_TAB
        for i in piles:
            if i != own:
                out.append(row[_T_TAB + i].get(c) or _mv(p, s, _T_TAB + i, c))
        if c in ostock:
            out.append(row[_T_OSTOCK].get(c) or _mv(p, s, _T_OSTOCK, c))
        if c in owaste:
            out.append(row[_T_OWASTE].get(c) or _mv(p, s, _T_OWASTE, c))
    if not no_end:
        if me.hand_card is None:
            out.append(_FLIP[p] if me.hand or me.waste else _PASS[p])
        else:
            out.append(_DISCARD[p])
        if not state.draw_offered_this_turn:
            out.append(_OFFER[p])
    return out


# --- checking (§8 order) --------------------------------------------------------------------


def _check(state: State, move: Move | BadMove) -> None:
    """Raise IllegalMove with the first §8 code that applies; return if the move is legal."""
    if state.phase is _PHASE_GAME_OVER:
        raise IllegalMove("game_over", "The game is over; no move is accepted.", GAME.rule("7"))
    if isinstance(move, BadMove):  # every parse-level code comes before not_your_turn in §8
        raise IllegalMove(move.code, move.detail, GAME.rule("8"))
    p = move.player
    if p != state.to_move:
        raise IllegalMove("not_your_turn", f"It is seat {state.to_move}'s turn, not seat {p}'s.", GAME.rule("6"))
    if state.draw_offer is not None:
        if isinstance(move, _ANSWERS):
            return
        raise IllegalMove("draw_offer_pending", f"Seat {state.draw_offer} offers a draw: accept_draw or decline_draw first.",
                          GAME.rule("6.8"))
    if isinstance(move, _ANSWERS):
        raise IllegalMove("no_draw_offer", "No draw offer awaits an answer.", GAME.rule("6.8"))
    me = state.players[p]
    if isinstance(move, OfferDraw):
        if state.draw_offered_this_turn:
            raise IllegalMove("draw_already_offered", f"Seat {p} has offered a draw in this turn already.", GAME.rule("6.8"))
    elif isinstance(move, MoveCard):
        _check_card_move(state, move)
    elif isinstance(move, Flip):
        if me.hand_card is not None:
            raise IllegalMove("hand_card_up", f"{me.hand_card} is already face up; play or discard it.", GAME.rule("6.3"))
        if not me.hand and not me.waste:
            raise IllegalMove("nothing_to_flip", f"Seat {p}'s hand and waste are empty; pass instead.", GAME.rule("6.3"))
    elif isinstance(move, Discard):
        if me.hand_card is None:
            raise IllegalMove("no_hand_card", "No hand card is face up to discard.", GAME.rule("6.4"))
    elif isinstance(move, Pass):
        if me.hand_card is not None or me.hand or me.waste:
            raise IllegalMove("cannot_pass", "Pass only when no card can be turned: hand and waste empty, no hand card up.", GAME.rule("6.5"))
    else:  # pragma: no cover - the parser builds only the classes above
        raise IllegalMove("unknown_move_type", f"{move!r} is not a Russian Bank move.", GAME.rule("6"))
    if state.options.priority == "enforced":
        _check_priority(state, move)


def _source_card(state: State, p: Seat, s: int) -> Card | None:
    me = state.players[p]
    if s == _S_STOCK:
        return me.stock[-1] if me.stock else None
    if s == _S_HAND:
        return me.hand_card
    if s == _S_WASTE:
        return me.waste[-1] if me.waste else None
    pile = state.tableau[s - _S_TAB]
    return pile[-1] if pile else None


def _check_card_move(state: State, move: MoveCard) -> None:
    p, c = move.player, move.card
    s = _SRC_INDEX.get(move.source)
    if s is None or (s == _S_WASTE and not state.options.waste_top_available):
        why = "one's own waste top is free only with waste_top_available" if s == _S_WASTE else "no such source"
        raise IllegalMove("invalid_source", f"from {move.source!r}: {why}.", GAME.rule("6.1"))
    t = _TGT_INDEX.get(move.target)
    if t is None:
        raise IllegalMove("invalid_target", f"to {move.target!r}: no such target.", GAME.rule("6.2"))
    top = _source_card(state, p, s)
    if top is None:
        raise IllegalMove("source_empty", f"{move.source} holds no free card.", GAME.rule("6.1"))
    if top != c:
        raise IllegalMove("card_mismatch", f"The free card at {move.source} is {top}, not {c}.", GAME.rule("6.2"))
    if s >= _S_TAB and _T_TAB <= t < _T_OSTOCK and s - _S_TAB == t - _T_TAB:
        raise IllegalMove("same_pile", f"{c} is already on {move.target}.", GAME.rule("6.2"))
    if t == _T_FOUND:
        wants, empty = _foundation_wants(state)
        if _foundation_index(c, wants, empty) is None:
            raise IllegalMove("foundation_mismatch", f"{c} fits no foundation.", GAME.rule("2"))
    elif t < _T_OSTOCK:
        pile = state.tableau[t - _T_TAB]
        if not fits_tableau(c, pile[-1] if pile else None):
            raise IllegalMove("tableau_mismatch", f"{c} is not one rank below {pile[-1]} in the other colour.", GAME.rule("2"))
    else:
        opp = state.players[1 - p]
        if t == _T_OWASTE and not _may_load_waste(state, p):
            raise IllegalMove("waste_loading_not_allowed", "Only the second player may load the opponent's waste.", GAME.rule("3"))
        pile = opp.stock if t == _T_OSTOCK else opp.waste
        if not pile:
            raise IllegalMove("target_empty", f"The opponent's {'stock' if t == _T_OSTOCK else 'waste'} is empty.", GAME.rule("9"))
        if not fits_load(c, pile[-1]):
            raise IllegalMove("load_mismatch", f"{c} is not of the suit of {pile[-1]} and one rank apart.", GAME.rule("2"))


def _check_priority(state: State, move: Move) -> None:
    """§6.6, judged by the same gate that filters ``legal_moves``."""
    p = move.player
    only, no_end = _gate(state, p, _foundation_moves(state, p, _sources(state, p)))
    if only is not None:
        if move not in only:
            names = ", ".join(f"{m.card} {m.source}->foundation" for m in only)
            raise IllegalMove("priority_violation", f"A foundation move comes first: {names}.", GAME.rule("6.6"))
    elif no_end and not isinstance(move, MoveCard):
        raise IllegalMove("priority_violation", "Fill the empty tableau pile before turning or ending the turn.", GAME.rule("6.6"))


# --- transitions ----------------------------------------------------------------------------


def _next(state: State, move: Move, events: list[Event]) -> State:
    """The checked move played (§6): a draw move (§6.8), or play, counted for §7.5."""
    if isinstance(move, OfferDraw):
        events.append({"type": "draw_offered", "player": move.player})
        return state._replace(draw_offer=move.player, to_move=1 - move.player, draw_offered_this_turn=True)
    if isinstance(move, AcceptDraw):
        events.append({"type": "draw_accepted", "player": move.player})
        return _end(state._replace(draw_offer=None), Result(None, Reason.AGREED, 0), events)
    if isinstance(move, DeclineDraw):
        offerer = 1 - move.player
        events.append({"type": "draw_declined", "player": move.player, "next": offerer})
        return state._replace(draw_offer=None, to_move=offerer)
    if isinstance(move, MoveCard):
        new = _move_card(state, move, events)
    elif isinstance(move, Flip):
        new = _flip(state, move.player, events)
    elif isinstance(move, Discard):
        new = _discard(state, move.player, events)
    else:
        new = _pass(state, move.player, events)
    return _count_stall(new, isinstance(move, MoveCard) and move.target == "foundation", events)


def _count_stall(state: State, to_foundation: bool, events: list[Event]) -> State:
    """§7.5 after a play move: progress (a card onto a foundation, or a seat with fewer cards left
    than ever before) sets ``stall`` to 0, any other play move adds 1; at ``stall_limit`` the game
    ends drawn, unless it has just ended otherwise."""
    left = (cards_left(state, 0), cards_left(state, 1))
    fewest = state.fewest_left
    progress = to_foundation or left[0] < fewest[0] or left[1] < fewest[1]
    stall = 0 if progress else state.stall + 1
    new = state._replace(stall=stall, fewest_left=(min(left[0], fewest[0]), min(left[1], fewest[1])))
    limit = state.options.stall_limit
    if limit is not None and stall >= limit and new.phase is _PHASE_PLAY:
        return _end(new, Result(None, Reason.STALLED, 0), events)
    return new


# ``_check`` refuses a move in the rules' order, ``_next`` plays it; the new state counts one more ``seq``.
step: Final = stepper(_check, _next)
apply: Final = applier(step)


def _with_seat(pair: tuple[PlayerPiles, PlayerPiles], seat: Seat, value: PlayerPiles) -> tuple[PlayerPiles, PlayerPiles]:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


def _move_card(state: State, move: MoveCard, events: list[Event]) -> State:
    p, c = move.player, move.card
    s, t = _SRC_INDEX[move.source], _TGT_INDEX[move.target]
    seats = state.players
    tableau = state.tableau
    foundations = state.foundations
    event: Event = {"type": "card_moved", "player": p, "card": c, "from": move.source, "to": move.target}
    events.append(event)
    # take the card off its source
    me = seats[p]
    if s == _S_STOCK:
        me = me._replace(stock=me.stock[:-1])
        if me.stock:
            events.append({"type": "stock_top_turned", "player": p, "card": me.stock[-1]})
    elif s == _S_HAND:
        me = me._replace(hand_card=None)
    elif s == _S_WASTE:
        me = me._replace(waste=me.waste[:-1])
    else:
        i = s - _S_TAB
        tableau = (*tableau[:i], tableau[i][:-1], *tableau[i + 1:])
    seats = _with_seat(seats, p, me)
    # put it on the target
    if t == _T_FOUND:
        wants, empty = _foundation_wants(state)
        j = _foundation_index(c, wants, empty)
        assert j is not None
        event["foundation"] = j
        foundations = (*foundations[:j], foundations[j] + (c,), *foundations[j + 1:])
    elif t < _T_OSTOCK:
        i = t - _T_TAB
        tableau = (*tableau[:i], tableau[i] + (c,), *tableau[i + 1:])
    else:
        opp = seats[1 - p]
        opp = opp._replace(stock=opp.stock + (c,)) if t == _T_OSTOCK else opp._replace(waste=opp.waste + (c,))
        seats = _with_seat(seats, 1 - p, opp)
    new = state._replace(players=seats, tableau=tableau, foundations=foundations, acted_this_turn=True)
    me = seats[p]
    if not me.stock and not me.hand and not me.waste and me.hand_card is None:  # §7.1
        loser = seats[1 - p]
        points = WIN_BASE + len(loser.hand) + len(loser.waste) + 2 * len(loser.stock)
        return _end(new, Result(p, Reason.OUT, points), events)
    return new


def _flip(state: State, p: Seat, events: list[Event]) -> State:
    me = state.players[p]
    hand, waste = me.hand, me.waste
    if not hand:  # §6.3 turn the waste over, without shuffling
        hand, waste = tuple(reversed(waste)), ()
        events.append({"type": "waste_turned", "player": p, "cards": len(hand)})
    card = hand[-1]
    events.append({"type": "card_flipped", "player": p, "card": card})
    me = PlayerPiles(me.stock, hand[:-1], card, waste)
    return state._replace(players=_with_seat(state.players, p, me), acted_this_turn=True)


def _end_turn(state: State, p: Seat, idle_turns: int, events: list[Event]) -> State:
    events.append({"type": "turn_ended", "player": p, "next": 1 - p, "turn_number": state.turn_number + 1})
    return state._replace(
        to_move=1 - p, turn_number=state.turn_number + 1, idle_turns=idle_turns, acted_this_turn=False,
        draw_offered_this_turn=False,
    )


def _discard(state: State, p: Seat, events: list[Event]) -> State:
    me = state.players[p]
    card = me.hand_card
    assert card is not None
    events.append({"type": "card_discarded", "player": p, "card": card})
    me = me._replace(hand_card=None, waste=me.waste + (card,))
    return _end_turn(state._replace(players=_with_seat(state.players, p, me)), p, 0, events)


def _pass(state: State, p: Seat, events: list[Event]) -> State:
    idle = 0 if state.acted_this_turn else state.idle_turns + 1
    events.append({"type": "passed", "player": p, "idle": not state.acted_this_turn})
    new = _end_turn(state, p, idle, events)
    if idle >= IDLE_LIMIT:  # §7.2
        counts = [stalemate_count(new, s) for s in (0, 1)]
        if counts[0] == counts[1]:
            result = Result(None, Reason.STALEMATE, 0)
        else:
            result = Result(0 if counts[0] < counts[1] else 1, Reason.STALEMATE, abs(counts[0] - counts[1]))
        return _end(new, result, events)
    return new


def _end(state: State, result: Result, events: list[Event]) -> State:
    events.append(
        {
            "type": "game_over",
            "winner": [] if result.winner is None else [result.winner],
            "reason": result.reason,
            "points": result.points,
        }
    )
    return state._replace(phase=_PHASE_GAME_OVER, to_move=None, result=result)


# --- scores and the outside view ------------------------------------------------------------


def stalemate_count(state: State, seat: Seat) -> int:
    """§7.2 a seat's count: hand + waste + 2 × stock (a face-up hand card counts as hand)."""
    s = state.players[seat]
    return len(s.hand) + (s.hand_card is not None) + len(s.waste) + 2 * len(s.stock)


def cards_left_of(s: PlayerPiles) -> int:
    """Cards a seat with piles ``s`` still has to get rid of: stock, hand, hand card and waste."""
    return len(s.stock) + len(s.hand) + (s.hand_card is not None) + len(s.waste)


def cards_left(state: State, seat: Seat) -> int:
    """Cards ``seat`` still has to get rid of: stock, hand, hand card and waste."""
    return cards_left_of(state.players[seat])


def outcome(state: State) -> Outcome | None:
    if state.phase is not _PHASE_GAME_OVER or state.result is None:
        return None
    r = state.result
    return Outcome(frozenset() if r.winner is None else frozenset((r.winner,)), r.reason.value)


def derived(state: State) -> dict[str, object]:
    """No derived values: every field of §5.1 is stored."""
    return {}


def scores(state: State, seat: Seat | None = None) -> dict[str, object]:
    """``totals``: ``[0, 0]`` during play, the winner's points at the end (docs/rules/conventions.md);
    ``cards_left``: each seat's stock + hand + waste."""
    totals = [0, 0]
    r = state.result
    if r is not None and r.winner is not None:
        totals[r.winner] = r.points
    return {"totals": totals, "cards_left": [cards_left(state, 0), cards_left(state, 1)]}


def view(state: State, seat: Seat | None) -> RussianBankEngineView:
    """§5.2 what ``seat`` may see: everything but the face-down stock and hand cards."""
    out: dict[str, object] = {
        **view_head(GAME, state, seat),
        "options": state.options,
        "phase": state.phase,
        "first_player": state.first_player,
        "to_move": state.to_move,
        "turn_number": state.turn_number,
        "idle_turns": state.idle_turns,
        "acted_this_turn": state.acted_this_turn,
        "draw_offer": state.draw_offer,
        "draw_offered_this_turn": state.draw_offered_this_turn,
        "stall": state.stall,
        "fewest_left": state.fewest_left,
        "players": [
            {
                "stock_count": len(s.stock),
                "stock_top": s.stock[-1] if s.stock else None,
                "hand_count": len(s.hand),
                "hand_card": s.hand_card,
                "waste": s.waste,
            }
            for s in state.players
        ],
        "tableau": state.tableau,
        "foundations": state.foundations,
        "result": state.result,
    }
    if seat is not None and seat == state.to_move:
        out["legal_moves"] = legal_moves(state)
    return cast("RussianBankEngineView", out)


def visible_cards(state: State, seat: Seat | None) -> frozenset[Card]:
    """Every face-up card; the same for both seats and the public (§5.2)."""
    seen: set[Card] = set()
    for s in state.players:
        if s.stock:
            seen.add(s.stock[-1])
        if s.hand_card is not None:
            seen.add(s.hand_card)
        seen.update(s.waste)
    for pile in state.tableau:
        seen.update(pile)
    for pile in state.foundations:
        seen.update(pile)
    return frozenset(seen)


# --- consistency of a client-supplied state (§5.1: structural; positions may be partial) ------


def check_state(state: State) -> None:
    """Raise InvalidState unless the state is structurally sound (§5.1).

    Positions may hold fewer than 104 cards (the spec's examples do); no card may appear twice,
    and phase, turn, hand card and result must fit together.
    """
    bad = Problems()
    s = state
    if len(s.tableau) != PILES:
        bad("tableau", "must hold 8 piles")
    if len(s.foundations) != PILES:
        bad("foundations", "must hold 8 piles")
    if len(s.players) != 2:
        bad("players", "must hold 2 seats")
    if len(s.fewest_left) != 2:
        bad("fewest_left", "must hold 2 counts")
    bad.check()
    seen: dict[Card, str] = {}
    places: list[tuple[str, Sequence[Card]]] = []
    for p, piles in enumerate(s.players):
        places += [(f"players.{p}.stock", piles.stock), (f"players.{p}.hand", piles.hand), (f"players.{p}.waste", piles.waste)]
        if piles.hand_card is not None:
            places.append((f"players.{p}.hand_card", (piles.hand_card,)))
    places += [(f"tableau.{i}", pile) for i, pile in enumerate(s.tableau)]
    places += [(f"foundations.{j}", pile) for j, pile in enumerate(s.foundations)]
    for path, cards in places:
        for c in cards:
            if c in seen:
                bad(path, f"{c} is also in {seen[c]}")
            else:
                seen[c] = path
    if s.first_player not in (0, 1):
        bad("first_player", "must be 0 or 1")
    if s.turn_number < 1:
        bad("turn_number", "must be at least 1")
    if s.seq < 0:
        bad("seq", "must not be negative")
    if s.stall < 0:
        bad("stall", "must not be negative")
    for p in (0, 1):
        if not 0 <= s.fewest_left[p] <= cards_left(s, p):
            bad(f"fewest_left.{p}", "must be 0 to the seat's cards left now")
    limit = s.options.stall_limit
    if s.phase is _PHASE_PLAY:
        if s.to_move not in (0, 1):
            bad("to_move", "must be 0 or 1 during play")
        if s.result is not None:
            bad("result", "must be null during play")
        if not 0 <= s.idle_turns < IDLE_LIMIT:
            bad("idle_turns", "must be 0 or 1 during play")
        if limit is not None and s.stall >= limit:
            bad("stall", "play ends once the stall limit is reached")
        if s.draw_offer is not None and (s.draw_offer == s.to_move or s.draw_offer not in (0, 1)):
            bad("draw_offer", "the seat to move answers the other seat's offer")
        elif s.draw_offer is not None and not s.draw_offered_this_turn:
            bad("draw_offered_this_turn", "a pending offer was made in this turn")
        turn = s.draw_offer if s.draw_offer is not None else s.to_move  # §6.8: whose turn it is
        if turn in (0, 1):
            if s.players[1 - turn].hand_card is not None:
                bad(f"players.{1 - turn}.hand_card", "only the player whose turn it is can have a face-up hand card")
            if s.players[turn].hand_card is not None and not s.acted_this_turn:
                bad("acted_this_turn", "a face-up hand card was turned this turn")
    else:
        if s.draw_offer is not None:
            bad("draw_offer", "no offer is pending once the game is over")
        if s.result is not None and s.result.reason is Reason.STALLED and (limit is None or s.stall < limit):
            bad("stall", "a stalled game reached its stall_limit")
        if s.to_move is not None:
            bad("to_move", "must be null in game_over")
        if s.result is None:
            bad("result", "a finished game has a result")
        elif s.result.winner is None and s.result.points != 0:
            bad("result.points", "a draw scores 0")
        elif s.result.winner is not None and s.result.reason in (Reason.AGREED, Reason.STALLED):
            bad("result.winner", f"a game ended {s.result.reason.value} is a draw (null)")
        elif s.result.winner is not None and s.result.winner not in (0, 1):
            bad("result.winner", "must be 0, 1 or null")
        if s.idle_turns < 0 or s.idle_turns > IDLE_LIMIT:
            bad("idle_turns", "must be 0 to 2")
        stopped = s.result is not None and s.result.reason in (Reason.AGREED, Reason.STALLED)  # mid-turn (§7.4, §7.5)
        if sum(p.hand_card is not None for p in s.players) > (1 if stopped else 0):
            bad("players", "no hand card is face up once the game is over (one, of the turn stopped by a draw)")
    bad.check()
