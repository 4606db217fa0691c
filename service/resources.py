"""Where the service finds the documents it serves: the contract and the rules pages.

A wheel carries them inside the package, under ``service/_bundled/`` (copied there at build time,
so the wheel holds real files whatever the checkout). A checkout or an editable install reads them
from the repository: ``openapi.yaml`` at the root and ``docs/rules/<game_id>.md``.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["openapi_path", "rules_dir"]

_PACKAGE = Path(__file__).resolve().parent
_BUNDLED = _PACKAGE / "_bundled"
_REPO = _PACKAGE.parent


def openapi_path() -> Path:
    """The contract file: the wheel's bundled copy, else the repository's ``openapi.yaml``."""
    for candidate in (_BUNDLED / "openapi.yaml", _PACKAGE / "openapi.yaml"):  # the second: a wheel built before _bundled
        if candidate.is_file():
            return candidate
    return _REPO / "openapi.yaml"


def rules_dir() -> Path:
    """The folder of rules pages (``<game_id>.md``): the wheel's bundled copy, else ``docs/rules``."""
    bundled = _BUNDLED / "rules"
    return bundled if bundled.is_dir() else _REPO / "docs" / "rules"
