"""Generic invariants of every engine, over seeded random matches (STYLE.md B2, B6).

Parametrized over every engine in ``service.engines.ENGINES`` and each of its ``PLAYER_COUNTS``,
so a new game is covered by adding it to the registry; this file needs at most a line in the
tables below. This is OpenSpiel's ``random_sim_test``: play seeded random matches to their end
(tests/playouts.py) and check on the states reached that

- every card of the pack is in exactly one place (``check_state``, and independently the cards of
  the full wire dump), ``legal_moves`` is non-empty iff the match goes on, and the turn is sound;
- ``apply`` accepts every listed move and never mutates its input;
- legality has one truth: a candidate move is accepted by ``apply`` iff it is listed;
- a finished match refuses every move with ``game_over``;
- the state survives JSON and sealed round trips;
- no view, score or event shows a seat a card it may not see;
- the same seed plays the same match.

A failing case is reproducible from the message: game, players, seed, options, move index.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import json
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Final

import pytest
from cryptography.fernet import Fernet

from service.cards import Card
from service.cards.shuffle import deal_deck
from service.engines import ENGINES
from service.engines.base import BadSetup, IllegalMove, event_view, is_listed
from service.engines.moves import NextDeal
from service.schemas import SCHEMAS
from service.sealing import Sealer
from tests.playouts import (
    SKIPPED_FIELDS,
    candidate_moves,
    fill_template,
    is_template,
    move_classes,
    random_playout,
)

pytestmark = pytest.mark.slow

# --- how much to play ---------------------------------------------------------------------------

MATCHES: Final[dict[str, int]] = {"schnapsen": 660, "yukon": 600}
"""Seeded random matches per (game, player count). Schnapsen: ~2,100 deals, ~25,000 states.
Yukon: over 1,000 hands per player count (52,000 to 66,000 states), 150 of the matches played to 250."""
DEFAULT_MATCHES: Final = 40
"""For a game not in MATCHES: tune it there once the game's speed is known (whole file < ~60 s)."""

MIN_DEALS: Final[dict[str, int]] = {"schnapsen": 2000, "yukon": 1000}
"""Deals the matches of one (game, player count) must cover at least."""

OPTION_VARIANTS: Final[dict[str, tuple[dict[str, Any], ...]]] = {
    # Matches cycle through these overrides. Most keep the default target of 7 game points, so
    # that many matches span several deals; some use a small target for quick match ends.
    "schnapsen": ({}, {}, {}, {"target": 1}, {"target": 3}),
    # Yukon: a whole match to 250 takes 3 to 10 hands of ~52 moves; most matches here end after
    # their first hand (target 1, unless sides tie at the top), every fourth plays to 250.
    "yukon": ({"target": 1}, {"target": 1}, {"target": 1}, {}),
}
"""Per-game option overrides, cycled over the matches (on top of the randomized booleans)."""

MAX_MOVES: Final = 5000
"""A match longer than this counts as not finishing (test_matches_finish_and_cover_deals)."""

CANDIDATES_EVERY: Final = 3
"""The full candidate set is tried on every Nth state (listed moves are tried on every state)."""
SAMPLE_EVERY: Final = 25
"""Round trips and views are checked on every Nth state, and on each match's first and last."""

HISTORY_FIELDS: Final[dict[str, frozenset[str]]] = {
    # Top-level fields of the full wire state that repeat cards which are also somewhere else, so
    # they are not places of their own: Schnapsen's ``revealed`` records cards of a hand the
    # opponent has seen (the card is still in that hand, or since played), ``last_trick`` copies the
    # last trick, which is also in ``tricks``. (``trick`` is a real place: the led card.)
    "schnapsen": frozenset({"revealed", "last_trick"}),
    # Yukon: ``last_trick`` copies the last trick (also in ``won``) and its draws (in hands or the
    # trick); ``options.removed_two`` names a two, which is no place of a card.
    "yukon": frozenset({"last_trick", "options"}),
}

OPTION_FIELDS: Final = frozenset({"options"})
"""Left out of the view scan: option values are settings, not cards (Yukon's ``removed_two`` is "2C")."""

