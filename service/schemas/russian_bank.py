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
from .common import (
    options_schema,
    state_schema,
    wire_record,
)
from .fields import CardField, CardList, IntList, SeatField, StrictBool, StrictInt, StrictSchema, StrictString
from .loaded import Loaded
from .moves import Bad, Move, Moves, Wire, card_of, seat
from .sent import Event, View, events, legal_moves, nullable, obj
from .wrappers import Contract

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




def _Cards(**kw: Any) -> CardList:
    return CardList(PACK, 0, len(PACK), **kw)


def _Pile(description: str | None = None, **kw: Any) -> CardList:
    """One pile, bottom → top: the contract's ``RussianBankPile`` (``description`` is the member's)."""
    meta: dict[str, Any] = {
        "wire_name": "RussianBankPile",
        "wire_description": "A pile of cards, bottom → top (the last card is the top).",
    }
    if description is not None:
        meta["description"] = description
    return _Cards(metadata=meta, **kw)


def _Piles(**kw: Any) -> fields.List[Any]:
    return fields.List(
        _Pile(),
        validate=validate.Length(equal=engine.PILES),
        required=True,
        metadata={
            "wire_name": "RussianBankPiles",
            "wire_description": "The eight tableau piles or the eight foundations, each bottom → top.",
        },
        **kw,
    )


class SeatPilesSchema(StrictSchema):
    WIRE_DESCRIPTION = "One seat's own piles (§5.1), each bottom → top."
    stock = _Pile("Face down except the top (last) card.", required=True)
    hand = _Pile("Face down; the last card is the next to be flipped.", required=True)
    hand_card = CardField(
        PACK,
        required=True,
        allow_none=True,
        metadata={"description": "The hand card turned up this turn and not yet played or discarded."},
    )
    waste = _Pile(required=True)

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.PlayerPiles:
        return engine.PlayerPiles(d["stock"], d["hand"], d["hand_card"], d["waste"])


class ResultSchema(StrictSchema):
    WIRE_DESCRIPTION = (
        "§7: `winner` null for a draw (an equal stalemate, an agreed draw, a stalled game); `points` = pagat's\n"
        "score (informational).\n"
    )
    winner = SeatField(2, required=True, allow_none=True)
    reason = StrictString(required=True, validate=validate.OneOf([r.value for r in engine.Reason]))
    points = StrictInt(required=True, validate=validate.Range(0, 1000))

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.Result:
        return engine.Result(d["winner"], engine.Reason(d["reason"]), d["points"])


class StateSchema(state_schema(engine.GAME, OPTIONS, engine.Options, seed=False)):  # type: ignore[misc]
    """``RussianBankState``: §5.1 plus ``seq`` and ``rules_version``."""

    WIRE_DESCRIPTION = (
        "The whole truth of a Russian Bank game (§5.1), hidden parts included. On input `game`,\n"
        "`seq`, `rules_version`, `options`, `draw_offer`, `draw_offered_this_turn`, `stall` and\n"
        "`fewest_left` may be left out (`seq` and `stall` then count from 0, `options` take their\n"
        "defaults, no offer is made, `fewest_left` is each seat's cards left now). A position may\n"
        "hold fewer than the 104 cards (no card twice); any other member is 422 `invalid_state`.\n"
    )

    phase = StrictString(
        required=True, validate=validate.OneOf([p.value for p in engine.Phase]), metadata={"wire_name": "RussianBankPhase"}
    )
    first_player = SeatField(2, required=True)
    to_move = SeatField(
        2, required=True, allow_none=True, metadata={"description": "The seat whose turn it is; `null` in `game_over`."}
    )
    turn_number = StrictInt(required=True, validate=validate.Range(1, 2**31), metadata={"advances": True})
    idle_turns = StrictInt(
        required=True,
        validate=validate.Range(0, engine.IDLE_LIMIT),
        metadata={"description": "Consecutive completed turns that were a `pass` only (§6.5); 2 ends the game."},
    )
    acted_this_turn = StrictBool(required=True)
    players = fields.List(fields.Nested(SeatPilesSchema), required=True, validate=validate.Length(equal=2))
    tableau = _Piles()
    foundations = _Piles()
    result = fields.Nested(ResultSchema, required=True, allow_none=True)
    draw_offer = SeatField(
        2,
        allow_none=True,
        metadata={"description": "The seat whose draw offer awaits the answer of `to_move` (§6.8), else `null`."},
    )
    draw_offered_this_turn = StrictBool(
        metadata={"description": "Whether the seat whose turn it is has offered a draw in this turn (§6.8)."}
    )
    stall = StrictInt(
        validate=validate.Range(0, 2**31),
        metadata={"description": "Play moves in a row without progress (§7.5).", "advances": True},
    )
    fewest_left = IntList(
        2, 0, len(PACK),
        metadata={"description": "Each seat's fewest cards left (stock + hand + hand card + waste) so far (§7.5)."},
    )

    @post_load
    def make(self, d: dict[str, Any], **kw: Any) -> engine.State:
        players = tuple(d.pop("players"))  # two seats (Length(equal=2))
        return engine.State(
            **self.head(d),
            phase=engine.Phase(d.pop("phase")),
            players=players,
            tableau=tuple(d.pop("tableau")),
            foundations=tuple(d.pop("foundations")),
            draw_offer=d.pop("draw_offer", None),
            draw_offered_this_turn=d.pop("draw_offered_this_turn", False),
            stall=d.pop("stall", 0),
            fewest_left=d.pop("fewest_left", None) or tuple(engine.cards_left_of(s) for s in players),
            **d,
        )


