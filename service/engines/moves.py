"""Move shapes shared by several games (only the vocabulary; each game decides legality)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..cards import Card
from .base import Seat

__all__ = ["NextDeal"]


@dataclass(frozen=True, slots=True)
class NextDeal:
    """``{"type": "next_deal", "player": q, "deck": [...]?}``: the next dealer starts the next deal.

    Listed in ``legal_moves`` as a template without ``deck``; a concrete move carrying a deck fills
    it in (CONVENTIONS.md). The deck's validity (exactly the pack) is the engine's check.
    """

    TYPE: ClassVar[str] = "next_deal"
    player: Seat
    deck: tuple[Card, ...] | None = None

    def filled_by(self, move: object) -> bool:
        """A concrete ``next_deal`` by the same seat with a deck fills this template."""
        return isinstance(move, NextDeal) and move.player == self.player and move.deck is not None
