"""Generic invariants of every engine, over seeded random matches.

Parametrized over every engine in ``service.engines.ENGINES`` and each of its ``PLAYER_COUNTS``,
so a new game is covered by adding it to the registry; this file needs at most a line in the
tables below. This is OpenSpiel's ``random_sim_test``: play seeded random matches to their end
(tests/playouts.py) and check on the states reached that

- every card of the pack is in exactly one place (``check_state`` on every state, and
  independently the cards of the full wire dump on a fixed sample), ``legal_moves`` is non-empty
  iff the match goes on, and the turn is sound;
- ``apply`` accepts every listed move and never mutates its input (deep copy, on the sample);
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
    card_strings,
    fill_template,
    is_template,
    move_classes,
    random_playout,
)

pytestmark = pytest.mark.slow

# --- how much to play ---------------------------------------------------------------------------

MATCHES: Final[dict[str, int]] = {"schnapsen": 330, "russian_bank": 12, "bragging": 60, "seven_up": 600, "california_jack": 120, "slapjack": 8, "snap": 4, "yukon": 600}
"""Seeded random matches per (game, player count). Schnapsen: ~1,050 deals, ~12,500 states.
Russian Bank: one deal per game of ~400 moves, ~4,800 states (500 more games, with the cheaper
core invariants, in tests/engines/test_russian_bank.py).
Bragging: ~200 hands per player count (2 to 8), ~20,000 states in all; its own test file plays
1,000+ hands per player count with the cheaper checks (tests/engines/test_bragging.py).
Seven Up: 600 whole matches per player count, 1,000+ deals each (1,000 matches would take ~120 s).
California Jack: whole matches, a quarter to the default target of 10 (~215 deals, ~11,500 states;
its state costs ~2 ms per state here, so the 1,000-match run is tests/engines/test_california_jack.py's
lighter test_random_matches_*).
Slapjack: 8 whole games for each of its 7 player counts (56 games, ~15,000 states, about
Schnapsen's cost: every state here is a 52-card deep copy); Snap: 4 per count (28 games, each about
twice as long). tests/engines/test_slapjack.py and test_snap.py each play 1,008 more seeded games with
the cheaper invariants.
Yukon: over 1,000 hands per player count (52,000 to 66,000 states), 150 of the matches played to 250."""
MATCHES_BY_COUNT: Final[dict[str, dict[int, int]]] = {"stukolka": {3: 290, 4: 245, 5: 220, 6: 160, 7: 130}}
"""Where a game's matches grow with the player count: matches per player count (over MATCHES).
Stukolka: ≥ 1,000 deals per player count (a game runs until a deal leaves nothing carried)."""
DEFAULT_MATCHES: Final = 40
"""For a game not in MATCHES: tune it there once the game's speed is known (whole file < ~60 s)."""

MIN_DEALS: Final[dict[str, int]] = {"schnapsen": 1000, "bragging": 180, "seven_up": 1000, "california_jack": 200, "stukolka": 1000, "yukon": 1000}
"""Deals the matches of one (game, player count) must cover at least."""

