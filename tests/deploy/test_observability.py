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


def test_readiness_is_ready_once_built_and_draining_after_shutdown_begins() -> None:
    app = create_app()  # its own app: draining is for good, and the session's app serves other tests
    client = app.test_client()
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


def _metrics() -> str:
    """What the metrics listener answers (service.observability.metrics_wsgi), in-process."""
    from werkzeug.test import Client

    from service.observability import metrics_wsgi

    r = Client(metrics_wsgi).get("/metrics")
    assert r.status_code == 200
    return r.get_data(as_text=True)


def test_metrics_count_requests_and_illegal_moves_in_process(client: Any) -> None:
    def value(text: str, prefix: str) -> float:
        return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(prefix))

    line = 'referee_illegal_moves_total{code="not_your_turn",game="schnapsen"}'
    before = value(_metrics(), line)
    env = client.post("/v1/games/schnapsen/new", json={"seed": 5}).json
    r = client.post("/v1/games/schnapsen/check", json={"state": env["state"], "move": {"type": "close", "player": 0}})
    assert r.json["legal"] is False
    text = _metrics()
    assert value(text, line) == before + 1
    assert 'route="/v1/games/<game_id>/new"' in text and "referee_http_request_duration_seconds_bucket" in text


def test_the_api_has_no_metrics_and_the_metrics_app_nothing_else(client: Any) -> None:
    from werkzeug.test import Client

    from service.observability import metrics_wsgi

    r = client.get("/metrics")
    assert r.status_code == 404 and r.json["code"] == "not_found"
    other = Client(metrics_wsgi).get("/v1/games")
    assert other.status_code == 404 and other.headers["Content-Type"] == "application/problem+json"
    assert Client(metrics_wsgi).post("/metrics").status_code == 405


def test_unknown_paths_do_not_create_new_metric_labels(client: Any) -> None:
    client.get("/no/such/path/zqx-probe")
    client.post("/v1/games/made-up-game-zqx/new", json={})
    text = _metrics()
    assert "zqx" not in text and 'route="(unmatched)"' in text


# --- service/gunicorn_conf.py (what gunicorn.conf.py at the root re-exports) -----------------------------------------------------------------------------


@pytest.fixture
def conf(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, Any]:
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    for name in ("REFEREE_BIND", "REFEREE_WORKERS", "REFEREE_TIMEOUT", "REFEREE_MAX_REQUESTS"):
        monkeypatch.delenv(name, raising=False)
    return runpy.run_path(str(ROOT / "service" / "gunicorn_conf.py"))


def test_gunicorn_defaults(conf: dict[str, Any]) -> None:
    assert conf["bind"] == ["127.0.0.1:8000"]  # no metrics listener unless REFEREE_METRICS_BIND says where
    assert conf["workers"] == 2 * conf["usable_cpus"]() >= 2
    assert conf["worker_class"] == "service.gunicorn_worker.RefereeWorker" and conf["control_socket_disable"] is True
    assert conf["keepalive"] == 5 and conf["worker_connections"] == 1000
    assert conf["timeout"] == 30 and conf["graceful_timeout"] < conf["timeout"]
    assert conf["max_requests"] > 0 and 0 < conf["max_requests_jitter"] < conf["max_requests"]


def test_gunicorn_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    monkeypatch.setenv("REFEREE_BIND", "0.0.0.0:9000")
    monkeypatch.setenv("REFEREE_WORKERS", "5")
    monkeypatch.setenv("REFEREE_MAX_REQUESTS", "0")
    monkeypatch.setenv("REFEREE_METRICS_BIND", "127.0.0.1:9100")
    conf = runpy.run_path(str(ROOT / "service" / "gunicorn_conf.py"))
    assert (conf["bind"], conf["workers"], conf["max_requests"]) == (["0.0.0.0:9000", "127.0.0.1:9100"], 5, 0)
    monkeypatch.setenv("REFEREE_WORKERS", "-1")
    with pytest.raises(ValueError, match="REFEREE_WORKERS"):
        runpy.run_path(str(ROOT / "service" / "gunicorn_conf.py"))


def test_on_starting_clears_stale_metric_files(conf: dict[str, Any], tmp_path: Path) -> None:
    (tmp_path / "counter_123.db").write_bytes(b"old")
    conf["on_starting"](None)
    assert not list(tmp_path.glob("*.db"))


