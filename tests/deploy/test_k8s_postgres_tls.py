"""The PostgreSQL overlay's TLS, tried against a real PostgreSQL (Debian's ``postgresql``, 127.0.0.1).

CloudNativePG's Secret ``card-referee-pg-app`` holds the URL the referee reads (key ``uri``:
``postgresql://referee:<password>@card-referee-pg-rw.<namespace>:5432/referee``), which names no
``sslmode``. The overlay's Deployment therefore sets libpq's own ``PGSSLMODE=verify-full`` and
``PGSSLROOTCERT`` (the operator's CA, ``card-referee-pg-ca``'s ``ca.crt``), which libpq applies to
what a URL leaves out. Here the pod's files are laid out in a temporary directory as the rendered
overlay mounts them, the server gets a certificate shaped as the operator's (its CA, the names of
the ``-rw`` Service), and the referee's own code reads the URL file (``Config.from_env``) and opens
the ledger (``open_ledger(...).ping()``). The host is the Service's name, as in the operator's URL;
``PGHOSTADDR`` sends the connection to 127.0.0.1 while libpq still checks that name.
"""

from __future__ import annotations

import datetime
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.fernet import Fernet
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.k8s.render import K8S, index, render
from tests.tools import missing

CLUSTER = "card-referee-pg"
NAMESPACE = "games"
NAMES = [f"{CLUSTER}-rw", f"{CLUSTER}-rw.{NAMESPACE}", f"{CLUSTER}-rw.{NAMESPACE}.svc", f"{CLUSTER}-rw.{NAMESPACE}.svc.cluster.local"]
"""The -rw Service's names, which the operator's server certificates carry (with the -r and -ro ones)."""


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _cert(subject: str, key: ec.EllipticCurvePrivateKey, issuer: tuple[x509.Certificate, ec.EllipticCurvePrivateKey] | None,
          names: list[str] | None = None) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)])
    builder = (x509.CertificateBuilder().subject_name(name).public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1)))
    if issuer is None:  # a CA, as the operator makes its own
        builder = builder.issuer_name(name).add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        builder = builder.add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
        return builder.sign(key, hashes.SHA256())
    builder = builder.issuer_name(issuer[0].subject).add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
    builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(n) for n in names or []]), critical=False)
    return builder.sign(issuer[1], hashes.SHA256())


def _pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())


@dataclass
class Setup:
    server: Any  # tests.pg.PostgresServer
    pod: Path  # stands for the pod's filesystem
    env: dict[str, str]  # the referee container's environment, paths mapped into `pod`

    def use(self, certificate: str) -> None:
        """Restart the server with one of the certificates made for it."""
        self.server.stop()
        self.server.settings.update(ssl_cert_file=str(self.server.root / f"{certificate}.crt"),
                                    ssl_key_file=str(self.server.root / f"{certificate}.key"))
        self.server.start()


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Setup]:
    from tests import pg

    reason = pg.why_missing()
    if reason:
        missing(reason)
    deployment = index(render(K8S / "overlays" / "postgres-ha"))[("Deployment", "card-referee")]
    pod_spec = deployment["spec"]["template"]["spec"]
    (container,) = pod_spec["containers"]
    pod = tmp_path_factory.mktemp("pod")
    env = {e["name"]: e["value"].replace("/etc/", f"{pod}/etc/") if e["value"].startswith("/etc/") else e["value"]
           for e in container["env"]}

    ca_key, rogue_key = _key(), _key()
    ca, rogue = _cert("card-referee-pg CA", ca_key, None), _cert("card-referee-pg CA", rogue_key, None)
    made = {
        "operator": (_key(), (ca, ca_key), NAMES),  # as the operator makes it
        "rogue": (_key(), (rogue, rogue_key), NAMES),  # the right names, another CA
        "other": (_key(), (ca, ca_key), ["other-pg-rw", f"other-pg-rw.{NAMESPACE}"]),  # the right CA, another cluster's names
    }
    server = pg.PostgresServer("tls")
    for name, (key, issuer, names) in made.items():
        (server.root / f"{name}.crt").write_bytes(_pem(_cert(NAMES[0], key, issuer, names)))
        (server.root / f"{name}.key").write_bytes(_key_pem(key))
        (server.root / f"{name}.key").chmod(0o600)
    server.settings.update(ssl="on", ssl_cert_file=str(server.root / "operator.crt"), ssl_key_file=str(server.root / "operator.key"))
    with server:
        password = secrets.token_hex(16)
        server.sql(f"CREATE ROLE referee LOGIN PASSWORD '{password}'")
        server.sql("CREATE DATABASE referee OWNER referee")
        # The files the rendered Deployment mounts, with what the operator puts in them.
        files = {}
        volumes = {v["name"]: v for v in pod_spec["volumes"]}
        for mount in container["volumeMounts"]:
            for item in volumes[mount["name"]].get("secret", {}).get("items", []):
                files[(volumes[mount["name"]]["secret"]["secretName"], item["key"])] = pod / mount["mountPath"].lstrip("/") / item["path"]
        uri = f"postgresql://referee:{password}@{CLUSTER}-rw.{NAMESPACE}:{server.port}/referee"  # CloudNativePG's form, our port
        for (secret, key), content in {(f"{CLUSTER}-app", "uri"): uri.encode(), (f"{CLUSTER}-ca", "ca.crt"): _pem(ca)}.items():
            files[(secret, key)].parent.mkdir(parents=True, exist_ok=True)
            files[(secret, key)].write_bytes(content)
        yield Setup(server, pod, env)


