"""Sealed matches played over HTTP for the fair-play tests.

Moves are chosen as tests/playouts.py chooses them, from the true state (recovered with the app's
own keys: the test is the host, not a seat), and sent as wire moves with the table key (or a seat's
key); a ``next_deal`` is sent without a deck, so the service deals it from the match secret.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from flask.testing import FlaskClient

from service.engines import ENGINES
from service.engines.base import is_listed
from service.engines.moves import NextDeal
from service.schemas import SCHEMAS
from service.schemas.common import to_wire
from tests.playouts import CHOOSERS, _timed_move, fill_template, is_template, is_timed

# Options that keep random matches short (same rules, a lower target)
SHORT: dict[str, dict[str, Any]] = {
    "schnapsen": {"target": 2},
    "seven_up": {"target": 3},
    "california_jack": {"target": 3},
    "bragging": {"hands": 2},
    "stukolka": {"deals": 2},
    "yukon": {"target": 30},
    "russian_bank": {},
    "slapjack": {},
    "snap": {},
}


def true_state(client: FlaskClient, game: str, token: str) -> Any:
    sealer = client.application.extensions["referee.sealer"]
    _, packed = sealer.unseal(game, token)
    return SCHEMAS[game].unpack(packed)


def new_match(client: FlaskClient, game: str, players: int | None = None, options: dict[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {}
    if players is not None:
        body["players"] = players
    if options:
        body["options"] = options
    r = client.post(f"/v1/games/{game}/new", json=body)
    assert r.status_code == 201, r.json
    return r.json  # type: ignore[no-any-return]


def _greedy_claim(engine: Any, state: Any, legal: list[Any], clock: int) -> Any:
    """Timed games, short matches: seat 0 claims whenever a claim wins it cards, else the flip."""
    for template in legal:
        if is_template(template) and template.player == 0:
            move = type(template)(player=0, at=clock)
            if not is_listed(move, legal):
                continue
            after = engine.apply(state, move)
            if engine.cards_held(after)[0] > engine.cards_held(state)[0]:
                return move
    flips = [m for m in legal if not is_template(m)]
    return type(flips[0])(player=flips[0].player, at=clock) if flips else None


def choose(game: str, state: Any, rng: random.Random, clock: int, short: bool = False) -> Any:
    """A random legal engine move for ``state`` (templates filled; ``next_deal`` left without deck).
    ``short``: in Slapjack and Snap, seat 0 takes every pile it can (matches end in a few hundred moves)."""
    engine = ENGINES[game]
    legal = engine.legal_moves(state)
    greedy = _greedy_claim(engine, state, legal, clock) if short and is_timed(engine) else None
    if greedy is not None:
        move = greedy
    elif is_timed(engine):
        move = _timed_move(engine, legal, rng, clock)
    else:
        pick = CHOOSERS.get(game)
        move = pick(state, legal, rng) if pick else legal[rng.randrange(len(legal))]
    if is_template(move) and not isinstance(move, NextDeal):
        pack = engine.pack(state.options, engine.players(state))
        if any(f.startswith("min_") for f in getattr(move, "__dataclass_fields__", {})):
            move = fill_template(move, (), bump=rng.choice((0, 0, 1, 2)))
        else:
            move = fill_template(move, rng.sample(pack, len(pack)))
    return move


def wire(move: Any) -> dict[str, Any]:
    out: dict[str, Any] = to_wire(move)
    if isinstance(move, NextDeal):
        out.pop("deck", None)
    return out


def play(
    client: FlaskClient, game: str, env: dict[str, Any], seed: int, max_moves: int = 4000, short: bool = False
) -> Iterator[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]:
    """Yield (envelope before, wire move, envelope after) of a random sealed match played with the
    table key until it is finished (or ``max_moves``)."""
    rng = random.Random(seed)
    table = env["table_key"]
    clock = 0
    for _ in range(max_moves):
        if env["status"] == "finished":
            return
        state = true_state(client, game, env["token"])
        clock = max(clock, getattr(state, "last_flip_at", None) or 0) + rng.randrange(0, 60)
        mv = wire(choose(game, state, rng, clock, short))
        r = client.post(f"/v1/games/{game}/moves", json={"token": env["token"], "move": mv}, headers={"X-Seat-Key": table})
        assert r.status_code == 200, (mv, r.json)
        yield env, mv, r.json
        env = r.json
