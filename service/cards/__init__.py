"""Playing cards: the one text form (``10H``, ``QS/a``) and the values every game shares.

Cards are interned: ``Card.parse`` returns the same object for the same text, so engines can
compare and hash them cheaply. Rank orders and point values belong to each game, not here.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Final, NamedTuple

__all__ = ["BLACK", "RANKS", "RED", "SUITS", "BadCard", "Card", "Suit", "names", "parse_card"]


class Suit(StrEnum):
    """The four suits, by their one-letter code (docs/rules/conventions.md)."""

    S = "S"
    H = "H"
    D = "D"
    C = "C"


SUITS: Final = (Suit.S, Suit.H, Suit.D, Suit.C)
RANKS: Final = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
RED: Final = frozenset({Suit.H, Suit.D})
BLACK: Final = frozenset({Suit.S, Suit.C})
DECK_TAGS: Final = ("a", "b")


class BadCard(ValueError):
    """A string that is not a card in docs/rules/conventions.md notation."""


class Card(NamedTuple):
    """A card: rank, suit and, for two-pack games, the deck tag (``a`` or ``b``)."""

    rank: str
    suit: Suit
    deck: str | None = None

    @staticmethod
    def parse(text: str) -> Card:
        """Card from its text form; raises BadCard for anything else."""
        card = _BY_TEXT.get(text) if isinstance(text, str) else None
        if card is None:
            raise BadCard(f"{text!r} is not a card")
        return card

    def __str__(self) -> str:
        return self.rank + self.suit.value if self.deck is None else f"{self.rank}{self.suit.value}/{self.deck}"

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        """Cards are immutable and interned: a copy is the card itself (as for enum members)."""
        return self

    @property
    def is_red(self) -> bool:
        return self.suit in RED


def _intern() -> dict[str, Card]:
    table: dict[str, Card] = {}
    for deck in (None, *DECK_TAGS):
        for suit in SUITS:
            for rank in RANKS:
                card = Card(rank, suit, deck)
                table[str(card)] = card
    return table


_BY_TEXT: Final[dict[str, Card]] = _intern()


def parse_card(text: str) -> Card:
    """Card from its text form; raises BadCard."""
    return Card.parse(text)


def card(text: str) -> Card:
    """Shorthand for tests and tables: the interned card named by ``text``."""
    return Card.parse(text)


def names(cards: Iterable[Card]) -> str:
    """Cards as text for messages: ``"AS, 10H"``."""
    return ", ".join(str(c) for c in cards)
