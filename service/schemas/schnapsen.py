"""Schnapsen's wire forms (schnapsen.md §5, §6): options, state, moves.

Names match openapi.yaml one to one: ``SchnapsenOptions`` ↔ ``OPTIONS``, ``SchnapsenState`` ↔
``StateSchema``, ``SchnapsenMove`` ↔ ``MOVES``.
"""

from __future__ import annotations

from typing import Any, Final

from marshmallow import ValidationError, fields, post_load, validate

from ..engines import schnapsen as engine
from .common import (
    options_schema,
    state_schema,
    wire_record,
)
from .fields import CardField, CardList, IntList, SeatField, StrictInt, StrictSchema, StrictString, SuitField
from .loaded import Loaded
from .moves import ANY_CARD, SUIT, Move, Moves, Wire, card_of, deck_of, next_deal, seat
from .sent import Event, View, described, events, nullable, obj, seat_views
from .wrappers import Contract

GAME_ID: Final = engine.GAME_ID
PACK: Final = engine.PACK
OPTIONS: Final = options_schema(engine.Options, engine.OPTION_INFO)



def _Card(**kw: Any) -> CardField:
    return CardField(PACK, **kw)


def _Seat(**kw: Any) -> StrictInt:
    return SeatField(2, **kw)


def _Int(**kw: Any) -> StrictInt:
    return StrictInt(validate=validate.Range(0, 10_000), **kw)


def _Cards(lo: int, hi: int, **kw: Any) -> CardList:
    return CardList(PACK, lo, hi, **kw)


def _Pair(inner: fields.Field[Any], **kw: Any) -> fields.List[Any]:
    return fields.List(inner, validate=validate.Length(equal=2), required=True, **kw)


def _Trick(**kw: Any) -> CardList:
    return _Cards(2, 2, metadata={"wire_name": "SchnapsenCardPair", "wire_description": "A trick, `[led, followed]`."}, **kw)


PAIR: Final = Wire(
    {"description": "One non-negative integer per seat.", "type": "array", "minItems": 2, "maxItems": 2,
     "items": {"type": "integer", "minimum": 0}},
    name="SchnapsenPair",
)
"""Per-seat counts the state derives (and events and scores carry): not checked on input."""


def _Derived(text: str = "", contract: Any = PAIR) -> fields.Raw:
    return fields.Raw(load_only=True, metadata={"description": "Derived (ignored on input)" + (text or "."), "contract": contract})




class ClosingSchema(StrictSchema):
    WIRE_DESCRIPTION = "The non-closer's tricks won and counted points at the moment of closing."
    opp_tricks = _Int(required=True)
    opp_points = StrictInt(required=True, validate=validate.Range(0, 200))

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.Closing:
        return engine.Closing(d["opp_tricks"], d["opp_points"])


class MeldSchema(StrictSchema):
    WIRE_DESCRIPTION = "A declared marriage."
    suit = SuitField(required=True)
    points = StrictInt(required=True, validate=validate.OneOf((20, 40)), metadata={"description": "20, or 40 in trumps."})

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.Meld:
        return engine.Meld(d["suit"], d["points"])


