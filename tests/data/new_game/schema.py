"""War's wire forms (the throwaway game of tests/test_new_game.py; copied to ``service/schemas/war.py``)."""

from __future__ import annotations

from typing import Any, Final

from marshmallow import fields, post_load, validate

from ..engines import war as engine
from .common import options_schema, state_schema, wire_record
from .fields import CardField, CardList, SeatField, StrictInt, StrictString
from .loaded import Loaded
from .moves import ANY_CARD, Move, Moves, Wire, card_of, seat
from .sent import Event, View, events, nullable, obj
from .wrappers import Contract

GAME_ID: Final = engine.GAME_ID
PACK: Final = engine.PACK
OPTIONS: Final = options_schema(engine.Options, engine.OPTION_INFO)


class StateSchema(state_schema(engine.GAME, OPTIONS, engine.Options, seed=False)):  # type: ignore[misc]
    WIRE_DESCRIPTION = "The whole truth of a War game: both stocks, top card first.\n"

    stocks = fields.List(CardList(PACK, 0, 26), required=True, validate=validate.Length(equal=2))
    won = fields.List(StrictInt(validate=validate.Range(0, 52)), required=True, validate=validate.Length(equal=2))
    flipped = CardField(PACK, required=True, allow_none=True)
    to_move = SeatField(2, required=True)
    phase = StrictString(required=True, validate=validate.OneOf([p.value for p in engine.Phase]),
                         metadata={"wire_name": "WarPhase"})

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.State:
        return engine.State(**self.head(d), stocks=tuple(d["stocks"]), won=tuple(d["won"]), flipped=d["flipped"],
                            to_move=d["to_move"], phase=engine.Phase(d["phase"]))


STATE: Final = StateSchema()


def dump_state(state: engine.State, derived: bool = True) -> dict[str, Any]:
    return wire_record(GAME_ID, engine.RULES_VERSION, state)


SEAT: Final = seat("WarSeat", {"type": "integer", "enum": [0, 1]})
CARD: Final = Wire({"description": "A card of the 52-card pack.", "$ref": ANY_CARD}, card_of(PACK), "WarCard")
MOVES: Final = Moves(engine.GAME, description="A War move.\n", seat=SEAT,
                     moves=(Move("flip", "§6 turn the top card of one's stock."),))

_STATE: Final = View(Loaded(MOVES.prefix, CARD, SEAT).state(STATE))
_COUNTS: Final = {"type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "integer", "minimum": 0, "maximum": 52}}
VIEW: Final = Wire(
    obj({"game": _STATE.member("game"), "seat": nullable(SEAT), **_STATE.members("seq", "rules_version"),
         "stock_counts": _COUNTS, **_STATE.members("won", "flipped", "to_move", "phase")},
        description="What everyone sees of a War game.\n"),
    name="WarView",
)
EVENTS: Final = events(MOVES.prefix, "War", (
    Event("deal_started"),
    Event("card_flipped", {"player": SEAT, "card": CARD}),
    Event("pair_taken", {"winner": nullable(SEAT)}),
    Event("game_over", {"winner": {"type": "array", "items": SEAT}}),
))
SCORES: Final = Wire(obj({"totals": _COUNTS}, description="Cards won.\n"), name="WarScores")
CONTRACT: Final = Contract(MOVES, CARD, "WarSeat", state=STATE, view=VIEW, events=EVENTS, scores=SCORES)
