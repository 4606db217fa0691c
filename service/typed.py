"""Typed records of every game's answers, for type checkers: written by ``python3 -m service.schemas.typed``
from the contract's declarations (openapi.yaml's components of the same names). Do not edit.

``<Game>Envelope`` is what ``Referee.new``/``state``/``move`` answer for the game (``Envelope``: any
game's), with its ``<Game>View`` (``<Game>SeatView | <Game>PublicView`` where they differ),
``<Game>Event`` and ``<Game>Move`` as the wire carries them; ``<Game>EngineView`` is what the
engine's own ``view`` answers (Python values). Narrow a union by its members:
``env["state"]["game"] == "schnapsen"``, ``"hand" in view``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NotRequired, TypeAlias, TypedDict, final

from . import cards

__all__ = [
    "BraggingAmount",
    "BraggingBlind",
    "BraggingBlindEvent",
    "BraggingCall",
    "BraggingCallEvent",
    "BraggingCard",
    "BraggingCards",
    "BraggingCardsDealtEvent",
    "BraggingCheck",
    "BraggingCheckEvent",
    "BraggingEngineView",
    "BraggingEnvelope",
    "BraggingEvent",
    "BraggingExpose",
    "BraggingExposeEvent",
    "BraggingFold",
    "BraggingFoldEvent",
    "BraggingGameOverEvent",
    "BraggingHandOverEvent",
    "BraggingHandStartedEvent",
    "BraggingMatchRecord",
    "BraggingMove",
    "BraggingNextDeal",
    "BraggingNoBlind",
    "BraggingNoBlindEvent",
    "BraggingOptions",
    "BraggingPerSeatInt",
    "BraggingPhase",
    "BraggingPublicView",
    "BraggingRaise",
    "BraggingRaiseEvent",
    "BraggingReplayResult",
    "BraggingResult",
    "BraggingRulesVersion",
    "BraggingScores",
    "BraggingSeat",
    "BraggingSeatView",
    "BraggingSeats",
    "BraggingStake",
    "BraggingState",
    "BraggingValue",
    "BraggingView",
    "CaliforniaJackAward",
    "CaliforniaJackCard",
    "CaliforniaJackCardDrawnEvent",
    "CaliforniaJackCardPlayedEvent",
    "CaliforniaJackCards",
    "CaliforniaJackDealStartedEvent",
    "CaliforniaJackDraw",
    "CaliforniaJackDrawView",
    "CaliforniaJackEngineView",
    "CaliforniaJackEnvelope",
    "CaliforniaJackEvent",
    "CaliforniaJackGameOverEvent",
    "CaliforniaJackHandOverEvent",
    "CaliforniaJackKnownCards",
    "CaliforniaJackLastHand",
    "CaliforniaJackMatchRecord",
    "CaliforniaJackMove",
    "CaliforniaJackNextDeal",
    "CaliforniaJackOptions",
    "CaliforniaJackPair",
    "CaliforniaJackPhase",
    "CaliforniaJackPlay",
    "CaliforniaJackPlayedCard",
    "CaliforniaJackReplayResult",
    "CaliforniaJackRulesVersion",
    "CaliforniaJackScores",
    "CaliforniaJackSeat",
    "CaliforniaJackState",
    "CaliforniaJackStockTop",
    "CaliforniaJackToMove",
    "CaliforniaJackTrick",
    "CaliforniaJackTrickInProgress",
    "CaliforniaJackTrickWonEvent",
    "CaliforniaJackTricks",
    "CaliforniaJackTrumpSetEvent",
    "CaliforniaJackView",
    "CaliforniaJackWinner",
    "Card",
    "CheckResult",
    "ClaimCounts",
    "ClaimSeat",
    "ClaimSeatOrNull",
    "ClaimSeats",
    "ClaimTimestamp",
    "Envelope",
    "Fairness",
    "IllegalMove",
    "MoveTimestamp",
    "Problem",
    "ProblemCode",
    "ProblemErrors",
    "RecordResult",
    "RussianBankAcceptDraw",
    "RussianBankCard",
    "RussianBankCardDiscardedEvent",
    "RussianBankCardFlippedEvent",
    "RussianBankCardMovedEvent",
    "RussianBankDeclineDraw",
    "RussianBankDiscard",
    "RussianBankDrawAcceptedEvent",
    "RussianBankDrawDeclinedEvent",
    "RussianBankDrawOfferedEvent",
    "RussianBankEngineView",
    "RussianBankEnvelope",
    "RussianBankEvent",
    "RussianBankFlip",
    "RussianBankGameOverEvent",
    "RussianBankLayoutEvent",
    "RussianBankMatchRecord",
    "RussianBankMove",
    "RussianBankMoveCard",
    "RussianBankOfferDraw",
    "RussianBankOptions",
    "RussianBankPair",
    "RussianBankPass",
    "RussianBankPassedEvent",
    "RussianBankPhase",
    "RussianBankPile",
    "RussianBankPiles",
    "RussianBankReplayResult",
    "RussianBankResult",
    "RussianBankRulesVersion",
    "RussianBankScores",
    "RussianBankSeat",
    "RussianBankSeatPiles",
    "RussianBankState",
    "RussianBankStockTopTurnedEvent",
    "RussianBankTurnEndedEvent",
    "RussianBankView",
    "RussianBankWasteTurnedEvent",
    "SchnapsenCard",
    "SchnapsenCardDrawnEvent",
    "SchnapsenCardPair",
    "SchnapsenCardPlayedEvent",
    "SchnapsenClaim",
    "SchnapsenClaimEvent",
    "SchnapsenClose",
    "SchnapsenCloseEvent",
    "SchnapsenClosing",
    "SchnapsenDealOverEvent",
    "SchnapsenDealStartedEvent",
    "SchnapsenEngineView",
    "SchnapsenEnvelope",
    "SchnapsenEvent",
    "SchnapsenExchange",
    "SchnapsenExchangeEvent",
    "SchnapsenGameOverEvent",
    "SchnapsenLastTrick",
    "SchnapsenMarriage",
    "SchnapsenMarriageEvent",
    "SchnapsenMatchRecord",
    "SchnapsenMeld",
    "SchnapsenMove",
    "SchnapsenNextDeal",
    "SchnapsenOptions",
    "SchnapsenPair",
    "SchnapsenPhase",
    "SchnapsenPlay",
    "SchnapsenPublicView",
    "SchnapsenReason",
    "SchnapsenReplayResult",
    "SchnapsenResult",
    "SchnapsenReveal",
    "SchnapsenRulesVersion",
    "SchnapsenScores",
    "SchnapsenSeat",
    "SchnapsenSeatView",
    "SchnapsenState",
    "SchnapsenTrickCard",
    "SchnapsenTrickWonEvent",
    "SchnapsenView",
    "Seat",
    "SeatKeys",
    "Seed",
    "SevenUpAward",
    "SevenUpBeg",
    "SevenUpBegEvent",
    "SevenUpCardPlayedEvent",
    "SevenUpCards",
    "SevenUpCardsRunEvent",
    "SevenUpDealStartedEvent",
    "SevenUpDealVoidEvent",
    "SevenUpDiscard",
    "SevenUpDiscardedEvent",
    "SevenUpEngineView",
    "SevenUpEnvelope",
    "SevenUpEvent",
    "SevenUpGameOverEvent",
    "SevenUpGiftEvent",
    "SevenUpGive",
    "SevenUpGiveEvent",
    "SevenUpHandEvent",
    "SevenUpHandScoredEvent",
    "SevenUpLastHand",
    "SevenUpMatchRecord",
    "SevenUpMove",
    "SevenUpNextDeal",
    "SevenUpNullableCard",
    "SevenUpNullableParty",
    "SevenUpNullableSeat",
    "SevenUpNullableSuit",
    "SevenUpOptions",
    "SevenUpParty",
    "SevenUpPartyScores",
    "SevenUpPerSeatCards",
    "SevenUpPhase",
    "SevenUpPlay",
    "SevenUpPointEvent",
    "SevenUpReplayResult",
    "SevenUpRulesVersion",
    "SevenUpRun",
    "SevenUpRunEvent",
    "SevenUpScores",
    "SevenUpSeat",
    "SevenUpStand",
    "SevenUpStandEvent",
    "SevenUpState",
    "SevenUpTrick",
    "SevenUpTrickCard",
    "SevenUpTrickWonEvent",
    "SevenUpTrumpFixedEvent",
    "SevenUpView",
    "SlapjackCaptureEvent",
    "SlapjackCenterCard",
    "SlapjackDealEvent",
    "SlapjackEngineView",
    "SlapjackEnvelope",
    "SlapjackEvent",
    "SlapjackFalseSlapEvent",
    "SlapjackFlip",
    "SlapjackFlipEvent",
    "SlapjackGameOverEvent",
    "SlapjackMatchRecord",
    "SlapjackMove",
    "SlapjackOptions",
    "SlapjackPenalty",
    "SlapjackPhase",
    "SlapjackReplayResult",
    "SlapjackResult",
    "SlapjackRulesVersion",
    "SlapjackScores",
    "SlapjackSlap",
    "SlapjackSlaps",
    "SlapjackState",
    "SlapjackStatus",
    "SlapjackView",
    "SnapDealEvent",
    "SnapEngineView",
    "SnapEnvelope",
    "SnapEvent",
    "SnapFalseCallEvent",
    "SnapFlip",
    "SnapFlipEvent",
    "SnapGameOverEvent",
    "SnapMatchRecord",
    "SnapMove",
    "SnapOptions",
    "SnapPenalty",
    "SnapPhase",
    "SnapPiles",
    "SnapReplayResult",
    "SnapResult",
    "SnapRulesVersion",
    "SnapScores",
    "SnapSeq",
    "SnapSeqOrNull",
    "SnapSnap",
    "SnapSnapEvent",
    "SnapSnaps",
    "SnapState",
    "SnapTieToPoolEvent",
    "SnapView",
    "StukolkaCard",
    "StukolkaCardPlayedEvent",
    "StukolkaCards",
    "StukolkaCompletedTrick",
    "StukolkaCompletedTricks",
    "StukolkaDealOverEvent",
    "StukolkaDealStartedEvent",
    "StukolkaDeclarations",
    "StukolkaDeclaredEvent",
    "StukolkaEngineView",
    "StukolkaEnvelope",
    "StukolkaEvent",
    "StukolkaExchange",
    "StukolkaExchangedEvent",
    "StukolkaGameOverEvent",
    "StukolkaInPlayEvent",
    "StukolkaMatchRecord",
    "StukolkaMoney",
    "StukolkaMove",
    "StukolkaNextDeal",
    "StukolkaNoPlayResult",
    "StukolkaOptions",
    "StukolkaPass",
    "StukolkaPerSeatCount",
    "StukolkaPerSeatMoney",
    "StukolkaPhase",
    "StukolkaPlay",
    "StukolkaPlayedResult",
    "StukolkaPublicView",
    "StukolkaReplayResult",
    "StukolkaResult",
    "StukolkaResultOrNull",
    "StukolkaRulesVersion",
    "StukolkaScores",
    "StukolkaSeat",
    "StukolkaSeatOrNull",
    "StukolkaSeatView",
    "StukolkaState",
    "StukolkaTap",
    "StukolkaTrick",
    "StukolkaTrickCard",
    "StukolkaTrickWonEvent",
    "StukolkaView",
    "StukolkaViolation",
    "StukolkaViolationCode",
    "StukolkaViolations",
    "Suit",
    "TimedClaim",
    "UnknownEvent",
    "YukonCard",
    "YukonCardDrawnEvent",
    "YukonCardPlayedEvent",
    "YukonCards",
    "YukonDealOverEvent",
    "YukonDealStartedEvent",
    "YukonDraw",
    "YukonEngineView",
    "YukonEnvelope",
    "YukonEvent",
    "YukonGameOverEvent",
    "YukonLastTrick",
    "YukonMatchRecord",
    "YukonMove",
    "YukonNextDeal",
    "YukonOptions",
    "YukonPerSeat",
    "YukonPerSide",
    "YukonPhase",
    "YukonPlay",
    "YukonPlayed",
    "YukonReplayResult",
    "YukonRulesVersion",
    "YukonScores",
    "YukonSeat",
    "YukonSides",
    "YukonState",
    "YukonTrick",
    "YukonTrickWonEvent",
    "YukonView",
]


@final
class Fairness(TypedDict):
    """Sealed mode: the public commitment to the match secret that drives every deal."""
    algorithm: str
    commitment: str
    secret: NotRequired[str]


Card: TypeAlias = 'str'
"""A card, rank then suit (docs/rules/conventions.md), e.g. `10H`, `QS`."""


SchnapsenCard: TypeAlias = 'Card'
"""A card of the 20-card pack (J Q K 10 A)."""


SchnapsenSeat: TypeAlias = 'Literal[0, 1]'


@final
class SchnapsenCardDrawnEvent(TypedDict):
    """A card drawn after a trick. `card` is `null` for viewers who may not see it; the trump card …"""
    type: Literal['card_drawn']
    player: SchnapsenSeat
    card: SchnapsenCard | None
    trump_card: NotRequired[bool]


@final
class SchnapsenCardPlayedEvent(TypedDict):
    type: Literal['card_played']
    player: SchnapsenSeat
    card: SchnapsenCard


@final
class SchnapsenClaimEvent(TypedDict):
    """A claim judged; `auto` is present (true) when the `auto_claim` option made it."""
    type: Literal['claim']
    player: SchnapsenSeat
    points: int
    correct: bool
    auto: NotRequired[bool]


@final
class SchnapsenCloseEvent(TypedDict):
    type: Literal['close']
    player: SchnapsenSeat


SchnapsenPair: TypeAlias = 'list[int]'
"""One non-negative integer per seat."""


SchnapsenReason: TypeAlias = "Literal['claim', 'false_claim', 'last_trick', 'closer_failed']"


@final
class SchnapsenDealOverEvent(TypedDict):
    type: Literal['deal_over']
    winner: SchnapsenSeat
    game_points: int
    reason: SchnapsenReason
    points: SchnapsenPair


@final
class SchnapsenDealStartedEvent(TypedDict):
    type: Literal['deal_started']
    dealer: SchnapsenSeat
    deal_number: int
    trump_card: SchnapsenCard


@final
class SchnapsenExchangeEvent(TypedDict):
    type: Literal['exchange']
    player: SchnapsenSeat
    card: SchnapsenCard
    jack: SchnapsenCard


@final
class SchnapsenGameOverEvent(TypedDict):
    type: Literal['game_over']
    winner: list[SchnapsenSeat]


Suit: TypeAlias = "Literal['S', 'H', 'D', 'C']"
"""S (spades), H (hearts), D (diamonds), C (clubs)."""


@final
class SchnapsenMarriageEvent(TypedDict):
    type: Literal['marriage']
    player: SchnapsenSeat
    suit: Suit
    points: Literal[20, 40]


SchnapsenCardPair: TypeAlias = 'list[SchnapsenCard]'
"""A trick, `[led, followed]`."""


@final
class SchnapsenTrickWonEvent(TypedDict):
    type: Literal['trick_won']
    player: SchnapsenSeat
    cards: SchnapsenCardPair
    points: int


SchnapsenEvent: TypeAlias = 'SchnapsenDealStartedEvent | SchnapsenClaimEvent | SchnapsenExchangeEvent | SchnapsenCloseEvent | SchnapsenMarriageEvent | SchnapsenCardPlayedEvent | SchnapsenTrickWonEvent | SchnapsenCardDrawnEvent | SchnapsenDealOverEvent | SchnapsenGameOverEvent'
"""Something a Schnapsen move caused (docs/wire.md)."""


Seat: TypeAlias = 'int'
"""A seat, numbered from 0."""


@final
class RecordResult(TypedDict):
    """A match's result: totals and winning seats."""
    totals: list[int]
    winner: list[Seat] | None


