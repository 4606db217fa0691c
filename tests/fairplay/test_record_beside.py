"""The record beside the token (issue 24, item 2), in SQLite, in a real ``redis-server`` and in a
real PostgreSQL.

With a ledger the accepted moves are kept in the store, appended in the compare-and-set itself,
and the token carries only their hash chain. A store whose moves were altered, reordered,
truncated, extended or dropped is caught wherever the record is needed (the finished envelope of
``state``; the move that finishes the match, which is then refused before the ledger moves, so the
token sent stays current): 409 ``ledger_lost``, answered against openapi.yaml. A token that is
not current appends nothing; a sealed ``replay`` begins the match with its moves in the store;
a token whose record is in a ledger is refused by a service without one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.ledger import PostgresLedger, RedisLedger, SqliteLedger
from service.records import canonical
from tests.conftest import KEY_NEW, KEY_OLD, make_app
from tests.fairplay.helpers import SHORT, new_match, play, true_state

GAME = "schnapsen"


class Store:
    """The ledger's record of one match, read and rewritten behind the service's back."""

    def __init__(self, app: Flask, match_id: str) -> None:
        self.ledger: Any = app.extensions["referee.referee"].ledger
        self.match_id = match_id

    def moves(self) -> list[str]:
        return self.ledger.moves(self.match_id)  # type: ignore[no-any-return]

    def write(self, moves: list[str]) -> None:
        if isinstance(self.ledger, SqliteLedger):
            with sqlite3.connect(self.ledger._path, isolation_level=None) as db:
                db.execute("DELETE FROM moves WHERE match_id = ?", (self.match_id,))
                db.executemany("INSERT INTO moves (match_id, n, move) VALUES (?, ?, ?)", [(self.match_id, n, m) for n, m in enumerate(moves)])
        elif isinstance(self.ledger, PostgresLedger):
            import psycopg

            with psycopg.connect(self.ledger._url, autocommit=True) as db, db.transaction():
                seq = db.execute("SELECT seq FROM card_referee_ledger WHERE match_id = %s", (self.match_id,)).fetchone()[0]  # type: ignore[index]
                db.execute("DELETE FROM card_referee_moves WHERE match_id = %s", (self.match_id,))
                with db.cursor() as cur:
                    cur.executemany("INSERT INTO card_referee_moves (match_id, n, move) VALUES (%s, %s, %s)",
                                    [(self.match_id, seq - len(moves) + n, m) for n, m in enumerate(moves)])
        else:
            assert isinstance(self.ledger, RedisLedger)
            key = self.ledger._moves_key(self.match_id)
            self.ledger._client.delete(key)
            if moves:
                self.ledger._client.rpush(key, *moves)


def _swap(moves: list[str]) -> list[str]:
    i = next(i for i in range(len(moves) - 1) if moves[i] != moves[i + 1])
    return [*moves[:i], moves[i + 1], moves[i], *moves[i + 2:]]


def _altered(moves: list[str]) -> list[str]:
    out = list(moves)
    out[len(out) // 2] = out[len(out) // 2].replace('"player":0', '"player":1') if '"player":0' in out[len(out) // 2] else \
        out[len(out) // 2].replace('"player":1', '"player":0')
    assert out != moves
    return out


LIES: dict[str, Callable[[list[str]], list[str]]] = {
    "one move altered": _altered,
    "two moves swapped": _swap,
    "last move dropped": lambda m: m[:-1],
    "first move dropped": lambda m: m[1:],
    "a move added": lambda m: [*m, m[-1]],
    "all moves lost": lambda m: [],
    "one byte of whitespace": lambda m: [m[0].replace(",", ", ", 1), *m[1:]],
}


def _finished(app: Flask, seed: int = 1) -> tuple[dict[str, Any], list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]]:
    """A finished short match of at least 4 moves (its deals come from a random secret: a match
    can end after a claim or two, then the next one is played)."""
    plain = FlaskClient(app, app.response_class)
    for attempt in range(20):
        env = new_match(plain, GAME, None, SHORT[GAME])
        steps = list(play(plain, GAME, env, seed + 100 * attempt, short=True))
        assert steps[-1][2]["status"] == "finished"
        if len(steps) >= 4:
            return steps[-1][2], steps
    raise AssertionError("20 matches of fewer than 4 moves")


def _mismatch(r: Any) -> None:
    assert r.status_code == 409 and r.json["code"] == "ledger_lost" and "hash chain" in r.json["detail"], r.json


@pytest.mark.parametrize("lie", sorted(LIES))
def test_a_store_whose_moves_were_changed_is_caught(ledger_app: Flask, lie: str) -> None:
    client = ledger_app.test_client()
    final, steps = _finished(ledger_app)
    match_id = ledger_app.extensions["referee.sealer"].unseal(GAME, final["token"])[0]
    store = Store(ledger_app, match_id)
    honest = store.moves()
    assert len(honest) == len(steps) and len(final["token"]) < 6000  # the moves are in the store, not in the token
    assert client.post(f"/v1/games/{GAME}/state", json={"token": final["token"]}).json["record"] == final["record"]
    store.write(LIES[lie](honest))
    _mismatch(client.post(f"/v1/games/{GAME}/state", json={"token": final["token"]}))
    store.write(honest)
    r = client.post(f"/v1/games/{GAME}/state", json={"token": final["token"]})
    assert r.status_code == 200 and r.json["record"] == final["record"]  # the refusal was the lie, and nothing else


def test_the_finishing_move_on_a_lying_store_is_refused_before_the_ledger_moves(ledger_app: Flask) -> None:
    client = ledger_app.test_client()
    _, steps = _finished(ledger_app, seed=2)
    before, last_move, _ = steps[-1]
    match_id = ledger_app.extensions["referee.sealer"].unseal(GAME, before["token"])[0]
    # the ledger put back to the match as it stood before its last move (what the store held then)
    store = Store(ledger_app, match_id)
    honest = store.moves()
    assert len(honest) == len(steps) >= 4
    ledger = store.ledger
    epoch = ledger.epoch()
    seq = true_state(client, GAME, before["token"]).seq
    ledger.register(match_id, seq, honest[:-1])
    assert ledger.check(epoch, match_id, seq) == "current"
    store.write(_swap(honest[:-1]))
    body = {"token": before["token"], "move": last_move}
    headers = {"X-Seat-Key": steps[0][0]["table_key"]}
    _mismatch(client.post(f"/v1/games/{GAME}/moves", json=body, headers=headers))
    assert ledger.check(epoch, match_id, seq) == "current"  # not moved: the token sent stays current
    store.write(honest[:-1])
    r = client.post(f"/v1/games/{GAME}/moves", json=body, headers=headers)
    assert r.status_code == 200 and r.json["status"] == "finished", r.json
    assert r.json["record"]["moves"] == [m for _, m, _ in steps] and store.moves() == honest


def test_a_token_that_is_not_current_appends_nothing(ledger_app: Flask) -> None:
    client = ledger_app.test_client()
    env = new_match(client, GAME)
    match_id = ledger_app.extensions["referee.sealer"].unseal(GAME, env["token"])[0]
    k1 = env["seat_keys"][1]
    view = client.post(f"/v1/games/{GAME}/state?as=1", json={"token": env["token"]}, headers={"X-Seat-Key": k1}).json
    plays = [m for m in view["legal_moves"] if m["type"] == "play"]
    first = client.post(f"/v1/games/{GAME}/moves", json={"token": env["token"], "move": plays[0]}, headers={"X-Seat-Key": k1})
    assert first.status_code == 200
    again = client.post(f"/v1/games/{GAME}/moves", json={"token": env["token"], "move": plays[1]}, headers={"X-Seat-Key": k1})
    assert again.status_code == 409 and again.json["code"] == "token_superseded"
    assert Store(ledger_app, match_id).moves() == [canonical(plays[0])]  # the winner's move only


def test_a_sealed_replay_begins_with_its_moves_in_the_store(tmp_path: Any) -> None:
    app = make_app(SEAL_KEYS=[KEY_NEW], ALLOW_FIXED_DECKS=True, LEDGER_URL=f"sqlite:///{tmp_path / 'l.db'}")
    plain = FlaskClient(app, app.response_class)
    r = plain.post(f"/v1/games/{GAME}/new", json={"seed": 7, "options": SHORT[GAME]})
    steps = list(play(plain, GAME, r.json, 4, short=True))  # a seed fixes every deal: the same match on every run
    moves = [m for _, m, _ in steps]
    assert steps[-1][2]["status"] == "finished" and len(moves) >= 4
    k = len(moves) // 2
    client = app.test_client()
    replayed = client.post(f"/v1/games/{GAME}/replay", json={"seed": 7, "options": SHORT[GAME], "moves": moves[:k]})
    assert replayed.status_code == 200 and replayed.json["moves_legal"] == k
    final = replayed.json["final"]
    match_id = app.extensions["referee.sealer"].unseal(GAME, final["token"])[0]
    assert len(Store(app, match_id).moves()) == k
    env = final
    for mv in moves[k:]:
        r = plain.post(f"/v1/games/{GAME}/moves", json={"token": env["token"], "move": mv}, headers={"X-Seat-Key": final["table_key"]})
        assert r.status_code == 200, r.json
        env = r.json
    assert env["status"] == "finished" and env["record"]["moves"] == moves and env["record"]["setup"] == {"seed": 7}
    verdict = client.post(f"/v1/games/{GAME}/replay", json={"record": env["record"]})
    assert verdict.status_code == 200 and verdict.json["result_matches"] is True


def test_a_token_whose_record_is_in_a_ledger_needs_one(ledger_app: Flask) -> None:
    env = new_match(ledger_app.test_client(), GAME)
    without = make_app(SEAL_KEYS=[KEY_NEW, KEY_OLD]).test_client()
    r = without.post(f"/v1/games/{GAME}/state", json={"token": env["token"]})
    assert r.status_code == 409 and r.json["code"] == "ledger_lost"