OPTION_VARIANTS: Final[dict[str, tuple[dict[str, Any], ...]]] = {
    # Matches cycle through these overrides. Most keep the default target of 7 game points, so
    # that many matches span several deals; some use a small target for quick match ends.
    "schnapsen": ({}, {}, {}, {"target": 1}, {"target": 3}),
    # §3: every option value; waste_top_available is flipped at random by match_options
    "russian_bank": (
        {},
        {"priority": "enforced"},
        {"first_player": "lower_stock"},
        {"waste_loading": "second_player_only"},
        {"first_player": "seat1", "priority": "enforced"},
        {"first_player": "seat0", "waste_loading": "second_player_only"},
    ),
    # Bragging is open-ended by default: every match here ends after a few hands (``hands``).
    "bragging": (
        {"hands": 4},
        {"hands": 4, "tie_rule": "carry"},
        {"hands": 4, "hand_ranking": "poker4", "min_raise": 2},
        {"hands": 4, "pack": 36, "ante": 0},
        {"hands": 1, "ante": 3, "tie_rule": "carry", "hand_ranking": "poker4"},
    ),
    # Seven Up: whole matches to the seed's 7 and to small targets (a turned jack or a gift can
    # end those at once), under every follow rule and Game-tie rule. (``start_scores`` depends on
    # the player count, so it is covered by tests/engines/test_seven_up.py instead.)
    "seven_up": (
        {}, {"target": 3}, {"follow_rule": "follow_or_trump", "target": 4},
        {"follow_rule": "follow_or_trump_compulsory", "game_tie": "eldest", "target": 2},
        {"target": 2, "game_tie": "eldest"}, {"target": 5}, {"target": 2},
    ),
    # California Jack: the string options cycle here (the booleans are randomized); a quarter of
    # the matches go to the default target of 10, the rest to small targets (a hand is 53 moves).
    "california_jack": (
        {"target": 1},
        {},
        {"target": 1, "trump_mode": "fixed"},
        {"target": 2, "follow_rule": "follow_or_trump"},
        {"target": 1, "follow_rule": "follow_or_trump_compulsory"},
        {"target": 1, "trump_mode": "fixed", "follow_rule": "follow_or_trump_compulsory"},
        {"trump_mode": "fixed", "follow_rule": "follow_or_trump", "start_scores": (0, 5)},
        {"target": 3, "start_scores": (2, 0)},
    ),
    # Stukolka never ends without a deal limit, and then only after a deal that leaves nothing
    # carried; random play in penalize mode breaks a rule in almost every deal (each breach carries
    # a remiz), so those variants cap the remiz and let a lone tapper take the pot (a quick end).
    "stukolka": (
        {"deals": 3},
        {"deals": 2, "violations": "penalize", "remiz_limit": 12, "lone_tapper": "wins_pot"},
        {"deals": 2, "stake_by": "all", "lone_tapper": "wins_pot"},
        {"deals": 3, "pack": 36, "max_exchange": 1},
        {"deals": 2, "remiz_limit": 6, "max_exchange": 0, "stake": 6},
        {"deals": 1, "violations": "penalize", "pack": 36, "remiz_limit": 30, "max_exchange": 2, "lone_tapper": "wins_pot"},
        {"deals": 1, "pack": 36},
    ),
    # Yukon: a whole match to 250 takes 3 to 10 hands of ~52 moves; most matches here end after
    # their first hand (target 1, unless sides tie at the top), every fourth plays to 250.
    "yukon": ({"target": 1}, {"target": 1}, {"target": 1}, {}),
}
"""Per-game option overrides, cycled over the matches (on top of the randomized booleans)."""

MAX_MOVES: Final = 5000
"""A match longer than this counts as not finishing (test_matches_finish_and_cover_deals)."""

ENDLESS: Final[dict[str, float]] = {"russian_bank": 0.15}
"""Games whose rules let play go on forever (russian_bank §7.3: positions where no card can move
again, and the hands are turned round and round), with the share of seeds allowed to get there: a
random match not over after MAX_MOVES is left out (not ended, not counted) and the next seed is
played, until MATCHES finished matches are collected. Every other game must finish every match."""

CANDIDATES_EVERY: Final = 7
"""The full candidate set is tried on every Nth state (listed moves are tried on every state)."""
CANDIDATES_EVERY_GAME: Final[dict[str, int]] = {"russian_bank": 16, "yukon": 20, "seven_up": 16, "stukolka": 11}
"""Per game, when its states are many and its candidate sets large (Russian Bank: ~400 per state;
Yukon ~100 per state over 50,000+ states per player count; Seven Up's hundreds of matches): the
full candidate set on a fixed sample of states keeps each case to a few seconds, while listed moves
are still applied on every state (test_apply_accepts_listed_moves_and_never_mutates)."""
SAMPLE_EVERY: Final = 25
"""Round trips and views are checked on every Nth state, and on each match's first and last."""
DEEP_EVERY: Final = 5
"""The independent checks that copy or serialize a whole state (the wire dump's cards, the deep
copy and dump that prove ``apply`` left its input alone) run on every Nth state of a match, and on
its first and last; the engine's own checks (``check_state``, listing, applying every listed move)
run on every state."""

