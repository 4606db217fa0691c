"""The All Fours family's end-of-hand count, shared by Seven Up and California Jack.

Both games score High, Low, Jack and Game, credited one point at a time in that order, and stop
the moment a party reaches the target ("counting out"). Who earns each point is the game's own
rule; this module only values cards for Game and does the sequential crediting.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from . import Card
from .tricks import points

__all__ = ["GAME_VALUES", "POINT_ORDER", "Credit", "count_out", "game_value"]

#: Card values for the Game point: 10 = 10, A = 4, K = 3, Q = 2, J = 1, others 0 (80 in a pack).
GAME_VALUES: dict[str, int] = {"10": 10, "A": 4, "K": 3, "Q": 2, "J": 1}

#: The order in which the end-of-hand points are credited.
POINT_ORDER: tuple[str, ...] = ("high", "low", "jack", "game")


def game_value(cards: Iterable[Card]) -> int:
    """Total Game value of ``cards``."""
    return points(cards, GAME_VALUES)


class Credit(NamedTuple):
    """Result of counting out: the new scores, which awards were credited, and the winner."""

    scores: tuple[int, ...]
    credited: tuple[bool, ...]
    winner: int | None


def count_out(scores: Sequence[int], awards: Sequence[int | None], target: int) -> Credit:
    """Credit ``awards`` (one party index per point, ``None`` = nobody) one at a time.

    After each credit, a party at or above ``target`` wins at once and the remaining awards are
    not credited. A point awarded to nobody is never credited.
    """
    totals = list(scores)
    credited: list[bool] = []
    winner: int | None = None
    for party in awards:
        if winner is not None or party is None:
            credited.append(False)
            continue
        totals[party] += 1
        credited.append(True)
        if totals[party] >= target:
            winner = party
    return Credit(tuple(totals), tuple(credited), winner)