MoveTimestamp: TypeAlias = 'int'
"""Client timestamp in milliseconds; games without timing ignore it."""


@final
class SchnapsenClaim(TypedDict):
    """§6.2 the leader states that he has 66 counted points (a false claim is legal and penalised)."""
    type: Literal['claim']
    player: SchnapsenSeat
    at: NotRequired[MoveTimestamp]


@final
class SchnapsenClose(TypedDict):
    """§6.4 the leader closes the talon."""
    type: Literal['close']
    player: SchnapsenSeat
    at: NotRequired[MoveTimestamp]


@final
class SchnapsenExchange(TypedDict):
    """§6.3 the leader gives the trump Jack for the trump card."""
    type: Literal['exchange']
    player: SchnapsenSeat
    at: NotRequired[MoveTimestamp]


@final
class SchnapsenMarriage(TypedDict):
    """§6.5 the leader declares K and Q of `suit`; he must then lead one of them."""
    type: Literal['marriage']
    player: SchnapsenSeat
    suit: Suit
    at: NotRequired[MoveTimestamp]


@final
class SchnapsenNextDeal(TypedDict):
    """§6.7 the next dealer starts the next deal, from `deck` (top card first) or a shuffle."""
    type: Literal['next_deal']
    player: SchnapsenSeat
    deck: NotRequired[list[SchnapsenCard]]
    at: NotRequired[MoveTimestamp]


@final
class SchnapsenPlay(TypedDict):
    """§6.6 lead or follow with `card`."""
    type: Literal['play']
    player: SchnapsenSeat
    card: SchnapsenCard
    at: NotRequired[MoveTimestamp]


SchnapsenMove: TypeAlias = 'SchnapsenClaim | SchnapsenExchange | SchnapsenClose | SchnapsenMarriage | SchnapsenPlay | SchnapsenNextDeal'
"""A Schnapsen move (§6). Every move may carry an integer `at` (a client timestamp), which …"""


@final
class SchnapsenOptions(TypedDict):
    """§3 options. Omitted options take their defaults; an unknown or invalid one is 422 `invalid_option`."""
    dealer: NotRequired[int]
    target: NotRequired[int]
    exchange_with_two_left: NotRequired[bool]
    marriage_requires_trick: NotRequired[bool]
    auto_claim: NotRequired[bool]
    show_points: NotRequired[bool]


SchnapsenRulesVersion: TypeAlias = "Literal['schnapsen/1']"


Seed: TypeAlias = 'int'
"""A shuffle seed, 0 … 2^53 − 1; deal k of a seeded match uses `seed + k - 1`."""


@final
class SchnapsenMatchRecordSetup(TypedDict):
    """The fixed first deal, when the operator allowed one."""
    deck: NotRequired[list[SchnapsenCard]]
    seed: NotRequired[Seed]


@final
class SchnapsenMatchRecord(TypedDict):
    """A finished sealed Schnapsen match, signed (docs/fair-play.md)."""
    format: NotRequired[str]
    game: Literal['schnapsen']
    rules_version: SchnapsenRulesVersion
    players: Literal[2]
    options: SchnapsenOptions
    match_id: str
    fairness: Fairness
    setup: NotRequired[SchnapsenMatchRecordSetup]
    moves: list[SchnapsenMove]
    result: RecordResult
    key_id: str
    signature: str


@final
class SchnapsenScores(TypedDict):
    """`totals` = game points; this deal's tricks won; with the option `show_points` also card points, …"""
    totals: SchnapsenPair
    tricks_won: SchnapsenPair
    card_points: NotRequired[SchnapsenPair]
    marriage_points: NotRequired[SchnapsenPair]
    points: NotRequired[SchnapsenPair]


@final
class SchnapsenClosing(TypedDict):
    """The non-closer's tricks won and counted points at the moment of closing."""
    opp_tricks: int
    opp_points: int


@final
class SchnapsenLastTrick(TypedDict):
    cards: SchnapsenCardPair
    leader: SchnapsenSeat
    winner: SchnapsenSeat


@final
class SchnapsenMeld(TypedDict):
    """A declared marriage."""
    suit: Suit
    points: Literal[20, 40]


SchnapsenPhase: TypeAlias = "Literal['play', 'deal_over', 'game_over']"


@final
class SchnapsenResult(TypedDict):
    """The outcome of one deal (§7.3)."""
    winner: SchnapsenSeat
    game_points: int
    reason: SchnapsenReason
    points: list[int]


@final
class SchnapsenReveal(TypedDict):
    """A card of `player`'s hand that the opponent has seen."""
    player: SchnapsenSeat
    card: SchnapsenCard


@final
class SchnapsenTrickCard(TypedDict):
    """The led card of the trick in progress."""
    player: SchnapsenSeat
    card: SchnapsenCard


@final
class SchnapsenState(TypedDict):
    """The whole truth of a Schnapsen match (§5.1), hidden parts included. Responses carry every member …"""
    game: NotRequired[Literal['schnapsen']]
    rules_version: NotRequired[SchnapsenRulesVersion]
    seq: NotRequired[int]
    seed: NotRequired[Seed | None]
    options: NotRequired[SchnapsenOptions]
    phase: SchnapsenPhase
    deal_number: int
    dealer: SchnapsenSeat
    game_points: list[int]
    hands: list[list[SchnapsenCard]]
    talon: list[SchnapsenCard]
    trump_card: SchnapsenCard | None
    trump_suit: Suit
    closed_by: SchnapsenSeat | None
    closing: SchnapsenClosing | None
    leader: SchnapsenSeat
    to_move: SchnapsenSeat | None
    trick: list[SchnapsenTrickCard]
    marriage_pending: Suit | None
    tricks: list[list[SchnapsenCardPair]]
    marriages: list[list[SchnapsenMeld]]
    revealed: list[SchnapsenReveal]
    last_trick: SchnapsenLastTrick | None
    result: SchnapsenResult | None
    results: list[SchnapsenResult]
    tricks_won: NotRequired[SchnapsenPair]
    card_points: NotRequired[SchnapsenPair]
    marriage_points: NotRequired[SchnapsenPair]
    points: NotRequired[SchnapsenPair]
    talon_size: NotRequired[int]


@final
class SchnapsenPublicView(TypedDict):
    """The members every Schnapsen view carries (the public parts of the state)."""
    game: Literal['schnapsen']
    seq: int
    rules_version: SchnapsenRulesVersion
    options: SchnapsenOptions
    phase: SchnapsenPhase
    deal_number: int
    dealer: SchnapsenSeat
    game_points: list[int]
    talon_count: int
    talon_size: int
    trump_card: SchnapsenCard | None
    trump_suit: Suit
    closed_by: SchnapsenSeat | None
    closing: SchnapsenClosing | None
    leader: SchnapsenSeat
    to_move: SchnapsenSeat | None
    trick: list[SchnapsenTrickCard]
    marriage_pending: Suit | None
    marriages: list[list[SchnapsenMeld]]
    tricks_won: SchnapsenPair
    last_trick: SchnapsenLastTrick | None
    result: SchnapsenResult | None
    results: list[SchnapsenResult]
    tricks: NotRequired[list[list[SchnapsenCardPair]]]
    card_points: NotRequired[SchnapsenPair]
    points: NotRequired[SchnapsenPair]
    seat: None
    hand_counts: SchnapsenPair
    known_cards: list[list[SchnapsenCard]]


@final
class SchnapsenSeatView(TypedDict):
    """The members every Schnapsen view carries (the public parts of the state)."""
    game: Literal['schnapsen']
    seq: int
    rules_version: SchnapsenRulesVersion
    options: SchnapsenOptions
    phase: SchnapsenPhase
    deal_number: int
    dealer: SchnapsenSeat
    game_points: list[int]
    talon_count: int
    talon_size: int
    trump_card: SchnapsenCard | None
    trump_suit: Suit
    closed_by: SchnapsenSeat | None
    closing: SchnapsenClosing | None
    leader: SchnapsenSeat
    to_move: SchnapsenSeat | None
    trick: list[SchnapsenTrickCard]
    marriage_pending: Suit | None
    marriages: list[list[SchnapsenMeld]]
    tricks_won: SchnapsenPair
    last_trick: SchnapsenLastTrick | None
    result: SchnapsenResult | None
    results: list[SchnapsenResult]
    tricks: NotRequired[list[list[SchnapsenCardPair]]]
    card_points: NotRequired[SchnapsenPair]
    points: NotRequired[SchnapsenPair]
    seat: SchnapsenSeat
    hand: list[SchnapsenCard]
    opponent_hand_count: int
    known_opponent_cards: list[SchnapsenCard]
    legal_moves: NotRequired[list[SchnapsenMove]]


SchnapsenView: TypeAlias = 'SchnapsenSeatView | SchnapsenPublicView'
"""What one seat may see (§5.3), or the public view (`seat` null: no hand at all, sealed mode …"""


SeatKeys: TypeAlias = 'list[str]'
"""Sealed mode, `new` only: one key per seat, to send as `X-Seat-Key`."""


@final
class UnknownEvent(TypedDict):
    """An event of a type added after this version of the contract (evolution policy, docs/wire.md): …"""
    type: str


@final
class SchnapsenEnvelope(TypedDict):
    """The answer of every state-returning Schnapsen call (`new` 201, `moves` and `state` 200)."""
    game: Literal['schnapsen']
    state: SchnapsenState | SchnapsenView
    token: NotRequired[str]
    status: Literal['in_progress', 'deal_over', 'finished']
    to_move: list[SchnapsenSeat]
    legal_moves: list[SchnapsenMove]
    events: list[SchnapsenEvent | UnknownEvent]
    scores: SchnapsenScores
    winner: list[SchnapsenSeat] | None
    seat_keys: NotRequired[SeatKeys]
    table_key: NotRequired[str]
    fairness: NotRequired[Fairness]
    record: NotRequired[SchnapsenMatchRecord]


ProblemCode: TypeAlias = 'str'
"""The stable machine key of a problem. An open set: new codes may be added (evolution policy, …"""


ProblemErrors: TypeAlias = 'dict[str, list[str | ProblemErrors] | str | ProblemErrors]'
"""Field paths (e.g. `hands.0.2`, `move`, `query.as`) to lists of messages, for `invalid_request` …"""


@final
class Problem(TypedDict):
    """An error (RFC 9457 problem details), served as `application/problem+json`. `code` is the stable …"""
    type: str
    title: str
    status: int
    code: ProblemCode
    detail: str
    rule: NotRequired[str]
    move: NotRequired[dict[str, object]]
    errors: NotRequired[ProblemErrors]
    rule_url: NotRequired[str]


@final
class IllegalMove(TypedDict):
    """The first illegal move of a log."""
    index: int
    move: object
    error: Problem


@final
class SchnapsenReplayResult(TypedDict):
    """The verdict on a Schnapsen move log or record."""
    game: Literal['schnapsen']
    moves_total: int
    moves_legal: int
    first_illegal: IllegalMove | None
    final: SchnapsenEnvelope
    format: NotRequired[str]
    match_id: NotRequired[str]
    record_signature: NotRequired[str]
    result: NotRequired[RecordResult]
    result_matches: NotRequired[bool]
    key_id: NotRequired[str]
    signature: NotRequired[str]


SevenUpSeat: TypeAlias = 'int'
"""A seat, 0 to players - 1 (2, 3 or 4 players)."""


@final
class SevenUpBegEvent(TypedDict):
    type: Literal['beg']
    player: SevenUpSeat


@final
class SevenUpCardPlayedEvent(TypedDict):
    type: Literal['card_played']
    player: SevenUpSeat
    card: Card


@final
class SevenUpCardsRunEvent(TypedDict):
    """One round of running: the old turn-up set aside, a packet to each seat, a new turn-up."""
    type: Literal['cards_run']
    set_aside: Card
    turnup: Card


@final
class SevenUpDealStartedEvent(TypedDict):
    type: Literal['deal_started']
    dealer: SevenUpSeat
    deal_number: int
    turnup: Card


@final
class SevenUpDealVoidEvent(TypedDict):
    """The pack ran out while running; the same dealer deals again (`set_aside` = the last turn-up put …"""
    type: Literal['deal_void']
    dealer: SevenUpSeat
    set_aside: Card


@final
class SevenUpDiscardedEvent(TypedDict):
    """A seat discarded `count` cards face down."""
    type: Literal['discarded']
    player: SevenUpSeat
    count: int


SevenUpParty: TypeAlias = 'int'
"""A scoring party: the seat with 2 or 3 players; with 4, seat % 2 (0 = seats 0 and 2)."""


@final
class SevenUpGameOverEvent(TypedDict):
    type: Literal['game_over']
    winner: list[SevenUpSeat]
    party: SevenUpParty


@final
class SevenUpGiftEvent(TypedDict):
    """§7.1 take one: `player` (a recipient) scores 1 for `party`."""
    type: Literal['gift']
    player: SevenUpSeat
    party: SevenUpParty
    points: Literal[1]
    card: None


@final
class SevenUpGiveEvent(TypedDict):
    type: Literal['give']
    player: SevenUpSeat


@final
class SevenUpAward(TypedDict):
    """§7.3 one end-of-hand point: `seat` = holder (high, low) or trick winner (jack), null for game."""
    point: Literal['high', 'low', 'jack', 'game']
    card: Card | None
    seat: SevenUpSeat | None
    party: SevenUpParty | None
    credited: bool


SevenUpPartyScores: TypeAlias = 'list[int]'
"""One non-negative integer per party (2 with 2 or 4 players, 3 with 3)."""


@final
class SevenUpHandScoredEvent(TypedDict):
    """§7.3 the hand counted out: awards in order High, Low, Jack, Game; `scores` after crediting."""
    type: Literal['hand_scored']
    awards: list[SevenUpAward]
    game_totals: SevenUpPartyScores
    scores: SevenUpPartyScores


@final
class SevenUpPointEvent(TypedDict):
    """§7.1 the dealer's party scores 1 for a turned jack (`player` = the dealer)."""
    type: Literal['turned_jack']
    player: SevenUpSeat
    party: SevenUpParty
    points: Literal[1]
    card: Card


