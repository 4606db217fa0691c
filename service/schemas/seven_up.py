"""Seven Up's wire forms (seven_up.md §3, §5, §6): options, state, moves.

Names match openapi.yaml one to one: ``SevenUpOptions`` ↔ ``OPTIONS``, ``SevenUpState`` ↔
``StateSchema``, ``SevenUpMove`` ↔ ``MOVES``.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Any, Final

from marshmallow import RAISE, Schema, fields, post_load, validate

from ..engines import seven_up as engine
from .common import (
    options_schema,
    state_schema,
    to_wire,
)
from .fields import CardField, CardList, FastSchema, SeatField, StrictBool, StrictInt, StrictSchema, StrictString, SuitField
from .loaded import Loaded
from .moves import ANY_CARD, SUIT, Bad, Field, Move, Moves, Wire, card_of, deck_of, next_deal, seat
from .sent import Event, View, events, legal_moves, nullable, obj
from .wrappers import Contract

GAME_ID: Final = engine.GAME_ID
PACK: Final = engine.PACK
MAX_SCORE: Final = 100_000


class _StartScores(fields.Field[tuple[int, ...]]):
    """``start_scores``: a list of 2 or 3 non-negative integers, or ``[]`` (all 0)."""

    default_error_messages = {"invalid": "Must be [] or a list of 2 or 3 integers from 0."}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> tuple[int, ...]:
        if (
            not isinstance(value, list)
            or len(value) not in (0, 2, 3)
            or not all(type(v) is int and 0 <= v <= MAX_SCORE for v in value)
        ):
            raise self.make_error("invalid")
        return tuple(value)


def _options_schema() -> Schema:
    scalar = {k: v for k, v in engine.OPTION_INFO.items() if k != "start_scores"}
    base = type(options_schema(engine.Options, scalar))
    declared = {**base._declared_fields, "start_scores": _StartScores(load_default=())}
    return FastSchema.from_dict(declared, name="seven_up.OptionsSchema")(unknown=RAISE)


OPTIONS: Final = _options_schema()


def _Card(**kw: Any) -> CardField:
    return CardField(PACK, **kw)


def _Seat(**kw: Any) -> StrictInt:
    """A seat 0 .. 3 (the engine checks it against ``players``): the contract's ``SevenUpSeat``."""
    return SeatField(4, **kw)


def _Party(**kw: Any) -> StrictInt:
    """A scoring party 0 .. 2 (the engine checks it against the parties): ``SevenUpParty``."""
    meta = {
        "wire_name": "SevenUpParty",
        "wire_description": "A scoring party: the seat with 2 or 3 players; with 4, seat % 2 (0 = seats 0 and 2).",
        **kw.pop("metadata", {}),
    }
    return StrictInt(validate=validate.Range(0, 2), metadata=meta, **kw)


def _Cards(hi: int = 52, **kw: Any) -> CardList:
    return CardList(PACK, 0, hi, **kw)


def _Pile(description: str | None = None, **kw: Any) -> CardList:
    """A list of the pack's cards: the contract's ``SevenUpCards`` (``description`` is the member's)."""
    meta: dict[str, Any] = {"wire_name": "SevenUpCards"}
    if description is not None:
        meta["description"] = description
    return _Cards(metadata=meta, **kw)


def _PerSeat(**kw: Any) -> fields.List[Any]:
    """One list of cards per seat: the contract's ``SevenUpPerSeatCards``."""
    return fields.List(_Pile(), validate=validate.Length(2, 4), metadata={"wire_name": "SevenUpPerSeatCards"}, **kw)


def _Ints(lo: int, hi: int, min_len: int, max_len: int, **kw: Any) -> fields.List[Any]:
    return fields.List(StrictInt(validate=validate.Range(lo, hi)), validate=validate.Length(min_len, max_len), **kw)


_PARTY_SCORES: Final = "One non-negative integer per party (2 with 2 or 4 players, 3 with 3)."
"""The text of ``SevenUpPartyScores``, which the events' and the scores' party scores refer to; the
state's scores and game totals (and the views', which are the state's) say it beside their own
bounds (the loader's) instead of referring to it."""




