"""The registry: every game's engine module, found by its game id."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from . import bragging, california_jack, russian_bank, schnapsen, seven_up, slapjack, snap, stukolka, yukon
from .base import Engine, SealedEngine

__all__ = ["ENGINES", "UnknownGame", "find"]


class UnknownGame(LookupError):
    """No engine has this game id."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"unknown game: {game_id!r}")
        self.game_id = game_id


_MODULES: Final[tuple[Engine, ...]] = (schnapsen, seven_up, california_jack, yukon, stukolka, bragging, slapjack, snap, russian_bank)
"""Typed by the protocol, so mypy checks every engine module against ``Engine``."""
_SEALED: Final[tuple[SealedEngine, ...]] = (slapjack,)
"""The engines whose ``GAME.uses_secret``, checked against ``SealedEngine`` (tests check the flag)."""

ENGINES: Final[Mapping[str, Engine]] = MappingProxyType({m.GAME.game_id: m for m in _MODULES})


def find(game_id: str) -> Engine:
    """The engine module for ``game_id``; raises UnknownGame."""
    try:
        return ENGINES[game_id]
    except KeyError:
        raise UnknownGame(game_id) from None
