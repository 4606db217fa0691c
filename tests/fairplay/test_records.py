"""Random sealed matches of every game, played to the end over HTTP, then checked as a tournament
director would: the commitment holds for the revealed secret, every deal recomputed from it equals
the deal played, the record's signature verifies with the JWK Set of ``GET /v1/keys``, the record
replays to the same result (``replay`` and ``python3 -m service.verify``), and a record with one
changed move, seat, option or result is refused. Each in every record mode (``record_app``): the
token carrying the record, and the record kept beside it in a SQLite or Redis ledger, where it must
adjudicate exactly alike: its moves are the moves sent, in order.

The moves of a match go through a plain Flask client (speed); ``new``, the finished envelope,
``/v1/keys`` and every ``replay`` answer go through the contract client (checked against openapi.yaml).
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.cards.shuffle import secret_deal_deck
from service.engines import ENGINES
from service.engines.moves import NextDeal
from service.fairness import commitment
from service.records import check_signature, public_keys
from service.schemas import SCHEMAS
from service.verify import main as verify_main
from tests.fairplay.helpers import SHORT, new_match, play, true_state
from tests.servers import ROOT

SEEDS = {"schnapsen": 1, "seven_up": 1, "california_jack": 3, "yukon": 1, "stukolka": 2, "bragging": 1,
         "slapjack": 1, "snap": 1, "russian_bank": 2}
PLAYERS = {"seven_up": 3, "stukolka": 3, "bragging": 3, "slapjack": 2, "yukon": 4}


def _plain(app: Flask) -> FlaskClient:
    return FlaskClient(app, app.response_class)


@pytest.fixture(scope="module")
def finished(record_app: Flask) -> dict[str, dict[str, Any]]:
    """Per game: the first envelope, the deals played (state before, deal number, state after) and
    the finished envelope."""
    contract, plain = record_app.test_client(), _plain(record_app)
    out = {}
    for game, seed in SEEDS.items():
        engine = ENGINES[game]
        for attempt in range(5):  # each match deals from a fresh secret: random play may loop (Russian Bank's shuttling)
            first = new_match(contract, game, PLAYERS.get(game), SHORT[game] or None)
            deals = []
            last = first
            sent = []
            for before, mv, after in play(plain, game, first, seed + attempt, short=True):
                sent.append(mv)
                if mv["type"] == "next_deal":
                    b = true_state(plain, game, before["token"])
                    deals.append((b, mv, true_state(plain, game, after["token"])))
                last = after
            if last["status"] == "finished":
                break
        assert last["status"] == "finished", game
        final = contract.post(f"/v1/games/{game}/state", json={"token": last["token"]}).json  # contract-checked
        out[game] = {"first": first, "first_state": true_state(plain, game, first["token"]), "deals": deals, "final": final,
                     "engine": engine, "sent": sent}
    return out


@pytest.mark.parametrize("game", sorted(SEEDS))
def test_commitment_and_every_deal_recompute_from_the_revealed_secret(finished: dict[str, Any], game: str) -> None:
    m = finished[game]
    engine, record = m["engine"], m["final"]["record"]
    fair = m["final"]["fairness"]
    assert m["first"]["fairness"] == {"algorithm": fair["algorithm"], "commitment": fair["commitment"]}
    assert "secret" not in m["first"]["fairness"]
    secret = bytes.fromhex(fair["secret"])
    assert commitment(secret, record["match_id"]) == fair["commitment"] == record["fairness"]["commitment"]
    options = SCHEMAS[game].load_options(record["options"])
    players = record["players"]
    pack = engine.pack(options, players)
    kwargs = {"secret": secret} if engine.GAME.uses_secret else {}
    assert engine.new_game(options, players, secret_deal_deck(pack, secret, 1), None, **kwargs) == m["first_state"]._replace(seq=0)
    for before, mv, after in m["deals"]:
        dealt = NextDeal(mv["player"], secret_deal_deck(pack, secret, before.deal_number + 1))
        assert engine.step(before, dealt)[0] == after


@pytest.mark.parametrize("game", sorted(SEEDS))
def test_the_record_holds_the_moves_sent_in_order(finished: dict[str, Any], game: str) -> None:
    """Sent with the table key, a move is recorded as sent (its ``at`` kept, a ``next_deal`` without
    a deck): in every record mode the record's moves are exactly the moves of the match."""
    record = finished[game]["final"]["record"]
    assert record["moves"] == finished[game]["sent"] and len(record["moves"]) == finished[game]["final"]["state"]["seq"]


def test_the_sample_checks_later_deals_too(finished: dict[str, Any]) -> None:
    """Deals come from random secrets, so a match's length varies; the sample as a whole must
    include later deals: Bragging and Stukolka are played over 2 deals each, so at least two
    ``next_deal``s are checked whatever the secrets (Schnapsen to 2 game points may add more)."""
    assert sum(len(m["deals"]) for m in finished.values()) >= 2


@pytest.mark.parametrize("game", sorted(SEEDS))
def test_record_signature_verifies_and_replays_to_the_same_result(record_app: Flask, finished: dict[str, Any], game: str) -> None:
    client = record_app.test_client()
    record = finished[game]["final"]["record"]
    jwks = client.get("/v1/keys").json
    check_signature(record, public_keys(jwks))
    assert record["result"]["winner"] == finished[game]["final"]["winner"]
    r = client.post(f"/v1/games/{game}/replay", json={"record": record})
    assert r.status_code == 200, r.json
    v = r.json
    assert v["result_matches"] is True and v["first_illegal"] is None and v["moves_legal"] == len(record["moves"])
    assert v["final"]["status"] == "finished" and v["final"]["winner"] == record["result"]["winner"]
    check_signature(v, public_keys(jwks))  # the verdict is signed too


