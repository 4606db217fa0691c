"""k8s/monitoring (the alerts, the dashboard) and docs/runbook.md, checked offline (issue 30, item 4).

- every metric an alert or a dashboard panel names is one the service exports, read from the real
  ``/metrics`` of a gunicorn (multiprocess metrics) serving sealed play on a SQLite ledger after
  it answered a move, an illegal move, a ``token_superseded``, a 404, a 405 and a
  ``ledger_unavailable``; or it is on ``EXTERNAL`` with its exporter, and the runbook names that
  exporter for it;
- every alert has severity, summary, description and a ``runbook_url`` whose anchor is a section
  of docs/runbook.md (and the runbook's own links resolve);
- ``promtool check rules`` on the PrometheusRule's groups, and ``promtool test rules``: series fed
  to the rules make each alert fire, and traffic that should not (no 5xx, ``/readyz`` 503 while a
  pod drains, a few superseded tokens, recycled workers) does not;
- the PrometheusRule and the PodMonitor hold only the fields of the prometheus-operator's CRDs
  (a structural check: the CRDs' own OpenAPI schemas are not in any package this suite installs),
  and the Component renders with ``kubectl kustomize`` when kubectl is there.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import KEY_NEW
from tests.servers import Gunicorn, free_port
from tests.tools import missing

ROOT = Path(__file__).resolve().parents[2]
MONITORING = ROOT / "k8s" / "monitoring"
RUNBOOK = ROOT / "docs" / "runbook.md"
RULE: dict[str, Any] = yaml.safe_load((MONITORING / "prometheusrule.yaml").read_text())
PODMONITOR: dict[str, Any] = yaml.safe_load((MONITORING / "podmonitor.yaml").read_text())
COMPONENT: dict[str, Any] = yaml.safe_load((MONITORING / "kustomization.yaml").read_text())
DASHBOARD: dict[str, Any] = json.loads((MONITORING / "dashboard.json").read_text())
ALERTS = [rule for group in RULE["spec"]["groups"] for rule in group["rules"] if "alert" in rule]

EXTERNAL = {
    "kube_pod_container_status_restarts_total": "kube-state-metrics",
    "kubelet_volume_stats_used_bytes": "kubelet",
    "kubelet_volume_stats_capacity_bytes": "kubelet",
    "container_cpu_usage_seconds_total": "cAdvisor",
    "container_memory_working_set_bytes": "cAdvisor",
    "cnpg_collector_up": "CloudNativePG",
}
"""Metrics the alerts and panels use that the service does not export, and who exports them."""
NOT_ON_SQLITE = {"referee_ledger_limit_bytes": "a store with a memory limit (Redis maxmemory): SQLite has none"}
"""Exported, but not by a SQLite ledger: checked against the names the service declares instead
(tests/deploy/test_ledger_health.py reads it from a real Redis)."""


# --- PromQL: which metrics an expression names --------------------------------------------------

_KEYWORDS = frozenset({"by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "bool",
                       "offset", "inf", "nan"})


def metric_names(expr: str) -> set[str]:
    """The metric names a PromQL expression selects: identifiers that are not functions,
    keywords, label names of a grouping clause, or inside a matcher, a string or a range."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    text = re.sub(r"\{[^}]*\}", " ", text)
    text = re.sub(r"\[[^\]]*\]", " ", text)
    text = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)
    names = set()
    for m in re.finditer(r"(?<![\w$.])([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\()?", text):
        if m.group(2) is None and m.group(1).lower() not in _KEYWORDS:
            names.add(m.group(1))
    return names


def test_metric_names_finds_the_selected_metrics_and_nothing_else() -> None:
    expr = ('histogram_quantile(0.99, sum by (route, le) (rate(x_bucket{a="b{c}", le!="1"}[$__rate_interval]))) '
            '/ on(pod) group_left y > bool 0.5 and z offset 5m or vector(1)')
    assert metric_names(expr) == {"x_bucket", "y", "z"}


