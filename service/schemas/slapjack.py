"""Slapjack's wire forms (slapjack.md §5, §6, §7): options, state, moves, views, events, scores.

Names match openapi.yaml: ``SlapjackOptions`` ↔ ``OPTIONS``, ``SlapjackState`` ↔ ``StateSchema``,
``SlapjackMove`` ↔ ``MOVES``, ``SlapjackView`` ↔ ``VIEW``, ``SlapjackEvent`` ↔ ``EVENTS``,
``SlapjackScores`` ↔ ``SCORES``.
"""

from __future__ import annotations

from typing import Any, Final

from marshmallow import ValidationError, fields, post_load, validate

from ..cards.shuffle import MAX_SEED
from ..engines import slapjack as engine
from .claims import (
    CLAIM_COUNTS,
    CLAIM_SEAT_OR_NULL,
    DEAL_EVENT,
    ClaimAt,
    ClaimSeat,
    ClaimSeats,
    claim_moves,
    claim_scores,
    flip_event,
    result_contract,
)
from .common import (
    options_schema,
    state_schema,
    to_wire,
    wire_record,
)
from .fields import CardField, CardList, StrictBool, StrictInt, StrictSchema, StrictString
from .loaded import Loaded
from .moves import ANY_CARD, CLAIM_SEAT, Wire
from .sent import Event, View, events, nullable, obj
from .wrappers import Contract

GAME_ID: Final = engine.GAME_ID
PACK: Final = engine.PACK
OPTIONS: Final = options_schema(engine.Options, engine.OPTION_INFO)
MAX_SEATS: Final = max(engine.PLAYER_COUNTS)


_Seat: Final = ClaimSeat
_Seats: Final = ClaimSeats


