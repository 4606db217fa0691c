"""Token length is no side channel: a sealed token's length depends only on the game, the player
count and ``seq``, never on hidden cards (issue 13, item 6).

Over random matches of every game and several player counts, each state is sealed as the table
seals it (the state, the match data, the record's moves so far, padded to ``pad_target``), and
equal (game, players, seq) must give equal lengths. Then the same over HTTP, for the two cases the
issue measured (Yukon; California Jack with a face-down stock).
"""

from __future__ import annotations

import secrets
from collections import defaultdict
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.engines import ENGINES
from service.engines.moves import NextDeal
from service.records import canonical
from service.referee import pad_target
from service.schemas import SCHEMAS
from service.schemas.common import to_wire
from service.sealing import Match, Sealer
from tests.conftest import KEY_NEW
from tests.fairplay.helpers import SHORT, new_match, play
from tests.playouts import random_playout

SEALER = Sealer([KEY_NEW])


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_equal_public_facts_give_equal_token_lengths(game: str) -> None:
    engine, codec = ENGINES[game], SCHEMAS[game]
    counts = sorted({min(engine.PLAYER_COUNTS), max(engine.PLAYER_COUNTS)})
    lengths: dict[tuple[int, int], set[int]] = defaultdict(set)
    unpadded: dict[tuple[int, int], set[int]] = defaultdict(set)
    states = 0
    for players in counts:
        for seed in range(6):
            options = engine.Options(**SHORT[game]) if SHORT[game] and seed % 2 else None
            match = Match(secrets.token_urlsafe(16), secrets.token_bytes(32), 1_764_600_000_000 + seed)
            for _, move, after in random_playout(engine, players, seed + 100, options, max_moves=250):
                wire = to_wire(move)
                if isinstance(move, NextDeal):
                    wire.pop("deck", None)
                match = match.with_move(canonical(wire))
                if after.seq % 3:
                    continue  # every third state is plenty
                token = SEALER.seal(game, match.match_id, codec.pack(after), match, pad_to=pad_target(game, players, after.seq))
                lengths[(players, after.seq)].add(len(token))
                unpadded[(players, after.seq)].add(len(SEALER.seal(game, match.match_id, codec.pack(after), match)))
                states += 1
    assert states > 30
    differ = {k: v for k, v in lengths.items() if len(v) > 1}
    assert not differ, f"{game}: token lengths differ at equal (players, seq): {sorted(differ.items())[:5]}"
    if game in ("yukon", "california_jack", "russian_bank", "snap"):  # the side channel the padding closes
        assert any(len(v) > 1 for v in unpadded.values())


def _lengths_by_seq(client: FlaskClient, game: str, options: dict[str, Any] | None, seed: int) -> dict[int, int]:
    env = new_match(client, game, None, options)
    out = {0: len(env["token"])}
    for i, (_, _, after) in enumerate(play(client, game, env, seed, max_moves=40)):
        out[i + 1] = len(after["token"])
    return out


@pytest.mark.parametrize(("game", "options"), [
    ("yukon", None),
    ("california_jack", {"stock_face_up": False}),
])
def test_over_http_two_matches_have_equal_token_lengths_move_by_move(fair_app: Flask, game: str, options: dict[str, Any] | None) -> None:
    plain = FlaskClient(fair_app, fair_app.response_class)
    a = _lengths_by_seq(plain, game, options, 1)
    b = _lengths_by_seq(plain, game, options, 2)
    common = sorted(set(a) & set(b))
    assert len(common) > 20
    assert [a[s] for s in common] == [b[s] for s in common]
