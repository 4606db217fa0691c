"""The moves of the timed claim games (Slapjack, Snap), declared once: flips, single claims, batches.

A batch carries a ``claims`` list instead of one ``player``, judged claim by claim in list order
(slapjack.md §6.2 step 3, snap.md §6.3); a top-level ``player`` on a batch is ignored. Problems come
back as a ``BadMove`` carrying the first code in the game's order, so the engine can still put
``game_over`` first and, for a flip, ``player_out`` and ``not_your_turn`` before ``bad_timestamp``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..engines.base import GameInfo
from ..engines.claims import Claim, valid_at
from .moves import CLAIM_SEAT, CLAIM_TIMESTAMP, TIMED_CLAIM, Bad, Field, Move, Moves, Wire, seat_of

__all__ = ["claim_moves"]


def _claims(raw: Any, players: int) -> tuple[Claim, ...]:
    """A batch's ``claims``: a non-empty list of ``{player, at}``, no seat twice."""
    if raw is None or raw == []:
        raise Bad("no_claims", "a batch needs a non-empty claims list")
    if not isinstance(raw, list):
        raise Bad("invalid_move", "claims must be a list of {player, at} objects")
    claims: list[Claim] = []
    seen: set[int] = set()
    for i, entry in enumerate(raw):
        if not isinstance(entry, Mapping) or any(k not in ("player", "at") for k in entry):
            raise Bad("invalid_move", f"claims[{i}] must be an object with player and at only")
        player = seat_of(entry.get("player"), players, f"claims[{i}].player")
        at = entry.get("at")
        if not valid_at(at):
            raise Bad("bad_timestamp", f"claims[{i}].at must be an integer number of milliseconds >= 0")
        if player in seen:
            raise Bad("duplicate_claim", f"seat {player} claims twice (claims[{i}])")
        seen.add(player)
        claims.append(Claim(player, at))  # type: ignore[arg-type]  # valid_at: an int
    return tuple(claims)


_CLAIMS = Wire({"type": "array", "minItems": 1, "maxItems": 8, "items": TIMED_CLAIM}, _claims, seated=True)
_IGNORED_PLAYER = Field(
    Wire({"description": "Ignored (each claim names its seat).", "type": "integer"}), required=False, ignored=True
)


def claim_moves(game: GameInfo, description: str, *, flip: str, single: str, batch: str) -> Moves:
    """A claim game's moves: ``flip`` (an optional ``at``), one claim (``at`` required) and a batch
    (the move types in ``game.move_types`` order), each described by its section's sentence."""
    flip_type, single_type, batch_type = game.move_types
    return Moves(
        game,
        description=description,
        seat=CLAIM_SEAT,
        at=Field(CLAIM_TIMESTAMP, required=False),
        seat_read_for=frozenset({"bad_timestamp"}),
        moves=(
            Move(flip_type, flip),
            Move(single_type, single, {"at": Field(CLAIM_TIMESTAMP, missing_code="bad_timestamp", contract_required=False)}),
            Move(batch_type, batch, {"claims": Field(_CLAIMS, missing_code="no_claims"), "player": _IGNORED_PLAYER, "at": None}),
        ),
    )
