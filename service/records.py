"""Signed match records and verdicts: canonical JSON, Ed25519 keys and their JWK Set, and the
adjudication of a record (docs/fair-play.md). No Flask: ``service.verify`` runs it offline.

A record is the finished match as data: game, rules version, players, options, match id,
``fairness`` (algorithm, commitment, secret), ``setup`` when the operator let a client fix the first
deal, every accepted move in order as it was applied, the ``result`` (totals, winner), and
``key_id`` + ``signature``: Ed25519 over the UTF-8 bytes of the canonical JSON of the record without
its ``signature`` member. "As applied" means the move as the engine received it: a timestamp the
service stamped is in it, a deck the service dealt is not (it is recomputed from the secret).

Canonical JSON is RFC 8785 for the values a record holds: object members sorted by their names'
UTF-16 code units, no insignificant whitespace, strings with only the escapes JSON requires,
integers in plain decimal (|n| ≤ 2^53 − 1); a float is refused.

``canonical`` writes a value made of JSON's own types (dict, list, tuple, str, int in range, bool,
None) with orjson and keeps that text when it is ASCII without a backslash: then every name and
string is printable ASCII needing no escape, where orjson's sorted keys, escapes and integers are
RFC 8785's. Anything else (a non-ASCII or escaped character, another type, an integer out of
range) is written by the reference writer, ``_canon``; ``tests/fairplay/test_canonical_fast.py``
compares the two over random values and the corner cases.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import orjson
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from .engines import ENGINES
from .engines.base import RulesError
from .fairness import ALGORITHM, commitment_holds
from .replay import begin_sealed, replay_log, sealed_deal
from .schemas import SCHEMAS
from .schemas.common import parse_deck, to_wire
from .sealing import derive_key

__all__ = [
    "RECORD_FORMAT",
    "VERDICT_FORMAT",
    "RecordError",
    "Signer",
    "Verdict",
    "adjudicate",
    "b64url",
    "canonical",
    "canonical_reference",
    "check_signature",
    "parse_public_key",
    "public_key_text",
    "public_keys",
    "signing_key_from_seal_key",
]

RECORD_FORMAT: Final = "card-referee-record/1"
VERDICT_FORMAT: Final = "card-referee-verdict/1"
MAX_SAFE: Final = 2**53 - 1


class RecordError(Exception):
    """A record that cannot be adjudicated: ``code`` is ``bad_signature``, ``bad_commitment`` or
    ``invalid_record`` (the shape); ``detail`` says why."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


# --- canonical JSON -------------------------------------------------------------------------


def _canon(value: Any, out: list[str]) -> None:
    if value is None or value is True or value is False:
        out.append("null" if value is None else ("true" if value else "false"))
    elif type(value) is int:
        if not -MAX_SAFE <= value <= MAX_SAFE:
            raise ValueError(f"integer {value} is outside ±(2^53 - 1)")
        out.append(str(value))
    elif isinstance(value, str):
        out.append(json.dumps(value, ensure_ascii=False))
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _canon(item, out)
        out.append("]")
    elif isinstance(value, Mapping):
        out.append("{")
        names = list(value)
        if not all(isinstance(n, str) for n in names):
            raise ValueError("object member names must be strings")
        for i, name in enumerate(sorted(names, key=lambda n: n.encode("utf-16-be"))):
            if i:
                out.append(",")
            out.append(json.dumps(name, ensure_ascii=False))
            out.append(":")
            _canon(value[name], out)
        out.append("}")
    else:
        raise ValueError(f"{type(value).__name__} has no canonical JSON form here")


_CONTAINERS: Final = (dict, list, tuple)


