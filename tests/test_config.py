"""Config.from_env: sealed when keys are set, validated at start-up, no default secrets."""

from __future__ import annotations

import pytest
from cryptography.fernet import Fernet

from service import create_app
from service.config import Config, ConfigError


def test_open_mode_by_default() -> None:
    cfg = Config.from_env({})
    assert not cfg.sealed and cfg.seal_keys == () and not cfg.allow_fixed_decks and cfg.max_body == 1024 * 1024


def test_keys_from_env_newest_first() -> None:
    a, b = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    cfg = Config.from_env({"REFEREE_SEAL_KEYS": f" {a} , {b} ", "REFEREE_ALLOW_FIXED_DECKS": "true"})
    assert cfg.sealed and cfg.seal_keys == (a, b) and cfg.allow_fixed_decks


@pytest.mark.parametrize("env", [
    {"REFEREE_SEAL_KEYS": "not-a-key"},
    {"REFEREE_ALLOW_FIXED_DECKS": "maybe"},
    {"REFEREE_MAX_BODY": "lots"},
    {"REFEREE_MAX_BODY": "10"},
])
def test_bad_settings_fail_at_start_up(env: dict[str, str]) -> None:
    with pytest.raises(ConfigError):
        Config.from_env(env)


def test_create_app_overrides_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFEREE_SEAL_KEYS", Fernet.generate_key().decode())
    app = create_app({"SEAL_KEYS": []})
    assert app.extensions["referee.sealer"] is None
    monkeypatch.delenv("REFEREE_SEAL_KEYS")
    assert create_app().extensions["referee.sealer"] is None
