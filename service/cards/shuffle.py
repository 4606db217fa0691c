"""The project's own reproducible shuffle: SHA-256-driven Fisher–Yates.

The construction is the one of slapjack §6.6, with a prefix naming its use, so that seeded deals
never change with the Python version::

    for i from len(L)-1 down to 1:
        h = SHA-256 of the ASCII string  ":".join(key) + ":" + str(i)
        j = (first 8 bytes of h, unsigned big-endian) mod (i + 1)
        swap L[i] and L[j]

``key`` is a tuple of parts naming the use, e.g. ``("deal", seed)`` for a deal, or slapjack's
``("slapjack", seed, count)``; each part is written with ``str()`` (plain decimal for integers).
Deals use the key ``("deal", seed)`` and start from the game's pack in canonical order (packs.py); deal k
of a match seeded with s uses seed ``s + k - 1``. Golden values are pinned in tests/test_cards.py.

``keyed_shuffle`` is the same Fisher–Yates with a secret: j comes from HMAC-SHA256 under a 32-byte
key instead of a bare SHA-256, so nobody without the key can predict it. A sealed match's deals use
it with its match secret (``secret_deal_deck``: the message ``"deal:" + k + ":" + i``; the algorithm
``KEYED_ALGORITHM``, docs/fair-play.md); golden values are pinned in tests/fairplay/test_deal.py.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from typing import Final, TypeVar

__all__ = ["KEYED_ALGORITHM", "MAX_SEED", "deal_deck", "keyed_shuffle", "secret_deal_deck", "seeded_shuffle"]

T = TypeVar("T")
MAX_SEED: Final = 2**53 - 1  # seeds stay exact in every JSON client (I-JSON, RFC 7493)
KEYED_ALGORITHM: Final = "hmac-sha256-fisher-yates/1"
"""Name and version of ``keyed_shuffle`` as the ``fairness.algorithm`` of a sealed match."""


def seeded_shuffle(items: Sequence[T], *key: str | int) -> tuple[T, ...]:
    """``items`` permuted by the documented SHA-256 Fisher–Yates under ``key``."""
    if any(isinstance(k, int) and k < 0 for k in key):
        raise ValueError("seeds and counters must be non-negative integers")
    out = list(items)
    sha = hashlib.sha256
    head = (":".join(str(k) for k in key) + ":").encode("ascii")
    for i in range(len(out) - 1, 0, -1):
        digest = sha(head + str(i).encode("ascii")).digest()
        j = int.from_bytes(digest[:8], "big") % (i + 1)
        out[i], out[j] = out[j], out[i]
    return tuple(out)


def deal_deck(pack: Sequence[T], seed: int) -> tuple[T, ...]:
    """The deck (top card first) of a deal shuffled with ``seed``."""
    return seeded_shuffle(pack, "deal", seed)


def keyed_shuffle(items: Sequence[T], key: bytes, *parts: str | int) -> tuple[T, ...]:
    """``items`` permuted by Fisher–Yates where j = first 8 bytes (big-endian) of
    HMAC-SHA256(key, ``":".join(parts) + ":" + i``) mod (i + 1), for i from n-1 down to 1."""
    if any(isinstance(k, int) and k < 0 for k in parts):
        raise ValueError("counters must be non-negative integers")
    out = list(items)
    head = (":".join(str(k) for k in parts) + ":").encode("ascii")
    mac = hmac.new(key, digestmod=hashlib.sha256)
    for i in range(len(out) - 1, 0, -1):
        h = mac.copy()
        h.update(head + str(i).encode("ascii"))
        j = int.from_bytes(h.digest()[:8], "big") % (i + 1)
        out[i], out[j] = out[j], out[i]
    return tuple(out)


def secret_deal_deck(pack: Sequence[T], secret: bytes, deal: int) -> tuple[T, ...]:
    """The deck (top card first) of deal ``deal`` (1, 2, ...) of a sealed match with ``secret``."""
    if deal < 1:
        raise ValueError("deals are numbered from 1")
    return keyed_shuffle(pack, secret, "deal", deal)
