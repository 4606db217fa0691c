"""Yukon's wire forms (yukon.md §5, §6): options, state, moves.

Names match openapi.yaml one to one: ``YukonOptions`` ↔ ``OPTIONS``, ``YukonState`` ↔
``StateSchema``, ``YukonMove`` ↔ ``MOVES``.

Cards in states and moves are read against the full 52-card pack: whether a card belongs to *this*
game's pack (three players play without one two, chosen by an option) is the engine's judgement
(``invalid_card`` after ``not_your_turn`` in §8; ``check_state`` for a state).
"""

from __future__ import annotations

from typing import Any, Final

from marshmallow import ValidationError, fields, post_load, validate

from ..cards import Card
from ..cards.packs import by_text
from ..engines import yukon as engine
from .common import (
    options_schema,
    state_schema,
)
from .fields import CardField, CardList, SeatField, StrictInt, StrictSchema, StrictString
from .loaded import Loaded
from .moves import ANY_CARD, Bad, Move, Moves, Wire, card_of, next_deal, seat
from .sent import Event, View, described, events, legal_moves, nullable, obj
from .wrappers import Contract

GAME_ID: Final = engine.GAME_ID
PACK: Final = engine.FULL_PACK
OPTIONS: Final = options_schema(engine.Options, engine.OPTION_INFO)
MAX_SCORE: Final = 2**53 - 1
MAX_SEAT: Final = max(engine.PLAYER_COUNTS) - 1


def _Seat(**kw: Any) -> StrictInt:
    return SeatField(MAX_SEAT + 1, **kw)  # below the player count: check_state


def _Side(**kw: Any) -> StrictInt:
    return StrictInt(validate=validate.Range(0, MAX_SEAT), **kw)  # below the side count: check_state


def _Ints(**kw: Any) -> fields.List[Any]:
    """One non-negative integer per side (2 to 4 sides; the exact count is check_state's)."""
    return fields.List(StrictInt(validate=validate.Range(0, MAX_SCORE)), validate=validate.Length(2, 4), **kw)


def _Hands(**kw: Any) -> fields.List[Any]:
    """One list of cards per seat."""
    return fields.List(CardList(PACK, 0, len(PACK)), required=True, validate=validate.Length(2, 4), **kw)


SEAT: Final = seat(
    "YukonSeat", {"description": "A seat, below the player count (2, 3 or 4).", "type": "integer", "minimum": 0, "maximum": 3}
)
CARD: Final = Wire(
    {"description": "A card of the 52-card pack (three players play without the option `removed_two`).", "$ref": ANY_CARD},
    card_of(PACK),
    "YukonCard",
)
PER_SEAT: Final = Wire(
    {"description": "One non-negative integer per seat.", "type": "array", "minItems": 2, "maxItems": 4,
     "items": {"type": "integer", "minimum": 0}},
    name="YukonPerSeat",
)
"""Per-seat counts the state derives (and views and scores carry): not checked on input."""
SIDES: Final = Wire(
    {"description": "The side of each seat (§2), e.g. `[0, 1, 0, 1]` for four partnered players.", "type": "array",
     "minItems": 2, "maxItems": 4, "items": {"type": "integer", "minimum": 0, "maximum": 3}},
    name="YukonSides",
)
"""Each seat's side, derived (and carried by views and scores): not checked on input."""


def _Derived(contract: Any) -> fields.Raw:
    return fields.Raw(load_only=True, metadata={"description": "Derived (ignored on input).", "contract": contract})