@final
class SevenUpRunEvent(TypedDict):
    type: Literal['run']
    player: SevenUpSeat


@final
class SevenUpStandEvent(TypedDict):
    type: Literal['stand']
    player: SevenUpSeat


@final
class SevenUpTrickWonEvent(TypedDict):
    type: Literal['trick_won']
    player: SevenUpSeat
    leader: SevenUpSeat
    cards: list[Card]


@final
class SevenUpTrumpFixedEvent(TypedDict):
    """Running turned a new suit; it is trump."""
    type: Literal['trump_fixed']
    suit: Suit
    turnup: Card


SevenUpEvent: TypeAlias = 'SevenUpDealStartedEvent | SevenUpPointEvent | SevenUpGiftEvent | SevenUpStandEvent | SevenUpBegEvent | SevenUpGiveEvent | SevenUpRunEvent | SevenUpCardsRunEvent | SevenUpTrumpFixedEvent | SevenUpDealVoidEvent | SevenUpDiscardedEvent | SevenUpCardPlayedEvent | SevenUpTrickWonEvent | SevenUpHandScoredEvent | SevenUpGameOverEvent'
"""Something a Seven Up move caused (docs/wire.md)."""


@final
class SevenUpBeg(TypedDict):
    """§6.1 the eldest begs."""
    type: Literal['beg']
    player: SevenUpSeat
    at: NotRequired[MoveTimestamp]


SevenUpCards: TypeAlias = 'list[Card]'


@final
class SevenUpDiscard(TypedDict):
    """§6.3 discard down to six: `cards` lists exactly `len(hand) - 6` distinct cards of the hand. …"""
    type: Literal['discard']
    player: SevenUpSeat
    cards: NotRequired[SevenUpCards]
    count: NotRequired[int]
    at: NotRequired[MoveTimestamp]


@final
class SevenUpGive(TypedDict):
    """§6.2 the dealer answers a beg with take one (the eldest's party scores 1)."""
    type: Literal['give']
    player: SevenUpSeat
    at: NotRequired[MoveTimestamp]


@final
class SevenUpNextDeal(TypedDict):
    """§6.6 the dealer of the coming deal deals, from `deck` (top card first) or a shuffle."""
    type: Literal['next_deal']
    player: SevenUpSeat
    deck: NotRequired[list[Card]]
    at: NotRequired[MoveTimestamp]


@final
class SevenUpPlay(TypedDict):
    """§6.4 play `card` to the trick (§6.5 follow rules)."""
    type: Literal['play']
    player: SevenUpSeat
    card: Card
    at: NotRequired[MoveTimestamp]


@final
class SevenUpRun(TypedDict):
    """§6.2 the dealer runs the cards until a new suit is turned or the pack runs out."""
    type: Literal['run']
    player: SevenUpSeat
    at: NotRequired[MoveTimestamp]


@final
class SevenUpStand(TypedDict):
    """§6.1 the eldest is content with the turned-up suit."""
    type: Literal['stand']
    player: SevenUpSeat
    at: NotRequired[MoveTimestamp]


SevenUpMove: TypeAlias = 'SevenUpStand | SevenUpBeg | SevenUpGive | SevenUpRun | SevenUpDiscard | SevenUpPlay | SevenUpNextDeal'
"""A Seven Up move (§6). Every move may carry an integer `at` (a client timestamp), which Seven Up …"""


@final
class SevenUpOptions(TypedDict):
    """§3 options. Omitted options take their defaults; an unknown or invalid one is 422 `invalid_option`."""
    dealer: NotRequired[int]
    target: NotRequired[int]
    follow_rule: NotRequired[Literal['follow_suit', 'follow_or_trump', 'follow_or_trump_compulsory']]
    discard_after_run: NotRequired[bool]
    game_tie: NotRequired[Literal['none', 'eldest']]
    gift_can_win: NotRequired[bool]
    gift_to_all_opponents: NotRequired[bool]
    blind_partners: NotRequired[bool]
    start_scores: NotRequired[list[int]]


SevenUpRulesVersion: TypeAlias = "Literal['seven_up/1']"


@final
class SevenUpMatchRecordSetup(TypedDict):
    """The fixed first deal, when the operator allowed one."""
    deck: NotRequired[list[Card]]
    seed: NotRequired[Seed]


@final
class SevenUpMatchRecord(TypedDict):
    """A finished sealed Seven Up match, signed (docs/fair-play.md)."""
    format: NotRequired[str]
    game: Literal['seven_up']
    rules_version: SevenUpRulesVersion
    players: Literal[2, 3, 4]
    options: SevenUpOptions
    match_id: str
    fairness: Fairness
    setup: NotRequired[SevenUpMatchRecordSetup]
    moves: list[SevenUpMove]
    result: RecordResult
    key_id: str
    signature: str


@final
class SevenUpScores(TypedDict):
    """`totals` per seat (partners show their party's score), `parties` per party, and this hand's Game …"""
    totals: list[int]
    parties: SevenUpPartyScores
    game_totals: SevenUpPartyScores


@final
class SevenUpHandEvent(TypedDict):
    """§7.1 a point scored during trump-making: a turned jack (card = the jack) or a gift."""
    event: Literal['turned_jack', 'gift']
    party: SevenUpParty
    points: Literal[1]
    card: Card | None


@final
class SevenUpLastHand(TypedDict):
    """§7.3 the record of the last completed hand: High, Low, Jack, Game in that order."""
    deal_number: int
    trump: Suit
    awards: list[SevenUpAward]
    game_totals: list[int]


SevenUpPerSeatCards: TypeAlias = 'list[SevenUpCards]'


SevenUpPhase: TypeAlias = "Literal['stand_or_beg', 'give_or_run', 'discard', 'play', 'deal_over', 'game_over']"


@final
class SevenUpTrickCard(TypedDict):
    player: SevenUpSeat
    card: Card


@final
class SevenUpTrick(TypedDict):
    """A completed trick, its cards in play order."""
    leader: SevenUpSeat
    cards: list[SevenUpTrickCard]
    winner: SevenUpSeat


@final
class SevenUpState(TypedDict):
    """The whole truth of a Seven Up match (§5), hidden parts included. On input `game`, `seq`, …"""
    game: NotRequired[Literal['seven_up']]
    rules_version: NotRequired[SevenUpRulesVersion]
    seq: NotRequired[int]
    seed: NotRequired[Seed | None]
    options: NotRequired[SevenUpOptions]
    players: Literal[2, 3, 4]
    phase: SevenUpPhase
    deal_number: int
    dealer: SevenUpSeat
    eldest: SevenUpSeat
    to_move: list[SevenUpSeat]
    scores: list[int]
    hands: SevenUpPerSeatCards
    stock: SevenUpCards
    turnup: Card | None
    first_suit: Suit | None
    set_aside: SevenUpCards
    runs: int
    begged: bool
    trump: Suit | None
    discards: SevenUpPerSeatCards
    trick: list[SevenUpTrickCard]
    trick_leader: SevenUpSeat | None
    tricks: list[SevenUpTrick]
    hand_events: list[SevenUpHandEvent]
    last_hand: SevenUpLastHand | None
    redeal: bool
    winner: SevenUpParty | None


SevenUpNullableCard: TypeAlias = 'Card | None'


SevenUpNullableParty: TypeAlias = 'SevenUpParty | None'


SevenUpNullableSeat: TypeAlias = 'SevenUpSeat | None'


SevenUpNullableSuit: TypeAlias = 'Suit | None'


@final
class SevenUpView(TypedDict):
    """What one seat may see (§5), or the public view (`seat` null). `hands[s]` and `discards[s]` are …"""
    game: Literal['seven_up']
    seat: SevenUpNullableSeat
    seq: int
    rules_version: SevenUpRulesVersion
    options: SevenUpOptions
    players: Literal[2, 3, 4]
    phase: SevenUpPhase
    deal_number: int
    dealer: SevenUpSeat
    eldest: SevenUpSeat
    to_move: list[SevenUpSeat]
    scores: list[int]
    hands: list[SevenUpCards | None]
    hand_counts: list[int]
    stock_count: int
    turnup: SevenUpNullableCard
    first_suit: SevenUpNullableSuit
    set_aside: SevenUpCards
    runs: int
    begged: bool
    trump: SevenUpNullableSuit
    discards: list[SevenUpCards | None]
    discard_counts: list[int]
    trick: list[SevenUpTrickCard]
    trick_leader: SevenUpNullableSeat
    tricks: list[SevenUpTrick]
    hand_events: list[SevenUpHandEvent]
    last_hand: SevenUpLastHand | None
    redeal: bool
    winner: SevenUpNullableParty
    legal_moves: NotRequired[list[SevenUpMove]]


@final
class SevenUpEnvelope(TypedDict):
    """The answer of every state-returning Seven Up call (`new` 201, `moves` and `state` 200)."""
    game: Literal['seven_up']
    state: SevenUpState | SevenUpView
    token: NotRequired[str]
    status: Literal['in_progress', 'deal_over', 'finished']
    to_move: list[SevenUpSeat]
    legal_moves: list[SevenUpMove]
    events: list[SevenUpEvent | UnknownEvent]
    scores: SevenUpScores
    winner: list[SevenUpSeat] | None
    seat_keys: NotRequired[SeatKeys]
    table_key: NotRequired[str]
    fairness: NotRequired[Fairness]
    record: NotRequired[SevenUpMatchRecord]


@final
class SevenUpReplayResult(TypedDict):
    """The verdict on a Seven Up move log or record."""
    game: Literal['seven_up']
    moves_total: int
    moves_legal: int
    first_illegal: IllegalMove | None
    final: SevenUpEnvelope
    format: NotRequired[str]
    match_id: NotRequired[str]
    record_signature: NotRequired[str]
    result: NotRequired[RecordResult]
    result_matches: NotRequired[bool]
    key_id: NotRequired[str]
    signature: NotRequired[str]


CaliforniaJackCard: TypeAlias = 'Card'
"""A card of the standard 52-card pack."""


CaliforniaJackSeat: TypeAlias = 'Literal[0, 1]'


@final
class CaliforniaJackCardDrawnEvent(TypedDict):
    """A card taken from the stock; `card` is `null` for other viewers when the draw is not public."""
    type: Literal['card_drawn']
    player: CaliforniaJackSeat
    card: CaliforniaJackCard | None
    trick: int
    public: bool


@final
class CaliforniaJackCardPlayedEvent(TypedDict):
    type: Literal['card_played']
    player: CaliforniaJackSeat
    card: CaliforniaJackCard


@final
class CaliforniaJackDealStartedEvent(TypedDict):
    """A hand dealt; `stock_top` is the first turn-up, which sets the trump."""
    type: Literal['deal_started']
    dealer: CaliforniaJackSeat
    deal_number: int
    trump: Suit
    stock_top: CaliforniaJackCard


@final
class CaliforniaJackGameOverEvent(TypedDict):
    type: Literal['game_over']
    winner: list[CaliforniaJackSeat]


@final
class CaliforniaJackAward(TypedDict):
    """One end-of-hand point (§7). `card` is `null` for Game; `seat` is `null` for a tied Game."""
    point: Literal['high', 'low', 'jack', 'game']
    card: CaliforniaJackCard | None
    seat: CaliforniaJackSeat | None
    credited: bool


CaliforniaJackPair: TypeAlias = 'list[int]'
"""One non-negative integer per seat."""


@final
class CaliforniaJackHandOverEvent(TypedDict):
    """The hand scored (§7); `scores` are the totals after counting out."""
    type: Literal['hand_over']
    deal_number: int
    trump: Suit
    awards: list[CaliforniaJackAward]
    game_totals: CaliforniaJackPair
    scores: CaliforniaJackPair


@final
class CaliforniaJackTrickWonEvent(TypedDict):
    type: Literal['trick_won']
    player: CaliforniaJackSeat
    cards: list[CaliforniaJackCard]
    trump: Suit


@final
class CaliforniaJackTrumpSetEvent(TypedDict):
    """`changing` mode: the new top card of the stock sets the next trick's trump."""
    type: Literal['trump_set']
    trump: Suit
    card: CaliforniaJackCard


CaliforniaJackEvent: TypeAlias = 'CaliforniaJackDealStartedEvent | CaliforniaJackCardPlayedEvent | CaliforniaJackTrickWonEvent | CaliforniaJackCardDrawnEvent | CaliforniaJackTrumpSetEvent | CaliforniaJackHandOverEvent | CaliforniaJackGameOverEvent'
"""Something a California Jack move caused (docs/wire.md)."""


@final
class CaliforniaJackNextDeal(TypedDict):
    """§6.2 the new dealer starts the next hand, from `deck` (top card first) or a shuffle."""
    type: Literal['next_deal']
    player: CaliforniaJackSeat
    deck: NotRequired[list[CaliforniaJackCard]]
    at: NotRequired[MoveTimestamp]


@final
class CaliforniaJackPlay(TypedDict):
    """§6.1 lead or follow with `card`."""
    type: Literal['play']
    player: CaliforniaJackSeat
    card: CaliforniaJackCard
    at: NotRequired[MoveTimestamp]


CaliforniaJackMove: TypeAlias = 'CaliforniaJackPlay | CaliforniaJackNextDeal'
"""A California Jack move (§6). Every move may carry an integer `at` (a client timestamp), which …"""


@final
class CaliforniaJackOptions(TypedDict):
    """§3 options. Omitted options take their defaults; an unknown or invalid one is 422 `invalid_option`."""
    dealer: NotRequired[int]
    target: NotRequired[int]
    trump_mode: NotRequired[Literal['changing', 'fixed']]
    stock_face_up: NotRequired[bool]
    game_point: NotRequired[bool]
    follow_rule: NotRequired[Literal['follow_suit', 'follow_or_trump', 'follow_or_trump_compulsory']]
    start_scores: NotRequired[list[int]]


CaliforniaJackRulesVersion: TypeAlias = "Literal['california_jack/1']"


@final
class CaliforniaJackMatchRecordSetup(TypedDict):
    """The fixed first deal, when the operator allowed one."""
    deck: NotRequired[list[CaliforniaJackCard]]
    seed: NotRequired[Seed]


@final
class CaliforniaJackMatchRecord(TypedDict):
    """A finished sealed California Jack match, signed (docs/fair-play.md)."""
    format: NotRequired[str]
    game: Literal['california_jack']
    rules_version: CaliforniaJackRulesVersion
    players: Literal[2]
    options: CaliforniaJackOptions
    match_id: str
    fairness: Fairness
    setup: NotRequired[CaliforniaJackMatchRecordSetup]
    moves: list[CaliforniaJackMove]
    result: RecordResult
    key_id: str
    signature: str


@final
class CaliforniaJackScores(TypedDict):
    """`totals` = match points; this hand's tricks won and each seat's card value in its tricks."""
    totals: CaliforniaJackPair
    tricks_won: CaliforniaJackPair
    game_totals: CaliforniaJackPair


