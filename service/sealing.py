"""Sealed state: the full state under authenticated encryption, and per-seat keys.

Tokens are Fernet tokens (AES-128-CBC and HMAC-SHA256, the published format that
``cryptography.fernet`` reads and writes): sealed with the newest key, opened with any configured
key, so keys rotate. ``FernetKeys`` writes and reads that format itself, with ``cryptography``'s AES
and the standard library's HMAC, and with ``pybase64`` for the base64 steps: a token grows with its
match (it carries the record), and the standard library's base64 was most of a sealed move's
per-byte cost (docs/fair-play.md). The suite checks both directions against ``cryptography.fernet``.

Seat keys are HMAC-SHA256 of the match's random id and the seat, under a key derived from each
seal key, so a rotation keeps running matches playable.

Besides the state, a token carries what only the service may know about its match (``Match``):
the match secret that drives every deal (docs/fair-play.md), the time the match began (the
server clock of timed claims), a fixed first deal when the operator allows one, and the record of
the accepted moves, kept pre-serialized so that a move costs the same at move 10 and move 400.

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
import struct
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

import orjson
import pybase64
from cryptography.fernet import Fernet
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

__all__ = ["MAX_TOKEN_CHARS", "TABLE", "TOKEN_VERSION", "BadToken", "FernetKeys", "Match", "Sealer", "TokenTooLarge", "check_key", "token_chars"]

TOKEN_VERSION: Final = 2
TABLE: Final = "table"
MAX_TOKEN_CHARS: Final = 512 * 1024
PAD_STEP: Final = 1024


class BadToken(Exception):
    """A token that this service did not seal for this game. Never says which check failed."""


class TokenTooLarge(Exception):
    """The token would be longer than ``MAX_TOKEN_CHARS``: ``open`` would refuse it, so it is never made."""


def token_chars(plaintext_bytes: int) -> int:
    """The length of the Fernet token of a plaintext of this many bytes (version, timestamp, IV,
    the PKCS7-padded ciphertext, the MAC; base64 with its padding)."""
    raw = _HEAD + 16 * (plaintext_bytes // 16 + 1) + _MAC
    return 4 * -(-raw // 3)


def check_key(key: str) -> None:
    """Raise ValueError unless ``key`` is a Fernet key."""
    Fernet(key.encode("ascii") if isinstance(key, str) else key)


_FERNET_VERSION: Final = 0x80
_HEAD: Final = 1 + 8 + 16  # version, timestamp, IV
_MAC: Final = 32


class FernetKeys:
    """Fernet tokens (spec: version 0x80, a big-endian timestamp, a random IV, AES-128-CBC with
    PKCS7 padding, HMAC-SHA256 over all of it) under several keys: ``encrypt`` with the first,
    ``decrypt`` with whichever authenticates. No TTL: a token's age is the ledger's business.

    ``decrypt`` takes canonical URL-safe base64 only (no stray characters, nothing after the
    padding, no set unused bits), so one sealed token has exactly one spelling."""

    def __init__(self, raw_keys: Sequence[bytes]) -> None:
        if not raw_keys or any(len(k) != 32 for k in raw_keys):
            raise ValueError("Fernet keys are 32 bytes")
        self._keys = [(k[:16], k[16:]) for k in raw_keys]  # (signing key, encryption key)

    def encrypt(self, data: bytes) -> bytes:
        signing, encryption = self._keys[0]
        iv = os.urandom(16)
        fill = 16 - len(data) % 16
        encryptor = Cipher(algorithms.AES(encryption), modes.CBC(iv)).encryptor()
        body = bytes((_FERNET_VERSION,)) + struct.pack(">Q", int(time.time())) + iv
        body += encryptor.update(data + bytes((fill,)) * fill) + encryptor.finalize()
        return pybase64.urlsafe_b64encode(body + hmac.digest(signing, body, "sha256"))

    def decrypt(self, token: bytes) -> bytes:
        """The plaintext of ``token``; raises BadToken for anything else."""
        if b"+" in token or b"/" in token:
            raise BadToken()  # the standard alphabet: not how a token is spelled
        try:
            raw = pybase64.b64decode(token, altchars=b"-_", validate=True)
        except (binascii.Error, ValueError):
            raise BadToken() from None
        if (
            pybase64.urlsafe_b64encode(raw) != token  # not canonical
            or len(raw) < _HEAD + 16 + _MAC
            or (len(raw) - _HEAD - _MAC) % 16
            or raw[0] != _FERNET_VERSION
        ):
            raise BadToken()
        body, mac = raw[:-_MAC], raw[-_MAC:]
        for signing, encryption in self._keys:
            if hmac.compare_digest(hmac.digest(signing, body, "sha256"), mac):
                decryptor = Cipher(algorithms.AES(encryption), modes.CBC(raw[9:_HEAD])).decryptor()
                padded = decryptor.update(body[_HEAD:]) + decryptor.finalize()
                fill = padded[-1]
                if not 1 <= fill <= 16 or padded[-fill:] != bytes((fill,)) * fill:
                    raise BadToken()  # authentic but badly padded: not written by a Fernet implementation
                return padded[:-fill]
        raise BadToken()


@dataclass(frozen=True, slots=True)
class Match:
    """What a sealed match carries besides its state.

    ``secret``: 32 random bytes, the key of every deal (never shown before the match ends).
    ``t0``: when the match began, ms since the Unix epoch (the server clock of timed claims).
    ``setup``: ``{"deck": [...]}`` or ``{"seed": n}`` when the operator allows fixed decks and the
    client fixed the first deal, else None. ``moves``: the accepted moves as applied, each in
    canonical JSON, joined by commas (the inside of a JSON array; "" before the first move).
    ``epoch``: the ledger's epoch when the match was registered in it (``ledger.py``), else None.
    """

    match_id: str
    secret: bytes
    t0: int
    setup: dict[str, Any] | None = None
    moves: str = ""
    epoch: str | None = None

    def with_move(self, canonical_move: str) -> Match:
        """This match with one more accepted move (string concatenation: flat cost)."""
        return replace(self, moves=canonical_move if not self.moves else self.moves + "," + canonical_move)

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
        raw = [k.encode("ascii") for k in keys]
        self.raw_keys = [base64.urlsafe_b64decode(k) for k in raw]
        self._fernet = FernetKeys(self.raw_keys)
        self._mac_keys = [hashlib.sha256(b"card-referee seat key\x00" + k).digest() for k in self.raw_keys]

    def _fallback_match(self, match_id: str) -> Match:
        """A token sealed without match data (a position minted by a test or a host tool that holds
        the seal keys): its secret is derived from the newest key and the id, its clock starts at 0."""
        secret = hmac.new(self._mac_keys[0], f"match secret:{match_id}".encode(), hashlib.sha256).digest()
        return Match(match_id, secret, 0)

    def seal(self, game: str, match_id: str, state: Any, match: Match | None = None, pad_to: int | None = None) -> str:
        """A token carrying ``state`` (any JSON-ready value) of ``match`` for ``game``.

        ``pad_to``: the plaintext is padded with spaces to at least this many bytes, so that the
        token's length depends on ``pad_to`` alone whenever the content fits in it. Raises
        TokenTooLarge (before anything is padded or encrypted) when the token would be longer than
        ``MAX_TOKEN_CHARS``, the most that ``open`` accepts."""
        m = self._fallback_match(match_id) if match is None else match
        head = {"v": TOKEN_VERSION, "game": game, "id": match_id, "secret": m.secret.hex(), "t0": m.t0, "setup": m.setup, "state": state}
        if m.epoch is not None:
            head["epoch"] = m.epoch
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
        return self._fernet.encrypt(data).decode("ascii")

    def open(self, game: str, token: str) -> tuple[Match, Any]:
        """(match, state) from a token sealed for ``game``; raises BadToken."""
        if not isinstance(token, str) or len(token) > MAX_TOKEN_CHARS:
            raise BadToken()
        try:
            data = self._fernet.decrypt(token.encode("ascii"))
            head_bytes, sep, rest = data.partition(b"\n")
            payload = orjson.loads(head_bytes)
            moves = rest.rstrip().decode("utf-8")  # the padding (spaces); the moves end in "}"
        except (UnicodeError, ValueError, TypeError):
            raise BadToken() from None
        if (
            not sep
            or not isinstance(payload, dict)
            or payload.get("v") != TOKEN_VERSION
            or payload.get("game") != game
            or not isinstance(payload.get("id"), str)
            or "state" not in payload
        ):
            raise BadToken()
        try:
            secret = bytes.fromhex(payload["secret"])
            t0 = payload["t0"]
            epoch = payload.get("epoch")
            if len(secret) != 32 or type(t0) is not int or not (epoch is None or isinstance(epoch, str)):
                raise ValueError("bad match data")
        except (KeyError, TypeError, ValueError):
            raise BadToken() from None
        return Match(payload["id"], secret, t0, payload.get("setup"), moves, epoch), payload["state"]

    def unseal(self, game: str, token: str) -> tuple[str, Any]:
        """(match id, state) from a token sealed for ``game``; raises BadToken."""
        match, state = self.open(game, token)
        return match.match_id, state

    def _mac(self, key: bytes, match_id: str, who: str) -> str:
        digest = hmac.new(key, f"{match_id}:{who}".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")

    def seat_key(self, match_id: str, seat: int | str) -> str:
        """The key for ``seat`` (or ``TABLE``) of a match, under the newest key."""
        return self._mac(self._mac_keys[0], match_id, str(seat))

    def identify(self, match_id: str, seats: int, presented: str) -> int | str | None:
        """Which seat (or ``TABLE``) ``presented`` belongs to, under any configured key; else None."""
        if not presented or len(presented) > 128:
            return None
        who_list: list[int | str] = [TABLE, *range(seats)]
        for key in self._mac_keys:
            for who in who_list:
                if hmac.compare_digest(self._mac(key, match_id, str(who)), presented):
                    return who
        return None
