"""Configuration from the environment, validated at start-up. No default secrets, ever.

The trust mode is explicit and fails closed:

- ``REFEREE_MODE=sealed``: seal keys are required (``REFEREE_SEAL_KEYS`` or
  ``REFEREE_SEAL_KEYS_FILE``); none, an empty list or a malformed key is a ``ConfigError`` and the
  service does not start.
- ``REFEREE_MODE=open``: plain states are trusted; configuring seal keys as well is a contradiction
  and an error too.
- ``REFEREE_MODE`` unset: sealed as soon as a key source is *set* (even to an empty value, which is
  then an error: an empty ``REFEREE_SEAL_KEYS`` is what a failed key-generation command leaves
  behind), open when neither variable is set at all. The image and ``k8s/`` set ``sealed``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .sealing import check_key

__all__ = ["BODY_OPERATIONS", "Config", "ConfigError"]

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}
_MODES = ("open", "sealed")
KIB = 1024
MIB = 1024 * KIB

#: Operations whose body is limited separately (``Config.body_limits``).
BODY_OPERATIONS = ("new", "state", "moves", "check", "replay")
DEFAULT_NEW_BODY = 16 * KIB
DEFAULT_STATE_BODY = 64 * KIB
DEFAULT_REPLAY_BODY = 1 * MIB
_ORIGIN = re.compile(r"https?://[A-Za-z0-9.\-]+(:[0-9]{1,5})?")


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


def _size(name: str, raw: object, low: int, high: int) -> int:
    try:
        value = int(str(raw).strip())
    except ValueError:
        raise ConfigError(f"{name} must be an integer number of bytes, not {raw!r}") from None
    if not low <= value <= high:
        raise ConfigError(f"{name} must be between {low} and {high} bytes, not {value}")
    return value


def _split_keys(text: str) -> list[str]:
    """Keys separated by commas, spaces or newlines (a mounted file may hold one per line)."""
    return [k for k in re.split(r"[\s,]+", text) if k]


def _inline_or_file(env: Mapping[str, str], name: str, holds: str, encoding: str) -> tuple[str | None, str | None]:
    """(``name``'s value, None), or (the text of the file ``name_FILE`` names, that path): one of
    the two or neither. ``holds``: what the file holds, for the messages."""
    inline = env.get(name)
    path = env.get(f"{name}_FILE")
    if inline is not None and path is not None:
        raise ConfigError(f"set {name} or {name}_FILE, not both")
    if path is None:
        return inline, None
    if not path.strip():
        raise ConfigError(f"{name}_FILE is set but empty: name the file that holds {holds}")
    try:
        return Path(path).read_text(encoding=encoding), path
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{name}_FILE {path!r} cannot be read: {exc.__class__.__name__}") from None


def _keys_from(env: Mapping[str, str]) -> tuple[str, ...] | None:
    """The configured seal keys, or None when no key source is set at all."""
    text, path = _inline_or_file(env, "REFEREE_SEAL_KEYS", "the seal keys", "ascii")
    if text is None:
        return None
    keys = _split_keys(text)
    if not keys:
        raise ConfigError(f"REFEREE_SEAL_KEYS_FILE {path!r} holds no key" if path is not None
                          else "REFEREE_SEAL_KEYS is set but holds no key (did the key-generation command fail?)")
    return tuple(keys)


def _check_keys(keys: tuple[str, ...]) -> None:
    for i, key in enumerate(keys):
        try:
            check_key(key)
        except (ValueError, UnicodeEncodeError):
            raise ConfigError(f"seal key {i} (counting from 0, newest first) is not a Fernet key (32 url-safe base64 bytes)") from None
    if len(set(keys)) != len(keys):
        raise ConfigError("the seal key list names the same key twice")


def _origins(raw: object) -> tuple[str, ...]:
    if isinstance(raw, (list, tuple)):
        items = [str(o).strip() for o in raw]
    else:
        items = [o.strip() for o in str(raw).split(",")]
    origins = tuple(o.rstrip("/") for o in items if o)
    for origin in origins:
        if origin != "*" and not _ORIGIN.fullmatch(origin):
            raise ConfigError(f"REFEREE_CORS_ORIGINS: {origin!r} is not an origin like https://game.example:8443 (or *)")
    return origins


def _listener_port(variable: str, raw: object) -> int | None:
    """The port of a ``host:port`` listener setting (None: empty, no such listener)."""
    text = str(raw or "").strip()
    if not text:
        return None
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"{variable} must be host:port, not {text!r}")
    return int(port)


@dataclass(frozen=True, slots=True)
class Config:
    """The service's settings (every field's variable is in docs/deploy.md).

    ``seal_keys``: Fernet keys, newest first; sealed mode when non-empty (``REFEREE_MODE``,
    ``REFEREE_SEAL_KEYS`` or ``REFEREE_SEAL_KEYS_FILE``). ``allow_fixed_decks``: accept
    ``deck``/``seed``/``replay`` in sealed mode (``REFEREE_ALLOW_FIXED_DECKS``). ``body_limits``:
    bytes a request body may hold, per operation (``REFEREE_MAX_NEW_BODY``,
    ``REFEREE_MAX_STATE_BODY`` for state/moves/check, ``REFEREE_MAX_BODY`` for replay).
    ``cors_origins``: browser origins allowed to call the API (``REFEREE_CORS_ORIGINS``; none by
    default). ``metrics_port``: the port of ``REFEREE_METRICS_BIND``, the only listener that
    answers ``/metrics`` (None: no metrics endpoint at all). ``probe_port``: the port of
    ``REFEREE_PROBE_BIND``, a listener that answers ``/healthz`` and ``/readyz`` only, on
    connections of its own (None: none; the API port answers them as well).

    Fair play (docs/fair-play.md): ``signing_keys``: base64url Ed25519 private keys, newest first,
    that sign match records and verdicts (``REFEREE_SIGNING_KEYS``; default: derived from the seal
    keys). ``retired_signing_keys``: base64url Ed25519 *public* keys of signing keys taken out of
    service, still published and still verifying what they signed, never signing
    (``REFEREE_RETIRED_SIGNING_KEYS``; default none). ``ledger_url``: the rewind guard's store,
    ``redis://host:port/db``, ``postgresql://user@host:port,host2:port/dbname?target_session_attrs=read-write``
    or ``sqlite:///path`` (``REFEREE_LEDGER_URL``, or a file holding it: ``REFEREE_LEDGER_URL_FILE``; default
    none). ``ledger_ttl``: seconds a match's ledger entry lives
    after its last move (``REFEREE_LEDGER_TTL``, default one week). ``ledger_finished_ttl``: seconds
    a finished match's stored moves live after its last move, for retries and resumes of its last
    tokens (``REFEREE_LEDGER_FINISHED_TTL``, default one day, at most ``ledger_ttl``).
    """

    seal_keys: tuple[str, ...] = ()
    allow_fixed_decks: bool = False
    max_body: int = DEFAULT_REPLAY_BODY
    testing: bool = False
    body_limits: Mapping[str, int] = field(
        default_factory=lambda: {
            "new": DEFAULT_NEW_BODY,
            "state": DEFAULT_STATE_BODY,
            "moves": DEFAULT_STATE_BODY,
            "check": DEFAULT_STATE_BODY,
            "replay": DEFAULT_REPLAY_BODY,
        }
    )
    cors_origins: tuple[str, ...] = ()
    metrics_port: int | None = None
    probe_port: int | None = None
    signing_keys: tuple[str, ...] = ()
    retired_signing_keys: tuple[str, ...] = ()
    ledger_url: str | None = None
    ledger_ttl: int = 7 * 24 * 3600
    ledger_finished_ttl: int = 24 * 3600

    @property
    def sealed(self) -> bool:
        return bool(self.seal_keys)

    @property
    def mode(self) -> str:
        return "sealed" if self.sealed else "open"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, overrides: Mapping[str, object] | None = None) -> Config:
        """Read ``REFEREE_*`` variables, then apply ``overrides`` (``MODE``, ``SEAL_KEYS``,
        ``ALLOW_FIXED_DECKS``, ``MAX_BODY``, ``MAX_NEW_BODY``, ``MAX_STATE_BODY``,
        ``CORS_ORIGINS``, ``METRICS_BIND``, ``PROBE_BIND``, ``TESTING``); raise ConfigError on anything unusable.

        A ``SEAL_KEYS`` override (a list or a comma-separated string) replaces every key source of
        the environment; an empty one means no keys (open mode unless ``MODE`` says sealed).
        """
        env = os.environ if environ is None else environ
        over: dict[str, Any] = dict(overrides or {})  # checked value by value below
        mode = str(over.get("MODE", env.get("REFEREE_MODE", ""))).strip().lower()
        if mode and mode not in _MODES:
            raise ConfigError(f"REFEREE_MODE must be 'open' or 'sealed', not {mode!r}")
        if "SEAL_KEYS" in over:
            given = over["SEAL_KEYS"]
            keys: tuple[str, ...] | None = tuple(_split_keys(given) if isinstance(given, str) else given)
            configured = bool(keys)
        else:
            keys = _keys_from(env)
            configured = keys is not None
        if mode == "sealed" and not keys:
            raise ConfigError(
                "REFEREE_MODE=sealed needs seal keys: set REFEREE_SEAL_KEYS (comma-separated, newest first) "
                "or REFEREE_SEAL_KEYS_FILE (a file of keys); refusing to start unsealed"
            )
        if mode == "open" and configured:
            raise ConfigError("REFEREE_MODE=open but seal keys are configured: remove them or set REFEREE_MODE=sealed")
        keys = keys or ()
        _check_keys(keys)

        def setting(name: str, default: str) -> Any:
            return over.get(name, env.get(f"REFEREE_{name}", default))

        replay = _size("REFEREE_MAX_BODY", setting("MAX_BODY", str(DEFAULT_REPLAY_BODY)), KIB, 64 * MIB)
        new = min(replay, _size("REFEREE_MAX_NEW_BODY", setting("MAX_NEW_BODY", str(DEFAULT_NEW_BODY)), KIB, 64 * MIB))
        small = min(replay, _size("REFEREE_MAX_STATE_BODY", setting("MAX_STATE_BODY", str(DEFAULT_STATE_BODY)), KIB, 64 * MIB))
        return cls(
            seal_keys=keys,
            allow_fixed_decks=_flag("REFEREE_ALLOW_FIXED_DECKS", setting("ALLOW_FIXED_DECKS", "0")),
            max_body=replay,
            testing=_flag("TESTING", over.get("TESTING", False)),
            body_limits={"new": new, "state": small, "moves": small, "check": small, "replay": replay},
            cors_origins=_origins(setting("CORS_ORIGINS", "")),
            metrics_port=_listener_port("REFEREE_METRICS_BIND", setting("METRICS_BIND", "")),
            probe_port=_listener_port("REFEREE_PROBE_BIND", setting("PROBE_BIND", "")),
            **_fair_play(env, over),
        )


def _ledger_url_from(env: Mapping[str, str]) -> str | None:
    """``REFEREE_LEDGER_URL``, or the URL held in the file ``REFEREE_LEDGER_URL_FILE`` names (a
    mounted Secret's key: the URL holds the store's password); one of the two, or None."""
    text, path = _inline_or_file(env, "REFEREE_LEDGER_URL", "the ledger URL", "utf-8")
    if path is None:
        return text or None
    url = (text or "").strip()
    if not url:
        raise ConfigError(f"REFEREE_LEDGER_URL_FILE {path!r} holds no URL")
    if len(url.split()) != 1:
        raise ConfigError(f"REFEREE_LEDGER_URL_FILE {path!r} holds more than one line or word: one URL only")
    return url


def _fair_play(env: Mapping[str, str], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """``REFEREE_SIGNING_KEYS``, ``REFEREE_RETIRED_SIGNING_KEYS``, ``REFEREE_LEDGER_URL`` (or
    ``REFEREE_LEDGER_URL_FILE``), ``REFEREE_LEDGER_TTL``, ``REFEREE_LEDGER_FINISHED_TTL`` (overrides: ``SIGNING_KEYS``,
    ``RETIRED_SIGNING_KEYS``, ``LEDGER_URL``, ``LEDGER_TTL``, ``LEDGER_FINISHED_TTL``), checked."""
    from .ledger import check_url
    from .records import parse_public_key, parse_signing_key

    signing = overrides.get("SIGNING_KEYS", env.get("REFEREE_SIGNING_KEYS", ""))
    if isinstance(signing, str):
        signing = [k.strip() for k in signing.split(",") if k.strip()]
    for i, key in enumerate(signing):
        try:
            parse_signing_key(key)
        except ValueError:
            raise ConfigError(f"REFEREE_SIGNING_KEYS entry {i} is not a base64url Ed25519 private key (32 bytes)") from None
    retired = overrides.get("RETIRED_SIGNING_KEYS", env.get("REFEREE_RETIRED_SIGNING_KEYS", ""))
    if isinstance(retired, str):
        retired = _split_keys(retired)
    for i, key in enumerate(retired):
        try:
            parse_public_key(key)
        except ValueError:
            raise ConfigError(
                f"REFEREE_RETIRED_SIGNING_KEYS entry {i} is not a base64url Ed25519 public key (32 bytes, a JWK's x)"
            ) from None
    url = overrides["LEDGER_URL"] or None if "LEDGER_URL" in overrides else _ledger_url_from(env)
    if url is not None:
        problem = check_url(str(url))
        if problem:
            source = "REFEREE_LEDGER_URL_FILE" if "LEDGER_URL" not in overrides and "REFEREE_LEDGER_URL_FILE" in env else "REFEREE_LEDGER_URL"
            raise ConfigError(f"{source}: {problem}")
    raw_ttl = overrides.get("LEDGER_TTL", env.get("REFEREE_LEDGER_TTL", str(7 * 24 * 3600)))
    try:
        ttl = int(raw_ttl)
    except (TypeError, ValueError):
        raise ConfigError(f"REFEREE_LEDGER_TTL must be an integer number of seconds, not {raw_ttl!r}") from None
    if not 60 <= ttl <= 366 * 24 * 3600:
        raise ConfigError("REFEREE_LEDGER_TTL must be between 60 seconds and 366 days")
    raw_finished = overrides.get("LEDGER_FINISHED_TTL", env.get("REFEREE_LEDGER_FINISHED_TTL", str(min(24 * 3600, ttl))))
    try:
        finished_ttl = int(raw_finished)
    except (TypeError, ValueError):
        raise ConfigError(f"REFEREE_LEDGER_FINISHED_TTL must be an integer number of seconds, not {raw_finished!r}") from None
    if not 60 <= finished_ttl <= ttl:
        raise ConfigError(f"REFEREE_LEDGER_FINISHED_TTL must be between 60 seconds and REFEREE_LEDGER_TTL ({ttl})")
    return {"signing_keys": tuple(signing), "retired_signing_keys": tuple(retired), "ledger_url": None if url is None else str(url),
            "ledger_ttl": ttl, "ledger_finished_ttl": finished_ttl}
