"""Seeded random playouts and generous candidate moves, for any engine in ``ENGINES``.

Used by ``tests/test_engine_contract.py`` (OpenSpiel's ``random_sim_test``, made generic), and
handy in a REPL when an invariant fails::

    from service.engines import schnapsen
    from tests.playouts import random_playout
    for before, move, after in random_playout(schnapsen, 2, seed=7): ...

Everything here is deterministic: decks come from the project's seeded shuffle and choices from
``random.Random(seed)``, so a failing (game, players, seed, options) is a reproducible case.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import random
from collections.abc import Callable, Iterator, Sequence
from types import ModuleType
from typing import Any, Final

from service.cards import SUITS, Card
from service.cards.shuffle import deal_deck
from service.engines.base import is_listed
from service.engines.claims import MAX_AT, Claim

__all__ = [
    "CHOOSERS",
    "CLAIM_RATE",
    "LATE_AT",
    "MAX_PER_CLASS",
    "SKIPPED_FIELDS",
    "Step",
    "candidate_moves",
    "fill_template",
    "is_template",
    "light_invariants",
    "move_classes",
    "random_playout",
]

Step = tuple[Any, Any, Any]
"""(state_before, move, state_after) of one applied move."""

MAX_PER_CLASS: Final = 600
"""Cap on the candidates built for one move class in one state; past it a fixed sample is taken."""

CANDIDATE_DECK_SEED: Final = 987_654_321
"""Seed of the concrete deck that fills ``deck`` fields of candidate moves."""

LATE_AT: Final = 2**40
"""The ``at`` that fills a listed claim template outside a playout: later than any stamp a playout makes."""

CLAIM_RATE: Final = 0.45
"""Timed claim games (moves with ``at``): how often a playout makes claims instead of the listed flip."""

SKIPPED_FIELDS: set[tuple[str, str, str]] = set()
"""(game, move type, field) that ``candidate_moves`` could not fill generically, so it built no
instance of that move type beyond the listed ones. Filled in as candidates are built; reported by
the contract suite so that a new game's gap is visible rather than silent."""


@functools.cache
def field_names(cls: type) -> frozenset[str]:
    """The field names of a move dataclass (looked up once per class: playouts ask on every move)."""
    return frozenset(f.name for f in dataclasses.fields(cls))


# --- templates (docs/rules/conventions.md: a listed move the client completes, e.g. next_deal's deck) ------


def is_template(move: Any) -> bool:
    """Whether ``move`` is an unfilled template (it has ``filled_by`` and does not fill itself).

    A concrete move of a template class fills an equal template (a ``next_deal`` with a deck fills
    the ``next_deal`` template of that seat); the template itself does not, because the part the
    client must supply is missing. Engines are never asked to apply a template: the HTTP layer
    fills it first (the service shuffles a deck when the client sends none).
    """
    fills = getattr(move, "filled_by", None)
    return callable(fills) and not fills(move)


def fill_template(move: Any, deck: Sequence[Card], bump: int = 0, at: int = LATE_AT) -> Any:
    """A concrete move filling template ``move``.

    Four template kinds: ``NextDeal`` (service/engines/moves.py), filled with ``deck``; an amount
    range (Bragging's ``{"type": "raise", "min_to": m}``, ``{"type": "blind", "min_amount": m}``),
    whose empty field ``X`` is set from ``min_X`` plus ``bump``; a choice of ``count`` cards of a
    known ``hand`` (Seven Up's ``discard``), filled with the hand's first ``count`` cards in
    ``deck`` order (so a shuffled ``deck`` picks a random subset); and a timed claim (Slapjack,
    Snap: service/engines/claims.py) whose empty ``at`` is set to ``at``. A new template kind with
    another missing field needs a line here.
    """
    names = field_names(type(move))
    amounts = {n[4:]: getattr(move, n) for n in names if n.startswith("min_") and n[4:] in names}
    if amounts:
        field, least = next(iter(amounts.items()))
        filled = dataclasses.replace(move, **{field: least + bump, f"min_{field}": None})
    elif {"cards", "count", "hand"} <= names and move.cards is None:
        held = set(move.hand)
        filled = dataclasses.replace(move, cards=tuple(c for c in deck if c in held)[: move.count], count=None)
    elif "deck" in names and move.deck is None:
        filled = dataclasses.replace(move, deck=tuple(deck))
    elif "at" in names and move.at is None:
        filled = type(move)(player=move.player, at=at)
    else:
        raise AssertionError(f"do not know how to fill template {move!r}")
    if not move.filled_by(filled):
        raise AssertionError(f"{filled!r} does not fill template {move!r}")
    return filled


