"""The vocabulary every engine shares: seats, outcomes, refusals, and the engine interface.

An engine is a module (PEP 544 "modules as implementations") exporting the names of ``Engine``.
Engines are pure: no I/O, clock, randomness or framework imports; decks and timestamps arrive as
data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol, TypeGuard, TypeVar

from ..cards import Card

__all__ = [
    "BadMove",
    "BadSetup",
    "Engine",
    "Event",
    "GameInfo",
    "IllegalMove",
    "InvalidState",
    "Outcome",
    "RulesError",
    "SealedEngine",
    "Seat",
    "ViewedEngine",
    "event_view",
    "is_listed",
    "quick_replace",
    "uses_secret",
]

Seat = int

T = TypeVar("T", bound=tuple)  # type: ignore[type-arg]


def quick_replace(cls: type[T]) -> type[T]:
    """Give a ``NamedTuple`` class a faster ``_replace``: the same result and the same ValueError
    for an unknown field, without ``_make`` mapping ``dict.pop`` over every field (a state of twenty
    fields is rebuilt about twice as fast, and engines rebuild one at every move)."""
    index = {name: i for i, name in enumerate(cls._fields)}  # type: ignore[attr-defined]
    new = tuple.__new__

    def _replace(self: T, /, **changes: Any) -> T:
        values = list(self)
        for name, value in changes.items():
            i = index.get(name)
            if i is None:
                raise ValueError(f"Got unexpected field names: {[n for n in changes if n not in index]!r}")
            values[i] = value
        return new(type(self), values)

    _replace.__doc__ = "Return a new instance with the named fields replaced by new values."
    setattr(cls, "_replace", _replace)  # noqa: B010 (mypy: NamedTuple methods are read-only)
    return cls


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended: the winning seats (empty for a draw) and why."""

    winners: frozenset[Seat]
    reason: str


class RulesError(Exception):
    """A refusal with a stable snake_case ``code`` (spec §8) and a one-sentence ``detail``."""

    def __init__(self, code: str, detail: str = "", rule: str | None = None) -> None:
        super().__init__(detail or code)
        self.code = code
        self.detail = detail or code.replace("_", " ")
        self.rule = rule


class IllegalMove(RulesError):
    """The rules refuse this move in this state; the state is unchanged."""


class BadSetup(RulesError):
    """A game cannot be created: bad deck, bad options or player count."""


class InvalidState(RulesError):
    """A submitted state is malformed or inconsistent; ``errors`` maps field paths to messages."""

    def __init__(self, errors: Mapping[str, Sequence[str]], detail: str = "") -> None:
        first = next(iter(errors.items()), ("state", ["is inconsistent"]))
        super().__init__("invalid_state", detail or f"{first[0]}: {first[1][0]}")
        self.errors = {k: list(v) for k, v in errors.items()}


@dataclass(frozen=True, slots=True)
class BadMove:
    """A move the edge could not parse, kept as data so the engine reports it in its spec's order.

    ``code`` is the first parse problem in the game's §8 order (``unknown_move_type``,
    ``invalid_move``, ``invalid_player``, ``invalid_card`` ...); ``type`` and ``player`` hold what
    could be read (``None`` if not), so that state checks which come earlier in §8 (``game_over``,
    ``wrong_phase``, ``not_your_turn``) still apply first.
    """

    code: str
    detail: str
    type: str | None = None
    player: Seat | None = None


@dataclass(frozen=True, slots=True)
class GameInfo:
    """What a game is, declared once per engine as its ``GAME`` (like OpenSpiel's ``GameType``).

    The service reads a game's identity and optional features here, never by probing the module.
    """

    game_id: str
    """The id in URLs and records, and the name of the engine module."""
    name: str
    rules_version: str
    """``<game_id>/<n>``: which edition of ``docs/rules/<game_id>.md`` the engine referees."""
    player_counts: tuple[int, ...]
    default_players: int
    move_classes: Mapping[str, type]
    """Wire ``type`` → move dataclass, in the order the spec lists the moves."""
    parse_order: tuple[str, ...] = ("invalid_move", "invalid_player", "unknown_move_type", "invalid_card", "invalid_deck")
    """The codes of a move the edge cannot parse, in the order the game's §8 ranks them: the edge
    reports the first that applies (``schemas.moves.Moves.parse``)."""
    early_parse_codes: frozenset[str] = frozenset()
    """Parse problems the game's §8 reports before any state check but ``game_over`` (see
    ``kit.refuse_early``); each is one of ``parse_order``."""
    codes: tuple[str, ...] = ()
    """The game's own problem codes (its §8 table beyond docs/rules/conventions.md's common ones),
    every one 422, in the table's order: the contract's ``<Game>ProblemCode``."""
    uses_secret: bool = False
    """``new_game`` takes ``secret=``: a sealed match's secret keys the game's own shuffles."""
    draws_seed: bool = False
    """The game needs a seed even when the client sends none; the service draws one at creation."""
    move_types: tuple[str, ...] = field(init=False)
    """The keys of ``move_classes``."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "move_types", tuple(self.move_classes))
        if not self.early_parse_codes <= set(self.parse_order):
            raise ValueError(f"{self.game_id}: early_parse_codes outside parse_order")
        if len(set(self.codes)) != len(self.codes):
            raise ValueError(f"{self.game_id}: a problem code is listed twice")

    def constants(self) -> tuple[str, str, str, tuple[int, ...], int, tuple[str, ...], Mapping[str, type]]:
        """``GAME_ID, NAME, RULES_VERSION, PLAYER_COUNTS, DEFAULT_PLAYERS, MOVE_TYPES, MOVE_CLASSES``:
        the fields under the module names the edge and the engine's own rules read."""
        return (self.game_id, self.name, self.rules_version, self.player_counts, self.default_players,
                self.move_types, self.move_classes)

    def rule(self, section: str) -> str:
        """The citation of a section of the game's rules, e.g. ``"schnapsen §6.6"``."""
        return f"{self.game_id} §{section}"


