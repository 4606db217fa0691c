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

    Fair play (README "Fair play"): ``signing_keys``: base64url Ed25519 private keys, newest first,
    that sign match records and verdicts (``REFEREE_SIGNING_KEYS``; default: derived from the seal
    keys). ``ledger_url``: the rewind guard's store, ``redis://host:port/db`` or ``sqlite:///path``
    (``REFEREE_LEDGER_URL``; default none). ``ledger_ttl``: seconds a match's ledger entry lives
    after its last move (``REFEREE_LEDGER_TTL``, default one week).
    """

    seal_keys: tuple[str, ...] = ()
    allow_fixed_decks: bool = False
    max_body: int = 1024 * 1024
    testing: bool = False
    signing_keys: tuple[str, ...] = ()
    ledger_url: str | None = None
    ledger_ttl: int = 7 * 24 * 3600

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
        fair = _fair_play(env, overrides or {})
        return cls(
            seal_keys=keys,
            allow_fixed_decks=_flag("REFEREE_ALLOW_FIXED_DECKS", raw["ALLOW_FIXED_DECKS"]),
            max_body=max_body,
            testing=_flag("TESTING", raw["TESTING"]),
            **fair,
        )


def _fair_play(env: Mapping[str, str], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """``REFEREE_SIGNING_KEYS``, ``REFEREE_LEDGER_URL``, ``REFEREE_LEDGER_TTL`` (overrides:
    ``SIGNING_KEYS``, ``LEDGER_URL``, ``LEDGER_TTL``), checked."""
    from .ledger import check_url
    from .records import parse_signing_key

    signing = overrides.get("SIGNING_KEYS", env.get("REFEREE_SIGNING_KEYS", ""))
    if isinstance(signing, str):
        signing = [k.strip() for k in signing.split(",") if k.strip()]
    for i, key in enumerate(signing):
        try:
            parse_signing_key(key)
        except ValueError:
            raise ConfigError(f"REFEREE_SIGNING_KEYS entry {i} is not a base64url Ed25519 private key (32 bytes)") from None
    url = overrides.get("LEDGER_URL", env.get("REFEREE_LEDGER_URL", "")) or None
    if url is not None:
        problem = check_url(str(url))
        if problem:
            raise ConfigError(f"REFEREE_LEDGER_URL: {problem}")
    raw_ttl = overrides.get("LEDGER_TTL", env.get("REFEREE_LEDGER_TTL", str(7 * 24 * 3600)))
    try:
        ttl = int(raw_ttl)
    except (TypeError, ValueError):
        raise ConfigError(f"REFEREE_LEDGER_TTL must be an integer number of seconds, not {raw_ttl!r}") from None
    if not 60 <= ttl <= 366 * 24 * 3600:
        raise ConfigError("REFEREE_LEDGER_TTL must be between 60 seconds and 366 days")
    return {"signing_keys": tuple(signing), "ledger_url": None if url is None else str(url), "ledger_ttl": ttl}
