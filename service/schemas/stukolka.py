"""Stukolka's wire forms (stukolka.md §3, §5, §6): options, state, moves.

Names match openapi.yaml one to one: ``StukolkaOptions`` ↔ ``OPTIONS``, ``StukolkaState`` ↔
``StateSchema``, ``StukolkaMove`` ↔ ``MOVES``. Seats are range-checked against ``players`` by the
engine's ``check_state`` (the player count is part of the state).
"""

from __future__ import annotations

from typing import Any, Final

from marshmallow import ValidationError, fields, post_load, validate

from ..cards import Card
from ..cards.packs import by_text, full_52
from ..engines import stukolka as engine
from .common import (
    state_schema,
    to_wire,
)
from .fields import CardField, CardList, SeatField, StrictBool, StrictInt, StrictSchema, StrictString
from .loaded import Loaded
from .moves import ANY_CARD, SUIT, Bad, Move, Moves, Wire, card_of, next_deal, optional, seat
from .sent import Event, View, described, events, nullable, obj, seat_views
from .wrappers import Contract

GAME_ID: Final = engine.GAME_ID
PACK: Final = full_52()  # the largest pack; the engine checks a card against the game's own pack
MAX_SEAT: Final = max(engine.PLAYER_COUNTS) - 1



def _multiple_of_three(value: int) -> None:
    if value % 3:
        raise ValidationError("Must be a multiple of 3.")


class OptionsSchema(StrictSchema):
    """``StukolkaOptions``: §3, defaults as in the spec."""

    dealer = StrictInt(load_default=0, validate=validate.Range(0, MAX_SEAT))
    pack = StrictInt(load_default=52, validate=validate.OneOf((52, 36)))
    stake = StrictInt(load_default=3, validate=[validate.Range(3, engine.MAX_STAKE), _multiple_of_three])
    stake_by = StrictString(load_default="dealer", validate=validate.OneOf(engine.STAKE_BY))
    lone_tapper = StrictString(load_default="dealer_defends", validate=validate.OneOf(engine.LONE_TAPPER))
    violations = StrictString(load_default="refuse", validate=validate.OneOf(engine.VIOLATIONS))
    turnup_ace_king_lead = StrictBool(load_default=False)
    max_exchange = StrictInt(load_default=3, validate=validate.Range(0, 3))
    remiz_limit = StrictInt(load_default=None, allow_none=True, validate=validate.Range(1, engine.MAX_LIMIT))
    deals = StrictInt(load_default=None, allow_none=True, validate=validate.Range(1, engine.MAX_DEALS))


OPTIONS: Final = OptionsSchema()


def _Seat(**kw: Any) -> StrictInt:
    return SeatField(MAX_SEAT + 1, **kw)


def _Card(**kw: Any) -> CardField:
    return CardField(PACK, **kw)


def _Cards(lo: int, hi: int, **kw: Any) -> CardList:
    return CardList(PACK, lo, hi, **kw)


def _PerSeat(inner: fields.Field[Any], **kw: Any) -> fields.List[Any]:
    return fields.List(inner, required=True, validate=validate.Length(3, MAX_SEAT + 1), **kw)


PER_SEAT_COUNT: Final = Wire(
    {"description": "One count per seat.", "type": "array", "minItems": 3, "maxItems": MAX_SEAT + 1,
     "items": {"type": "integer", "minimum": 0}},
    name="StukolkaPerSeatCount",
)
"""Per-seat counts a result and the derived ``tricks_won`` carry (one per seat: ``check_state``)."""
_VIOLATION_CODE: Final = "A rule of §6.4 (lead and follow obligations)."


def _Derived(text: str, contract: Any) -> fields.Raw:
    return fields.Raw(load_only=True, metadata={"description": "Derived (ignored on input)" + text, "contract": contract})



