"""The engine kit: the pieces every engine's rules are written with, so each is written once.

- ``GameInfo`` (in ``base``): the one declaration of a game, ``GAME``; ``GAME.rule("6.6")`` cites
  a section of its rules.
- ``status``: the envelope status of a state from its phase; ``players``: its seat count.
- ``view_head``: the fields every view starts with (game, seat, seq, rules version).
- ``check_players``, ``check_dealer``, ``check_dealt``: ``new_game``'s refusals of a seat count
  (§2), a dealer seat (§3) and a deck (the section the game names); ``check_seats``: the seat
  count of a submitted state.
- ``refuse_early``: the first step of the §8 order after ``game_over``, the parse problems the
  edge found that come before any state check.
- ``Problems``: the collector ``check_state`` writes field-path problems into.
- ``stepper``/``applier``: ``step`` and ``apply`` from a game's ``_check`` and ``_next``.
- ``option``/``option_info``: a §3 option declared once, its default and its catalogue entry
  (type, bounds or enum, description) on the ``Options`` field; ``OPTION_INFO`` read from them.

Follow obligations and ``beats`` live in ``cards/tricks.py``; the claim games' checks (Slapjack,
Snap) in ``engines/claims.py``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, Self, TypeVar

from ..cards import Card
from ..cards.packs import DeckProblem, check_deck
from .base import BadMove, BadSetup, Event, GameInfo, IllegalMove, InvalidState

__all__ = [
    "Problems",
    "applier",
    "check_dealer",
    "check_dealt",
    "check_players",
    "check_seats",
    "option",
    "option_info",
    "players",
    "refuse_early",
    "seat_counts",
    "status",
    "stepper",
    "view_head",
]

_STATUS = {"deal_over": "deal_over", "game_over": "finished"}


class _Phased(Protocol):
    @property
    def phase(self) -> str: ...


class _Sequenced(Protocol):
    @property
    def seq(self) -> int: ...

    def _replace(self, *, seq: int) -> Self: ...


S = TypeVar("S", bound=_Sequenced)
M = TypeVar("M")
T = TypeVar("T")


class _Seated(Protocol):
    @property
    def players(self) -> int: ...


def players(state: _Seated) -> int:
    """Number of seats (a game for several player counts keeps it in ``state.players``)."""
    return state.players


def status(state: _Phased) -> str:
    """Envelope status: ``finished`` in phase ``game_over``, ``deal_over`` in ``deal_over``, else
    ``in_progress``."""
    return _STATUS.get(state.phase, "in_progress")


def view_head(game: GameInfo, state: _Sequenced, seat: int | None) -> dict[str, object]:
    """The fields every view starts with, in this order: ``game``, ``seat``, ``seq``, ``rules_version``."""
    return {"game": game.game_id, "seat": seat, "seq": state.seq, "rules_version": game.rules_version}


def option(default: T, /, **entry: object) -> T:
    """A §3 option, declared once on its ``Options`` field: ``dealer: Seat = option(0, type="integer",
    minimum=0, maximum=1, description="...")``. ``entry`` is the option's catalogue entry as
    ``GET /v1/games`` lists it, in this order (``type``; ``minimum``/``maximum``, ``enum``, ``nullable``
    ...; ``description``), ``default`` aside: the field's metadata, read by ``option_info``."""
    return dataclasses.field(default=default, metadata=entry)  # a Field, typed as its default (as typeshed has it)


_KINDS: dict[str, tuple[type, ...]] = {"boolean": (bool,), "integer": (int,), "string": (str,), "array": (tuple,)}


def option_info(options: type) -> Mapping[str, Mapping[str, object]]:
    """``OPTION_INFO``, the catalogue's option table, from the ``Options`` dataclass's fields (each an
    ``option``), in field order. Raises ValueError, naming the option, for a field that is not an
    ``option`` (no ``type`` or ``description``) or whose default is not of its type, enum or bounds."""
    table: dict[str, Mapping[str, object]] = {}
    for f in dataclasses.fields(options):
        entry: dict[str, Any] = dict(f.metadata)
        kind, default = entry.get("type"), f.default
        if kind not in _KINDS or not isinstance(entry.get("description"), str):
            raise ValueError(f"{options.__qualname__}.{f.name}: declare it with kit.option(default, type=..., description=...)")
        fits = (default is None and bool(entry.get("nullable"))) or (
            isinstance(default, _KINDS[kind]) and (kind != "integer" or not isinstance(default, bool))
            and ("enum" not in entry or default in entry["enum"])
            and ("minimum" not in entry or default >= entry["minimum"])
            and ("maximum" not in entry or default <= entry["maximum"]))
        if not fits:
            raise ValueError(f"{options.__qualname__}.{f.name}: the default {default!r} is not a value its entry allows")
        table[f.name] = entry
    return table


