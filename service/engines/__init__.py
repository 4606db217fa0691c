"""The registry: every game's engine module, found by its game id."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, Literal, overload

from . import bragging, california_jack, russian_bank, schnapsen, seven_up, slapjack, snap, stukolka, yukon
from .base import AnyEngine, Engine, SealedEngine

__all__ = ["ENGINES", "UnknownGame", "find"]


class UnknownGame(LookupError):
    """No engine has this game id."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"unknown game: {game_id!r}")
        self.game_id = game_id


# Each module checked against the protocol over its own types: a signature that drifts from its
# game's State, Move or Options fails mypy here.
_SCHNAPSEN: Final[Engine[schnapsen.State, schnapsen.Move, schnapsen.Options]] = schnapsen
_SEVEN_UP: Final[Engine[seven_up.State, seven_up.Move, seven_up.Options]] = seven_up
_CALIFORNIA_JACK: Final[Engine[california_jack.State, california_jack.Move, california_jack.Options]] = california_jack
_YUKON: Final[Engine[yukon.State, yukon.Move, yukon.Options]] = yukon
_STUKOLKA: Final[Engine[stukolka.State, stukolka.Move, stukolka.Options]] = stukolka
_BRAGGING: Final[Engine[bragging.State, bragging.Move, bragging.Options]] = bragging
_SLAPJACK: Final[SealedEngine[slapjack.State, slapjack.Move, slapjack.Options]] = slapjack
"""Slapjack's ``GAME.uses_secret``: checked against ``SealedEngine`` (tests check the flag)."""
_SNAP: Final[Engine[snap.State, snap.Move, snap.Options]] = snap
_RUSSIAN_BANK: Final[Engine[russian_bank.State, russian_bank.Move, russian_bank.Options]] = russian_bank

_MODULES: Final[tuple[AnyEngine, ...]] = (
    _SCHNAPSEN, _SEVEN_UP, _CALIFORNIA_JACK, _YUKON, _STUKOLKA, _BRAGGING, _SLAPJACK, _SNAP, _RUSSIAN_BANK
)

_SEALED: Final[tuple[AnyEngine, ...]] = (_SLAPJACK,)

ENGINES: Final[Mapping[str, AnyEngine]] = MappingProxyType({m.GAME.game_id: m for m in _MODULES})
"""Every game's engine by its id; for static types see ``find``."""


@overload
def find(game_id: Literal["schnapsen"]) -> Engine[schnapsen.State, schnapsen.Move, schnapsen.Options]: ...
@overload
def find(game_id: Literal["seven_up"]) -> Engine[seven_up.State, seven_up.Move, seven_up.Options]: ...
@overload
def find(game_id: Literal["california_jack"]) -> Engine[california_jack.State, california_jack.Move, california_jack.Options]: ...
@overload
def find(game_id: Literal["yukon"]) -> Engine[yukon.State, yukon.Move, yukon.Options]: ...
@overload
def find(game_id: Literal["stukolka"]) -> Engine[stukolka.State, stukolka.Move, stukolka.Options]: ...
@overload
def find(game_id: Literal["bragging"]) -> Engine[bragging.State, bragging.Move, bragging.Options]: ...
@overload
def find(game_id: Literal["slapjack"]) -> SealedEngine[slapjack.State, slapjack.Move, slapjack.Options]: ...
@overload
def find(game_id: Literal["snap"]) -> Engine[snap.State, snap.Move, snap.Options]: ...
@overload
def find(game_id: Literal["russian_bank"]) -> Engine[russian_bank.State, russian_bank.Move, russian_bank.Options]: ...
@overload
def find(game_id: str) -> AnyEngine: ...
def find(game_id: str) -> AnyEngine:
    """The engine module for ``game_id``, typed by its game's own State, Move and Options when the
    id is a literal; raises UnknownGame."""
    try:
        return ENGINES[game_id]
    except KeyError:
        raise UnknownGame(game_id) from None