def _mutations(record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out = {}
    moved = copy.deepcopy(record)
    i = next(i for i, mv in enumerate(moved["moves"]) if isinstance(mv.get("player"), int))
    mv = moved["moves"][i]
    mv["player"] = (mv["player"] + 1) % record["players"]
    out["seat"] = moved
    changed = copy.deepcopy(record)
    last = changed["moves"][-1]
    key = next(k for k in sorted(last) if k not in ("type", "player"))  if len(last) > 2 else "type"
    last[key] = "x" if not isinstance(last[key], str) else last[key] + "x"
    out["move"] = changed
    dropped = copy.deepcopy(record)
    dropped["moves"].pop(0)
    out["move dropped"] = dropped
    opt = copy.deepcopy(record)
    name = min(opt["options"])
    value = opt["options"][name]
    opt["options"][name] = (value + 1) if isinstance(value, int) and not isinstance(value, bool) else (not value if isinstance(value, bool) else value)
    if opt["options"][name] == value:
        opt["options"]["dealer"] = 1 - opt["options"].get("dealer", 0)
    out["option"] = opt
    res = copy.deepcopy(record)
    res["result"]["totals"] = list(reversed(res["result"]["totals"])) + [0]
    out["result"] = res
    byte = copy.deepcopy(record)
    byte["match_id"] = byte["match_id"][:-1] + ("A" if byte["match_id"][-1] != "A" else "B")
    out["one byte"] = byte
    return out


@pytest.mark.parametrize("game", ["schnapsen", "slapjack", "russian_bank", "bragging"])
def test_a_changed_record_is_refused(record_app: Flask, finished: dict[str, Any], game: str, tmp_path: Path) -> None:
    client = record_app.test_client()
    record = finished[game]["final"]["record"]
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps(client.get("/v1/keys").json))
    for what, bad in _mutations(record).items():
        r = client.post(f"/v1/games/{game}/replay", json={"record": bad})
        assert r.status_code == 422 and r.json["code"] == "bad_signature", (what, r.json)
        path = tmp_path / "bad.json"
        path.write_text(json.dumps(bad))
        assert verify_main([str(path), "--keys", str(keys)]) == 1, what


def test_a_record_with_a_wrong_secret_is_bad_commitment(record_app: Flask, finished: dict[str, Any]) -> None:
    """Even signed by the service's own key, a record whose secret does not open its commitment."""
    from service.referee import Referee

    record = copy.deepcopy(finished["schnapsen"]["final"]["record"])
    record["fairness"]["secret"] = "00" * 32
    fp = Referee.from_config(record_app.extensions["referee.config"])
    assert fp.signer is not None
    resigned = fp.signer.sign(record)
    r = record_app.test_client().post("/v1/games/schnapsen/replay", json={"record": resigned})
    assert r.status_code == 422 and r.json["code"] == "bad_commitment"


def test_a_record_of_another_service_is_bad_signature(finished: dict[str, Any]) -> None:
    from tests.conftest import KEY_OTHER, make_app

    other = make_app(SEAL_KEYS=[KEY_OTHER]).test_client()
    r = other.post("/v1/games/schnapsen/replay", json={"record": finished["schnapsen"]["final"]["record"]})
    assert r.status_code == 422 and r.json["code"] == "bad_signature"


def test_record_replay_is_refused_mixed_with_a_log(record_app: Flask, finished: dict[str, Any]) -> None:
    r = record_app.test_client().post("/v1/games/schnapsen/replay", json={"record": finished["schnapsen"]["final"]["record"], "moves": []})
    assert r.status_code == 400 and r.json["code"] == "invalid_request"


def test_record_replay_works_in_open_mode_with_the_signing_keys(finished: dict[str, Any]) -> None:
    """An open-mode service that publishes the same keys adjudicates the record (no fixed decks needed)."""
    import base64

    from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

    from service.records import b64url, signing_key_from_seal_key
    from tests.conftest import KEY_NEW, make_app

    raw = signing_key_from_seal_key(base64.urlsafe_b64decode(KEY_NEW)).private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    open_app = make_app(SEAL_KEYS=[], SIGNING_KEYS=[b64url(raw)])
    r = open_app.test_client().post("/v1/games/slapjack/replay", json={"record": finished["slapjack"]["final"]["record"]})
    assert r.status_code == 200 and r.json["result_matches"] is True


def test_verify_command_offline(record_app: Flask, finished: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "record.json"
    keys = tmp_path / "keys.json"
    record.write_text(json.dumps(finished["snap"]["final"]["record"]))
    keys.write_text(json.dumps(record_app.test_client().get("/v1/keys").json))
    run = subprocess.run([sys.executable, "-m", "service.verify", str(record), "--keys", str(keys)],
                         check=False, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "record OK" in run.stdout and "commitment holds" in run.stdout
    bad = finished["snap"]["final"]["record"] | {"result": {"totals": [0, 0], "winner": [0]}}
    record.write_text(json.dumps(bad))
    assert verify_main([str(record), "--keys", str(keys)]) == 1
    captured = capsys.readouterr()
    assert "FAILED (bad_signature)" in captured.err
