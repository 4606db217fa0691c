"""Facts the documents state, checked against the code that makes them true (issue 20, item 5:
stale facts found by a new integrator: a 1 MiB body limit that `new` does not have, Stukolka
amounts "without an upper bound" beside a house limit, a contract member never sent)."""

from __future__ import annotations

import re
from pathlib import Path

from service import config
from service.engines import stukolka

ROOT = Path(__file__).resolve().parents[1]
WIRE = (ROOT / "docs" / "wire.md").read_text(encoding="utf-8")


def _kib(n: int) -> str:
    return f"{n // 1024 // 1024} MiB" if n >= 1024 * 1024 else f"{n // 1024} KiB"


def test_wire_states_each_default_body_limit() -> None:
    limits = re.search(r"Body limits per operation \(413 `body_too_large`\), by default: (.*?)\. Each", WIRE, re.DOTALL)
    assert limits, "docs/wire.md states the body limits per operation"
    text = " ".join(limits.group(1).split())
    assert f"`new` {_kib(config.DEFAULT_NEW_BODY)}" in text
    assert f"`check` {_kib(config.DEFAULT_STATE_BODY)}" in text
    assert f"`replay` {_kib(config.DEFAULT_REPLAY_BODY)}" in text
    assert "Body limit 1 MiB" not in WIRE


def test_wire_states_stukolkas_house_limit() -> None:
    assert stukolka.HOUSE_LIMIT == 10**14
    assert "±10^14" in WIRE and "without an upper bound" not in WIRE


def test_the_contract_declares_no_verdict_member_the_service_never_sends() -> None:
    spec = (ROOT / "openapi.yaml").read_text(encoding="utf-8")
    sources = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "service").rglob("*.py"))
    for member in re.findall(r"^        (record_\w+|result_\w+):$", spec, re.MULTILINE):
        assert f'"{member}"' in sources, f"openapi.yaml declares {member}, which no module of the service writes"