@final
class CaliforniaJackDraw(TypedDict):
    """A card taken from the stock after trick `trick` (the winner's draw first)."""
    trick: int
    player: CaliforniaJackSeat
    card: CaliforniaJackCard
    public: bool


CaliforniaJackCards: TypeAlias = 'list[CaliforniaJackCard]'


CaliforniaJackKnownCards: TypeAlias = 'list[CaliforniaJackCards]'
"""Per seat, the cards now in its hand that it drew publicly."""


@final
class CaliforniaJackLastHand0(TypedDict):
    deal_number: int
    trump: Suit
    awards: list[CaliforniaJackAward]
    game_totals: list[int]


CaliforniaJackLastHand: TypeAlias = 'CaliforniaJackLastHand0 | None'
"""How the last finished hand was scored (§7), `null` before the first one ends."""


CaliforniaJackPhase: TypeAlias = "Literal['play', 'deal_over', 'game_over']"


CaliforniaJackStockTop: TypeAlias = 'CaliforniaJackCard | None'
"""The stock's top card when both seats may see it (§4), else `null`."""


CaliforniaJackToMove: TypeAlias = 'list[CaliforniaJackSeat]'
"""`[seat]` to act, `[]` once the game is over."""


@final
class CaliforniaJackPlayedCard(TypedDict):
    """A card of a trick and the seat that played it."""
    player: CaliforniaJackSeat
    card: CaliforniaJackCard


CaliforniaJackTrickInProgress: TypeAlias = 'list[CaliforniaJackPlayedCard]'
"""The current trick, `[]` or the led card."""


@final
class CaliforniaJackTrick(TypedDict):
    """A completed trick with the trump it was played under."""
    leader: CaliforniaJackSeat
    cards: list[CaliforniaJackPlayedCard]
    winner: CaliforniaJackSeat
    trump: Suit


CaliforniaJackTricks: TypeAlias = 'list[CaliforniaJackTrick]'


@final
class CaliforniaJackState(TypedDict):
    """The whole truth of a California Jack match (§5), hidden parts included. Responses carry every …"""
    game: NotRequired[Literal['california_jack']]
    rules_version: NotRequired[CaliforniaJackRulesVersion]
    seq: NotRequired[int]
    seed: NotRequired[Seed | None]
    options: NotRequired[CaliforniaJackOptions]
    phase: CaliforniaJackPhase
    deal_number: int
    dealer: CaliforniaJackSeat
    to_move: CaliforniaJackToMove
    scores: list[int]
    hands: list[list[CaliforniaJackCard]]
    stock: list[CaliforniaJackCard]
    trump: Suit
    trick: CaliforniaJackTrickInProgress
    trick_leader: CaliforniaJackSeat
    tricks: CaliforniaJackTricks
    draws: list[CaliforniaJackDraw]
    last_hand: CaliforniaJackLastHand
    winner: CaliforniaJackSeat | None
    stock_count: NotRequired[int]
    stock_top: NotRequired[CaliforniaJackStockTop]
    known_cards: NotRequired[CaliforniaJackKnownCards]
    game_totals: NotRequired[CaliforniaJackPair]


@final
class CaliforniaJackDrawView(TypedDict):
    """A draw as a view shows it; `card` is `null` for a private draw of another seat."""
    trick: int
    player: CaliforniaJackSeat
    card: CaliforniaJackCard | None
    public: bool


CaliforniaJackWinner: TypeAlias = 'CaliforniaJackSeat | None'


@final
class CaliforniaJackView(TypedDict):
    """What one seat may see (§5), or the public view (`seat` null, sealed mode without `as`): the …"""
    game: Literal['california_jack']
    seat: CaliforniaJackSeat | None
    seq: int
    rules_version: CaliforniaJackRulesVersion
    options: CaliforniaJackOptions
    phase: CaliforniaJackPhase
    deal_number: int
    dealer: CaliforniaJackSeat
    to_move: CaliforniaJackToMove
    scores: list[int]
    hands: list[list[CaliforniaJackCard] | None]
    hand_counts: CaliforniaJackPair
    known_cards: CaliforniaJackKnownCards
    stock_count: int
    stock_top: CaliforniaJackStockTop
    trump: Suit
    trick: CaliforniaJackTrickInProgress
    trick_leader: CaliforniaJackSeat
    tricks: CaliforniaJackTricks
    draws: list[CaliforniaJackDrawView]
    last_hand: CaliforniaJackLastHand
    winner: CaliforniaJackWinner
    legal_moves: NotRequired[list[CaliforniaJackMove]]


@final
class CaliforniaJackEnvelope(TypedDict):
    """The answer of every state-returning California Jack call (`new` 201, `moves` and `state` 200)."""
    game: Literal['california_jack']
    state: CaliforniaJackState | CaliforniaJackView
    token: NotRequired[str]
    status: Literal['in_progress', 'deal_over', 'finished']
    to_move: list[CaliforniaJackSeat]
    legal_moves: list[CaliforniaJackMove]
    events: list[CaliforniaJackEvent | UnknownEvent]
    scores: CaliforniaJackScores
    winner: list[CaliforniaJackSeat] | None
    seat_keys: NotRequired[SeatKeys]
    table_key: NotRequired[str]
    fairness: NotRequired[Fairness]
    record: NotRequired[CaliforniaJackMatchRecord]


@final
class CaliforniaJackReplayResult(TypedDict):
    """The verdict on a California Jack move log or record."""
    game: Literal['california_jack']
    moves_total: int
    moves_legal: int
    first_illegal: IllegalMove | None
    final: CaliforniaJackEnvelope
    format: NotRequired[str]
    match_id: NotRequired[str]
    record_signature: NotRequired[str]
    result: NotRequired[RecordResult]
    result_matches: NotRequired[bool]
    key_id: NotRequired[str]
    signature: NotRequired[str]


YukonCard: TypeAlias = 'Card'
"""A card of the 52-card pack (three players play without the option `removed_two`)."""


YukonSeat: TypeAlias = 'int'
"""A seat, below the player count (2, 3 or 4)."""


@final
class YukonCardDrawnEvent(TypedDict):
    """A card drawn from the stock after a trick; `card` is `null` for every viewer but the drawer."""
    type: Literal['card_drawn']
    player: YukonSeat
    card: YukonCard | None


@final
class YukonCardPlayedEvent(TypedDict):
    type: Literal['card_played']
    player: YukonSeat
    card: YukonCard


YukonPerSide: TypeAlias = 'list[int]'
"""One non-negative integer per side (§2): 2 with partnerships, else one per seat."""


@final
class YukonDealOverEvent(TypedDict):
    """The hand is over (§7); points per side of the hand, and the running scores."""
    type: Literal['deal_over']
    hand_points: YukonPerSide
    scores: YukonPerSide


@final
class YukonDealStartedEvent(TypedDict):
    type: Literal['deal_started']
    dealer: YukonSeat
    hand_number: int


@final
class YukonGameOverEvent(TypedDict):
    type: Literal['game_over']
    winner: list[YukonSeat]


@final
class YukonPlayed(TypedDict):
    """A card and the seat that played it."""
    player: YukonSeat
    card: YukonCard


@final
class YukonTrickWonEvent(TypedDict):
    type: Literal['trick_won']
    player: YukonSeat
    cards: list[YukonPlayed]
    points: int


YukonEvent: TypeAlias = 'YukonDealStartedEvent | YukonCardPlayedEvent | YukonTrickWonEvent | YukonCardDrawnEvent | YukonDealOverEvent | YukonGameOverEvent'
"""Something a Yukon move caused (docs/wire.md)."""


@final
class YukonNextDeal(TypedDict):
    """§6.2 the new dealer (left of the last one) deals the next hand, from `deck` (top card first) or …"""
    type: Literal['next_deal']
    player: YukonSeat
    deck: NotRequired[list[YukonCard]]
    at: NotRequired[MoveTimestamp]


@final
class YukonPlay(TypedDict):
    """§6.1 lead or follow with `card`."""
    type: Literal['play']
    player: YukonSeat
    card: YukonCard
    at: NotRequired[MoveTimestamp]


YukonMove: TypeAlias = 'YukonPlay | YukonNextDeal'
"""A Yukon move (§6). Every move may carry an integer `at` (a client timestamp), which Yukon …"""


@final
class YukonOptions(TypedDict):
    """§3 options. Omitted options take their defaults; an unknown or invalid one is 422 `invalid_option`."""
    dealer: NotRequired[int]
    partnerships: NotRequired[bool]
    target: NotRequired[int]
    removed_two: NotRequired[Literal['2C', '2D', '2H', '2S']]


YukonRulesVersion: TypeAlias = "Literal['yukon/1']"


@final
class YukonMatchRecordSetup(TypedDict):
    """The fixed first deal, when the operator allowed one."""
    deck: NotRequired[list[YukonCard]]
    seed: NotRequired[Seed]


@final
class YukonMatchRecord(TypedDict):
    """A finished sealed Yukon match, signed (docs/fair-play.md)."""
    format: NotRequired[str]
    game: Literal['yukon']
    rules_version: YukonRulesVersion
    players: Literal[2, 3, 4]
    options: YukonOptions
    match_id: str
    fairness: Fairness
    setup: NotRequired[YukonMatchRecordSetup]
    moves: list[YukonMove]
    result: RecordResult
    key_id: str
    signature: str


YukonPerSeat: TypeAlias = 'list[int]'
"""One non-negative integer per seat."""


YukonSides: TypeAlias = 'list[int]'
"""The side of each seat (§2), e.g. `[0, 1, 0, 1]` for four partnered players."""


@final
class YukonScores(TypedDict):
    """`totals`: the running score of each seat's side (partners show their side's total); …"""
    totals: YukonPerSeat
    side_totals: YukonPerSide
    sides: YukonSides
    hand_points: YukonPerSide | None


YukonPhase: TypeAlias = "Literal['play', 'deal_over', 'game_over']"


YukonTrick: TypeAlias = 'list[YukonPlayed]'
"""The trick in progress, in play order (the leader first)."""


@final
class YukonStateLastTrick0(TypedDict):
    cards: list[YukonPlayed]
    winner: YukonSeat
    points: int
    draws: list[YukonPlayed]


@final
class YukonState(TypedDict):
    """The whole truth of a Yukon game (§5), hidden parts included. Responses carry every member below; …"""
    game: NotRequired[Literal['yukon']]
    rules_version: NotRequired[YukonRulesVersion]
    seq: NotRequired[int]
    seed: NotRequired[Seed | None]
    options: NotRequired[YukonOptions]
    players: Literal[2, 3, 4]
    phase: YukonPhase
    dealer: YukonSeat
    hand_number: int
    hands: list[list[YukonCard]]
    stock: list[YukonCard]
    trick: YukonTrick
    leader: YukonSeat
    to_move: YukonSeat | None
    won: list[list[YukonCard]]
    last_trick: YukonStateLastTrick0 | None
    hand_points: list[int] | None
    scores: list[int]
    winner: int | None
    hand_counts: NotRequired[YukonPerSeat]
    stock_count: NotRequired[int]
    won_counts: NotRequired[YukonPerSeat]
    sides: NotRequired[YukonSides]


YukonCards: TypeAlias = 'list[YukonCard]'


@final
class YukonDraw(TypedDict):
    """A card drawn after the trick; `null` in the views of the other seats."""
    player: YukonSeat
    card: YukonCard | None


@final
class YukonLastTrick1(TypedDict):
    cards: list[YukonPlayed]
    winner: YukonSeat
    points: int
    draws: list[YukonDraw]


YukonLastTrick: TypeAlias = 'None | YukonLastTrick1'
"""The latest completed trick (§5), `null` before the first one of a hand."""


@final
class YukonView(TypedDict):
    """What one seat may see (§5), or the public view (`seat` null, sealed mode without `as`: no hand …"""
    game: Literal['yukon']
    seat: YukonSeat | None
    seq: int
    rules_version: YukonRulesVersion
    options: YukonOptions
    players: Literal[2, 3, 4]
    phase: YukonPhase
    dealer: YukonSeat
    hand_number: int
    hand: NotRequired[YukonCards]
    hand_counts: YukonPerSeat
    stock_count: int
    trick: YukonTrick
    leader: YukonSeat
    to_move: YukonSeat | None
    won_counts: YukonPerSeat
    won: list[list[YukonCard]] | None
    last_trick: YukonLastTrick
    hand_points: list[int] | None
    scores: list[int]
    sides: YukonSides
    winner: int | None
    legal_moves: NotRequired[list[YukonMove]]


@final
class YukonEnvelope(TypedDict):
    """The answer of every state-returning Yukon call (`new` 201, `moves` and `state` 200)."""
    game: Literal['yukon']
    state: YukonState | YukonView
    token: NotRequired[str]
    status: Literal['in_progress', 'deal_over', 'finished']
    to_move: list[YukonSeat]
    legal_moves: list[YukonMove]
    events: list[YukonEvent | UnknownEvent]
    scores: YukonScores
    winner: list[YukonSeat] | None
    seat_keys: NotRequired[SeatKeys]
    table_key: NotRequired[str]
    fairness: NotRequired[Fairness]
    record: NotRequired[YukonMatchRecord]


@final
class YukonReplayResult(TypedDict):
    """The verdict on a Yukon move log or record."""
    game: Literal['yukon']
    moves_total: int
    moves_legal: int
    first_illegal: IllegalMove | None
    final: YukonEnvelope
    format: NotRequired[str]
    match_id: NotRequired[str]
    record_signature: NotRequired[str]
    result: NotRequired[RecordResult]
    result_matches: NotRequired[bool]
    key_id: NotRequired[str]
    signature: NotRequired[str]


StukolkaCard: TypeAlias = 'Card'
"""A card of the game's pack (52 cards, or 36 with the option `pack`)."""


StukolkaSeat: TypeAlias = 'int'
"""A seat 0..players-1 (3 to 7 players)."""


StukolkaViolationCode: TypeAlias = "Literal['must_lead_trump_ace', 'must_lead_trump_king', 'must_follow_suit', 'must_beat', 'must_trump']"
"""A rule of §6.4 (lead and follow obligations)."""


@final
class StukolkaCardPlayedEvent(TypedDict):
    type: Literal['card_played']
    player: StukolkaSeat
    card: StukolkaCard
    violation: NotRequired[StukolkaViolationCode]


@final
class StukolkaNoPlayResult(TypedDict):
    kind: Literal['all_passed', 'dealer_takes', 'lone_tapper_takes']
    pot: int
    winner: StukolkaSeat | None
    carry: int


StukolkaPerSeatCount: TypeAlias = 'list[int]'
"""One count per seat."""


StukolkaPlayedResultWinnings = TypedDict('StukolkaPlayedResultWinnings', {'0': 'NotRequired[int]', '1': 'NotRequired[int]', '2': 'NotRequired[int]', '3': 'NotRequired[int]', '4': 'NotRequired[int]', '5': 'NotRequired[int]', '6': 'NotRequired[int]'})
"""Trick money paid out, by seat (`"1": 2`); seats that took no trick, and the defender, are not …"""


