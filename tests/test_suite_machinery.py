"""The suite's own machinery: what its test groups and ordering rely on."""

from __future__ import annotations

import os

import pytest


@pytest.mark.xdist_group("probe")
def test_xdist_groups_take_effect(request: pytest.FixtureRequest) -> None:
    """Under pytest-xdist's ``--dist loadgroup`` (the suite's default), a test marked
    ``xdist_group`` carries the group in its node id: that is how xdist keeps a group on one
    worker. Stukolka's §8 coverage check, the client suites' shared servers and the engine
    contract's once-per-case matches all rely on it. pytest 9.2 moved node ids where xdist 3.8
    cannot tag them (hence the pin in pyproject.toml); this test fails if that happens again."""
    if "PYTEST_XDIST_WORKER" not in os.environ or not getattr(request.config.option, "loadgroup", False):  # set by xdist's worker
        pytest.skip("not under pytest-xdist --dist loadgroup")
    assert request.node.nodeid.endswith("@probe"), request.node.nodeid


@pytest.mark.runs_last
def test_runs_last_is_registered_and_honoured(request: pytest.FixtureRequest) -> None:
    """Tests marked ``runs_last`` come after every unmarked test of the session (tests/conftest.py)."""
    items = request.session.items
    marked = [i for i, item in enumerate(items) if item.get_closest_marker("runs_last") is not None]
    assert marked and marked == list(range(len(items) - len(marked), len(items)))


def test_a_missing_component_skips_here_and_fails_on_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    """tests/tools.missing: a broken install step on CI must not pass as skipped tests."""
    from tests import tools

    monkeypatch.setattr(tools, "ON_CI", False)
    with pytest.raises(pytest.skip.Exception, match="redis-server"):
        tools.missing("redis-server is not installed")
    monkeypatch.setattr(tools, "ON_CI", True)
    with pytest.raises(pytest.fail.Exception, match="on CI this is a failure"):
        tools.missing("redis-server is not installed")