def seat_counts(game: GameInfo) -> str:
    """The seat counts a game is for, in words: ``exactly 2``, ``2, 3 or 4``, ``2 to 8``."""
    counts = game.player_counts
    if len(counts) == 1:
        return f"exactly {counts[0]}"
    if len(counts) <= 3:
        return ", ".join(map(str, counts[:-1])) + f" or {counts[-1]}"
    return f"{counts[0]} to {counts[-1]}"


def check_players(game: GameInfo, players: int, called: str | None = None) -> None:
    """§2: refuse (``invalid_players``) a seat count the game is not for; the message names the
    game ``called`` (default: its ``name``)."""
    if players not in game.player_counts:
        raise BadSetup(
            "invalid_players", f"{called or game.name} is for {seat_counts(game)} players, not {players}.", game.rule("2")
        )


def check_dealer(game: GameInfo, dealer: int, players: int) -> None:
    """§3: refuse (``invalid_option``) a ``dealer`` option that is not a seat."""
    if not 0 <= dealer < players:
        raise BadSetup("invalid_option", f"option dealer: must be a seat 0..{players - 1}.", game.rule("3"))


def check_dealt(
    game: GameInfo, deck: Sequence[Card], pack: Sequence[Card], section: str,
    error: type[BadSetup | IllegalMove] = BadSetup,
) -> None:
    """Refuse (``invalid_deck``, as ``error``, citing ``section``) a deck that is not exactly ``pack``."""
    try:
        check_deck(deck, pack)
    except DeckProblem as exc:
        raise error("invalid_deck", str(exc), game.rule(section)) from None


def check_seats(game: GameInfo, players: int) -> None:
    """``check_state``'s first test: a seat count the game is for (InvalidState at once, since every
    later test reads seats)."""
    if players not in game.player_counts:
        raise InvalidState({"players": [f"must be {seat_counts(game)}"]})


def refuse_early(game: GameInfo, move: object, section: str = "8") -> None:
    """Raise the edge's parse problem ``move`` if it is one of ``game.early_parse_codes`` (cited
    as ``section``); return otherwise."""
    if type(move) is BadMove and move.code in game.early_parse_codes:
        raise IllegalMove(move.code, move.detail, game.rule(section))


class Problems:
    """What ``check_state`` found wrong, by field path: call it with ``(path, message)``; ``check()``
    raises InvalidState with every problem so far, if there is one."""

    __slots__ = ("errors",)

    def __init__(self) -> None:
        self.errors: dict[str, list[str]] = {}

    def __call__(self, path: str, message: str) -> None:
        self.errors.setdefault(path, []).append(message)

    def __bool__(self) -> bool:
        return bool(self.errors)

    def __contains__(self, path: str) -> bool:
        return path in self.errors

    def seat(self, path: str, seat: int | None, players: int) -> None:
        """A seat field must be 0..players-1 (or ``None`` where the field may be null)."""
        if seat is not None and not 0 <= seat < players:
            self(path, f"must be a seat 0..{players - 1}")

    def cards(self, path: str, cards: Sequence[Card], pack: Sequence[Card], what: str) -> bool:
        """The cards of a state must be exactly ``pack``: else ``what`` (``"stocks and centre must
        hold the 52-card pack"``) and which cards are missing or extra, under ``path``. Returns
        whether they are."""
        try:
            check_deck(cards, pack)
        except DeckProblem as exc:
            self(path, f"{what}: " + str(exc).split(": ", 1)[-1])
            return False
        return True

    def check(self) -> None:
        """Raise InvalidState if any problem was found."""
        if self.errors:
            raise InvalidState(self.errors)


def stepper(
    check: Callable[[S, M | BadMove], None], advance: Callable[[S, M, list[Event]], S]
) -> Callable[[S, M | BadMove], tuple[S, list[Event]]]:
    """A game's ``step``: ``check`` refuses the move (IllegalMove, in §8 order) or lets it pass;
    ``advance`` plays it, appending the events it causes; the new state counts one more ``seq``."""

    def step(state: S, move: M | BadMove) -> tuple[S, list[Event]]:
        """The state after ``move`` and the events it caused, in order. Raises IllegalMove (state
        unchanged) unless the move is legal."""
        check(state, move)
        assert not isinstance(move, BadMove)
        events: list[Event] = []
        return advance(state, move, events)._replace(seq=state.seq + 1), events

    return step


def applier(step: Callable[[S, M | BadMove], tuple[S, list[Event]]]) -> Callable[[S, M | BadMove], S]:
    """A game's ``apply``: ``step`` without the events."""

    def apply(state: S, move: M | BadMove) -> S:
        """The state after ``move``. Raises IllegalMove (state unchanged) unless the move is legal."""
        return step(state, move)[0]

    return apply
