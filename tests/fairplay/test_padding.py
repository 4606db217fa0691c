"""Token length is no side channel: a sealed token's length depends only on the game, the player
count and ``seq``, never on hidden cards (issue 13, item 6).

Over random matches of every game and several player counts, each state is sealed as the table
seals it (the state, the match data, the record's moves so far, padded to ``pad_target``), and
equal (game, players, seq) must give equal lengths; so with the record beside the token (the token
holds the state and the record's hash chain, padded by ``pad_target(..., record_in_token=False)``).
Then the same over HTTP in every record mode, for the two cases the issue measured (Yukon;
California Jack with a face-down stock).
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
from service.sealing import Match, Sealer, chain_start, token_chars
from tests.conftest import KEY_NEW
from tests.fairplay.helpers import SHORT, new_match, play
from tests.playouts import random_playout

SEALER = Sealer([KEY_NEW])


@pytest.mark.parametrize("in_token", [True, False], ids=["record in token", "record beside it"])
@pytest.mark.parametrize("game", sorted(ENGINES))
def test_equal_public_facts_give_equal_token_lengths(game: str, in_token: bool) -> None:
    engine, codec = ENGINES[game], SCHEMAS[game]
    counts = sorted({min(engine.PLAYER_COUNTS), max(engine.PLAYER_COUNTS)})
    lengths: dict[tuple[int, int], set[int]] = defaultdict(set)
    unpadded: dict[tuple[int, int], set[int]] = defaultdict(set)
    states = 0
    for players in counts:
        for seed in range(6):
            options = engine.Options(**SHORT[game]) if SHORT[game] and seed % 2 else None
            match_id = secrets.token_urlsafe(16)
            chain = None if in_token else chain_start(match_id, None)
            match = Match(match_id, secrets.token_bytes(32), 1_764_600_000_000 + seed, epoch=secrets.token_urlsafe(16), chain=chain)
            for _, move, after in random_playout(engine, players, seed + 100, options, max_moves=250):
                wire = to_wire(move)
                if isinstance(move, NextDeal):
                    wire.pop("deck", None)
                match = match.with_move(canonical(wire))
                if after.seq % 3:
                    continue  # every third state is plenty
                pad = pad_target(game, players, after.seq, in_token)
                token = SEALER.seal(game, match.match_id, codec.pack(after), match, pad_to=pad)
                assert len(token) == token_chars(pad), "the content outgrew its padding"
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
def test_over_http_two_matches_have_equal_token_lengths_move_by_move(record_app: Flask, game: str, options: dict[str, Any] | None) -> None:
    plain = FlaskClient(record_app, record_app.response_class)
    a = _lengths_by_seq(plain, game, options, 1)
    b = _lengths_by_seq(plain, game, options, 2)
    common = sorted(set(a) & set(b))
    assert len(common) > 20
    assert [a[s] for s in common] == [b[s] for s in common]
