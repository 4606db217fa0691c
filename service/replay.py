"""A match begun from its setup and a move log replayed: the one loop behind ``replay``, the
adjudication of a signed record (``records.adjudicate``) and the offline verifier (``service.verify``).

No Flask, no clock, no randomness of its own: what a log does not fix (the deck of a ``next_deal``
sent without one) comes from the caller's ``deal``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .engines.base import RulesError, uses_secret
from .engines.moves import NextDeal
from .fairness import deck_for_deal

__all__ = ["Replayed", "begin_sealed", "replay_log", "sealed_deal"]


def begin_sealed(engine: Any, options: Any, players: int, deck: Sequence[Any] | None, seed: int | None, secret: bytes) -> Any:
    """A sealed match's first position: the fixed ``deck`` when the setup fixed one, else deal 1 of
    the ``seed`` (a fixed-deck match) or of the match secret; a game whose rules draw from the secret
    (Slapjack's shuffles) gets it unless a seed fixes them."""
    if deck is None:
        deck = deck_for_deal(engine.pack(options, players), 1, secret, seed)
    if uses_secret(engine):  # the game's GAME.uses_secret (Slapjack): new_game takes the secret
        return engine.new_game(options, players, deck, seed, secret=None if seed is not None else secret)
    return engine.new_game(options, players, deck, seed)


def sealed_deal(engine: Any, state: Any, secret: bytes, seed: int | None) -> tuple[Any, ...]:
    """The deck of the deal after ``state``'s in a sealed match: from the match secret, or from the
    setup's ``seed`` when the operator let a client fix it (``next_deal`` sent without a deck)."""
    pack = engine.pack(state.options, engine.players(state))
    return tuple(deck_for_deal(pack, state.deal_number + 1, secret, seed))


@dataclass(frozen=True, slots=True)
class Replayed:
    """A move log replayed: the last state and events, how many moves were legal, the first illegal
    one (``{"index", "move", "error"}``) and the refusal behind it."""

    state: Any
    events: list[Any]
    legal: int
    first_illegal: dict[str, Any] | None
    refusal: RulesError | None


def replay_log(
    engine: Any,
    codec: Any,
    state: Any,
    events: list[Any],
    moves: Sequence[Any],
    deal: Callable[[Any], Sequence[Any]],
    problem: Callable[[RulesError, Any], dict[str, Any]],
    applied: Callable[[Any, Any, bool], None] | None = None,
) -> Replayed:
    """Apply ``moves`` (wire form) from ``state`` until one is refused.

    Each is parsed (a parse refusal is raised), a ``next_deal`` without a deck gets ``deal(state)``,
    and the engine steps; ``applied(move, new_state, dealt)`` sees every accepted move. The first
    refused move stops the log: its ``error`` is ``problem(exc, raw)``.
    """
    players = engine.players(state)
    legal = 0
    for index, raw in enumerate(moves):
        move = codec.load_move(raw, players)
        dealt = isinstance(move, NextDeal) and move.deck is None
        if dealt:
            move = NextDeal(move.player, tuple(deal(state)))
        try:
            new_state, events = engine.step(state, move)
        except RulesError as exc:
            return Replayed(state, events, legal, {"index": index, "move": raw, "error": problem(exc, raw)}, exc)
        if applied is not None:
            applied(move, new_state, dealt)
        state = new_state
        legal += 1
    return Replayed(state, events, legal, None, None)