# --- playouts -----------------------------------------------------------------------------------


def _russian_bank_choice(state: Any, legal: Sequence[Any], rng: random.Random) -> Any:
    """A random Russian Bank move biased toward progress, so that games end by the rules.

    Uniform play shuffles cards between tableau piles and between the two players' piles forever.
    This picks, in order: a foundation move; a load of one's own card onto the opponent; a tableau
    card onto the opponent (90 %); one's own card onto a tableau pile (90 %); a move that empties a
    tableau pile (60 %); one's own card into an empty pile (80 %); any other tableau move (10 %);
    else flip, discard or pass. Each class is chosen from uniformly.
    """
    found, load_own, own, load_tab, opens, own_empty, shuffle, end = [], [], [], [], [], [], [], []
    tableau = state.tableau
    for m in legal:
        if m.TYPE != "move":
            end.append(m)
        elif m.target == "foundation":
            found.append(m)
        elif not m.source.startswith("tableau"):
            if m.target.startswith("opponent"):
                load_own.append(m)
            elif tableau[int(m.target[8:])]:
                own.append(m)
            else:
                own_empty.append(m)
        elif m.target.startswith("opponent"):
            load_tab.append(m)
        elif tableau[int(m.target[8:])]:
            (opens if len(tableau[int(m.source[8:])]) == 1 else shuffle).append(m)
    for group, chance in ((found, 1.0), (load_own, 1.0), (load_tab, 0.9), (own, 0.9), (opens, 0.6), (own_empty, 0.8), (shuffle, 0.1)):
        if group and (chance == 1.0 or rng.random() < chance):
            return group[rng.randrange(len(group))]
    return end[0] if end else legal[rng.randrange(len(legal))]


CHOOSERS: dict[str, Callable[[Any, Sequence[Any], random.Random], Any]] = {
    "russian_bank": _russian_bank_choice,
}
"""Per game, a move chooser for random playouts where uniform choice would not end games (default:
uniform among ``legal_moves``)."""


def random_playout(
    engine: ModuleType, players: int, seed: int, options: Any = None, max_moves: int = 5000
) -> Iterator[Step]:
    """Yield the (before, move, after) steps of one seeded random match, played to its outcome.

    The first deal is ``deal_deck(pack, seed)``; at each state a move is chosen uniformly among
    ``legal_moves`` with ``random.Random(seed)`` (or by the game's entry in ``CHOOSERS``); a listed template (``next_deal``) is filled with
    ``deal_deck(pack, seed * 1000 + k)`` for deal ``k`` (2, 3, ...). Stops once ``outcome`` is set,
    or after ``max_moves`` moves (then the last ``after`` has no outcome: callers check).
    """
    options = engine.Options() if options is None else options
    pack = engine.pack(options, players)
    state = engine.new_game(options, players, deal_deck(pack, seed), seed=seed)
    rng = random.Random(seed)
    deal_number = 1
    choose = CHOOSERS.get(engine.GAME_ID)
    timed = is_timed(engine)
    clock = 0
    for _ in range(max_moves):
        if engine.outcome(state) is not None:
            return
        legal = engine.legal_moves(state)
        if not legal:
            raise AssertionError(f"{engine.GAME_ID}: no legal move although the game is not over (seed {seed})")
        if timed:
            clock += rng.randrange(0, 60)
            move = _timed_move(engine, legal, rng, clock)
        else:
            move = legal[rng.randrange(len(legal))] if choose is None else choose(state, legal, rng)
        if is_template(move):
            if getattr(move, "deck", False) is None:
                deal_number += 1
                move = fill_template(move, deal_deck(pack, seed * 1000 + deal_number))
            elif any(n.startswith("min_") for n in field_names(type(move))):  # an amount range
                move = fill_template(move, (), bump=rng.choice((0, 0, 1, 2)))
            else:  # a choice of cards: a random subset
                move = fill_template(move, rng.sample(pack, len(pack)))
        after = engine.apply(state, move)
        yield state, move, after
        state = after