@final
class StukolkaPlayedResult(TypedDict):
    kind: Literal['played']
    pot: int
    third: int
    remiz: int
    tricks: StukolkaPerSeatCount
    winnings: StukolkaPlayedResultWinnings
    remized: list[StukolkaSeat]
    penalized: list[StukolkaSeat]
    carry: int


StukolkaResult: TypeAlias = 'StukolkaPlayedResult | StukolkaNoPlayResult'
"""§7.1 the settlement of the deal just ended (`null` while a deal is in progress)."""


@final
class StukolkaDealOverEvent(TypedDict):
    type: Literal['deal_over']
    result: StukolkaResult


@final
class StukolkaDealStartedEvent(TypedDict):
    type: Literal['deal_started']
    dealer: StukolkaSeat
    deal_number: int
    turnup: StukolkaCard
    pot: int
    stakes: StukolkaPerSeatCount


@final
class StukolkaDeclaredEvent(TypedDict):
    type: Literal['declared']
    player: StukolkaSeat
    declaration: Literal['tap', 'pass']


StukolkaCards: TypeAlias = 'list[StukolkaCard]'


@final
class StukolkaExchangedEvent(TypedDict):
    """A seat bought cards; `discard` and `drawn` are `null` for viewers other than that seat."""
    type: Literal['exchanged']
    player: StukolkaSeat
    count: int
    discard: StukolkaCards | None
    drawn: StukolkaCards | None


@final
class StukolkaGameOverEvent(TypedDict):
    type: Literal['game_over']
    winner: list[StukolkaSeat]


StukolkaSeatOrNull: TypeAlias = 'StukolkaSeat | None'


@final
class StukolkaInPlayEvent(TypedDict):
    """The declarations are resolved and the deal is played (§6.3)."""
    type: Literal['in_play']
    in_play: list[StukolkaSeat]
    defender: StukolkaSeatOrNull


@final
class StukolkaTrickWonEvent(TypedDict):
    type: Literal['trick_won']
    player: StukolkaSeat
    cards: list[StukolkaCard]
    trick: int


StukolkaEvent: TypeAlias = 'StukolkaDealStartedEvent | StukolkaDeclaredEvent | StukolkaInPlayEvent | StukolkaExchangedEvent | StukolkaCardPlayedEvent | StukolkaTrickWonEvent | StukolkaDealOverEvent | StukolkaGameOverEvent'
"""Something a Stukolka move caused (docs/wire.md)."""


@final
class StukolkaExchange(TypedDict):
    """§6.2 discard these cards (any order; `[]` stands pat) and buy as many from the top of the stock."""
    type: Literal['exchange']
    player: StukolkaSeat
    discard: list[StukolkaCard]
    at: NotRequired[MoveTimestamp]


@final
class StukolkaNextDeal(TypedDict):
    """§6.6 the next dealer starts the next deal, from `deck` (top card first) or a shuffle."""
    type: Literal['next_deal']
    player: StukolkaSeat
    deck: NotRequired[list[StukolkaCard]]
    at: NotRequired[MoveTimestamp]


@final
class StukolkaPass(TypedDict):
    """§6.1 drop out of this deal."""
    type: Literal['pass']
    player: StukolkaSeat
    at: NotRequired[MoveTimestamp]


@final
class StukolkaPlay(TypedDict):
    """§6.4 play `card` to the trick. `violation` is informational (as listed in `penalize` mode) and …"""
    type: Literal['play']
    player: StukolkaSeat
    card: StukolkaCard
    violation: NotRequired[StukolkaViolationCode | None]
    at: NotRequired[MoveTimestamp]


@final
class StukolkaTap(TypedDict):
    """§6.1 declare to play (knock on the table)."""
    type: Literal['tap']
    player: StukolkaSeat
    at: NotRequired[MoveTimestamp]


StukolkaMove: TypeAlias = 'StukolkaTap | StukolkaPass | StukolkaExchange | StukolkaPlay | StukolkaNextDeal'
"""A Stukolka move (§6). Every move may carry an integer `at` (a client timestamp), which Stukolka …"""


@final
class StukolkaOptions(TypedDict):
    """§3 options. Omitted options take their defaults; an unknown or invalid one is 422 …"""
    dealer: NotRequired[int]
    pack: NotRequired[Literal[52, 36]]
    stake: NotRequired[int]
    stake_by: NotRequired[Literal['dealer', 'all']]
    lone_tapper: NotRequired[Literal['dealer_defends', 'wins_pot']]
    violations: NotRequired[Literal['refuse', 'penalize']]
    turnup_ace_king_lead: NotRequired[bool]
    max_exchange: NotRequired[int]
    remiz_limit: NotRequired[int | None]
    deals: NotRequired[int | None]


StukolkaRulesVersion: TypeAlias = "Literal['stukolka/1']"


@final
class StukolkaMatchRecordSetup(TypedDict):
    """The fixed first deal, when the operator allowed one."""
    deck: NotRequired[list[StukolkaCard]]
    seed: NotRequired[Seed]


@final
class StukolkaMatchRecord(TypedDict):
    """A finished sealed Stukolka match, signed (docs/fair-play.md)."""
    format: NotRequired[str]
    game: Literal['stukolka']
    rules_version: StukolkaRulesVersion
    players: Literal[3, 4, 5, 6, 7]
    options: StukolkaOptions
    match_id: str
    fairness: Fairness
    setup: NotRequired[StukolkaMatchRecordSetup]
    moves: list[StukolkaMove]
    result: RecordResult
    key_id: str
    signature: str


StukolkaMoney: TypeAlias = 'int'
"""An amount of money (integer units; balances may be negative)."""


StukolkaPerSeatMoney: TypeAlias = 'list[StukolkaMoney]'
"""One amount per seat."""


@final
class StukolkaScores(TypedDict):
    """`totals` = balances; the pot, the carry and this deal's tricks."""
    totals: StukolkaPerSeatMoney
    pot: int
    carry: int
    tricks_won: StukolkaPerSeatCount


@final
class StukolkaCompletedTrick(TypedDict):
    """A finished trick, its cards in play order (from its leader, clockwise over the seats in play)."""
    cards: list[StukolkaCard]
    winner: StukolkaSeat


StukolkaCompletedTricks: TypeAlias = 'list[StukolkaCompletedTrick]'


StukolkaDeclarations: TypeAlias = "list[Literal['tap', 'pass'] | None]"
"""Per seat, `null` until it declares, then `tap` or `pass`."""


StukolkaPhase: TypeAlias = "Literal['declare', 'exchange', 'play', 'deal_over', 'game_over']"


@final
class StukolkaTrickCard(TypedDict):
    player: StukolkaSeat
    card: StukolkaCard


StukolkaTrick: TypeAlias = 'list[StukolkaTrickCard]'
"""The trick in progress, in play order."""


@final
class StukolkaViolation(TypedDict):
    """§6.5 a breach accepted in `penalize` mode."""
    player: StukolkaSeat
    code: StukolkaViolationCode
    trick: int
    card: StukolkaCard


StukolkaViolations: TypeAlias = 'list[StukolkaViolation]'


@final
class StukolkaState(TypedDict):
    """The whole truth of a Stukolka game (§5), hidden parts included. Responses carry every member …"""
    game: NotRequired[Literal['stukolka']]
    rules_version: NotRequired[StukolkaRulesVersion]
    seq: NotRequired[int]
    seed: NotRequired[Seed | None]
    options: NotRequired[StukolkaOptions]
    players: int
    phase: StukolkaPhase
    deal_number: int
    dealer: StukolkaSeat
    to_move: StukolkaSeat | None
    hands: list[list[StukolkaCard]]
    turnup: StukolkaCard
    stock: list[StukolkaCard]
    declarations: StukolkaDeclarations
    in_play: list[StukolkaSeat]
    defender: StukolkaSeat | None
    exchanged: list[int | None]
    discards: list[list[StukolkaCard]]
    leader: StukolkaSeat | None
    trick: StukolkaTrick
    completed_tricks: StukolkaCompletedTricks
    pot: int
    carry: int
    balances: StukolkaPerSeatMoney
    violations: StukolkaViolations
    last_result: StukolkaResult | None
    trump: NotRequired[Suit]
    stock_count: NotRequired[int]
    tricks_won: NotRequired[StukolkaPerSeatCount]


StukolkaResultOrNull: TypeAlias = 'StukolkaResult | None'


@final
class StukolkaPublicView(TypedDict):
    """The members every Stukolka view carries (the public parts of the state)."""
    game: Literal['stukolka']
    seq: int
    rules_version: StukolkaRulesVersion
    options: StukolkaOptions
    players: int
    deal_number: int
    dealer: StukolkaSeat
    phase: StukolkaPhase
    to_move: StukolkaSeat | None
    hand_counts: StukolkaPerSeatCount
    turnup: StukolkaCard
    trump: Suit
    stock_count: int
    declarations: StukolkaDeclarations
    in_play: list[StukolkaSeat]
    defender: StukolkaSeat | None
    exchanged: list[int | None]
    discard_counts: StukolkaPerSeatCount
    leader: StukolkaSeat | None
    trick: StukolkaTrick
    completed_tricks: StukolkaCompletedTricks
    tricks_won: StukolkaPerSeatCount
    pot: int
    carry: int
    balances: StukolkaPerSeatMoney
    violations: StukolkaViolations
    last_result: StukolkaResultOrNull
    seat: None


@final
class StukolkaSeatView(TypedDict):
    """The members every Stukolka view carries (the public parts of the state)."""
    game: Literal['stukolka']
    seq: int
    rules_version: StukolkaRulesVersion
    options: StukolkaOptions
    players: int
    deal_number: int
    dealer: StukolkaSeat
    phase: StukolkaPhase
    to_move: StukolkaSeat | None
    hand_counts: StukolkaPerSeatCount
    turnup: StukolkaCard
    trump: Suit
    stock_count: int
    declarations: StukolkaDeclarations
    in_play: list[StukolkaSeat]
    defender: StukolkaSeat | None
    exchanged: list[int | None]
    discard_counts: StukolkaPerSeatCount
    leader: StukolkaSeat | None
    trick: StukolkaTrick
    completed_tricks: StukolkaCompletedTricks
    tricks_won: StukolkaPerSeatCount
    pot: int
    carry: int
    balances: StukolkaPerSeatMoney
    violations: StukolkaViolations
    last_result: StukolkaResultOrNull
    seat: StukolkaSeat
    hand: list[StukolkaCard]
    legal_moves: NotRequired[list[StukolkaMove]]


StukolkaView: TypeAlias = 'StukolkaSeatView | StukolkaPublicView'
"""What one seat may see (§5), or the public view (`seat` null: sealed mode without `as`): other …"""


@final
class StukolkaEnvelope(TypedDict):
    """The answer of every state-returning Stukolka call (`new` 201, `moves` and `state` 200)."""
    game: Literal['stukolka']
    state: StukolkaState | StukolkaView
    token: NotRequired[str]
    status: Literal['in_progress', 'deal_over', 'finished']
    to_move: list[StukolkaSeat]
    legal_moves: list[StukolkaMove]
    events: list[StukolkaEvent | UnknownEvent]
    scores: StukolkaScores
    winner: list[StukolkaSeat] | None
    seat_keys: NotRequired[SeatKeys]
    table_key: NotRequired[str]
    fairness: NotRequired[Fairness]
    record: NotRequired[StukolkaMatchRecord]


@final
class StukolkaReplayResult(TypedDict):
    """The verdict on a Stukolka move log or record."""
    game: Literal['stukolka']
    moves_total: int
    moves_legal: int
    first_illegal: IllegalMove | None
    final: StukolkaEnvelope
    format: NotRequired[str]
    match_id: NotRequired[str]
    record_signature: NotRequired[str]
    result: NotRequired[RecordResult]
    result_matches: NotRequired[bool]
    key_id: NotRequired[str]
    signature: NotRequired[str]


BraggingSeat: TypeAlias = 'int'


BraggingStake: TypeAlias = 'int'
"""A blind amount or raise total a move names (1 to 10^9)."""


@final
class BraggingBlindEvent(TypedDict):
    type: Literal['blind']
    player: BraggingSeat
    amount: BraggingStake


@final
class BraggingCallEvent(TypedDict):
    type: Literal['call']
    player: BraggingSeat
    amount: BraggingStake


BraggingCard: TypeAlias = 'Card'
"""A card of the chosen pack (52 cards, or 36 with ranks 6 to A)."""


BraggingCards: TypeAlias = 'list[BraggingCard]'


@final
class BraggingCardsDealtEvent(TypedDict):
    """Cards dealt to one seat (rounds 1–2, or 3–4); `face_down` is null for other viewers."""
    type: Literal['cards_dealt']
    player: BraggingSeat
    face_down: BraggingCards | None
    face_up: BraggingCards


@final
class BraggingCheckEvent(TypedDict):
    type: Literal['check']
    player: BraggingSeat


@final
class BraggingExposeEvent(TypedDict):
    type: Literal['expose']
    player: BraggingSeat
    cards: BraggingCards


@final
class BraggingFoldEvent(TypedDict):
    type: Literal['fold']
    player: BraggingSeat


BraggingSeats: TypeAlias = 'list[BraggingSeat]'


@final
class BraggingGameOverEvent(TypedDict):
    """Hand N of the `hands` option has ended: `winner` = the seats with the highest balance."""
    type: Literal['game_over']
    winner: BraggingSeats


BraggingAmount: TypeAlias = 'int'
"""A sum of money (never negative)."""


BraggingValue: TypeAlias = 'list[int]'
"""A hand value `[category, n1, n2, …]` (§7.2); compared element by element."""


@final
class BraggingHandOverEvent(TypedDict):
    """The hand's result, as `last_result`."""
    type: Literal['hand_over']
    kind: Literal['showdown', 'uncontested', 'tie_carried']
    winners: BraggingSeats
    pot: BraggingAmount
    shares: dict[str, BraggingAmount]
    values: dict[str, BraggingValue]
    hands: dict[str, list[BraggingCard]]


@final
class BraggingHandStartedEvent(TypedDict):
    """A hand begins; every seat has paid the ante (`pot` includes a carried pot)."""
    type: Literal['hand_started']
    hand_number: int
    dealer: BraggingSeat
    ante: BraggingAmount
    pot: BraggingAmount


@final
class BraggingNoBlindEvent(TypedDict):
    type: Literal['no_blind']
    player: BraggingSeat


@final
class BraggingRaiseEvent(TypedDict):
    type: Literal['raise']
    player: BraggingSeat
    to: BraggingStake
    amount: BraggingAmount


BraggingEvent: TypeAlias = 'BraggingHandStartedEvent | BraggingBlindEvent | BraggingNoBlindEvent | BraggingCardsDealtEvent | BraggingExposeEvent | BraggingFoldEvent | BraggingCheckEvent | BraggingCallEvent | BraggingRaiseEvent | BraggingHandOverEvent | BraggingGameOverEvent'
"""Something a Bragging move caused (docs/wire.md)."""


