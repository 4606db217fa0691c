"""Contract fuzzing with schemathesis against openapi.yaml (issue 8, robustness 1).

Generated requests (schema-valid and schema-invalid) to every documented operation, for every
registered game, in three places: the app in-process (open and sealed mode) and a real 2-worker
gunicorn on 127.0.0.1 (multi-worker faults only show there). Plus stateful sequences that follow
the OpenAPI links (new → moves → moves …, check, state). For every response:

- no 5xx;
- status code, content type, headers and body conform to openapi.yaml;
- every 4xx is ``application/problem+json`` with a stable ``code``.

Bounded: ``FUZZ_EXAMPLES`` examples per operation, generation mode (schema-valid, schema-invalid)
and place (default below, about 2,500 requests in all; set ``REFEREE_FUZZ_EXAMPLES`` for a longer
run), derandomized so CI runs are reproducible.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from cryptography.fernet import Fernet
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from service import create_app
from tests.servers import Gunicorn

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
FUZZ_EXAMPLES = int(os.environ.get("REFEREE_FUZZ_EXAMPLES", "60"))
STATEFUL_EXAMPLES = max(5, FUZZ_EXAMPLES // 4)

SEAL_KEY = Fernet.generate_key().decode()


def problem_json_with_code(ctx: Any, response: Any, case: Any) -> bool | None:
    """Every 4xx is application/problem+json with a string ``code`` equal to its ``type``'s tail."""
    if 400 <= response.status_code < 500:
        media = response.headers.get("Content-Type", response.headers.get("content-type", ""))
        media = media[0] if isinstance(media, list) else media
        assert media.startswith("application/problem+json"), f"{response.status_code} with {media!r}"
        body = json.loads(response.content)
        assert isinstance(body.get("code"), str) and body["code"], body
        assert body["type"] == f"/errors/{body['code']}" and body["status"] == response.status_code, body
    return None


CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    problem_json_with_code,
]

FUZZ_SETTINGS = settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
    phases=[Phase.explicit, Phase.generate],
)

OPEN_APP = create_app({"ALLOW_FIXED_DECKS": True})
SEALED_APP = create_app({"SEAL_KEYS": [SEAL_KEY]})
# Generated requests are schema-valid and schema-invalid ("all"); the documented examples run too.
# The "coverage" phase is off: on schemas with unions as wide as AnyState it takes minutes just to
# enumerate its boundary cases, far past this suite's budget.
CONFIG = SchemathesisConfig.from_str("""
[generation]
mode = "all"
[phases.coverage]
enabled = false
""")
OPEN = schemathesis.openapi.from_wsgi("/openapi.yaml", OPEN_APP, config=CONFIG)
SEALED = schemathesis.openapi.from_wsgi("/openapi.yaml", SEALED_APP, config=CONFIG)
REMOTE = schemathesis.openapi.from_path(ROOT / "openapi.yaml", config=CONFIG)


def _operations(schema: Any) -> dict[str, Any]:
    return {result.ok().label: result.ok() for result in schema.get_all_operations()}


OPEN_OPS, SEALED_OPS, REMOTE_OPS = _operations(OPEN), _operations(SEALED), _operations(REMOTE)
MODES = (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)


def _fuzz(operation: Any, examples: int, call: Any) -> int:
    """Run ``examples`` generated cases per generation mode against ``operation``; return how many
    requests were sent. (Plain hypothesis over each operation's strategy rather than schemathesis's
    pytest plugin, whose parametrized items silently run nothing under pytest-xdist.)"""
    sent = 0
    for mode in MODES:
        if mode is GenerationMode.NEGATIVE and not operation.body and not operation.query and not operation.headers:
            continue  # nothing a client sends here can be schema-invalid

        @settings(FUZZ_SETTINGS, max_examples=examples)
        @given(case=operation.as_strategy(generation_mode=mode))
        def run(case: Any) -> None:
            nonlocal sent
            sent += 1
            call(case)

        run()
    return sent


@pytest.mark.parametrize("label", sorted(OPEN_OPS))
def test_open_mode_in_process(label: str) -> None:
    assert _fuzz(OPEN_OPS[label], FUZZ_EXAMPLES, lambda case: case.call_and_validate(checks=CHECKS)) >= 1


@pytest.mark.parametrize("label", sorted(SEALED_OPS))
def test_sealed_mode_in_process(label: str) -> None:
    assert _fuzz(SEALED_OPS[label], FUZZ_EXAMPLES, lambda case: case.call_and_validate(checks=CHECKS)) >= 1


@pytest.fixture(scope="module")
def gunicorn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gunicorn]:
    with Gunicorn(tmp_path_factory.mktemp("fuzz"), workers=2, env={"REFEREE_ALLOW_FIXED_DECKS": "1"}) as g:
        yield g


@pytest.mark.parametrize("label", sorted(REMOTE_OPS))
def test_real_gunicorn_two_workers(label: str, gunicorn: Gunicorn) -> None:
    examples = max(10, FUZZ_EXAMPLES // 2)
    assert _fuzz(REMOTE_OPS[label], examples, lambda case: case.call_and_validate(base_url=gunicorn.url, checks=CHECKS)) >= 1


def test_the_fuzzing_reaches_every_documented_operation() -> None:
    """Every operation of openapi.yaml is fuzzed in each place (so a new path is covered too)."""
    documented = {f"{m.upper()} {path}" for path, item in OPEN.raw_schema["paths"].items() for m in item if m in ("get", "post")}
    assert set(REMOTE_OPS) == documented
    # Loaded from the app's /openapi.yaml, schemathesis leaves out the operation that served it.
    assert set(OPEN_OPS) == set(SEALED_OPS) == documented - {"GET /openapi.yaml"}


class OpenWorkflow(OPEN.as_state_machine()):  # type: ignore[misc]
    def validate_response(self, response: Any, case: Any, additional_checks: Any = None, **kwargs: Any) -> None:
        case.validate_response(response, checks=CHECKS)


TestStatefulOpen = OpenWorkflow.TestCase
TestStatefulOpen.settings = settings(
    max_examples=STATEFUL_EXAMPLES, stateful_step_count=8, deadline=None, derandomize=True, database=None,
    suppress_health_check=list(HealthCheck), phases=[Phase.generate],
)
