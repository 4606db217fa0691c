"""Card ↔ text for the edge's hot paths: wire output and the packed token form.

``str(card)`` and ``Card.parse`` are fine for one card; a request turns a few hundred cards into
text and back, so these tables do it with one dictionary look-up each. Interned cards (every card
``Card.parse`` returns) are found by identity; any other ``Card`` still gets ``str(card)``.
"""

from __future__ import annotations

from typing import Any, Final

from ..cards import RANKS, Card, Suit

__all__ = ["CARDS", "CARD_TEXT", "card_text"]

CARDS: Final[dict[str, Card]] = {}
"""Every card's text → the interned card."""
CARD_TEXT: Final[dict[int, str]] = {}
"""``id`` of an interned card → its text. Interned cards live as long as the process (``CARDS``
holds them), so an id here never belongs to another object."""


def _intern() -> None:
    for deck in (None, "a", "b"):
        for suit in Suit:
            for rank in RANKS:
                text = f"{rank}{suit.value}" if deck is None else f"{rank}{suit.value}/{deck}"
                card = Card.parse(text)
                CARDS[text] = card
                CARD_TEXT[id(card)] = str(card)


_intern()


def card_text(card: Any) -> str:
    """``str(card)``, by look-up for an interned card."""
    text = CARD_TEXT.get(id(card))
    return str(card) if text is None else text
