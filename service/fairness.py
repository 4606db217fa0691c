"""The match secret of a sealed match: its commitment and every deal it decides (docs/fair-play.md).

``new`` draws a 256-bit secret (``new_secret``, the only randomness here, called at the edge) and
seals it in the token. Every envelope of the match publishes ``commitment`` = hex SHA-256(secret
bytes ‖ match id as UTF-8); the finished envelope reveals the secret, so anyone can check the
commitment and recompute each deal: deal k = ``secret_deal_deck(pack, secret, k)`` (cards/shuffle.py,
``KEYED_ALGORITHM``); Slapjack's in-game shuffle c = ``keyed_shuffle(stock, secret, "slapjack", c)``.
Everything but ``new_secret`` is a pure function, shared by the service and ``service.verify``.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from typing import Any, Final, TypeVar

from .cards.shuffle import KEYED_ALGORITHM, deal_deck, secret_deal_deck

__all__ = ["ALGORITHM", "SECRET_BYTES", "commitment", "commitment_holds", "deck_for_deal", "fairness", "new_secret"]

T = TypeVar("T")
ALGORITHM: Final = KEYED_ALGORITHM
SECRET_BYTES: Final = 32


def new_secret() -> bytes:
    """A fresh 256-bit match secret from the operating system's CSPRNG."""
    return secrets.token_bytes(SECRET_BYTES)


def commitment(secret: bytes, match_id: str) -> str:
    """hex SHA-256(secret ‖ match id as UTF-8)."""
    return hashlib.sha256(secret + match_id.encode("utf-8")).hexdigest()


def commitment_holds(secret_hex: object, match_id: object, committed: object) -> bool:
    """Whether a revealed secret (hex) matches the published commitment of ``match_id``."""
    if not (isinstance(secret_hex, str) and isinstance(match_id, str) and isinstance(committed, str)):
        return False
    try:
        secret = bytes.fromhex(secret_hex)
    except ValueError:
        return False
    return len(secret) == SECRET_BYTES and hmac.compare_digest(commitment(secret, match_id), committed.lower())


def fairness(secret: bytes, match_id: str, finished: bool) -> dict[str, Any]:
    """The envelope's ``fairness`` member: algorithm and commitment, plus the secret once finished."""
    out: dict[str, Any] = {"algorithm": ALGORITHM, "commitment": commitment(secret, match_id)}
    if finished:
        out["secret"] = secret.hex()
    return out


def deck_for_deal(pack: Sequence[T], deal: int, secret: bytes, seed: int | None = None) -> tuple[T, ...]:
    """Deal ``deal``'s deck: from ``seed`` (seed + deal - 1, a fixed-deck match) or from the secret."""
    if seed is not None:
        return deal_deck(pack, seed + deal - 1)
    return secret_deal_deck(pack, secret, deal)
