"""The edge's per-game codecs, found by game id: wire form in, engine values out, and back.

Each ``service/schemas/<game_id>.py`` exports ``OPTIONS`` and ``STATE`` (marshmallow schemas built
from the edge's field types, ``fields.py``, and ``common.state_schema``), ``MOVES`` (its moves'
declaration, ``moves.Moves``) and ``dump_state``; ``GameCodec`` gives them one uniform face.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType, ModuleType
from typing import Any, Final

from ..engines import ENGINES
from ..engines.base import AnyEngine
from . import bragging, california_jack, russian_bank, schnapsen, seven_up, slapjack, snap, stukolka, yukon
from .common import load_options, load_state_with, to_wire
from .moves import Moves, Problem
from .packed import Packer

__all__ = ["SCHEMAS", "GameCodec"]


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