@final
class BraggingBlind(TypedDict):
    """§6.1 stake `amount` before the deal: the eldest's blind, or a later seat's over-blind (more than …"""
    type: Literal['blind']
    player: BraggingSeat
    amount: NotRequired[BraggingStake]
    min_amount: NotRequired[BraggingStake]
    at: NotRequired[MoveTimestamp]


@final
class BraggingCall(TypedDict):
    """§6.4 match the current bet. `amount` is listed (what the call costs); a move may leave it out or …"""
    type: Literal['call']
    player: BraggingSeat
    amount: NotRequired[BraggingStake]
    at: NotRequired[MoveTimestamp]


@final
class BraggingCheck(TypedDict):
    """§6.4 stay in without paying (not while facing a bet)."""
    type: Literal['check']
    player: BraggingSeat
    at: NotRequired[MoveTimestamp]


@final
class BraggingExpose(TypedDict):
    """§6.2 turn up 0, 1 or 2 of the first two cards; §6.3 the dealer turns up exactly 2 of his 4 (any …"""
    type: Literal['expose']
    player: BraggingSeat
    cards: list[BraggingCard]
    at: NotRequired[MoveTimestamp]


@final
class BraggingFold(TypedDict):
    """§6.4 pass: out of the hand."""
    type: Literal['fold']
    player: BraggingSeat
    at: NotRequired[MoveTimestamp]


@final
class BraggingNextDeal(TypedDict):
    """§6.5 the next dealer starts the next hand, from `deck` (top card first) or a shuffle."""
    type: Literal['next_deal']
    player: BraggingSeat
    deck: NotRequired[list[BraggingCard]]
    at: NotRequired[MoveTimestamp]


@final
class BraggingNoBlind(TypedDict):
    """§6.1 stake nothing before the deal (the eldest's no_blind ends the blind phase)."""
    type: Literal['no_blind']
    player: BraggingSeat
    at: NotRequired[MoveTimestamp]


@final
class BraggingRaise(TypedDict):
    """§6.4 raise the bet to the new total `to` (at least the current bet + `min_raise`)."""
    type: Literal['raise']
    player: BraggingSeat
    to: NotRequired[BraggingStake]
    min_to: NotRequired[BraggingStake]
    at: NotRequired[MoveTimestamp]


BraggingMove: TypeAlias = 'BraggingBlind | BraggingNoBlind | BraggingExpose | BraggingFold | BraggingCheck | BraggingCall | BraggingRaise | BraggingNextDeal'
"""A Bragging move (§6). Every move may carry an integer `at`, which Bragging ignores. In …"""


@final
class BraggingOptions(TypedDict):
    """§3 options. Omitted options take their defaults; an unknown or invalid one is 422 `invalid_option`."""
    dealer: NotRequired[int]
    pack: NotRequired[Literal[36, 52]]
    ante: NotRequired[int]
    min_raise: NotRequired[int]
    hand_ranking: NotRequired[Literal['suit_points', 'poker4']]
    tie_rule: NotRequired[Literal['split', 'carry']]
    hands: NotRequired[int | None]


BraggingRulesVersion: TypeAlias = "Literal['bragging/1']"


@final
class BraggingMatchRecordSetup(TypedDict):
    """The fixed first deal, when the operator allowed one."""
    deck: NotRequired[list[BraggingCard]]
    seed: NotRequired[Seed]


@final
class BraggingMatchRecord(TypedDict):
    """A finished sealed Bragging (Russian four-card brag) match, signed (docs/fair-play.md)."""
    format: NotRequired[str]
    game: Literal['bragging']
    rules_version: BraggingRulesVersion
    players: Literal[2, 3, 4, 5, 6, 7, 8]
    options: BraggingOptions
    match_id: str
    fairness: Fairness
    setup: NotRequired[BraggingMatchRecordSetup]
    moves: list[BraggingMove]
    result: RecordResult
    key_id: str
    signature: str


BraggingPerSeatInt: TypeAlias = 'list[int]'
"""One integer per seat."""


@final
class BraggingScores(TypedDict):
    """`totals` = balances; the pot, the carried amount and this hand's bets (`contrib`)."""
    totals: BraggingPerSeatInt
    pot: BraggingAmount
    carry: BraggingAmount
    contrib: BraggingPerSeatInt


BraggingPhase: TypeAlias = "Literal['blind', 'expose', 'dealer_expose', 'betting', 'deal_over', 'game_over']"


@final
class BraggingResult(TypedDict):
    """§7.1 `last_result`: `kind` (`showdown`, `uncontested`, or `tie_carried` under the `carry` tie …"""
    kind: Literal['showdown', 'uncontested', 'tie_carried']
    winners: BraggingSeats
    pot: int
    shares: dict[str, int]
    values: dict[str, list[int]]
    hands: dict[str, list[BraggingCard]]


@final
class BraggingState(TypedDict):
    """The whole truth of a Bragging game (§5), hidden parts included. Responses carry every member …"""
    game: NotRequired[Literal['bragging']]
    rules_version: NotRequired[BraggingRulesVersion]
    seq: NotRequired[int]
    seed: NotRequired[Seed | None]
    options: NotRequired[BraggingOptions]
    players: int
    hand_number: int
    dealer: BraggingSeat
    phase: BraggingPhase
    to_move: BraggingSeat | None
    blinds: list[int]
    hidden: list[BraggingCards]
    up: list[BraggingCards]
    exposed_count: list[int | None]
    deck: list[BraggingCard]
    dead: list[BraggingCard]
    folded: list[bool]
    contrib: list[int]
    current_bet: int
    pending: BraggingSeats
    pot: int
    carry: int
    balances: list[int]
    last_result: BraggingResult | None
    eldest: NotRequired[BraggingSeat]
    order: NotRequired[BraggingSeats]


@final
class BraggingPublicView(TypedDict):
    """The members every Bragging view carries (the public parts of the state)."""
    game: Literal['bragging']
    seq: int
    rules_version: BraggingRulesVersion
    options: BraggingOptions
    players: int
    hand_number: int
    dealer: BraggingSeat
    phase: BraggingPhase
    to_move: BraggingSeat | None
    blinds: list[int]
    hidden_counts: BraggingPerSeatInt
    up: list[BraggingCards]
    exposed_count: list[int | None]
    deck_count: int
    dead_count: int
    folded: list[bool]
    contrib: list[int]
    current_bet: int
    pending: BraggingSeats
    pot: int
    carry: int
    balances: list[int]
    last_result: BraggingResult | None
    seat: None


@final
class BraggingSeatView(TypedDict):
    """The members every Bragging view carries (the public parts of the state)."""
    game: Literal['bragging']
    seq: int
    rules_version: BraggingRulesVersion
    options: BraggingOptions
    players: int
    hand_number: int
    dealer: BraggingSeat
    phase: BraggingPhase
    to_move: BraggingSeat | None
    blinds: list[int]
    hidden_counts: BraggingPerSeatInt
    up: list[BraggingCards]
    exposed_count: list[int | None]
    deck_count: int
    dead_count: int
    folded: list[bool]
    contrib: list[int]
    current_bet: int
    pending: BraggingSeats
    pot: int
    carry: int
    balances: list[int]
    last_result: BraggingResult | None
    seat: BraggingSeat
    hand: BraggingCards
    legal_moves: NotRequired[list[BraggingMove]]


BraggingView: TypeAlias = 'BraggingSeatView | BraggingPublicView'
"""What one seat may see (§5), or the public view (`seat` null): everything but face-down cards, …"""


@final
class BraggingEnvelope(TypedDict):
    """The answer of every state-returning Bragging (Russian four-card brag) call (`new` 201, `moves` …"""
    game: Literal['bragging']
    state: BraggingState | BraggingView
    token: NotRequired[str]
    status: Literal['in_progress', 'deal_over', 'finished']
    to_move: list[BraggingSeat]
    legal_moves: list[BraggingMove]
    events: list[BraggingEvent | UnknownEvent]
    scores: BraggingScores
    winner: list[BraggingSeat] | None
    seat_keys: NotRequired[SeatKeys]
    table_key: NotRequired[str]
    fairness: NotRequired[Fairness]
    record: NotRequired[BraggingMatchRecord]


@final
class BraggingReplayResult(TypedDict):
    """The verdict on a Bragging (Russian four-card brag) move log or record."""
    game: Literal['bragging']
    moves_total: int
    moves_legal: int
    first_illegal: IllegalMove | None
    final: BraggingEnvelope
    format: NotRequired[str]
    match_id: NotRequired[str]
    record_signature: NotRequired[str]
    result: NotRequired[RecordResult]
    result_matches: NotRequired[bool]
    key_id: NotRequired[str]
    signature: NotRequired[str]


ClaimSeat: TypeAlias = 'int'
"""A seat of a 2- to 8-player game."""


ClaimSeatOrNull: TypeAlias = 'ClaimSeat | None'


ClaimSeats: TypeAlias = 'list[ClaimSeat]'


@final
class SlapjackCaptureEvent(TypedDict):
    """`winner` was first on the jack; `slower` claimed it too but later (or, at the same `at`, listed …"""
    type: Literal['capture']
    winner: ClaimSeat
    cards: int
    order: ClaimSeats
    slower: ClaimSeats
    stale: ClaimSeats
    out: ClaimSeats
    shuffled: bool
    to_move: ClaimSeatOrNull


ClaimCounts: TypeAlias = 'list[int]'
"""One count per seat."""


@final
class SlapjackDealEvent(TypedDict):
    type: Literal['deal']
    stock_counts: ClaimCounts
    to_move: ClaimSeat


SlapjackPenalty = TypedDict('SlapjackPenalty', {'from': 'ClaimSeat', 'to': 'ClaimSeat', 'paid': 'bool'})
"""One false slap; never names the card given."""


@final
class SlapjackFalseSlapEvent(TypedDict):
    """Slaps on a card that is not a jack, in judged order, with what each cost."""
    type: Literal['false_slap']
    order: ClaimSeats
    stale: ClaimSeats
    penalties: list[SlapjackPenalty]
    to_move: ClaimSeatOrNull


@final
class SlapjackFlipEvent(TypedDict):
    type: Literal['flip']
    player: ClaimSeat
    card: Card
    recycled: bool
    to_move: ClaimSeatOrNull


@final
class SlapjackGameOverEvent(TypedDict):
    type: Literal['game_over']
    winner: ClaimSeats


SlapjackEvent: TypeAlias = 'SlapjackDealEvent | SlapjackFlipEvent | SlapjackCaptureEvent | SlapjackFalseSlapEvent | SlapjackGameOverEvent'
"""Something a Slapjack move caused (docs/wire.md)."""


ClaimTimestamp: TypeAlias = 'int'
"""A client timestamp in integer milliseconds, 0 to 2^53-1 (the service never reads a clock). …"""


@final
class SlapjackFlip(TypedDict):
    """§6.1 turn the top stock card onto the centre; `at` optional (never before `last_flip_at`)."""
    type: Literal['flip']
    player: ClaimSeat
    at: NotRequired[ClaimTimestamp]


@final
class SlapjackSlap(TypedDict):
    """§6.2 one claim; `at` is required when it is sent (listed without it)."""
    type: Literal['slap']
    player: ClaimSeat
    at: NotRequired[ClaimTimestamp]


@final
class TimedClaim(TypedDict):
    """One seat's claim in a batch (`slaps`, `snaps`)."""
    player: ClaimSeat
    at: ClaimTimestamp


@final
class SlapjackSlaps(TypedDict):
    """§6.2 competing claims judged together: earliest `at` first, equal `at` in list order. A …"""
    type: Literal['slaps']
    claims: list[TimedClaim]
    player: NotRequired[int]


SlapjackMove: TypeAlias = 'SlapjackFlip | SlapjackSlap | SlapjackSlaps'
"""A Slapjack move (§6). In `legal_moves` a slap appears without `at` (the client adds it); `slaps` …"""


@final
class SlapjackOptions(TypedDict):
    """§3 options. Omitted options take their defaults; an unknown or invalid one (also `dealer` ≥ …"""
    dealer: NotRequired[int]
    shuffle_won: NotRequired[bool]
    next_after_capture: NotRequired[Literal['capturer_left', 'rotation']]
    false_slap_penalty: NotRequired[Literal['give_card', 'none']]


@final
class SlapjackMatchRecordSetup(TypedDict):
    """The fixed first deal, when the operator allowed one."""
    deck: NotRequired[list[Card]]
    seed: NotRequired[Seed]


@final
class SlapjackMatchRecord(TypedDict):
    """A finished sealed Slapjack match, signed (docs/fair-play.md)."""
    format: NotRequired[str]
    game: Literal['slapjack']
    rules_version: str
    players: Literal[2, 3, 4, 5, 6, 7, 8]
    options: SlapjackOptions
    match_id: str
    fairness: Fairness
    setup: NotRequired[SlapjackMatchRecordSetup]
    moves: list[SlapjackMove]
    result: RecordResult
    key_id: str
    signature: str


@final
class SlapjackScores(TypedDict):
    """`totals` = `cards_held` = stock sizes (§7)."""
    totals: ClaimCounts
    cards_held: ClaimCounts


@final
class SlapjackCenterCard(TypedDict):
    card: Card
    player: ClaimSeat


SlapjackPhase: TypeAlias = "Literal['play', 'game_over']"


@final
class SlapjackResult1(TypedDict):
    kind: Literal['flip']
    player: ClaimSeat
    card: Card
    recycled: bool


@final
class SlapjackResult2(TypedDict):
    kind: Literal['capture']
    winner: ClaimSeat
    cards: int
    order: ClaimSeats
    stale: ClaimSeats
    out: ClaimSeats


@final
class SlapjackResult3(TypedDict):
    kind: Literal['false_slap']
    order: ClaimSeats
    stale: ClaimSeats
    penalties: list[SlapjackPenalty]


SlapjackResult: TypeAlias = 'None | SlapjackResult1 | SlapjackResult2 | SlapjackResult3'
"""What the latest accepted move did (§6.1, §6.3, §6.5); `null` before the first move."""


SlapjackRulesVersion: TypeAlias = "Literal['slapjack/1']"


SlapjackStatus: TypeAlias = "Literal['active', 'waiting', 'out']"
"""`active`: has stock cards; `waiting`: empty stock, in until the next capture; `out`: eliminated."""


@final
class SlapjackState(TypedDict):
    """The whole truth of a Slapjack game (§5), face-down stocks included. On input `game`, `seq`, …"""
    game: NotRequired[Literal['slapjack']]
    rules_version: NotRequired[SlapjackRulesVersion]
    seq: NotRequired[int]
    options: NotRequired[SlapjackOptions]
    players: int
    phase: SlapjackPhase
    stocks: list[list[Card]]
    status: list[SlapjackStatus]
    center: list[SlapjackCenterCard]
    to_move: ClaimSeat | None
    last_flip_at: ClaimTimestamp | None
    shuffle_seed: Seed
    shuffle_count: int
    winner: ClaimSeat | None
    last_result: SlapjackResult
    cards_held: NotRequired[ClaimCounts]


