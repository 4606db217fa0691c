"""Request ids, readiness and metrics in-process; the gunicorn configuration's own logic."""

from __future__ import annotations

import runpy
import signal
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from service import create_app

ROOT = Path(__file__).resolve().parents[2]


def test_a_well_formed_request_id_is_echoed(client: Any) -> None:
    r = client.get("/healthz", headers={"X-Request-ID": "abc.DEF_123:x-y"})
    assert r.headers["X-Request-ID"] == "abc.DEF_123:x-y"


@pytest.mark.parametrize("given", ["", "has space", "x" * 129, "quote\"", "ünï"])
def test_a_malformed_request_id_is_replaced_by_a_generated_one(client: Any, given: str) -> None:
    r = client.get("/healthz", headers={"X-Request-ID": given})
    rid = r.headers["X-Request-ID"]
    assert rid != given and len(rid) == 32 and int(rid, 16) >= 0


def test_errors_carry_a_request_id_too(client: Any) -> None:
    r = client.post("/v1/games/schnapsen/moves", data="{", content_type="application/json", headers={"X-Request-ID": "e1"})
    assert r.status_code == 400 and r.headers["X-Request-ID"] == "e1"


def test_readiness_is_ready_once_built_and_draining_after_shutdown_begins(client: Any) -> None:
    app = client.application
    assert client.get("/readyz").json == {"status": "ready", "mode": "open"}
    app.extensions["referee.readiness"].begin_shutdown()
    r = client.get("/readyz")
    assert r.status_code == 503 and r.json == {"status": "draining", "mode": "open"}
    assert client.get("/healthz").status_code == 200  # alive while draining: not restarted


def test_readiness_starts_false_and_never_returns_from_draining() -> None:
    from service.observability import Readiness

    r = Readiness()
    assert r.phase == "starting"
    r.mark_ready()
    assert r.phase == "ready"
    r.begin_shutdown()
    r.mark_ready()
    assert r.phase == "draining"


def test_metrics_count_requests_and_illegal_moves_in_process(client: Any) -> None:
    def value(text: str, prefix: str) -> float:
        return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(prefix))

    line = 'referee_illegal_moves_total{code="not_your_turn",game="schnapsen"}'
    before = value(client.get("/metrics").get_data(as_text=True), line)
    env = client.post("/v1/games/schnapsen/new", json={"seed": 5}).json
    r = client.post("/v1/games/schnapsen/check", json={"state": env["state"], "move": {"type": "close", "player": 0}})
    assert r.json["legal"] is False
    text = client.get("/metrics").get_data(as_text=True)
    assert value(text, line) == before + 1
    assert 'route="/v1/games/<game_id>/new"' in text and "referee_http_request_duration_seconds_bucket" in text


def test_unknown_paths_do_not_create_new_metric_labels(client: Any) -> None:
    client.get("/no/such/path/zqx-probe")
    client.post("/v1/games/made-up-game-zqx/new", json={})
    text = client.get("/metrics").get_data(as_text=True)
    assert "zqx" not in text and 'route="(unmatched)"' in text


# --- gunicorn.conf.py -----------------------------------------------------------------------------


@pytest.fixture
def conf(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, Any]:
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    for name in ("REFEREE_BIND", "REFEREE_WORKERS", "REFEREE_TIMEOUT", "REFEREE_MAX_REQUESTS"):
        monkeypatch.delenv(name, raising=False)
    return runpy.run_path(str(ROOT / "gunicorn.conf.py"))


def test_gunicorn_defaults(conf: dict[str, Any]) -> None:
    assert conf["bind"] == "127.0.0.1:8000"
    assert conf["workers"] == 2 * conf["usable_cpus"]() >= 2
    assert conf["worker_class"] == "sync" and conf["control_socket_disable"] is True
    assert conf["timeout"] == 30 and conf["graceful_timeout"] < conf["timeout"]
    assert conf["max_requests"] > 0 and 0 < conf["max_requests_jitter"] < conf["max_requests"]


def test_gunicorn_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    monkeypatch.setenv("REFEREE_BIND", "0.0.0.0:9000")
    monkeypatch.setenv("REFEREE_WORKERS", "5")
    monkeypatch.setenv("REFEREE_MAX_REQUESTS", "0")
    conf = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    assert (conf["bind"], conf["workers"], conf["max_requests"]) == ("0.0.0.0:9000", 5, 0)
    monkeypatch.setenv("REFEREE_WORKERS", "-1")
    with pytest.raises(ValueError, match="REFEREE_WORKERS"):
        runpy.run_path(str(ROOT / "gunicorn.conf.py"))


def test_on_starting_clears_stale_metric_files(conf: dict[str, Any], tmp_path: Path) -> None:
    (tmp_path / "counter_123.db").write_bytes(b"old")
    conf["on_starting"](None)
    assert not list(tmp_path.glob("*.db"))


def test_sigterm_in_a_worker_turns_readiness_to_draining(conf: dict[str, Any]) -> None:
    app = create_app()
    exits: list[int] = []
    worker = SimpleNamespace(wsgi=app, handle_exit=lambda sig, frame: exits.append(sig))
    previous = signal.getsignal(signal.SIGTERM)
    try:
        conf["post_worker_init"](worker)
        handler = signal.getsignal(signal.SIGTERM)
        assert callable(handler)
        handler(signal.SIGTERM, None)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert exits == [signal.SIGTERM]  # gunicorn's own graceful exit still runs
    assert app.extensions["referee.readiness"].phase == "draining"
    assert app.test_client().get("/readyz").status_code == 503