class TrickCardSchema(StrictSchema):
    player = _Seat(required=True)
    card = _Card(required=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.TrickCard:
        return engine.TrickCard(d["player"], d["card"])


class CompletedTrickSchema(StrictSchema):
    WIRE_DESCRIPTION = "A finished trick, its cards in play order (from its leader, clockwise over the seats in play)."
    cards = _Cards(1, MAX_SEAT + 1, required=True)
    winner = _Seat(required=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.CompletedTrick:
        return engine.CompletedTrick(d["cards"], d["winner"])


class ViolationSchema(StrictSchema):
    WIRE_DESCRIPTION = "§6.5 a breach accepted in `penalize` mode."
    player = _Seat(required=True)
    code = StrictString(
        required=True,
        validate=validate.OneOf(engine.VIOLATION_CODES),
        metadata={"wire_name": "StukolkaViolationCode", "wire_description": _VIOLATION_CODE},
    )
    trick = StrictInt(required=True, validate=validate.Range(1, engine.TRICKS))
    card = _Card(required=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.Violation:
        return engine.Violation(d["player"], d["code"], d["trick"], d["card"])


_MONEY: Final = validate.Range(0, None)
_SEAT_KEYS: Final = {str(s): s for s in range(MAX_SEAT + 1)}


class WinningsField(fields.Field[tuple[engine.Winning, ...]]):
    """``{"<seat>": amount}`` → ((seat, amount), ...) in seat order."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> tuple[engine.Winning, ...]:
        if not isinstance(value, dict):
            raise ValidationError("Must be an object from seat to money.")
        out = []
        for key, amount in value.items():
            if key not in _SEAT_KEYS or isinstance(amount, bool) or not isinstance(amount, int) or amount < 1:
                raise ValidationError(f"{key!r}: must map a seat to a positive amount.")
            out.append(engine.Winning(_SEAT_KEYS[key], amount))
        return tuple(sorted(out))

    def contract(self, loaded: Loaded) -> dict[str, Any]:
        """Seat keys (as strings) to positive amounts."""
        return {"type": "object", "properties": {key: {"type": "integer", "minimum": 1} for key in _SEAT_KEYS}}


class PlayedResultSchema(StrictSchema):
    kind = StrictString(required=True, validate=validate.Equal("played"))
    pot = StrictInt(required=True, validate=_MONEY)
    third = StrictInt(required=True, validate=_MONEY, metadata={"description": "floor(pot / 3), paid for each trick."})
    remiz = StrictInt(
        required=True, validate=_MONEY, metadata={"description": "What each remized or penalized seat paid into the carry."}
    )
    tricks = fields.List(
        StrictInt(validate=validate.Range(0, engine.TRICKS)), required=True, metadata={"contract": PER_SEAT_COUNT}
    )  # one count per seat: check_state (they must be the tricks won)
    winnings = WinningsField(
        required=True,
        metadata={
            "description": 'Trick money paid out, by seat (`"1": 2`); seats that took no trick, and the defender, are not\n'
            "listed.\n"
        },
    )
    remized = fields.List(_Seat(), required=True, metadata={"description": "Seats in play (not the defender) that took no trick."})
    penalized = fields.List(_Seat(), required=True, metadata={"description": "Seats charged a penalty remiz (`penalize` mode)."})
    carry = StrictInt(required=True, validate=_MONEY)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.Result:
        return engine.Result(
            kind=engine.Kind.PLAYED, pot=d["pot"], carry=d["carry"], third=d["third"], remiz=d["remiz"],
            tricks=tuple(d["tricks"]), winnings=d["winnings"], remized=tuple(d["remized"]), penalized=tuple(d["penalized"]),
        )


class NoPlayResultSchema(StrictSchema):
    kind = StrictString(required=True, validate=validate.OneOf([k.value for k in engine.Kind if k is not engine.Kind.PLAYED]))
    pot = StrictInt(required=True, validate=_MONEY)
    winner = _Seat(required=True, allow_none=True)
    carry = StrictInt(required=True, validate=_MONEY)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.Result:
        return engine.Result(kind=engine.Kind(d["kind"]), pot=d["pot"], carry=d["carry"], winner=d["winner"])


_PLAYED, _NO_PLAY = PlayedResultSchema(), NoPlayResultSchema()


class ResultField(fields.Field[engine.Result]):
    """§7.1 ``last_result``: the ``played`` shape or the no-play shape, told apart by ``kind``."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> engine.Result:
        if not isinstance(value, dict):
            raise ValidationError("Must be an object or null.")
        schema = _PLAYED if value.get("kind") == "played" else _NO_PLAY
        return schema.load(value)  # type: ignore[no-any-return]

    def contract(self, loaded: Loaded) -> Wire:
        """``StukolkaResult``: the two shapes, told apart by ``kind``."""
        played, no_play = loaded.nested(PlayedResultSchema), loaded.nested(NoPlayResultSchema)
        return Wire(
            {
                "description": "§7.1 the settlement of the deal just ended (`null` while a deal is in progress).",
                "oneOf": [played, no_play],
                "discriminator": {
                    "propertyName": "kind",
                    "mapping": {k.value: (played if k is engine.Kind.PLAYED else no_play).ref()["$ref"] for k in engine.Kind},
                },
            },
            name="StukolkaResult",
        )


_DERIVED: Final = ("trump", "stock_count", "tricks_won")


_SEED_TEXT: Final = "The game's seed, kept so that later deals stay reproducible; `null` if none."


class StateSchema(state_schema(engine.GAME, OPTIONS, engine.Options, seed_text=_SEED_TEXT)):  # type: ignore[misc]
    """``StukolkaState``: §5 plus ``seq``, ``rules_version``, ``seed``; derived values ignored."""

    WIRE_DESCRIPTION = (
        "The whole truth of a Stukolka game (§5), hidden parts included. Responses carry every\n"
        "member below; on input `game`, `seq`, `rules_version`, `seed`, `options` and the derived\n"
        "values (`trump`, `stock_count`, `tricks_won`) may be left out, and the derived values are\n"
        "ignored. The accounts must balance: `sum(balances) + pot = 0` during a deal,\n"
        "`sum(balances) + carry = 0` once it is over (else 422 `invalid_state`).\n"
    )

    players = StrictInt(required=True, validate=validate.Range(3, MAX_SEAT + 1))
    phase = StrictString(
        required=True, validate=validate.OneOf([p.value for p in engine.Phase]), metadata={"wire_name": "StukolkaPhase"}
    )
    deal_number = StrictInt(required=True, validate=validate.Range(1, 10**9), metadata={"advances": True})
    dealer = _Seat(required=True)
    to_move = _Seat(
        required=True,
        allow_none=True,
        metadata={"description": "The seat to act; `null` once the deal is over (the envelope then names the next dealer)."},
    )
    hands = _PerSeat(
        _Cards(0, engine.HAND_SIZE),
        metadata={"description": "Each seat's cards (order not significant); a passed seat keeps its folded hand."},
    )
    turnup = _Card(required=True)
    stock = _Cards(0, len(PACK), required=True, metadata={"description": "Undealt cards, top first."})
    declarations = _PerSeat(
        StrictString(allow_none=True, validate=validate.OneOf([d.value for d in engine.Declaration])),
        metadata={
            "wire_name": "StukolkaDeclarations",
            "wire_description": "Per seat, `null` until it declares, then `tap` or `pass`.",
        },
    )
    in_play = fields.List(
        _Seat(),
        required=True,
        validate=validate.Length(max=MAX_SEAT + 1),
        metadata={"description": "The seats that play the tricks, eldest first."},
    )
    defender = _Seat(
        required=True,
        allow_none=True,
        metadata={"description": "The dealer defending the pot against a lone tapper (§6.3), or `null`."},
    )
    exchanged = _PerSeat(
        StrictInt(allow_none=True, validate=validate.Range(0, 3)),
        metadata={"description": "Per seat, `null` or how many cards it exchanged."},
    )
    discards = _PerSeat(_Cards(0, 3), metadata={"description": "Per seat, the cards it discarded when buying."})
    leader = _Seat(
        required=True,
        allow_none=True,
        metadata={"description": "The seat that led the current trick (`null` outside the play phase)."},
    )
    trick = fields.List(
        fields.Nested(TrickCardSchema),
        required=True,
        validate=validate.Length(max=MAX_SEAT + 1),
        metadata={"wire_name": "StukolkaTrick", "wire_description": "The trick in progress, in play order."},
    )
    completed_tricks = fields.List(
        fields.Nested(CompletedTrickSchema),
        required=True,
        validate=validate.Length(max=engine.TRICKS),
        metadata={"wire_name": "StukolkaCompletedTricks"},
    )
    pot = StrictInt(
        required=True, validate=_MONEY, metadata={"description": "The amount played for in this deal (fixed at its start)."}
    )
    carry = StrictInt(
        required=True, validate=_MONEY, metadata={"description": "0 during a deal; after settlement, what opens the next pot."}
    )
    balances = _PerSeat(
        StrictInt(
            metadata={
                "wire_name": "StukolkaMoney",
                "wire_description": "An amount of money (integer units; balances may be negative).",
            }
        ),
        metadata={"wire_name": "StukolkaPerSeatMoney", "wire_description": "One amount per seat."},
    )
    violations = fields.List(
        fields.Nested(ViolationSchema),
        required=True,
        validate=validate.Length(max=3 * (MAX_SEAT + 1)),
        metadata={"wire_name": "StukolkaViolations"},
    )
    last_result = ResultField(required=True, allow_none=True)
    trump = _Derived("; the suit of the turn-up.", SUIT)
    stock_count = _Derived(".", {"type": "integer", "minimum": 0})
    tricks_won = _Derived("; tricks each seat took this deal.", PER_SEAT_COUNT)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.State:
        for name in _DERIVED:
            d.pop(name, None)
        decl = engine.Declaration
        return engine.State(
            **self.head(d),
            phase=engine.Phase(d.pop("phase")),
            hands=tuple(d.pop("hands")),
            declarations=tuple(None if x is None else decl(x) for x in d.pop("declarations")),
            in_play=tuple(d.pop("in_play")),
            exchanged=tuple(d.pop("exchanged")),
            discards=tuple(d.pop("discards")),
            trick=tuple(d.pop("trick")),
            completed_tricks=tuple(d.pop("completed_tricks")),
            balances=tuple(d.pop("balances")),
            violations=tuple(d.pop("violations")),
            **d,
        )


STATE: Final = StateSchema()
"""The state's loader (shape only: the engine's ``check_state`` judges consistency)."""


def _cards_wire(cards: tuple[Card, ...]) -> list[str]:
    return [c.__str__() for c in cards]


def dump_state(state: engine.State, derived: bool = True) -> dict[str, Any]:
    """The full state's wire form (§5), with the derived values unless ``derived`` is off.

    Written out field by field (the move path dumps a state on every request)."""
    s = state
    out: dict[str, Any] = {
        "game": GAME_ID,
        "rules_version": engine.RULES_VERSION,
        "options": to_wire(s.options),
        "players": s.players,
        "phase": s.phase.value,
        "deal_number": s.deal_number,
        "dealer": s.dealer,
        "to_move": s.to_move,
        "hands": [_cards_wire(h) for h in s.hands],
        "turnup": str(s.turnup),
        "stock": _cards_wire(s.stock),
        "declarations": [None if d is None else d.value for d in s.declarations],
        "in_play": list(s.in_play),
        "defender": s.defender,
        "exchanged": list(s.exchanged),
        "discards": [_cards_wire(d) for d in s.discards],
        "leader": s.leader,
        "trick": [{"player": tc.player, "card": str(tc.card)} for tc in s.trick],
        "completed_tricks": [{"cards": _cards_wire(t.cards), "winner": t.winner} for t in s.completed_tricks],
        "pot": s.pot,
        "carry": s.carry,
        "balances": list(s.balances),
        "violations": [{"player": v.player, "code": v.code, "trick": v.trick, "card": str(v.card)} for v in s.violations],
        "last_result": None if s.last_result is None else engine.result_wire(s.last_result),
        "seq": s.seq,
        "seed": s.seed,
    }
    if derived:
        out["trump"] = s.turnup.suit.value
        out["stock_count"] = len(s.stock)
        out["tricks_won"] = engine.tricks_won(s)
    return out


# --- moves ----------------------------------------------------------------------------------

_BY_TEXT: Final = by_text(PACK)


def _cards(value: Any, bad_card: str, what: str) -> tuple[Card, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value) or len(value) > len(PACK):
        raise Bad("invalid_move", f"{what} must be a list of card strings")
    out = []
    for i, text in enumerate(value):
        card = _BY_TEXT.get(text)
        if card is None:
            raise Bad(bad_card, f"{what}[{i}] = {text!r} is not a card")
        out.append(card)
    return tuple(out)


def _discard(value: Any) -> tuple[Card, ...]:
    """``exchange.discard``: a list of card strings (duplicates and hand membership: the engine)."""
    return _cards(value, "invalid_card", "discard")


def _deck(value: Any) -> tuple[Card, ...]:
    """``next_deal.deck``: card strings; whether it is exactly the game's pack is the engine's check."""
    return _cards(value, "invalid_deck", "deck")


def _violation(value: Any) -> str | None:
    """A listed play's informational ``violation``: null or a §6.4 code (ignored for legality)."""
    if value is not None and value not in engine.VIOLATION_CODES:
        raise Bad("invalid_move", "violation must be null or a code of stukolka §6.4")
    return value  # type: ignore[no-any-return]


SEAT: Final = seat(
    "StukolkaSeat", {"description": "A seat 0..players-1 (3 to 7 players).", "type": "integer", "minimum": 0, "maximum": 6}
)
CARD: Final = Wire(
    {"description": "A card of the game's pack (52 cards, or 36 with the option `pack`).", "$ref": ANY_CARD},
    card_of(PACK),
    "StukolkaCard",
)
VIOLATION: Final = Wire(
    {
        "anyOf": [
            Wire(
                {"description": _VIOLATION_CODE, "type": "string", "enum": list(engine.VIOLATION_CODES)},
                name="StukolkaViolationCode",
            ),
            {"type": "null"},
        ]
    },
    _violation,
)
MOVES: Final = Moves(
    engine.GAME,
    description="A Stukolka move (§6). Every move may carry an integer `at` (a client timestamp), which\n"
    "Stukolka ignores. In `legal_moves`, `next_deal` appears without `deck`; in `penalize`\n"
    "mode every listed `play` carries `violation` (null, or the rule the card would break).\n",
    seat=SEAT,
    moves=(
        Move("tap", "§6.1 declare to play (knock on the table)."),
        Move("pass", "§6.1 drop out of this deal."),
        Move(
            "exchange",
            "§6.2 discard these cards (any order; `[]` stands pat) and buy as many from the top of the stock.",
            {"discard": Wire({"type": "array", "maxItems": 52, "items": CARD}, _discard)},
            examples=[{"type": "exchange", "player": 2, "discard": ["QD", "9H"]}],
        ),
        Move(
            "play",
            "§6.4 play `card` to the trick. `violation` is informational (as listed in `penalize` mode) and\nignored.\n",
            {"card": CARD, "violation": optional(VIOLATION)},
            examples=[{"type": "play", "player": 1, "card": "AH"}],
        ),
        next_deal(
            "§6.6 the next dealer starts the next deal, from `deck` (top card first) or a shuffle.",
            CARD,
            "The whole pack (52 or 36 cards), top card first (`invalid_deck` otherwise).",
            _deck,
            (36, 52),
        ),
    ),
)

# --- what the game sends: views (§5), events and scores (§7) -------------------------------------

_STATE: Final = View(Loaded(MOVES.prefix, CARD, SEAT).state(STATE))
_MONEY_WIRE: Final = {"type": "integer", "minimum": 0}
CARDS: Final = Wire({"type": "array", "items": CARD}, name="StukolkaCards")
"""Cards a seat exchanged (``exchanged`` events)."""
SEAT_OR_NULL: Final = Wire(nullable(SEAT), name="StukolkaSeatOrNull")
RESULT_OR_NULL: Final = Wire(nullable(_STATE.part("StukolkaResult")), name="StukolkaResultOrNull")
"""The state's ``last_result`` (written in place there) as the views name it."""
_VIEW_HEAD: Final = {
    **_STATE.members("game", "seq", "rules_version", "options", "players", "deal_number", "dealer", "phase", "to_move"),
    "hand_counts": PER_SEAT_COUNT,
    **_STATE.members("turnup", "trump", "stock_count", "declarations", "in_play", "defender", "exchanged"),
    "discard_counts": PER_SEAT_COUNT,
    **_STATE.members("leader", "trick", "completed_tricks", "tricks_won", "pot", "carry", "balances", "violations"),
    "last_result": RESULT_OR_NULL,
}
VIEW: Final = seat_views(
    MOVES,
    "Stukolka",
    _VIEW_HEAD,
    seat=SEAT,
    own={"hand": {"type": "array", "maxItems": engine.HAND_SIZE, "items": CARD}},
    public={},
    description="What one seat may see (§5), or the public view (`seat` null: sealed mode without `as`):\n"
    "other hands, the stock and the discards become counts. `legal_moves` only in the view of\n"
    "the seat to move (the next dealer in `deal_over`). The two shapes exclude each other\n"
    "(`seat` a number or null), so `anyOf` means `oneOf` here and validates faster.\n",
    union="anyOf",
)
EVENTS: Final = events(MOVES.prefix, "Stukolka", (
    Event("deal_started", {
        "dealer": SEAT,
        "deal_number": {"type": "integer", "minimum": 1},
        "turnup": CARD,
        "pot": {"description": "The new pot (the carry plus the stakes).", **_MONEY_WIRE},
        "stakes": described("What each seat paid into the pot.", PER_SEAT_COUNT),
    }),
    Event("declared", {"player": SEAT, "declaration": {"type": "string", "enum": [d.value for d in engine.Declaration]}}),
    Event(
        "in_play",
        {**_STATE.members("in_play"), "defender": SEAT_OR_NULL},
        description="The declarations are resolved and the deal is played (§6.3).",
    ),
    Event(
        "exchanged",
        {"player": SEAT, "count": {"type": "integer", "minimum": 0, "maximum": 3}, "discard": nullable(CARDS),
         "drawn": nullable(CARDS)},
        description="A seat bought cards; `discard` and `drawn` are `null` for viewers other than that seat.",
    ),
    Event(
        "card_played",
        {"player": SEAT, "card": CARD,
         "violation": described("Present when `penalize` mode recorded a breach.", _STATE.part("StukolkaViolationCode"))},
        optional=("violation",),
    ),
    Event("trick_won", {
        "player": SEAT,
        "cards": {"type": "array", "minItems": 1, "maxItems": MAX_SEAT + 1, "items": CARD},
        "trick": {"type": "integer", "minimum": 1, "maximum": engine.TRICKS},
    }),
    Event("deal_over", {"result": _STATE.part("StukolkaResult")}),
    Event("game_over", {"winner": {"description": "The seats with the highest balance.", "type": "array", "items": SEAT}}),
))
SCORES: Final = Wire(
    obj(
        {"totals": _STATE.part("StukolkaPerSeatMoney"), "pot": _MONEY_WIRE, "carry": _MONEY_WIRE,
         "tricks_won": PER_SEAT_COUNT},
        description="`totals` = balances; the pot, the carry and this deal's tricks.",
    ),
    name="StukolkaScores",
)

CONTRACT: Final = Contract(
    MOVES, CARD, "StukolkaSeat",
    options="§3 options. Omitted options take their defaults; an unknown or invalid one is 422 `invalid_option` "
    "(`dealer` must also be a seat of the game).",
    option_schemas={"stake": {"multipleOf": 3}},
    state=STATE,
    view=VIEW,
    events=EVENTS,
    scores=SCORES,
)
"""What openapi.yaml's request and answer schemas for the game are written from (``wrappers``)."""