@final
class SlapjackView(TypedDict):
    """What a seat (or the public, `seat` null) sees (§5): the same for everyone, since nobody sees a …"""
    game: Literal['slapjack']
    seat: ClaimSeatOrNull
    seq: int
    rules_version: SlapjackRulesVersion
    players: int
    options: SlapjackOptions
    phase: SlapjackPhase
    stock_counts: ClaimCounts
    status: list[SlapjackStatus]
    center_top: SlapjackCenterCard | None
    center_count: int
    to_move: ClaimSeat | None
    last_flip_at: ClaimTimestamp | None
    shuffle_count: int
    winner: ClaimSeat | None
    last_result: SlapjackResult
    cards_held: ClaimCounts


@final
class SlapjackEnvelope(TypedDict):
    """The answer of every state-returning Slapjack call (`new` 201, `moves` and `state` 200)."""
    game: Literal['slapjack']
    state: SlapjackState | SlapjackView
    token: NotRequired[str]
    status: Literal['in_progress', 'deal_over', 'finished']
    to_move: list[Seat]
    legal_moves: list[SlapjackMove]
    events: list[SlapjackEvent | UnknownEvent]
    scores: SlapjackScores
    winner: list[Seat] | None
    seat_keys: NotRequired[SeatKeys]
    table_key: NotRequired[str]
    fairness: NotRequired[Fairness]
    record: NotRequired[SlapjackMatchRecord]


@final
class SlapjackReplayResult(TypedDict):
    """The verdict on a Slapjack move log or record."""
    game: Literal['slapjack']
    moves_total: int
    moves_legal: int
    first_illegal: IllegalMove | None
    final: SlapjackEnvelope
    format: NotRequired[str]
    match_id: NotRequired[str]
    record_signature: NotRequired[str]
    result: NotRequired[RecordResult]
    result_matches: NotRequired[bool]
    key_id: NotRequired[str]
    signature: NotRequired[str]


@final
class SnapDealEvent(TypedDict):
    type: Literal['deal']
    stock_counts: ClaimCounts
    to_move: ClaimSeat


SnapPenalty = TypedDict('SnapPenalty', {'from': 'ClaimSeat', 'to': "ClaimSeat | Literal['pool']"})
"""One card to a seat, or one face-up pile to the pool (`to` = `pool`); never names cards."""


@final
class SnapFalseCallEvent(TypedDict):
    """Calls without a match, in judged order, with every card or pile they cost."""
    type: Literal['false_call']
    order: ClaimSeats
    stale: ClaimSeats
    penalties: list[SnapPenalty]
    to_move: ClaimSeatOrNull


@final
class SnapFlipEvent(TypedDict):
    type: Literal['flip']
    player: ClaimSeat
    card: Card
    recycled: bool
    to_move: ClaimSeatOrNull


@final
class SnapGameOverEvent(TypedDict):
    """`reason`: `all_cards` (one seat holds cards), `blocked` (nobody can flip, no match), `stall` (§7 …"""
    type: Literal['game_over']
    winner: ClaimSeats
    reason: Literal['all_cards', 'blocked', 'stall']


@final
class SnapSnapEvent(TypedDict):
    """`winner` called first; `slower` called too but later (or, at the same `at`, listed after); …"""
    type: Literal['snap']
    winner: ClaimSeat
    order: ClaimSeats
    slower: ClaimSeats
    stale: ClaimSeats
    taken_from: ClaimSeats
    pool: bool
    own_pile: bool
    cards: int
    to_move: ClaimSeatOrNull


@final
class SnapTieToPoolEvent(TypedDict):
    """`tied` called at the same earliest `at`: nobody wins; `moved` seats' piles went to the pool (§6.6)."""
    type: Literal['tie_to_pool']
    order: ClaimSeats
    tied: ClaimSeats
    stale: ClaimSeats
    moved: ClaimSeats
    to_move: ClaimSeatOrNull


SnapEvent: TypeAlias = 'SnapDealEvent | SnapFlipEvent | SnapSnapEvent | SnapTieToPoolEvent | SnapFalseCallEvent | SnapGameOverEvent'
"""Something a Snap move caused (docs/wire.md)."""


@final
class SnapFlip(TypedDict):
    """§6.1 turn the top stock card onto one's face-up pile (recycling first if needed); `at` optional."""
    type: Literal['flip']
    player: ClaimSeat
    at: NotRequired[ClaimTimestamp]


@final
class SnapSnap(TypedDict):
    """§6.3 one call; `at` is required when it is sent (listed without it)."""
    type: Literal['snap']
    player: ClaimSeat
    at: NotRequired[ClaimTimestamp]


@final
class SnapSnaps(TypedDict):
    """§6.3 competing calls judged together: earliest `at` first, equal `at` in list order (or a pool …"""
    type: Literal['snaps']
    claims: list[TimedClaim]
    player: NotRequired[int]


SnapMove: TypeAlias = 'SnapFlip | SnapSnap | SnapSnaps'
"""A Snap move (§6). In `legal_moves` a call appears without `at` (the client adds it); `snaps` is …"""


@final
class SnapOptions(TypedDict):
    """§3 options. Omitted options take their defaults; an unknown or invalid one (also `dealer` ≥ …"""
    dealer: NotRequired[int]
    snap_takes: NotRequired[Literal['seed', 'both']]
    tie_rule: NotRequired[Literal['list_order', 'pool']]
    false_call: NotRequired[Literal['pay_each', 'to_pool', 'none']]
    empty_stock: NotRequired[Literal['recycle', 'stop']]
    stall_limit: NotRequired[int | None]


@final
class SnapMatchRecordSetup(TypedDict):
    """The fixed first deal, when the operator allowed one."""
    deck: NotRequired[list[Card]]
    seed: NotRequired[Seed]


@final
class SnapMatchRecord(TypedDict):
    """A finished sealed Snap match, signed (docs/fair-play.md)."""
    format: NotRequired[str]
    game: Literal['snap']
    rules_version: str
    players: Literal[2, 3, 4, 5, 6, 7, 8]
    options: SnapOptions
    match_id: str
    fairness: Fairness
    setup: NotRequired[SnapMatchRecordSetup]
    moves: list[SnapMove]
    result: RecordResult
    key_id: str
    signature: str


@final
class SnapScores(TypedDict):
    """`totals` = `cards_held` = stock plus face-up pile (§7)."""
    totals: ClaimCounts
    cards_held: ClaimCounts


SnapPhase: TypeAlias = "Literal['play', 'game_over']"


SnapPiles: TypeAlias = 'list[list[Card]]'
"""One list of cards per seat."""


@final
class SnapResult1(TypedDict):
    kind: Literal['flip']
    player: ClaimSeat
    card: Card
    recycled: bool


@final
class SnapResult2(TypedDict):
    kind: Literal['snap']
    winner: ClaimSeat
    order: ClaimSeats
    stale: ClaimSeats
    taken_from: ClaimSeats
    pool: bool
    own_pile: bool
    cards: int


@final
class SnapResult3(TypedDict):
    kind: Literal['tie_to_pool']
    order: ClaimSeats
    stale: ClaimSeats
    moved: ClaimSeats


@final
class SnapResult4(TypedDict):
    kind: Literal['false_call']
    order: ClaimSeats
    stale: ClaimSeats
    penalties: list[SnapPenalty]


SnapResult: TypeAlias = 'None | SnapResult1 | SnapResult2 | SnapResult3 | SnapResult4'
"""What the latest accepted move did (§6.1, §6.5-§6.7); `null` before the first move."""


SnapRulesVersion: TypeAlias = "Literal['snap/1']"


SnapSeq: TypeAlias = 'int'
"""A flip number (the first flip is 1). A posted state's is at most 2147483648."""


@final
class SnapState(TypedDict):
    """The whole truth of a Snap game (§5), face-down stocks included. On input `game`, `seq`, …"""
    game: NotRequired[Literal['snap']]
    rules_version: NotRequired[SnapRulesVersion]
    seq: NotRequired[int]
    options: NotRequired[SnapOptions]
    players: int
    phase: SnapPhase
    stocks: SnapPiles
    faceups: SnapPiles
    faceup_seq: list[SnapSeq | None]
    pool: list[Card]
    pool_seq: SnapSeq | None
    flip_count: int
    last_flipper: ClaimSeat | None
    to_move: ClaimSeat | None
    last_flip_at: ClaimTimestamp | None
    winners: list[ClaimSeat] | None
    last_result: SnapResult
    stall: NotRequired[int]
    cards_held: NotRequired[ClaimCounts]


SnapSeqOrNull: TypeAlias = 'SnapSeq | None'


@final
class SnapView(TypedDict):
    """What a seat (or the public, `seat` null) sees (§5): the same for everyone: stock counts, the top …"""
    game: Literal['snap']
    seat: ClaimSeatOrNull
    seq: int
    rules_version: SnapRulesVersion
    players: int
    options: SnapOptions
    phase: SnapPhase
    stock_counts: ClaimCounts
    faceup_tops: list[Card | None]
    faceup_counts: ClaimCounts
    faceup_seq: list[SnapSeqOrNull]
    pool_top: Card | None
    pool_count: int
    pool_seq: SnapSeqOrNull
    flip_count: int
    last_flipper: ClaimSeat | None
    to_move: ClaimSeat | None
    last_flip_at: ClaimTimestamp | None
    stall: int
    winners: list[ClaimSeat] | None
    last_result: SnapResult
    cards_held: ClaimCounts


@final
class SnapEnvelope(TypedDict):
    """The answer of every state-returning Snap call (`new` 201, `moves` and `state` 200)."""
    game: Literal['snap']
    state: SnapState | SnapView
    token: NotRequired[str]
    status: Literal['in_progress', 'deal_over', 'finished']
    to_move: list[Seat]
    legal_moves: list[SnapMove]
    events: list[SnapEvent | UnknownEvent]
    scores: SnapScores
    winner: list[Seat] | None
    seat_keys: NotRequired[SeatKeys]
    table_key: NotRequired[str]
    fairness: NotRequired[Fairness]
    record: NotRequired[SnapMatchRecord]


@final
class SnapReplayResult(TypedDict):
    """The verdict on a Snap move log or record."""
    game: Literal['snap']
    moves_total: int
    moves_legal: int
    first_illegal: IllegalMove | None
    final: SnapEnvelope
    format: NotRequired[str]
    match_id: NotRequired[str]
    record_signature: NotRequired[str]
    result: NotRequired[RecordResult]
    result_matches: NotRequired[bool]
    key_id: NotRequired[str]
    signature: NotRequired[str]


RussianBankCard: TypeAlias = 'str'
"""A card of the two packs with its deck tag (`QS/a` is seat 0's pack, `QS/b` seat 1's)."""


RussianBankSeat: TypeAlias = 'Literal[0, 1]'


@final
class RussianBankCardDiscardedEvent(TypedDict):
    type: Literal['card_discarded']
    player: RussianBankSeat
    card: RussianBankCard


@final
class RussianBankCardFlippedEvent(TypedDict):
    type: Literal['card_flipped']
    player: RussianBankSeat
    card: RussianBankCard


RussianBankCardMovedEvent = TypedDict('RussianBankCardMovedEvent', {'type': "Literal['card_moved']", 'player': 'RussianBankSeat', 'card': 'RussianBankCard', 'from': 'str', 'to': 'str', 'foundation': 'NotRequired[int]'})
"""A `move`; `foundation` names the foundation pile (0-7) a card went to."""


@final
class RussianBankDrawAcceptedEvent(TypedDict):
    """An `accept_draw` (§6.8); a `game_over` with reason `agreed` follows."""
    type: Literal['draw_accepted']
    player: RussianBankSeat


@final
class RussianBankDrawDeclinedEvent(TypedDict):
    """A `decline_draw` (§6.8): `next`, the offerer, goes on with its turn."""
    type: Literal['draw_declined']
    player: RussianBankSeat
    next: RussianBankSeat


@final
class RussianBankDrawOfferedEvent(TypedDict):
    """An `offer_draw` (§6.8): the other seat answers next."""
    type: Literal['draw_offered']
    player: RussianBankSeat


@final
class RussianBankGameOverEvent(TypedDict):
    type: Literal['game_over']
    winner: list[RussianBankSeat]
    reason: Literal['out', 'stalemate', 'agreed', 'stalled']
    points: int


@final
class RussianBankLayoutEvent(TypedDict):
    type: Literal['layout']
    first_player: RussianBankSeat
    stock_tops: list[RussianBankCard]


@final
class RussianBankPassedEvent(TypedDict):
    """A `pass`; `idle` when the turn was a pass only (it counts toward the stalemate)."""
    type: Literal['passed']
    player: RussianBankSeat
    idle: bool


@final
class RussianBankStockTopTurnedEvent(TypedDict):
    """The next stock card, face up now that the top was played."""
    type: Literal['stock_top_turned']
    player: RussianBankSeat
    card: RussianBankCard


@final
class RussianBankTurnEndedEvent(TypedDict):
    type: Literal['turn_ended']
    player: RussianBankSeat
    next: RussianBankSeat
    turn_number: int


@final
class RussianBankWasteTurnedEvent(TypedDict):
    """The waste turned over to become the hand (§6.3)."""
    type: Literal['waste_turned']
    player: RussianBankSeat
    cards: int


RussianBankEvent: TypeAlias = 'RussianBankLayoutEvent | RussianBankCardMovedEvent | RussianBankStockTopTurnedEvent | RussianBankWasteTurnedEvent | RussianBankCardFlippedEvent | RussianBankCardDiscardedEvent | RussianBankPassedEvent | RussianBankDrawOfferedEvent | RussianBankDrawDeclinedEvent | RussianBankDrawAcceptedEvent | RussianBankTurnEndedEvent | RussianBankGameOverEvent'
"""Something a Russian Bank move caused (docs/wire.md)."""


@final
class RussianBankAcceptDraw(TypedDict):
    """§6.8 accept the pending draw offer: the game ends drawn (§7.4)."""
    type: Literal['accept_draw']
    player: RussianBankSeat
    at: NotRequired[MoveTimestamp]


@final
class RussianBankDeclineDraw(TypedDict):
    """§6.8 decline the pending draw offer: the offerer's turn goes on."""
    type: Literal['decline_draw']
    player: RussianBankSeat
    at: NotRequired[MoveTimestamp]


@final
class RussianBankDiscard(TypedDict):
    """§6.4 put the hand card on one's own waste; the turn ends."""
    type: Literal['discard']
    player: RussianBankSeat
    at: NotRequired[MoveTimestamp]


@final
class RussianBankFlip(TypedDict):
    """§6.3 turn up the next hand card (the waste is turned over first when the hand is empty)."""
    type: Literal['flip']
    player: RussianBankSeat
    at: NotRequired[MoveTimestamp]