HISTORY_FIELDS: Final[dict[str, frozenset[str]]] = {
    # Top-level fields of the full wire state that repeat cards which are also somewhere else, so
    # they are not places of their own: Schnapsen's ``revealed`` records cards of a hand the
    # opponent has seen (the card is still in that hand, or since played), ``last_trick`` copies the
    # last trick, which is also in ``tricks``. (``trick`` is a real place: the led card.)
    "schnapsen": frozenset({"revealed", "last_trick"}),
    # Bragging's ``last_result`` shows the showdown hands, which are still in ``hidden``/``up``.
    "bragging": frozenset({"last_result"}),
    # Seven Up: ``hand_events`` names a turned jack (still the turn-up, or set aside); ``last_hand``
    # names the previous hand's High, Low and Jack cards (still in its tricks, or already redealt).
    "seven_up": frozenset({"hand_events", "last_hand"}),
    # California Jack's ``draws`` name cards now in a hand or a trick; ``last_hand`` names the
    # previous hand's High, Low and Jack.
    "california_jack": frozenset({"draws", "last_hand"}),
    # Slapjack's ``last_result`` names the card just flipped, which is also in the centre or a stock.
    "slapjack": frozenset({"last_result"}),
    "snap": frozenset({"last_result"}),
    # Stukolka's ``violations`` name cards that lie in the trick or the completed tricks.
    "stukolka": frozenset({"violations"}),
    # Yukon: ``last_trick`` copies the last trick (also in ``won``) and its draws (in hands or the
    # trick); ``options.removed_two`` names a two, which is no place of a card.
    "yukon": frozenset({"last_trick", "options"}),
}

