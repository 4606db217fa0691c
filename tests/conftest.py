"""Fixtures: the app in open and sealed mode, and a client that checks every response against
openapi.yaml (so every API test is also a contract test)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from cryptography.fernet import Fernet
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.exceptions import MethodNotAllowed, NotFound
from werkzeug.routing import RequestRedirect

from service import create_app


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked ``runs_last`` go after every other test, in any given order (scripts/mutate.py
    passes tests quickest first; a check over what its file's tests gathered must still come last)."""
    items.sort(key=lambda item: item.get_closest_marker("runs_last") is not None)  # stable


# Fixed test keys, generated for the suite (never used outside tests).
KEY_NEW = Fernet.generate_key().decode()
KEY_OLD = Fernet.generate_key().decode()
KEY_OTHER = Fernet.generate_key().decode()

EXAMPLE1_DECK = ["AH", "10S", "KD", "QC", "JH", "AS", "QH", "10H", "JD", "KH",
                 "KS", "AD", "JS", "QS", "10C", "AC", "KC", "JC", "QD", "10D"]


def _openapi_path(rule: str) -> str:
    return rule.replace("<", "{").replace(">", "}")


class ContractClient(FlaskClient):
    """A test client whose every response must conform to openapi.yaml."""

    checked = 0

    def open(self, *args: Any, **kwargs: Any) -> Any:
        response = super().open(*args, **kwargs)
        request = response.request
        adapter = self.application.url_map.bind("localhost")
        try:
            rule, _ = adapter.match(request.path, method=request.method, return_rule=True)
            from tests.contract import documented_path

            path = documented_path(request.path, _openapi_path(rule.rule))
        except (NotFound, MethodNotAllowed, RequestRedirect):  # a redirect is outside the contract
            path = None
        from tests.contract import assert_conforms, assert_problem

        body: Any
        if response.mimetype in ("application/json", "application/problem+json"):
            body = json.loads(response.get_data())
        else:
            body = response.get_data(as_text=True)
        if path is None or path.startswith("/docs/"):
            if response.status_code >= 400:
                assert response.mimetype == "application/problem+json", response.get_data()
                assert_problem(body)
        else:
            assert_conforms(request.method, path, response.status_code, response.mimetype, body)
        if 200 <= response.status_code < 300 and isinstance(body, dict):
            from tests.leaks import hidden_cards_shown

            leaked = hidden_cards_shown(self.application, request.path, request.args.get("as"), kwargs.get("json"), body)
            assert not leaked, f"{request.method} {request.full_path} shows hidden cards {sorted(leaked)}"
        ContractClient.checked += 1
        return response


def make_app(**config: Any) -> Flask:
    config.setdefault("TESTING", True)
    app = create_app(config)
    app.test_client_class = ContractClient
    return app


@pytest.fixture(scope="session")
def app() -> Flask:
    """Open mode (no seal keys)."""
    return make_app(SEAL_KEYS=[])


@pytest.fixture(scope="session")
def client(app: Flask) -> Iterator[FlaskClient]:
    yield app.test_client()


@pytest.fixture(scope="session")
def sealed_app() -> Flask:
    """Sealed mode with a rotated key list (newest first); fixed decks allowed for tests."""
    return make_app(SEAL_KEYS=[KEY_NEW, KEY_OLD], ALLOW_FIXED_DECKS=True)


@pytest.fixture(scope="session")
def sealed(sealed_app: Flask) -> Iterator[FlaskClient]:
    yield sealed_app.test_client()


@pytest.fixture(scope="session")
def strict_sealed() -> Iterator[FlaskClient]:
    """Sealed mode as in production: fixed decks refused."""
    yield make_app(SEAL_KEYS=[KEY_NEW]).test_client()
