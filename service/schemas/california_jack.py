"""California Jack's wire forms (california_jack.md §3, §5, §6): options, state, moves.

Names match openapi.yaml one to one: ``CaliforniaJackOptions`` ↔ ``OPTIONS``,
``CaliforniaJackState`` ↔ ``StateSchema``, ``CaliforniaJackMove`` ↔ ``MOVES``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from marshmallow import RAISE, ValidationError, fields, post_load, validate, validates_schema

from ..cards import Suit
from ..cards.packs import by_text
from ..engines import california_jack as engine
from .common import (
    options_schema,
    state_schema,
    to_wire,
    wire_record,
)
from .fields import CardField, CardList, IntList, SeatField, StrictBool, StrictInt, StrictSchema, StrictString, SuitField
from .moves import ANY_CARD, Move, Moves, Wire, card_of, deck_of, next_deal, seat
from .wrappers import Contract

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




# --- the per-trick and per-draw records: parsed in one step each (a hot path: a state holds up to
# 26 tricks and 40 draws, and marshmallow's nested schemas cost ~20 µs per record) ----------------

_CARDS: Final = by_text(PACK)
_MISSING: Final = "Missing data for required field."
_UNKNOWN: Final = "Unknown field."


class _Problems(Exception):
    def __init__(self, errors: dict[str, list[str]]) -> None:
        super().__init__(errors)
        self.errors = errors


def _fields_of(value: Any, names: tuple[str, ...]) -> dict[str, Any]:
    """The members of a record object, or _Problems naming missing and unknown members."""
    if not isinstance(value, dict):
        raise _Problems({"_schema": ["Must be an object."]})
    if len(value) != len(names) or any(n not in value for n in names):
        errors = {n: [_MISSING] for n in names if n not in value}
        errors.update({str(k): [_UNKNOWN] for k in value if k not in names})
        raise _Problems(errors)
    return value


def _seat(value: Any) -> int | None:
    return value if type(value) is int and 0 <= value <= 1 else None


def _played(value: Any) -> engine.PlayedCard:
    v = _fields_of(value, ("player", "card"))
    player, card = _seat(v["player"]), _CARDS.get(v["card"]) if isinstance(v["card"], str) else None
    if player is None or card is None:
        errors = {} if player is not None else {"player": ["Must be a seat, 0 or 1."]}
        if card is None:
            errors["card"] = ["Not a card of this game's pack."]
        raise _Problems(errors)
    return engine.PlayedCard(player, card)


def _trick(value: Any) -> engine.Trick:
    v = _fields_of(value, ("leader", "cards", "winner", "trump"))
    errors: dict[str, Any] = {}
    cards = v["cards"]
    played: list[engine.PlayedCard] = []
    if not isinstance(cards, list) or len(cards) != 2:
        errors["cards"] = ["Must hold 2 played cards."]
    else:
        for i, item in enumerate(cards):
            try:
                played.append(_played(item))
            except _Problems as p:
                errors.setdefault("cards", {})[i] = p.errors
    leader, winner, trump = _seat(v["leader"]), _seat(v["winner"]), v["trump"]
    for name, ok in (("leader", leader is not None), ("winner", winner is not None)):
        if not ok:
            errors[name] = ["Must be a seat, 0 or 1."]
    if not isinstance(trump, str) or trump not in Suit.__members__:
        errors["trump"] = ["Not a suit (S, H, D, C)."]
    if errors:
        raise _Problems(errors)
    return engine.Trick(leader, (played[0], played[1]), winner, Suit(trump))  # type: ignore[arg-type]


def _draw(value: Any) -> engine.Draw:
    v = _fields_of(value, ("trick", "player", "card", "public"))
    errors: dict[str, list[str]] = {}
    trick, player, card, public = v["trick"], _seat(v["player"]), v["card"], v["public"]
    if type(trick) is not int or not 1 <= trick <= engine.DRAWING_TRICKS:
        errors["trick"] = [f"Must be a trick number 1..{engine.DRAWING_TRICKS}."]
    if player is None:
        errors["player"] = ["Must be a seat, 0 or 1."]
    card = _CARDS.get(card) if isinstance(card, str) else None
    if card is None:
        errors["card"] = ["Not a card of this game's pack."]
    if type(public) is not bool:
        errors["public"] = ["Not a valid boolean."]
    if errors:
        raise _Problems(errors)
    return engine.Draw(trick, player, card, public)  # type: ignore[arg-type]


class RecordList(fields.Field[tuple[Any, ...]]):
    """A list of at most ``max_len`` records, each parsed by ``parse``; errors name the index and
    member (``draws.3.card``)."""

    default_error_messages = {"type": "Must be a list.", "length": "Must hold at most {max} entries."}

    def __init__(self, parse: Any, max_len: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._parse, self._max = parse, max_len

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> tuple[Any, ...]:
        if not isinstance(value, list):
            raise self.make_error("type")
        if len(value) > self._max:
            raise self.make_error("length", max=self._max)
        out, errors = [], {}
        parse = self._parse
        for i, item in enumerate(value):
            try:
                out.append(parse(item))
            except _Problems as p:
                errors[i] = p.errors
        if errors:
            raise ValidationError(errors)
        return tuple(out)


class AwardSchema(StrictSchema):
    point = StrictString(required=True, validate=validate.OneOf(("high", "low", "jack", "game")))
    card = _Card(required=True, allow_none=True)
    seat = _Seat(required=True, allow_none=True)
    credited = StrictBool(required=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.Award:
        return engine.Award(d["point"], d["card"], d["seat"], d["credited"])


class LastHandSchema(StrictSchema):
    deal_number = StrictInt(required=True, validate=validate.Range(1, MAX_SCORE))
    trump = SuitField(required=True)
    awards = fields.List(fields.Nested(AwardSchema), required=True, validate=validate.Length(3, 4))
    game_totals = IntList(2, 0, 80, required=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.LastHand:
        return engine.LastHand(d["deal_number"], d["trump"], tuple(d["awards"]), d["game_totals"])


_DERIVED: Final = ("stock_count", "stock_top", "known_cards", "game_totals")


class StateSchema(state_schema(engine.GAME, OPTIONS, engine.Options)):  # type: ignore[misc]
    """``CaliforniaJackState``: §5 plus ``seq``, ``rules_version``, ``seed``; derived values ignored."""

    phase = StrictString(required=True, validate=validate.OneOf([p.value for p in engine.Phase]))
    deal_number = StrictInt(required=True, validate=validate.Range(1, MAX_SCORE))
    dealer = _Seat(required=True)
    to_move = fields.List(_Seat(), required=True, validate=validate.Length(max=1))
    scores = IntList(2, 0, MAX_SCORE, required=True)
    hands = _Pair(_Cards(0, engine.HAND_SIZE), required=True)
    stock = _Cards(0, engine.STOCK_SIZE, required=True)
    trump = SuitField(required=True)
    trick = RecordList(_played, 1, required=True)
    trick_leader = _Seat(required=True)
    tricks = RecordList(_trick, engine.TRICKS_PER_HAND, required=True)
    draws = RecordList(_draw, engine.STOCK_SIZE, required=True)
    last_hand = fields.Nested(LastHandSchema, required=True, allow_none=True)
    winner = _Seat(required=True, allow_none=True)
    stock_count = fields.Raw(load_only=True, allow_none=True)
    stock_top = fields.Raw(load_only=True, allow_none=True)
    known_cards = fields.Raw(load_only=True, allow_none=True)
    game_totals = fields.Raw(load_only=True, allow_none=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.State:
        for name in _DERIVED:
            d.pop(name, None)
        return engine.State(
            **self.head(d),
            phase=engine.Phase(d.pop("phase")),
            to_move=tuple(d.pop("to_move")),
            hands=tuple(d.pop("hands")),  # a pair (Length(equal=2))
            trick=d.pop("trick"),
            tricks=d.pop("tricks"),
            draws=d.pop("draws"),
            **d,
        )


STATE: Final = StateSchema()
"""The state's loader (shape only: the engine's ``check_state`` judges consistency)."""


def dump_state(state: engine.State, derived: bool = True) -> dict[str, Any]:
    """The full state's wire form (§5), with the derived values unless ``derived`` is off."""
    out = wire_record(GAME_ID, engine.RULES_VERSION, state)
    if derived:
        out.update(to_wire(engine.derived(state)))
    return out


