"""Configuration from the environment, validated at start-up. No default secrets, ever."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .sealing import check_key

__all__ = ["Config", "ConfigError"]

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


class ConfigError(ValueError):
    """The configuration cannot be used; the message says which setting and why."""


def _flag(name: str, raw: object) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ConfigError(f"{name} must be a boolean (1/0, true/false), not {raw!r}")


@dataclass(frozen=True, slots=True)
class Config:
    """The service's settings.

    ``seal_keys``: Fernet keys, newest first; sealed mode when non-empty (``REFEREE_SEAL_KEYS``,
    comma-separated). ``allow_fixed_decks``: accept ``deck``/``seed``/``replay`` in sealed mode
    (``REFEREE_ALLOW_FIXED_DECKS``). ``max_body``: request body limit in bytes
    (``REFEREE_MAX_BODY``, default 1 MiB).
    """

    seal_keys: tuple[str, ...] = ()
    allow_fixed_decks: bool = False
    max_body: int = 1024 * 1024
    testing: bool = False

    @property
    def sealed(self) -> bool:
        return bool(self.seal_keys)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, overrides: Mapping[str, Any] | None = None) -> Config:
        """Read ``REFEREE_*`` variables, then apply ``overrides`` (``SEAL_KEYS``, ``ALLOW_FIXED_DECKS``,
        ``MAX_BODY``, ``TESTING``); raise ConfigError on anything unusable."""
        env = os.environ if environ is None else environ
        raw: dict[str, Any] = {
            "SEAL_KEYS": env.get("REFEREE_SEAL_KEYS", ""),
            "ALLOW_FIXED_DECKS": env.get("REFEREE_ALLOW_FIXED_DECKS", "0"),
            "MAX_BODY": env.get("REFEREE_MAX_BODY", str(1024 * 1024)),
            "TESTING": False,
        }
        if overrides:
            raw.update({k: v for k, v in overrides.items() if k in raw})
        keys = raw["SEAL_KEYS"]
        if isinstance(keys, str):
            keys = [k.strip() for k in keys.split(",") if k.strip()]
        keys = tuple(keys)
        for i, key in enumerate(keys):
            try:
                check_key(key)
            except ValueError:
                raise ConfigError(f"REFEREE_SEAL_KEYS entry {i} is not a Fernet key (32 url-safe base64 bytes)") from None
        try:
            max_body = int(raw["MAX_BODY"])
        except (TypeError, ValueError):
            raise ConfigError(f"REFEREE_MAX_BODY must be an integer, not {raw['MAX_BODY']!r}") from None
        if not 1024 <= max_body <= 64 * 1024 * 1024:
            raise ConfigError("REFEREE_MAX_BODY must be between 1 KiB and 64 MiB")
        return cls(
            seal_keys=keys,
            allow_fixed_decks=_flag("REFEREE_ALLOW_FIXED_DECKS", raw["ALLOW_FIXED_DECKS"]),
            max_body=max_body,
            testing=_flag("TESTING", raw["TESTING"]),
        )
