"""The envelope as tests build it directly: ``service/envelope.py`` (no Flask), with the token of
a plain (unpadded) seal when a sealer is given. The service's own answers come from the referee core."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import envelope as _envelope
from ..engines.base import Seat
from ..schemas import GameCodec
from ..sealing import Sealer

__all__ = ["envelope"]


def envelope(
    engine: Any,
    codec: GameCodec,
    state: Any,
    events: Sequence[Any],
    viewer: Seat | None,
    sealer: Sealer | None = None,
    match_id: str | None = None,
) -> dict[str, Any]:
    """``state`` as ``viewer`` may see it: the full state in open mode (no ``sealer``) without a
    viewer, the public view sealed, plus the token of ``match_id``."""
    env = _envelope.envelope(engine, codec, state, events, viewer, full=sealer is None and viewer is None)
    if sealer is not None:
        assert match_id is not None
        env["token"] = sealer.seal(engine.GAME_ID, match_id, codec.pack(state))
    return env
