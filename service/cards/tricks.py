"""Trick-taking helpers shared by every trick game. Each game keeps its own obligations.

``order`` is a game's rank table, low to high, e.g. ``("J", "Q", "K", "10", "A")``; it is turned
into a rank → strength mapping once with ``strength``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from . import Card, Suit

__all__ = ["beats", "higher", "of_suit", "points", "strength", "trick_winner"]


def strength(order: Sequence[str]) -> dict[str, int]:
    """Rank → strength (0 = lowest) for a game's rank order, listed low to high."""
    return {rank: i for i, rank in enumerate(order)}


def beats(challenger: Card, best: Card, trump: Suit | None, rank: Mapping[str, int]) -> bool:
    """Whether ``challenger`` beats the card ``best`` currently winning a trick.

    Same suit: the higher rank wins; otherwise only a trump beats a non-trump.
    """
    if challenger.suit is best.suit:
        return rank[challenger.rank] > rank[best.rank]
    return challenger.suit is trump


def trick_winner(cards: Sequence[Card], trump: Suit | None, rank: Mapping[str, int]) -> int:
    """Index in ``cards`` (play order) of the card that wins: highest trump, else highest of the led suit."""
    best = 0
    top = cards[0]
    for i in range(1, len(cards)):  # beats(), inline: this runs once per trick in every trick game
        card = cards[i]
        if card.suit is top.suit:
            if rank[card.rank] > rank[top.rank]:
                best, top = i, card
        elif card.suit is trump:
            best, top = i, card
    return best


def of_suit(hand: Iterable[Card], suit: Suit) -> tuple[Card, ...]:
    """The cards of ``hand`` in ``suit``, in hand order."""
    return tuple([c for c in hand if c.suit is suit])


def higher(cards: Iterable[Card], than: Card, rank: Mapping[str, int]) -> tuple[Card, ...]:
    """The cards of ``than``'s suit that outrank it."""
    floor = rank[than.rank]
    suit = than.suit
    return tuple([c for c in cards if c.suit is suit and rank[c.rank] > floor])


def points(cards: Iterable[Card], table: Mapping[str, int]) -> int:
    """Sum of the card-point values of ``cards`` under a game's point table."""
    get = table.get
    total = 0
    for c in cards:
        total += get(c.rank, 0)
    return total