def test_readiness_follows_the_masters_drain_flag_and_requests_close_while_draining(conf: dict[str, Any]) -> None:
    from service.server import DRAIN

    app = create_app()
    worker = SimpleNamespace(wsgi=app)
    conf["post_worker_init"](worker)
    req = SimpleNamespace(must_close=False)
    try:
        conf["pre_request"](worker, req)
        assert app.test_client().get("/readyz").status_code == 200 and req.must_close is False
        DRAIN.set()  # what the master does on SIGTERM
        r = app.test_client().get("/readyz")
        assert r.status_code == 503 and r.json["status"] == "draining"
        conf["pre_request"](worker, req)
        assert req.must_close is True  # gunicorn then answers with Connection: close
        assert app.test_client().get("/healthz").status_code == 200
    finally:
        DRAIN.clear()
    assert app.test_client().get("/readyz").status_code == 200


def test_sigterm_in_a_worker_turns_its_readiness_to_draining() -> None:
    from service.gunicorn_worker import RefereeWorker

    app = create_app()
    worker = RefereeWorker.__new__(RefereeWorker)
    worker.wsgi, worker.alive = app, True
    RefereeWorker.handle_exit(worker, signal.SIGTERM, None)
    assert worker.alive is False  # gunicorn's own graceful exit still runs
    assert app.extensions["referee.readiness"].phase == "draining"
    assert app.test_client().get("/readyz").status_code == 503
    bare = RefereeWorker.__new__(RefereeWorker)  # SIGTERM before the app is loaded: no crash
    bare.alive = True
    RefereeWorker.handle_exit(bare, signal.SIGTERM, None)
    assert bare.alive is False


def test_cgroup_v2_and_v1_cpu_limits_bound_the_worker_count(tmp_path: Path) -> None:
    from service.server import cgroup_cpu_limit, usable_cpus

    v2 = tmp_path / "v2"
    v2.mkdir()
    (v2 / "cpu.max").write_text("150000 100000\n")
    assert cgroup_cpu_limit(v2, "0::/\n") == 1.5 and usable_cpus(v2, "0::/\n") == min(2, usable_cpus(tmp_path / "none", ""))
    (v2 / "cpu.max").write_text("max 100000\n")
    assert cgroup_cpu_limit(v2, "0::/\n") is None
    v1 = tmp_path / "v1"
    (v1 / "cpu,cpuacct").mkdir(parents=True)
    (v1 / "cpu,cpuacct" / "cpu.cfs_quota_us").write_text("100000\n")
    (v1 / "cpu,cpuacct" / "cpu.cfs_period_us").write_text("100000\n")
    assert cgroup_cpu_limit(v1, "4:cpu,cpuacct:/\n") == 1.0 and usable_cpus(v1, "4:cpu,cpuacct:/\n") == 1
    (v1 / "cpu,cpuacct" / "cpu.cfs_quota_us").write_text("-1\n")
    assert cgroup_cpu_limit(v1, "4:cpu,cpuacct:/\n") is None
    nested = v1 / "cpu" / "kubepods" / "pod1"
    nested.mkdir(parents=True)
    (nested / "cpu.cfs_quota_us").write_text("50000\n")
    (nested / "cpu.cfs_period_us").write_text("100000\n")
    assert cgroup_cpu_limit(v1, "3:cpu,cpuacct:/kubepods/pod1\n") == 0.5
    assert usable_cpus(v1, "3:cpu,cpuacct:/kubepods/pod1\n") == 1  # never below one


# --- problem answers by route and code; the ledger's calls; the workers (issue 30, item 4) ------------------------


def _sample(name: str, **labels: str) -> float:
    from prometheus_client import REGISTRY

    return REGISTRY.get_sample_value(name, labels) or 0.0


def _problems(route: str, code: str) -> float:
    return _sample("referee_http_problems_total", route=route, code=code)


