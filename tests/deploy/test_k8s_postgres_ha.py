"""The PostgreSQL ledger choice (issue 30, item 3): k8s/overlays/postgres-ha, rendered by the real
kustomize (``kubectl kustomize``, tests/k8s/render.py) as ``kubectl apply -k`` builds it, and checked
offline: no cluster, no operator.

The overlay is k8s/base plus the component k8s/components/postgres-ha: a CloudNativePG ``Cluster`` of
three instances with a synchronous standby, its NetworkPolicy, the base's Redis removed, and the
referee's ledger URL read from the file of the operator's Secret ``card-referee-pg-app`` (key ``uri``)
over TLS verified against the operator's CA.

Every core object of the render is validated against the Kubernetes schemas (kubernetes-validate,
strict) for the oldest and newest versions supported. The ``Cluster`` (and the optional
``PodMonitor``) are custom resources whose CRD schemas are not to be had here (no PyPI or npm
package ships CloudNativePG's CRD): the Cluster is checked field by field against the fields the
operator documents for the parts used (an unknown or misspelt field is an error, as the API server's
strict field validation would make it) and for the values the ledger's guarantee needs.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from tests.deploy.test_manifests import KUBERNETES_VERSIONS, dns_rule_problems
from tests.k8s.render import K8S, index, render

OVERLAY = K8S / "overlays" / "postgres-ha"
COMPONENT = K8S / "components" / "postgres-ha"
PODMONITOR = K8S / "components" / "postgres-ha-podmonitor"
CRD_GROUPS = ("postgresql.cnpg.io/", "monitoring.coreos.com/")
CLUSTER = "card-referee-pg"
API_LABELS = {"app.kubernetes.io/name": "card-referee", "app.kubernetes.io/component": "api"}
PG_LABELS = {"cnpg.io/cluster": CLUSTER}  # the operator's label on every pod of the cluster
OPERATOR = {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "cnpg-system"}},
            "podSelector": {"matchLabels": {"app.kubernetes.io/name": "cloudnative-pg"}}}
MONITORING = {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}

Objects = dict[tuple[str, str], dict[str, Any]]


@pytest.fixture(scope="module")
def overlay() -> Objects:
    return index(render(OVERLAY))


@pytest.fixture(scope="module")
def default() -> Objects:
    return index(render(K8S))


# --- the layout ------------------------------------------------------------------------------------


def _kustomization(directory: Path) -> dict[str, Any]:
    data = yaml.safe_load((directory / "kustomization.yaml").read_text())
    assert isinstance(data, dict)
    return data


def test_the_overlay_is_the_base_plus_the_component() -> None:
    """`kubectl apply -k k8s/overlays/postgres-ha` builds on k8s/base (an overlay cannot build on
    k8s/ itself, which contains it: kustomize refuses the cycle) and adds the component."""
    assert _kustomization(OVERLAY)["resources"] == ["../../base"]
    assert _kustomization(OVERLAY)["components"] == ["../../components/postgres-ha"]
    component = _kustomization(COMPONENT)
    assert (component["apiVersion"], component["kind"]) == ("kustomize.config.k8s.io/v1alpha1", "Component")
    assert _kustomization(PODMONITOR)["kind"] == "Component"
    assert "# - ../../components/postgres-ha-podmonitor" in (OVERLAY / "kustomization.yaml").read_text()


def test_the_default_still_deploys_the_single_redis(default: Objects) -> None:
    """`kubectl apply -k k8s/` is unchanged by the new layout: the referee and its one Redis."""
    assert {name for _, name in default} == {"card-referee", "card-referee-ledger"}
    assert ("StatefulSet", "card-referee-ledger") in default and ("PodDisruptionBudget", "card-referee-ledger") in default
    assert not any(kind == "Cluster" for kind, _ in default)


# --- schemas ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
@pytest.mark.parametrize("which", ["default", "overlay"])
def test_every_rendered_core_object_is_valid_against_the_kubernetes_schema(which: str, version: str, request: pytest.FixtureRequest) -> None:
    objects: Objects = request.getfixturevalue(which)
    core = [obj for obj in objects.values() if not obj["apiVersion"].startswith(CRD_GROUPS)]
    assert len(core) >= 6
    for obj in core:
        kubernetes_validate.validate(obj, version, strict=True)
    custom = sorted(kind for (kind, _), obj in objects.items() if obj["apiVersion"].startswith(CRD_GROUPS))
    assert custom == (["Cluster"] if which == "overlay" else [])


# --- no Redis left ---------------------------------------------------------------------------------


def test_no_redis_is_left_in_the_postgres_overlay(overlay: Objects) -> None:
    assert not [key for key in overlay if key[1] == "card-referee-ledger"]
    text = yaml.safe_dump(list(overlay.values())).lower()
    assert "redis" not in text and "6379" not in text
    pod = overlay[("Deployment", "card-referee")]["spec"]["template"]["spec"]
    assert not [v for v in pod["volumes"] if v.get("secret", {}).get("secretName") == "card-referee-ledger"]


# --- the Cluster -----------------------------------------------------------------------------------

# The fields the operator documents (CloudNativePG 1.28 API reference) for the parts of a Cluster
# this component sets; any other key there is a misspelling the API server would refuse.
DOCUMENTED = {
    "spec": {"affinity", "backup", "bootstrap", "certificates", "description", "enablePDB", "enableSuperuserAccess", "env",
             "envFrom", "ephemeralVolumeSource", "ephemeralVolumesSizeLimit", "externalClusters", "failoverDelay",
             "imageCatalogRef", "imageName", "imagePullPolicy", "imagePullSecrets", "inheritedMetadata", "instances",
             "livenessProbeTimeout", "logLevel", "managed", "maxSyncReplicas", "minSyncReplicas", "monitoring",
             "nodeMaintenanceWindow", "plugins", "podSecurityContext", "postgresGID", "postgresUID", "postgresql",
             "primaryUpdateMethod", "primaryUpdateStrategy", "priorityClassName", "probes", "projectedVolumeTemplate",
             "replica", "replicationSlots", "resources", "schedulerName", "seccompProfile", "securityContext",
             "serviceAccountName", "serviceAccountTemplate", "smartShutdownTimeout", "startDelay", "stopDelay", "storage",
             "superuserSecret", "switchoverDelay", "tablespaces", "topologySpreadConstraints", "walStorage"},
    "spec.postgresql": {"enableAlterSystem", "extensions", "ldap", "parameters", "pg_hba", "pg_ident", "promotionTimeout",
                        "shared_preload_libraries", "syncReplicaElectionConstraint", "synchronous"},
    "spec.postgresql.synchronous": {"dataDurability", "failoverQuorum", "maxStandbyNamesFromCluster", "method", "number",
                                    "standbyNamesPost", "standbyNamesPre"},
    "spec.bootstrap": {"initdb", "pg_basebackup", "recovery"},
    "spec.bootstrap.initdb": {"builtinLocale", "dataChecksums", "database", "encoding", "icuLocale", "icuRules", "import",
                              "locale", "localeCType", "localeCollate", "localeProvider", "options", "owner",
                              "postInitApplicationSQL", "postInitApplicationSQLRefs", "postInitSQL", "postInitSQLRefs",
                              "postInitTemplateSQL", "postInitTemplateSQLRefs", "secret", "walSegmentSize"},
    "spec.storage": {"pvcTemplate", "resizeInUseVolumes", "size", "storageClass"},
    "spec.affinity": {"additionalPodAffinity", "additionalPodAntiAffinity", "enablePodAntiAffinity", "nodeAffinity",
                      "nodeSelector", "podAntiAffinityType", "tolerations", "topologyKey"},
    "spec.inheritedMetadata": {"annotations", "labels"},
    "spec.resources": {"claims", "limits", "requests"},
}
# Parameters the operator sets itself and refuses in `parameters`.
OPERATOR_OWNED = {"synchronous_standby_names", "port", "listen_addresses", "ssl", "ssl_ca_file", "ssl_cert_file", "ssl_key_file",
                  "wal_level", "hot_standby", "archive_mode", "archive_command", "primary_conninfo"}


def _at(obj: dict[str, Any], dotted: str) -> Any:
    for key in dotted.split(".")[1:]:
        obj = obj.get(key, {})
    return obj


def _cluster_problems(cluster: dict[str, Any]) -> list[str]:
    """What keeps the Cluster from being the ledger issue 30 asks for; empty when nothing does."""
    problems = []
    if (cluster.get("apiVersion"), cluster.get("kind"), cluster["metadata"].get("name")) != ("postgresql.cnpg.io/v1", "Cluster", CLUSTER):
        problems.append("not the postgresql.cnpg.io/v1 Cluster card-referee-pg")
    for where, known in DOCUMENTED.items():
        unknown = set(_at({"spec": cluster["spec"]}, "." + where)) - known
        if unknown:
            problems.append(f"{where}: fields the operator does not document: {sorted(unknown)}")
    spec = cluster["spec"]
    if spec.get("instances") != 3:
        problems.append("not three instances")
    if spec.get("postgresql", {}).get("synchronous") != {"method": "any", "number": 1, "dataDurability": "required", "failoverQuorum": True}:
        problems.append("not one synchronous standby of two, required, with quorum failover")
    if {"minSyncReplicas", "maxSyncReplicas"} & set(spec):
        problems.append("the deprecated minSyncReplicas/maxSyncReplicas beside the synchronous stanza")
    parameters = spec.get("postgresql", {}).get("parameters", {})
    if parameters.get("synchronous_commit", "on") not in ("on", "remote_apply"):
        problems.append("synchronous_commit lets a commit return before a standby has it")
    if OPERATOR_OWNED & set(parameters) or not all(isinstance(v, str) for v in parameters.values()):
        problems.append("parameters the operator owns, or values that are not strings")
    if spec.get("bootstrap", {}).get("initdb", {}) .get("database") != "referee" or spec["bootstrap"]["initdb"].get("owner") != "referee":
        problems.append("no initdb of database referee owned by referee")
    if spec.get("enablePDB") is not True:
        problems.append("the operator's disruption budgets are not enabled")
    affinity = spec.get("affinity", {})
    if (affinity.get("enablePodAntiAffinity"), affinity.get("podAntiAffinityType"), affinity.get("topologyKey")) != (
            True, "required", "kubernetes.io/hostname"):
        problems.append("instances may share a node")
    if not spec.get("storage", {}).get("size"):
        problems.append("no storage size")
    resources = spec.get("resources", {})
    if set(resources.get("requests", {})) != {"cpu", "memory"} or resources.get("limits", {}).get("memory") != resources["requests"].get("memory"):
        problems.append("no cpu and memory requests, or a memory limit unlike the request")
    if spec.get("enableSuperuserAccess") is not False:
        problems.append("superuser access over the network")
    if "hostnossl referee referee all reject" not in spec.get("postgresql", {}).get("pg_hba", []):
        problems.append("the referee's user may connect without TLS")
    return problems


def test_the_cluster_is_three_instances_with_a_synchronous_standby_and_quorum_failover(overlay: Objects) -> None:
    assert _cluster_problems(overlay[("Cluster", CLUSTER)]) == []


def test_each_cluster_check_can_fail(overlay: Objects) -> None:
    def broken(change: Callable[[dict[str, Any]], Any]) -> list[str]:
        cluster = copy.deepcopy(overlay[("Cluster", CLUSTER)])
        change(cluster["spec"])
        return _cluster_problems(cluster)

    assert broken(lambda s: s.update(instance=3)) == ["spec: fields the operator does not document: ['instance']"]
    assert broken(lambda s: s["postgresql"]["synchronous"].update(dataDurabilty="required")) == [
        "spec.postgresql.synchronous: fields the operator does not document: ['dataDurabilty']",
        "not one synchronous standby of two, required, with quorum failover"]
    assert broken(lambda s: s.update(instances=2)) == ["not three instances"]
    assert broken(lambda s: s["postgresql"]["synchronous"].update(dataDurability="preferred")) == [
        "not one synchronous standby of two, required, with quorum failover"]
    assert broken(lambda s: s["postgresql"]["synchronous"].pop("failoverQuorum")) == [
        "not one synchronous standby of two, required, with quorum failover"]
    assert broken(lambda s: s.update(minSyncReplicas=1, maxSyncReplicas=1)) == [
        "the deprecated minSyncReplicas/maxSyncReplicas beside the synchronous stanza"]
    assert broken(lambda s: s["postgresql"]["parameters"].update(synchronous_commit="local")) == [
        "synchronous_commit lets a commit return before a standby has it"]
    assert broken(lambda s: s["postgresql"]["parameters"].update(synchronous_standby_names="ANY 1 (a)")) == [
        "parameters the operator owns, or values that are not strings"]
    assert broken(lambda s: s["postgresql"]["parameters"].update(max_connections=200)) == [
        "parameters the operator owns, or values that are not strings"]
    assert broken(lambda s: s["bootstrap"]["initdb"].update(owner="app")) == ["no initdb of database referee owned by referee"]
    assert broken(lambda s: s.update(enablePDB=False)) == ["the operator's disruption budgets are not enabled"]
    assert broken(lambda s: s["affinity"].update(podAntiAffinityType="preferred")) == ["instances may share a node"]
    assert broken(lambda s: s["storage"].pop("size")) == ["no storage size"]
    assert broken(lambda s: s["resources"]["limits"].update(memory="4Gi")) == [
        "no cpu and memory requests, or a memory limit unlike the request"]
    assert broken(lambda s: s.update(enableSuperuserAccess=True)) == ["superuser access over the network"]
    assert broken(lambda s: s["postgresql"].pop("pg_hba")) == ["the referee's user may connect without TLS"]


# --- the referee's ledger settings -----------------------------------------------------------------


def test_the_referee_reads_its_ledger_url_from_the_cnpg_app_secret_over_verified_tls(overlay: Objects) -> None:
    """REFEREE_LEDGER_URL_FILE names the `uri` key of the operator's `<cluster>-app` Secret (a URL
    to the -rw Service, which follows the primary through a failover); libpq's PG* variables add
    what that URL leaves out: verify-full against the operator's CA (`<cluster>-ca`, key ca.crt,
    never its ca.key). Read-write sessions only is the referee's own default
    (service/ledger.py adds target_session_attrs=read-write when the URL does not say)."""
    pod = overlay[("Deployment", "card-referee")]["spec"]["template"]["spec"]
    (referee,) = pod["containers"]
    env = {e["name"]: e.get("value") for e in referee["env"]}
    assert not any("valueFrom" in e for e in referee["env"])  # no secret's value in the environment
    files = {}
    secrets = {v["name"]: v["secret"] for v in pod["volumes"] if "secret" in v}
    for mount in referee["volumeMounts"]:
        assert "subPath" not in mount  # whole directories: the kubelet keeps renewed files current
        for item in secrets.get(mount["name"], {}).get("items", []):
            files[f"{mount['mountPath']}/{item['path']}"] = (secrets[mount["name"]]["secretName"], item["key"])
    assert files[env["REFEREE_LEDGER_URL_FILE"]] == (f"{CLUSTER}-app", "uri")
    assert "REFEREE_LEDGER_URL" not in env
    assert env["PGSSLMODE"] == "verify-full"
    assert files[env["PGSSLROOTCERT"]] == (f"{CLUSTER}-ca", "ca.crt")
    assert (f"{CLUSTER}-ca", "ca.key") not in files.values()
    assert set(env) == {"PGSSLMODE", "PGSSLROOTCERT", "PROMETHEUS_MULTIPROC_DIR", "REFEREE_LEDGER_URL_FILE"}
    assert {secret["secretName"] for secret in secrets.values()} == {f"{CLUSTER}-app", f"{CLUSTER}-ca", "card-referee-seal-keys"}
    assert all(secret["defaultMode"] == 0o440 for secret in secrets.values())


# --- network policies ------------------------------------------------------------------------------


def _selects(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    return set(selector) == {"matchLabels"} and selector["matchLabels"].items() <= labels.items()


def _ports(rule: dict[str, Any]) -> set[int]:
    return {p["port"] for p in rule.get("ports", [])}


def _policy_problems(objects: Objects) -> list[str]:
    """Where the NetworkPolicies disagree with each other or with what runs: the referee's pods
    reach the PostgreSQL pods on 5432 and only there (and DNS); those pods admit the referee, each
    other and the operator on the ports each needs, and nothing else."""
    problems = []
    referee = objects[("NetworkPolicy", "card-referee")]["spec"]
    pg = objects[("NetworkPolicy", CLUSTER)]["spec"]
    api_pods = objects[("Deployment", "card-referee")]["spec"]["template"]["metadata"]["labels"]
    if not _selects(referee["podSelector"], api_pods) or not _selects(pg["podSelector"], PG_LABELS) or _selects(pg["podSelector"], api_pods):
        problems.append("a policy does not select the pods it is for")
    to_pods = [rule for rule in referee["egress"] if rule.get("to")]
    if [([peer["podSelector"]["matchLabels"] for peer in rule["to"]], _ports(rule)) for rule in to_pods] != [([PG_LABELS], {5432})]:
        problems.append("the referee reaches more, or other, than the PostgreSQL pods on 5432")
    if [rule for rule in referee["egress"] if not rule.get("to") and dns_rule_problems(rule)]:
        problems.append("the referee's policy opens a port to any address other than DNS")
    admitted: dict[str, set[int]] = {}
    for rule in pg.get("ingress", []):
        for peer in rule.get("from", [{"anyone": True}]):
            if peer == {"podSelector": {"matchLabels": API_LABELS}}:
                who = "referee"
            elif peer == {"podSelector": {"matchLabels": PG_LABELS}}:
                who = "peers"
            elif peer == OPERATOR:
                who = "operator"
            elif peer == MONITORING:
                who = "monitoring"
            else:
                who = "someone else"
            admitted.setdefault(who, set()).update(_ports(rule) or {0})
    if admitted != {"referee": {5432}, "peers": {5432, 8000}, "operator": {5432, 8000}, "monitoring": {9187}}:
        problems.append(f"the PostgreSQL pods admit {admitted}")
    if set(pg.get("policyTypes", [])) != {"Ingress", "Egress"}:
        problems.append("the PostgreSQL pods' policy does not cover both directions")
    out = [(rule.get("to"), _ports(rule)) for rule in pg.get("egress", [])]
    if ([{"podSelector": {"matchLabels": PG_LABELS}}], {5432, 8000}) not in out:
        problems.append("the PostgreSQL pods cannot reach each other")
    if [to for to, ports in out if to is None and ports not in ({53}, {443, 6443})]:
        problems.append("the PostgreSQL pods may open more than DNS and the API server to any address")
    if [rule for rule in pg.get("egress", []) if _ports(rule) == {53} and dns_rule_problems(rule)]:
        problems.append("the PostgreSQL pods' DNS rule is not port 53 to any address")
    return problems


def test_the_network_policies_agree_with_each_other_and_with_the_pods(overlay: Objects) -> None:
    assert _policy_problems(overlay) == []
    # The ports admitted are the ones served: the Cluster's instances listen on 5432 (fixed by the
    # operator), the status endpoint on 8000, the exporter on 9187 (the PodMonitor's `metrics`).
    assert overlay[("Cluster", CLUSTER)]["spec"]["postgresql"].get("parameters", {}).get("port") is None


def test_each_policy_check_can_fail(overlay: Objects) -> None:
    def broken(change: Callable[[dict[str, Any], dict[str, Any]], Any]) -> list[str]:
        objects = copy.deepcopy(overlay)
        change(objects[("NetworkPolicy", "card-referee")]["spec"], objects[("NetworkPolicy", CLUSTER)]["spec"])
        return _policy_problems(objects)

    assert broken(lambda _, pg: pg["podSelector"]["matchLabels"].update({"cnpg.io/cluster": "other"})) == [
        "a policy does not select the pods it is for"]
    assert broken(lambda ref, _: ref["egress"][0]["ports"].append({"port": 6379, "protocol": "TCP"})) == [
        "the referee reaches more, or other, than the PostgreSQL pods on 5432"]
    assert broken(lambda ref, _: ref["egress"].append({"ports": [{"port": 443, "protocol": "TCP"}]})) == [
        "the referee's policy opens a port to any address other than DNS"]
    assert broken(lambda _, pg: pg["ingress"][0]["ports"].append({"port": 8000, "protocol": "TCP"}))[0].startswith(
        "the PostgreSQL pods admit")
    assert broken(lambda _, pg: pg["ingress"][2]["from"][0].pop("podSelector"))[0].startswith("the PostgreSQL pods admit")
    assert broken(lambda _, pg: pg["ingress"].append({"ports": [{"port": 5432, "protocol": "TCP"}]}))[0].startswith(
        "the PostgreSQL pods admit")
    assert broken(lambda _, pg: pg.update(policyTypes=["Ingress"])) == ["the PostgreSQL pods' policy does not cover both directions"]
    assert broken(lambda _, pg: pg["egress"].pop(0)) == ["the PostgreSQL pods cannot reach each other"]
    assert broken(lambda _, pg: pg["egress"].append({"ports": [{"port": 22, "protocol": "TCP"}]})) == [
        "the PostgreSQL pods may open more than DNS and the API server to any address"]
    assert broken(lambda _, pg: pg["egress"][2].update(to=[{"podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}])) == [
        "the PostgreSQL pods' DNS rule is not port 53 to any address"]


# --- disruption budgets ----------------------------------------------------------------------------


def test_budgets_the_referees_own_and_the_operators_for_postgresql(overlay: Objects) -> None:
    """The referee keeps its budget; the Redis budget is gone with Redis; the PostgreSQL pods get
    the operator's two (enablePDB: the primary's, and one for the standbys) and none of ours: two
    budgets over one pod make every eviction of it fail."""
    budgets = {name: obj["spec"] for (kind, name), obj in overlay.items() if kind == "PodDisruptionBudget"}
    assert set(budgets) == {"card-referee"}
    assert budgets["card-referee"]["selector"]["matchLabels"].items() <= API_LABELS.items()
    assert overlay[("Cluster", CLUSTER)]["spec"]["enablePDB"] is True


# --- the optional PodMonitor -----------------------------------------------------------------------


def test_the_podmonitor_component_scrapes_the_exporter_the_policy_admits(tmp_path: Path, overlay: Objects) -> None:
    """With the optional component (where the Prometheus Operator runs), a PodMonitor selects the
    cluster's pods on port `metrics` (9187), which card-referee-pg's policy admits from `monitoring`."""
    (tmp_path / "kustomization.yaml").write_text(yaml.safe_dump({
        "resources": [os.path.relpath(K8S / "base", tmp_path)],
        "components": [os.path.relpath(COMPONENT, tmp_path), os.path.relpath(PODMONITOR, tmp_path)],
    }))
    objects = index(render(tmp_path))
    monitor = objects[("PodMonitor", CLUSTER)]
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    assert monitor["spec"] == {"selector": {"matchLabels": PG_LABELS}, "podMetricsEndpoints": [{"port": "metrics"}]}
    assert {k: v for k, v in objects.items() if k[0] != "PodMonitor"} == overlay
    scrape = [rule for rule in overlay[("NetworkPolicy", CLUSTER)]["spec"]["ingress"] if rule.get("from") == [MONITORING]]
    assert [_ports(rule) for rule in scrape] == [{9187}]
