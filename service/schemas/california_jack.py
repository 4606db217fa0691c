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
from .loaded import Loaded
from .moves import ANY_CARD, SUIT, Move, Moves, Wire, card_of, deck_of, next_deal, seat
from .sent import Event, View, events, legal_moves, nullable, obj
from .wrappers import Contract

GAME_ID: Final = engine.GAME_ID
PACK: Final = engine.PACK
MAX_SCORE: Final = 100_000

SEAT: Final = seat("CaliforniaJackSeat", {"type": "integer", "enum": [0, 1]})
CARD: Final = Wire({"description": "A card of the standard 52-card pack.", "$ref": ANY_CARD}, card_of(PACK), "CaliforniaJackCard")


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


# Each record's contract beside its parser (the parsers above check exactly these members and bounds).
PLAYED: Final = Wire(
    {
        "description": "A card of a trick and the seat that played it.",
        "type": "object",
        "required": ["player", "card"],
        "properties": {"player": SEAT, "card": CARD},
    },
    _played,
    "CaliforniaJackPlayedCard",
)
TRICK: Final = Wire(
    {
        "description": "A completed trick with the trump it was played under.",
        "type": "object",
        "required": ["leader", "cards", "winner", "trump"],
        "properties": {
            "leader": SEAT,
            "cards": {
                "description": "The leader's card, then the other seat's.", "type": "array", "minItems": 2, "maxItems": 2,
                "items": PLAYED,
            },
            "winner": SEAT,
            "trump": SUIT,
        },
    },
    _trick,
    "CaliforniaJackTrick",
)
DRAW: Final = Wire(
    {
        "description": "A card taken from the stock after trick `trick` (the winner's draw first).",
        "type": "object",
        "required": ["trick", "player", "card", "public"],
        "properties": {
            "trick": {"type": "integer", "minimum": 1, "maximum": engine.DRAWING_TRICKS},
            "player": SEAT,
            "card": CARD,
            "public": {"description": "Seen by both seats (§4 exposure table).", "type": "boolean"},
        },
    },
    _draw,
    "CaliforniaJackDraw",
)


