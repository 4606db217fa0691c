"""Every spec worked example (tests/scenarios/<game_id>/*.yaml), replayed through its engine and
through HTTP in open and sealed mode."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.scenario_runner import game_ids, load_scenarios, run_engine, run_http

SCENARIOS: list[tuple[str, dict[str, Any]]] = [
    (f"{game_id}/{name}", scenario) for game_id in game_ids() for name, scenario in load_scenarios(game_id)
]


@pytest.mark.parametrize("scenario", [s for _, s in SCENARIOS], ids=[i for i, _ in SCENARIOS])
def test_scenario_through_engine(scenario: dict[str, Any]) -> None:
    """Spec §10 examples: the engine reproduces every stated position, legal list, refusal and score."""
    run_engine(scenario)


@pytest.mark.parametrize("scenario", [s for _, s in SCENARIOS], ids=[i for i, _ in SCENARIOS])
def test_scenario_through_http(client: FlaskClient, scenario: dict[str, Any]) -> None:
    """The same examples through the HTTP API in open mode: every envelope checked against openapi.yaml."""
    run_http(client, scenario)


@pytest.mark.parametrize("scenario", [s for _, s in SCENARIOS], ids=[i for i, _ in SCENARIOS])
def test_scenario_through_http_sealed(sealed: FlaskClient, scenario: dict[str, Any]) -> None:
    """And in sealed mode, played by a host with the table key, checked through views."""
    run_http(sealed, scenario, sealed=True)
