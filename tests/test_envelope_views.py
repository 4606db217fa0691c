"""A seat's envelope lists exactly that seat's legal moves.

``service.envelope`` takes a seat's legal moves from the seat's view when the view lists them (a
game's §5: the seat to move sees its moves) rather than asking the engine again. This holds only
while every view that lists moves lists the engine's ``legal_moves`` (all of them, or the seat's
own): checked here for every seat of every position of seeded random matches of every game, the
envelope's ``legal_moves`` against the engine's moves of that seat, and every seat-view envelope's
view against the engine's own view.
"""

from __future__ import annotations

import pytest

from service.engines import ENGINES
from service.envelope import envelope
from service.schemas import SCHEMAS
from service.schemas.common import to_wire
from tests.playouts import random_playout

GAMES = sorted(ENGINES)


@pytest.mark.parametrize("game_id", GAMES)
def test_a_seats_envelope_lists_the_engines_moves_of_that_seat(game_id: str) -> None:
    engine, codec = ENGINES[game_id], SCHEMAS[game_id]
    positions = listed = 0
    for seed in range(3):
        for before, _move, _after in random_playout(engine, engine.DEFAULT_PLAYERS, seed=seed, max_moves=150):
            positions += 1
            for seat in range(engine.players(before)):
                env = envelope(engine, codec, before, [], seat, full=False)
                expected = [m for m in engine.legal_moves(before) if m.player == seat]
                assert env["legal_moves"] == to_wire(expected), (game_id, seed, before.seq, seat)
                assert env["state"] == to_wire(engine.view(before, seat))
                listed += bool(expected)
    assert positions > 50 and listed > 0  # the matches were played, and seats had moves to list