def test_a_problem_answer_is_counted_once_by_route_and_code(client: Any) -> None:
    moves, new = "/v1/games/<game_id>/moves", "/v1/games/<game_id>/new"
    before = {key: _problems(*key) for key in [(moves, "invalid_request"), ("(unmatched)", "not_found"),
                                               ("(unmatched)", "method_not_allowed"), (new, "body_too_large"), (new, "invalid_request")]}
    assert client.post("/v1/games/schnapsen/moves", data="{", content_type="application/json").status_code == 400
    assert client.get("/no/such/path/at-all").status_code == 404
    assert client.get("/v1/games/schnapsen/moves").status_code == 405  # refused by routing: no rule matched
    assert client.post("/v1/games/schnapsen/new", data=b"[" * 3_000_000, content_type="application/json").status_code == 413
    assert client.get("/v1/games").status_code == 200  # no problem: nothing counted
    after = {key: _problems(*key) for key in before}
    assert {key: after[key] - before[key] for key in before} == {
        (moves, "invalid_request"): 1, ("(unmatched)", "not_found"): 1, ("(unmatched)", "method_not_allowed"): 1,
        (new, "body_too_large"): 1, (new, "invalid_request"): 0,
    }


def test_an_illegal_move_is_counted_by_its_code_as_a_problem_and_as_an_illegal_move(client: Any) -> None:
    env = client.post("/v1/games/schnapsen/new", json={"seed": 5}).json
    route = "/v1/games/<game_id>/moves"
    before = (_problems(route, "not_your_turn"), _sample("referee_illegal_moves_total", game="schnapsen", code="not_your_turn"))
    r = client.post("/v1/games/schnapsen/moves", json={"state": env["state"], "move": {"type": "close", "player": 1 - env["to_move"][0]}})
    assert r.status_code == 422 and r.json["code"] == "not_your_turn"
    after = (_problems(route, "not_your_turn"), _sample("referee_illegal_moves_total", game="schnapsen", code="not_your_turn"))
    assert (after[0] - before[0], after[1] - before[1]) == (1, 1)


def test_problem_codes_outside_the_documented_list_share_one_label() -> None:
    """The code label is closed: a code that is not in the list given (docs/rules/errors.md in the
    app) is counted as "-", so no series is made for it."""
    from flask import Flask

    from service import observability
    from service.api.problems import problem

    app = Flask("codes")
    observability.install(app, problem_codes={"known_code_zqx"})

    @app.get("/p/<code>")
    def answer(code: str) -> Any:
        return problem({"type": f"/errors/{code}", "title": "t", "status": 409, "code": code, "detail": "d"})

    before = (_problems("/p/<code>", "known_code_zqx"), _problems("/p/<code>", "-"))
    client = app.test_client()
    assert client.get("/p/known_code_zqx").status_code == 409
    for made_up in ("made_up_zqx", "another_zqx", "x" * 200):
        assert client.get(f"/p/{made_up}").status_code == 409
    assert (_problems("/p/<code>", "known_code_zqx") - before[0], _problems("/p/<code>", "-") - before[1]) == (1, 3)
    assert "made_up_zqx" not in _metrics()


def test_the_apps_problem_codes_are_the_documented_ones() -> None:
    from service.api.rules import codes
    from tests.codes import documented

    assert set(codes()) == set(documented()) and len(codes()) >= 80


def _ledger_sample(name: str, operation: str) -> float:
    return _sample(name, store="sqlite", operation=operation)


def test_each_call_to_the_ledger_is_timed_and_each_failure_counted_by_store_and_operation(tmp_path: Path) -> None:
    from tests.conftest import KEY_NEW, make_app

    db = tmp_path / "ledger.db"
    app = make_app(SEAL_KEYS=[KEY_NEW], LEDGER_URL=f"sqlite:///{db}")
    client = app.test_client()
    operations = ("register", "check", "advance", "history", "open")
    count = "referee_ledger_operation_duration_seconds_count"
    before = {op: (_ledger_sample(count, op), _ledger_sample("referee_ledger_errors_total", op)) for op in operations}
    env = client.post("/v1/games/schnapsen/new?as=to_move", json={}).json
    r = client.post("/v1/games/schnapsen/moves", json={"token": env["token"], "move": env["legal_moves"][0]},
                    headers={"X-Seat-Key": env["table_key"]})
    assert r.status_code == 200, r.json
    db.rename(tmp_path / "aside.db")
    r = client.post("/v1/games/schnapsen/new", json={})
    assert r.status_code == 503 and r.json["code"] == "ledger_unavailable"
    (tmp_path / "aside.db").rename(db)
    after = {op: (_ledger_sample(count, op), _ledger_sample("referee_ledger_errors_total", op)) for op in operations}
    delta = {op: (after[op][0] - before[op][0], after[op][1] - before[op][1]) for op in operations}
    # new: one register; the move: one check, one advance; the refused new: one register that failed
    assert delta == {"register": (2, 1), "check": (1, 0), "advance": (1, 0), "history": (0, 0), "open": (0, 0)}
    assert _ledger_sample("referee_ledger_operation_duration_seconds_sum", "advance") > 0
    assert _problems("/v1/games/<game_id>/moves", "ledger_lost") == 0.0  # made at 0 from the start (its alert's increase)
    assert _sample("referee_http_problems_total", route="/v1/games/<game_id>/moves", code="ledger_lost") is not None


