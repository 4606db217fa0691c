"""Snap's wire forms (snap.md §5, §6, §7): options, state, moves, views, events, scores.

Names match openapi.yaml: ``SnapOptions`` ↔ ``OPTIONS``, ``SnapState`` ↔ ``StateSchema``,
``SnapMove`` ↔ ``MOVES``, ``SnapView`` ↔ ``VIEW``, ``SnapEvent`` ↔ ``EVENTS``, ``SnapScores`` ↔
``SCORES``.
"""

from __future__ import annotations

from typing import Any, Final

from marshmallow import ValidationError, fields, post_load, validate

from ..engines import snap as engine
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
from .moves import ANY_CARD, Wire
from .sent import Event, View, events, nullable, obj
from .wrappers import Contract

GAME_ID: Final = engine.GAME_ID
PACK: Final = engine.PACK
OPTIONS: Final = options_schema(engine.Options, engine.OPTION_INFO)
MAX_SEATS: Final = max(engine.PLAYER_COUNTS)


_Seat: Final = ClaimSeat
_Seats: Final = ClaimSeats


class _PenaltyTarget(fields.Field[Any]):
    """A seat, or ``"pool"`` (None in the engine)."""

    def contract(self, loaded: Loaded) -> Any:
        """The seat, or the constant ``pool``."""
        return {"anyOf": [loaded.seat, {"const": "pool", "type": "string"}]}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int | None:
        if value == "pool":
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < MAX_SEATS:
            raise ValidationError("must be a seat or \"pool\"")
        return value


class PenaltySchema(StrictSchema):
    WIRE_DESCRIPTION = "One card to a seat, or one face-up pile to the pool (`to` = `pool`); never names cards."
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


RESULT: Final = result_contract(
    "Snap",
    ResultSchema,
    engine.RESULT_FIELDS,
    "What the latest accepted move did (§6.1, §6.5-§6.7); `null` before the first move.",
)
"""``SnapResult``: one object per ``kind``, as ``ResultSchema``'s ``post_load`` demands."""


def _Seq(**kw: Any) -> StrictInt:
    metadata = {"wire_name": "SnapSeq", "wire_description": "A flip number (the first flip is 1).", "advances": True,
                **kw.pop("metadata", {})}
    return StrictInt(validate=validate.Range(1, 2**31), metadata=metadata, **kw)


def _Piles(description: str) -> fields.List[Any]:
    return fields.List(
        CardList(PACK, 0, 52),
        required=True,
        validate=validate.Length(2, MAX_SEATS),
        metadata={"description": description, "wire_name": "SnapPiles", "wire_description": "One list of cards per seat."},
    )


class StateSchema(state_schema(engine.GAME, OPTIONS, engine.Options, seed=False)):  # type: ignore[misc]
    """``SnapState``: §5 plus ``seq``, ``rules_version``; derived ``cards_held`` ignored."""

    WIRE_DESCRIPTION = (
        "The whole truth of a Snap game (§5), face-down stocks included. On input `game`, `seq`,\n"
        "`rules_version`, `options` and `stall` may be left out, and the derived `cards_held` is ignored.\n"
    )

    players = StrictInt(required=True, validate=validate.Range(2, MAX_SEATS))
    phase = StrictString(
        required=True, validate=validate.OneOf([p.value for p in engine.Phase]), metadata={"wire_name": "SnapPhase"}
    )
    stocks = _Piles("Face-down stocks, top card first.")
    faceups = _Piles("Face-up piles, oldest first (the last card is the visible top).")
    faceup_seq = fields.List(
        _Seq(allow_none=True),
        required=True,
        validate=validate.Length(2, MAX_SEATS),
        metadata={"description": "The flip number of each face-up pile's top card (`null` for an empty pile)."},
    )
    pool = CardList(PACK, 0, 52, required=True, metadata={"description": "The centre Snap pool, oldest first."})
    pool_seq = _Seq(required=True, allow_none=True)
    flip_count = StrictInt(required=True, validate=validate.Range(0, 2**31), metadata={"advances": True})
    last_flipper = _Seat(required=True, allow_none=True)
    to_move = _Seat(
        required=True,
        allow_none=True,
        metadata={"description": "The seat that flips next; `null` when nobody can flip (only calls, or the game is over)."},
    )
    last_flip_at = ClaimAt(
        required=True,
        allow_none=True,
        metadata={"description": "`at` of the latest flip that carried one; calls stamped before it are stale."},
    )
    winners = fields.List(
        _Seat(),
        required=True,
        allow_none=True,
        validate=validate.Length(1, MAX_SEATS),
        metadata={"description": "The winning seats once the game is over (several after a tied end), else `null`."},
    )
    last_result = fields.Nested(ResultSchema, required=True, allow_none=True, metadata={"contract": RESULT})
    stall = StrictInt(
        validate=validate.Range(0, 2**31),
        metadata={"description": "Flips since a card last changed owner (§7 rule 3).", "advances": True},
    )
    cards_held = fields.Raw(
        load_only=True,
        metadata={"description": "Derived (ignored on input); stock plus face-up pile.", "contract": CLAIM_COUNTS},
    )

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