class TrickCardSchema(StrictSchema):
    player = _Seat(required=True)
    card = _Card(required=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.TrickCard:
        return engine.TrickCard(d["player"], d["card"])


class TrickSchema(StrictSchema):
    WIRE_DESCRIPTION = "A completed trick, its cards in play order."
    leader = _Seat(required=True)
    cards = fields.List(fields.Nested(TrickCardSchema), required=True, validate=validate.Length(2, 4))
    winner = _Seat(required=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.Trick:
        return engine.Trick(d["leader"], tuple(d["cards"]), d["winner"])


class HandEventSchema(StrictSchema):
    WIRE_DESCRIPTION = "§7.1 a point scored during trump-making: a turned jack (card = the jack) or a gift."
    event = StrictString(required=True, validate=validate.OneOf(("turned_jack", "gift")))
    party = _Party(required=True)
    points = StrictInt(required=True, validate=validate.Equal(1))
    card = _Card(required=True, allow_none=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.HandEvent:
        return engine.HandEvent(d["event"], d["party"], d["points"], d["card"])


class AwardSchema(StrictSchema):
    WIRE_DESCRIPTION = "§7.3 one end-of-hand point: `seat` = holder (high, low) or trick winner (jack), null for game."
    point = StrictString(required=True, validate=validate.OneOf(("high", "low", "jack", "game")))
    card = _Card(required=True, allow_none=True)
    seat = _Seat(required=True, allow_none=True)
    party = _Party(required=True, allow_none=True)
    credited = StrictBool(required=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.Award:
        return engine.Award(d["point"], d["card"], d["seat"], d["party"], d["credited"])


class LastHandSchema(StrictSchema):
    WIRE_DESCRIPTION = "§7.3 the record of the last completed hand: High, Low, Jack, Game in that order."
    deal_number = StrictInt(required=True, validate=validate.Range(1, 10**9))
    trump = SuitField(required=True)
    awards = fields.List(fields.Nested(AwardSchema), required=True, validate=validate.Length(equal=4))
    game_totals = _Ints(0, 80, 2, 3, required=True, metadata={"description": _PARTY_SCORES})

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.LastHand:
        return engine.LastHand(d["deal_number"], d["trump"], tuple(d["awards"]), tuple(d["game_totals"]))


class StateSchema(state_schema(engine.GAME, OPTIONS, engine.Options)):  # type: ignore[misc]
    """``SevenUpState``: §5 plus ``seq``, ``rules_version``, ``seed``."""

    WIRE_DESCRIPTION = (
        "The whole truth of a Seven Up match (§5), hidden parts included. On input `game`, `seq`,\n"
        "`rules_version`, `seed` and `options` may be left out (`seq` then counts from 0, `options`\n"
        "take their defaults). Any other member is 422 `invalid_state`. After a void deal the\n"
        "cards stay where they lay (hands, stock, `set_aside`) until `next_deal`.\n"
    )

    players = StrictInt(required=True, validate=validate.OneOf(engine.PLAYER_COUNTS))
    phase = StrictString(
        required=True, validate=validate.OneOf([p.value for p in engine.Phase]), metadata={"wire_name": "SevenUpPhase"}
    )
    deal_number = StrictInt(
        required=True,
        validate=validate.Range(1, 10**9),
        metadata={"description": "1, 2, … (void deals count too).", "advances": True},
    )
    dealer = _Seat(required=True)
    eldest = _Seat(required=True)
    to_move = fields.List(
        _Seat(),
        required=True,
        validate=validate.Length(0, 4),
        metadata={"description": "The seats that may move now (several only in `discard`, in dealing order)."},
    )
    scores = _Ints(0, MAX_SCORE, 2, 3, required=True, metadata={"description": _PARTY_SCORES})
    hands = _PerSeat(required=True)
    stock = _Pile("Undealt cards, top first.", required=True)
    turnup = _Card(
        required=True,
        allow_none=True,
        metadata={"description": "The current turn-up (the trump card once trump is fixed), or null."},
    )
    first_suit = SuitField(
        required=True, allow_none=True, metadata={"description": "Suit of the first turn-up of this deal."}
    )
    set_aside = _Pile("Turn-ups put aside while running, in order.", required=True)
    runs = StrictInt(
        required=True, validate=validate.Range(0, 10), metadata={"description": "Packet rounds dealt while running."}
    )
    begged = StrictBool(required=True)
    trump = SuitField(required=True, allow_none=True)
    discards = _PerSeat(required=True)
    trick = fields.List(
        fields.Nested(TrickCardSchema),
        required=True,
        validate=validate.Length(max=4),
        metadata={
            "description": "The trick in progress, in play order.",
            # check_state: fewer cards than seats (a trick of as many is complete, in ``tricks``)
            "contract": {"type": "array", "maxItems": 3, "items": {"$ref": "#/components/schemas/SevenUpTrickCard"}},
        },
    )
    trick_leader = _Seat(required=True, allow_none=True)
    tricks = fields.List(fields.Nested(TrickSchema), required=True, validate=validate.Length(max=26))
    hand_events = fields.List(fields.Nested(HandEventSchema), required=True, validate=validate.Length(max=8))
    last_hand = fields.Nested(LastHandSchema, required=True, allow_none=True)
    redeal = StrictBool(
        required=True, metadata={"description": "True while waiting for the same dealer's redeal after a void deal."}
    )
    winner = _Party(required=True, allow_none=True, metadata={"description": "The winning party, or null."})

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.State:
        return engine.State(
            **self.head(d),
            phase=engine.Phase(d.pop("phase")),
            to_move=tuple(d.pop("to_move")),
            scores=tuple(d.pop("scores")),
            hands=tuple(d.pop("hands")),
            discards=tuple(d.pop("discards")),
            trick=tuple(d.pop("trick")),
            tricks=tuple(d.pop("tricks")),
            hand_events=tuple(d.pop("hand_events")),
            **d,
        )


STATE: Final = StateSchema()
"""The state's loader (shape only: the engine's ``check_state`` judges consistency)."""


_TEXT: Final = {c: str(c) for c in PACK}


@lru_cache(maxsize=256)
def _options_wire(options: engine.Options) -> dict[str, Any]:
    return to_wire(options)  # type: ignore[no-any-return]


def _trick_cards(cards: tuple[engine.TrickCard, ...]) -> list[dict[str, Any]]:
    text = _TEXT
    return [{"player": t.player, "card": text[t.card]} for t in cards]


def dump_state(state: engine.State, derived: bool = True) -> dict[str, Any]:
    """The full state's wire form (§5): ``to_wire`` of every field, written out for speed (the
    invariant suite checks it against the generic form)."""
    text = _TEXT
    s = state
    out: dict[str, Any] = {
        "game": GAME_ID,
        "rules_version": engine.RULES_VERSION,
        "options": dict(_options_wire(s.options)),
        "players": s.players,
        "phase": s.phase.value,
        "deal_number": s.deal_number,
        "dealer": s.dealer,
        "eldest": s.eldest,
        "to_move": list(s.to_move),
        "scores": list(s.scores),
        "hands": [[text[c] for c in h] for h in s.hands],
        "stock": [text[c] for c in s.stock],
        "turnup": None if s.turnup is None else text[s.turnup],
        "first_suit": None if s.first_suit is None else s.first_suit.value,
        "set_aside": [text[c] for c in s.set_aside],
        "runs": s.runs,
        "begged": s.begged,
        "trump": None if s.trump is None else s.trump.value,
        "discards": [[text[c] for c in d] for d in s.discards],
        "trick": _trick_cards(s.trick),
        "trick_leader": s.trick_leader,
        "tricks": [{"leader": t.leader, "cards": _trick_cards(t.cards), "winner": t.winner} for t in s.tricks],
        "hand_events": to_wire(s.hand_events),
        "last_hand": to_wire(s.last_hand),
        "redeal": s.redeal,
        "winner": s.winner,
        "seq": s.seq,
        "seed": s.seed,
    }
    if derived:
        out.update(engine.derived(state))
    return out


CARD: Final = replace(ANY_CARD, parse=card_of(PACK))
SEAT: Final = seat(
    "SevenUpSeat", {"description": "A seat, 0 to players - 1 (2, 3 or 4 players).", "type": "integer", "minimum": 0, "maximum": 3}
)


def _cards(value: Any) -> tuple[Any, ...]:
    """A discard's ``cards``: a list of strings (else invalid_move), each a card (else invalid_card)."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise Bad("invalid_move", "cards must be a list of card strings")
    if len(value) > len(PACK):
        raise Bad("invalid_move", "cards lists more cards than the pack holds")
    return tuple(CARD.parse(v) for v in value)


MOVES: Final = Moves(
    engine.GAME,
    description="A Seven Up move (§6). Every move may carry an integer `at` (a client timestamp), which\n"
    "Seven Up ignores. In `legal_moves`, `next_deal` appears without `deck` and `discard` as a\n"
    "template with `count` instead of `cards` (any `count` distinct cards of the hand fill it).\n",
    seat=SEAT,
    moves=(
        Move("stand", "§6.1 the eldest is content with the turned-up suit."),
        Move("beg", "§6.1 the eldest begs."),
        Move("give", "§6.2 the dealer answers a beg with take one (the eldest's party scores 1)."),
        Move("run", "§6.2 the dealer runs the cards until a new suit is turned or the pack runs out."),
        Move(
            "discard",
            "§6.3 discard down to six: `cards` lists exactly `len(hand) - 6` distinct cards of the hand.\n"
            "Listed moves are templates carrying `count` (that number) instead of `cards`. A move sent carries "
            "`cards`; one with `count` and no `cards` is `invalid_move`.\n",
            {
                "cards": Field(
                    Wire({"type": "array", "maxItems": 52, "items": CARD}, _cards, "SevenUpCards"), contract_required=False
                ),
                "count": Field(Wire({"type": "integer", "minimum": 1}), required=False, sent=False),
            },
        ),
        Move("play", "§6.4 play `card` to the trick (§6.5 follow rules).", {"card": CARD}, examples=[{"type": "play", "player": 1, "card": "KS"}]),
        next_deal(
            "§6.6 the dealer of the coming deal deals, from `deck` (top card first) or a shuffle.",
            CARD,
            "All 52 cards, top card first (`invalid_deck` otherwise).",
            deck_of(PACK),
            (52, 52),
        ),
    ),
)

# --- what the game sends: views (§5), events, scores (§7) -------------------------------------

_STATE: Final = View(Loaded(MOVES.prefix, CARD, SEAT).state(STATE))
_PARTY: Final = _STATE.part("SevenUpParty")
_CARDS: Final = _STATE.part("SevenUpCards")
PARTY_SCORES: Final = Wire(
    {"description": _PARTY_SCORES, "type": "array", "minItems": 2, "maxItems": 3, "items": {"type": "integer", "minimum": 0}},
    name="SevenUpPartyScores",
)
# The views' nullable members keep the contract's named forms (the state writes them in place).
NULLABLE_CARD: Final = Wire(nullable(CARD), name="SevenUpNullableCard")
NULLABLE_SUIT: Final = Wire(nullable(SUIT), name="SevenUpNullableSuit")
NULLABLE_SEAT: Final = Wire(nullable(SEAT), name="SevenUpNullableSeat")
NULLABLE_PARTY: Final = Wire(nullable(_PARTY), name="SevenUpNullableParty")


def _per_seat(items: Any) -> dict[str, Any]:
    """One ``items`` per seat (2 to 4)."""
    return {"type": "array", "minItems": 2, "maxItems": 4, "items": items}


_COUNTS: Final = _per_seat({"type": "integer", "minimum": 0})
VIEW: Final = Wire(
    obj(
        {
            **_STATE.members("game"),
            "seat": NULLABLE_SEAT,
            **_STATE.members("seq", "rules_version", "options", "players", "phase", "deal_number", "dealer", "eldest",
                             "to_move", "scores"),
            "hands": _per_seat(nullable(_CARDS)),
            "hand_counts": _COUNTS,
            "stock_count": {"type": "integer", "minimum": 0, "maximum": 52},
            "turnup": NULLABLE_CARD,
            "first_suit": NULLABLE_SUIT,
            **_STATE.members("set_aside", "runs", "begged"),
            "trump": NULLABLE_SUIT,
            "discards": _per_seat(nullable(_CARDS)),
            "discard_counts": _COUNTS,
            **_STATE.members("trick"),
            "trick_leader": NULLABLE_SEAT,
            **_STATE.members("tricks", "hand_events", "last_hand", "redeal"),
            "winner": NULLABLE_PARTY,
            "legal_moves": legal_moves(MOVES),
        },
        optional=("legal_moves",),
        description="What one seat may see (§5), or the public view (`seat` null). `hands[s]` and `discards[s]`\n"
        "are null except the viewer's own; with four players and `blind_partners`, the dealer's\n"
        "partner and the pone also see null for their own hand until trump is fixed. `legal_moves`\n"
        "appears only in the view of a seat to move.\n",
    ),
    name="SevenUpView",
)
_ONE: Final = {"const": 1, "type": "integer"}
EVENTS: Final = events(MOVES.prefix, "Seven Up", (
    Event("deal_started", {"dealer": SEAT, "deal_number": {"type": "integer", "minimum": 1}, "turnup": CARD}),
    Event("turned_jack", {"player": SEAT, "party": _PARTY, "points": _ONE, "card": CARD},
          description="§7.1 the dealer's party scores 1 for a turned jack (`player` = the dealer).", name="Point"),
    Event("gift", {"player": SEAT, "party": _PARTY, "points": _ONE, "card": {"type": "null"}},
          description="§7.1 take one: `player` (a recipient) scores 1 for `party`."),
    Event("stand", {"player": SEAT}),
    Event("beg", {"player": SEAT}),
    Event("give", {"player": SEAT}),
    Event("run", {"player": SEAT}),
    Event("cards_run", {"set_aside": CARD, "turnup": CARD},
          description="One round of running: the old turn-up set aside, a packet to each seat, a new turn-up."),
    Event("trump_fixed", {"suit": SUIT, "turnup": CARD}, description="Running turned a new suit; it is trump."),
    Event("deal_void", {"dealer": SEAT, "set_aside": CARD},
          description="The pack ran out while running; the same dealer deals again (`set_aside` = the last turn-up put\n"
          "aside).\n"),
    Event("discarded", {"player": SEAT, "count": {"type": "integer", "minimum": 1}},
          description="A seat discarded `count` cards face down."),
    Event("card_played", {"player": SEAT, "card": CARD}),
    Event("trick_won", {"player": SEAT, "leader": SEAT,
                        "cards": {"description": "The trick's cards in play order.", "type": "array", "minItems": 2,
                                  "maxItems": 4, "items": CARD}}),
    Event(
        "hand_scored",
        {"awards": {"type": "array", "minItems": 4, "maxItems": 4, "items": _STATE.part("SevenUpAward")},
         "game_totals": PARTY_SCORES, "scores": PARTY_SCORES},
        description="§7.3 the hand counted out: awards in order High, Low, Jack, Game; `scores` after crediting.",
    ),
    Event("game_over", {"winner": {"description": "The winning party's seats.", "type": "array", "items": SEAT},
                        "party": _PARTY}),
))
SCORES: Final = Wire(
    obj(
        {"totals": _COUNTS, "parties": PARTY_SCORES, "game_totals": PARTY_SCORES},
        description="`totals` per seat (partners show their party's score), `parties` per party, and this hand's Game\n"
        "totals so far.\n",
    ),
    name="SevenUpScores",
)

CONTRACT: Final = Contract(
    MOVES, CARD, "SevenUpSeat", state=STATE, view=VIEW, events=EVENTS, scores=SCORES,
    option_schemas={"start_scores": {"maxItems": 3, "items": {"type": "integer", "minimum": 0}}},
)
"""What openapi.yaml's request and answer schemas for the game are written from (``wrappers``)."""