def test_a_ledger_that_cannot_be_opened_counts_as_a_failed_open(tmp_path: Path) -> None:
    from tests.conftest import KEY_NEW, make_app

    closed = tmp_path / "no-such-dir" / "ledger.db"  # a directory that does not exist: SQLite cannot open it
    app = make_app(SEAL_KEYS=[KEY_NEW], LEDGER_URL=f"sqlite:///{closed}")
    before = _ledger_sample("referee_ledger_errors_total", "open")
    r = app.test_client().post("/v1/games/schnapsen/new", json={})
    assert r.status_code == 503 and r.json["code"] == "ledger_unavailable"
    assert _ledger_sample("referee_ledger_errors_total", "open") == before + 1


def test_ledger_metrics_keep_to_their_stores_and_operations() -> None:
    from service.ledger import store_name
    from service.observability import LEDGER_OPERATIONS, STORES, LedgerMetrics

    assert [store_name(u) for u in ("redis://h:6379/0", "rediss://h/0", "sqlite:////x.db", "postgresql://a,b/db",
                                    "postgres://h/db", "POSTGRESQL://h/db")] == [
        "redis", "redis", "sqlite", "postgresql", "postgresql", "postgresql"]
    assert STORES == ("redis", "sqlite", "postgresql") and "advance" in LEDGER_OPERATIONS
    measure = LedgerMetrics("postgresql")
    before = _sample("referee_ledger_errors_total", store="postgresql", operation="check")
    measure("check", 0.003, True)
    measure("made_up_operation_zqx", 1.0, True)  # not an operation: not counted, no series
    assert _sample("referee_ledger_errors_total", store="postgresql", operation="check") == before + 1
    assert "made_up_operation_zqx" not in _metrics()
    assert LedgerMetrics("oracle").store == "-"


def test_the_ledger_watch_probe_is_measured_as_usage() -> None:
    from service.ledger import LedgerUnavailable
    from service.observability import LedgerMetrics, LedgerWatch

    class Store:
        answers: list[Any] = [(10, 100), LedgerUnavailable("down")]

        def usage(self) -> tuple[int, int | None]:
            answer = self.answers.pop(0)
            if isinstance(answer, Exception):
                raise answer
            return answer  # type: ignore[no-any-return]

    now = [0.0]
    store = Store()
    watch = LedgerWatch(lambda: store, "redis", clock=lambda: now[0], measure=LedgerMetrics("redis"))  # type: ignore[arg-type,return-value]
    count = ("referee_ledger_operation_duration_seconds_count", "referee_ledger_errors_total")
    before = [_sample(name, store="redis", operation="usage") for name in count]
    watch.refresh()
    now[0] += LedgerWatch.EVERY
    watch.refresh()
    after = [_sample(name, store="redis", operation="usage") for name in count]
    assert [a - b for a, b in zip(after, before, strict=True)] == [2, 1]


def test_worker_starts_and_planned_recycling_are_counted(conf: dict[str, Any]) -> None:
    starts, recycled = "referee_worker_starts_total", "referee_worker_recycled_total"
    before = (_sample(starts), _sample(recycled))
    conf["post_worker_init"](SimpleNamespace(wsgi=create_app()))
    conf["worker_exit"](None, SimpleNamespace(nr=10_500, max_requests=10_500))  # served its max_requests: recycled
    conf["worker_exit"](None, SimpleNamespace(nr=12, max_requests=10_500))  # SIGTERM, shutting down: not a recycling
    conf["worker_exit"](None, SimpleNamespace(nr=12, max_requests=2**63 - 1))  # REFEREE_MAX_REQUESTS=0
    assert (_sample(starts) - before[0], _sample(recycled) - before[1]) == (1, 1)