class RevealSchema(StrictSchema):
    WIRE_DESCRIPTION = "A card of `player`'s hand that the opponent has seen."
    player = _Seat(required=True)
    card = _Card(required=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.Reveal:
        return engine.Reveal(d["player"], d["card"])


class TrickEntrySchema(StrictSchema):
    WIRE_NAME = "SchnapsenTrickCard"
    WIRE_DESCRIPTION = "The led card of the trick in progress."
    player = _Seat(required=True)
    card = _Card(required=True)


class LastTrickSchema(StrictSchema):
    cards = _Trick(required=True)
    leader = _Seat(required=True)
    winner = _Seat(required=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.LastTrick:
        return engine.LastTrick(d["cards"], d["leader"], d["winner"])


class ResultSchema(StrictSchema):
    WIRE_DESCRIPTION = "The outcome of one deal (§7.3)."
    winner = _Seat(required=True)
    game_points = StrictInt(required=True, validate=validate.Range(1, 3))
    reason = StrictString(
        required=True, validate=validate.OneOf([r.value for r in engine.Reason]), metadata={"wire_name": "SchnapsenReason"}
    )
    points = IntList(2, 0, 200, required=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.Result:
        return engine.Result(d["winner"], d["game_points"], engine.Reason(d["reason"]), d["points"])


_DERIVED: Final = ("tricks_won", "card_points", "marriage_points", "points", "talon_size")


class StateSchema(state_schema(engine.GAME, OPTIONS, engine.Options)):  # type: ignore[misc]
    """``SchnapsenState``: §5.1 plus ``seq``, ``rules_version``, ``seed``; derived values ignored."""

    WIRE_DESCRIPTION = (
        'The whole truth of a Schnapsen match (§5.1), hidden parts included. Responses carry every\n'
        'member below; on input `game`, `seq`, `rules_version`, `seed`, `options` and the derived\n'
        'values (`tricks_won`, `card_points`, `marriage_points`, `points`, `talon_size`) may be left\n'
        'out (`seq` then counts from 0, `options` take their defaults), and the derived values are\n'
        'ignored. Any other member is 422 `invalid_state`.\n'
    )

    phase = StrictString(
        required=True, validate=validate.OneOf([p.value for p in engine.Phase]), metadata={"wire_name": "SchnapsenPhase"}
    )
    deal_number = StrictInt(required=True, validate=validate.Range(1, 100_000), metadata={"advances": True})
    dealer = _Seat(required=True)
    game_points = IntList(2, 0, 100_000, required=True)
    hands = _Pair(_Cards(0, 5), metadata={"description": "Each seat's cards, in the order received."})
    talon = _Cards(0, 9, required=True, metadata={"description": "The face-down talon, next card first; without the trump card."})
    trump_card = _Card(
        required=True, allow_none=True, metadata={"description": "The face-up trump card under the talon, `null` once drawn."}
    )
    trump_suit = SuitField(required=True)
    closed_by = _Seat(required=True, allow_none=True)
    closing = fields.Nested(ClosingSchema, required=True, allow_none=True)
    leader = _Seat(required=True)
    to_move = _Seat(
        required=True,
        allow_none=True,
        metadata={"description": "The seat to act; the next dealer in `deal_over`; `null` in `game_over`."},
    )
    trick = fields.List(
        fields.Nested(TrickEntrySchema),
        required=True,
        validate=validate.Length(max=1),
        metadata={"description": "`[]`, or the led card waiting for the follower."},
    )
    marriage_pending = SuitField(
        required=True,
        allow_none=True,
        metadata={"description": "Suit of a marriage declared in this lead turn whose K or Q is not yet led."},
    )
    tricks = _Pair(
        fields.List(_Trick(), validate=validate.Length(max=10)),
        metadata={"description": "Tricks won by each seat, each `[led, followed]`, in order won."},
    )
    marriages = _Pair(
        fields.List(fields.Nested(MeldSchema), validate=validate.Length(max=4)),
        metadata={"description": "Marriages declared by each seat."},
    )
    revealed = fields.List(fields.Nested(RevealSchema), required=True, validate=validate.Length(max=40))
    last_trick = fields.Nested(LastTrickSchema, required=True, allow_none=True)
    result = fields.Nested(
        ResultSchema,
        required=True,
        allow_none=True,
        metadata={
            "description": "The most recent finished deal's result; `null` during the first deal and again once `next_deal`\n"
            "starts a deal.\n"
        },
    )
    results = fields.List(
        fields.Nested(ResultSchema), required=True, validate=validate.Length(max=100_000), metadata={"advances": True}
    )
    tricks_won = _Derived()
    card_points = _Derived()
    marriage_points = _Derived()
    points = _Derived("; counted points (§7.1).")
    talon_size = _Derived(
        "; face-down cards plus the trump card while it lies.", {"type": "integer", "minimum": 0, "maximum": 10}
    )

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.State:
        for name in _DERIVED:
            d.pop(name, None)
        trick = d.pop("trick")
        if trick and trick[0]["player"] != d["leader"]:
            raise ValidationError("the led card belongs to the leader", "trick")
        return engine.State(
            **self.head(d),
            phase=engine.Phase(d.pop("phase")),
            game_points=d.pop("game_points"),
            hands=tuple(d.pop("hands")),
            talon=d.pop("talon"),
            trick=tuple(e["card"] for e in trick),
            tricks=tuple(tuple(seat) for seat in d.pop("tricks")),  # type: ignore[arg-type]  # pairs from CardList(2, 2)
            marriages=(tuple(d["marriages"][0]), tuple(d.pop("marriages")[1])),
            revealed=tuple(d.pop("revealed")),
            results=tuple(d.pop("results")),
            **d,
        )


STATE: Final = StateSchema()
"""The state's loader (shape only: the engine's ``check_state`` judges consistency)."""


def dump_state(state: engine.State, derived: bool = True) -> dict[str, Any]:
    """The full state's wire form (§5.1), with the derived values unless ``derived`` is off."""
    out = wire_record(GAME_ID, engine.RULES_VERSION, state)
    out["trick"] = [{"player": state.leader, "card": str(c)} for c in state.trick]
    if derived:
        out.update(engine.derived(state))
    return out


SEAT: Final = seat("SchnapsenSeat", {"type": "integer", "enum": [0, 1]})
CARD: Final = Wire(
    {"description": "A card of the 20-card pack (J Q K 10 A).", "$ref": ANY_CARD, "pattern": "^(10|[JQKA])[SHDC]$"},
    card_of(PACK),
    "SchnapsenCard",
)
MOVES: Final = Moves(
    engine.GAME,
    description="A Schnapsen move (§6). Every move may carry an integer `at` (a client timestamp),\n"
    "which Schnapsen ignores. In `legal_moves`, `next_deal` appears without `deck`.\n",
    seat=SEAT,
    moves=(
        Move("claim", "§6.2 the leader states that he has 66 counted points (a false claim is legal and penalised)."),
        Move("exchange", "§6.3 the leader gives the trump Jack for the trump card."),
        Move("close", "§6.4 the leader closes the talon."),
        Move("marriage", "§6.5 the leader declares K and Q of `suit`; he must then lead one of them.", {"suit": SUIT}),
        Move("play", "§6.6 lead or follow with `card`.", {"card": CARD}, examples=[{"type": "play", "player": 1, "card": "10S"}]),
        next_deal(
            "§6.7 the next dealer starts the next deal, from `deck` (top card first) or a shuffle.",
            CARD,
            "All 20 cards, top card first (`invalid_deck` otherwise).",
            deck_of(PACK),
            (20, 20),
        ),
    ),
)

# --- what the game sends: views (§5.3), events (§5.4), scores (§7) -------------------------------

_CARDS: Final = {"type": "array", "items": CARD}
_STATE: Final = View(Loaded(MOVES.prefix, CARD, SEAT).state(STATE))
_SHOWN: Final = "Only with `show_points`."
_VIEW_HEAD: Final = {
    **_STATE.members("game", "seq", "rules_version", "options", "phase", "deal_number", "dealer", "game_points"),
    "talon_count": {"description": "Face-down talon cards.", "type": "integer", "minimum": 0, "maximum": 9},
    **_STATE.members("talon_size", "trump_card", "trump_suit", "closed_by", "closing", "leader", "to_move", "trick",
                     "marriage_pending", "marriages"),
    "tricks_won": PAIR,
    **_STATE.members("last_trick", "result", "results"),
    "tricks": _STATE.member("tricks", _SHOWN),
    "card_points": described(_SHOWN, PAIR),
    "points": described("Only with `show_points`; counted points (§7.1).", PAIR),
}
_SHOWN_ONLY: Final = ("tricks", "card_points", "points")
VIEW: Final = seat_views(
    MOVES,
    "Schnapsen",
    _VIEW_HEAD,
    seat=SEAT,
    own={
        "hand": _CARDS,
        "opponent_hand_count": {"type": "integer", "minimum": 0, "maximum": 5},
        "known_opponent_cards": described("Revealed cards still in the opponent's hand, in `revealed` order.", _CARDS),
    },
    public={
        "hand_counts": PAIR,
        "known_cards": {"description": "Per seat, the revealed cards still in that seat's hand.", "type": "array",
                        "minItems": 2, "maxItems": 2, "items": _CARDS},
    },
    optional=_SHOWN_ONLY,
    description="What one seat may see (§5.3), or the public view (`seat` null: no hand at all, sealed\n"
    "mode without `as`). `tricks`, `card_points` and `points` appear only with the option\n"
    "`show_points`; `legal_moves` only in the view of the seat to move.\n",
)
EVENTS: Final = events(MOVES.prefix, "Schnapsen", (
    Event("deal_started", {"dealer": SEAT, "deal_number": {"type": "integer", "minimum": 1}, "trump_card": CARD}),
    Event(
        "claim",
        {"player": SEAT, "points": {"description": "The claimer's counted points.", "type": "integer", "minimum": 0},
         "correct": {"type": "boolean"}, "auto": {"type": "boolean"}},
        optional=("auto",),
        description="A claim judged; `auto` is present (true) when the `auto_claim` option made it.",
    ),
    Event("exchange", {"player": SEAT, "card": described("The old trump card, now in the player's hand.", CARD),
                       "jack": described("The trump Jack, now the trump card.", CARD)}),
    Event("close", {"player": SEAT}),
    Event("marriage", {"player": SEAT, "suit": SUIT, "points": {"type": "integer", "enum": [20, 40]}}),
    Event("card_played", {"player": SEAT, "card": CARD}),
    Event("trick_won", {"player": SEAT, "cards": _STATE.part("SchnapsenCardPair"),
                        "points": {"description": "Card points of the trick.", "type": "integer", "minimum": 0}}),
    Event(
        "card_drawn",
        {"player": SEAT, "card": nullable(CARD), "trump_card": {"type": "boolean", "description": "Always `true` when present."}},
        optional=("trump_card",),
        description="A card drawn after a trick. `card` is `null` for viewers who may not see it; the trump\n"
        "card (`trump_card: true`) is seen by both seats.\n",
    ),
    Event("deal_over", {"winner": SEAT, "game_points": {"type": "integer", "minimum": 1, "maximum": 3},
                        "reason": _STATE.part("SchnapsenReason"), "points": PAIR}),
    Event("game_over", {"winner": {"type": "array", "items": SEAT}}),
))
SCORES: Final = Wire(
    obj(
        {"totals": PAIR, "tricks_won": PAIR, "card_points": PAIR, "marriage_points": PAIR, "points": PAIR},
        optional=("card_points", "marriage_points", "points"),
        description="`totals` = game points; this deal's tricks won; with the option `show_points` also\n"
        "card points, marriage points and counted points.\n",
    ),
    name="SchnapsenScores",
)

CONTRACT: Final = Contract(
    MOVES, CARD, "SchnapsenSeat", state=STATE, view=VIEW, events=EVENTS, scores=SCORES
)
"""What openapi.yaml's request and answer schemas for the game are written from (``wrappers``)."""
