"""The packs the games use, in a fixed canonical order (suits S H D C, ranks low to high).

The canonical order is the input of the seeded shuffle, so it is part of the contract: changing it
changes every seeded deal (pinned by tests/test_cards.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Final

from . import RANKS, SUITS, Card

__all__ = ["DeckProblem", "check_deck", "full_52", "is_pack", "pack_of", "short_20"]


def pack_of(ranks: Iterable[str], deck: str | None = None) -> tuple[Card, ...]:
    """Every card of the given ranks in every suit, canonical order."""
    ranks = tuple(ranks)
    return tuple(Card.parse(f"{r}{s.value}" + (f"/{deck}" if deck else "")) for s in SUITS for r in ranks)


FULL_52: Final = pack_of(RANKS)
SHORT_20: Final = pack_of(("J", "Q", "K", "10", "A"))


def full_52() -> tuple[Card, ...]:
    """The standard 52-card pack."""
    return FULL_52


def short_20() -> tuple[Card, ...]:
    """The 20-card Schnapsen pack (J Q K 10 A)."""
    return SHORT_20


@lru_cache(maxsize=64)
def by_text(pack: tuple[Card, ...]) -> Mapping[str, Card]:
    """The cards of ``pack`` by their text form: parsing a string as a card *of this game*."""
    return {str(c): c for c in pack}


def is_pack(deck: Sequence[Card], pack: Sequence[Card]) -> bool:
    """Whether ``deck`` holds every card of ``pack`` exactly once, in any order (the multisets are
    equal). Without counting: as many cards, all distinct, forming the same set; a pack that
    repeats a card is never matched this way and is left to the count."""
    if len(deck) != len(pack):
        return False
    distinct = set(deck)
    if len(distinct) == len(pack):
        return distinct == set(pack)
    return Counter(deck) == Counter(pack)


class DeckProblem(ValueError):
    """A deck that is not exactly the expected pack; the message names what is wrong."""


def check_deck(deck: Sequence[Card], pack: Sequence[Card]) -> None:
    """Raise DeckProblem unless ``deck`` holds every card of ``pack`` exactly once."""
    if is_pack(deck, pack):
        return
    have = Counter(deck)
    want = Counter(pack)
    if have == want:
        return
    missing = [str(c) for c in pack if have[c] < want[c]]
    extra = [str(c) for c in have if have[c] > want[c]]
    parts = []
    if missing:
        parts.append("missing " + ", ".join(missing[:8]) + (" …" if len(missing) > 8 else ""))
    if extra:
        parts.append("extra or duplicated " + ", ".join(extra[:8]) + (" …" if len(extra) > 8 else ""))
    raise DeckProblem(f"deck of {len(deck)} cards is not the {len(pack)}-card pack: " + "; ".join(parts))
