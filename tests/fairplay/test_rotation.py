"""Rotating a seal key: two rollouts, then a third to drop the old key; and the records the old key
signed keep verifying once it is dropped (issue 21, item 6).

The two-phase procedure (k8s/secret.example.yaml, docs/deploy.md): phase 1 every pod accepts the new
key while still sealing with the old (``old,new``); phase 2 every pod seals with the new
(``new,old``); last, once no match begun before phase 2 is live, ``new`` alone with the old signing
key retired. Whole sealed matches are played across pods of every step at once, sharing one SQLite
ledger, each move sent to a pod chosen at random among those that coexist during the step.

The rotation docs/deploy.md describes: a record is signed under seal key A; the service then runs
with ``B,A`` (both keys published), and finally with ``B`` alone and A's public key, read from
``GET /v1/keys`` as docs/deploy.md says, in ``REFEREE_RETIRED_SIGNING_KEYS``. The record still verifies
online (``replay`` with the record) and offline (``python3 -m service.verify`` with the keys the
rotated service publishes); new records are signed by B only. Without the retired key the record is
refused, which is what retiring it explicitly means.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cryptography.fernet import Fernet
from flask import Flask
from flask.testing import FlaskClient

from service.config import Config, ConfigError
from service.schemas import SCHEMAS
from service.sealing import Sealer
from tests.conftest import make_app
from tests.fairplay.helpers import SHORT, choose, new_match, play, wire
from tests.servers import ROOT

KEY_A = Fernet.generate_key().decode()
KEY_B = Fernet.generate_key().decode()


def _finished_record(app: Flask, game: str = "schnapsen", seed: int = 3) -> dict[str, Any]:
    plain = FlaskClient(app, app.response_class)
    env = new_match(app.test_client(), game, None, SHORT[game] or None)
    for _, _, after in play(plain, game, env, seed, short=True):
        env = after
    assert env["status"] == "finished"
    return env["record"]  # type: ignore[no-any-return]


def _verify_offline(record: dict[str, Any], jwks: dict[str, Any], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    (tmp_path / "record.json").write_text(json.dumps(record))
    (tmp_path / "keys.json").write_text(json.dumps(jwks))
    return subprocess.run([sys.executable, "-m", "service.verify", str(tmp_path / "record.json"), "--keys", str(tmp_path / "keys.json")],
                          check=False, cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_a_record_keeps_verifying_after_its_seal_key_is_rotated_out(tmp_path: Path) -> None:
    before = make_app(SEAL_KEYS=[KEY_A])
    record = _finished_record(before)
    kid_a = record["key_id"]
    # step 1 of the rotation: B,A; both signing keys are published, B signs
    both = make_app(SEAL_KEYS=[KEY_B, KEY_A]).test_client()
    keys = both.get("/v1/keys").json["keys"]
    assert [k["kid"] for k in keys][1] == kid_a and "retired" not in keys[1]
    old_x = next(k["x"] for k in keys if k["kid"] == record["key_id"])  # docs/deploy.md: the x of the old key's entry
    # step 2: B alone, A's public key retired
    after = make_app(SEAL_KEYS=[KEY_B], RETIRED_SIGNING_KEYS=old_x)
    client = after.test_client()
    jwks = client.get("/v1/keys").json
    assert [k.get("retired", False) for k in jwks["keys"]] == [False, True] and jwks["keys"][1]["kid"] == kid_a
    r = client.post("/v1/games/schnapsen/replay", json={"record": record})
    assert r.status_code == 200, r.json
    assert r.json["result_matches"] is True and r.json["first_illegal"] is None
    assert r.json["key_id"] == jwks["keys"][0]["kid"] != kid_a  # the verdict is signed by B, never by the retired key
    run = _verify_offline(record, jwks, tmp_path)
    assert run.returncode == 0 and "record OK" in run.stdout, run.stderr
    fresh = _finished_record(after, "seven_up", 1)
    assert fresh["key_id"] == jwks["keys"][0]["kid"]  # new records: B
    # the finding: without the retired key the rotation revokes the record
    revoked = make_app(SEAL_KEYS=[KEY_B]).test_client()
    r = revoked.post("/v1/games/schnapsen/replay", json={"record": record})
    assert r.status_code == 422 and r.json["code"] == "bad_signature"
    assert _verify_offline(record, revoked.get("/v1/keys").json, tmp_path).returncode == 1


def test_retired_keys_with_explicit_signing_keys_and_open_mode() -> None:
    """``REFEREE_SIGNING_KEYS`` rotated the same way; an open-mode adjudicator publishes retired keys too."""
    import base64

    from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

    from service.records import b64url, public_key_text, signing_key_from_seal_key

    private = signing_key_from_seal_key(base64.urlsafe_b64decode(KEY_A))
    raw = b64url(private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption()))
    record = _finished_record(make_app(SEAL_KEYS=[KEY_B], SIGNING_KEYS=[raw]), "slapjack", 1)
    other = make_app(SEAL_KEYS=[], SIGNING_KEYS=[b64url(bytes(range(32)))], RETIRED_SIGNING_KEYS=[public_key_text(private)])
    r = other.test_client().post("/v1/games/slapjack/replay", json={"record": record})
    assert r.status_code == 200 and r.json["result_matches"] is True


def test_a_retired_key_that_is_still_active_is_listed_once() -> None:
    keys = make_app(SEAL_KEYS=[KEY_A]).test_client().get("/v1/keys").json["keys"]
    again = make_app(SEAL_KEYS=[KEY_A], RETIRED_SIGNING_KEYS=keys[0]["x"]).test_client().get("/v1/keys").json["keys"]
    assert again == keys


@pytest.mark.parametrize(
    "bad", ["x", "AAAA", "not base64!", "bMjEwupg9Xqx9xr4_uheVH1EgMWbiAE3t5gB7HFEij4=A"],  # the last: a Fernet key, and one more letter
    ids=["one-letter", "three-bytes", "not-base64", "fernet-key-plus-a-letter"],  # the same on every xdist worker
)
def test_a_retired_key_that_is_not_a_public_key_stops_the_service(bad: str) -> None:
    with pytest.raises(ConfigError, match="REFEREE_RETIRED_SIGNING_KEYS"):
        Config.from_env({}, {"SEAL_KEYS": [KEY_A], "RETIRED_SIGNING_KEYS": bad})


# --- the two-phase rotation ----------------------------------------------------------------------

GAMES = ("schnapsen", "seven_up", "california_jack", "bragging")
HOST = Sealer([KEY_B, KEY_A])  # the test reads the true state of any token, as a host holding both keys would


class Pods:
    """The apps of each rotation step, sharing one ledger: A = the old key, B = the new."""

    def __init__(self, tmp_path: Path) -> None:
        url = f"sqlite:///{tmp_path / 'ledger.db'}"
        self.old = make_app(SEAL_KEYS=[KEY_A], LEDGER_URL=url)
        self.phase1 = make_app(SEAL_KEYS=[KEY_A, KEY_B], LEDGER_URL=url)
        self.phase2 = make_app(SEAL_KEYS=[KEY_B, KEY_A], LEDGER_URL=url)
        retired = self.phase2.test_client().get("/v1/keys").json["keys"][1]["x"]  # docs/deploy.md: read in phase 2
        self.dropped = make_app(SEAL_KEYS=[KEY_B], RETIRED_SIGNING_KEYS=retired, LEDGER_URL=url)
        # (name, the pods that answer together); a match begun before "phase 2" ends before "drop rollout"
        self.steps: list[tuple[str, list[Flask]]] = [
            ("old", [self.old]),
            ("phase 1 rollout", [self.old, self.phase1]),
            ("phase 1", [self.phase1]),
            ("phase 2 rollout", [self.phase1, self.phase2]),
            ("phase 2", [self.phase2]),
            ("drop rollout", [self.phase2, self.dropped]),
            ("dropped", [self.dropped]),
        ]


class Game:
    """One sealed match: its envelope, keys and the moves it took."""

    def __init__(self, game: str, env: dict[str, Any], seed: int) -> None:
        self.game, self.env, self.rng = game, env, random.Random(seed)
        self.seat_keys: list[str] = env["seat_keys"]
        self.table_key: str = env["table_key"]
        self.moves = 0

    @property
    def finished(self) -> bool:
        return self.env["status"] == "finished"

    def move(self, pod: Flask) -> None:
        """One move, sent to ``pod`` with the mover's own seat key (the table key for a move of no seat)."""
        _, packed = HOST.unseal(self.game, self.env["token"])
        mv = wire(choose(self.game, SCHEMAS[self.game].unpack(packed), self.rng, 0))
        player = mv.get("player")
        key = self.seat_keys[player] if isinstance(player, int) else self.table_key
        r = pod.test_client().post(f"/v1/games/{self.game}/moves", json={"token": self.env["token"], "move": mv},
                                   headers={"X-Seat-Key": key})
        assert r.status_code == 200, (self.game, self.moves, mv, r.json)
        self.env, self.moves = r.json, self.moves + 1


