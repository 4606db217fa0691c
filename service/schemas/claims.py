"""The move parser of the timed claim games (Slapjack, Snap): flips, single claims and batches.

``common.MoveParser`` expects one ``player`` per move; a batch carries a ``claims`` list instead,
judged claim by claim in list order (slapjack.md §6.2 step 3, snap.md §6.3). Problems come back as
a ``BadMove`` carrying the first code in the spec's order, so the engine can still put
``game_over`` first and, for a flip, ``player_out`` and ``not_your_turn`` before ``bad_timestamp``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..engines.base import BadMove
from ..engines.claims import Claim, valid_at

__all__ = ["ClaimMoveParser"]


def _seat(value: Any, players: int) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < players:
        return None
    return value


class ClaimMoveParser:
    """Wire moves → ``flip`` / single claim / batch values of one game, or a ``BadMove``."""

    def __init__(self, flip: type, single: type, batch: type) -> None:
        self._flip, self._single, self._batch = flip, single, batch
        self._types = {flip.TYPE: flip, single.TYPE: single, batch.TYPE: batch}  # type: ignore[attr-defined]

    def parse(self, data: Any, players: int) -> Any:
        """A move value, or ``BadMove`` with the first problem in the spec's order."""
        if not isinstance(data, Mapping):
            return BadMove("invalid_move", "A move must be a JSON object.")
        kind = data.get("type")
        if not isinstance(kind, str):
            return BadMove("invalid_move", "type is required and must be a string")
        cls = self._types.get(kind)
        if cls is None:
            return BadMove("unknown_move_type", f"{kind!r} is not a move type of this game", kind)
        if cls is self._batch:
            return self._parse_batch(data, kind, players)
        extra = sorted(str(k) for k in data if k not in ("type", "player", "at"))
        if extra:
            return BadMove("invalid_move", f"{kind} has no field {extra[0]!r}", kind)
        player = _seat(data.get("player"), players)
        if player is None:
            return BadMove("invalid_player", f"player must be a seat 0..{players - 1}", kind)
        if cls is self._flip:
            if "at" in data and not valid_at(data["at"]):
                return BadMove("bad_timestamp", "at must be an integer number of milliseconds >= 0", kind, player)
            return cls(player, data.get("at"))
        if not valid_at(data.get("at")):
            return BadMove("bad_timestamp", "a claim needs at: an integer number of milliseconds >= 0", kind, player)
        return cls(player, data["at"])

    def _parse_batch(self, data: Mapping[str, Any], kind: str, players: int) -> Any:
        extra = sorted(str(k) for k in data if k not in ("type", "claims", "player"))  # a top-level player is ignored
        if extra:
            return BadMove("invalid_move", f"{kind} has no field {extra[0]!r}", kind)
        raw = data.get("claims")
        if raw is None or raw == []:
            return BadMove("no_claims", f"{kind} needs a non-empty claims list", kind)
        if not isinstance(raw, list):
            return BadMove("invalid_move", "claims must be a list of {player, at} objects", kind)
        claims: list[Claim] = []
        seen: set[int] = set()
        for i, entry in enumerate(raw):
            if not isinstance(entry, Mapping) or any(k not in ("player", "at") for k in entry):
                return BadMove("invalid_move", f"claims[{i}] must be an object with player and at only", kind)
            player = _seat(entry.get("player"), players)
            if player is None:
                return BadMove("invalid_player", f"claims[{i}].player must be a seat 0..{players - 1}", kind)
            at = entry.get("at")
            if not valid_at(at):
                return BadMove("bad_timestamp", f"claims[{i}].at must be an integer number of milliseconds >= 0", kind)
            if player in seen:
                return BadMove("duplicate_claim", f"seat {player} claims twice (claims[{i}])", kind)
            seen.add(player)
            claims.append(Claim(player, int(at)))  # type: ignore[arg-type]  # valid_at: an int
        return self._batch(tuple(claims))