# --- what the game sends: the view (§5), events (§6), scores (§7) ---------------------------------

_STATE: Final = View(Loaded(MOVES.prefix, ANY_CARD, MOVES.seat).state(STATE))
_SEATS: Final = _STATE.part("ClaimSeats")
SEQ_OR_NULL: Final = Wire(nullable(_STATE.part("SnapSeq")), name="SnapSeqOrNull")
"""A flip number or ``null``: the views' ``pool_seq`` and ``faceup_seq`` entries (the state writes it
in place)."""


def _by_name(member: Any, wire: Wire) -> Wire:
    """``wire`` for the state's ``member`` it equals, so the views keep the component's name."""
    if Wire(member).ref() != Wire(wire.schema).ref():  # their schemas as written (a wire is its name)
        raise ValueError(f"{wire.name} is not the state's {member!r}")
    return wire


_FACEUP_SEQ: Final = _STATE.member("faceup_seq")
VIEW: Final = Wire(
    obj(
        {
            **_STATE.members("game"),
            "seat": CLAIM_SEAT_OR_NULL,
            **_STATE.members("seq", "rules_version", "players", "options", "phase"),
            "stock_counts": CLAIM_COUNTS,
            "faceup_tops": {"type": "array", "minItems": 2, "maxItems": MAX_SEATS, "items": nullable(ANY_CARD)},
            "faceup_counts": CLAIM_COUNTS,
            "faceup_seq": {**_FACEUP_SEQ, "items": _by_name(_FACEUP_SEQ["items"], SEQ_OR_NULL)},
            "pool_top": nullable(ANY_CARD),
            "pool_count": {"type": "integer", "minimum": 0, "maximum": 52},
            "pool_seq": _by_name(_STATE.member("pool_seq"), SEQ_OR_NULL),
            **_STATE.members("flip_count", "last_flipper", "to_move", "last_flip_at", "stall", "winners", "last_result",
                             "cards_held"),
        },
        description="What a seat (or the public, `seat` null) sees (§5): the same for everyone: stock counts, the\n"
        "top and size of each face-up pile and of the pool.\n",
    ),
    name="SnapView",
)
EVENTS: Final = events(MOVES.prefix, "Snap", (
    DEAL_EVENT,
    flip_event("The stock was empty, so the face-up pile was turned over first (§6.1 step 1)."),
    Event(
        "snap",
        {"winner": MOVES.seat, "order": _SEATS, "slower": _SEATS, "stale": _SEATS, "taken_from": _SEATS,
         "pool": {"type": "boolean"}, "own_pile": {"type": "boolean"},
         "cards": {"type": "integer", "minimum": 0, "maximum": 52}, "to_move": CLAIM_SEAT_OR_NULL},
        description="`winner` called first; `slower` called too but later (or, at the same `at`, listed after);\n"
        "`stale` calls were stamped before the last flip and ignored; `taken_from` lost their piles.\n",
    ),
    Event(
        "tie_to_pool",
        {"order": _SEATS, "tied": _SEATS, "stale": _SEATS, "moved": _SEATS, "to_move": CLAIM_SEAT_OR_NULL},
        description="`tied` called at the same earliest `at`: nobody wins; `moved` seats' piles went to the pool (§6.6).",
    ),
    Event(
        "false_call",
        {"order": _SEATS, "stale": _SEATS, "penalties": {"type": "array", "items": _STATE.part("SnapPenalty")},
         "to_move": CLAIM_SEAT_OR_NULL},
        description="Calls without a match, in judged order, with every card or pile they cost.",
    ),
    Event(
        "game_over",
        {"winner": _SEATS, "reason": {"type": "string", "enum": ["all_cards", "blocked", "stall"]}},
        description="`reason`: `all_cards` (one seat holds cards), `blocked` (nobody can flip, no match), `stall` (§7\n"
        "rule 3).\n",
    ),
))
SCORES: Final = claim_scores(MOVES.prefix, "`totals` = `cards_held` = stock plus face-up pile (§7).")

CONTRACT: Final = Contract(
    MOVES, ANY_CARD, "Seat", rules_version=False, state=STATE, view=VIEW, events=EVENTS, scores=SCORES,
    options="§3 options. Omitted options take their defaults; an unknown or invalid one (also `dealer` ≥ players) is 422 "
    "`invalid_option`.",
)
"""What openapi.yaml's request and answer schemas for the game are written from (``wrappers``)."""