def light_invariants(engine: ModuleType, state: Any, codec: Any = None) -> None:
    """The cheaper of the generic invariants (tests/test_engine_contract.py), for many-game runs:
    ``check_state`` passes; moves are listed iff the game goes on; every listed move (a template
    once filled) is accepted; with ``codec``, the wire form loads back to the same state."""
    engine.check_state(state)
    legal = engine.legal_moves(state)
    assert bool(legal) == (engine.outcome(state) is None), legal
    for move in legal:
        engine.apply(state, fill_template(move, ()) if is_template(move) else move)
    if codec is not None:
        assert codec.load_state(codec.dump_state(state)) == state


# --- timed claims (Slapjack, Snap) ----------------------------------------------------------------


def is_timed(engine: ModuleType) -> bool:
    """Whether the game's moves carry client timestamps (an ``at`` field)."""
    return any("at" in field_names(cls) for cls in move_classes(engine).values())


def _timed_move(engine: ModuleType, legal: Sequence[Any], rng: random.Random, clock: int) -> Any:
    """A playout move of a timed claim game at time ``clock`` (ms, non-decreasing).

    With probability ``CLAIM_RATE`` (or when nothing else is listed) one to three seats that may
    claim do so in one move, stamped around ``clock``: some before the last flip (stale), some at
    the same instant (ties judged by list order), true or false as the position makes them.
    Otherwise a listed non-claim move (the flip), stamped ``clock`` or, one time in five, unstamped.
    """
    claims = [m for m in legal if is_template(m)]
    others = [m for m in legal if not is_template(m)]
    if claims and (not others or rng.random() < CLAIM_RATE):
        k = 1 if rng.random() < 0.6 else rng.randint(2, 3)
        chosen = rng.sample(claims, min(k, len(claims)))
        stamps = []
        for _ in chosen:
            if stamps and rng.random() < 0.3:
                stamps.append(stamps[-1])  # simultaneous
            else:
                stamps.append(clock - rng.randrange(0, 90) if rng.random() < 0.25 else clock + rng.randrange(0, 200))
        move = _claim_move(engine, chosen[0], [Claim(t.player, at) for t, at in zip(chosen, stamps)])
        if not is_listed(move, legal):  # every claim was stale: stamp them now instead
            move = _claim_move(engine, chosen[0], [Claim(t.player, clock) for t in chosen])
        return move
    move = others[rng.randrange(len(others))]
    if "at" in field_names(type(move)):
        move = type(move)(player=move.player, at=None if rng.random() < 0.2 else clock)
    return move


def _claim_move(engine: ModuleType, template: Any, claims: Sequence[Claim]) -> Any:
    """A single claim, or the game's batch of ``claims`` (its first claimant fills ``template``)."""
    if len(claims) == 1:
        return type(template)(player=claims[0].player, at=claims[0].at)
    return move_classes(engine)[template.BATCH](claims=tuple(claims))


def _timestamps(state: Any) -> list[int]:
    """``at`` values worth trying in ``state``: around the last flip, and just out of range."""
    last = getattr(state, "last_flip_at", None)
    around = [] if last is None else [last - 1, last, last + 1]
    return [v for v in (0, *around) if v >= 0] + [-1, MAX_AT + 1]


def _batch_candidates(cls: type, state: Any, n_seats: int, salt: int) -> list[Any]:
    """A few batches of claims for ``cls`` (``slaps``, ``snaps``): empty, one claim, competing, tied,
    a seat twice, stale only, stale beside fresh, a non-seat, a bad stamp, and a top-level player."""
    last = getattr(state, "last_flip_at", None)
    fresh = 0 if last is None else last
    stale = fresh - 1
    a, b, c = salt % n_seats, (salt + 1) % n_seats, (salt + 2) % n_seats
    shapes: list[tuple[tuple[int, int], ...]] = [
        (),
        ((a, fresh),),
        ((a, fresh + 5), (b, fresh)),
        ((b, fresh), (a, fresh), (c, fresh + 1)),
        ((a, fresh), (a, fresh + 1)),
        ((a, fresh), (n_seats, fresh)),
        ((a, fresh), (b, -1)),
    ]
    if stale >= 0:
        shapes += [((a, stale),), ((a, stale), (b, fresh))]
    out = [cls(claims=tuple(Claim(p, t) for p, t in shape)) for shape in shapes]
    out.append(cls(claims=(Claim(a, fresh),), player=b))
    return out