KNOWN_BUGS: Final[dict[tuple[str, str], str]] = {
    # (test function name, case id) -> reason; the case is marked xfail(strict=True) until the
    # engine is fixed (a strict xfail then fails, reminding to remove the entry).
}


# --- the matches ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Match:
    """One seeded random match, played to its end."""

    seed: int
    options: Any
    pack: tuple[Card, ...]
    steps: tuple[tuple[Any, Any, Any], ...]  # (before, move, after)

    @property
    def first(self) -> Any:
        return self.steps[0][0]

    @property
    def last(self) -> Any:
        return self.steps[-1][2]

    def states(self) -> Iterator[Any]:
        """Every state reached: the first, then each move's result."""
        yield self.first
        for _, _, after in self.steps:
            yield after

    def where(self, index: int) -> str:
        return f"seed={self.seed} options={self.options} move #{index}"


CASES: Final = [(game_id, n) for game_id, engine in ENGINES.items() for n in engine.PLAYER_COUNTS]


def _case_id(game_id: str, players: int) -> str:
    return f"{game_id}-{players}p"


def cases(test: str) -> list[Any]:
    """The (game_id, players) parameters of ``test``, known engine bugs marked xfail(strict)."""
    out = []
    for game_id, n in CASES:
        cid = _case_id(game_id, n)
        reason = KNOWN_BUGS.get((test, cid))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(game_id, n, id=cid, marks=marks))
    return out


def match_options(engine: ModuleType, game_id: str, players: int, index: int) -> Any:
    """Options of match ``index``: the game's override variant, with randomized switches.

    Every fourth match keeps the defaults; the others flip each boolean option at random (and a
    ``dealer`` option to a random seat), so every rule switch is exercised. A combination the game
    refuses (BadSetup) falls back to the plain variant.
    """
    variants = OPTION_VARIANTS.get(game_id, ({},))
    overrides = dict(variants[index % len(variants)])
    plain = engine.Options(**overrides)
    if index % 4 == 0:
        return plain
    rng = random.Random(f"options:{game_id}:{players}:{index}")
    changed: dict[str, Any] = {}
    for f in dataclasses.fields(engine.Options):
        if f.name in overrides:
            continue
        if isinstance(f.default, bool):
            changed[f.name] = rng.random() < 0.5
        elif f.name == "dealer":
            changed[f.name] = rng.randrange(players)
    options = dataclasses.replace(plain, **changed)
    try:
        pack = engine.pack(options, players)
        engine.new_game(options, players, deal_deck(pack, 0))
    except BadSetup:
        return plain
    return options


@functools.cache
def matches(game_id: str, players: int) -> tuple[Match, ...]:
    """The seeded matches of one case, played once and shared by the tests below."""
    engine = ENGINES[game_id]
    out = []
    for seed in range(MATCHES.get(game_id, DEFAULT_MATCHES)):
        options = match_options(engine, game_id, players, seed)
        steps = tuple(random_playout(engine, players, seed, options, max_moves=MAX_MOVES))
        assert steps, f"{game_id}: a match without a single move (seed {seed})"
        out.append(Match(seed, options, tuple(engine.pack(options, players)), steps))
    return tuple(out)


def deals_played(engine: ModuleType, match: Match) -> int:
    """Deals that ended in ``match``: moves after which the status left ``in_progress``."""
    return sum(
        engine.status(before) == "in_progress" and engine.status(after) != "in_progress"
        for before, _, after in match.steps
    )


# --- wire helpers ----------------------------------------------------------------------------------


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


def concrete(move: Any, pack: tuple[Card, ...]) -> Any:
    """A listed move ready for ``apply``: a template filled with a concrete deck."""
    return fill_template(move, deal_deck(pack, 4242)) if is_template(move) else move


# --- the tests ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("game_id", "players"), cases("test_matches_finish_and_cover_deals"))
def test_matches_finish_and_cover_deals(game_id: str, players: int) -> None:
    """Every seeded random match reaches an outcome within MAX_MOVES, and enough deals are played."""
    engine = ENGINES[game_id]
    ms = matches(game_id, players)
    unfinished = [m.seed for m in ms if engine.outcome(m.last) is None]
    assert not unfinished, f"matches not over after {MAX_MOVES} moves, seeds {unfinished[:10]}"
    deals = sum(deals_played(engine, m) for m in ms)
    states = sum(len(m.steps) + 1 for m in ms)
    print(f"\n{_case_id(game_id, players)}: {len(ms)} matches, {deals} deals, {states} states")
    assert deals >= MIN_DEALS.get(game_id, 0)
    skipped = sorted(s for s in SKIPPED_FIELDS if s[0] == game_id)
    if skipped:
        print(f"{game_id}: move fields not filled generically (listed moves only): {skipped}")