STATE: Final = StateSchema()
"""The state's loader (shape only: the engine's ``check_state`` judges consistency)."""


def dump_state(state: engine.State, derived: bool = True) -> dict[str, Any]:
    """The full state's wire form (§5.1); Russian Bank has no derived values."""
    out = wire_record(GAME_ID, engine.RULES_VERSION, state)
    return out


def _place(value: Any) -> str:
    """``from``/``to``: any string here; which strings name a pile is a rule (invalid_source/target)."""
    if not isinstance(value, str):
        raise Bad("invalid_move", "from and to must be strings such as \"stock\" or \"tableau:3\"")
    return value


SEAT: Final = seat("RussianBankSeat", {"type": "integer", "enum": [0, 1]})
CARD: Final = Wire(
    {
        "description": "A card of the two packs with its deck tag (`QS/a` is seat 0's pack, `QS/b` seat 1's).",
        "type": "string",
        "pattern": "^(10|[2-9JQKA])[SHDC]/[ab]$",
        "examples": ["QS/a", "10H/b"],
    },
    card_of(PACK),
    "RussianBankCard",
)
MOVES: Final = Moves(
    engine.GAME,
    description="A Russian Bank move (§6). Every move may carry an integer `at`, which Russian Bank ignores.\n",
    seat=SEAT,
    moves=(
        Move(
            "move",
            "§6.2 move one free card `card` from `from` onto `to` (sources and targets as strings).",
            {
                "card": CARD,
                "from": Wire(
                    {
                        "description": "`stock`, `hand`, `waste` (only with `waste_top_available`) or `tableau:0` … `tableau:7`.",
                        "type": "string",
                        "examples": ["stock", "hand", "tableau:3"],
                    },
                    _place,
                ),
                "to": Wire(
                    {
                        "description": "`foundation`, `tableau:0` … `tableau:7`, `opponent_stock` or `opponent_waste`.",
                        "type": "string",
                        "examples": ["foundation", "tableau:1", "opponent_stock"],
                    },
                    _place,
                ),
            },
            examples=[{"type": "move", "player": 0, "card": "8D/a", "from": "hand", "to": "tableau:1"}],
            name="MoveCard",
        ),
        Move("flip", "§6.3 turn up the next hand card (the waste is turned over first when the hand is empty)."),
        Move("discard", "§6.4 put the hand card on one's own waste; the turn ends."),
        Move("pass", "§6.5 end the turn when hand and waste are empty and no hand card is up."),
        Move("offer_draw", "§6.8 offer the opponent a draw (at most once per turn); the opponent answers first."),
        Move("accept_draw", "§6.8 accept the pending draw offer: the game ends drawn (§7.4)."),
        Move("decline_draw", "§6.8 decline the pending draw offer: the offerer's turn goes on."),
    ),
)

# --- what the game sends: views (§5.2), events, scores (§7) -------------------------------------

