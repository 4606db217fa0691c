"""Seat-order helpers shared by the trick games with a stock: dealing round by round, drawing in
turn after a trick, and the sides of a partnership game (docs/rules/conventions.md: play passes to the left,
seat ``(i + 1) % n``; four-handed partners are seats 0 & 2 against 1 & 3).

Who deals, who draws first and whether partners play are each game's rules; these functions only
walk the seats in order.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import Card

__all__ = ["deal_one_at_a_time", "draw_in_turn", "partnership_sides"]

Hands = tuple[tuple[Card, ...], ...]


def deal_one_at_a_time(deck: Sequence[Card], players: int, first: int, per_seat: int) -> tuple[Hands, tuple[Card, ...]]:
    """``per_seat`` rounds of one card each from the top of ``deck``, seats ``first, first+1, …``;
    returns the hands (by seat) and the rest of the deck, in order."""
    hands: list[tuple[Card, ...]] = [()] * players
    dealt = per_seat * players
    for i in range(players):
        hands[(first + i) % players] = tuple(deck[i:dealt:players])
    return tuple(hands), tuple(deck[dealt:])


def draw_in_turn(hands: Hands, stock: tuple[Card, ...], first: int) -> tuple[Hands, tuple[Card, ...], tuple[tuple[int, Card], ...]]:
    """Each seat from ``first`` on (to the left) takes the top stock card while the stock lasts.

    Returns the new hands, the rest of the stock and the draws as ``(seat, card)`` in order.
    """
    n = len(hands)
    out = list(hands)
    draws = []
    for i in range(min(n, len(stock))):
        seat = (first + i) % n
        out[seat] = out[seat] + (stock[i],)
        draws.append((seat, stock[i]))
    return tuple(out), stock[len(draws):], tuple(draws)


def partnership_sides(players: int, partnerships: bool = True) -> tuple[int, ...]:
    """The side of each seat: with four partnered players 0 & 2 (side 0) against 1 & 3 (side 1),
    otherwise every seat is a side of its own."""
    if players == 4 and partnerships:
        return (0, 1, 0, 1)
    return tuple(range(players))