SEAT: Final = seat("CaliforniaJackSeat", {"type": "integer", "enum": [0, 1]})
CARD: Final = Wire({"description": "A card of the standard 52-card pack.", "$ref": ANY_CARD}, card_of(PACK), "CaliforniaJackCard")
MOVES: Final = Moves(
    engine.GAME,
    description="A California Jack move (§6). Every move may carry an integer `at` (a client timestamp),\n"
    "which California Jack ignores. In `legal_moves`, `next_deal` appears without `deck`.\n",
    seat=SEAT,
    moves=(
        Move("play", "§6.1 lead or follow with `card`.", {"card": CARD}, examples=[{"type": "play", "player": 1, "card": "4H"}]),
        next_deal(
            "§6.2 the new dealer starts the next hand, from `deck` (top card first) or a shuffle.",
            CARD,
            "All 52 cards, top card first (`invalid_deck` otherwise).",
            deck_of(PACK),
            (52, 52),
        ),
    ),
)

CONTRACT: Final = Contract(
    MOVES, CARD, "CaliforniaJackSeat",
    option_schemas={"start_scores": {"minItems": 2, "maxItems": 2, "items": {"type": "integer", "minimum": 0}}},
)
"""What openapi.yaml's request and answer schemas for the game are written from (``wrappers``)."""