@pytest.mark.parametrize(("game_id", "players"), cases("test_every_state_is_consistent"))
def test_every_state_is_consistent(game_id: str, players: int) -> None:
    """On every state: check_state passes; the wire dump holds the pack exactly once; legal moves
    exist iff the match goes on; whose turn it is is a set of seats that the listed moves respect;
    the status agrees with the outcome; each move advances ``seq`` by one."""
    engine, codec = ENGINES[game_id], SCHEMAS[game_id]
    seats = frozenset(range(players))
    skip = HISTORY_FIELDS.get(game_id, frozenset())
    for m in matches(game_id, players):
        pack_names = frozenset(str(c) for c in m.pack)
        want = Counter(str(c) for c in m.pack)
        prev_seq = None
        for i, state in enumerate(m.states()):
            where = m.where(i)
            engine.check_state(state)
            wire = codec.dump_state(state, derived=False)
            have = Counter(card_strings(wire, pack_names, skip))
            assert have == want, f"{where}: cards of the dump ≠ pack: extra {have - want}, missing {want - have}"
            if prev_seq is not None:
                assert wire["seq"] == prev_seq + 1, where
            prev_seq = wire["seq"]
            assert engine.players(state) == players, where
            done = engine.outcome(state) is not None
            turn = engine.to_move(state)
            legal = engine.legal_moves(state)
            assert isinstance(turn, frozenset) and turn <= seats, f"{where}: to_move {turn}"
            assert bool(legal) == (not done) == bool(turn), f"{where}: legal={legal} to_move={turn} done={done}"
            assert (engine.status(state) == "finished") == done, f"{where}: status {engine.status(state)}"
            assert engine.status(state) in ("in_progress", "deal_over", "finished"), where
            for move in legal:
                assert move.player in turn, f"{where}: listed {move} but to_move={turn}"
                assert move.TYPE in engine.MOVE_TYPES, f"{where}: {move} is of no declared move type"
            assert engine.legal_moves(state) == legal, f"{where}: legal_moves is not deterministic"


@pytest.mark.parametrize(("game_id", "players"), cases("test_apply_accepts_listed_moves_and_never_mutates"))
def test_apply_accepts_listed_moves_and_never_mutates(game_id: str, players: int) -> None:
    """On every state, ``apply`` accepts every listed move (a template once filled), ``step``
    agrees with it, and neither changes its input: the state equals a deep copy taken before, and
    its wire dump is unchanged."""
    engine, codec = ENGINES[game_id], SCHEMAS[game_id]
    for m in matches(game_id, players):
        for i, (before, move, after) in enumerate(m.steps):
            where = m.where(i)
            snapshot = copy.deepcopy(before)
            wire = codec.dump_state(before)
            for listed in engine.legal_moves(before):
                try:
                    engine.apply(before, concrete(listed, m.pack))
                except IllegalMove as exc:
                    pytest.fail(f"{where}: listed move {listed} refused: {exc.code} ({exc.detail})")
            new, events = engine.step(before, move)
            assert new == after, f"{where}: step and apply disagree on {move}"
            assert isinstance(events, list) and all(isinstance(e.get("type"), str) for e in events), where
            assert before == snapshot, f"{where}: apply mutated its input state"
            assert codec.dump_state(before) == wire, f"{where}: the wire dump changed under apply"


