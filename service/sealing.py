"""Sealed state: the full state under authenticated encryption, and per-seat keys.

**Token format 2** (every token this service writes): base64url, with its ``=`` padding, of

    header (6 bytes) ‖ salt (12 bytes) ‖ nonce (12 bytes) ‖ AES-256-GCM ciphertext ‖ tag (16 bytes)

The header is the format (3 bytes, ``72 b7 f6``: the token's text begins ``crf2``) and the key id
(3 bytes: the first bytes of ``derive_key(seal key, "key id")``, so its 4 characters follow
``crf2`` in the text). The key id picks the one configured key that can open the token: nothing is
tried key after key, and a token of a key rotated out is refused at once. The associated data is
the header and the game id (UTF-8), so neither can be changed, nor a token of one game opened at
another game's endpoint, without failing authentication.

*Nonces and key limits.* AES-GCM must never see one (key, nonce) pair twice, and NIST SP 800-38D
allows at most 2^32 messages per key with random 96-bit nonces (at 5,000 moves per second a
single key would reach that in ten days). So no key here encrypts more than about one message:
each token draws 24 random bytes from the operating system, the first 12 the HKDF salt of its own
message key, ``HKDF-SHA256(token key, salt, "card-referee token v2 message key")``, the last 12
its GCM nonce (the design of C2SP's XAES-256-GCM: a 192-bit nonce, half of it choosing the key).
At 10,000 tokens a second for 30 years (n ≈ 2^43 tokens under one seal key) the chance that any
two share a message key is about n²/2^97 = 2^-11, and even then the two would need the same nonce
as well: n²/2^193 ≈ 2^-107 for a repeated (key, nonce) pair. A message key encrypting one message of
at most 512 KiB is far inside GCM's per-key limits on messages and bytes. No counter, no state: a
forked worker (gunicorn) cannot repeat one.

**Keys.** Every configured seal key (32 bytes; the key text is a Fernet key, as before) yields its
per-purpose keys through one function, ``derive_key`` (HKDF-SHA256, no salt, a distinct ``info``
per purpose, ``PURPOSES``): the token key, the key id, the seat keys, the match secrets of tokens
sealed without match data, and the record signing key (whose label, unchanged since records were
signed, keeps every published signing key and ``kid`` the same).

**Format 1** (deprecated; read, never written): a Fernet token (``cryptography.fernet``: version
byte ``0x80``, AES-128-CBC, HMAC-SHA256; every key tried), whose plaintext head carries ``"v": 2``
and the game. It is read by ``cryptography.fernet`` after the same canonical-spelling check, so a
match in progress when the service was updated plays on; its next token is format 2. Seat keys of
a match begun under format 1 were derived as SHA-256("card-referee seat key\\0" ‖ seal key)
rather than by HKDF: such a match keeps that derivation to its end (``Match.legacy_seat_keys``,
carried as ``"sk": 1`` in its format-2 tokens), so the keys its players hold stay valid.

Besides the state, a token carries what only the service may know about its match (``Match``):
the match secret that drives every deal (docs/fair-play.md), the time the match began (the
server clock of timed claims), a fixed first deal when the operator allows one, and the record of
the accepted moves: without a ledger, the moves themselves, kept pre-serialized (appended to,
never parsed on a move); with one, only a hash chain over them (``chain_start``, ``chain_step``),
while the moves are kept in the store beside the token (``ledger.py``), so the token's size and a
move's cost depend on the state, not on the match's length, and a store that lies is caught.

Token length is no side channel: the plaintext is padded with JSON whitespace to a length that the
caller computes from public facts only (``seal(..., pad_to=...)``; see ``referee.py``).

Known limit of any stateless token: a client can send an older token again. The ledger
(``ledger.py``, ``REFEREE_LEDGER_URL``) refuses that; without one, docs/fair-play.md says what a
seat holding its tokens can do.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

import orjson
import pybase64
from cryptography.exceptions import InvalidTag
from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

__all__ = [
    "CHAIN_LABEL",
    "FORMAT",
    "MAX_TOKEN_CHARS",
    "PURPOSES",
    "TABLE",
    "BadToken",
    "Match",
    "Sealer",
    "TokenTooLarge",
    "chain_of",
    "chain_start",
    "chain_step",
    "check_key",
    "derive_key",
    "token_chars",
]

FORMAT: Final = 2
"""The token format this service writes (format 1, Fernet, is still read)."""
TABLE: Final = "table"
MAX_TOKEN_CHARS: Final = 512 * 1024
PAD_STEP: Final = 1024

PURPOSES: Final = {
    "token": b"card-referee token key v2",
    "key id": b"card-referee token key id v2",
    "seat keys": b"card-referee seat keys v2",
    "match secrets": b"card-referee match secrets v2",
    "signing": b"card-referee record signing key v1",
}
"""The HKDF ``info`` of each key derived from a seal key (``derive_key``)."""

_MAGIC: Final = b"\x72\xb7\xf6"  # base64url "crf2": format 2
_KEY_ID: Final = 3
_HEADER: Final = len(_MAGIC) + _KEY_ID
_SALT: Final = 12
_NONCE: Final = 12
_TAG: Final = 16
_MESSAGE_KEY_INFO: Final = b"card-referee token v2 message key"
CHAIN_LABEL: Final = b"card-referee record chain v1\n"
_FORMAT1_VERSION: Final = 0x80  # a Fernet token's first byte
_FORMAT1_HEAD_VERSION: Final = 2  # the "v" of a format-1 token's plaintext head
_LEGACY_SEAT_LABEL: Final = b"card-referee seat key\x00"  # format 1's seat-key derivation (sha256(label ‖ key))


class BadToken(Exception):
    """A token that this service did not seal for this game. Never says which check failed."""


class TokenTooLarge(Exception):
    """The token would be longer than ``MAX_TOKEN_CHARS``: ``open`` would refuse it, so it is never made."""


def token_chars(plaintext_bytes: int) -> int:
    """The length of the format-2 token of a plaintext of this many bytes (header, salt, nonce,
    the ciphertext, which is as long as the plaintext, the tag; base64 with its padding)."""
    raw = _HEADER + _SALT + _NONCE + plaintext_bytes + _TAG
    return 4 * -(-raw // 3)


def check_key(key: str) -> None:
    """Raise ValueError unless ``key`` is a seal key: 32 bytes in URL-safe base64 (a Fernet key)."""
    Fernet(key.encode("ascii") if isinstance(key, str) else key)


def derive_key(seal_key: bytes, purpose: str, length: int = 32) -> bytes:
    """The key for ``purpose`` (one of ``PURPOSES``) derived from a raw seal key: HKDF-SHA256
    without salt, ``info`` = the purpose's label."""
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=None, info=PURPOSES[purpose]).derive(seal_key)