# --- candidate moves ------------------------------------------------------------------------------


def move_classes(engine: ModuleType) -> dict[str, type]:
    """Move type → move dataclass, as the engine declares them (``GAME.move_classes``)."""
    return dict(engine.GAME.move_classes)


def _annotation(field: dataclasses.Field[Any]) -> str:
    """The field's annotation as written (a string under ``from __future__ import annotations``)."""
    t = field.type
    return t if isinstance(t, str) else getattr(t, "__name__", repr(t))


def _field_values(
    field: dataclasses.Field[Any], seats: Sequence[int], pack: Sequence[Card], deck: tuple[Card, ...], seen: list[Any]
) -> list[Any] | None:
    """Plausible values of one move field, or None when it cannot be filled generically.

    By name, then by annotation: a seat (``player``, ``Seat``) → every seat; a card (``card``,
    ``Card``) → every card of the pack; a suit → every suit; ``deck`` → one concrete valid deck and
    two wrong ones (a card short; a card twice), which fill no template and must be refused;
    ``bool`` → both. Any field also gets the
    values it has in this state's listed moves, and an ``int`` field their neighbours and 0 (so a
    bid or amount is tried just off its bounds). Optional fields also get ``None``.
    """
    name, ann = field.name, _annotation(field)
    optional = "None" in ann
    base = ann.replace(" ", "").replace("|None", "").replace("None|", "")
    values: list[Any] = []
    if name == "player" or base == "Seat":
        values += list(seats)
    elif name == "card" or base == "Card":
        values += list(pack)
    elif name == "suit" or base == "Suit":
        values += list(SUITS)
    elif name == "deck":
        values += [deck, deck[:-1], deck[:-1] + deck[:1]]
    elif name == "cards" or base == "tuple[Card,...]":
        # a list of cards: none, one, a pair, a card twice, three; the listed ones reordered, with a
        # card twice, and the cards held plus one more (a discard or exposure just off its rules)
        held = _unique([c for v in seen for c in v])
        values += [(), (pack[0],), tuple(pack[:2]), (pack[0], pack[0]), tuple(pack[:3])]
        values += [tuple(reversed(v)) for v in seen] + [v + v[:1] for v in seen if v]
        values += [tuple(held), tuple(held[:1] * 2), tuple(held) + (pack[-1],)]
    elif base == "bool":
        values += [False, True]
    values += seen
    if base == "int" and name != "player":
        ints = [v for v in seen if isinstance(v, int) and not isinstance(v, bool)]
        values += [0] + [v + d for v in ints for d in (-1, 1)]
    if optional and name != "deck":  # a deckless next_deal is a template, never applied
        values.append(None)
    if not values and field.default is not dataclasses.MISSING:
        values.append(field.default)
    return _unique(values) if values else None


def _near_fills(move: Any, deck: Sequence[Card]) -> list[Any]:
    """For a template choosing ``count`` cards of a ``hand`` (Seven Up's discard): near misses
    that must be refused (one card short, one too many, a card twice, a card not in the hand) and
    another valid choice."""
    if not is_template(move) or not {"cards", "count", "hand"} <= field_names(type(move)):
        return []
    hand, k = tuple(move.hand), move.count
    foreign = next(c for c in deck if c not in hand)
    choices = [hand[-k:], hand[: k - 1], hand[: k + 1], hand[: k - 1] + hand[:1], hand[: k - 1] + (foreign,), ()]
    return [dataclasses.replace(move, cards=tuple(cards), count=None) for cards in choices]