class RecordList(fields.Field[tuple[Any, ...]]):
    """A list of at most ``max_len`` records, each parsed by ``record``'s parser and written as its
    schema; errors name the index and member (``draws.3.card``)."""

    default_error_messages = {"type": "Must be a list.", "length": "Must hold at most {max} entries."}

    def __init__(self, record: Wire, max_len: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._record, self._parse, self._max = record, record.parse, max_len

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

    def contract(self, loaded: Loaded) -> dict[str, Any]:
        """The list's schema: at most ``max_len`` records."""
        return {"type": "array", "maxItems": self._max, "items": self._record}


class _RecordOrNull(fields.Nested):
    """A nested record or ``null``, written as one named component that holds both (views refer to
    it as the member's whole schema): ``wire`` names it, ``text`` describes it."""

    def __init__(self, nested: type[StrictSchema], wire: str, text: str, **kwargs: Any) -> None:
        super().__init__(nested, allow_none=True, **kwargs)
        self._wire, self._text = wire, text

    def fast(self) -> Any:
        """The state's plan loads the record as a plain ``Nested`` would: by the record schema's
        own (planned) ``load``."""
        return self.schema.load

    def contract(self, loaded: Loaded) -> Wire:
        """``{description, anyOf: [<the record>, null]}`` under the component name ``wire``."""
        assert isinstance(self.nested, type)
        record = loaded.nested(self.nested).schema
        return Wire({"description": self._text, "anyOf": [dict(record), {"type": "null"}]}, name=self._wire)


class AwardSchema(StrictSchema):
    WIRE_DESCRIPTION = "One end-of-hand point (§7). `card` is `null` for Game; `seat` is `null` for a tied Game."
    point = StrictString(required=True, validate=validate.OneOf(("high", "low", "jack", "game")))
    card = _Card(required=True, allow_none=True)
    seat = _Seat(required=True, allow_none=True)
    credited = StrictBool(
        required=True, metadata={"description": "False when nobody earned it or counting out ended the game before it."}
    )

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.Award:
        return engine.Award(d["point"], d["card"], d["seat"], d["credited"])


class LastHandSchema(StrictSchema):
    """The scoring of a finished hand: its contract is the record inside ``CaliforniaJackLastHand``
    (``_RecordOrNull``), never a component of its own."""

    WIRE_NAME = "CaliforniaJackLastHandRecord"
    deal_number = StrictInt(required=True, validate=validate.Range(1, MAX_SCORE))
    trump = SuitField(required=True, metadata={"description": "The final trump, which decides High, Low and Jack."})
    awards = fields.List(
        fields.Nested(AwardSchema),
        required=True,
        validate=validate.Length(3, 4),
        metadata={"description": "High, Low, Jack, then Game (only with `game_point`), in crediting order."},
    )
    game_totals = IntList(2, 0, 80, required=True, metadata={"description": "Each seat's card value in tricks (80 in all)."})

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.LastHand:
        return engine.LastHand(d["deal_number"], d["trump"], tuple(d["awards"]), d["game_totals"])


_DERIVED: Final = ("stock_count", "stock_top", "known_cards", "game_totals")

PAIR: Final = Wire(
    {"description": "One non-negative integer per seat.", "type": "array", "minItems": 2, "maxItems": 2,
     "items": {"type": "integer", "minimum": 0}},
    name="CaliforniaJackPair",
)
"""Per-seat counts the state derives (and views, events and scores carry): not checked on input."""
KNOWN_CARDS: Final = Wire(
    {
        "description": "Per seat, the cards now in its hand that it drew publicly.",
        "type": "array", "minItems": 2, "maxItems": 2,
        "items": Wire({"type": "array", "items": CARD}, name="CaliforniaJackCards"),
    },
    name="CaliforniaJackKnownCards",
)
STOCK_TOP: Final = Wire(
    {"description": "The stock's top card when both seats may see it (§4), else `null`.", "anyOf": [CARD, {"type": "null"}]},
    name="CaliforniaJackStockTop",
)
STOCK_COUNT: Final = {"type": "integer", "minimum": 0, "maximum": engine.STOCK_SIZE}
"""The derived ``stock_count``'s schema (the views carry it too)."""


def _Derived(text: str, contract: Any) -> fields.Raw:
    return fields.Raw(
        load_only=True, allow_none=True, metadata={"description": "Derived (ignored on input)" + (text or "."), "contract": contract}
    )


class StateSchema(state_schema(engine.GAME, OPTIONS, engine.Options)):  # type: ignore[misc]
    """``CaliforniaJackState``: §5 plus ``seq``, ``rules_version``, ``seed``; derived values ignored."""

    WIRE_DESCRIPTION = (
        "The whole truth of a California Jack match (§5), hidden parts included. Responses carry\n"
        "every member below; on input `game`, `seq`, `rules_version`, `seed`, `options` and the\n"
        "derived values (`stock_count`, `stock_top`, `known_cards`, `game_totals`) may be left out\n"
        "(`seq` then counts from 0, `options` take their defaults), and the derived values are\n"
        "ignored. Any other member is 422 `invalid_state`.\n"
    )

    phase = StrictString(
        required=True, validate=validate.OneOf([p.value for p in engine.Phase]), metadata={"wire_name": "CaliforniaJackPhase"}
    )
    deal_number = StrictInt(required=True, validate=validate.Range(1, MAX_SCORE), metadata={"advances": True})
    dealer = _Seat(required=True)
    to_move = fields.List(
        _Seat(),
        required=True,
        validate=validate.Length(max=1),
        metadata={"wire_name": "CaliforniaJackToMove", "wire_description": "`[seat]` to act, `[]` once the game is over."},
    )
    scores = IntList(2, 0, MAX_SCORE, required=True)
    hands = _Pair(
        _Cards(0, engine.HAND_SIZE),
        required=True,
        metadata={"description": "Each seat's cards (dealt order, then draws appended; order not significant)."},
    )
    stock = _Cards(0, engine.STOCK_SIZE, required=True, metadata={"description": "The remaining stock, top card first."})
    trump = SuitField(
        required=True, metadata={"description": "The trump of the current (or next) trick; after the hand, the final trump."}
    )
    trick = RecordList(
        PLAYED,
        1,
        required=True,
        metadata={"wire_name": "CaliforniaJackTrickInProgress", "wire_description": "The current trick, `[]` or the led card."},
    )
    trick_leader = _Seat(required=True, metadata={"description": "The leader of the current (or next) trick."})
    tricks = RecordList(TRICK, engine.TRICKS_PER_HAND, required=True, metadata={"wire_name": "CaliforniaJackTricks"})
    draws = RecordList(DRAW, engine.STOCK_SIZE, required=True)
    last_hand = _RecordOrNull(
        LastHandSchema,
        "CaliforniaJackLastHand",
        "How the last finished hand was scored (§7), `null` before the first one ends.",
        required=True,
    )
    winner = _Seat(required=True, allow_none=True)
    stock_count = _Derived("", STOCK_COUNT)
    stock_top = _Derived("", STOCK_TOP)
    known_cards = _Derived("", KNOWN_CARDS)
    game_totals = _Derived("; card value of each seat's tricks so far.", PAIR)

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

# --- what the game sends: views (§5), events, scores (§7) --------------------------------------

_STATE: Final = View(Loaded(MOVES.prefix, CARD, SEAT).state(STATE))
# The view's nullable winner keeps the contract's named form (the state writes it in place).
WINNER: Final = Wire(nullable(SEAT), name="CaliforniaJackWinner")
DRAW_VIEW: Final = Wire(
    obj(
        {**DRAW.schema["properties"], "card": nullable(CARD)},
        description="A draw as a view shows it; `card` is `null` for a private draw of another seat.",
    ),
    name="CaliforniaJackDrawView",
)
_HANDS: Final = _STATE.member("hands")
VIEW: Final = Wire(
    obj(
        {
            **_STATE.members("game"),
            "seat": nullable(SEAT),
            **_STATE.members("seq", "rules_version", "options", "phase", "deal_number", "dealer", "to_move", "scores"),
            "hands": {
                "description": "The viewer's own hand; `null` for a hand it may not see.",
                **{k: v for k, v in _HANDS.items() if k != "description"},
                "items": nullable(_HANDS["items"]),
            },
            "hand_counts": PAIR,
            "known_cards": KNOWN_CARDS,
            "stock_count": STOCK_COUNT,
            "stock_top": STOCK_TOP,
            **_STATE.members("trump", "trick", "trick_leader", "tricks"),
            "draws": {**_STATE.member("draws"), "items": DRAW_VIEW},
            **_STATE.members("last_hand"),
            "winner": WINNER,
            "legal_moves": legal_moves(MOVES),
        },
        optional=("legal_moves",),
        description="What one seat may see (§5), or the public view (`seat` null, sealed mode without `as`):\n"
        "the state without `seed` and `stock`, the other seat's hand (both, in the public view)\n"
        "replaced by `null`, private draws of another seat with `card: null`; `legal_moves` only\n"
        "in the view of the seat to move.\n",
    ),
    name="CaliforniaJackView",
)
_DEAL: Final = {"type": "integer", "minimum": 1}
EVENTS: Final = events(MOVES.prefix, "California Jack", (
    Event("deal_started", {"dealer": SEAT, "deal_number": _DEAL, "trump": SUIT, "stock_top": CARD},
          description="A hand dealt; `stock_top` is the first turn-up, which sets the trump."),
    Event("card_played", {"player": SEAT, "card": CARD}),
    Event("trick_won", {"player": SEAT,
                        "cards": {"description": "[led, followed].", "type": "array", "minItems": 2, "maxItems": 2,
                                  "items": CARD},
                        "trump": SUIT}),
    Event(
        "card_drawn",
        {"player": SEAT, "card": nullable(CARD), "trick": DRAW.schema["properties"]["trick"], "public": {"type": "boolean"}},
        description="A card taken from the stock; `card` is `null` for other viewers when the draw is not public.",
    ),
    Event("trump_set", {"trump": SUIT, "card": CARD},
          description="`changing` mode: the new top card of the stock sets the next trick's trump."),
    Event(
        "hand_over",
        {"deal_number": _DEAL, "trump": SUIT,
         "awards": {"type": "array", "minItems": 3, "maxItems": 4, "items": _STATE.part("CaliforniaJackAward")},
         "game_totals": PAIR, "scores": PAIR},
        description="The hand scored (§7); `scores` are the totals after counting out.",
    ),
    Event("game_over", {"winner": {"type": "array", "items": SEAT}}),
))
SCORES: Final = Wire(
    obj(
        {"totals": PAIR, "tricks_won": PAIR, "game_totals": PAIR},
        description="`totals` = match points; this hand's tricks won and each seat's card value in its tricks.",
    ),
    name="CaliforniaJackScores",
)

CONTRACT: Final = Contract(
    MOVES, CARD, "CaliforniaJackSeat",
    option_schemas={"start_scores": {"minItems": 2, "maxItems": 2, "items": {"type": "integer", "minimum": 0}}},
    state=STATE, view=VIEW, events=EVENTS, scores=SCORES,
)
"""What openapi.yaml's request and answer schemas for the game are written from (``wrappers``)."""
