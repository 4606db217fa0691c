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
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Final, TypeVar

__all__ = ["MAX_SEED", "deal_deck", "seeded_shuffle"]

T = TypeVar("T")
MAX_SEED: Final = 2**53 - 1  # I-JSON (RFC 7493): every integer on the wire within ±(2^53 − 1)


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
