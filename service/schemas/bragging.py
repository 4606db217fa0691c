"""Bragging's wire forms (bragging.md §5, §6): options, state, moves.

Names match openapi.yaml one to one: ``BraggingOptions`` ↔ ``OPTIONS``, ``BraggingState`` ↔
``StateSchema``, ``BraggingMove`` ↔ ``MOVES``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from marshmallow import RAISE, ValidationError, fields, post_load, validate, validates

from ..cards import Card
from ..cards.packs import by_text
from ..engines import bragging as engine
from .common import (
    MAX_INT,
    options_schema,
    state_schema,
    to_wire,
    wire_record,
)
from .fields import CardList, SeatField, StrictBool, StrictInt, StrictSchema, StrictString
from .loaded import Loaded
from .moves import ANY_CARD, Bad, Field, Move, Moves, Wire, card_of, next_deal, optional, seat
from .sent import Event, View, described, events, nullable, obj, seat_views
from .wrappers import Contract

GAME_ID: Final = engine.GAME_ID
FULL_PACK: Final = engine.PACKS[52]  # the 36-card pack is a subset; check_state checks the chosen pack
MIN_SEATS: Final = min(engine.PLAYER_COUNTS)
MAX_SEATS: Final = max(engine.PLAYER_COUNTS)


class _OptionsSchema(type(options_schema(engine.Options, engine.OPTION_INFO))):  # type: ignore[misc]
    """The generic option table's schema, plus §3's "52 or 36" for ``pack``."""

    @validates("pack")
    def _pack(self, value: int, **kwargs: Any) -> None:
        if value not in engine.PACKS:
            raise ValidationError("Must be 52 or 36.")


OPTIONS: Final = _OptionsSchema(unknown=RAISE)




def _Cards(lo: int, hi: int, **kw: Any) -> CardList:
    return CardList(FULL_PACK, lo, hi, **kw)


def _Hand(**kw: Any) -> CardList:
    """A seat's face-down or face-up cards (``BraggingCards``)."""
    kw["metadata"] = {"wire_name": "BraggingCards", **kw.get("metadata", {})}
    return _Cards(0, 4, **kw)