def _panels(panels: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for panel in panels:
        yield panel
        yield from _panels(panel.get("panels", []))


def dashboard_queries() -> list[str]:
    """Every query of the dashboard: its panels' targets and its variables' (label_values's metric)."""
    queries = [t["expr"] for p in _panels(DASHBOARD["panels"]) for t in p.get("targets", [])]
    for variable in DASHBOARD["templating"]["list"]:
        if variable["type"] == "query":
            found = re.fullmatch(r"label_values\((\w+),\s*\w+\)", variable["definition"])
            assert found, variable
            queries.append(found.group(1))
    return queries


def used_metrics() -> dict[str, set[str]]:
    """Metric name -> where it is used (alert names, panel titles)."""
    used: dict[str, set[str]] = {}
    for alert in ALERTS:
        for name in metric_names(alert["expr"]):
            used.setdefault(name, set()).add(alert["alert"])
    for query in dashboard_queries():
        for name in metric_names(query):
            used.setdefault(name, set()).add("dashboard")
    return used


# --- the service's real /metrics -------------------------------------------------------------------


def _call(url: str, body: object | None = None, headers: dict[str, str] | None = None, method: str | None = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json", **(headers or {})}, method=method)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            status, raw = r.status, r.read()
    except urllib.error.HTTPError as e:
        status, raw = e.code, e.read()
    text = raw.decode()
    return status, (json.loads(text) if text.startswith("{") else text)


@pytest.fixture(scope="module")
def scraped(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The metrics listener's text after sealed play on a SQLite ledger under gunicorn (two
    workers, multiprocess metrics), with every kind of answer the alerts count."""
    tmp = tmp_path_factory.mktemp("alerts")
    db = tmp / "ledger.db"
    metrics = free_port()
    env = {"REFEREE_MODE": "sealed", "REFEREE_SEAL_KEYS": KEY_NEW, "REFEREE_LEDGER_URL": f"sqlite:///{db}",
           "REFEREE_METRICS_BIND": f"127.0.0.1:{metrics}"}
    with Gunicorn(tmp, workers=2, env=env, name="alerts") as g:
        game = f"{g.url}/v1/games/schnapsen"
        status, first = _call(f"{game}/new?as=to_move", {})
        assert status == 201, first
        table = {"X-Seat-Key": first["table_key"]}
        status, after = _call(f"{game}/moves?as=to_move", {"token": first["token"], "move": first["legal_moves"][0]}, table)
        assert status == 200, after
        status, body = _call(f"{game}/moves", {"token": first["token"], "move": first["legal_moves"][1]}, table)
        assert status == 409 and body["code"] == "token_superseded", body
        wrong = {**after["legal_moves"][0], "player": 1 - after["legal_moves"][0]["player"]}
        status, body = _call(f"{game}/moves", {"token": after["token"], "move": wrong}, table)
        assert status == 422, body
        assert _call(f"{g.url}/no/such/path")[0] == 404
        assert _call(f"{game}/moves", method="GET")[0] == 405
        db.rename(tmp / "aside.db")
        status, body = _call(f"{game}/new", {})
        assert status == 503 and body["code"] == "ledger_unavailable", body
        (tmp / "aside.db").rename(db)
        for _ in range(40):  # both workers have started (the second may still be loading the app after /readyz said ready)
            status, text = _call(f"http://127.0.0.1:{metrics}/metrics")
            assert status == 200
            if "referee_worker_starts_total 2.0" in text:
                break
            time.sleep(0.25)
    assert isinstance(text, str)
    return text


def _samples(text: str) -> set[str]:
    return {line.split("{", 1)[0].split(" ", 1)[0] for line in text.splitlines() if line and not line.startswith("#")}


def _declared() -> set[str]:
    """The metric families the service declares (its registry, in-process), by the names they export."""
    from prometheus_client import REGISTRY

    import service.observability  # noqa: F401  # the families are declared on import

    return {f"{m.name}_total" if m.type == "counter" else m.name for m in REGISTRY.collect()}


def test_every_metric_of_an_alert_or_a_panel_is_exported_or_listed_as_external(scraped: str) -> None:
    exported = _samples(scraped)
    used = used_metrics()
    assert {"referee_http_problems_total", "referee_ledger_errors_total", "kube_pod_container_status_restarts_total"} <= set(used)
    unknown = {name: where for name, where in used.items()
               if name not in exported and name not in EXTERNAL and name not in NOT_ON_SQLITE}
    assert not unknown, f"used but neither exported nor external: {unknown}"
    assert set(NOT_ON_SQLITE) <= _declared()
    assert not set(EXTERNAL) & exported  # an external metric is not the service's
    assert set(EXTERNAL) <= set(used), "an external metric listed but used nowhere"


def test_the_scrape_counts_each_answer_by_its_problem_code(scraped: str) -> None:
    """The exercised app's text: problems by route and code (the ledger's at 0 from the start),
    the ledger's calls by operation and its failure, the workers started."""
    lines = scraped.splitlines()

    def value(prefix: str) -> float:
        return sum(float(line.rsplit(" ", 1)[1]) for line in lines if line.startswith(prefix))

    problems = "referee_http_problems_total{"
    assert value(problems + 'code="token_superseded",route="/v1/games/<game_id>/moves"}') == 1
    assert value(problems + 'code="not_your_turn",route="/v1/games/<game_id>/moves"}') == 1
    assert value(problems + 'code="not_found",route="(unmatched)"}') == 1
    assert value(problems + 'code="method_not_allowed",route="(unmatched)"}') == 1
    assert value(problems + 'code="ledger_unavailable",route="/v1/games/<game_id>/new"}') == 1
    assert problems + 'code="ledger_lost",route="/v1/games/<game_id>/moves"} 0.0' in lines  # there at 0: its alert sees the first
    assert value('referee_ledger_errors_total{operation="register",store="sqlite"}') == 1
    assert value('referee_ledger_operation_duration_seconds_count{operation="advance",store="sqlite"}') == 1
    assert value('referee_ledger_operation_duration_seconds_count{operation="check",store="sqlite"}') >= 2
    assert value("referee_worker_starts_total") == 2
    assert 'code="-"' not in scraped


def test_the_runbook_names_the_exporter_of_every_external_metric() -> None:
    text = RUNBOOK.read_text(encoding="utf-8")
    section = text.split("\n## Metrics from elsewhere\n", 1)[1].split("\n## ", 1)[0]
    for name, exporter in EXTERNAL.items():
        row = next((line for line in section.splitlines() if f"`{name}`" in line), None)
        assert row is not None and exporter in row, (name, exporter)


# --- alerts and the runbook ---------------------------------------------------------------------


def github_anchor(heading: str) -> str:
    """The anchor a Markdown renderer (GitHub's) gives a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def runbook_anchors() -> set[str]:
    return {github_anchor(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", RUNBOOK.read_text(encoding="utf-8"), re.MULTILINE)}


def test_every_alert_has_severity_summary_description_and_its_runbook_section() -> None:
    names = [alert["alert"] for alert in ALERTS]
    assert len(names) == len(set(names)) >= 9
    anchors = runbook_anchors()
    for alert in ALERTS:
        assert alert["labels"]["severity"] in ("critical", "warning"), alert["alert"]
        annotations = alert["annotations"]
        assert set(annotations) == {"summary", "description", "runbook_url"}, alert["alert"]
        path, _, anchor = annotations["runbook_url"].partition("#")
        assert path == "docs/runbook.md" and (ROOT / path).is_file()
        assert anchor == github_anchor(alert["alert"]) and anchor in anchors, alert["alert"]


def test_the_runbooks_own_links_resolve() -> None:
    text = RUNBOOK.read_text(encoding="utf-8")
    anchors = runbook_anchors()
    links = re.findall(r"\]\(#([^)]+)\)", text)
    assert links and not [link for link in links if link not in anchors]
    for heading in ("What it means.", "How to confirm.", "What to do."):
        assert text.count(f"**{heading}**") == len(ALERTS), heading


def test_the_alerts_cover_what_the_issue_asks() -> None:
    names = {alert["alert"] for alert in ALERTS}
    assert names >= {"RefereeLedgerUnavailable", "RefereeLedgerSlow", "RefereeLedgerMemoryNearlyFull",
                     "RefereeLedgerStorageNearlyFull", "RefereeHighErrorRate", "RefereeTokenSupersededSurge",
                     "RefereeLedgerLost", "RefereePodRestarting", "RefereeWorkersRestarting"}


def test_the_docs_index_links_the_runbook() -> None:
    assert "docs/runbook.md" in (ROOT / "README.md").read_text(encoding="utf-8")


# --- promtool ---------------------------------------------------------------------------------------


def _promtool() -> str:
    found = shutil.which("promtool")
    if found is None:
        missing("promtool is not installed (Debian's prometheus package; .ci/run installs it)")
    return found


def _groups(annotations: bool = True) -> dict[str, Any]:
    """The PrometheusRule's groups as a Prometheus rule file (annotations left out for unit tests:
    promtool compares them whole, and their templates are checked by ``check rules``)."""
    groups = json.loads(json.dumps(RULE["spec"]["groups"]))
    if not annotations:
        for group in groups:
            for rule in group["rules"]:
                rule.pop("annotations", None)
    return {"groups": groups}


def test_promtool_checks_the_rules(tmp_path: Path) -> None:
    promtool = _promtool()
    rules = tmp_path / "rules.yaml"
    rules.write_text(yaml.safe_dump(_groups()))
    done = subprocess.run([promtool, "check", "rules", str(rules)], check=False, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"SUCCESS: {len(ALERTS)} rules found" in done.stdout + done.stderr


def test_promtool_refuses_a_broken_rule(tmp_path: Path) -> None:
    """The check above can fail: a PromQL syntax error is refused."""
    promtool = _promtool()
    broken = _groups()
    broken["groups"][0]["rules"][0]["expr"] = "sum by (namespace (referee_ledger_up)"
    rules = tmp_path / "rules.yaml"
    rules.write_text(yaml.safe_dump(broken))
    done = subprocess.run([promtool, "check", "rules", str(rules)], check=False, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0


NS = 'namespace="ns", pod="card-referee-1"'
MOVES = 'route="/v1/games/<game_id>/moves"'


def _case(at: str, alert: str, series: dict[str, str], fires: list[dict[str, str]]) -> dict[str, Any]:
    return {"interval": "1m", "input_series": [{"series": s, "values": v} for s, v in series.items()],
            "alert_rule_test": [{"eval_time": at, "alertname": alert, "exp_alerts": [{"exp_labels": labels} for labels in fires]}]}


UNIT_TESTS = [
    # any ledger_lost fires at once, and stops once it is 10 minutes old
    _case("8m", "RefereeLedgerLost", {f'referee_http_problems_total{{{NS}, {MOVES}, code="ledger_lost"}}': "0x5 1x40"},
          [{"severity": "critical", "namespace": "ns"}]),
    _case("30m", "RefereeLedgerLost", {f'referee_http_problems_total{{{NS}, {MOVES}, code="ledger_lost"}}': "0x5 1x40"}, []),
    _case("8m", "RefereeLedgerLost", {f'referee_http_problems_total{{{NS}, {MOVES}, code="token_superseded"}}': "0x5 1x40"}, []),
    # 5xx: 500s fire; 200s, 409s and a draining pod's /readyz 503 do not
    _case("20m", "RefereeHighErrorRate", {f'referee_http_requests_total{{{NS}, {MOVES}, game="snap", status="200"}}': "0+600x30",
                                          f'referee_http_requests_total{{{NS}, {MOVES}, game="snap", status="500"}}': "0+60x30"},
          [{"severity": "critical", "namespace": "ns"}]),
    _case("20m", "RefereeHighErrorRate", {f'referee_http_requests_total{{{NS}, {MOVES}, game="snap", status="200"}}': "0+600x30",
                                          f'referee_http_requests_total{{{NS}, {MOVES}, game="snap", status="409"}}': "0+60x30",
                                          f'referee_http_requests_total{{{NS}, route="/readyz", game="-", status="503"}}': "0+60x30"}, []),
    # the ledger: down, or its calls failing
    _case("15m", "RefereeLedgerUnavailable", {f'referee_ledger_up{{{NS}, store="redis"}}': "1x5 0x20"},
          [{"severity": "critical", "namespace": "ns", "store": "redis"}]),
    _case("15m", "RefereeLedgerUnavailable", {f'referee_ledger_errors_total{{{NS}, store="postgresql", operation="advance"}}': "0+30x20",
                                              f'referee_ledger_up{{{NS}, store="postgresql"}}': "1x20"},
          [{"severity": "critical", "namespace": "ns", "store": "postgresql"}]),
    _case("15m", "RefereeLedgerUnavailable", {f'referee_ledger_up{{{NS}, store="redis"}}': "1x20",
                                              f'referee_ledger_errors_total{{{NS}, store="redis", operation="advance"}}': "0x20"}, []),
    _case("20m", "RefereeLedgerSlow", {
        f'referee_ledger_operation_duration_seconds_bucket{{{NS}, store="postgresql", operation="advance", le="0.1"}}': "0+10x30",
        f'referee_ledger_operation_duration_seconds_bucket{{{NS}, store="postgresql", operation="advance", le="0.25"}}': "0+10x30",
        f'referee_ledger_operation_duration_seconds_bucket{{{NS}, store="postgresql", operation="advance", le="0.5"}}': "0+100x30",
        f'referee_ledger_operation_duration_seconds_bucket{{{NS}, store="postgresql", operation="advance", le="+Inf"}}': "0+100x30"},
        [{"severity": "warning", "namespace": "ns", "store": "postgresql", "operation": "advance"}]),
    _case("20m", "RefereeLedgerSlow", {
        f'referee_ledger_operation_duration_seconds_bucket{{{NS}, store="redis", operation="advance", le="0.001"}}': "0+100x30",
        f'referee_ledger_operation_duration_seconds_bucket{{{NS}, store="redis", operation="advance", le="+Inf"}}': "0+100x30"}, []),
    _case("10m", "RefereeLedgerMemoryNearlyFull", {f'referee_ledger_used_bytes{{{NS}, store="redis"}}': "850x20",
                                                   f'referee_ledger_limit_bytes{{{NS}, store="redis"}}': "1000x20"},
          [{"severity": "warning", "namespace": "ns", "store": "redis"}]),
    _case("10m", "RefereeLedgerMemoryNearlyFull", {f'referee_ledger_used_bytes{{{NS}, store="redis"}}': "500x20",
                                                   f'referee_ledger_limit_bytes{{{NS}, store="redis"}}': "1000x20"}, []),
    _case("15m", "RefereeLedgerStorageNearlyFull", {
        'kubelet_volume_stats_used_bytes{namespace="ns", persistentvolumeclaim="card-referee-pg-1"}': "90x30",
        'kubelet_volume_stats_capacity_bytes{namespace="ns", persistentvolumeclaim="card-referee-pg-1"}': "100x30",
        'kubelet_volume_stats_used_bytes{namespace="ns", persistentvolumeclaim="someone-else-0"}': "99x30",
        'kubelet_volume_stats_capacity_bytes{namespace="ns", persistentvolumeclaim="someone-else-0"}': "100x30"},
        [{"severity": "warning", "namespace": "ns", "persistentvolumeclaim": "card-referee-pg-1"}]),
    # old tokens: a surge fires, a few do not
    _case("25m", "RefereeTokenSupersededSurge", {
        f'referee_http_problems_total{{{NS}, {MOVES}, code="token_superseded"}}': "0+120x40",
        f'referee_http_requests_total{{{NS}, {MOVES}, game="snap", status="409"}}': "0+120x40",
        f'referee_http_requests_total{{{NS}, {MOVES}, game="snap", status="200"}}': "0+600x40"},
        [{"severity": "warning", "namespace": "ns"}]),
    _case("25m", "RefereeTokenSupersededSurge", {
        f'referee_http_problems_total{{{NS}, {MOVES}, code="token_superseded"}}': "0+6x40",
        f'referee_http_requests_total{{{NS}, {MOVES}, game="snap", status="200"}}': "0+600x40"}, []),
    # restarts: containers (kube-state-metrics), and workers replaced inside a pod
    _case("10m", "RefereePodRestarting", {
        'kube_pod_container_status_restarts_total{namespace="ns", pod="card-referee-ledger-0", container="redis"}': "0x5 1x20",
        'kube_pod_container_status_restarts_total{namespace="ns", pod="other-app-0", container="redis"}': "0x5 1x20"},
        [{"severity": "warning", "namespace": "ns", "pod": "card-referee-ledger-0", "container": "redis"}]),
    _case("15m", "RefereeWorkersRestarting", {f"referee_worker_starts_total{{{NS}}}": "2x5 3x25",
                                              f"referee_worker_recycled_total{{{NS}}}": "0x30"},
          [{"severity": "warning", "namespace": "ns", "pod": "card-referee-1"}]),
    _case("15m", "RefereeWorkersRestarting", {f"referee_worker_starts_total{{{NS}}}": "2x5 3x25",
                                              f"referee_worker_recycled_total{{{NS}}}": "0x5 1x25"}, []),
]


def test_every_alert_is_shown_firing_by_a_unit_test() -> None:
    fired = {t["alert_rule_test"][0]["alertname"] for t in UNIT_TESTS if t["alert_rule_test"][0]["exp_alerts"]}
    assert fired == {alert["alert"] for alert in ALERTS}


def _run_unit_tests(tmp_path: Path, tests: list[dict[str, Any]]) -> subprocess.CompletedProcess[str]:
    promtool = _promtool()
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump(_groups(annotations=False)))
    suite = {"rule_files": ["rules.yaml"], "evaluation_interval": "1m", "tests": tests}
    (tmp_path / "tests.yaml").write_text(yaml.safe_dump(suite))
    return subprocess.run([promtool, "test", "rules", "tests.yaml"], check=False, cwd=tmp_path, capture_output=True, text=True, timeout=120)


def test_promtool_unit_tests_fire_each_alert_and_spare_healthy_traffic(tmp_path: Path) -> None:
    done = _run_unit_tests(tmp_path, UNIT_TESTS)
    assert done.returncode == 0, done.stdout + done.stderr


def test_promtool_unit_tests_can_fail(tmp_path: Path) -> None:
    """A healthy series said to fire is refused: the unit tests above assert something."""
    wrong = _case("20m", "RefereeHighErrorRate",
                  {f'referee_http_requests_total{{{NS}, {MOVES}, game="snap", status="200"}}': "0+600x30"},
                  [{"severity": "critical", "namespace": "ns"}])
    assert _run_unit_tests(tmp_path, [wrong]).returncode != 0


# --- the manifests -----------------------------------------------------------------------------------

_DURATION = re.compile(r"^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$")
"""The CRD's pattern for a rule's ``for`` (monitoring.coreos.com/v1 PrometheusRule)."""
_RULE_FIELDS = {"alert", "record", "expr", "for", "keep_firing_for", "labels", "annotations"}
_GROUP_FIELDS = {"name", "interval", "rules", "partial_response_strategy", "limit", "query_offset", "labels"}


def test_the_prometheusrule_has_only_the_crds_fields() -> None:
    assert (RULE["apiVersion"], RULE["kind"]) == ("monitoring.coreos.com/v1", "PrometheusRule")
    assert set(RULE) == {"apiVersion", "kind", "metadata", "spec"} and set(RULE["spec"]) == {"groups"}
    for group in RULE["spec"]["groups"]:
        assert set(group) <= _GROUP_FIELDS and group["name"] and group["rules"]
        for rule in group["rules"]:
            assert set(rule) <= _RULE_FIELDS and isinstance(rule["expr"], str), rule
            assert ("alert" in rule) != ("record" in rule)
            assert _DURATION.fullmatch(rule.get("for", "0")), rule
            assert all(isinstance(v, str) for v in {**rule.get("labels", {}), **rule.get("annotations", {})}.values())


def test_the_podmonitor_scrapes_the_referees_metrics_port() -> None:
    from tests.deploy.test_manifests import CONTAINER, DEPLOYMENT

    assert (PODMONITOR["apiVersion"], PODMONITOR["kind"]) == ("monitoring.coreos.com/v1", "PodMonitor")
    spec = PODMONITOR["spec"]
    assert set(spec) == {"selector", "podMetricsEndpoints"}
    assert spec["selector"]["matchLabels"] == DEPLOYMENT["spec"]["selector"]["matchLabels"]
    (endpoint,) = spec["podMetricsEndpoints"]
    assert set(endpoint) <= {"port", "path", "interval", "scrapeTimeout"}
    assert endpoint["port"] == "metrics" and endpoint["path"] == "/metrics"
    assert any(p["name"] == "metrics" for p in CONTAINER["ports"])


def test_the_component_ships_the_dashboard_for_grafanas_sidecar() -> None:
    assert (COMPONENT["apiVersion"], COMPONENT["kind"]) == ("kustomize.config.k8s.io/v1alpha1", "Component")
    assert sorted(COMPONENT["resources"]) == ["podmonitor.yaml", "prometheusrule.yaml"]
    (generated,) = COMPONENT["configMapGenerator"]
    assert generated["options"]["labels"] == {"grafana_dashboard": "1"}
    assert generated["files"] == ["card-referee.json=dashboard.json"]
    assert DASHBOARD["uid"] == "card-referee" and DASHBOARD["panels"]
    titles = {p["title"] for p in _panels(DASHBOARD["panels"])}
    assert {"Traffic by route", "Problems by code", "Latency percentiles", "Ledger up", "Ledger p99 latency by operation",
            "Ledger errors by operation", "Ledger memory used / limit"} <= titles
    ids = [p["id"] for p in _panels(DASHBOARD["panels"])]
    assert len(ids) == len(set(ids))


def test_kustomize_renders_the_component_with_the_referee(tmp_path: Path) -> None:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed: the Component is checked structurally only")
    (tmp_path / "kustomization.yaml").write_text(yaml.safe_dump({
        "apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
        "resources": [os.path.relpath(ROOT / "k8s", tmp_path)], "components": [os.path.relpath(MONITORING, tmp_path)]}))
    done = subprocess.run([kubectl, "kustomize", str(tmp_path)], check=False, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    docs = {(d["kind"], d["metadata"]["name"]): d for d in yaml.safe_load_all(done.stdout) if d}
    assert ("PrometheusRule", "card-referee") in docs and ("PodMonitor", "card-referee") in docs
    dashboard = docs[("ConfigMap", "card-referee-dashboard")]
    assert dashboard["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert json.loads(dashboard["data"]["card-referee.json"]) == DASHBOARD


def runbook_queries() -> list[str]:
    """The runbook's PromQL blocks, one query a line (a line indented further continues the one before)."""
    queries: list[str] = []
    for block in re.findall(r"```promql\n(.*?)```", RUNBOOK.read_text(encoding="utf-8"), re.DOTALL):
        for line in block.splitlines():
            line = line.split("    #", 1)[0].rstrip()
            if line.startswith(" ") and queries:
                queries[-1] += " " + line.strip()
            elif line:
                queries.append(line)
    return queries


def test_the_runbooks_queries_parse_and_name_known_metrics(scraped: str, tmp_path: Path) -> None:
    queries = runbook_queries()
    assert len(queries) >= 15
    exported = _samples(scraped)
    unknown = {name for q in queries for name in metric_names(q)} - exported - set(EXTERNAL) - set(NOT_ON_SQLITE)
    assert not unknown, unknown
    promtool = _promtool()
    rules = {"groups": [{"name": "runbook", "rules": [{"record": f"runbook:query{i}", "expr": q} for i, q in enumerate(queries)]}]}
    (tmp_path / "runbook.yaml").write_text(yaml.safe_dump(rules))
    done = subprocess.run([promtool, "check", "rules", str(tmp_path / "runbook.yaml")], check=False, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
