"""Card Referee: a stateless HTTP referee for traditional card games.

Installed as the import package ``card_referee`` (the checkout's folder ``service/``).
``create_app()`` builds the Flask app (``card-referee serve`` runs it under gunicorn with the
settings of ``card_referee.gunicorn_conf``); ``card_referee.engines`` and ``card_referee.referee``
are the rules engines and the referee in-process (docs/library.md).
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
