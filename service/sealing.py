"""Sealed state: the full state under authenticated encryption, and per-seat keys.

``MultiFernet`` gives confidentiality, integrity and key rotation: tokens are sealed with the
newest key and opened with any configured key. Seat keys are HMAC-SHA256 of the match's random id
and the seat, under a key derived from each seal key, so a rotation keeps running matches playable.

Known limit of any stateless token: a client can send an older token again. The move log and the
``replay`` endpoint are how a dispute over that is settled.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Sequence
from typing import Any, Final

from cryptography.fernet import Fernet, InvalidToken, MultiFernet

__all__ = ["TABLE", "TOKEN_VERSION", "BadToken", "Sealer", "check_key"]

TOKEN_VERSION: Final = 1
TABLE: Final = "table"
MAX_TOKEN_CHARS: Final = 512 * 1024


class BadToken(Exception):
    """A token that this service did not seal for this game. Never says which check failed."""


def check_key(key: str) -> None:
    """Raise ValueError unless ``key`` is a Fernet key."""
    Fernet(key.encode("ascii") if isinstance(key, str) else key)


class Sealer:
    """Seals and opens tokens and derives seat keys, under the configured keys (newest first)."""

    def __init__(self, keys: Sequence[str]) -> None:
        if not keys:
            raise ValueError("sealing needs at least one key")
        raw = [k.encode("ascii") for k in keys]
        self._fernet = MultiFernet([Fernet(k) for k in raw])
        self._mac_keys = [hashlib.sha256(b"card-referee seat key\x00" + base64.urlsafe_b64decode(k)).digest() for k in raw]

    def seal(self, game: str, match_id: str, state: Any) -> str:
        """A token carrying ``state`` (any JSON-ready value) for ``game``."""
        payload = {"v": TOKEN_VERSION, "game": game, "id": match_id, "state": state}
        data = json.dumps(payload, separators=(",", ":")).encode("utf-8")
        return self._fernet.encrypt(data).decode("ascii")

    def unseal(self, game: str, token: str) -> tuple[str, Any]:
        """(match id, state) from a token sealed for ``game``; raises BadToken."""
        if not isinstance(token, str) or len(token) > MAX_TOKEN_CHARS:
            raise BadToken()
        try:
            raw = token.encode("ascii")
            if base64.urlsafe_b64encode(base64.urlsafe_b64decode(raw)) != raw:
                raise BadToken()  # not canonical: base64 decoding would ignore stray characters, text after the padding, unused low bits
            data = self._fernet.decrypt(raw)
            payload = json.loads(data)
        except (InvalidToken, UnicodeError, ValueError, TypeError, BadToken):
            raise BadToken() from None
        if (
            not isinstance(payload, dict)
            or payload.get("v") != TOKEN_VERSION
            or payload.get("game") != game
            or not isinstance(payload.get("id"), str)
            or "state" not in payload
        ):
            raise BadToken()
        return payload["id"], payload["state"]

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
