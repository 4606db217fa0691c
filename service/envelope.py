"""The response envelope (docs/rules/conventions.md), built from a state (no Flask: tests build it directly)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .engines.base import Seat, event_view
from .schemas import GameCodec
from .schemas.common import to_wire
from .sealing import Sealer

__all__ = ["envelope"]


def envelope(
    engine: Any,
    codec: GameCodec,
    state: Any,
    events: Sequence[Any],
    viewer: Seat | None,
    sealer: Sealer | None = None,
    match_id: str | None = None,
    *,
    seal: bool = True,
    public: bool = False,
) -> dict[str, Any]:
    """``state`` as ``viewer`` may see it (None: the full state in open mode, the public view sealed).

    Open mode without a viewer gets the full state and every legal move; a viewer gets its view and
    its own moves; sealed mode without a viewer gets the public view and no moves, plus the token
    (``seal``; the referee, referee.py, seals its answers itself: padded, with the match's data).
    ``public``: the public view even in open mode (a replayed record's verdict).
    """
    full = sealer is None and viewer is None and not public
    if full:
        wire_state = codec.dump_state(state)
        legal = engine.legal_moves(state)
    else:
        wire_state = to_wire(engine.view(state, viewer))
        legal = [] if viewer is None else [m for m in engine.legal_moves(state) if m.player == viewer]
    outcome = engine.outcome(state)
    env: dict[str, Any] = {
        "game": engine.GAME_ID,
        "state": wire_state,
        "status": engine.status(state),
        "to_move": sorted(engine.to_move(state)),
        "legal_moves": to_wire(legal),
        "events": [to_wire(event_view(e, viewer, full)) for e in events],
        "scores": to_wire(engine.scores(state, viewer)),
        "winner": None if outcome is None else sorted(outcome.winners),
    }
    if sealer is not None and seal:
        assert match_id is not None
        env["token"] = sealer.seal(engine.GAME_ID, match_id, codec.pack(state))
    return env
