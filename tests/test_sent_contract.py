"""What the engines send is what the games declare (``service/schemas/sent.py``).

Seeded random matches of every game whose contract declares its views, events and scores: every
event, as every viewer gets it, is a ``<Game>Event``; every view (each seat's and the public one)
a ``<Game>View``; every score a ``<Game>Scores``; and every declared event type is sent at least
once over the matches (and two rigged positions, for what random play never reaches), so a
declaration cannot list a type the engine never sends.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from service.engines import ENGINES
from service.envelope import envelope
from service.schemas import SCHEMAS
from tests.contract import is_valid, validator_at
from tests.playouts import random_playout

GAMES = sorted(g for g, codec in SCHEMAS.items() if codec.module.CONTRACT.events is not None)
SEEDS = tuple(range(1, 11))
VIEW_EVERY = 7
"""Views and scores are checked on every 7th state (and the last): events on every step."""

ENDING: dict[str, dict[str, object]] = {"stukolka": {"deals": 2}, "bragging": {"hands": 2}, "snap": {"tie_rule": "pool"}}
"""Options every other seed plays with, per game, where the defaults never send an event type:
Stukolka's `deals: null` and Bragging's `hands: null` play on until a balance passes the house
limit (no `game_over`), Snap's
`tie_rule: list_order` never sends `tie_to_pool`."""


def _check(validator: object, value: object, what: tuple[object, ...]) -> None:
    if not is_valid(validator, value):
        errors = list(validator.iter_errors(value))  # type: ignore[attr-defined]
        raise AssertionError(f"{what}: {errors[0].message if errors else 'invalid'}: {value!r}"[:2000])


def _rigged(game: str) -> list[tuple[object, list[object]]]:
    """(state, moves) of positions that send what random play never reaches, built as the engine
    tests build them: Russian Bank's `passed` (two idle passes, a stalemate), its draws (agreed,
    declined, stalled), Seven Up's
    `deal_void` (five runs that all turn the first suit)."""
    if game == "russian_bank":
        from service.engines.russian_bank import AcceptDraw, DeclineDraw, OfferDraw, Pass
        from tests.engines.test_russian_bank import position, seat

        return [(position(seat("5S/a 6S/a"), seat("9S/b")), [Pass(0), Pass(1)]),
                (position(seat("5S/a 6S/a"), seat("9S/b")), [OfferDraw(0), DeclineDraw(1), Pass(0), OfferDraw(1), AcceptDraw(0)]),
                (position(seat("5S/a 6S/a"), seat("9S/b"), stall_limit=1), [Pass(0)])]
    if game == "seven_up":
        from service.engines.seven_up import Beg, Run
        from tests.engines.test_seven_up import PACK, cs, new

        spades = list(cs("2S 3S 4S 5S 6S 7S"))
        others = [x for x in PACK if x not in spades]
        deck = [spades.pop(0) if i in (12, 19, 26, 33, 40, 47) else others.pop(0) for i in range(52)]
        return [(new(deck), [Beg(1), Run(0)])]
    return []


def _matches(game: str) -> Iterator[list[tuple[object, list[object]]]]:
    """Each match as its states with the events that led to each (the deal's first), the seeds'
    matches at each of the game's player counts in turn."""
    engine = ENGINES[game]
    for seed in SEEDS:
        options = dataclasses.replace(engine.Options(), **ENDING[game]) if game in ENDING and seed % 2 else None
        players = engine.PLAYER_COUNTS[seed % len(engine.PLAYER_COUNTS)]  # every player count the game has
        steps = list(random_playout(engine, players, seed=seed, options=options, max_moves=600))
        first = steps[0][0]
        yield [(first, engine.initial_events(first))] + [list(engine.step(before, move)) for before, move, _ in steps]
    for state, moves in _rigged(game):
        history = [(state, [])]
        for move in moves:
            history.append(list(engine.step(history[-1][0], move)))
        yield history


@pytest.mark.parametrize("game", GAMES)
def test_every_view_event_and_score_is_declared(game: str) -> None:
    engine, codec = ENGINES[game], SCHEMAS[game]
    prefix = codec.moves.prefix
    contract = codec.module.CONTRACT
    view_v, event_v, scores_v = (validator_at(f"/components/schemas/{prefix}{kind}") for kind in ("View", "Event", "Scores"))
    declared = set(contract.events.schema["discriminator"]["mapping"])
    seen: set[str] = set()
    for m, history in enumerate(_matches(game)):
        players = engine.players(history[0][0])
        for i, (state, events) in enumerate(history):
            views = i % VIEW_EVERY == 0 or i == len(history) - 1
            for viewer in (None, *range(players)):
                sent = envelope(engine, codec, state, events, viewer, full=False)
                for event in sent["events"]:
                    seen.add(event["type"])
                    _check(event_v, event, (game, m, i, viewer, "event"))
                if views:
                    _check(view_v, sent["state"], (game, m, i, viewer, "view"))
                    _check(scores_v, sent["scores"], (game, m, i, viewer, "scores"))
            full = envelope(engine, codec, state, events, None, full=True)
            for event in full["events"]:
                _check(event_v, event, (game, m, i, "full", "event"))
            if views:
                _check(scores_v, full["scores"], (game, m, i, "full", "scores"))
    missing = declared - seen
    assert not missing, f"{game}: declared event types no match sent: {sorted(missing)}"
    assert seen <= declared, f"{game}: sent event types not declared: {sorted(seen - declared)}"
