"""Every record the service signs adjudicates to its own result, however its match began (issue 21,
item 7).

Sealed mode with fixed decks allowed (``REFEREE_ALLOW_FIXED_DECKS``) and a SQLite ledger: a match
begun by ``new`` (from the secret, a seed, a deck, a deck and a seed) or by ``replay`` (a seed, a
deck, both, a log past a ``next_deal``, a log with an illegal move: the live token continues from
the legal part) is played to the end from the token it was given; its record then holds every
move of the match (as many as the final ``seq``), replays to its result with ``replay`` and with
``service.verify``. A replayed *record* begins no match: its verdict carries no token.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.cards.shuffle import deal_deck
from service.engines import ENGINES
from service.verify import main as verify_main
from tests.conftest import KEY_NEW, make_app
from tests.fairplay.helpers import SHORT, play, true_state

GAMES = {"schnapsen": 5, "slapjack": 2, "seven_up": 1}
SEED = 41


@pytest.fixture(scope="module")
def rigged(tmp_path_factory: pytest.TempPathFactory) -> Flask:
    db = tmp_path_factory.mktemp("ledger") / "l.db"
    return make_app(SEAL_KEYS=[KEY_NEW], ALLOW_FIXED_DECKS=True, LEDGER_URL=f"sqlite:///{db}")


def _deck(game: str) -> list[str]:
    engine = ENGINES[game]
    options = engine.Options(**SHORT[game])
    return [str(c) for c in deal_deck(engine.pack(options, engine.DEFAULT_PLAYERS), 7)]


def _setups(game: str) -> dict[str, dict[str, Any]]:
    return {"secret": {}, "seed": {"seed": SEED}, "deck": {"deck": _deck(game)}, "deck and seed": {"deck": _deck(game), "seed": SEED}}


def _begin_new(client: Any, game: str, setup: dict[str, Any]) -> dict[str, Any]:
    r = client.post(f"/v1/games/{game}/new", json={**setup, "options": SHORT[game]})
    assert r.status_code == 201, r.json
    return r.json  # type: ignore[no-any-return]


def _to_the_end(app: Flask, game: str, env: dict[str, Any], seed: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    plain = FlaskClient(app, app.response_class)
    sent = []
    for _, mv, after in play(plain, game, env, seed, short=True):
        sent.append(mv)
        env = after
    assert env["status"] == "finished", game
    return env, sent


def _adjudicates(app: Flask, game: str, final: dict[str, Any], tmp_path: Path) -> None:
    client = app.test_client()
    record = final["record"]
    assert len(record["moves"]) == true_state(client, game, final["token"]).seq  # every move of the match, none left out
    r = client.post(f"/v1/games/{game}/replay", json={"record": record})
    assert r.status_code == 200, r.json
    v = r.json
    assert v["first_illegal"] is None and v["moves_legal"] == len(record["moves"]), v["first_illegal"]
    assert v["result_matches"] is True and v["final"]["winner"] == final["winner"]
    assert "token" not in v["final"]  # a record's verdict begins no match
    (tmp_path / "record.json").write_text(json.dumps(record))
    (tmp_path / "keys.json").write_text(json.dumps(client.get("/v1/keys").json))
    assert verify_main([str(tmp_path / "record.json"), "--keys", str(tmp_path / "keys.json")]) == 0


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("how", ["secret", "seed", "deck", "deck and seed"])
def test_a_match_begun_by_new(rigged: Flask, game: str, how: str, tmp_path: Path) -> None:
    env = _begin_new(rigged.test_client(), game, _setups(game)[how])
    final, _ = _to_the_end(rigged, game, env, GAMES[game])
    if how != "secret":
        assert final["record"]["setup"] == _setups(game)[how]
    _adjudicates(rigged, game, final, tmp_path)


def _replay(client: Any, game: str, setup: dict[str, Any], moves: list[dict[str, Any]]) -> dict[str, Any]:
    r = client.post(f"/v1/games/{game}/replay", json={**setup, "options": SHORT[game], "moves": moves})
    assert r.status_code == 200, r.json
    assert r.json["final"]["token"] and r.json["final"]["table_key"]  # a live match: it may be continued
    return r.json  # type: ignore[no-any-return]


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("how", ["seed", "deck", "deck and seed"])
def test_a_match_begun_by_replay_and_continued(rigged: Flask, game: str, how: str, tmp_path: Path) -> None:
    """The issue's case: a replay's token continued to the end used to sign a record without the
    replayed moves (``card_not_in_hand`` at move 5 of 18, ``result_matches: false``)."""
    client = rigged.test_client()
    setup = _setups(game)[how]
    _, log = _to_the_end(rigged, game, _begin_new(client, game, setup), GAMES[game])
    verdict = _replay(client, game, setup, log[:5])
    if how != "deck":  # a seed fixes every deal and shuffle: the log replays as it was played
        assert verdict["first_illegal"] is None and verdict["moves_legal"] == 5
    final, _ = _to_the_end(rigged, game, verdict["final"], GAMES[game] + 1)
    assert final["record"]["moves"][: verdict["moves_legal"]] == log[: verdict["moves_legal"]]
    _adjudicates(rigged, game, final, tmp_path)


def test_a_replay_past_a_next_deal_and_one_with_an_illegal_move(rigged: Flask, tmp_path: Path) -> None:
    client = rigged.test_client()
    setup = {"seed": SEED}
    for seed in range(3, 40):  # a Schnapsen match to 2 game points of more than one deal
        _, log = _to_the_end(rigged, "schnapsen", _begin_new(client, "schnapsen", setup), seed)
        deals = [i for i, mv in enumerate(log) if mv["type"] == "next_deal"]
        if deals:
            break
    assert deals, "no Schnapsen match of several deals"
    past = log[: deals[0] + 3]
    verdict = _replay(client, "schnapsen", setup, past)
    assert verdict["first_illegal"] is None and verdict["moves_legal"] == len(past)
    final, _ = _to_the_end(rigged, "schnapsen", verdict["final"], 8)
    _adjudicates(rigged, "schnapsen", final, tmp_path)
    broken = [*log[:4], log[3], *log[4:8]]  # the fourth move twice: its card is no longer in hand
    verdict = _replay(client, "schnapsen", setup, broken)
    assert verdict["first_illegal"] is not None and verdict["first_illegal"]["index"] == 4
    final, _ = _to_the_end(rigged, "schnapsen", verdict["final"], 9)
    assert final["record"]["moves"][:4] == log[:4]
    _adjudicates(rigged, "schnapsen", final, tmp_path)
