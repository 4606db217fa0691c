"""k8s/jobs/ledger-copy.yaml, the one-off Job that moves the ledger from the Redis of k8s/ to the
PostgreSQL of k8s/overlays/postgres-ha (docs/deploy.md, "Moving the ledger to another store"),
checked offline: every object against the Kubernetes schemas (strict), and against what the two
kustomizations render (tests/k8s/render.py): the Secrets and keys it mounts are the ones the
referee reads in each, the stores' pods and ports its temporary rules open are theirs, and its pod
is never taken for the referee's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from tests.k8s.render import index, render

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "k8s"
KUBERNETES_VERSIONS = ("1.32.0", "1.37.0")
DOCS = list(yaml.safe_load_all((K8S / "jobs" / "ledger-copy.yaml").read_text()))
BY_NAME = {(d["kind"], d["metadata"]["name"]): d for d in DOCS}
JOB = BY_NAME[("Job", "card-referee-ledger-copy")]
POD = JOB["spec"]["template"]


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_every_object_of_the_copy_is_valid_against_the_kubernetes_schema(version: str) -> None:
    assert len(DOCS) == 4
    for doc in DOCS:
        kubernetes_validate.validate(doc, version, strict=True)


def test_the_copy_runs_the_command_once_verified_and_locked_down() -> None:
    (container,) = POD["spec"]["containers"]
    command = container["command"]
    assert command[:2] == ["card-referee", "ledger-copy"] and "--verify" in command
    assert "--from-file" in command and "--to-file" in command and "--from" not in command and "--to" not in command
    assert JOB["spec"]["backoffLimit"] == 0 and POD["spec"]["restartPolicy"] == "Never"
    sc = container["securityContext"]
    assert sc["readOnlyRootFilesystem"] and not sc["allowPrivilegeEscalation"] and sc["capabilities"]["drop"] == ["ALL"]
    assert POD["spec"]["automountServiceAccountToken"] is False


def test_the_copys_pod_is_never_the_referees() -> None:
    labels = POD["metadata"]["labels"]
    assert labels["app.kubernetes.io/component"] == "ledger-copy"
    service = index(render(K8S))[("Service", "card-referee")]
    assert not all(labels.get(k) == v for k, v in service["spec"]["selector"].items())


def _volume_source(name: str) -> tuple[str, str, str]:
    """(secret, key, file name) a volume of the copy's pod mounts."""
    (volume,) = [v for v in POD["spec"]["volumes"] if v["name"] == name]
    (item,) = volume["secret"]["items"]
    return volume["secret"]["secretName"], item["key"], item["path"]


def _referee_ledger_volume(objects: dict[tuple[str, str], dict[str, Any]]) -> tuple[str, str]:
    """(secret, key) the referee's REFEREE_LEDGER_URL_FILE comes from, in a render."""
    pod = objects[("Deployment", "card-referee")]["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    path = next(e["value"] for e in container["env"] if e["name"] == "REFEREE_LEDGER_URL_FILE")
    mount = next(m for m in container["volumeMounts"] if path.startswith(m["mountPath"].rstrip("/") + "/"))
    volume = next(v for v in pod["volumes"] if v["name"] == mount["name"])
    file = path[len(mount["mountPath"].rstrip("/")) + 1 :]
    items = volume["secret"].get("items")
    key = next(i["key"] for i in items if i["path"] == file) if items else file
    return volume["secret"]["secretName"], key


def test_it_copies_from_the_url_the_default_referee_reads_to_the_url_the_overlays_referee_reads() -> None:
    (container,) = POD["spec"]["containers"]
    command = container["command"]
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    for flag, volume in (("--from-file", "from"), ("--to-file", "to")):
        assert command[command.index(flag) + 1] == f"{mounts[volume]}/{_volume_source(volume)[2]}"
    assert _volume_source("from")[:2] == _referee_ledger_volume(index(render(K8S)))
    assert _volume_source("to")[:2] == _referee_ledger_volume(index(render(K8S / "overlays" / "postgres-ha")))
    # ... and verifies the PostgreSQL server as the overlay's referee does
    overlay = index(render(K8S / "overlays" / "postgres-ha"))[("Deployment", "card-referee")]["spec"]["template"]["spec"]
    referee_env = {e["name"]: e.get("value") for e in overlay["containers"][0]["env"]}
    copy_env = {e["name"]: e.get("value") for e in container["env"]}
    assert copy_env["PGSSLMODE"] == referee_env["PGSSLMODE"] == "verify-full"
    assert _volume_source("to-ca")[0] == "card-referee-pg-ca" and copy_env["PGSSLROOTCERT"].startswith(mounts["to-ca"])


def test_the_temporary_rules_open_each_stores_pods_on_its_port_to_the_copy_alone() -> None:
    default, overlay = index(render(K8S)), index(render(K8S / "overlays" / "postgres-ha"))
    redis_pods = default[("StatefulSet", "card-referee-ledger")]["spec"]["template"]["metadata"]["labels"]
    cluster_label = {"cnpg.io/cluster": overlay[("Cluster", "card-referee-pg")]["metadata"]["name"]}
    copy_labels = POD["metadata"]["labels"]
    for name, pods, port in (("card-referee-ledger-copy-redis", redis_pods, 6379), ("card-referee-ledger-copy-pg", cluster_label, 5432)):
        rule = BY_NAME[("NetworkPolicy", name)]["spec"]
        assert all(pods.get(k) == v for k, v in rule["podSelector"]["matchLabels"].items())
        (ingress,) = rule["ingress"]
        (source,) = ingress["from"]
        assert source["podSelector"]["matchLabels"].items() <= copy_labels.items()
        assert [p["port"] for p in ingress["ports"]] == [port]
