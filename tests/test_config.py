"""Config.from_env: sealed when keys are set, validated at start-up, no default secrets."""

from __future__ import annotations

from typing import Any

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


# --- trust mode, key sources, CORS origins, metrics listener (issue 15) ------------------------


def test_mode_is_explicit_and_fails_closed() -> None:
    key = Fernet.generate_key().decode()
    assert Config.from_env({"REFEREE_MODE": "open"}).mode == "open"
    assert Config.from_env({"REFEREE_MODE": "sealed", "REFEREE_SEAL_KEYS": key}).sealed
    assert Config.from_env({"REFEREE_SEAL_KEYS": key}).sealed  # keys alone: sealed
    for env in (
        {"REFEREE_MODE": "sealed"},
        {"REFEREE_MODE": "sealed", "REFEREE_SEAL_KEYS": ""},
        {"REFEREE_SEAL_KEYS": ""},  # set but empty: an error, never open
        {"REFEREE_SEAL_KEYS": " ,, "},
        {"REFEREE_MODE": "open", "REFEREE_SEAL_KEYS": key},
        {"REFEREE_MODE": "SEALED-ish"},
        {"REFEREE_SEAL_KEYS": f"{key},{key}"},
        {"REFEREE_SEAL_KEYS": key, "REFEREE_SEAL_KEYS_FILE": "/x"},
        {"REFEREE_SEAL_KEYS_FILE": ""},
    ):
        with pytest.raises(ConfigError):
            Config.from_env(env)
    with pytest.raises(ConfigError, match="REFEREE_MODE=sealed"):
        create_app({"MODE": "sealed", "SEAL_KEYS": []})


def test_keys_from_a_file_one_per_line_newest_first(tmp_path: Any) -> None:
    a, b = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    path = tmp_path / "keys"
    path.write_text(f"{a}\n{b}\n")
    cfg = Config.from_env({"REFEREE_MODE": "sealed", "REFEREE_SEAL_KEYS_FILE": str(path)})
    assert cfg.seal_keys == (a, b)
    path.write_text("   \n")
    with pytest.raises(ConfigError, match="holds no key"):
        Config.from_env({"REFEREE_SEAL_KEYS_FILE": str(path)})
    path.write_text(a[:-2])
    with pytest.raises(ConfigError, match="not a Fernet key"):
        Config.from_env({"REFEREE_SEAL_KEYS_FILE": str(path)})


def test_body_limits_cors_origins_and_metrics_bind() -> None:
    cfg = Config.from_env({})
    assert dict(cfg.body_limits) == {"new": 16384, "state": 65536, "moves": 65536, "check": 65536, "replay": 1048576}
    assert cfg.cors_origins == () and cfg.metrics_port is None and cfg.probe_port is None
    cfg = Config.from_env({"REFEREE_MAX_STATE_BODY": "131072", "REFEREE_MAX_BODY": "100000",
                           "REFEREE_CORS_ORIGINS": "https://a.example, http://localhost:5173/", "REFEREE_METRICS_BIND": "0.0.0.0:9100",
                           "REFEREE_PROBE_BIND": "0.0.0.0:8081"})
    assert cfg.body_limits["moves"] == 100000  # never above the replay (largest) limit
    assert cfg.cors_origins == ("https://a.example", "http://localhost:5173") and cfg.metrics_port == 9100 and cfg.probe_port == 8081
    for env in ({"REFEREE_CORS_ORIGINS": "a.example"}, {"REFEREE_CORS_ORIGINS": "https://a.example/path"},
                {"REFEREE_METRICS_BIND": "9100"}, {"REFEREE_PROBE_BIND": "localhost"}, {"REFEREE_PROBE_BIND": "h:70000"},
                {"REFEREE_MAX_STATE_BODY": "12"}):
        with pytest.raises(ConfigError):
            Config.from_env(env)


def test_the_finished_match_retention_defaults_to_a_day_and_stays_within_the_ledger_ttl() -> None:
    assert Config.from_env({}).ledger_finished_ttl == 24 * 3600
    assert Config.from_env({"REFEREE_LEDGER_FINISHED_TTL": "600"}).ledger_finished_ttl == 600
    assert Config.from_env({"REFEREE_LEDGER_TTL": "3600"}).ledger_finished_ttl == 3600  # the default, capped by the entry's own
    for env in ({"REFEREE_LEDGER_FINISHED_TTL": "59"}, {"REFEREE_LEDGER_FINISHED_TTL": "a day"},
                {"REFEREE_LEDGER_TTL": "3600", "REFEREE_LEDGER_FINISHED_TTL": "3601"}):
        with pytest.raises(ConfigError, match="REFEREE_LEDGER_FINISHED_TTL"):
            Config.from_env(env)


# --- the ledger URL from a mounted file (issue 30) ------------------------------------------------


