"""Tools the tests run come from the running interpreter's own environment, never the caller's PATH.

README's test command runs ``.venv/bin/python -m pytest`` without activating the venv, so
``.venv/bin`` is not on PATH there; a tool found on PATH would be one a developer installed by
hand, which a new machine lacks. ``venv_tool`` finds a console script beside ``sys.executable``
(not resolved: in a venv that is the venv's ``bin``), and ``tool_env`` puts that directory first
on a child's PATH, for tools that start other tools (openapi-python-client runs ruff).
System programs from Debian's packages (node, npm, git, redis-server, chromium) are looked up on
PATH as usual. ``missing`` is how a test says one of them is absent: a skip on a developer's
machine, a failure on CI.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Final, NoReturn

import pytest

BIN = Path(sys.executable).parent


def venv_tool(name: str) -> Path | None:
    """The console script ``name`` installed in this interpreter's environment, or None."""
    path = BIN / name
    return path if path.is_file() and os.access(path, os.X_OK) else None


def tool_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """os.environ with this environment's ``bin`` first on PATH (and ``extra`` on top)."""
    env = {**os.environ, **(extra or {})}
    env["PATH"] = os.pathsep.join([str(BIN), env.get("PATH", os.defpath)])
    return env


ON_CI: Final = os.environ.get("CI", "").lower() not in ("", "0", "false", "no")
"""CI sets ``CI=true``; .ci/run installs every component the suite uses there."""


def missing(reason: str) -> NoReturn:
    """A component the tests need is not on this machine: skip here, but fail on CI, where
    ``.ci/run`` installs it, so that a broken install step cannot pass as skipped tests."""
    if ON_CI:
        pytest.fail(f"{reason}: on CI this is a failure, not a skip (.ci/run installs it)", pytrace=False)
    pytest.skip(reason)