def _message_key(token_key: bytes, salt: bytes) -> AESGCM:
    """The AES-GCM key of one token: ``HKDF-SHA256(token key, salt, _MESSAGE_KEY_INFO)``, 32 bytes
    (``cryptography``'s HKDF: 0.7 µs more than two hand-written HMACs, not worth a primitive of
    our own)."""
    return AESGCM(HKDF(algorithm=hashes.SHA256(), length=32, salt=salt, info=_MESSAGE_KEY_INFO).derive(token_key))


def _decode(token: str) -> bytes:
    """The bytes of a token in canonical URL-safe base64 (no stray characters, nothing after the
    padding, no set unused bits), so one sealed token has exactly one spelling; else BadToken."""
    try:
        text = token.encode("ascii")
    except UnicodeError:
        raise BadToken() from None
    if b"+" in text or b"/" in text:
        raise BadToken()  # the standard alphabet: not how a token is spelled
    try:
        raw = pybase64.b64decode(text, altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        raise BadToken() from None
    # every whole group of 4 characters has one spelling; only the last group can hide set unused bits
    whole = (len(raw) - 1) // 3 * 3 if raw else 0
    if len(text) != 4 * -(-len(raw) // 3) or pybase64.urlsafe_b64encode(raw[whole:]) != text[4 * whole // 3 :]:
        raise BadToken()
    return raw


def chain_start(match_id: str, setup: dict[str, Any] | None) -> bytes:
    """h_0 of a match's record chain: SHA-256(``CHAIN_LABEL`` ‖ match id ‖ newline ‖ the setup as
    JSON with sorted keys, ``null`` for none)."""
    return hashlib.sha256(CHAIN_LABEL + match_id.encode("utf-8") + b"\n" + orjson.dumps(setup, option=orjson.OPT_SORT_KEYS)).digest()


def chain_step(chain: bytes, canonical_move: str) -> bytes:
    """h_n = SHA-256(h_{n-1} ‖ the n-th move as applied, canonical JSON in UTF-8)."""
    return hashlib.sha256(chain + canonical_move.encode("utf-8")).digest()


def chain_of(match_id: str, setup: dict[str, Any] | None, moves: Sequence[str]) -> bytes:
    """The chain over ``moves`` from the start of the match."""
    chain = chain_start(match_id, setup)
    for move in moves:
        chain = chain_step(chain, move)
    return chain


@dataclass(frozen=True, slots=True)
class Match:
    """What a sealed match carries besides its state.

    ``secret``: 32 random bytes, the key of every deal (never shown before the match ends).
    ``t0``: when the match began, ms since the Unix epoch (the server clock of timed claims).
    ``setup``: ``{"deck": [...]}`` or ``{"seed": n}`` when the operator allows fixed decks and the
    client fixed the first deal, else None. ``moves``: the accepted moves as applied, each in
    canonical JSON, joined by commas (the inside of a JSON array; "" before the first move).
    ``epoch``: the ledger's epoch when the match was registered in it (``ledger.py``), else None.
    ``legacy_seat_keys``: the match began under token format 1, and its seat keys are derived as
    format 1 derived them (see the module docstring). ``chain``: with the record kept in the
    ledger, the hash chain over the record's moves (``chain_step``; ``moves`` stays "") and
    ``count`` the number of moves it covers; None when the token carries the moves.
    """

    match_id: str
    secret: bytes
    t0: int
    setup: dict[str, Any] | None = None
    moves: str = ""
    epoch: str | None = None
    legacy_seat_keys: bool = False
    chain: bytes | None = None
    count: int = 0

    @property
    def record_in_ledger(self) -> bool:
        """Whether the record's moves are kept in the ledger (the token holds their chain)."""
        return self.chain is not None

    @property
    def resumable(self) -> bool:
        """Whether a superseded token of this match can be retried or resumed from the ledger: its
        record is kept there and the match was registered in the ledger's epoch."""
        return self.chain is not None and self.epoch is not None

    def covers(self, moves: Sequence[str]) -> bool:
        """Whether ``moves`` begin with the ``count`` moves this match's hash chain covers."""
        return len(moves) >= self.count and chain_of(self.match_id, self.setup, moves[: self.count]) == self.chain

    def with_move(self, canonical_move: str) -> Match:
        """This match with one more accepted move (string concatenation, or one step of the
        chain: flat cost)."""
        chain, count, moves = self.chain, self.count, self.moves
        if chain is not None:
            chain, count = chain_step(chain, canonical_move), count + 1
        else:
            moves = canonical_move if not moves else moves + "," + canonical_move
        # every field by position (dataclasses.replace looks the fields up on each call)
        return Match(self.match_id, self.secret, self.t0, self.setup, moves, self.epoch, self.legacy_seat_keys, chain, count)

    def in_epoch(self, epoch: str | None) -> Match:
        """This match as registered in a ledger of ``epoch``."""
        return replace(self, epoch=epoch)


class Sealer:
    """Seals and opens tokens and derives seat keys, under the configured keys (newest first)."""

    def __init__(self, keys: Sequence[str]) -> None:
        if not keys:
            raise ValueError("sealing needs at least one key")
        for k in keys:
            check_key(k)
        self.raw_keys = [base64.urlsafe_b64decode(k.encode("ascii")) for k in keys]
        self._token_keys = [derive_key(k, "token") for k in self.raw_keys]
        self._key_ids = [derive_key(k, "key id", _KEY_ID) for k in self.raw_keys]
        self._by_key_id = dict(zip(self._key_ids, self._token_keys, strict=True))
        if len(self._by_key_id) != len(self.raw_keys):
            raise ValueError("two seal keys have the same key id (a 1 in 16 million chance, or the same key twice): generate another")
        # seat keys are HMAC-SHA256 under these, each keyed once (``_mac`` copies it: no key setup per call)
        self._seat_keys = [hmac.new(derive_key(k, "seat keys"), digestmod=hashlib.sha256) for k in self.raw_keys]
        self._legacy_seat_keys = [hmac.new(hashlib.sha256(_LEGACY_SEAT_LABEL + k).digest(), digestmod=hashlib.sha256)
                                  for k in self.raw_keys]
        self._secret_key = derive_key(self.raw_keys[0], "match secrets")
        self._format1 = MultiFernet([Fernet(k.encode("ascii")) for k in keys])

    # --- the AEAD ---------------------------------------------------------------------------

    def _encrypt(self, game: str, data: bytes) -> str:
        """A format-2 token of ``data`` for ``game`` under the newest key."""
        header = _MAGIC + self._key_ids[0]
        salt_nonce = os.urandom(_SALT + _NONCE)
        aead = _message_key(self._token_keys[0], salt_nonce[:_SALT])
        sealed = aead.encrypt(salt_nonce[_SALT:], data, header + game.encode("utf-8"))
        return pybase64.urlsafe_b64encode(header + salt_nonce + sealed).decode("ascii")

    def _decrypt(self, game: str, raw: bytes) -> bytes:
        """The plaintext of a format-2 token's bytes ``raw`` for ``game``; else BadToken."""
        start = _HEADER + _SALT + _NONCE
        if len(raw) < start + _TAG:
            raise BadToken()
        token_key = self._by_key_id.get(raw[len(_MAGIC) : _HEADER])
        if token_key is None:
            raise BadToken()  # a key id of no configured key (rotated out, or another service's)
        aead = _message_key(token_key, raw[_HEADER : _HEADER + _SALT])
        try:
            return aead.decrypt(raw[_HEADER + _SALT : start], raw[start:], raw[:_HEADER] + game.encode("utf-8"))
        except InvalidTag:
            raise BadToken() from None

    # --- tokens -----------------------------------------------------------------------------

    def _fallback_match(self, match_id: str) -> Match:
        """A token sealed without match data (a position minted by a test or a host tool that holds
        the seal keys): its secret is derived from the newest key and the id, its clock starts at 0."""
        secret = hmac.new(self._secret_key, match_id.encode("utf-8"), hashlib.sha256).digest()
        return Match(match_id, secret, 0)

    def seal(self, game: str, match_id: str, state: Any, match: Match | None = None, pad_to: int | None = None) -> str:
        """A token carrying ``state`` (any JSON-ready value) of ``match`` for ``game``.

        ``pad_to``: the plaintext is padded with spaces to at least this many bytes, so that the
        token's length depends on ``pad_to`` alone whenever the content fits in it. Raises
        TokenTooLarge (before anything is padded or encrypted) when the token would be longer than
        ``MAX_TOKEN_CHARS``, the most that ``open`` accepts."""
        m = self._fallback_match(match_id) if match is None else match
        head: dict[str, Any] = {"id": match_id, "secret": m.secret.hex(), "t0": m.t0, "setup": m.setup, "state": state}
        if m.epoch is not None:
            head["epoch"] = m.epoch
        if m.legacy_seat_keys:
            head["sk"] = 1
        if m.chain is not None:
            head["chain"] = m.chain.hex()
            head["n"] = m.count
        # line 1: the head (compact JSON has no raw newline); then the record's moves as kept, never parsed here
        data = orjson.dumps(head) + b"\n" + m.moves.encode("utf-8")
        size = len(data)
        if pad_to is not None:
            if pad_to < size:  # outgrown (rare): whole steps, so the length says little
                pad_to += -(-(size - pad_to) // PAD_STEP) * PAD_STEP
            size = pad_to
        if token_chars(size) > MAX_TOKEN_CHARS:
            raise TokenTooLarge()
        if size > len(data):
            data += b" " * (size - len(data))
        return self._encrypt(game, data)

    def open(self, game: str, token: str) -> tuple[Match, Any]:
        """(match, state) from a token sealed for ``game`` (format 2, or format 1 while it is
        still read); raises BadToken."""
        if not isinstance(token, str) or len(token) > MAX_TOKEN_CHARS:
            raise BadToken()
        raw = _decode(token)
        legacy = raw[:1] == bytes((_FORMAT1_VERSION,))
        if raw[: len(_MAGIC)] == _MAGIC:
            data = self._decrypt(game, raw)
        elif legacy:
            try:
                data = self._format1.decrypt(token.encode("ascii"))
            except InvalidToken:
                raise BadToken() from None
        else:
            raise BadToken()
        try:
            head_bytes, sep, rest = data.partition(b"\n")
            payload = orjson.loads(head_bytes)
            moves = rest.rstrip().decode("utf-8")  # the padding (spaces); the moves end in "}"
        except (UnicodeError, ValueError, TypeError):
            raise BadToken() from None
        if not sep or not isinstance(payload, dict) or not isinstance(payload.get("id"), str) or "state" not in payload:
            raise BadToken()
        if legacy and (payload.get("v") != _FORMAT1_HEAD_VERSION or payload.get("game") != game):
            raise BadToken()
        try:
            secret = bytes.fromhex(payload["secret"])
            t0 = payload["t0"]
            epoch = payload.get("epoch")
            if len(secret) != 32 or type(t0) is not int or not (epoch is None or isinstance(epoch, str)):
                raise ValueError("bad match data")
            chain, count = None, 0
            if "chain" in payload:
                chain, count = bytes.fromhex(payload["chain"]), payload["n"]
                if len(chain) != 32 or type(count) is not int or count < 0 or moves:
                    raise ValueError("bad record chain")
        except (KeyError, TypeError, ValueError):
            raise BadToken() from None
        legacy_keys = legacy or payload.get("sk") == 1
        return Match(payload["id"], secret, t0, payload.get("setup"), moves, epoch, legacy_keys, chain, count), payload["state"]

    def unseal(self, game: str, token: str) -> tuple[str, Any]:
        """(match id, state) from a token sealed for ``game``; raises BadToken."""
        match, state = self.open(game, token)
        return match.match_id, state

    # --- seat keys --------------------------------------------------------------------------

    def _mac(self, key: hmac.HMAC, match_id: str, who: str) -> str:
        mac = key.copy()
        mac.update(f"{match_id}:{who}".encode())
        return base64.urlsafe_b64encode(mac.digest()).rstrip(b"=").decode("ascii")

    def seat_key(self, match_id: str, seat: int | str, *, legacy: bool = False) -> str:
        """The key for ``seat`` (or ``TABLE``) of a match, under the newest key (``legacy``: as a
        match begun under token format 1 derives it)."""
        return self._mac((self._legacy_seat_keys if legacy else self._seat_keys)[0], match_id, str(seat))

    def identify(self, match_id: str, seats: int, presented: str, *, legacy: bool = False) -> int | str | None:
        """Which seat (or ``TABLE``) ``presented`` belongs to, under any configured key; else None
        (``legacy``: the match began under token format 1, ``Match.legacy_seat_keys``)."""
        if not presented or len(presented) > 128 or not presented.isascii():  # compare_digest takes ASCII text only
            return None
        who_list: list[int | str] = [TABLE, *range(seats)]
        for key in self._legacy_seat_keys if legacy else self._seat_keys:
            for who in who_list:
                if hmac.compare_digest(self._mac(key, match_id, str(who)), presented):
                    return who
        return None
