"""California Jack's wire forms (california_jack.md §3, §5, §6): options, state, moves.

Names match openapi.yaml one to one: ``CaliforniaJackOptions`` ↔ ``OPTIONS``,
``CaliforniaJackState`` ↔ ``StateSchema``, ``CaliforniaJackMove`` ↔ ``MOVES``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from marshmallow import RAISE, Schema, ValidationError, fields, post_load, validate, validates_schema

from ..engines import california_jack as engine
from ..engines.base import BadSetup, InvalidState
from ..engines.moves import NextDeal
from .common import (
    CardField,
    CardList,
    IntList,
    MoveParser,
    SeatField,
    StrictBool,
    StrictInt,
    StrictString,
    SuitField,
    card_of,
    deck_of,
    flatten_errors,
    load_options,
    options_schema,
    to_wire,
)

GAME_ID: Final = engine.GAME_ID
PACK: Final = engine.PACK
MAX_SCORE: Final = 100_000


# --- options (§3): the simple ones from the shared builder, plus the start_scores pair ----------

_SIMPLE_OPTIONS: Final = {k: v for k, v in engine.OPTION_INFO.items() if v["type"] != "array"}
_SimpleOptionsSchema: Final = type(options_schema(engine.Options, _SIMPLE_OPTIONS))


class _OptionsSchema(_SimpleOptionsSchema):  # type: ignore[valid-type,misc]
    start_scores = IntList(2, 0, engine.MAX_TARGET, load_default=engine.Options().start_scores)

    @validates_schema
    def _below_target(self, data: Mapping[str, Any], **kwargs: Any) -> None:
        target = data.get("target", engine.Options().target)
        if any(x >= target for x in data.get("start_scores", ())):
            raise ValidationError(f"each start score must be below the target {target}", "start_scores")


OPTIONS: Final = _OptionsSchema(unknown=RAISE)


def _Card(**kw: Any) -> CardField:
    return CardField(PACK, **kw)


def _Seat(**kw: Any) -> StrictInt:
    return SeatField(2, **kw)


def _Cards(lo: int, hi: int, **kw: Any) -> CardList:
    return CardList(PACK, lo, hi, **kw)


def _Pair(inner: fields.Field[Any], **kw: Any) -> fields.List[Any]:
    return fields.List(inner, validate=validate.Length(equal=2), **kw)


class _Strict(Schema):
    class Meta:
        unknown = RAISE


class OptionsField(fields.Field[Any]):
    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> engine.Options:
        if not isinstance(value, Mapping):
            raise ValidationError("options must be an object")
        try:
            return load_options(OPTIONS, engine.Options, value)  # type: ignore[no-any-return]
        except BadSetup as exc:  # reported as a state problem at options.<name>
            raise ValidationError(exc.detail) from None


class PlayedCardSchema(_Strict):
    player = _Seat(required=True)
    card = _Card(required=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.PlayedCard:
        return engine.PlayedCard(d["player"], d["card"])


class TrickSchema(_Strict):
    leader = _Seat(required=True)
    cards = fields.List(fields.Nested(PlayedCardSchema), required=True, validate=validate.Length(equal=2))
    winner = _Seat(required=True)
    trump = SuitField(required=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.Trick:
        return engine.Trick(d["leader"], tuple(d["cards"]), d["winner"], d["trump"])


class DrawSchema(_Strict):
    trick = StrictInt(required=True, validate=validate.Range(1, engine.DRAWING_TRICKS))
    player = _Seat(required=True)
    card = _Card(required=True)
    public = StrictBool(required=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.Draw:
        return engine.Draw(d["trick"], d["player"], d["card"], d["public"])


class AwardSchema(_Strict):
    point = StrictString(required=True, validate=validate.OneOf(("high", "low", "jack", "game")))
    card = _Card(required=True, allow_none=True)
    seat = _Seat(required=True, allow_none=True)
    credited = StrictBool(required=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.Award:
        return engine.Award(d["point"], d["card"], d["seat"], d["credited"])


class LastHandSchema(_Strict):
    deal_number = StrictInt(required=True, validate=validate.Range(1, MAX_SCORE))
    trump = SuitField(required=True)
    awards = fields.List(fields.Nested(AwardSchema), required=True, validate=validate.Length(3, 4))
    game_totals = IntList(2, 0, 80, required=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.LastHand:
        return engine.LastHand(d["deal_number"], d["trump"], tuple(d["awards"]), d["game_totals"])


_DERIVED: Final = ("stock_count", "stock_top", "known_cards", "game_totals")


class StateSchema(_Strict):
    """``CaliforniaJackState``: §5 plus ``seq``, ``rules_version``, ``seed``; derived values ignored."""

    game = StrictString(validate=validate.Equal(GAME_ID))
    rules_version = StrictString(validate=validate.Equal(engine.RULES_VERSION))
    seq = StrictInt(validate=validate.Range(0, 2**31))
    seed = StrictInt(allow_none=True, validate=validate.Range(0, 2**63 - 1))
    options = OptionsField()
    phase = StrictString(required=True, validate=validate.OneOf([p.value for p in engine.Phase]))
    deal_number = StrictInt(required=True, validate=validate.Range(1, MAX_SCORE))
    dealer = _Seat(required=True)
    to_move = fields.List(_Seat(), required=True, validate=validate.Length(max=1))
    scores = IntList(2, 0, MAX_SCORE, required=True)
    hands = _Pair(_Cards(0, engine.HAND_SIZE), required=True)
    stock = _Cards(0, engine.STOCK_SIZE, required=True)
    trump = SuitField(required=True)
    trick = fields.List(fields.Nested(PlayedCardSchema), required=True, validate=validate.Length(max=1))
    trick_leader = _Seat(required=True)
    tricks = fields.List(fields.Nested(TrickSchema), required=True, validate=validate.Length(max=engine.TRICKS_PER_HAND))
    draws = fields.List(fields.Nested(DrawSchema), required=True, validate=validate.Length(max=engine.STOCK_SIZE))
    last_hand = fields.Nested(LastHandSchema, required=True, allow_none=True)
    winner = _Seat(required=True, allow_none=True)
    stock_count = fields.Raw(load_only=True, allow_none=True)
    stock_top = fields.Raw(load_only=True, allow_none=True)
    known_cards = fields.Raw(load_only=True, allow_none=True)
    game_totals = fields.Raw(load_only=True, allow_none=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.State:
        for name in (*_DERIVED, "game", "rules_version"):
            d.pop(name, None)
        return engine.State(
            options=d.pop("options", engine.Options()),
            phase=engine.Phase(d.pop("phase")),
            to_move=tuple(d.pop("to_move")),
            hands=tuple(d.pop("hands")),  # a pair (Length(equal=2))
            trick=tuple(d.pop("trick")),
            tricks=tuple(d.pop("tricks")),
            draws=tuple(d.pop("draws")),
            seq=d.pop("seq", 0),
            seed=d.pop("seed", None),
            **d,
        )


_STATE_SCHEMA: Final = StateSchema()


def load_state(data: Any) -> engine.State:
    """A State from its wire form; raises InvalidState with field paths (shape only)."""
    if not isinstance(data, Mapping):
        raise InvalidState({"state": ["must be an object"]})
    try:
        return _STATE_SCHEMA.load(data)  # type: ignore[no-any-return]
    except ValidationError as err:
        raise InvalidState(flatten_errors(err.messages)) from None


def dump_state(state: engine.State, derived: bool = True) -> dict[str, Any]:
    """The full state's wire form (§5), with the derived values unless ``derived`` is off."""
    out: dict[str, Any] = {"game": GAME_ID, "rules_version": engine.RULES_VERSION}
    for name, value in zip(state._fields, state):
        out[name] = to_wire(value)
    if derived:
        out.update(to_wire(engine.derived(state)))
    return out


_CARD = card_of(PACK)
MOVES: Final = MoveParser(
    {
        "play": (engine.Play, {"card": (_CARD, True)}),
        "next_deal": (NextDeal, {"deck": (deck_of(PACK), False)}),
    },
    # §8 order of the parse-level codes
    order=("invalid_move", "unknown_move_type", "invalid_player", "invalid_card", "invalid_deck"),
)