class _PerSeat(fields.Field[tuple[Any, ...]]):
    """A list of 2 to 8 entries (one per seat), each loaded by ``inner``; the contract writes a
    nullable scalar entry as ``type: [<type>, 'null']``."""

    default_error_messages = {"type": "Must be a list with one entry per seat (2 to 8)."}

    def __init__(self, inner: fields.Field[Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.inner = inner

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> tuple[Any, ...]:
        if not isinstance(value, list) or not MIN_SEATS <= len(value) <= MAX_SEATS:
            raise self.make_error("type")
        out, errors = [], {}
        for i, v in enumerate(value):
            try:
                out.append(self.inner.deserialize(v))
            except ValidationError as err:
                errors[i] = err.messages
        if errors:
            raise ValidationError(errors)
        return tuple(out)

    def contract(self, loaded: Loaded) -> dict[str, Any]:
        """The list's schema: one entry per seat, each as ``inner`` loads it."""
        items = loaded.member(self.inner)
        if self.inner.allow_none and not self.inner.metadata:
            own = loaded.field(self.inner)
            if isinstance(own, Mapping) and isinstance(own.get("type"), str):
                items = {**own, "type": [own["type"], "null"]}
        return {"type": "array", "minItems": MIN_SEATS, "maxItems": MAX_SEATS, "items": items}


def _Money(**kw: Any) -> StrictInt:
    return StrictInt(validate=validate.Range(-MAX_INT, MAX_INT), **kw)


def _Amount(**kw: Any) -> StrictInt:
    return StrictInt(validate=validate.Range(0, MAX_INT), **kw)


def _Seat(**kw: Any) -> StrictInt:
    return SeatField(MAX_SEATS, **kw)


def _Seats(**kw: Any) -> fields.List[Any]:
    """A list of seats, at most one entry per seat (``BraggingSeats``)."""
    kw["metadata"] = {"wire_name": "BraggingSeats", **kw.get("metadata", {})}
    return fields.List(_Seat(), validate=validate.Length(max=MAX_SEATS), **kw)


class _SeatKeyed(fields.Field[tuple[tuple[int, Any], ...]]):
    """An object keyed by seat numbers (``{"0": ..., "2": ...}``) as (seat, value) pairs in seat order."""

    def __init__(self, inner: fields.Field[Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.inner = inner

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> tuple[tuple[int, Any], ...]:
        if not isinstance(value, Mapping):
            raise ValidationError("Must be an object keyed by seat.")
        out = []
        for key, v in value.items():
            if not (isinstance(key, str) and key.isascii() and key.isdigit() and len(key) == 1 and int(key) < MAX_SEATS):
                raise ValidationError({key: ["Not a seat."]})
            try:
                out.append((int(key), self.inner.deserialize(v)))
            except ValidationError as err:
                raise ValidationError({key: err.messages}) from None
        return tuple(sorted(out))

    def contract(self, loaded: Loaded) -> dict[str, Any]:
        """An object whose every member is as ``inner`` loads it (its keys are seat numbers)."""
        return {"type": "object", "additionalProperties": loaded.member(self.inner)}


_VALUE_LEN: Final = (2, 6)
_VALUE_MAX: Final = 100


class _Value(fields.Field[tuple[int, ...]]):
    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> tuple[int, ...]:
        lo, hi = _VALUE_LEN
        if not isinstance(value, list) or not lo <= len(value) <= hi or not all(type(v) is int and 0 <= v <= _VALUE_MAX for v in value):
            raise ValidationError("Must be a hand value [category, n1, ...].")
        return tuple(value)

    def contract(self, loaded: Loaded) -> dict[str, Any]:
        """The loader's bounds of a hand value (``BraggingValue`` states no maximum)."""
        lo, hi = _VALUE_LEN
        return {"type": "array", "minItems": lo, "maxItems": hi, "items": {"type": "integer", "minimum": 0, "maximum": _VALUE_MAX}}


SEAT: Final = seat("BraggingSeat", {"type": "integer", "minimum": 0, "maximum": MAX_SEATS - 1})
SEATS: Final = Wire({"type": "array", "maxItems": MAX_SEATS, "items": SEAT}, name="BraggingSeats")
"""The derived ``order``'s schema: the seats schema the loader's seat lists (``_Seats``) are written as."""


class ResultSchema(StrictSchema):
    WIRE_DESCRIPTION = (
        "§7.1 `last_result`: `kind` (`showdown`, `uncontested`, or `tie_carried` under the\n"
        "`carry` tie rule, when `winners` are the tied seats and nobody is paid), the pot, each\n"
        "paid seat's share, and for a showdown each active seat's value and four cards. The\n"
        "per-seat members are objects keyed by seat number.\n"
    )
    kind = StrictString(required=True, validate=validate.OneOf([k.value for k in engine.ResultKind]))
    winners = _Seats(required=True)
    pot = _Amount(required=True)
    shares = _SeatKeyed(_Amount(), required=True)
    values = _SeatKeyed(_Value(), required=True)
    hands = _SeatKeyed(_Cards(4, 4), required=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.Result:
        return engine.Result(
            engine.ResultKind(d["kind"]), tuple(d["winners"]), d["pot"], d["shares"], d["values"], d["hands"]
        )


_DERIVED: Final = ("eldest", "order")


def _Derived(text: str, contract: Wire) -> fields.Raw:
    return fields.Raw(load_only=True, metadata={"description": "Derived (ignored on input); " + text, "contract": contract})


class StateSchema(state_schema(engine.GAME, OPTIONS, engine.Options)):  # type: ignore[misc]
    """``BraggingState``: §5 plus ``seq``, ``rules_version``, ``seed``; derived values ignored."""

    WIRE_DESCRIPTION = (
        "The whole truth of a Bragging game (§5), hidden parts included. Responses carry every\n"
        "member below; on input `game`, `seq`, `rules_version`, `seed`, `options` and the derived\n"
        "values (`eldest`, `order`) may be left out, and the derived values are ignored. Invariant:\n"
        "`sum(balances) + pot + carry == 0`.\n"
    )

    players = StrictInt(required=True, validate=validate.Range(MIN_SEATS, MAX_SEATS))
    hand_number = StrictInt(required=True, validate=validate.Range(1, 10_000_000), metadata={"advances": True})
    dealer = _Seat(required=True)
    phase = StrictString(
        required=True, validate=validate.OneOf([p.value for p in engine.Phase]), metadata={"wire_name": "BraggingPhase"}
    )
    to_move = _Seat(required=True, allow_none=True, metadata={"description": "The seat to act; null once the hand is over."})
    blinds = _PerSeat(
        _Amount(), required=True, metadata={"description": "Blind / over-blind staked before the deal (0 = none), per seat."}
    )
    hidden = _PerSeat(_Hand(), required=True, metadata={"description": "Each seat's face-down cards."})
    up = _PerSeat(_Hand(), required=True, metadata={"description": "Each seat's face-up cards."})
    exposed_count = _PerSeat(
        StrictInt(allow_none=True, validate=validate.Range(0, 2)),
        required=True,
        metadata={"description": "Cards each seat turned up in the exposure phase, or null (not eligible, or not yet)."},
    )
    deck = _Cards(0, 52, required=True, metadata={"description": "Undealt cards during the deal (top first)."})
    dead = _Cards(0, 52, required=True, metadata={"description": "Cards put aside after the deal; never shown."})
    folded = _PerSeat(StrictBool(), required=True)
    contrib = _PerSeat(
        _Amount(), required=True, metadata={"description": "Each seat's bets this hand (blind included, ante excluded)."}
    )
    current_bet = _Amount(required=True)
    pending = _Seats(required=True, metadata={"description": "Seats still to act in the betting round, in seat order."})
    pot = _Amount(required=True)
    carry = _Amount(required=True, metadata={"description": "A carried tie's pot, which opens the next hand's pot."})
    balances = _PerSeat(_Money(), required=True, metadata={"description": "Net money per seat (may be negative)."})
    last_result = fields.Nested(ResultSchema, required=True, allow_none=True)
    eldest = _Derived("the seat on the dealer's left.", SEAT)
    order = _Derived("every seat from the eldest, dealer last.", SEATS)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.State:
        for name in _DERIVED:
            d.pop(name, None)
        return engine.State(
            **self.head(d),
            phase=engine.Phase(d.pop("phase")),
            pending=tuple(d.pop("pending")),
            **d,
        )


STATE: Final = StateSchema()
"""The state's loader (shape only: the engine's ``check_state`` judges consistency)."""


def dump_state(state: engine.State, derived: bool = True) -> dict[str, Any]:
    """The full state's wire form (§5), with the derived values unless ``derived`` is off."""
    out = wire_record(GAME_ID, engine.RULES_VERSION, state)
    if state.last_result is not None:
        out["last_result"] = to_wire(engine._result_wire(state.last_result))
    if derived:
        out.update(to_wire(engine.derived(state)))
    return out


_BY_TEXT: Final = by_text(FULL_PACK)


def _amount(value: Any) -> int:
    """A stake: a JSON integer (else invalid_amount, §8); its range is the engine's to judge."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise Bad("invalid_amount", "must be a positive integer")
    if abs(value) > MAX_INT:
        raise Bad("invalid_amount", f"must be a positive integer of at most {engine.MAX_STAKE}")
    return value


def _deck(value: Any) -> tuple[Card, ...]:
    """A next_deal deck: card strings (else invalid_move); the engine checks it is the chosen pack."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise Bad("invalid_move", "deck must be a list of card strings")
    if len(value) > 52 or not all(v in _BY_TEXT for v in value):
        raise Bad("invalid_deck", "deck holds a string that is not a card of the pack")
    return tuple(_BY_TEXT[v] for v in value)


def _cards_of(value: Any) -> tuple[Card, ...]:
    if not isinstance(value, list) or len(value) > 52:
        raise Bad("invalid_move", "cards must be a list of card strings")
    return tuple(CARD.parse(v) for v in value)


CARD: Final = Wire(
    {"description": "A card of the chosen pack (52 cards, or 36 with ranks 6 to A).", "$ref": ANY_CARD},
    card_of(FULL_PACK),
    "BraggingCard",
)
STAKE: Final = Wire(
    {"description": "A blind amount or raise total a move names (1 to 10^9).", "type": "integer", "minimum": 1, "maximum": engine.MAX_STAKE},
    _amount,
    "BraggingStake",
)
_TEMPLATE: Final = "In `legal_moves` only (the template); not sent with a move."
MOVES: Final = Moves(
    engine.GAME,
    description="A Bragging move (§6). Every move may carry an integer `at`, which Bragging ignores. In\n"
    "`legal_moves`, `blind` appears as a template with `min_amount` (any `amount` from it up\n"
    "to 10^9 fills it), `raise` with `min_to`, `call` with the `amount` it costs, and\n"
    "`next_deal` without `deck`.\n",
    seat=SEAT,
    moves=(
        Move(
            "blind",
            "§6.1 stake `amount` before the deal: the eldest's blind, or a later seat's over-blind (more than the\n"
            "highest so far).\n",
            {
                "amount": Field(STAKE, contract_required=False),
                "min_amount": Field(Wire({"description": _TEMPLATE, "$ref": STAKE}), required=False, sent=False),
            },
        ),
        Move("no_blind", "§6.1 stake nothing before the deal (the eldest's no_blind ends the blind phase)."),
        Move(
            "expose",
            "§6.2 turn up 0, 1 or 2 of the first two cards; §6.3 the dealer turns up exactly 2 of his 4 (any\norder).\n",
            {"cards": Wire({"type": "array", "maxItems": 2, "items": CARD}, _cards_of)},
        ),
        Move("fold", "§6.4 pass: out of the hand."),
        Move("check", "§6.4 stay in without paying (not while facing a bet)."),
        Move(
            "call",
            "§6.4 match the current bet. `amount` is listed (what the call costs); a move may leave it out or\n"
            "send exactly that.\n",
            {"amount": optional(STAKE)},
        ),
        Move(
            "raise",
            "§6.4 raise the bet to the new total `to` (at least the current bet + `min_raise`).",
            {
                "to": Field(STAKE, contract_required=False),
                "min_to": Field(Wire({"description": _TEMPLATE, "$ref": STAKE}), required=False, sent=False),
            },
        ),
        next_deal(
            "§6.5 the next dealer starts the next hand, from `deck` (top card first) or a shuffle.",
            CARD,
            "The whole chosen pack (52 or 36 cards), top card first (`invalid_deck` otherwise).",
            _deck,
            (36, 52),
        ),
    ),
)

# --- what the game sends: views (§5), events, scores --------------------------------------------

_STATE: Final = View(Loaded(MOVES.prefix, CARD, SEAT).state(STATE))
_CARDS: Final = _STATE.part("BraggingCards")
_RESULT: Final = _STATE.part("BraggingResult").schema["properties"]
AMOUNT: Final = Wire({"description": "A sum of money (never negative).", "type": "integer", "minimum": 0}, name="BraggingAmount")
PER_SEAT_INT: Final = Wire(
    {"description": "One integer per seat.", "type": "array", "minItems": MIN_SEATS, "maxItems": MAX_SEATS,
     "items": {"type": "integer"}},
    name="BraggingPerSeatInt",
)
VALUE: Final = Wire(
    {"description": "A hand value `[category, n1, n2, …]` (§7.2); compared element by element.", "type": "array",
     "minItems": _VALUE_LEN[0], "maxItems": _VALUE_LEN[1], "items": {"type": "integer", "minimum": 0}},
    name="BraggingValue",
)
_VIEW: Final = {
    **_STATE.members("game", "seq", "rules_version", "options", "players", "hand_number", "dealer", "phase", "to_move",
                     "blinds"),
    "hidden_counts": described("How many face-down cards each seat holds.", PER_SEAT_INT),
    **_STATE.members("up", "exposed_count"),
    "deck_count": {"type": "integer", "minimum": 0, "maximum": 52},
    "dead_count": {"type": "integer", "minimum": 0, "maximum": 52},
    **_STATE.members("folded", "contrib", "current_bet", "pending", "pot", "carry", "balances", "last_result"),
}
VIEW: Final = seat_views(
    MOVES,
    "Bragging",
    _VIEW,
    seat=SEAT,
    own={"hand": described("This seat's face-down cards.", _CARDS)},
    public={},
    description="What one seat may see (§5), or the public view (`seat` null): everything but face-down\n"
    "cards, with their counts; a seat also sees its own face-down cards (`hand`), and the view\n"
    "of the seat to move lists its `legal_moves`. Showdown hands are in `last_result`.\n",
)
EVENTS: Final = events(MOVES.prefix, "Bragging", (
    Event("hand_started", {"hand_number": {"type": "integer", "minimum": 1}, "dealer": SEAT, "ante": AMOUNT, "pot": AMOUNT},
          description="A hand begins; every seat has paid the ante (`pot` includes a carried pot)."),
    Event("blind", {"player": SEAT, "amount": STAKE}),
    Event("no_blind", {"player": SEAT}),
    Event("cards_dealt", {"player": SEAT, "face_down": nullable(_CARDS), "face_up": _CARDS},
          description="Cards dealt to one seat (rounds 1–2, or 3–4); `face_down` is null for other viewers."),
    Event("expose", {"player": SEAT, "cards": _CARDS}),
    Event("fold", {"player": SEAT}),
    Event("check", {"player": SEAT}),
    Event("call", {"player": SEAT, "amount": described("What the call paid.", STAKE)}),
    Event("raise", {"player": SEAT, "to": STAKE, "amount": described("What the raise paid.", AMOUNT)}),
    Event(
        "hand_over",
        {"kind": _RESULT["kind"], "winners": _RESULT["winners"], "pot": AMOUNT,
         "shares": {"type": "object", "additionalProperties": AMOUNT},
         "values": {"type": "object", "additionalProperties": VALUE}, "hands": _RESULT["hands"]},
        description="The hand's result, as `last_result`.",
    ),
    Event("game_over", {"winner": SEATS},
          description="Hand N of the `hands` option has ended: `winner` = the seats with the highest balance."),
))
SCORES: Final = Wire(
    obj(
        {"totals": PER_SEAT_INT, "pot": AMOUNT, "carry": AMOUNT, "contrib": PER_SEAT_INT},
        description="`totals` = balances; the pot, the carried amount and this hand's bets (`contrib`).",
    ),
    name="BraggingScores",
)

CONTRACT: Final = Contract(
    MOVES, CARD, "BraggingSeat", title="Bragging (Russian four-card brag)", state=STATE, view=VIEW,
    events=EVENTS, scores=SCORES,
)
"""What openapi.yaml's request and answer schemas for the game are written from (``wrappers``)."""