RussianBankMoveCard = TypedDict('RussianBankMoveCard', {'type': "Literal['move']", 'player': 'RussianBankSeat', 'card': 'RussianBankCard', 'from': 'str', 'to': 'str', 'at': 'NotRequired[MoveTimestamp]'})
"""§6.2 move one free card `card` from `from` onto `to` (sources and targets as strings)."""


@final
class RussianBankOfferDraw(TypedDict):
    """§6.8 offer the opponent a draw (at most once per turn); the opponent answers first."""
    type: Literal['offer_draw']
    player: RussianBankSeat
    at: NotRequired[MoveTimestamp]


@final
class RussianBankPass(TypedDict):
    """§6.5 end the turn when hand and waste are empty and no hand card is up."""
    type: Literal['pass']
    player: RussianBankSeat
    at: NotRequired[MoveTimestamp]


RussianBankMove: TypeAlias = 'RussianBankMoveCard | RussianBankFlip | RussianBankDiscard | RussianBankPass | RussianBankOfferDraw | RussianBankAcceptDraw | RussianBankDeclineDraw'
"""A Russian Bank move (§6). Every move may carry an integer `at`, which Russian Bank ignores."""


@final
class RussianBankOptions(TypedDict):
    """§3 options. Omitted options take their defaults; an unknown or invalid one is 422 …"""
    dealer: NotRequired[int]
    first_player: NotRequired[Literal['higher_stock', 'lower_stock', 'seat0', 'seat1']]
    waste_loading: NotRequired[Literal['both', 'second_player_only']]
    waste_top_available: NotRequired[bool]
    priority: NotRequired[Literal['off', 'enforced']]
    stall_limit: NotRequired[int | None]


RussianBankRulesVersion: TypeAlias = "Literal['russian_bank/1']"


@final
class RussianBankMatchRecordSetup(TypedDict):
    """The fixed first deal, when the operator allowed one."""
    deck: NotRequired[list[RussianBankCard]]
    seed: NotRequired[Seed]


@final
class RussianBankMatchRecord(TypedDict):
    """A finished sealed Russian Bank match, signed (docs/fair-play.md)."""
    format: NotRequired[str]
    game: Literal['russian_bank']
    rules_version: RussianBankRulesVersion
    players: Literal[2]
    options: RussianBankOptions
    match_id: str
    fairness: Fairness
    setup: NotRequired[RussianBankMatchRecordSetup]
    moves: list[RussianBankMove]
    result: RecordResult
    key_id: str
    signature: str


RussianBankPair: TypeAlias = 'list[int]'
"""One non-negative integer per seat."""


@final
class RussianBankScores(TypedDict):
    """`totals`: `[0, 0]` during play, the winner's `result.points` at the end (the other seat 0); …"""
    totals: RussianBankPair
    cards_left: RussianBankPair


RussianBankPhase: TypeAlias = "Literal['play', 'game_over']"


RussianBankPile: TypeAlias = 'list[RussianBankCard]'
"""A pile of cards, bottom → top (the last card is the top)."""


RussianBankPiles: TypeAlias = 'list[RussianBankPile]'
"""The eight tableau piles or the eight foundations, each bottom → top."""


@final
class RussianBankResult(TypedDict):
    """§7: `winner` null for a draw (an equal stalemate, an agreed draw, a stalled game); `points` = …"""
    winner: RussianBankSeat | None
    reason: Literal['out', 'stalemate', 'agreed', 'stalled']
    points: int


@final
class RussianBankSeatPiles(TypedDict):
    """One seat's own piles (§5.1), each bottom → top."""
    stock: RussianBankPile
    hand: RussianBankPile
    hand_card: RussianBankCard | None
    waste: RussianBankPile


@final
class RussianBankState(TypedDict):
    """The whole truth of a Russian Bank game (§5.1), hidden parts included. On input `game`, `seq`, …"""
    game: NotRequired[Literal['russian_bank']]
    rules_version: NotRequired[RussianBankRulesVersion]
    seq: NotRequired[int]
    options: NotRequired[RussianBankOptions]
    phase: RussianBankPhase
    first_player: RussianBankSeat
    to_move: RussianBankSeat | None
    turn_number: int
    idle_turns: int
    acted_this_turn: bool
    players: list[RussianBankSeatPiles]
    tableau: RussianBankPiles
    foundations: RussianBankPiles
    result: RussianBankResult | None
    draw_offer: NotRequired[RussianBankSeat | None]
    draw_offered_this_turn: NotRequired[bool]
    stall: NotRequired[int]
    fewest_left: NotRequired[list[int]]


@final
class RussianBankViewPlayersItem(TypedDict):
    stock_count: int
    stock_top: RussianBankCard | None
    hand_count: int
    hand_card: RussianBankCard | None
    waste: RussianBankPile


@final
class RussianBankView(TypedDict):
    """What a seat (or the public, `seat` null) may see (§5.2): stock tops and counts, hand counts, the …"""
    game: Literal['russian_bank']
    seat: RussianBankSeat | None
    seq: int
    rules_version: RussianBankRulesVersion
    options: RussianBankOptions
    phase: RussianBankPhase
    first_player: RussianBankSeat
    to_move: RussianBankSeat | None
    turn_number: int
    idle_turns: int
    acted_this_turn: bool
    draw_offer: RussianBankSeat | None
    draw_offered_this_turn: bool
    stall: int
    fewest_left: list[int]
    players: list[RussianBankViewPlayersItem]
    tableau: RussianBankPiles
    foundations: RussianBankPiles
    result: RussianBankResult | None
    legal_moves: NotRequired[list[RussianBankMove]]


@final
class RussianBankEnvelope(TypedDict):
    """The answer of every state-returning Russian Bank call (`new` 201, `moves` and `state` 200)."""
    game: Literal['russian_bank']
    state: RussianBankState | RussianBankView
    token: NotRequired[str]
    status: Literal['in_progress', 'deal_over', 'finished']
    to_move: list[RussianBankSeat]
    legal_moves: list[RussianBankMove]
    events: list[RussianBankEvent | UnknownEvent]
    scores: RussianBankScores
    winner: list[RussianBankSeat] | None
    seat_keys: NotRequired[SeatKeys]
    table_key: NotRequired[str]
    fairness: NotRequired[Fairness]
    record: NotRequired[RussianBankMatchRecord]


@final
class RussianBankReplayResult(TypedDict):
    """The verdict on a Russian Bank move log or record."""
    game: Literal['russian_bank']
    moves_total: int
    moves_legal: int
    first_illegal: IllegalMove | None
    final: RussianBankEnvelope
    format: NotRequired[str]
    match_id: NotRequired[str]
    record_signature: NotRequired[str]
    result: NotRequired[RecordResult]
    result_matches: NotRequired[bool]
    key_id: NotRequired[str]
    signature: NotRequired[str]


@final
class CheckResult(TypedDict):
    """`{"legal": true}` or `{"legal": false, "error": <Problem>}`."""
    legal: bool
    error: NotRequired[Problem]


@final
class SchnapsenEngineView(TypedDict):
    """What ``engines.schnapsen.view`` answers, as Python values (the wire's ``SchnapsenView`` before it …"""
    game: Literal['schnapsen']
    seq: int
    rules_version: str
    options: object
    phase: str
    deal_number: int
    dealer: int
    game_points: Sequence[int]
    talon_count: int
    talon_size: int
    trump_card: cards.Card | None
    trump_suit: cards.Suit
    closed_by: int | None
    closing: object
    leader: int
    to_move: int | None
    trick: Sequence[object]
    marriage_pending: cards.Suit | None
    marriages: Sequence[Sequence[object]]
    tricks_won: Sequence[int]
    last_trick: object
    result: object
    results: Sequence[object]
    tricks: NotRequired[Sequence[Sequence[Sequence[cards.Card]]]]
    card_points: NotRequired[Sequence[int]]
    points: NotRequired[Sequence[int]]
    seat: int | None
    hand: NotRequired[Sequence[cards.Card]]
    opponent_hand_count: NotRequired[int]
    known_opponent_cards: NotRequired[Sequence[cards.Card]]
    legal_moves: NotRequired[Sequence[object]]
    hand_counts: NotRequired[Sequence[int]]
    known_cards: NotRequired[Sequence[Sequence[cards.Card]]]


@final
class SevenUpEngineView(TypedDict):
    """What ``engines.seven_up.view`` answers, as Python values (the wire's ``SevenUpView`` before it is …"""
    game: Literal['seven_up']
    seat: int | None
    seq: int
    rules_version: str
    options: object
    players: int
    phase: str
    deal_number: int
    dealer: int
    eldest: int
    to_move: Sequence[int]
    scores: Sequence[int]
    hands: Sequence[Sequence[cards.Card] | None]
    hand_counts: Sequence[int]
    stock_count: int
    turnup: cards.Card | None
    first_suit: cards.Suit | None
    set_aside: Sequence[cards.Card]
    runs: int
    begged: bool
    trump: cards.Suit | None
    discards: Sequence[Sequence[cards.Card] | None]
    discard_counts: Sequence[int]
    trick: Sequence[object]
    trick_leader: int | None
    tricks: Sequence[object]
    hand_events: Sequence[object]
    last_hand: object
    redeal: bool
    winner: int | None
    legal_moves: NotRequired[Sequence[object]]


@final
class CaliforniaJackEngineView(TypedDict):
    """What ``engines.california_jack.view`` answers, as Python values (the wire's ``CaliforniaJackView`` before …"""
    game: Literal['california_jack']
    seat: int | None
    seq: int
    rules_version: str
    options: object
    phase: str
    deal_number: int
    dealer: int
    to_move: Sequence[int]
    scores: Sequence[int]
    hands: Sequence[Sequence[cards.Card] | None]
    hand_counts: Sequence[int]
    known_cards: Sequence[Sequence[cards.Card]]
    stock_count: int
    stock_top: cards.Card | None
    trump: cards.Suit
    trick: Sequence[object]
    trick_leader: int
    tricks: Sequence[object]
    draws: Sequence[object]
    last_hand: object
    winner: int | None
    legal_moves: NotRequired[Sequence[object]]


@final
class YukonEngineView(TypedDict):
    """What ``engines.yukon.view`` answers, as Python values (the wire's ``YukonView`` before it is …"""
    game: Literal['yukon']
    seat: int | None
    seq: int
    rules_version: str
    options: object
    players: int
    phase: str
    dealer: int
    hand_number: int
    hand: NotRequired[Sequence[cards.Card]]
    hand_counts: Sequence[int]
    stock_count: int
    trick: Sequence[object]
    leader: int
    to_move: int | None
    won_counts: Sequence[int]
    won: Sequence[Sequence[cards.Card]] | None
    last_trick: object
    hand_points: Sequence[int] | None
    scores: Sequence[int]
    sides: Sequence[int]
    winner: int | None
    legal_moves: NotRequired[Sequence[object]]


@final
class StukolkaEngineView(TypedDict):
    """What ``engines.stukolka.view`` answers, as Python values (the wire's ``StukolkaView`` before it is …"""
    game: Literal['stukolka']
    seq: int
    rules_version: str
    options: object
    players: int
    deal_number: int
    dealer: int
    phase: str
    to_move: int | None
    hand_counts: Sequence[int]
    turnup: cards.Card
    trump: cards.Suit
    stock_count: int
    declarations: Sequence[str | None]
    in_play: Sequence[int]
    defender: int | None
    exchanged: Sequence[int | None]
    discard_counts: Sequence[int]
    leader: int | None
    trick: Sequence[object]
    completed_tricks: Sequence[object]
    tricks_won: Sequence[int]
    pot: int
    carry: int
    balances: Sequence[int]
    violations: Sequence[object]
    last_result: object
    seat: int | None
    hand: NotRequired[Sequence[cards.Card]]
    legal_moves: NotRequired[Sequence[object]]


@final
class BraggingEngineView(TypedDict):
    """What ``engines.bragging.view`` answers, as Python values (the wire's ``BraggingView`` before it is …"""
    game: Literal['bragging']
    seq: int
    rules_version: str
    options: object
    players: int
    hand_number: int
    dealer: int
    phase: str
    to_move: int | None
    blinds: Sequence[int]
    hidden_counts: Sequence[int]
    up: Sequence[Sequence[cards.Card]]
    exposed_count: Sequence[object]
    deck_count: int
    dead_count: int
    folded: Sequence[bool]
    contrib: Sequence[int]
    current_bet: int
    pending: Sequence[int]
    pot: int
    carry: int
    balances: Sequence[int]
    last_result: object
    seat: int | None
    hand: NotRequired[Sequence[cards.Card]]
    legal_moves: NotRequired[Sequence[object]]


@final
class SlapjackEngineView(TypedDict):
    """What ``engines.slapjack.view`` answers, as Python values (the wire's ``SlapjackView`` before it is …"""
    game: Literal['slapjack']
    seat: int | None
    seq: int
    rules_version: str
    players: int
    options: object
    phase: str
    stock_counts: Sequence[int]
    status: Sequence[str]
    center_top: object
    center_count: int
    to_move: int | None
    last_flip_at: int | None
    shuffle_count: int
    winner: int | None
    last_result: object
    cards_held: Sequence[int]


@final
class SnapEngineView(TypedDict):
    """What ``engines.snap.view`` answers, as Python values (the wire's ``SnapView`` before it is …"""
    game: Literal['snap']
    seat: int | None
    seq: int
    rules_version: str
    players: int
    options: object
    phase: str
    stock_counts: Sequence[int]
    faceup_tops: Sequence[cards.Card | None]
    faceup_counts: Sequence[int]
    faceup_seq: Sequence[int | None]
    pool_top: cards.Card | None
    pool_count: int
    pool_seq: int | None
    flip_count: int
    last_flipper: int | None
    to_move: int | None
    last_flip_at: int | None
    stall: int
    winners: Sequence[int] | None
    last_result: object
    cards_held: Sequence[int]


@final
class RussianBankEngineView(TypedDict):
    """What ``engines.russian_bank.view`` answers, as Python values (the wire's ``RussianBankView`` before it …"""
    game: Literal['russian_bank']
    seat: int | None
    seq: int
    rules_version: str
    options: object
    phase: str
    first_player: int
    to_move: int | None
    turn_number: int
    idle_turns: int
    acted_this_turn: bool
    draw_offer: int | None
    draw_offered_this_turn: bool
    stall: int
    fewest_left: Sequence[int]
    players: Sequence[object]
    tableau: Sequence[Sequence[str]]
    foundations: Sequence[Sequence[str]]
    result: object
    legal_moves: NotRequired[Sequence[object]]


Envelope: TypeAlias = 'SchnapsenEnvelope | SevenUpEnvelope | CaliforniaJackEnvelope | YukonEnvelope | StukolkaEnvelope | BraggingEnvelope | SlapjackEnvelope | SnapEnvelope | RussianBankEnvelope'
"""What ``Referee.new``, ``state`` and ``move`` answer: one game's envelope."""
