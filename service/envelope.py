"""The response envelope (docs/rules/conventions.md), built from a state (no Flask: tests build it directly)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from .engines.base import AnyEngine, Seat, event_view
from .schemas import GameCodec
from .schemas.common import to_wire

__all__ = ["envelope"]


def envelope(engine: AnyEngine, codec: GameCodec, state: Any, events: Sequence[Any], viewer: Seat | None, *, full: bool) -> dict[str, Any]:
    """``state`` as ``viewer`` may see it: the ``full`` state and every legal move (open mode, no
    viewer), else ``viewer``'s view and its own moves, or with no viewer the public view and no moves.

    The members and their order are the wire's; the referee (referee.py) adds what sealed mode
    answers with (token, fairness, record, keys).
    """
    if full:
        wire_state = codec.dump_state(state)
        legal = engine.legal_moves(state)
    else:
        view = engine.view(state, viewer)
        wire_state = to_wire(view)
        if viewer is None:
            legal = []
        else:  # a seat's view lists its legal moves when it is to move (§5): the same list, not worked out again
            listed = view.get("legal_moves")
            moves = engine.legal_moves(state) if listed is None else cast("list[Any]", listed)
            legal = [m for m in moves if m.player == viewer]
    outcome = engine.outcome(state)
    return {
        "game": engine.GAME_ID,
        "state": wire_state,
        "status": engine.status(state),
        "to_move": sorted(engine.to_move(state)),
        "legal_moves": to_wire(legal),
        "events": [to_wire(event_view(e, viewer, full)) for e in events],
        "scores": to_wire(engine.scores(state, viewer)),
        "winner": None if outcome is None else sorted(outcome.winners),
    }