class CenterCardSchema(StrictSchema):
    card = CardField(PACK, required=True)
    player = _Seat(required=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.CenterCard:
        return engine.CenterCard(d["card"], d["player"])


class PenaltySchema(StrictSchema):
    WIRE_DESCRIPTION = "One false slap; never names the card given."
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


RESULT: Final = result_contract(
    "Slapjack",
    ResultSchema,
    engine.RESULT_FIELDS,
    "What the latest accepted move did (§6.1, §6.3, §6.5); `null` before the first move.",
)
"""``SlapjackResult``: one object per ``kind``, as ``ResultSchema``'s ``post_load`` demands."""


class StateSchema(state_schema(engine.GAME, OPTIONS, engine.Options, seed=False)):  # type: ignore[misc]
    """``SlapjackState``: §5 plus ``seq``, ``rules_version``; derived ``cards_held`` ignored."""

    WIRE_DESCRIPTION = (
        "The whole truth of a Slapjack game (§5), face-down stocks included. On input `game`, `seq`,\n"
        "`rules_version` and `options` may be left out, and the derived `cards_held` is ignored.\n"
    )

    players = StrictInt(required=True, validate=validate.Range(2, MAX_SEATS))
    phase = StrictString(
        required=True, validate=validate.OneOf([p.value for p in engine.Phase]), metadata={"wire_name": "SlapjackPhase"}
    )
    stocks = fields.List(
        CardList(PACK, 0, 52),
        required=True,
        validate=validate.Length(2, MAX_SEATS),
        metadata={"description": "Each seat's face-down stock, top card first."},
    )
    status = fields.List(
        StrictString(
            validate=validate.OneOf([s.value for s in engine.Status]),
            metadata={
                "wire_name": "SlapjackStatus",
                "wire_description": "`active`: has stock cards; `waiting`: empty stock, in until the next capture; "
                "`out`: eliminated.",
            },
        ),
        required=True,
        validate=validate.Length(2, MAX_SEATS),
    )
    center = fields.List(
        fields.Nested(CenterCardSchema),
        required=True,
        validate=validate.Length(max=52),
        metadata={"description": "The centre pile, oldest first (the last element is the top card)."},
    )
    to_move = _Seat(
        required=True,
        allow_none=True,
        metadata={"description": "The seat that flips next; `null` when only slaps can follow, or once the game is over."},
    )
    last_flip_at = ClaimAt(
        required=True,
        allow_none=True,
        metadata={"description": "`at` of the latest flip that carried one; claims stamped before it are stale."},
    )
    shuffle_seed = StrictInt(
        required=True,
        validate=validate.Range(0, MAX_SEED),
        metadata={
            "description": "Seed of the in-game shuffle (§6.6); from the `new` request's `seed`, else drawn from the shuffled\n"
            "deck.\n",
            "contract": {"$ref": "#/components/schemas/Seed"},
        },
    )
    shuffle_count = StrictInt(required=True, validate=validate.Range(0, 2**31), metadata={"advances": True})
    winner = _Seat(required=True, allow_none=True)
    last_result = fields.Nested(ResultSchema, required=True, allow_none=True, metadata={"contract": RESULT})
    cards_held = fields.Raw(
        load_only=True, metadata={"description": "Derived (ignored on input); stock sizes.", "contract": CLAIM_COUNTS}
    )

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

# --- what the game sends: the view (§5), events (§6), scores (§7) ---------------------------------

_STATE: Final = View(Loaded(MOVES.prefix, ANY_CARD, MOVES.seat).state(STATE))
_SEATS: Final = _STATE.part("ClaimSeats")
VIEW: Final = Wire(
    obj(
        {
            **_STATE.members("game"),
            "seat": CLAIM_SEAT_OR_NULL,
            **_STATE.members("seq", "rules_version", "players", "options", "phase"),
            "stock_counts": CLAIM_COUNTS,
            **_STATE.members("status"),
            "center_top": nullable(_STATE.part("SlapjackCenterCard")),
            "center_count": {"type": "integer", "minimum": 0, "maximum": 52},
            **_STATE.members("to_move", "last_flip_at", "shuffle_count", "winner", "last_result", "cards_held"),
        },
        description="What a seat (or the public, `seat` null) sees (§5): the same for everyone, since nobody sees a\n"
        "face-down card: stock counts, the top centre card and the centre's size, never `shuffle_seed`.\n",
    ),
    name="SlapjackView",
)
EVENTS: Final = events(MOVES.prefix, "Slapjack", (
    DEAL_EVENT,
    flip_event("Nobody had a stock card left, so the centre became this player's stock (§6.1 step 4)."),
    Event(
        "capture",
        {"winner": CLAIM_SEAT, "cards": {"type": "integer", "minimum": 1, "maximum": 52}, "order": _SEATS,
         "slower": _SEATS, "stale": _SEATS, "out": _SEATS, "shuffled": {"type": "boolean"},
         "to_move": CLAIM_SEAT_OR_NULL},
        description="`winner` was first on the jack; `slower` claimed it too but later (or, at the same `at`,\n"
        "listed after); `stale` claims were stamped before the last flip and ignored; `out` are the\n"
        "waiting seats this capture eliminated.\n",
    ),
    Event(
        "false_slap",
        {"order": _SEATS, "stale": _SEATS, "penalties": {"type": "array", "items": _STATE.part("SlapjackPenalty")},
         "to_move": CLAIM_SEAT_OR_NULL},
        description="Slaps on a card that is not a jack, in judged order, with what each cost.",
    ),
    Event("game_over", {"winner": _SEATS}),
))
SCORES: Final = claim_scores(MOVES.prefix, "`totals` = `cards_held` = stock sizes (§7).")

CONTRACT: Final = Contract(
    MOVES, ANY_CARD, "Seat", rules_version=False, state=STATE, view=VIEW, events=EVENTS, scores=SCORES,
    options="§3 options. Omitted options take their defaults; an unknown or invalid one (also `dealer` ≥ players) is 422 "
    "`invalid_option`.",
)
"""What openapi.yaml's request and answer schemas for the game are written from (``wrappers``)."""