def _ping(env: dict[str, str]) -> Any:
    """The referee's own path: its configuration reads the URL file, its ledger connects and
    answers. The ledger is returned open (its pool keeps the connection), to be closed by the
    caller; the process's environment is as it was again."""
    from service.config import Config
    from service.ledger import open_ledger

    with pytest.MonkeyPatch.context() as mp:
        for name in ("PGSSLMODE", "PGSSLROOTCERT", "PGSSLCERT", "PGSSLKEY", "PGHOST", "PGPORT", "PGREQUIRESSL", "PGSERVICE"):
            mp.delenv(name, raising=False)
        for name, value in env.items():
            if name.startswith("PG"):
                mp.setenv(name, value)
        mp.setenv("PGHOSTADDR", "127.0.0.1")  # the Service's name, reached here at 127.0.0.1
        config = Config.from_env({"REFEREE_MODE": "sealed", "REFEREE_SEAL_KEYS": Fernet.generate_key().decode(),
                                  "REFEREE_LEDGER_URL_FILE": env["REFEREE_LEDGER_URL_FILE"]})
        assert config.ledger_url is not None and config.ledger_url.startswith("postgresql://referee:")
        ledger = open_ledger(config.ledger_url)
        try:
            ledger.ping()
        except BaseException:
            ledger.close()
            raise
        return ledger


def _ssl_of_the_referees_connections(setup: Setup) -> list[tuple[Any, ...]]:
    return setup.server.sql("SELECT s.ssl, s.version FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) "
                            "WHERE a.usename = 'referee' AND a.application_name = 'card-referee'")


def test_the_referee_connects_over_tls_verified_against_the_operators_ca(setup: Setup) -> None:
    assert setup.env["PGSSLMODE"] == "verify-full"
    setup.use("operator")
    ledger = _ping(setup.env)
    try:
        rows = _ssl_of_the_referees_connections(setup)
    finally:
        ledger.close()
    assert rows and all(ssl for ssl, _ in rows), rows


def test_a_certificate_of_another_ca_or_for_another_name_is_refused(setup: Setup) -> None:
    from service.ledger import LedgerUnavailable

    for certificate in ("rogue", "other"):
        setup.use(certificate)
        with pytest.raises(LedgerUnavailable):
            _ping(setup.env)


def test_without_the_deployments_pgsslmode_any_certificate_would_do(setup: Setup) -> None:
    """What the two variables are for: the operator's URL alone leaves libpq at `prefer`, which
    encrypts but takes the rogue certificate."""
    setup.use("rogue")
    ledger = _ping({k: v for k, v in setup.env.items() if k not in ("PGSSLMODE", "PGSSLROOTCERT")})
    try:
        rows = _ssl_of_the_referees_connections(setup)
    finally:
        ledger.close()
    assert rows and all(ssl for ssl, _ in rows), rows
