"""What the engines send is what the games declare (``service/schemas/sent.py``).

Seeded random matches of every game whose contract declares its views, events and scores: every
event, as every viewer gets it, is a ``<Game>Event``; every view (each seat's and the public one)
a ``<Game>View``; every score a ``<Game>Scores``; and every declared event type is sent at least
once over the matches, so a declaration cannot list a type the engine never sends.
"""

from __future__ import annotations

import dataclasses

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

ENDING: dict[str, dict[str, object]] = {"stukolka": {"deals": 2}, "snap": {"tie_rule": "pool"}}
"""Options every other seed plays with, per game, where the defaults never send an event type:
Stukolka's `deals: null` plays on until a balance passes the house limit (no `game_over`), Snap's
`tie_rule: list_order` never sends `tie_to_pool`."""


def _check(validator: object, value: object, what: tuple[object, ...]) -> None:
    if not is_valid(validator, value):
        errors = list(validator.iter_errors(value))  # type: ignore[attr-defined]
        raise AssertionError(f"{what}: {errors[0].message if errors else 'invalid'}: {value!r}"[:2000])


@pytest.mark.parametrize("game", GAMES)
def test_every_view_event_and_score_is_declared(game: str) -> None:
    engine, codec = ENGINES[game], SCHEMAS[game]
    prefix = codec.moves.prefix
    contract = codec.module.CONTRACT
    view_v, event_v, scores_v = (validator_at(f"/components/schemas/{prefix}{kind}") for kind in ("View", "Event", "Scores"))
    declared = set(contract.events.schema["discriminator"]["mapping"])
    seen: set[str] = set()
    for seed in SEEDS:
        players = engine.DEFAULT_PLAYERS
        options = dataclasses.replace(engine.Options(), **ENDING[game]) if game in ENDING and seed % 2 else None
        steps = list(random_playout(engine, players, seed=seed, options=options, max_moves=600))
        first = steps[0][0]
        history = [(first, engine.initial_events(first))]
        for i, (before, move, _) in enumerate(steps):
            after, events = engine.step(before, move)
            history.append((after, events))
        for i, (state, events) in enumerate(history):
            views = i % VIEW_EVERY == 0 or i == len(history) - 1
            for viewer in (None, *range(players)):
                sent = envelope(engine, codec, state, events, viewer, full=False)
                for event in sent["events"]:
                    seen.add(event["type"])
                    _check(event_v, event, (game, seed, i, viewer, "event"))
                if views:
                    _check(view_v, sent["state"], (game, seed, i, viewer, "view"))
                    _check(scores_v, sent["scores"], (game, seed, i, viewer, "scores"))
            full = envelope(engine, codec, state, events, None, full=True)
            for event in full["events"]:
                _check(event_v, event, (game, seed, i, "full", "event"))
            if views:
                _check(scores_v, full["scores"], (game, seed, i, "full", "scores"))
    missing = declared - seen
    assert not missing, f"{game}: declared event types no match sent: {sorted(missing)}"
    assert seen <= declared, f"{game}: sent event types not declared: {sorted(seen - declared)}"
