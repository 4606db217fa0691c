"""Trick-taking helpers shared by every trick game: ranking, winning, and the follow obligations
that several games share (``may_follow``); a game with its own obligations keeps them itself.

``order`` is a game's rank table, low to high, e.g. ``("J", "Q", "K", "10", "A")``; it is turned
into a rank → strength mapping once with ``strength``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Final

from . import Card, Suit

__all__ = [
    "FOLLOW_OR_TRUMP",
    "FOLLOW_OR_TRUMP_COMPULSORY",
    "FOLLOW_RULES",
    "FOLLOW_SUIT",
    "beats",
    "higher",
    "may_follow",
    "of_suit",
    "points",
    "strength",
    "trick_winner",
    "winner_by",
]

# The follow rules Seven Up (§6.5) and California Jack (§6.1) offer as the option ``follow_rule``.
FOLLOW_SUIT: Final = "follow_suit"
"""Follow suit if you can, else play any card."""
FOLLOW_OR_TRUMP: Final = "follow_or_trump"
"""Holding the suit led, play it or a trump; void, play any card."""
FOLLOW_OR_TRUMP_COMPULSORY: Final = "follow_or_trump_compulsory"
"""As ``follow_or_trump``, but void in the suit led, trump if you can."""
FOLLOW_RULES: Final = (FOLLOW_SUIT, FOLLOW_OR_TRUMP, FOLLOW_OR_TRUMP_COMPULSORY)


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


def winner_by(cards: Sequence[Card], beats: Callable[[Card, Card], bool]) -> int:
    """Index in ``cards`` (play order) of the card that wins when ``beats(challenger, best)`` says
    whether a later card takes the trick from the card winning so far (a game's own ranking)."""
    best = 0
    for i in range(1, len(cards)):
        if beats(cards[i], cards[best]):
            best = i
    return best


def may_follow(hand: tuple[Card, ...], led: Suit, trump: Suit, rule: str, *, led_first: bool = False) -> tuple[Card, ...]:
    """The cards of ``hand`` a follower may play under ``rule``, one of ``FOLLOW_RULES``, in hand
    order (``led_first``: the led suit's cards, then the trumps)."""
    same = of_suit(hand, led)
    if same:
        if rule == FOLLOW_SUIT or led is trump:
            return same
        if led_first:
            return same + of_suit(hand, trump)
        return tuple([c for c in hand if c.suit is led or c.suit is trump])
    if rule == FOLLOW_OR_TRUMP_COMPULSORY:
        trumps = of_suit(hand, trump)
        if trumps:
            return trumps
    return hand


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
