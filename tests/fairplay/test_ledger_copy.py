"""Moving the ledger to another store (``card-referee ledger-copy``, ``service.ledger.copy_ledger``):
Redis, SQLite and a real PostgreSQL, each copied into another kind.

Sealed matches are played through the app on the source store (some finished, some midway), the
ledger is copied, and an app pointed at the target (the same keys, default lifetimes) must go on
as the first would have: every live match's latest token is current and takes a move, an older
token's other move is 409 ``token_superseded``, a retry of the last move is answered as the first
time, a finished match's record reads as before. The copy keeps each entry's remaining lifetimes
(not a fresh ``ttl``), skips expired entries, keeps an archived match archived, refuses a target of
another epoch (or with matches and no epoch), may be run again (and never takes back a match the
target moved on), and ``--verify`` catches a move accepted on the source during the copy. The
command line never prints a URL or its password.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

import service.ledger as ledger_module
from service.cli import main
from service.ledger import (
    CURRENT,
    Entry,
    LedgerRefused,
    PostgresLedger,
    RedisLedger,
    SqliteLedger,
    copy_ledger,
    open_ledger,
    verify_copy,
)
from service.records import canonical
from tests.conftest import KEY_NEW, KEY_OLD, make_app
from tests.fairplay.helpers import SHORT, choose, new_match, play, true_state, wire

GAME = "schnapsen"
SOURCE_TTL, SOURCE_FINISHED_TTL = 3600, 600  # the target's app keeps the defaults (a week, a day)
TOLERANCE = 5.0  # seconds: a lifetime read on the target against the source's
_FILES = itertools.count(1)
_DBS = itertools.count(1)  # Redis databases for targets (0 is the played source's; a server has 16)


def _fresh_url(kind: str, request: pytest.FixtureRequest, tmp: Path) -> str:
    """A new empty store of ``kind``."""
    if kind == "sqlite":
        return f"sqlite:///{tmp / f'ledger-{next(_FILES)}.db'}"
    if kind == "postgres":
        return str(request.getfixturevalue("postgres_server").fresh("copy"))
    server = request.getfixturevalue("redis_server")
    db = next(_DBS)
    assert db < 16, "more Redis databases than a server has: never the source's 0"
    url = f"redis://127.0.0.1:{server.port}/{db}"
    RedisLedger(url, 60)._client.flushdb()
    return url


def _entries(url: str) -> dict[str, Entry]:
    store: Any = open_ledger(url)
    try:
        return {e.match_id: e for e in store.entries()}
    finally:
        if hasattr(store, "close"):
            store.close()


def _copy(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["ledger-copy", *args])
    out, err = capsys.readouterr()
    return status, out, err


@dataclass
class Played:
    """A source store and the sealed matches played on it: each the (envelope before, move, envelope after) of every move."""

    url: str
    app: Flask
    matches: list[list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]]
    stored: tuple[int, int, int]
    """Matches in the store, their moves, and those finished (short matches set aside included)."""


def _play_matches(app: Flask) -> Played:
    """Two finished short matches of at least 3 moves (shorter ones stay in the store, set aside),
    and three midway (3, 5 and 7 moves in)."""
    client = FlaskClient(app, app.response_class)
    matches, stored, moves, finished = [], 0, 0, 0
    seeds = itertools.count(1)
    while len(matches) < 2:
        steps = list(play(client, GAME, new_match(client, GAME, None, SHORT[GAME]), next(seeds), short=True))
        stored, moves, finished = stored + 1, moves + len(steps), finished + 1
        if len(steps) >= 3:
            matches.append(steps)
    for count in (3, 5, 7):
        steps = list(itertools.islice(play(client, GAME, new_match(client, GAME), next(seeds)), count))
        assert steps[-1][2]["status"] != "finished"
        matches.append(steps)
        stored, moves = stored + 1, moves + count
    return Played("", app, matches, (stored, moves, finished))


@pytest.fixture(scope="module")
def played(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Played]:
    """The source of each kind, played once for the module (tests copy it, never change it)."""
    done: dict[str, Played] = {}

    def get(kind: str) -> Played:
        if kind not in done:
            url = f"sqlite:///{tmp_path_factory.mktemp('source') / 'ledger.db'}" if kind == "sqlite" else (
                str(request.getfixturevalue("postgres_server").fresh("source")) if kind == "postgres"
                else str(request.getfixturevalue("redis_server").url))
            if kind == "redis":
                RedisLedger(url, 60)._client.flushdb()
            app = make_app(SEAL_KEYS=[KEY_NEW, KEY_OLD], LEDGER_URL=url, LEDGER_TTL=SOURCE_TTL, LEDGER_FINISHED_TTL=SOURCE_FINISHED_TTL)
            done[kind] = _play_matches(app)
            done[kind].url = url
        return done[kind]

    return get


def _same(a: dict[str, Any], b: dict[str, Any]) -> None:
    """Two answers that say the same (each token is sealed afresh: its bytes differ)."""
    assert {k: v for k, v in a.items() if k != "token"} == {k: v for k, v in b.items() if k != "token"}


def _another_move(client: FlaskClient, env: dict[str, Any], recorded: dict[str, Any]) -> dict[str, Any] | None:
    """A legal move from ``env``'s position other than the one recorded from it (None: it was forced)."""
    state = true_state(client, GAME, env["token"])
    for seed in range(30):
        mv = wire(choose(GAME, state, random.Random(seed), 0))
        if canonical(mv) != canonical(recorded):
            return mv
    return None