def _keys_of(pod: Flask) -> set[str]:
    return {k["kid"] for k in pod.test_client().get("/v1/keys").json["keys"]}


def test_two_phase_rotation_refuses_nothing_across_pods_of_both_phases(tmp_path: Path) -> None:
    pods = Pods(tmp_path)
    rng = random.Random(2024)
    live: list[tuple[Game, int]] = []  # (match, the index of the last step it may play in)
    records: list[dict[str, Any]] = []
    last_before_drop = 4  # "phase 2": a match begun while a pod still sealed with A ends here
    for index, (name, answering) in enumerate(pods.steps):
        if index <= last_before_drop:  # two new matches per step, on any pod of it
            for game in rng.sample(GAMES, 2):
                ends = last_before_drop if index < last_before_drop else len(pods.steps) - 1
                env = new_match(rng.choice(answering).test_client(), game, None, SHORT[game] or None)
                live.append((Game(game, env, rng.randrange(10**6)), ends))
        for match, ends in live:
            for _ in range(8 if index < ends else 10_000):  # a few moves per step; to the end in its last step
                if match.finished:
                    break
                match.move(rng.choice(answering))
            if match.finished and "record" in match.env:
                record = match.env.pop("record")
                for pod in answering:  # whichever pod a client asks for the keys, the record's key is there
                    assert record["key_id"] in _keys_of(pod), (name, match.game)
                records.append(record)
        assert all(m.finished for m, ends in live if ends == index), name
        live = [(m, ends) for m, ends in live if not m.finished]
    assert not live and len(records) == 10
    for record in records:  # every record verifies where the rotation ends: B alone, A's signing key retired
        r = pods.dropped.test_client().post(f"/v1/games/{record['game']}/replay", json={"record": record})
        assert r.status_code == 200 and r.json["result_matches"] is True, r.json
    assert len({r["key_id"] for r in records}) == 2  # signed under A and under B


