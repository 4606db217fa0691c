"""The edge's per-game codecs, found by game id: wire form in, engine values out, and back.

Each ``service/schemas/<game_id>.py`` exports ``OPTIONS`` and ``STATE`` (marshmallow schemas built
from the edge's field types, ``fields.py``, and ``common.state_schema``), ``MOVES`` (its moves'
declaration, ``moves.Moves``) and ``dump_state``; ``GameCodec`` gives them one uniform face.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType, ModuleType
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol, TypeVar, overload

from ..engines import ENGINES
from ..engines.base import AnyEngine, BadMove
from . import bragging, california_jack, russian_bank, schnapsen, seven_up, slapjack, snap, stukolka, yukon
from .common import load_options, load_state_with, to_wire
from .moves import Moves, Problem
from .packed import Packer

if TYPE_CHECKING:
    from ..engines import bragging as _bragging
    from ..engines import california_jack as _california_jack
    from ..engines import russian_bank as _russian_bank
    from ..engines import schnapsen as _schnapsen
    from ..engines import seven_up as _seven_up
    from ..engines import slapjack as _slapjack
    from ..engines import snap as _snap
    from ..engines import stukolka as _stukolka
    from ..engines import yukon as _yukon
    from ..typed import (
        BraggingState,
        CaliforniaJackState,
        RussianBankState,
        SchnapsenState,
        SevenUpState,
        SlapjackState,
        SnapState,
        StukolkaState,
        YukonState,
    )

__all__ = ["SCHEMAS", "GameCodec", "Wire", "codec_of"]


@dataclass(frozen=True)
class GameCodec:
    """One game's wire codec."""

    engine: AnyEngine
    module: ModuleType
    packer: Packer = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "packer", Packer(self.engine.State))

    def pack(self, state: Any) -> Any:
        """The compact form of a state for a sealed token (trusted: no re-validation on the way back)."""
        return self.packer.pack(state)

    def unpack(self, data: Any) -> Any:
        """The state of a token this service sealed; ValueError if it is not that form."""
        try:
            return self.packer.unpack(data)
        except (TypeError, ValueError, KeyError, IndexError) as exc:
            raise ValueError(f"not a packed {self.engine.GAME_ID} state") from exc

    def load_options(self, data: Any) -> Any:
        """Options from wire form; raises BadSetup("invalid_option")."""
        return load_options(self.module.OPTIONS, self.engine.Options, data)

    def load_state(self, data: Any, check: bool = True) -> Any:
        """State from wire form; raises InvalidState. ``check``: also the engine's consistency check."""
        state = load_state_with(self.module.STATE, data)
        if check:
            self.engine.check_state(state)
        return state

    def dump_state(self, state: Any, derived: bool = True) -> dict[str, Any]:
        """The full state in wire form."""
        return self.module.dump_state(state, derived)  # type: ignore[no-any-return]

    @property
    def moves(self) -> Moves:
        """The game's move declaration."""
        return self.module.MOVES  # type: ignore[no-any-return]

    def load_move(self, data: Any, players: int) -> Any:
        """A move value or a BadMove; never raises."""
        return self.moves.parse(data, players)

    def move_problem(self, value: Any) -> Problem:
        """None when ``value`` is a move of the game as the contract writes it (``<Game>Move``);
        else (JSON Pointer within it, message): replay's malformed-log check."""
        return self.moves.problem(value)

    @staticmethod
    def dump(value: Any) -> Any:
        """Wire form of any engine value (moves, views, events, scores)."""
        return to_wire(value)


SCHEMAS: Final[Mapping[str, GameCodec]] = MappingProxyType(
    {m.GAME_ID: GameCodec(ENGINES[m.GAME_ID], m) for m in (schnapsen, seven_up, california_jack, yukon, stukolka, bragging, slapjack, snap, russian_bank)}
)


S = TypeVar("S")
M_co = TypeVar("M_co", covariant=True)
W_co = TypeVar("W_co", covariant=True)


class Wire(Protocol[S, M_co, W_co]):
    """One game's codec as a library user types it (``codec_of``): its engine's ``State`` and
    ``Move``, and ``W`` the wire form of its state (``card_referee.typed.<Game>State``)."""

    def dump_state(self, state: S, derived: bool = True) -> W_co: ...

    def load_state(self, data: Mapping[str, object], check: bool = True) -> S: ...

    def load_move(self, data: Mapping[str, object], players: int) -> M_co | BadMove: ...


# fmt: off
@overload
def codec_of(game_id: Literal["schnapsen"]) -> Wire[_schnapsen.State, _schnapsen.Move, SchnapsenState]: ...
@overload
def codec_of(game_id: Literal["seven_up"]) -> Wire[_seven_up.State, _seven_up.Move, SevenUpState]: ...
@overload
def codec_of(game_id: Literal["california_jack"]) -> Wire[_california_jack.State, _california_jack.Move, CaliforniaJackState]: ...
@overload
def codec_of(game_id: Literal["yukon"]) -> Wire[_yukon.State, _yukon.Move, YukonState]: ...
@overload
def codec_of(game_id: Literal["stukolka"]) -> Wire[_stukolka.State, _stukolka.Move, StukolkaState]: ...
@overload
def codec_of(game_id: Literal["bragging"]) -> Wire[_bragging.State, _bragging.Move, BraggingState]: ...
@overload
def codec_of(game_id: Literal["slapjack"]) -> Wire[_slapjack.State, _slapjack.Move, SlapjackState]: ...
@overload
def codec_of(game_id: Literal["snap"]) -> Wire[_snap.State, _snap.Move, SnapState]: ...
@overload
def codec_of(game_id: Literal["russian_bank"]) -> Wire[_russian_bank.State, _russian_bank.Move, RussianBankState]: ...
# fmt: on
def codec_of(game_id: str) -> Any:
    """``SCHEMAS[game_id]``, typed for a game id known when the code is written (the library's
    typed face: ``docs/library.md``); ``SCHEMAS`` serves an id known only at run time."""
    return SCHEMAS[game_id]