def _post_move(client: FlaskClient, token: str, move: dict[str, Any], table_key: str) -> Any:
    return client.post(f"/v1/games/{GAME}/moves", json={"token": token, "move": move}, headers={"X-Seat-Key": table_key})


def _goes_on(target_app: Flask, source: Played) -> dict[str, tuple[str, str]]:
    """Every check of a match on the target's app; the latest token (and table key) of each live match after one more move."""
    client = target_app.test_client()
    latest = {}
    for steps in source.matches:
        table = steps[0][0]["table_key"]
        before, last_move, final = steps[-1]
        match_id = target_app.extensions["referee.sealer"].unseal(GAME, final["token"])[0]
        # a retry of the last move (its reply lost) is answered as the first time
        again = _post_move(client, before["token"], last_move, table)
        assert again.status_code == 200, again.json
        _same(again.json, final)
        # an older token's other move is refused as superseded
        refused = 0
        for old, recorded, _ in steps[:-1]:
            other = _another_move(client, old, recorded)
            if other is not None:
                r = _post_move(client, old["token"], other, table)
                assert r.status_code == 409 and r.json["code"] == "token_superseded", r.json
                refused += 1
        assert refused, "no older token with a choice of moves"
        if final["status"] == "finished":
            r = client.post(f"/v1/games/{GAME}/state", json={"token": final["token"]})
            assert r.status_code == 200 and r.json["record"] == final["record"], r.json
            continue
        # the latest token is current, and takes a move
        mv = wire(choose(GAME, true_state(client, GAME, final["token"]), random.Random(7), 0))
        r = _post_move(client, final["token"], mv, table)
        assert r.status_code == 200, r.json
        latest[match_id] = (r.json["token"], table)
    return latest


PAIRS = [("redis", "postgres"), ("sqlite", "postgres"), ("postgres", "redis"), ("postgres", "sqlite"), ("sqlite", "redis")]