class PlayedSchema(StrictSchema):
    WIRE_DESCRIPTION = "A card and the seat that played it."
    player = _Seat(required=True)
    card = CardField(PACK, required=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.Played:
        return engine.Played(d["player"], d["card"])


class LastTrickSchema(StrictSchema):
    cards = fields.List(
        fields.Nested(PlayedSchema),
        required=True,
        validate=validate.Length(2, 4),
        metadata={"description": "The trick's cards in play order."},
    )
    winner = _Seat(required=True)
    points = StrictInt(
        required=True, validate=validate.Range(0, engine.HAND_POINTS_TOTAL), metadata={"description": "Card points of the trick (§2)."}
    )
    draws = fields.List(
        fields.Nested(PlayedSchema),
        required=True,
        validate=validate.Length(max=4),
        metadata={"description": "The draws after the trick, the winner first; `[]` once the stock is empty."},
    )

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.LastTrick:
        return engine.LastTrick(tuple(d["cards"]), d["winner"], d["points"], tuple(d["draws"]))


_LAST_TRICK: Final = Loaded("Yukon", CARD, SEAT).nested(LastTrickSchema).schema
"""The state's ``last_trick`` object, written in place (the loader's own nested wire, unnamed):
``YukonLastTrick`` is the views' shape, whose draws may hide their card (``null``), which a posted
state's may not."""

_DERIVED: Final = ("hand_counts", "stock_count", "won_counts", "sides")


_SEED_TEXT: Final = "The game's seed, kept so that later hands stay reproducible; `null` if none."


class StateSchema(state_schema(engine.GAME, OPTIONS, engine.Options, seed_text=_SEED_TEXT)):  # type: ignore[misc]
    """``YukonState``: §5 plus ``seq``, ``rules_version``, ``seed``; derived values ignored."""

    WIRE_DESCRIPTION = (
        "The whole truth of a Yukon game (§5), hidden parts included. Responses carry every member\n"
        "below; on input `game`, `seq`, `rules_version`, `seed`, `options` and the derived values\n"
        "(`hand_counts`, `stock_count`, `won_counts`, `sides`) may be left out (`seq` then counts\n"
        "from 0, `options` take their defaults), and the derived values are ignored. Any other\n"
        "member is 422 `invalid_state`.\n"
    )

    players = StrictInt(required=True, validate=validate.OneOf(engine.PLAYER_COUNTS))
    phase = StrictString(
        required=True, validate=validate.OneOf([p.value for p in engine.Phase]), metadata={"wire_name": "YukonPhase"}
    )
    dealer = _Seat(required=True)
    hand_number = StrictInt(required=True, validate=validate.Range(1, 10_000_000), metadata={"advances": True})
    hands = _Hands(metadata={"description": "Each seat's cards (dealt order, drawn cards appended)."})
    stock = CardList(PACK, 0, len(PACK), required=True, metadata={"description": "The face-down stock, top first."})
    trick = fields.List(
        fields.Nested(PlayedSchema),
        required=True,
        validate=validate.Length(max=3),
        metadata={"wire_name": "YukonTrick", "wire_description": "The trick in progress, in play order (the leader first)."},
    )
    leader = _Seat(required=True)
    to_move = _Seat(required=True, allow_none=True, metadata={"description": "The seat to play; `null` outside phase `play`."})
    won = _Hands(metadata={"description": "The cards each seat has taken in tricks this hand, in play order."})
    last_trick = fields.Nested(
        LastTrickSchema,
        required=True,
        allow_none=True,
        metadata={
            "description": "The latest completed trick (§5), `null` before the first one of a hand.",
            "contract": _LAST_TRICK,
        },
    )
    hand_points = _Ints(
        required=True, allow_none=True, metadata={"description": "Points per side of the finished hand; `null` during play."}
    )
    scores = _Ints(required=True, metadata={"description": "Running points per side, finished hands included."})
    winner = _Side(
        required=True, allow_none=True, metadata={"description": "The winning side once the game is over, else `null`."}
    )
    hand_counts = _Derived(PER_SEAT)
    stock_count = _Derived({"type": "integer", "minimum": 0, "maximum": 42})
    won_counts = _Derived(PER_SEAT)
    sides = _Derived(SIDES)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.State:
        for name in _DERIVED:
            d.pop(name, None)
        trick = d.pop("trick")
        n = d["players"]
        if any(e.player != (d["leader"] + i) % n for i, e in enumerate(trick)):
            raise ValidationError("the trick is played from the leader on, one seat after another", "trick")
        hand_points = d.pop("hand_points")
        return engine.State(
            **self.head(d),
            phase=engine.Phase(d.pop("phase")),
            hands=tuple(d.pop("hands")),
            trick=tuple(e.card for e in trick),
            won=tuple(d.pop("won")),
            hand_points=None if hand_points is None else tuple(hand_points),
            scores=tuple(d.pop("scores")),
            **d,
        )


STATE: Final = StateSchema()
"""The state's loader (shape only: the engine's ``check_state`` judges consistency)."""


_TEXT: Final = {c: str(c) for c in PACK}


def _played(entries: tuple[engine.Played, ...]) -> list[dict[str, Any]]:
    return [{"player": p, "card": _TEXT[c]} for p, c in entries]


def dump_state(state: engine.State, derived: bool = True) -> dict[str, Any]:
    """The full state's wire form (§5), with the derived values unless ``derived`` is off.

    Written out field by field (not through the generic ``to_wire``): responses and the invariant
    suite dump a state per move.
    """
    text = _TEXT
    n, leader = state.players, state.leader
    last = state.last_trick
    out: dict[str, Any] = {
        "game": GAME_ID,
        "rules_version": engine.RULES_VERSION,
        "options": _options(state.options),
        "players": n,
        "phase": state.phase.value,
        "dealer": state.dealer,
        "hand_number": state.hand_number,
        "hands": [[text[c] for c in h] for h in state.hands],
        "stock": [text[c] for c in state.stock],
        "trick": [{"player": (leader + i) % n, "card": text[c]} for i, c in enumerate(state.trick)],
        "leader": leader,
        "to_move": state.to_move,
        "won": [[text[c] for c in w] for w in state.won],
        "last_trick": None if last is None else {
            "cards": _played(last.cards), "winner": last.winner, "points": last.points, "draws": _played(last.draws),
        },
        "hand_points": None if state.hand_points is None else list(state.hand_points),
        "scores": list(state.scores),
        "winner": state.winner,
        "seq": state.seq,
        "seed": state.seed,
    }
    if derived:
        out.update(engine.derived(state))  # plain ints and lists of ints
    return out


def _options(options: engine.Options) -> dict[str, Any]:
    return {"dealer": options.dealer, "partnerships": options.partnerships, "target": options.target,
            "removed_two": options.removed_two}


_CARDS: Final = by_text(PACK)


def _deck(value: Any) -> tuple[Card, ...]:
    """A next_deal deck: a list of card strings (else invalid_move), each a card (else invalid_deck).

    Whether it is exactly this game's pack (51 cards for three players) is checked by the engine.
    """
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise Bad("invalid_move", "deck must be a list of card strings")
    out = []
    for i, text in enumerate(value):
        card = _CARDS.get(text)
        if card is None:
            raise Bad("invalid_deck", f"deck[{i}] = {text!r} is not a card")
        out.append(card)
    return tuple(out)


MOVES: Final = Moves(
    engine.GAME,
    description="A Yukon move (§6). Every move may carry an integer `at` (a client timestamp), which Yukon\n"
    "ignores. In `legal_moves`, `next_deal` appears without `deck`.\n",
    seat=SEAT,
    moves=(
        Move("play", "§6.1 lead or follow with `card`.", {"card": CARD}, examples=[{"type": "play", "player": 1, "card": "AH"}]),
        next_deal(
            "§6.2 the new dealer (left of the last one) deals the next hand, from `deck` (top card first) or a\nshuffle.\n",
            CARD,
            "The game's pack, top card first (52 cards, or 51 for three players; `invalid_deck` otherwise).",
            _deck,
            (51, 52),
        ),
    ),
)

# --- what the game sends: views (§5), events and scores (§7) -------------------------------------

_STATE: Final = View(Loaded(MOVES.prefix, CARD, SEAT).state(STATE))
CARDS: Final = Wire({"type": "array", "items": CARD}, name="YukonCards")
"""A seat's own hand in its view."""
PER_SIDE: Final = Wire(
    {"description": "One non-negative integer per side (§2): 2 with partnerships, else one per seat.", "type": "array",
     "minItems": 2, "maxItems": 4, "items": {"type": "integer", "minimum": 0}},
    name="YukonPerSide",
)
"""Points per side, as the events and scores carry them."""
_PLAYED: Final = _STATE.part("YukonPlayed")
DRAW: Final = Wire(
    obj(
        {"player": SEAT, "card": nullable(CARD)},
        description="A card drawn after the trick; `null` in the views of the other seats.",
    ),
    name="YukonDraw",
)
LAST_TRICK: Final = Wire(
    {
        "description": _STATE.member("last_trick")["description"],
        "anyOf": [
            {"type": "null"},
            {**_LAST_TRICK, "properties": {**_LAST_TRICK["properties"],
                                           "draws": {**_LAST_TRICK["properties"]["draws"], "items": DRAW}}},
        ],
    },
    name="YukonLastTrick",
)
"""The state's ``last_trick`` as the views show it: a draw's card only to the seat that drew it."""
_HAND_POINTS: Final = "Points per side of the finished hand; `null` during play."
VIEW: Final = Wire(
    obj(
        {
            **_STATE.members("game"),
            "seat": nullable(SEAT),
            **_STATE.members("seq", "rules_version", "options", "players", "phase", "dealer", "hand_number"),
            "hand": described("The seat's own cards (absent from the public view).", CARDS),
            **_STATE.members("hand_counts", "stock_count", "trick", "leader", "to_move", "won_counts"),
            "won": described("`null` during play; every seat's won cards once the hand is over.",
                             nullable(_STATE.member("won"))),
            "last_trick": LAST_TRICK,
            **_STATE.members("hand_points", "scores", "sides", "winner"),
            "legal_moves": legal_moves(MOVES),
        },
        optional=("hand", "legal_moves"),
        description="What one seat may see (§5), or the public view (`seat` null, sealed mode without `as`: no\n"
        "hand at all). Hands are the owner's only, the stock nobody's; the won cards are `null`\n"
        "(counts in `won_counts`) until the hand is over; in `last_trick.draws` a card shows only\n"
        "to the seat that drew it. `legal_moves` appears only in the view of the seat to move.\n",
    ),
    name="YukonView",
)
EVENTS: Final = events(MOVES.prefix, "Yukon", (
    Event("deal_started", {"dealer": SEAT, "hand_number": {"type": "integer", "minimum": 1}}),
    Event("card_played", {"player": SEAT, "card": CARD}),
    Event("trick_won", {
        "player": SEAT,
        "cards": {"type": "array", "minItems": 2, "maxItems": 4, "items": _PLAYED},
        "points": {"description": "Card points of the trick (§2).", "type": "integer", "minimum": 0},
    }),
    Event(
        "card_drawn",
        {"player": SEAT, "card": nullable(CARD)},
        description="A card drawn from the stock after a trick; `card` is `null` for every viewer but the drawer.",
    ),
    Event(
        "deal_over",
        {"hand_points": PER_SIDE, "scores": PER_SIDE},
        description="The hand is over (§7); points per side of the hand, and the running scores.",
    ),
    Event("game_over", {"winner": {"description": "The seats of the winning side.", "type": "array", "items": SEAT}}),
))
SCORES: Final = Wire(
    obj(
        {"totals": PER_SEAT, "side_totals": PER_SIDE, "sides": SIDES,
         "hand_points": described(_HAND_POINTS, nullable(PER_SIDE))},
        description="`totals`: the running score of each seat's side (partners show their side's total);\n"
        "`side_totals`: the same per side; `sides`: each seat's side; `hand_points`: the finished\n"
        "hand's points per side (`null` during play).\n",
    ),
    name="YukonScores",
)

CONTRACT: Final = Contract(MOVES, CARD, "YukonSeat", state=STATE, view=VIEW, events=EVENTS, scores=SCORES)
"""What openapi.yaml's request and answer schemas for the game are written from (``wrappers``)."""
