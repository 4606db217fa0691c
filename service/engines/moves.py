"""Move shapes shared by several games (only the vocabulary; each game decides legality)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from ..cards import Card
from ..cards.packs import is_pack
from .base import Seat

__all__ = ["NextDeal", "Play"]


@dataclass(frozen=True, slots=True)
class Play:
    """``{"type": "play", "player": p, "card": c}``: play a card to the trick (lead or follow)."""

    TYPE: ClassVar[str] = "play"
    player: Seat
    card: Card


@dataclass(frozen=True, slots=True)
class NextDeal:
    """``{"type": "next_deal", "player": q, "deck": [...]?}``: the next dealer starts the next deal.

    Listed in ``legal_moves`` as a template without ``deck`` that knows the game's ``pack`` (not part
    of the move's value or wire form); a concrete move carrying a valid deck, exactly that pack,
    fills it in (docs/rules/conventions.md).
    """

    TYPE: ClassVar[str] = "next_deal"
    player: Seat
    deck: tuple[Card, ...] | None = None
    pack: tuple[Card, ...] = field(default=(), compare=False, repr=False, metadata={"wire": False})

    def filled_by(self, move: object) -> bool:
        """A concrete ``next_deal`` by the same seat whose deck is exactly the pack fills this template."""
        return (
            isinstance(move, NextDeal)
            and move.player == self.player
            and move.deck is not None
            and is_pack(move.deck, self.pack)
        )
