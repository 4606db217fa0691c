"""Rotating a seal key out keeps the records it signed verifying (issue 21, item 6).

The rotation docs/deploy.md describes: a record is signed under seal key A; the service then runs
with ``B,A`` (both keys published), and finally with ``B`` alone and A's public key, read from
``GET /v1/keys`` as docs/deploy.md says, in ``REFEREE_RETIRED_SIGNING_KEYS``. The record still verifies
online (``replay`` with the record) and offline (``python3 -m service.verify`` with the keys the
rotated service publishes); new records are signed by B only. Without the retired key the record is
refused, which is what retiring it explicitly means.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cryptography.fernet import Fernet
from flask import Flask
from flask.testing import FlaskClient

from service.config import Config, ConfigError
from tests.conftest import make_app
from tests.fairplay.helpers import SHORT, new_match, play
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