def _json_types_only(value: Any) -> bool:
    """Whether ``value`` holds nothing but dicts with string names, lists, tuples, strings, bools,
    None and integers within ±(2^53 − 1), by exact type (iterative: no recursion limit)."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            for name in item:
                if type(name) is not str:
                    return False
            item = item.values()
        elif kind is not list and kind is not tuple:
            if kind is int:
                if not -MAX_SAFE <= item <= MAX_SAFE:
                    return False
            elif kind is not str and item is not None and kind is not bool:
                return False
            continue
        for child in item:
            kind = type(child)
            if kind is dict or kind is list or kind is tuple:
                stack.append(child)
            elif kind is int:
                if not -MAX_SAFE <= child <= MAX_SAFE:
                    return False
            elif kind is not str and child is not None and kind is not bool:
                return False
    return True


def canonical(value: Any) -> str:
    """The canonical JSON text of ``value`` (see the module docstring)."""
    if _json_types_only(value):
        try:
            text = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
        except orjson.JSONEncodeError:  # nested deeper than orjson writes
            pass
        else:
            if text.isascii() and b"\\" not in text:  # printable ASCII only, nothing escaped: RFC 8785's text
                return text.decode("ascii")
    out: list[str] = []
    _canon(value, out)
    return "".join(out)


def canonical_reference(value: Any) -> str:
    """``canonical`` by the reference writer alone (what the fast path is checked against)."""
    out: list[str] = []
    _canon(value, out)
    return "".join(out)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64url(text: str) -> bytes:
    if not isinstance(text, str) or not text.isascii():
        raise ValueError("not base64url")
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if b64url(raw) != text:
        raise ValueError("not canonical base64url")
    return raw


# --- keys -----------------------------------------------------------------------------------


def signing_key_from_seal_key(raw_seal_key: bytes) -> Ed25519PrivateKey:
    """The Ed25519 key every instance sharing ``raw_seal_key`` derives alike (HKDF-SHA256,
    ``sealing.derive_key``'s ``"signing"`` purpose, whose label is the one records were first signed
    under: the published keys stay the same)."""
    seed = derive_key(raw_seal_key, "signing")
    return Ed25519PrivateKey.from_private_bytes(seed)


def parse_signing_key(text: str) -> Ed25519PrivateKey:
    """An Ed25519 private key from its 32 raw bytes in base64url (``REFEREE_SIGNING_KEYS``)."""
    raw = _unb64url(text.strip())
    if len(raw) != 32:
        raise ValueError("an Ed25519 private key is 32 bytes")
    return Ed25519PrivateKey.from_private_bytes(raw)


def parse_public_key(text: str) -> Ed25519PublicKey:
    """An Ed25519 public key from its 32 raw bytes in base64url, a JWK's ``x``
    (``REFEREE_RETIRED_SIGNING_KEYS``)."""
    raw = _unb64url(text.strip())
    if len(raw) != 32:
        raise ValueError("an Ed25519 public key is 32 bytes")
    return Ed25519PublicKey.from_public_bytes(raw)


def public_key_text(key: Ed25519PrivateKey | Ed25519PublicKey) -> str:
    """The base64url public key (a JWK's ``x``) of a signing key."""
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return b64url(_raw_public(public))


def _raw_public(key: Ed25519PublicKey) -> bytes:
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    return key.public_bytes(Encoding.Raw, PublicFormat.Raw)


def jwk(key: Ed25519PublicKey) -> dict[str, str]:
    """The public JWK (RFC 8037) of ``key``; ``kid`` is its RFC 7638 thumbprint."""
    x = b64url(_raw_public(key))
    thumb = b64url(hashlib.sha256(canonical({"crv": "Ed25519", "kty": "OKP", "x": x}).encode()).digest())
    return {"kty": "OKP", "crv": "Ed25519", "x": x, "kid": thumb, "alg": "EdDSA", "use": "sig"}


class Signer:
    """Signs records and verdicts with the newest key; publishes every key as a JWK Set.

    ``retired``: public keys of signing keys taken out of service (a seal key rotated out, an
    entry dropped from ``REFEREE_SIGNING_KEYS``). They are published with ``"retired": true`` and
    keep verifying what they signed; they never sign."""

    def __init__(self, keys: Sequence[Ed25519PrivateKey], retired: Sequence[Ed25519PublicKey] = ()) -> None:
        if not keys:
            raise ValueError("signing needs at least one key")
        self._key = keys[0]
        self._jwks: list[dict[str, Any]] = [jwk(k.public_key()) for k in keys]
        self.key_id = self._jwks[0]["kid"]
        active = {k["kid"] for k in self._jwks}
        for key in retired:
            entry: dict[str, Any] = jwk(key)
            if entry["kid"] not in active:
                active.add(entry["kid"])
                self._jwks.append({**entry, "retired": True})

    def sign(self, doc: Mapping[str, Any]) -> dict[str, Any]:
        """``doc`` with ``key_id`` and ``signature`` (base64url) over its canonical JSON."""
        out = {k: v for k, v in doc.items() if k != "signature"}
        out["key_id"] = self.key_id
        out["signature"] = b64url(self._key.sign(canonical(out).encode("utf-8")))
        return out

    def jwks(self) -> dict[str, Any]:
        return {"keys": [dict(k) for k in self._jwks]}


def public_keys(jwks: Any) -> dict[str, Ed25519PublicKey]:
    """kid → public key of the Ed25519 keys of a JWK Set (others are skipped)."""
    keys: dict[str, Ed25519PublicKey] = {}
    entries = jwks.get("keys") if isinstance(jwks, Mapping) else None
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, Mapping) or entry.get("kty") != "OKP" or entry.get("crv") != "Ed25519":
            continue
        try:
            key = Ed25519PublicKey.from_public_bytes(_unb64url(entry.get("x", "")))
        except ValueError:
            continue
        kid = entry.get("kid")
        keys[kid if isinstance(kid, str) else jwk(key)["kid"]] = key
    return keys