@pytest.mark.parametrize(("game_id", "players"), cases("test_legality_has_one_truth"))
def test_legality_has_one_truth(game_id: str, players: int) -> None:
    """A candidate move is accepted by ``apply`` iff it equals a listed move or fills a listed
    template; a refusal is an IllegalMove with a snake_case code, and leaves the state unchanged."""
    engine = ENGINES[game_id]
    n = 0
    tried = accepted = 0
    for m in matches(game_id, players):
        for i, state in enumerate(m.states()):
            n += 1
            if n % CANDIDATES_EVERY:
                continue
            where = m.where(i)
            legal = engine.legal_moves(state)
            snapshot = copy.deepcopy(state)
            for cand in candidate_moves(engine, state, m.pack, salt=n):
                listed = is_listed(cand, legal)
                try:
                    engine.apply(state, cand)
                    ok, code = True, None
                except IllegalMove as exc:
                    ok, code = False, exc.code
                    assert code and code == code.lower() and " " not in code, f"{where}: bad code {code!r}"
                assert ok == listed, f"{where}: {cand} listed={listed} but apply {'accepted' if ok else 'refused: ' + str(code)}"
                tried += 1
                accepted += ok
            assert state == snapshot, f"{where}: a refused or accepted candidate mutated the state"
    assert tried > accepted > 0


@pytest.mark.parametrize(("game_id", "players"), cases("test_finished_match_refuses_every_move"))
def test_finished_match_refuses_every_move(game_id: str, players: int) -> None:
    """Once the match is over, every candidate move (of every seat and type) is game_over."""
    engine = ENGINES[game_id]
    for m in matches(game_id, players):
        state = m.last
        if engine.outcome(state) is None:
            continue  # reported by test_matches_finish_and_cover_deals
        assert engine.legal_moves(state) == [] and engine.to_move(state) == frozenset()
        cands = candidate_moves(engine, state, m.pack, seats=range(players))
        assert cands, m.where(len(m.steps))
        for cand in cands:
            with pytest.raises(IllegalMove) as info:
                engine.apply(state, cand)
            assert info.value.code == "game_over", f"{m.where(len(m.steps))}: {cand} → {info.value.code}"


def sampled(ms: tuple[Match, ...]) -> Iterator[tuple[Match, int, Any | None, Any | None, Any]]:
    """(match, index, before, move, state) for every SAMPLE_EVERY-th state and each match's first
    and last state (``before``/``move`` are None for a match's first state)."""
    n = 0
    for m in ms:
        yield m, 0, None, None, m.first
        for i, (before, move, after) in enumerate(m.steps):
            n += 1
            if n % SAMPLE_EVERY == 0 or i == len(m.steps) - 1:
                yield m, i + 1, before, move, after


@pytest.mark.parametrize(("game_id", "players"), cases("test_wire_round_trip"))
def test_wire_round_trip(game_id: str, players: int) -> None:
    """state → dump → JSON → load gives the state back, with the derived values (ignored on input)
    and without them; dumping the loaded state gives the same wire form."""
    codec = SCHEMAS[game_id]
    for m, i, _, _, state in sampled(matches(game_id, players)):
        for derived in (True, False):
            wire = codec.dump_state(state, derived=derived)
            loaded = codec.load_state(json.loads(json.dumps(wire)))
            assert loaded == state, f"{m.where(i)}: round trip (derived={derived}) changed the state"
            assert codec.dump_state(loaded, derived=derived) == wire, m.where(i)


@pytest.mark.parametrize(("game_id", "players"), cases("test_sealed_round_trip"))
def test_sealed_round_trip(game_id: str, players: int) -> None:
    """A state sealed into a token (as the envelope does: its packed form) unseals to the same state;
    the packed form also agrees with the validating wire form."""
    codec = SCHEMAS[game_id]
    sealer = Sealer([Fernet.generate_key().decode("ascii")])
    for m, i, _, _, state in sampled(matches(game_id, players)):
        match_id = f"match-{m.seed}"
        token = sealer.seal(game_id, match_id, codec.pack(state))
        got_id, packed = sealer.unseal(game_id, token)
        assert got_id == match_id
        unpacked = codec.unpack(packed)
        assert unpacked == state, f"{m.where(i)}: sealed round trip changed the state"
        assert codec.load_state(codec.dump_state(unpacked)) == state


