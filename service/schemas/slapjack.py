"""Slapjack's wire forms (slapjack.md §5, §6): options, state, moves.

Names match openapi.yaml: ``SlapjackOptions`` ↔ ``OPTIONS``, ``SlapjackState`` ↔ ``StateSchema``,
``SlapjackMove`` ↔ ``MOVES``.
"""

from __future__ import annotations

from typing import Any, Final

from marshmallow import ValidationError, fields, post_load, validate

from ..cards.shuffle import MAX_SEED
from ..engines import slapjack as engine
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




class CenterCardSchema(StrictSchema):
    card = CardField(PACK, required=True)
    player = _Seat(required=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.CenterCard:
        return engine.CenterCard(d["card"], d["player"])


class PenaltySchema(StrictSchema):
    from_ = _Seat(required=True, data_key="from")
    to = _Seat(required=True)
    paid = StrictBool(required=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.Penalty:
        return engine.Penalty(d["from_"], d["to"], d["paid"])


class ResultSchema(StrictSchema):
    """``last_result``: the members of its ``kind`` exactly (§6.1, §6.3, §6.5)."""

    kind = StrictString(required=True, validate=validate.OneOf(list(engine.RESULT_FIELDS)))
    player = _Seat()
    card = CardField(PACK)
    recycled = StrictBool()
    winner = _Seat()
    cards = StrictInt(validate=validate.Range(1, 52))
    order = _Seats()
    stale = _Seats()
    out = _Seats()
    penalties = fields.List(fields.Nested(PenaltySchema), validate=validate.Length(max=MAX_SEATS))

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.Result:
        wanted = engine.RESULT_FIELDS[d["kind"]]
        if set(d) != set(wanted):
            raise ValidationError(f"a {d['kind']} result has exactly the members {', '.join(wanted)}")
        for name in ("order", "stale", "out", "penalties"):
            if name in d:
                d[name] = tuple(d[name])
        return engine.Result(**d)


class StateSchema(state_schema(engine.GAME, OPTIONS, engine.Options, seed=False)):  # type: ignore[misc]
    """``SlapjackState``: §5 plus ``seq``, ``rules_version``; derived ``cards_held`` ignored."""

    players = StrictInt(required=True, validate=validate.Range(2, MAX_SEATS))
    phase = StrictString(required=True, validate=validate.OneOf([p.value for p in engine.Phase]))
    stocks = fields.List(CardList(PACK, 0, 52), required=True, validate=validate.Length(2, MAX_SEATS))
    status = fields.List(
        StrictString(validate=validate.OneOf([s.value for s in engine.Status])),
        required=True,
        validate=validate.Length(2, MAX_SEATS),
    )
    center = fields.List(fields.Nested(CenterCardSchema), required=True, validate=validate.Length(max=52))
    to_move = _Seat(required=True, allow_none=True)
    last_flip_at = StrictInt(required=True, allow_none=True, validate=validate.Range(0, MAX_AT))
    shuffle_seed = StrictInt(required=True, validate=validate.Range(0, MAX_SEED))
    shuffle_count = StrictInt(required=True, validate=validate.Range(0, 2**31))
    winner = _Seat(required=True, allow_none=True)
    last_result = fields.Nested(ResultSchema, required=True, allow_none=True)
    cards_held = fields.Raw(load_only=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.State:
        return engine.State(
            **self.head(d),
            players=d["players"],
            phase=engine.Phase(d["phase"]),
            stocks=tuple(d["stocks"]),
            status=tuple(engine.Status(s) for s in d["status"]),
            center=tuple(d["center"]),
            to_move=d["to_move"],
            last_flip_at=d["last_flip_at"],
            shuffle_seed=d["shuffle_seed"],
            shuffle_count=d["shuffle_count"],
            winner=d["winner"],
            last_result=d["last_result"],
        )


STATE: Final = StateSchema()
"""The state's loader (shape only: the engine's ``check_state`` judges consistency)."""


def dump_state(state: engine.State, derived: bool = True) -> dict[str, Any]:
    """The full state's wire form (§5), with the derived ``cards_held`` unless ``derived`` is off."""
    out = wire_record(GAME_ID, engine.RULES_VERSION, state)
    out["last_result"] = to_wire(engine.result_wire(state.last_result))
    del out["shuffle_key"]  # a sealed match's secret: only ever inside its token
    if derived:
        out.update(engine.derived(state))
    return out


MOVES: Final = claim_moves(
    engine.GAME,
    "A Slapjack move (§6). In `legal_moves` a slap appears without `at` (the client adds it);\n"
    "`slaps` is never listed (it is accepted when the slap of its first claimant, with every\n"
    "claimant allowed to slap, would be).\n",
    flip="§6.1 turn the top stock card onto the centre; `at` optional (never before `last_flip_at`).",
    single="§6.2 one claim; `at` is required when it is sent (listed without it).",
    batch="§6.2 competing claims judged together: earliest `at` first, equal `at` in list order. A\n"
    "top-level `player` is ignored. In sealed mode claims of several seats need the table key.\n",
)

CONTRACT: Final = Contract(
    MOVES, ANY_CARD, "Seat", rules_version=False,
    options="§3 options. Omitted options take their defaults; an unknown or invalid one (also `dealer` ≥ players) is 422 "
    "`invalid_option`.",
)
"""What openapi.yaml's request and answer schemas for the game are written from (``wrappers``)."""