OPEN_MOVES: Final[dict[str, frozenset[str]]] = {
    # Move types listed for seats that are not to move: real-time claims, open to every seat still
    # in the game (slapjack.md §6.7). ``to_move`` names only the seat that must flip, and may be
    # empty while claims are still possible (Slapjack: only a slap can take a jack nobody can cover).
    "slapjack": frozenset({"slap"}),
    "snap": frozenset({"snap"}),  # snap.md §6.8 (to_move is null while only a call can end a match)
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
        # Under pytest-xdist (--dist loadgroup) every test of a case runs in the same worker, so
        # its seeded matches are played once, not once per worker.
        marks.append(pytest.mark.xdist_group(cid))
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
    wanted = MATCHES_BY_COUNT.get(game_id, {}).get(players, MATCHES.get(game_id, DEFAULT_MATCHES))
    seed = 0
    while len(out) < wanted:
        options = match_options(engine, game_id, players, seed)
        steps = tuple(random_playout(engine, players, seed, options, max_moves=MAX_MOVES))
        assert steps, f"{game_id}: a match without a single move (seed {seed})"
        endless = game_id in ENDLESS and engine.outcome(steps[-1][2]) is None
        if endless:
            ENDLESS_SEEDS.setdefault((game_id, players), []).append(seed)
            assert len(ENDLESS_SEEDS[(game_id, players)]) <= ENDLESS[game_id] * wanted + 1, (
                f"{game_id}: too many random matches never end: seeds {ENDLESS_SEEDS[(game_id, players)]}"
            )
        else:
            out.append(Match(seed, options, tuple(engine.pack(options, players)), steps))
        seed += 1
    return tuple(out)


ENDLESS_SEEDS: dict[tuple[str, int], list[int]] = {}
"""Seeds left out of ``matches`` because their random match never ends (games in ENDLESS)."""


def deals_played(engine: ModuleType, match: Match) -> int:
    """Deals that ended in ``match``: moves after which the status left ``in_progress``."""
    return sum(
        engine.status(before) == "in_progress" and engine.status(after) != "in_progress"
        for before, _, after in match.steps
    )


# --- wire helpers ----------------------------------------------------------------------------------


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
    if ENDLESS_SEEDS.get((game_id, players)):
        print(f"left out as endless (rules never end them): seeds {ENDLESS_SEEDS[(game_id, players)]}")
    assert deals >= MIN_DEALS.get(game_id, 0)
    skipped = sorted(s for s in SKIPPED_FIELDS if s[0] == game_id)
    if skipped:
        print(f"{game_id}: move fields not filled generically (listed moves only): {skipped}")


@pytest.mark.parametrize(("game_id", "players"), cases("test_every_state_is_consistent"))
def test_every_state_is_consistent(game_id: str, players: int) -> None:
    """On every state: check_state passes (every card in exactly one place, by the engine); legal
    moves exist iff the match goes on; whose turn it is is a set of seats that the listed moves
    respect; the status agrees with the outcome; each move advances ``seq`` by one. On every
    DEEP_EVERY-th state (and the last): the wire dump, counted independently, holds the pack
    exactly once."""
    engine, codec = ENGINES[game_id], SCHEMAS[game_id]
    seats = frozenset(range(players))
    skip = HISTORY_FIELDS.get(game_id, frozenset())
    for m in matches(game_id, players):
        pack_names = frozenset(str(c) for c in m.pack)
        want = Counter(str(c) for c in m.pack)
        prev_seq = None
        last = len(m.steps)
        for i, state in enumerate(m.states()):
            where = m.where(i)
            engine.check_state(state)
            seq = state.seq
            if i % DEEP_EVERY == 0 or i == last:
                wire = codec.dump_state(state, derived=False)
                have = Counter(card_strings(wire, pack_names, skip))
                assert have == want, f"{where}: cards of the dump ≠ pack: extra {have - want}, missing {want - have}"
                assert wire["seq"] == seq, where
            if prev_seq is not None:
                assert seq == prev_seq + 1, where
            prev_seq = seq
            assert engine.players(state) == players, where
            done = engine.outcome(state) is not None
            turn = engine.to_move(state)
            legal = engine.legal_moves(state)
            assert isinstance(turn, frozenset) and turn <= seats, f"{where}: to_move {turn}"
            open_moves = OPEN_MOVES.get(game_id, frozenset())
            assert bool(legal) == (not done), f"{where}: legal={legal} done={done}"
            if turn or not open_moves:
                assert bool(turn) == (not done), f"{where}: to_move={turn} done={done}"
            else:
                assert all(m.TYPE in open_moves for m in legal), f"{where}: nobody to move, yet {legal}"
            assert (engine.status(state) == "finished") == done, f"{where}: status {engine.status(state)}"
            assert engine.status(state) in ("in_progress", "deal_over", "finished"), where
            for move in legal:
                assert move.player in turn or move.TYPE in open_moves, f"{where}: listed {move} but to_move={turn}"
                assert move.TYPE in engine.MOVE_TYPES, f"{where}: {move} is of no declared move type"
            assert engine.legal_moves(state) == legal, f"{where}: legal_moves is not deterministic"


@pytest.mark.parametrize(("game_id", "players"), cases("test_apply_accepts_listed_moves_and_never_mutates"))
def test_apply_accepts_listed_moves_and_never_mutates(game_id: str, players: int) -> None:
    """On every state, ``apply`` accepts every listed move (a template once filled) and ``step``
    agrees with it; on every DEEP_EVERY-th state (and the last) neither changed its input: the
    state equals a deep copy taken before, and its wire dump is unchanged."""
    engine, codec = ENGINES[game_id], SCHEMAS[game_id]
    for m in matches(game_id, players):
        for i, (before, move, after) in enumerate(m.steps):
            where = m.where(i)
            deep = i % DEEP_EVERY == 0 or i == len(m.steps) - 1
            snapshot = copy.deepcopy(before) if deep else None
            wire = codec.dump_state(before) if deep else None
            for listed in engine.legal_moves(before):
                try:
                    engine.apply(before, concrete(listed, m.pack))
                except IllegalMove as exc:
                    pytest.fail(f"{where}: listed move {listed} refused: {exc.code} ({exc.detail})")
            new, events = engine.step(before, move)
            assert new == after, f"{where}: step and apply disagree on {move}"
            assert isinstance(events, list) and all(isinstance(e.get("type"), str) for e in events), where
            if deep:
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
            if n % CANDIDATES_EVERY_GAME.get(game_id, CANDIDATES_EVERY):
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


MONEY_CASES: Final = [
    pytest.param(g, n, id=_case_id(g, n), marks=pytest.mark.xdist_group(_case_id(g, n)))
    for g, n in CASES if callable(getattr(ENGINES[g], "money", None))
]


@pytest.mark.parametrize(("game_id", "players"), MONEY_CASES)
def test_money_is_conserved(game_id: str, players: int) -> None:
    """Games that keep accounts export ``money(state) -> int`` (balances + pot + carried amounts):
    no unit of money is ever created or lost, so it is the same in every state of a match."""
    engine = ENGINES[game_id]
    for m in matches(game_id, players):
        total = engine.money(m.first)
        for i, state in enumerate(m.states()):
            assert engine.money(state) == total, f"{m.where(i)}: money {engine.money(state)} ≠ {total}"


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