@pytest.mark.parametrize(("game_id", "players"), cases("test_views_show_no_hidden_card"))
def test_views_show_no_hidden_card(game_id: str, players: int) -> None:
    """For each seat and the public view, as the HTTP layer answers (view, seat's legal moves,
    scores, filtered events): every card shown is one the viewer may see.

    The view, legal moves and scores describe the state after the move, so their cards must be in
    ``visible_cards(after, viewer)``. An event tells what the move did, so its cards may be visible
    before the move (a card the viewer saw in a hand, now played) or after it (a card drawn into the
    viewer's hand, a card turned up); a card that was hidden before and after (a face-down draw by
    another seat) must be blanked by ``event_view``. The public view lists no legal moves, and a
    seat's view lists only that seat's. Also: the public sees no more than any seat, and the first
    deal hides something from the public.
    """
    engine, codec = ENGINES[game_id], SCHEMAS[game_id]
    viewers: list[int | None] = [None, *range(players)]
    for m, i, before, move, state in sampled(matches(game_id, players)):
        where = m.where(i)
        pack_names = frozenset(str(c) for c in m.pack)
        events = engine.initial_events(state) if move is None else engine.step(before, move)[1]
        public = engine.visible_cards(state, None)
        if move is None:
            assert public < frozenset(m.pack), f"{where}: the public sees every card of a fresh deal"
        for v in viewers:
            now = engine.visible_cards(state, v)
            assert public <= now <= frozenset(m.pack), f"{where}: visible_cards({v}) is not within the pack above the public's"
            then = now if before is None else engine.visible_cards(before, v)
            now_names = {str(c) for c in now}
            either = now_names | {str(c) for c in then}
            view = codec.dump(engine.view(state, v))
            json.dumps(view)
            shown = set(card_strings(view, pack_names, OPTION_FIELDS, keys=True)) - now_names
            assert not shown, f"{where}: view({v}) shows hidden {sorted(shown)}"
            listed = [] if v is None else [mv for mv in engine.legal_moves(state) if mv.player == v]
            shown = set(card_strings(codec.dump(listed), pack_names, keys=True)) - now_names
            assert not shown, f"{where}: legal moves as seat {v} show hidden {sorted(shown)}"
            in_view = view.get("legal_moves", []) if isinstance(view, dict) else []
            assert v is not None or not in_view, f"{where}: the public view lists moves"
            assert all(mv.get("player") == v for mv in in_view), f"{where}: view({v}) lists another seat's moves"
            scores = codec.dump(engine.scores(state, v))
            assert isinstance(scores.get("totals"), list), where
            shown = set(card_strings(scores, pack_names, keys=True)) - now_names
            assert not shown, f"{where}: scores as {v} show hidden {sorted(shown)}"
            wire_events = [codec.dump(event_view(e, v, full=False)) for e in events]
            json.dumps(wire_events)
            shown = set(card_strings(wire_events, pack_names, keys=True)) - either
            assert not shown, f"{where}: events of {move} as {v} show hidden {sorted(shown)}: {wire_events}"


@pytest.mark.parametrize(("game_id", "players"), cases("test_same_seed_same_match"))
def test_same_seed_same_match(game_id: str, players: int) -> None:
    """Playouts are pure functions of (seed, options): the same seed plays the same match twice."""
    engine = ENGINES[game_id]
    for m in matches(game_id, players)[:5]:
        again = tuple(random_playout(engine, players, m.seed, m.options, max_moves=MAX_MOVES))
        assert again == m.steps, f"seed {m.seed}: a second playout differs"
        third = tuple(random_playout(engine, players, m.seed, m.options, max_moves=MAX_MOVES))
        assert [s[2] for s in third] == [s[2] for s in m.steps]


@pytest.mark.parametrize("game_id", list(ENGINES))
def test_every_move_type_has_a_class(game_id: str) -> None:
    """MOVE_TYPES maps one to one onto move dataclasses with a ``player`` field, which
    candidate_moves can build; ``next_deal`` is the shared NextDeal."""
    engine = ENGINES[game_id]
    classes = move_classes(engine)
    assert set(classes) == set(engine.MOVE_TYPES)
    for kind, cls in classes.items():
        assert cls.TYPE == kind and dataclasses.is_dataclass(cls)
        assert "player" in {f.name for f in dataclasses.fields(cls)}
    if "next_deal" in engine.MOVE_TYPES:
        assert classes["next_deal"] is NextDeal