_STATE: Final = View(Loaded(MOVES.prefix, CARD, SEAT).state(STATE))
_PILES: Final = _STATE.part("RussianBankSeatPiles").schema["properties"]
_RESULT: Final = _STATE.part("RussianBankResult").schema["properties"]
_COUNT: Final = {"type": "integer", "minimum": 0}
PAIR: Final = Wire(
    {
        "description": "One non-negative integer per seat.",
        "type": "array",
        "minItems": 2,
        "maxItems": 2,
        "items": {"type": "integer", "minimum": 0},
    },
    name="RussianBankPair",
)
VIEW: Final = Wire(
    obj(
        {
            **_STATE.members("game"),
            "seat": nullable(SEAT),
            **_STATE.members("seq", "rules_version", "options", "phase", "first_player", "to_move", "turn_number",
                             "idle_turns", "acted_this_turn", "draw_offer", "draw_offered_this_turn", "stall",
                             "fewest_left"),
            "players": {
                "type": "array",
                "minItems": 2,
                "maxItems": 2,
                "items": obj(
                    {
                        "stock_count": _COUNT,
                        "stock_top": nullable(CARD),
                        "hand_count": _COUNT,
                        "hand_card": _PILES["hand_card"],
                        "waste": _PILES["waste"],
                    }
                ),
            },
            **_STATE.members("tableau", "foundations", "result"),
            "legal_moves": legal_moves(MOVES),
        },
        optional=("legal_moves",),
        description="What a seat (or the public, `seat` null) may see (§5.2): stock tops and counts, hand counts,\n"
        "the face-up hand card, wastes, tableau and foundations. Both seats see the same cards;\n"
        "`legal_moves` appears only in the view of the seat to move.\n",
    ),
    name="RussianBankView",
)
EVENTS: Final = events(MOVES.prefix, "Russian Bank", (
    Event("layout", {"first_player": SEAT,
                     "stock_tops": {"type": "array", "minItems": 2, "maxItems": 2, "items": CARD}}),
    Event(
        "card_moved",
        {"player": SEAT, "card": CARD, "from": {"type": "string"}, "to": {"type": "string"},
         "foundation": {"type": "integer", "minimum": 0, "maximum": 7}},
        optional=("foundation",),
        description="A `move`; `foundation` names the foundation pile (0-7) a card went to.",
    ),
    Event("stock_top_turned", {"player": SEAT, "card": CARD},
          description="The next stock card, face up now that the top was played."),
    Event("waste_turned", {"player": SEAT, "cards": {"type": "integer", "minimum": 1}},
          description="The waste turned over to become the hand (§6.3)."),
    Event("card_flipped", {"player": SEAT, "card": CARD}),
    Event("card_discarded", {"player": SEAT, "card": CARD}),
    Event("passed", {"player": SEAT, "idle": {"type": "boolean"}},
          description="A `pass`; `idle` when the turn was a pass only (it counts toward the stalemate)."),
    Event("draw_offered", {"player": SEAT}, description="An `offer_draw` (§6.8): the other seat answers next."),
    Event("draw_declined", {"player": SEAT, "next": SEAT},
          description="A `decline_draw` (§6.8): `next`, the offerer, goes on with its turn."),
    Event("draw_accepted", {"player": SEAT},
          description="An `accept_draw` (§6.8); a `game_over` with reason `agreed` follows."),
    Event("turn_ended", {"player": SEAT, "next": SEAT, "turn_number": {"type": "integer", "minimum": 2}}),
    Event("game_over", {
        "winner": {"description": "`[]` for a draw.", "type": "array", "maxItems": 1, "items": SEAT},
        "reason": _RESULT["reason"],
        "points": _RESULT["points"],
    }),
))
SCORES: Final = Wire(
    obj(
        {"totals": PAIR, "cards_left": PAIR},
        description="`totals`: `[0, 0]` during play, the winner's `result.points` at the end (the other seat 0);\n"
        "`cards_left`: each seat's stock + hand + hand card + waste.\n",
    ),
    name="RussianBankScores",
)

CONTRACT: Final = Contract(
    MOVES, CARD, "RussianBankSeat", state=STATE, view=VIEW, events=EVENTS, scores=SCORES,
    options="§3 options. Omitted options take their defaults; an unknown or invalid one is 422 `invalid_option`. "
    "The generic `dealer` (a seat) is accepted on input and ignored.",
    input_options={
        "dealer": {
            "description": "Ignored (each player lays out his own pack); never in responses.",
            "type": "integer",
            "minimum": 0,
            "maximum": 1,
        }
    },
)
"""What openapi.yaml's request and answer schemas for the game are written from (``wrappers``)."""
