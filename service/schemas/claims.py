"""The moves of the timed claim games (Slapjack, Snap), declared once: flips, single claims, batches.

A batch carries a ``claims`` list instead of one ``player``, judged claim by claim in list order
(slapjack.md §6.2 step 3, snap.md §6.3); a top-level ``player`` on a batch is ignored. Problems come
back as a ``BadMove`` carrying the first code in the game's order, so the engine can still put
``game_over`` first and, for a flip, ``player_out`` and ``not_your_turn`` before ``bad_timestamp``.

Also here: the state loader fields both games declare alike, so that the contract components
their states reach (``ClaimSeats``, ``ClaimTimestamp``, ``ClaimCounts``) are written once,
``result_contract``, which writes a game's ``<Game>Result`` (one object per ``kind``) from its
result loader, and what both games send alike (``ClaimSeatOrNull``, the ``deal`` and ``flip``
events, the scores).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from marshmallow import Schema, fields, validate

from ..engines.base import GameInfo
from ..engines.claims import MAX_AT, Claim, valid_at
from .fields import SeatField, StrictInt
from .loaded import Loaded
from .moves import ANY_CARD, CLAIM_SEAT, CLAIM_TIMESTAMP, TIMED_CLAIM, Bad, Field, Move, Moves, Wire, seat_of
from .sent import Event, nullable, obj

__all__ = [
    "CLAIM_COUNTS",
    "CLAIM_SEAT_OR_NULL",
    "DEAL_EVENT",
    "ClaimAt",
    "ClaimSeat",
    "ClaimSeats",
    "claim_moves",
    "claim_scores",
    "flip_event",
    "result_contract",
]

MAX_SEATS: Final = CLAIM_SEAT.schema["maximum"] + 1
"""The most seats of a claim game (Slapjack and Snap both seat 2 to 8): ``ClaimSeat``'s bound."""


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


# --- the state loaders' shared fields -------------------------------------------------------------


def ClaimSeat(**kw: Any) -> StrictInt:
    """A seat of any match of the game (0 .. 7), written as ``ClaimSeat``."""
    return SeatField(MAX_SEATS, **kw)


def ClaimSeats(**kw: Any) -> fields.List[Any]:
    """A list of seats, at most as many as a match has, written as ``ClaimSeats``."""
    metadata = {"wire_name": "ClaimSeats", **kw.pop("metadata", {})}
    return fields.List(ClaimSeat(), validate=validate.Length(max=MAX_SEATS), metadata=metadata, **kw)


def ClaimAt(**kw: Any) -> StrictInt:
    """A client timestamp (0 .. 2^53-1), written as ``ClaimTimestamp`` (the moves' ``at``)."""
    metadata = {"wire_name": CLAIM_TIMESTAMP.name, "wire_description": CLAIM_TIMESTAMP.schema["description"], **kw.pop("metadata", {})}
    return StrictInt(validate=validate.Range(0, MAX_AT), metadata=metadata, **kw)


CLAIM_COUNTS: Final = Wire(
    {
        "description": "One count per seat.",
        "type": "array",
        "minItems": 2,
        "maxItems": MAX_SEATS,
        "items": {"type": "integer", "minimum": 0, "maximum": 52},
    },
    name="ClaimCounts",
)
"""Per-seat card counts the state derives (``cards_held``; views, events and scores carry them too):
not checked on input."""


def result_contract(prefix: str, schema: type[Schema], kinds: Mapping[str, tuple[str, ...]], description: str) -> Wire:
    """``<prefix>Result``: ``null`` or one object per result ``kind`` holding exactly that kind's
    members (``kinds``, the engine's ``RESULT_FIELDS``; the loader checks them in its ``post_load``),
    each member's schema written from the result loader ``schema``'s field."""
    loaded = Loaded(prefix, ANY_CARD, CLAIM_SEAT)
    members = schema().fields
    variants: list[Any] = [{"type": "null"}]
    for kind, names in kinds.items():
        properties: dict[str, Any] = {"kind": {"const": kind, "type": "string"}}
        properties.update((name, loaded.member(members[name])) for name in names if name != "kind")
        variants.append({"type": "object", "required": list(names), "properties": properties})
    return Wire({"description": description, "anyOf": variants}, name=prefix + "Result")


# --- what both games send alike: views' and events' seats, the deal and flip events, the scores ---

CLAIM_SEAT_OR_NULL: Final = Wire(nullable(CLAIM_SEAT), name="ClaimSeatOrNull")
"""A seat or ``null``: a view's ``seat`` (``null`` in the public view) and an event's ``to_move``."""

DEAL_EVENT: Final = Event("deal", {"stock_counts": CLAIM_COUNTS, "to_move": CLAIM_SEAT})
"""The deal: every seat's stock size and the first seat to flip."""


def flip_event(recycled: str) -> Event:
    """A flip: the card turned, whether a recycling came first (``recycled``: the game's sentence),
    and the seat that flips next."""
    return Event(
        "flip",
        {"player": CLAIM_SEAT, "card": ANY_CARD, "recycled": {"description": recycled, "type": "boolean"},
         "to_move": CLAIM_SEAT_OR_NULL},
    )


def claim_scores(prefix: str, description: str) -> Wire:
    """``<prefix>Scores``: ``totals`` and ``cards_held``, the same per-seat counts (§7)."""
    return Wire(obj({"totals": CLAIM_COUNTS, "cards_held": CLAIM_COUNTS}, description=description), name=prefix + "Scores")
