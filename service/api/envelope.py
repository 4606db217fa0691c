"""The response envelope now lives in ``service/envelope.py`` (no Flask); re-exported here."""

from __future__ import annotations

from ..envelope import envelope

__all__ = ["envelope"]
