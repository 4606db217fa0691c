"""Card Referee: a stateless HTTP referee for traditional card games.

``create_app`` is the one entry point (``gunicorn 'service:create_app()'``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # importing the package (the referee core, the engines) loads no Flask
    from flask import Flask

__all__ = ["create_app"]


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app from the environment (``REFEREE_*``), with ``config`` overriding it.

    ``config`` keys: ``SEAL_KEYS`` (list or comma-separated Fernet keys), ``ALLOW_FIXED_DECKS``,
    ``MAX_BODY``, ``TESTING``. Raises ``config.ConfigError`` for unusable settings.
    """
    from .app import build

    return build(config)
