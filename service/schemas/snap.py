"""Snap's wire forms (snap.md §5, §6): options, state, moves.

Names match openapi.yaml: ``SnapOptions`` ↔ ``OPTIONS``, ``SnapState`` ↔ ``StateSchema``,
``SnapMove`` ↔ ``MOVES``.
"""

from __future__ import annotations

from typing import Any, Final

from marshmallow import ValidationError, fields, post_load, validate

from ..engines import snap as engine
from ..engines.claims import MAX_AT
from .claims import claim_moves
from .common import (
    options_schema,
    state_schema,
    to_wire,
    wire_record,
)
from .fields import CardField, CardList, StrictBool, StrictInt, StrictSchema, StrictString
from .moves import ANY_CARD
from .wrappers import Contract

GAME_ID: Final = engine.GAME_ID
PACK: Final = engine.PACK
OPTIONS: Final = options_schema(engine.Options, engine.OPTION_INFO)
MAX_SEATS: Final = max(engine.PLAYER_COUNTS)


def _Seat(**kw: Any) -> StrictInt:
    return StrictInt(validate=validate.Range(0, MAX_SEATS - 1), **kw)


def _Seats(**kw: Any) -> fields.List[Any]:
    return fields.List(_Seat(), validate=validate.Length(max=MAX_SEATS), **kw)




class _PenaltyTarget(fields.Field[Any]):
    """A seat, or ``"pool"`` (None in the engine)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int | None:
        if value == "pool":
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < MAX_SEATS:
            raise ValidationError("must be a seat or \"pool\"")
        return value


class PenaltySchema(StrictSchema):
    from_ = _Seat(required=True, data_key="from")
    to = _PenaltyTarget(required=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.Penalty:
        return engine.Penalty(d["from_"], d["to"])


class ResultSchema(StrictSchema):
    """``last_result``: the members of its ``kind`` exactly (§6.1, §6.5-§6.7)."""

    kind = StrictString(required=True, validate=validate.OneOf(list(engine.RESULT_FIELDS)))
    player = _Seat()
    card = CardField(PACK)
    recycled = StrictBool()
    winner = _Seat()
    order = _Seats()
    stale = _Seats()
    taken_from = _Seats()
    pool = StrictBool()
    own_pile = StrictBool()
    cards = StrictInt(validate=validate.Range(0, 52))
    moved = _Seats()
    penalties = fields.List(fields.Nested(PenaltySchema), validate=validate.Length(max=MAX_SEATS * MAX_SEATS))

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.Result:
        wanted = engine.RESULT_FIELDS[d["kind"]]
        if set(d) != set(wanted):
            raise ValidationError(f"a {d['kind']} result has exactly the members {', '.join(wanted)}")
        for name in ("order", "stale", "taken_from", "moved", "penalties"):
            if name in d:
                d[name] = tuple(d[name])
        return engine.Result(**d)


def _Seq(**kw: Any) -> StrictInt:
    return StrictInt(validate=validate.Range(1, 2**31), **kw)


class StateSchema(state_schema(engine.GAME, OPTIONS, engine.Options, seed=False)):  # type: ignore[misc]
    """``SnapState``: §5 plus ``seq``, ``rules_version``; derived ``cards_held`` ignored."""

    players = StrictInt(required=True, validate=validate.Range(2, MAX_SEATS))
    phase = StrictString(required=True, validate=validate.OneOf([p.value for p in engine.Phase]))
    stocks = fields.List(CardList(PACK, 0, 52), required=True, validate=validate.Length(2, MAX_SEATS))
    faceups = fields.List(CardList(PACK, 0, 52), required=True, validate=validate.Length(2, MAX_SEATS))
    faceup_seq = fields.List(_Seq(allow_none=True), required=True, validate=validate.Length(2, MAX_SEATS))
    pool = CardList(PACK, 0, 52, required=True)
    pool_seq = _Seq(required=True, allow_none=True)
    flip_count = StrictInt(required=True, validate=validate.Range(0, 2**31))
    last_flipper = _Seat(required=True, allow_none=True)
    to_move = _Seat(required=True, allow_none=True)
    last_flip_at = StrictInt(required=True, allow_none=True, validate=validate.Range(0, MAX_AT))
    winners = fields.List(_Seat(), required=True, allow_none=True, validate=validate.Length(1, MAX_SEATS))
    last_result = fields.Nested(ResultSchema, required=True, allow_none=True)
    stall = StrictInt(validate=validate.Range(0, 2**31))
    cards_held = fields.Raw(load_only=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.State:
        return engine.State(
            **self.head(d),
            players=d["players"],
            phase=engine.Phase(d["phase"]),
            stocks=tuple(d["stocks"]),
            faceups=tuple(d["faceups"]),
            faceup_seq=tuple(d["faceup_seq"]),
            pool=d["pool"],
            pool_seq=d["pool_seq"],
            flip_count=d["flip_count"],
            last_flipper=d["last_flipper"],
            to_move=d["to_move"],
            last_flip_at=d["last_flip_at"],
            winners=None if d["winners"] is None else tuple(d["winners"]),
            last_result=d["last_result"],
            stall=d.get("stall", 0),
        )


STATE: Final = StateSchema()
"""The state's loader (shape only: the engine's ``check_state`` judges consistency)."""


def dump_state(state: engine.State, derived: bool = True) -> dict[str, Any]:
    """The full state's wire form (§5), with the derived ``cards_held`` unless ``derived`` is off."""
    out = wire_record(GAME_ID, engine.RULES_VERSION, state)
    out["last_result"] = to_wire(engine.result_wire(state.last_result))
    if derived:
        out.update(engine.derived(state))
    return out


MOVES: Final = claim_moves(
    engine.GAME,
    "A Snap move (§6). In `legal_moves` a call appears without `at` (the client adds it); `snaps`\n"
    "is never listed (it is accepted when the call of its first claimant, with every claimant\n"
    "holding cards, would be).\n",
    flip="§6.1 turn the top stock card onto one's face-up pile (recycling first if needed); `at` optional.",
    single="§6.3 one call; `at` is required when it is sent (listed without it).",
    batch="§6.3 competing calls judged together: earliest `at` first, equal `at` in list order (or a\n"
    "pool under `tie_rule: pool`). A top-level `player` is ignored. In sealed mode calls of several\n"
    "seats need the table key.\n",
)

CONTRACT: Final = Contract(
    MOVES, ANY_CARD, "Seat", rules_version=False,
    options="§3 options. Omitted options take their defaults; an unknown or invalid one (also `dealer` ≥ players) is 422 "
    "`invalid_option`.",
)
"""What openapi.yaml's request and answer schemas for the game are written from (``wrappers``)."""
