"""The registry: every game's engine module, found by its game id."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Final, Literal, overload

from . import bragging, california_jack, russian_bank, schnapsen, seven_up, slapjack, snap, stukolka, yukon
from .base import AnyEngine, Engine, SealedEngine, ViewedEngine  # noqa: F401 (Engine: a game without a typed view, adding-a-game.md)

if TYPE_CHECKING:
    from ..typed import (
        BraggingEngineView,
        CaliforniaJackEngineView,
        RussianBankEngineView,
        SchnapsenEngineView,
        SevenUpEngineView,
        SnapEngineView,
        StukolkaEngineView,
        YukonEngineView,
    )

__all__ = ["ENGINES", "UnknownGame", "find"]


class UnknownGame(LookupError):
    """No engine has this game id."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"unknown game: {game_id!r}")
        self.game_id = game_id


# Each module checked against the protocol over its own types: a signature that drifts from its
# game's State, Move or Options fails mypy here.
_SCHNAPSEN: Final[ViewedEngine[schnapsen.State, schnapsen.Move, schnapsen.Options, SchnapsenEngineView]] = schnapsen
_SEVEN_UP: Final[ViewedEngine[seven_up.State, seven_up.Move, seven_up.Options, SevenUpEngineView]] = seven_up
_CALIFORNIA_JACK: Final[ViewedEngine[california_jack.State, california_jack.Move, california_jack.Options, CaliforniaJackEngineView]] = california_jack
_YUKON: Final[ViewedEngine[yukon.State, yukon.Move, yukon.Options, YukonEngineView]] = yukon
_STUKOLKA: Final[ViewedEngine[stukolka.State, stukolka.Move, stukolka.Options, StukolkaEngineView]] = stukolka
_BRAGGING: Final[ViewedEngine[bragging.State, bragging.Move, bragging.Options, BraggingEngineView]] = bragging
_SLAPJACK: Final[SealedEngine[slapjack.State, slapjack.Move, slapjack.Options]] = slapjack
"""Slapjack's ``GAME.uses_secret``: checked against ``SealedEngine`` (tests check the flag)."""
_SNAP: Final[ViewedEngine[snap.State, snap.Move, snap.Options, SnapEngineView]] = snap
_RUSSIAN_BANK: Final[ViewedEngine[russian_bank.State, russian_bank.Move, russian_bank.Options, RussianBankEngineView]] = russian_bank

_MODULES: Final[tuple[AnyEngine, ...]] = (
    _SCHNAPSEN, _SEVEN_UP, _CALIFORNIA_JACK, _YUKON, _STUKOLKA, _BRAGGING, _SLAPJACK, _SNAP, _RUSSIAN_BANK
)

_SEALED: Final[tuple[AnyEngine, ...]] = (_SLAPJACK,)

ENGINES: Final[Mapping[str, AnyEngine]] = MappingProxyType({m.GAME.game_id: m for m in _MODULES})
"""Every game's engine by its id; for static types see ``find``."""


@overload
def find(game_id: Literal["schnapsen"]) -> ViewedEngine[schnapsen.State, schnapsen.Move, schnapsen.Options, SchnapsenEngineView]: ...
@overload
def find(game_id: Literal["seven_up"]) -> ViewedEngine[seven_up.State, seven_up.Move, seven_up.Options, SevenUpEngineView]: ...
@overload
def find(game_id: Literal["california_jack"]) -> ViewedEngine[california_jack.State, california_jack.Move, california_jack.Options, CaliforniaJackEngineView]: ...
@overload
def find(game_id: Literal["yukon"]) -> ViewedEngine[yukon.State, yukon.Move, yukon.Options, YukonEngineView]: ...
@overload
def find(game_id: Literal["stukolka"]) -> ViewedEngine[stukolka.State, stukolka.Move, stukolka.Options, StukolkaEngineView]: ...
@overload
def find(game_id: Literal["bragging"]) -> ViewedEngine[bragging.State, bragging.Move, bragging.Options, BraggingEngineView]: ...
@overload
def find(game_id: Literal["slapjack"]) -> SealedEngine[slapjack.State, slapjack.Move, slapjack.Options]: ...
@overload
def find(game_id: Literal["snap"]) -> ViewedEngine[snap.State, snap.Move, snap.Options, SnapEngineView]: ...
@overload
def find(game_id: Literal["russian_bank"]) -> ViewedEngine[russian_bank.State, russian_bank.Move, russian_bank.Options, RussianBankEngineView]: ...
@overload
def find(game_id: str) -> AnyEngine: ...
def find(game_id: str) -> AnyEngine:
    """The engine module for ``game_id``, typed by its game's own State, Move and Options when the
    id is a literal; raises UnknownGame."""
    try:
        return ENGINES[game_id]
    except KeyError:
        raise UnknownGame(game_id) from None
