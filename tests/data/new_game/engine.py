"""War, the throwaway game tests/test_new_game.py adds by docs/adding-a-game.md in a copy of the
repository: two seats, the 52-card pack dealt alternately, each seat flips its top card in turn and
the higher rank of a pair takes both (a tie: each takes back its own); when the stocks are empty the
seat holding more cards wins. No options of its own, no problem codes beyond the common ones.
Never installed: the test copies it to ``service/engines/war.py``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar, Final, NamedTuple

from ..cards import RANKS, Card
from ..cards.packs import full_52
from .base import BadMove, Event, GameInfo, IllegalMove, Outcome, Seat
from .kit import Problems, applier, check_dealt, check_players, check_seats, option_info, refuse_early, stepper, view_head
from .kit import status as status  # noqa: PLC0414 (re-exported: the Engine protocol names it)


@dataclass(frozen=True, slots=True)
class Flip:
    """``{"type": "flip", "player": p}``: turn the top card of one's stock."""

    TYPE: ClassVar[str] = "flip"
    player: Seat


Move = Flip

GAME: Final = GameInfo(
    game_id="war", name="War", rules_version="war/1", player_counts=(2,), default_players=2,
    move_classes={cls.TYPE: cls for cls in (Flip,)}, parse_order=("invalid_move", "unknown_move_type", "invalid_player"),
)
GAME_ID, NAME, RULES_VERSION, PLAYER_COUNTS, DEFAULT_PLAYERS, MOVE_TYPES, MOVE_CLASSES = GAME.constants()
PACK: Final = full_52()


@dataclass(frozen=True, slots=True)
class Options:
    """War has no options (§3); an option would be a field declared with ``kit.option``."""


OPTION_INFO: Final[Mapping[str, Mapping[str, object]]] = option_info(Options)


class Phase(StrEnum):
    PLAY = "play"
    GAME_OVER = "game_over"


class State(NamedTuple):
    options: Options
    stocks: tuple[tuple[Card, ...], ...]
    won: tuple[int, ...]
    flipped: Card | None
    to_move: Seat
    phase: Phase
    seq: int = 0


def pack(options: Options, players: int) -> tuple[Card, ...]:
    return PACK


def new_game(options: Options, players: int, deck: Sequence[Card], seed: int | None = None) -> State:
    check_players(GAME, players)
    check_dealt(GAME, deck, PACK, "4")
    return State(options, (tuple(deck[0::2]), tuple(deck[1::2])), (0, 0), None, 0, Phase.PLAY)


def initial_events(state: State) -> list[Event]:
    return [{"type": "deal_started"}]


def to_move(state: State) -> frozenset[Seat]:
    return frozenset() if state.phase == Phase.GAME_OVER else frozenset({state.to_move})


def legal_moves(state: State) -> list[Move]:
    return [Flip(seat) for seat in sorted(to_move(state))]


def _check(state: State, move: Move | BadMove) -> None:
    if state.phase == Phase.GAME_OVER:
        raise IllegalMove("game_over", "The game is over.", GAME.rule("6"))
    refuse_early(GAME, move)
    if move.player != state.to_move:
        raise IllegalMove("not_your_turn", f"It is seat {state.to_move}'s turn.", GAME.rule("6"))
    if type(move) is BadMove:
        raise IllegalMove(move.code, move.detail, GAME.rule("8"))


def _next(state: State, move: Move, events: list[Event]) -> State:
    seat = move.player
    card, stocks = state.stocks[seat][0], list(state.stocks)
    stocks[seat] = stocks[seat][1:]
    events.append({"type": "card_flipped", "player": seat, "card": card})
    if state.flipped is None:
        return state._replace(stocks=tuple(stocks), flipped=card, to_move=1 - seat)
    first, second = RANKS.index(state.flipped.rank), RANKS.index(card.rank)
    won = list(state.won)
    if first == second:
        won[0] += 1
        won[1] += 1
    else:
        won[1 - seat if first > second else seat] += 2
    events.append({"type": "pair_taken", "winner": None if first == second else (1 - seat if first > second else seat)})
    over = not stocks[0]
    if over:
        events.append({"type": "game_over", "winner": sorted(_winners(tuple(won)))})
    return state._replace(stocks=tuple(stocks), won=tuple(won), flipped=None, to_move=1 - seat,
                          phase=Phase.GAME_OVER if over else Phase.PLAY)


step: Final = stepper(_check, _next)
apply: Final = applier(step)


def _winners(won: tuple[int, ...]) -> frozenset[Seat]:
    return frozenset() if won[0] == won[1] else frozenset({0 if won[0] > won[1] else 1})


def view(state: State, seat: Seat | None) -> dict[str, object]:
    return {**view_head(GAME, state, seat), "stock_counts": [len(s) for s in state.stocks], "won": list(state.won),
            "flipped": state.flipped, "to_move": state.to_move, "phase": state.phase}


def scores(state: State, seat: Seat | None = None) -> dict[str, object]:
    return {"totals": list(state.won)}


def outcome(state: State) -> Outcome | None:
    return Outcome(_winners(state.won), "stocks_empty") if state.phase == Phase.GAME_OVER else None


def check_state(state: State) -> None:
    check_seats(GAME, 2)
    bad = Problems()
    bad.seat("to_move", state.to_move, 2)
    bad.check()


def players(state: State) -> int:
    return 2


def visible_cards(state: State, seat: Seat | None) -> frozenset[Card]:
    return frozenset() if state.flipped is None else frozenset({state.flipped})


def derived(state: State) -> Mapping[str, object]:
    return {}