def _unique(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    seen: set[tuple[type, Any]] = set()
    for v in values:
        try:
            key = (type(v), v)
            if key in seen:
                continue
            seen.add(key)
        except TypeError:  # unhashable: compare by equality
            if any(type(v) is type(w) and v == w for w in out):
                continue
        out.append(v)
    return out


@functools.lru_cache(maxsize=16)
def _candidate_deck(pack: tuple[Card, ...]) -> tuple[Card, ...]:
    """The concrete deck that fills ``deck`` fields of candidates (shuffled once per pack)."""
    return deal_deck(pack, CANDIDATE_DECK_SEED)


def candidate_moves(
    engine: ModuleType,
    state: Any,
    pack: Sequence[Card] | None = None,
    salt: int = 0,
    seats: Sequence[int] | None = None,
) -> list[Any]:
    """A generous, deterministic set of concrete moves to test "legality has one truth" on.

    Every listed move (templates filled with a concrete deck), plus for each move type in
    ``MOVE_TYPES`` every instance of its class built from plausible field values (see
    ``_field_values``) for the acting ``seats``: by default every seat to move and one other seat
    (chosen by ``salt``, so that over many states every seat is tried out of turn; with 2 seats that
    is both), which keeps 8-seat games cheap. A class with more than ``MAX_PER_CLASS`` combinations
    gets a sample (``salt`` varies it between states). A field that cannot be filled generically
    (recorded in ``SKIPPED_FIELDS``) means that type is covered only through its listed moves.
    Unfilled templates are left out: the HTTP layer fills them before the engine sees them.
    """
    n_seats = engine.players(state)
    if pack is None:
        pack = engine.pack(getattr(state, "options", engine.Options()), n_seats)
    if seats is None:
        turn = sorted(engine.to_move(state))
        others = [s for s in range(n_seats) if s not in turn]
        seats = turn + ([others[salt % len(others)]] if others else [])
    deck = _candidate_deck(tuple(pack))
    legal = engine.legal_moves(state)
    out: list[Any] = []
    hashed: set[Any] = set()

    def add(move: Any) -> None:
        try:
            if move in hashed:
                return
            hashed.add(move)
        except TypeError:  # an unhashable field value: fall back to equality
            if any(move == m for m in out):
                return
        out.append(move)

    for move in legal:
        add(fill_template(move, deck) if is_template(move) else move)
        for near in _near_fills(move, deck):
            add(near)
    classes = move_classes(engine)
    for kind in engine.MOVE_TYPES:
        cls = classes.get(kind)
        if cls is None:
            SKIPPED_FIELDS.add((engine.GAME_ID, kind, "<no move class found>"))
            continue
        fields = dataclasses.fields(cls)
        if "claims" in {f.name for f in fields}:  # a batch of timed claims
            for move in _batch_candidates(cls, state, n_seats, salt):
                add(move)
            continue
        domains = []
        for f in fields:
            seen = [getattr(m, f.name) for m in legal if isinstance(m, cls) and getattr(m, f.name) is not None]
            if f.metadata.get("wire") is False and f.default is None:
                values: list[Any] | None = [None]  # bookkeeping a listed move carries, never sent (a claim window)
            else:
                values = _field_values(f, seats, pack, deck, seen)
            if values is not None and f.name == "at":
                values = _unique(values + _timestamps(state))
            if values is None:
                SKIPPED_FIELDS.add((engine.GAME_ID, kind, f.name))
                break
            domains.append(values)
        else:
            total = 1
            for d in domains:
                total *= len(d)
            if total <= MAX_PER_CLASS:
                combos: Any = itertools.product(*domains)
            else:
                rng = random.Random(f"{engine.GAME_ID}:{kind}:{salt}")
                combos = (tuple(rng.choice(d) for d in domains) for _ in range(MAX_PER_CLASS))
            for combo in combos:
                move = cls(**{f.name: v for f, v in zip(fields, combo, strict=True)})
                if not is_template(move):
                    add(move)
    return out


# --- scanning JSON for cards -----------------------------------------------------------------------


def card_strings(value: Any, pack_names: frozenset[str], skip: frozenset[str] = frozenset(), keys: bool = False) -> list[str]:
    """Every string naming a card of the pack anywhere in a JSON value (top-level ``skip`` left out).

    ``keys``: also dict keys (a view must not leak a card even as a key).
    """
    found: list[str] = []

    def walk(v: Any) -> None:
        if isinstance(v, str):
            if v in pack_names:
                found.append(v)
        elif isinstance(v, dict):
            for k, w in v.items():
                if keys and k in pack_names:
                    found.append(k)
                walk(w)
        elif isinstance(v, list):
            for w in v:
                walk(w)

    if isinstance(value, dict) and skip:
        value = {k: v for k, v in value.items() if k not in skip}
    walk(value)
    return found