def test_one_rollout_to_new_old_is_refused_by_the_pods_not_yet_restarted(tmp_path: Path) -> None:
    """Why phase 1 exists: during a single rollout straight to ``B,A``, a pod still on ``A`` cannot
    open what the new pods seal."""
    pods = Pods(tmp_path)
    env = new_match(pods.phase2.test_client(), "schnapsen", None, SHORT["schnapsen"])
    r = pods.old.test_client().post("/v1/games/schnapsen/state", json={"token": env["token"]}, headers={"X-Seat-Key": env["table_key"]})
    assert r.status_code == 403 and r.json["code"] == "bad_state_token"


def test_a_match_begun_under_the_old_key_keeps_seat_keys_of_it_to_its_end(tmp_path: Path) -> None:
    """Why dropping A waits for every match begun before phase 2 to end, not only for its tokens:
    seat keys are handed out once, at ``new``, under the key that sealed then. A match begun under A
    and moved on under B has a token sealed with B, but its seat keys are A's: B alone refuses them."""
    pods = Pods(tmp_path)
    match = Game("schnapsen", new_match(pods.phase1.test_client(), "schnapsen", None, SHORT["schnapsen"]), 5)
    match.move(pods.phase2)  # sealed with B from now on
    _, packed = HOST.unseal("schnapsen", match.env["token"])
    mv = wire(choose("schnapsen", SCHEMAS["schnapsen"].unpack(packed), match.rng, 0))
    body = {"token": match.env["token"], "move": mv}
    r = pods.dropped.test_client().post("/v1/games/schnapsen/moves", json=body, headers={"X-Seat-Key": match.table_key})
    assert r.status_code == 403 and r.json["code"] == "bad_seat_key"
    r = pods.phase2.test_client().post("/v1/games/schnapsen/moves", json=body, headers={"X-Seat-Key": match.table_key})
    assert r.status_code == 200  # the same move, at a pod that still holds A
