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
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import Any, Final

from service.cards import SUITS, Card
from service.cards.shuffle import deal_deck

__all__ = [
    "MAX_PER_CLASS",
    "SKIPPED_FIELDS",
    "Step",
    "candidate_moves",
    "fill_template",
    "is_template",
    "move_classes",
    "random_playout",
]

Step = tuple[Any, Any, Any]
"""(state_before, move, state_after) of one applied move."""

MAX_PER_CLASS: Final = 600
"""Cap on the candidates built for one move class in one state; past it a fixed sample is taken."""

CANDIDATE_DECK_SEED: Final = 987_654_321
"""Seed of the concrete deck that fills ``deck`` fields of candidate moves."""

SKIPPED_FIELDS: set[tuple[str, str, str]] = set()
"""(game, move type, field) that ``candidate_moves`` could not fill generically, so it built no
instance of that move type beyond the listed ones. Filled in as candidates are built; reported by
the contract suite so that a new game's gap is visible rather than silent."""


# --- templates (CONVENTIONS.md: a listed move the client completes, e.g. next_deal's deck) ------


def is_template(move: Any) -> bool:
    """Whether ``move`` is an unfilled template (it has ``filled_by`` and does not fill itself).

    A concrete move of a template class fills an equal template (a ``next_deal`` with a deck fills
    the ``next_deal`` template of that seat); the template itself does not, because the part the
    client must supply is missing. Engines are never asked to apply a template: the HTTP layer
    fills it first (the service shuffles a deck when the client sends none).
    """
    fills = getattr(move, "filled_by", None)
    return callable(fills) and not fills(move)


def fill_template(move: Any, deck: Sequence[Card]) -> Any:
    """A concrete move filling template ``move``: every empty ``deck`` field set to ``deck``.

    Only ``deck`` is filled, as ``NextDeal`` (service/engines/moves.py) is the one template kind;
    a new template kind with another missing field needs a line here.
    """
    names = {f.name for f in dataclasses.fields(move)}
    if "deck" not in names or move.deck is not None:
        raise AssertionError(f"do not know how to fill template {move!r}")
    filled = dataclasses.replace(move, deck=tuple(deck))
    if not move.filled_by(filled):
        raise AssertionError(f"{filled!r} does not fill template {move!r}")
    return filled


# --- playouts -----------------------------------------------------------------------------------


def random_playout(
    engine: ModuleType, players: int, seed: int, options: Any = None, max_moves: int = 5000
) -> Iterator[Step]:
    """Yield the (before, move, after) steps of one seeded random match, played to its outcome.

    The first deal is ``deal_deck(pack, seed)``; at each state a move is chosen uniformly among
    ``legal_moves`` with ``random.Random(seed)``; a listed template (``next_deal``) is filled with
    ``deal_deck(pack, seed * 1000 + k)`` for deal ``k`` (2, 3, ...). Stops once ``outcome`` is set,
    or after ``max_moves`` moves (then the last ``after`` has no outcome: callers check).
    """
    options = engine.Options() if options is None else options
    pack = engine.pack(options, players)
    state = engine.new_game(options, players, deal_deck(pack, seed), seed=seed)
    rng = random.Random(seed)
    deal_number = 1
    for _ in range(max_moves):
        if engine.outcome(state) is not None:
            return
        legal = engine.legal_moves(state)
        if not legal:
            raise AssertionError(f"{engine.GAME_ID}: no legal move although the game is not over (seed {seed})")
        move = legal[rng.randrange(len(legal))]
        if is_template(move):
            deal_number += 1
            move = fill_template(move, deal_deck(pack, seed * 1000 + deal_number))
        after = engine.apply(state, move)
        yield state, move, after
        state = after


# --- candidate moves ------------------------------------------------------------------------------


def move_classes(engine: ModuleType) -> dict[str, type]:
    """Move type → move dataclass, from the module's ``MOVE_CLASSES`` if it has one.

    Otherwise every dataclass in the module (or ``NextDeal``) whose ``TYPE`` is in ``MOVE_TYPES``.
    """
    table = getattr(engine, "MOVE_CLASSES", None)
    if table is not None:
        return dict(table)
    from service.engines.moves import NextDeal

    found: dict[str, type] = {}
    for value in (*vars(engine).values(), NextDeal):
        kind = getattr(value, "TYPE", None)
        if isinstance(value, type) and dataclasses.is_dataclass(value) and kind in engine.MOVE_TYPES:
            found.setdefault(kind, value)
    return found


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
    elif base == "tuple[Card,...]":  # a list of cards from the hand (e.g. a discard)
        held = _unique([c for v in seen for c in v])
        values += [(), (pack[0],), tuple(held), tuple(held[:1] * 2), tuple(held) + (pack[-1],)]
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
    classes = move_classes(engine)
    for kind in engine.MOVE_TYPES:
        cls = classes.get(kind)
        if cls is None:
            SKIPPED_FIELDS.add((engine.GAME_ID, kind, "<no move class found>"))
            continue
        fields = dataclasses.fields(cls)
        domains = []
        for f in fields:
            seen = [getattr(m, f.name) for m in legal if isinstance(m, cls) and getattr(m, f.name) is not None]
            values = _field_values(f, seats, pack, deck, seen)
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
