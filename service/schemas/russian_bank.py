"""Russian Bank's wire forms (russian_bank.md §5, §6): options, state, moves.

Names match openapi.yaml one to one: ``RussianBankOptions`` ↔ ``OPTIONS``, ``RussianBankState`` ↔
``StateSchema``, ``RussianBankMove`` ↔ ``MOVES``. Cards carry their deck tag (``QS/a``).
A state is checked for shape here; ``engine.check_state`` judges its consistency (positions may
hold fewer than the 104 cards, §5.1).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from marshmallow import RAISE, ValidationError, fields, post_load, pre_load, validate

from ..engines import russian_bank as engine
from ..engines.base import BadSetup
from .common import (
    CardField,
    CardList,
    MoveParser,
    SeatField,
    StrictBool,
    StrictInt,
    StrictString,
    _Bad,
    card_of,
    load_options,
    load_state_with,
    options_schema,
    wire_record,
)
from .fastload import FastSchema

GAME_ID: Final = engine.GAME_ID
PACK: Final = engine.PACK
_PLAIN_OPTIONS: Final = options_schema(engine.Options, engine.OPTION_INFO)


class _OptionsSchema(type(_PLAIN_OPTIONS)):  # type: ignore[misc]
    """§3: the generic option ``dealer`` does not apply and is ignored (a seat number is accepted
    and dropped; anything else is still ``invalid_option``)."""

    @pre_load
    def _ignore_dealer(self, data: Any, **kwargs: Any) -> Any:
        if isinstance(data, Mapping) and "dealer" in data:
            dealer = data["dealer"]
            if type(dealer) is not int or dealer not in (0, 1):
                raise ValidationError({"dealer": ["must be a seat 0 or 1 (it is ignored)"]})
            data = {k: v for k, v in data.items() if k != "dealer"}
        return data


OPTIONS: Final = _OptionsSchema(unknown=RAISE)


class _Strict(FastSchema):
    class Meta:
        unknown = RAISE


class OptionsField(fields.Field[Any]):
    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> engine.Options:
        if not isinstance(value, Mapping):
            raise ValidationError("options must be an object")
        try:
            return load_options(OPTIONS, engine.Options, value)  # type: ignore[no-any-return]
        except BadSetup as exc:
            raise ValidationError(exc.detail) from None


def _Cards(**kw: Any) -> CardList:
    return CardList(PACK, 0, len(PACK), **kw)


def _Piles(**kw: Any) -> fields.List[Any]:
    return fields.List(_Cards(), validate=validate.Length(equal=engine.PILES), required=True, **kw)


class SeatPilesSchema(_Strict):
    stock = _Cards(required=True)
    hand = _Cards(required=True)
    hand_card = CardField(PACK, required=True, allow_none=True)
    waste = _Cards(required=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.PlayerPiles:
        return engine.PlayerPiles(d["stock"], d["hand"], d["hand_card"], d["waste"])


class ResultSchema(_Strict):
    winner = SeatField(2, required=True, allow_none=True)
    reason = StrictString(required=True, validate=validate.OneOf([r.value for r in engine.Reason]))
    points = StrictInt(required=True, validate=validate.Range(0, 1000))

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.Result:
        return engine.Result(d["winner"], engine.Reason(d["reason"]), d["points"])


class StateSchema(_Strict):
    """``RussianBankState``: §5.1 plus ``seq`` and ``rules_version``."""

    game = StrictString(validate=validate.Equal(GAME_ID))
    rules_version = StrictString(validate=validate.Equal(engine.RULES_VERSION))
    seq = StrictInt(validate=validate.Range(0, 2**31))
    options = OptionsField()
    phase = StrictString(required=True, validate=validate.OneOf([p.value for p in engine.Phase]))
    first_player = SeatField(2, required=True)
    to_move = SeatField(2, required=True, allow_none=True)
    turn_number = StrictInt(required=True, validate=validate.Range(1, 2**31))
    idle_turns = StrictInt(required=True, validate=validate.Range(0, engine.IDLE_LIMIT))
    acted_this_turn = StrictBool(required=True)
    players = fields.List(fields.Nested(SeatPilesSchema), required=True, validate=validate.Length(equal=2))
    tableau = _Piles()
    foundations = _Piles()
    result = fields.Nested(ResultSchema, required=True, allow_none=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.State:
        d.pop("game", None)
        d.pop("rules_version", None)
        return engine.State(
            options=d.pop("options", engine.Options()),
            phase=engine.Phase(d.pop("phase")),
            players=tuple(d.pop("players")),  # two seats (Length(equal=2))
            tableau=tuple(d.pop("tableau")),
            foundations=tuple(d.pop("foundations")),
            seq=d.pop("seq", 0),
            **d,
        )


_STATE_SCHEMA: Final = StateSchema()


def load_state(data: Any) -> engine.State:
    """A State from its wire form; raises InvalidState with field paths (shape only)."""
    return load_state_with(_STATE_SCHEMA, data)  # type: ignore[no-any-return]


def dump_state(state: engine.State, derived: bool = True) -> dict[str, Any]:
    """The full state's wire form (§5.1); Russian Bank has no derived values."""
    out = wire_record(GAME_ID, engine.RULES_VERSION, state)
    return out


def _place(value: Any) -> str:
    """``from``/``to``: any string here; which strings name a pile is a rule (invalid_source/target)."""
    if not isinstance(value, str):
        raise _Bad("invalid_move", "from and to must be strings such as \"stock\" or \"tableau:3\"")
    return value


MOVES: Final = MoveParser(
    {
        "move": (engine.MoveCard, {"card": (card_of(PACK), True), "from": (_place, True), "to": (_place, True)}),
        "flip": (engine.Flip, {}),
        "discard": (engine.Discard, {}),
        "pass": (engine.Pass, {}),
    },
    # §8 order of the parse-level codes (all before not_your_turn, which the engine checks)
    order=("unknown_move_type", "invalid_move", "invalid_player", "invalid_card"),
)