def test_the_ledger_url_from_a_file_holding_it(tmp_path: Any) -> None:
    """REFEREE_LEDGER_URL_FILE names a file holding the URL (a mounted Secret's key, e.g. a
    CloudNativePG cluster's ``<cluster>-app`` secret's ``uri``): read, its newline stripped, checked
    as the variable itself is; never quoted in an error (it holds the password)."""
    path = tmp_path / "uri"
    path.write_text("postgresql://app:s3cret@db-rw:5432,db-ro:5432/app?target_session_attrs=read-write\n")
    cfg = Config.from_env({"REFEREE_LEDGER_URL_FILE": str(path)})
    assert cfg.ledger_url == "postgresql://app:s3cret@db-rw:5432,db-ro:5432/app?target_session_attrs=read-write"
    path.write_text("redis://:pw@ledger:6379/0")
    assert Config.from_env({"REFEREE_LEDGER_URL_FILE": str(path)}).ledger_url == "redis://:pw@ledger:6379/0"
    assert Config.from_env({}).ledger_url is None


@pytest.mark.parametrize(("env", "says"), [
    ({"REFEREE_LEDGER_URL": "redis://h/0", "REFEREE_LEDGER_URL_FILE": "uri"}, "not both"),
    ({"REFEREE_LEDGER_URL": "", "REFEREE_LEDGER_URL_FILE": "uri"}, "not both"),
    ({"REFEREE_LEDGER_URL_FILE": " "}, "set but empty"),
    ({"REFEREE_LEDGER_URL_FILE": "missing"}, "cannot be read: FileNotFoundError"),
    ({"REFEREE_LEDGER_URL_FILE": "empty"}, "holds no URL"),
    ({"REFEREE_LEDGER_URL_FILE": "two"}, "one URL only"),
    ({"REFEREE_LEDGER_URL_FILE": "nohost"}, "REFEREE_LEDGER_URL_FILE: a postgresql URL needs a host"),
    ({"REFEREE_LEDGER_URL_FILE": "mysql"}, "REFEREE_LEDGER_URL_FILE: the ledger URL must start with"),
])
def test_the_ledger_url_file_refuses_clearly(tmp_path: Any, env: dict[str, str], says: str) -> None:
    files = {"uri": "redis://h/0", "empty": "\n\n", "two": "redis://a/0\nredis://b/0\n", "nohost": "postgresql:///app?user=u&password=hunter2",
             "mysql": "mysql://u:hunter2@h/db"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    env = {k: (str(tmp_path / v) if k.endswith("_FILE") and v.strip() else v) for k, v in env.items()}
    with pytest.raises(ConfigError, match=says) as refused:
        Config.from_env(env)
    assert "hunter2" not in str(refused.value)


def test_postgresql_ledger_urls_are_checked() -> None:
    for url in ("postgresql://u@h/db", "postgres://u:p@h:5432/db", "postgresql://u@h1:5432,h2:5433/db?target_session_attrs=read-write",
                "postgresql:///db?host=/var/run/postgresql", "postgresql://u@[::1]:5432/db?sslmode=verify-full"):
        assert Config.from_env({"REFEREE_LEDGER_URL": url}).ledger_url == url
    for url, says in (("postgresql:///db", "needs a host"), ("postgresql://u@h/db?nosuchoption=1", "libpq cannot read")):
        with pytest.raises(ConfigError, match=says):
            Config.from_env({"REFEREE_LEDGER_URL": url})


def test_the_gunicorn_master_checks_postgresql_urls_through_libpq_without_importing_psycopg() -> None:
    """In the master (``keep_psycopg_out_of_this_process``) the same URLs are judged the same, by
    libpq in a child process; psycopg is never imported there, and importing it is refused."""
    import json
    import subprocess
    import sys
    import textwrap
    from pathlib import Path

    script = textwrap.dedent("""
        import sys
        from service.config import Config, ConfigError
        from service.ledger import import_psycopg, keep_psycopg_out_of_this_process
        keep_psycopg_out_of_this_process()
        ok = Config.from_env({"REFEREE_LEDGER_URL": "postgresql://u:hunter2@h1:5432,h2:5433/db?target_session_attrs=read-write"})
        refused = []
        for url in ("postgresql:///db", "postgresql://u:hunter2@h/db?nosuchoption=1"):
            try:
                Config.from_env({"REFEREE_LEDGER_URL": url})
            except ConfigError as exc:
                refused.append(str(exc))
        try:
            import_psycopg()
        except RuntimeError:
            refused.append("import refused")
        import json
        print(json.dumps([ok.ledger_url is not None, refused, "psycopg" in sys.modules]))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True,
                          cwd=Path(__file__).resolve().parents[1])
    ok, refused, imported = json.loads(done.stdout)
    assert ok and not imported
    assert len(refused) == 3 and "needs a host" in refused[0] and "libpq cannot read" in refused[1] and refused[2] == "import refused"
    assert not any("hunter2" in r for r in refused)