Event = dict[str, Any]
"""What a move caused, e.g. ``{"type": "trick_won", "player": 0, "cards": (...), "points": 21}``.

An event whose cards only one seat may see carries ``"private_to": seat`` and lists those fields
under ``"private"``; ``event_view`` blanks them (``None``) for every other viewer.
"""


def event_view(event: Event, viewer: Seat | None, full: bool) -> Event:
    """``event`` as ``viewer`` may see it (``full``: the unrestricted open-mode view)."""
    owner = event.get("private_to")
    if owner is None:
        return event
    out = {k: v for k, v in event.items() if k not in ("private_to", "private")}
    if not full and viewer != owner:
        for key in event.get("private", ()):
            out[key] = None
    return out


def is_listed(move: Any, legal: Sequence[Any]) -> bool:
    """Whether ``move`` equals a listed move or fills in a listed template (docs/rules/conventions.md)."""
    for entry in legal:
        if entry == move:
            return True
        fills = getattr(entry, "filled_by", None)
        if fills is not None and fills(move):
            return True
    return False


S = TypeVar("S")
"""A game's state type (its ``State``)."""
M = TypeVar("M")
"""A game's move type (the union of its move classes, ``Move``)."""
O = TypeVar("O")
"""A game's options type (its ``Options``)."""


class Engine(Protocol[S, M, O]):
    """The uniform interface of every ``service/engines/<game_id>.py``, over the game's own state,
    move and options types: ``Engine[schnapsen.State, schnapsen.Move, schnapsen.Options]`` is the
    Schnapsen module, and mypy checks each engine module against it with its own types.

    ``GAME`` declares the game; ``GAME_ID`` … ``MOVE_TYPES`` are its fields under the module names
    the edge has always read.
    """

    @property
    def GAME(self) -> GameInfo: ...  # read-only members (module constants) are properties here
    GAME_ID: str
    NAME: str
    RULES_VERSION: str
    PLAYER_COUNTS: tuple[int, ...]
    DEFAULT_PLAYERS: int
    MOVE_TYPES: tuple[str, ...]

    @property
    def OPTION_INFO(self) -> Mapping[str, Mapping[str, object]]: ...
    """The §3 option table: per option its JSON type, bounds or choices and description."""

    @property
    def Options(self) -> type[O]: ...

    @property
    def State(self) -> type[S]: ...

    @property
    def Phase(self) -> type[Enum]: ...
    """The values of a state's ``phase``."""

    def pack(self, options: O, players: int) -> tuple[Card, ...]: ...
    def new_game(self, options: O, players: int, deck: Sequence[Card], seed: int | None = None) -> S: ...
    def initial_events(self, state: S) -> list[Event]: ...
    def to_move(self, state: S) -> frozenset[Seat]: ...
    def legal_moves(self, state: S) -> list[M]: ...
    def step(self, state: S, move: M | BadMove) -> tuple[S, list[Event]]: ...
    def apply(self, state: S, move: M | BadMove) -> S: ...
    def view(self, state: S, seat: Seat | None) -> Mapping[str, object]: ...
    def scores(self, state: S, seat: Seat | None = None) -> Mapping[str, object]: ...
    """``{"totals": [...], ...}``; ``seat`` is who asks (``None``: the public), as every module has it."""
    def outcome(self, state: S) -> Outcome | None: ...
    def status(self, state: S) -> str: ...
    def check_state(self, state: S) -> None: ...
    def players(self, state: S) -> int: ...
    def visible_cards(self, state: S, seat: Seat | None) -> frozenset[Card]: ...
    def derived(self, state: S) -> Mapping[str, object]: ...


V_co = TypeVar("V_co", bound=Mapping[str, object], covariant=True)
"""A game's engine view type (its ``typed.<Game>EngineView``)."""


class ViewedEngine(Engine[S, M, O], Protocol[S, M, O, V_co]):
    """An engine whose ``view`` answers its game's typed record (``typed.<Game>EngineView``, written
    from the declaration of its wire views): ``find("schnapsen")`` is
    ``ViewedEngine[schnapsen.State, schnapsen.Move, schnapsen.Options, SchnapsenEngineView]``, so
    ``view(state, 0)["hand"]`` is a ``Sequence[Card]``."""

    def view(self, state: S, seat: Seat | None) -> V_co: ...


class SealedEngine(Engine[S, M, O], Protocol):
    """An engine whose ``GAME.uses_secret``: ``new_game`` also takes a sealed match's secret."""

    def new_game(
        self, options: O, players: int, deck: Sequence[Card], seed: int | None = None, secret: bytes | None = None
    ) -> S: ...


AnyEngine = Engine[Any, Any, Any]
"""An engine of some game, when which one is known only at run time (the registry, a URL's
``game_id``): its states, moves and options are that game's, so each call takes what the same
engine gave. For static types, import the game's module (``engines.schnapsen``) or call
``engines.find`` with the id as a literal."""


def uses_secret(engine: AnyEngine) -> TypeGuard[SealedEngine[Any, Any, Any]]:
    """Whether ``engine.new_game`` takes ``secret=`` (``GAME.uses_secret``)."""
    return engine.GAME.uses_secret
