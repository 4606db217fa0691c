"""The problem codes the tests compare against, each read from its one source, never copied by hand
(issue 33, item 4): a code added there flows into every check.

- ``HTTP_CODES``, ``COMMON_CODES``, ``RECORD_CODES``: the contract's hand-written families,
  openapi.yaml's ``HttpProblemCode``, ``RulesProblemCode`` and ``RecordProblemCode`` (``ProblemCode``'s
  ``x-enum-known`` is written from them and each game's ``GameInfo.codes`` by the contract writer);
- ``http_statuses()``: each HTTP code's status, as ``HttpProblemCode``'s description states it
  (``400 `invalid_request`, `body_incomplete`; 403 ...``: a status stands for the codes after it);
  every other family is 422;
- ``section_8(game)``: the codes of a game's rules page §8 table, in the table's order (its own
  codes are ``GameInfo.codes``, pinned to the page by tests/test_contract_generated.py);
- ``documented()``: docs/rules/errors.md's table, code -> status.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Final

from tests.contract import SPEC

RULES: Final = Path(__file__).resolve().parents[1] / "docs" / "rules"
_SCHEMAS: Final = SPEC["components"]["schemas"]
HTTP_CODES: Final = frozenset(_SCHEMAS["HttpProblemCode"]["enum"])
COMMON_CODES: Final = frozenset(_SCHEMAS["RulesProblemCode"]["enum"])
RECORD_CODES: Final = frozenset(_SCHEMAS["RecordProblemCode"]["enum"])
ROW: Final = re.compile(r"^\|\s*`([a-z_]+)`\s*\|", re.MULTILINE)


def http_statuses() -> dict[str, int]:
    """``HttpProblemCode``'s description read as code -> status (each backticked code takes the last
    status written before it)."""
    out: dict[str, int] = {}
    status = None
    for number, code in re.findall(r"\b([1-5]\d\d)\b|`([a-z_]+)`", _SCHEMAS["HttpProblemCode"]["description"]):
        if number:
            status = int(number)
        elif status is not None:
            out.setdefault(code, status)
    return out


def statuses() -> dict[str, int]:
    """Every code of the contract (``ProblemCode``'s ``x-enum-known``) and its status."""
    http = http_statuses()
    return {code: http.get(code, 0) if code in HTTP_CODES else 422 for code in _SCHEMAS["ProblemCode"]["x-enum-known"]}


@functools.cache
def section_8(game: str) -> list[str]:
    """The codes of ``docs/rules/<game>.md``'s §8 table, in its order."""
    page = (RULES / f"{game}.md").read_text(encoding="utf-8")
    return ROW.findall(page.split("\n## 8. Errors", 1)[1].split("\n## 9.", 1)[0])


def documented() -> dict[str, int]:
    """docs/rules/errors.md: code -> status."""
    text = (RULES / "errors.md").read_text(encoding="utf-8")
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^\|\s*`([a-z_]+)`\s*\|\s*(\d{3})\s*\|", text, flags=re.MULTILINE)}