def check_signature(doc: Any, keys: Mapping[str, Ed25519PublicKey]) -> None:
    """Raise RecordError("bad_signature") unless ``doc`` is signed by one of ``keys``."""
    if not isinstance(doc, Mapping):
        raise RecordError("bad_signature", "The document is not a JSON object.")
    kid, sig = doc.get("key_id"), doc.get("signature")
    if not isinstance(kid, str) or not isinstance(sig, str):
        raise RecordError("bad_signature", "The document has no key_id and signature.")
    key = keys.get(kid)
    if key is None:
        raise RecordError("bad_signature", f"key_id {kid[:64]!r} is not one of the published keys.")
    try:
        body = canonical({k: v for k, v in doc.items() if k != "signature"}).encode("utf-8")
        key.verify(_unb64url(sig), body)
    except (InvalidSignature, ValueError):
        raise RecordError("bad_signature", "The signature does not match the document: it was changed or not signed by this key.") from None


# --- adjudication ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Verdict:
    """A record replayed: the final state and its last events, how far the moves were legal, and
    whether the replayed result equals the recorded one."""

    game: str
    state: Any
    events: list[Any]
    moves_total: int
    moves_legal: int
    first_illegal: dict[str, Any] | None
    result: dict[str, Any]
    result_matches: bool


def result_of(engine: Any, state: Any) -> dict[str, Any]:
    """A record's ``result``: the totals and the winning seats (None while unfinished)."""
    outcome = engine.outcome(state)
    totals = to_wire(engine.scores(state, None)).get("totals")
    return {"totals": totals, "winner": None if outcome is None else sorted(outcome.winners)}


def _shape(record: Any) -> None:
    if not isinstance(record, Mapping):
        raise RecordError("invalid_record", "The record is not a JSON object.")
    need = {"format": str, "game": str, "rules_version": str, "players": int, "options": dict, "match_id": str,
            "fairness": dict, "moves": list, "result": dict}
    for name, kind in need.items():
        if not isinstance(record.get(name), kind) or isinstance(record.get(name), bool):
            raise RecordError("invalid_record", f"The record needs {name} ({kind.__name__}).")
    if record["format"] != RECORD_FORMAT:
        raise RecordError("invalid_record", f"format must be {RECORD_FORMAT!r}.")


def adjudicate(record: Any, keys: Mapping[str, Ed25519PublicKey], rules_problem: Any = None) -> Verdict:
    """Check ``record``'s signature against ``keys`` and its commitment, rebuild every deal from the
    revealed secret, replay the moves and compare the result. Raises RecordError.

    ``rules_problem(exc, raw_move)`` builds the ``error`` of the first illegal move (the HTTP layer's
    problem body); by default a plain ``{"code", "detail", "rule"}``.
    """
    check_signature(record, keys)
    _shape(record)
    fair = record["fairness"]
    if fair.get("algorithm") != ALGORITHM:
        raise RecordError("bad_commitment", f"fairness.algorithm must be {ALGORITHM!r}.")
    if not commitment_holds(fair.get("secret"), record["match_id"], fair.get("commitment")):
        raise RecordError("bad_commitment", "SHA-256(secret ‖ match id) is not the committed value.")
    game = record["game"]
    engine = ENGINES.get(game)
    if engine is None:
        raise RecordError("invalid_record", f"There is no game {game!r}.")
    if record["rules_version"] != engine.RULES_VERSION:
        raise RecordError("invalid_record", f"This service referees {engine.RULES_VERSION}, not {record['rules_version']!r}.")
    codec = SCHEMAS[game]
    secret = bytes.fromhex(fair["secret"])
    setup = record.get("setup") or {}
    if not isinstance(setup, Mapping):
        raise RecordError("invalid_record", "setup must be an object.")
    seed = setup.get("seed")
    try:
        players = record["players"]
        options = codec.load_options(record["options"])
        pack = engine.pack(options, players)
        deck = parse_deck(setup["deck"], pack) if "deck" in setup else None
        state = begin_sealed(engine, options, players, deck, seed, secret)
    except (RulesError, ValueError, TypeError) as exc:
        raise RecordError("invalid_record", f"The record's setup cannot start a game: {exc}") from None

    def deal(before: Any) -> tuple[Any, ...]:
        return sealed_deal(engine, before, secret, seed)

    def plain_problem(exc: RulesError, raw: Any) -> dict[str, Any]:
        return {"code": exc.code, "detail": exc.detail, "rule": exc.rule}

    done = replay_log(engine, codec, state, engine.initial_events(state), record["moves"], deal, rules_problem or plain_problem)
    state, events, legal, first_illegal = done.state, done.events, done.legal, done.first_illegal
    result = result_of(engine, state)
    return Verdict(game, state, events, len(record["moves"]), legal, first_illegal, result, result == record["result"])
