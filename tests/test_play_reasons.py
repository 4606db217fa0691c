"""The playground's words for why a game ended (``REASONS`` in service/play/static/play.js) name
only reasons the contract has: a game-over ``reason`` of some game (an enum of openapi.yaml). A word
for a reason no engine gives is dead code that hides a renamed one (three guesses at Russian Bank's
``agreed`` stood there: ``agreement``, ``draw_agreed``, ``agreed_draw``)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]


def _contract_reasons() -> set[str]:
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(value, dict) and "enum" in value and (key == "reason" or str(key).endswith("Reason")):
                    found.update(value["enum"])
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8")))
    return found


def _play_reasons() -> set[str]:
    script = (ROOT / "service" / "play" / "static" / "play.js").read_text(encoding="utf-8")
    match = re.search(r"const REASONS = \{(.*?)\n  \};", script, re.DOTALL)
    assert match, "play.js has no REASONS table"
    return set(re.findall(r"\b([a-z_]+):\s*\"", match.group(1)))


def test_every_reason_the_playground_words_is_one_the_contract_has() -> None:
    contract, words = _contract_reasons(), _play_reasons()
    assert {"claim", "agreed", "stall", "stalled"} <= contract  # the walk finds the games' reasons
    assert words and words <= contract, sorted(words - contract)
