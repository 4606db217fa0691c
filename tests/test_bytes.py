"""One reading of bytes everywhere (issue 32): a request body, a record posted to ``replay`` and a
record verified offline (``card-referee verify``) are UTF-8 JSON text without a byte-order mark,
read by one reader (``service.jsonio.loads``), or refused 400 ``bad_encoding`` online and ``FAILED
(bad_encoding)`` offline.

The same byte streams, built from one genuine signed record (``{"record": …}``, which ``replay``
takes as a body and ``verify`` as a file, a whole envelope being read for its record), go to both,
and both must give the same answer: accepted, or refused with the same code. The streams: UTF-16
and UTF-32 with and without a byte-order mark, a UTF-8 byte-order mark, a surrogate as raw bytes
and as a lone escape (high and low), a surrogate pair as escapes (one character: read, then the
signature no longer holds), an escaped backslash before ``ud800`` (text, not an escape), overlong
forms, invalid and missing continuation bytes, a NUL byte, and members repeated at several depths.
Every online answer is validated against openapi.yaml.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from service import jsonio
from service.verify import main as verify_main
from tests.conftest import KEY_NEW, make_app
from tests.contract import assert_conforms
from tests.fairplay.helpers import SHORT, new_match, play

REPLAY = "/v1/games/schnapsen/replay"


@pytest.fixture(scope="module")
def sealed_app() -> Flask:
    return make_app(SEAL_KEYS=[KEY_NEW])


@pytest.fixture(scope="module")
def genuine(sealed_app: Flask) -> str:
    """The body ``{"record": <a finished sealed Schnapsen match's signed record>}``, as ASCII JSON text."""
    client = sealed_app.test_client()
    env = new_match(client, "schnapsen", None, SHORT["schnapsen"])
    for _, _, after in play(client, "schnapsen", env, seed=3, short=True):
        env = after
    assert env["status"] == "finished" and "record" in env
    return json.dumps({"record": env["record"]})


def _in_match_id(text: str, inserted: bytes) -> bytes:
    """``text`` as UTF-8 with ``inserted`` (raw bytes) at the start of the record's ``match_id`` value."""
    head, sep, tail = text.partition('"match_id": "')
    assert sep
    return head.encode() + sep.encode() + inserted + tail.encode()


def _repeated(text: str, pointer_prefix: str, name: str, value: Any) -> bytes:
    """``text`` with the member ``name`` written twice in the object that holds it (``value`` first)."""
    at = text.index(pointer_prefix) + len(pointer_prefix)
    return (text[:at] + json.dumps(name) + ": " + json.dumps(value) + ", " + text[at:]).encode()


def streams(text: str) -> dict[str, tuple[bytes, tuple[str, str]]]:
    """name → (bytes, the answer both readers must give: ("ok", "") or ("refused", code))."""
    nu = ("refused", "bad_encoding")
    first_move = text.index('"moves": [{') + len('"moves": [{')
    return {
        "utf-8": (text.encode(), ("ok", "")),
        "utf-8 with a byte-order mark": (b"\xef\xbb\xbf" + text.encode(), nu),
        "utf-16 with a byte-order mark": (text.encode("utf-16"), nu),
        "utf-16-le": (text.encode("utf-16-le"), nu),
        "utf-16-be": (text.encode("utf-16-be"), nu),
        "utf-32 with a byte-order mark": (text.encode("utf-32"), nu),
        "utf-32-le": (text.encode("utf-32-le"), nu),
        "utf-32-be": (text.encode("utf-32-be"), nu),
        "a high surrogate as raw bytes": (_in_match_id(text, b"\xed\xa0\x80"), nu),
        "a low surrogate as raw bytes": (_in_match_id(text, b"\xed\xb0\x80"), nu),
        "a lone high surrogate escape": (_in_match_id(text, b"\\ud800"), nu),
        "a lone low surrogate escape": (_in_match_id(text, b"\\udc00"), nu),
        "a lone surrogate escape in a name": (text.replace('"moves": [{', '"moves": [{"\\udbff": 1, ', 1).encode(), nu),
        "a surrogate pair as escapes": (_in_match_id(text, b"\\ud83d\\ude00"), ("refused", "bad_signature")),
        "an escaped backslash before ud800": (_in_match_id(text, b"\\\\ud800"), ("refused", "bad_signature")),
        "an overlong '/' (2 bytes)": (_in_match_id(text, b"\xc0\xaf"), nu),
        "an overlong '/' (3 bytes)": (_in_match_id(text, b"\xe0\x80\xaf"), nu),
        "an overlong NUL": (_in_match_id(text, b"\xc0\x80"), nu),
        "an invalid continuation byte": (_in_match_id(text, b"\xe2\x28\xa1"), nu),
        "a missing continuation byte": (_in_match_id(text, b"\xe2\x82"), nu),
        "a stray continuation byte": (_in_match_id(text, b"\x80"), nu),
        "a byte never in UTF-8": (_in_match_id(text, b"\xff"), nu),
        "a code point past U+10FFFF": (_in_match_id(text, b"\xf4\x90\x80\x80"), nu),
        "a NUL byte": (_in_match_id(text, b"\x00"), nu),
        "a member repeated at the top": (b'{"record": {}, ' + text[1:].encode(), ("refused", "duplicate_member")),
        "a member repeated in the record": (_repeated(text, '{"record": {', "result", {"winner": [0]}), ("refused", "duplicate_member")),
        "a member repeated in a move": (
            (text[:first_move] + '"player": 0, ' + text[first_move:]).encode(), ("refused", "duplicate_member")),
        "a member repeated, escaped": (_repeated(text, '{"record": {', "\u0067ame", "snap").replace(b'"game": "snap"', b'"\\u0067ame": "snap"', 1),
                                       ("refused", "duplicate_member")),
        "a member repeated, in UTF-16": (_repeated(text, '{"record": {', "result", 1).decode().encode("utf-16"), nu),
    }


def _online(app: Flask, data: bytes) -> tuple[str, str]:
    r = app.test_client().post(REPLAY, data=data, content_type="application/json")
    assert_conforms("post", REPLAY, r.status_code, r.mimetype, r.get_data())
    assert r.status_code < 500, r.get_data()
    if r.status_code == 200:
        assert r.json["result_matches"] is True, r.json
        return ("ok", "")
    return ("refused", r.json["code"])


def _offline(tmp_path: Path, keys: Path, data: bytes, capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    path = tmp_path / "record.json"
    path.write_bytes(data)
    status = verify_main([str(path), "--keys", str(keys)])
    out = capsys.readouterr()
    if status == 0:
        assert "record OK" in out.out, out
        return ("ok", "")
    match = re.match(r"FAILED \(([a-z_]+)\)", out.err)
    assert status == 1 and match, (status, out)
    return ("refused", match.group(1))


def test_every_hostile_byte_stream_gets_one_answer_online_and_offline(
    sealed_app: Flask, genuine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keys = tmp_path / "keys.json"
    keys.write_bytes(jsonio.dumps(sealed_app.test_client().get("/v1/keys").json))
    answers = {}
    for name, (data, wanted) in streams(genuine).items():
        online, offline = _online(sealed_app, data), _offline(tmp_path, keys, data, capsys)
        answers[name] = (online, offline)
        assert online == offline == wanted, (name, online, offline, wanted)
    assert len(answers) >= 25


def test_standard_input_is_read_as_bytes_too(
    sealed_app: Flask, genuine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import sys

    keys = tmp_path / "keys.json"
    keys.write_bytes(jsonio.dumps(sealed_app.test_client().get("/v1/keys").json))
    for data, code in ((genuine.encode(), 0), (genuine.encode("utf-16"), 1)):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
        assert verify_main(["-", "--keys", str(keys)]) == code
    assert "FAILED (bad_encoding): the text starts with a UTF-16 byte-order mark" in capsys.readouterr().err


@pytest.mark.parametrize("operation", ["new", "moves", "state", "check"])
def test_every_body_is_read_the_same_way(operation: str) -> None:
    """Not only records: every operation's body (open mode, where the shape check follows the bytes)."""
    client = make_app(SEAL_KEYS=[]).test_client()
    path = f"/v1/games/schnapsen/{operation}"
    for data in ("{}".encode("utf-16"), b"\xef\xbb\xbf{}", b'{"seed": "\\ud800"}', b'{"seed": "\xed\xa0\x80"}', "{}".encode("utf-32-be")):
        for content_type in ("application/json", "application/json; charset=utf-16"):
            r = client.post(path, data=data, content_type=content_type)
            assert_conforms("post", path, r.status_code, r.mimetype, r.get_data())
            assert r.status_code == 400 and r.json["code"] == "bad_encoding" and r.json["errors"] == {"body": ["not UTF-8"]}, (data, r.json)