@pytest.mark.parametrize(("source_kind", "target_kind"), PAIRS, ids=[f"{a}->{b}" for a, b in PAIRS])
def test_every_live_match_goes_on_after_the_ledger_is_copied(
    source_kind: str, target_kind: str, played: Callable[[str], Played], request: pytest.FixtureRequest, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = played(source_kind)
    target = _fresh_url(target_kind, request, tmp_path)
    status, out, err = _copy(capsys, "--from", source.url, "--to", target, "--verify")
    matches, moves, finished = source.stored
    assert status == 0, err
    assert f"copied {matches} matches ({moves} moves)" in out and "skipped 0 expired" in out and "verified" in out, out
    # each entry as the source holds it, with what was left of its lifetimes (not a week again)
    before, after = _entries(source.url), _entries(target)
    assert set(after) == set(before) and len(after) == matches
    for match_id, e in before.items():
        t = after[match_id]
        assert (t.seq, t.finished, t.moves) == (e.seq, e.finished, e.moves)
        assert abs(t.ttl - e.ttl) < TOLERANCE and abs(t.moves_ttl - e.moves_ttl) < TOLERANCE, (e, t)
        assert t.ttl <= SOURCE_TTL and t.moves_ttl <= (SOURCE_FINISHED_TTL if e.finished else SOURCE_TTL)
    assert sum(e.finished for e in after.values()) == finished
    assert open_ledger(target).epoch() == open_ledger(source.url).epoch()
    _goes_on(make_app(SEAL_KEYS=[KEY_NEW, KEY_OLD], LEDGER_URL=target), source)


def test_a_copy_run_again_is_safe_and_never_takes_back_a_match_the_target_moved_on(
    played: Callable[[str], Played], request: pytest.FixtureRequest, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    source = played("sqlite")
    target = _fresh_url("redis", request, tmp_path)
    assert _copy(capsys, "--from", source.url, "--to", target)[0] == 0
    status, out, err = _copy(capsys, "--from", source.url, "--to", target)  # an interrupted copy, run again
    assert status == 0 and "copy run again" in out and f"copied {source.stored[0]} matches" in out, (out, err)
    app = make_app(SEAL_KEYS=[KEY_NEW, KEY_OLD], LEDGER_URL=target)
    latest = _goes_on(app, source)  # the three live matches move on, on the target
    assert len(latest) == 3
    status, out, err = _copy(capsys, "--from", source.url, "--to", target)  # by mistake, once referees used the target
    assert status == 0 and f"copied {source.stored[0] - 3} matches" in out and "left 3 matches" in out, (out, err)
    client = app.test_client()
    ledger: Any = app.extensions["referee.referee"].ledger
    for match_id, (token, table) in latest.items():
        assert ledger.check(ledger.epoch(), match_id, true_state(client, GAME, token).seq) == CURRENT  # not taken back
        r = _post_move(client, token, wire(choose(GAME, true_state(client, GAME, token), random.Random(3), 0)), table)
        assert r.status_code == 200, r.json


def _stores(kind: str, url: str, ttl: int, finished_ttl: int = SOURCE_FINISHED_TTL) -> Any:
    if kind == "sqlite":
        return SqliteLedger(url[len("sqlite:///"):], ttl, finished_ttl)
    if kind == "postgres":
        return PostgresLedger(url, ttl, finished_ttl)
    return RedisLedger(url, ttl, finished_ttl)


EXPIRY = [("sqlite", "redis"), ("postgres", "sqlite"), ("redis", "postgres")]


def test_expired_entries_are_not_copied_and_an_archived_match_stays_archived(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    sources = []
    for kind, target_kind in EXPIRY:
        url = _fresh_url(kind, request, tmp_path)
        short, long = _stores(kind, url, 1), _stores(kind, url, SOURCE_TTL, finished_ttl=1)
        epoch = short.register("gone", 0)  # expires in a second
        long.register("archived", 0)
        assert long.advance(epoch, "archived", 0, '{"a":0}') == CURRENT
        assert long.advance(epoch, "archived", 1, '{"a":1}', finished=True) == CURRENT  # its moves go in a second
        long.register("live", 1, ['{"b":0}'])
        sources.append((kind, url, long, _fresh_url(target_kind, request, tmp_path)))
    time.sleep(1.3)
    for kind, url, source, target_url in sources:
        target = open_ledger(target_url)
        report = copy_ledger(source, target)
        assert (report.matches, report.moves) == (2, 1), (kind, report)
        assert report.expired == (0 if kind == "redis" else 1)  # Redis drops an expired key itself
        epoch = source.epoch()
        assert target.epoch() == epoch
        history = target.history(epoch, "archived", 1)
        assert (history.verdict, history.seq, history.moves, history.archived) == ("superseded", 2, (), True), (kind, history)
        assert target.check(epoch, "gone", 0) == "lost" and target.check(epoch, "live", 1) == CURRENT
        assert target.moves("live") == ['{"b":0}']
        assert verify_copy(source, target, report).ok


@pytest.mark.parametrize("kind", ["sqlite", "redis", "postgres"])
def test_a_target_with_another_epoch_is_refused(kind: str, request: pytest.FixtureRequest, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    source_url = _fresh_url("sqlite", request, tmp_path)
    source = _stores("sqlite", source_url, SOURCE_TTL)
    source.register("ours", 0)
    target_url = _fresh_url(kind, request, tmp_path)
    target = _stores(kind, target_url, SOURCE_TTL)
    theirs = target.register("theirs", 4)
    status, out, err = _copy(capsys, "--from", source_url, "--to", target_url)
    assert status == 1 and out == "" and "refused" in err and "epoch of its own" in err and len(err.strip().splitlines()) == 1, err
    assert target.epoch() == theirs and target.check(theirs, "theirs", 4) == CURRENT and target.check(None, "ours", 0) == "lost"
    with pytest.raises(LedgerRefused):
        copy_ledger(source, target)


def test_a_target_holding_matches_but_no_epoch_is_refused(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    source = _stores("sqlite", _fresh_url("sqlite", request, tmp_path), SOURCE_TTL)
    source.register("ours", 0)
    target = RedisLedger(_fresh_url("redis", request, tmp_path), SOURCE_TTL)
    target._client.set(target._key("left-over"), 3, ex=60)  # a match of a release before epochs
    with pytest.raises(LedgerRefused, match="matches but no epoch"):
        copy_ledger(source, target)
    assert target.epoch() is None


def test_verify_finds_a_move_accepted_on_the_source_during_the_copy(
    request: pytest.FixtureRequest, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    source_url, target_url = _fresh_url("sqlite", request, tmp_path), _fresh_url("redis", request, tmp_path)
    source = _stores("sqlite", source_url, SOURCE_TTL)
    epoch = source.register("quiet", 0, ['{"a":0}'])
    source.register("busy", 2, ['{"a":0}', '{"a":1}'])
    real = ledger_module.copy_ledger

    def copy_then_a_move(*args: Any, **kwargs: Any) -> Any:  # a referee left running accepts a move once "busy" was copied
        report = real(*args, **kwargs)
        assert source.advance(epoch, "busy", 2, '{"a":2}') == CURRENT
        return report

    monkeypatch.setattr(ledger_module, "copy_ledger", copy_then_a_move)
    status, out, err = _copy(capsys, "--from", source_url, "--to", target_url, "--verify")
    assert status == 3 and "1 match moved on at the source" in err and "0 not held" in err, (out, err)
    monkeypatch.undo()
    status, out, err = _copy(capsys, "--from", source_url, "--to", target_url, "--verify")  # stopped, then run again
    assert status == 0 and "verified" in out, (out, err)
    target = open_ledger(target_url)
    assert target.check(epoch, "busy", 3) == CURRENT and target.moves("busy") == ['{"a":0}', '{"a":1}', '{"a":2}']
    # a target that does not hold a match as copied is found too
    report = copy_ledger(source, target)
    target.write([Entry("quiet", 0, 60, False, 60, ('{"x":0}',))])
    found = verify_copy(source, target, report)
    assert found.not_held == ["quiet"] and found.moved_on == []


def test_the_command_never_prints_a_url_or_its_password(request: pytest.FixtureRequest, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    source_url = _fresh_url("sqlite", request, tmp_path)
    _stores("sqlite", source_url, SOURCE_TTL).register("m", 0, ['{"a":0}'])
    target_url = _fresh_url("postgres", request, tmp_path).replace("postgres@", "postgres:Sekr1tPw@")  # trust: any password works
    (tmp_path / "to").write_text(target_url + "\n")
    status, out, err = _copy(capsys, "--from", source_url, "--to-file", str(tmp_path / "to"))
    assert status == 0 and "copied 1 match (1 move) from sqlite to postgresql" in out, err
    server = request.getfixturevalue("redis_server")
    wrong = f"redis://nobody:Sekr1tPw@127.0.0.1:{server.port}/9"  # this Redis has no such user: AUTH fails
    failures = [
        ["--from", source_url, "--to", wrong],
        ["--from", wrong, "--to", target_url],
        ["--from", source_url, "--to", "redis://:Sekr1tPw@127.0.0.1:1/0"],  # nothing listens
        ["--from", source_url, wrong],  # a URL without its option
        ["--from", wrong],
        ["--form", wrong, "--to", target_url],
        ["--from", source_url, "--to", target_url.replace("postgresql://", "mysql://")],
    ]
    for args in failures:
        status, out, err = _copy(capsys, *args)
        assert status in (1, 2) and out == "", (args, out, err)
        assert "Sekr1tPw" not in err and "nobody" not in err, err  # a host and port may be named
        assert not any(url in err or url.split("@")[-1] in err for url in args if "@" in url), err
        assert len(err.strip().splitlines()) <= 2  # one line (and the usage line for a usage error)
    status, _, err = _copy(capsys, "--from", wrong, "--to", target_url)
    assert err.startswith("card-referee ledger-copy: --from: the store cannot be reached or read:"), err
    status, out, err = _copy(capsys, "--help")
    assert status == 0 and "--from-file" in out and "scale them to 0" in out.replace("\n", " ")


def test_a_missing_sqlite_source_is_refused_not_created(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = _copy(capsys, "--from", f"sqlite:///{tmp_path / 'nope.db'}", "--to", f"sqlite:///{tmp_path / 'new.db'}")
    assert status == 1 and "no SQLite file" in err and not (tmp_path / "nope.db").exists()
    open_ledger(f"sqlite:///{tmp_path / 'empty.db'}")  # a ledger file that never held a match
    status, _, err = _copy(capsys, "--from", f"sqlite:///{tmp_path / 'empty.db'}", "--to", f"sqlite:///{tmp_path / 'new.db'}")
    assert status == 1 and "nothing to copy" in err
