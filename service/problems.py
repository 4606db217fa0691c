"""Refusals as data, without Flask: ``ApiError`` (a refusal that is not a game rule), the problem
document (RFC 9457) of a code, and the citation link of a rule.

The referee core (``service.referee``) raises ``ApiError`` and the engines' ``RulesError``; the HTTP
error boundary (``service.api.problems``) turns each into ``application/problem+json``. Problem
bodies that travel inside an answer (a ``check``'s ``error``, a replay's ``first_illegal``) are built
here too, so the core builds them without the HTTP layer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .engines import ENGINES
from .engines.base import IllegalMove, InvalidState, RulesError

__all__ = ["MAX_ERRORS", "ApiError", "anchor", "problem_body", "rule_url", "rules_problem", "title"]


class ApiError(Exception):
    """An HTTP-level refusal that is not a game rule: bad request shape, sealed-mode refusals."""

    def __init__(self, status: int, code: str, detail: str, errors: Mapping[str, list[str]] | None = None) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.errors = dict(errors) if errors else None


def title(code: str) -> str:
    """The fixed title of a problem code: ``must_follow_suit`` → ``Must follow suit``."""
    return code.replace("_", " ").capitalize()


MAX_ERRORS = 50


def problem_body(status: int, code: str, detail: str, **extra: Any) -> dict[str, Any]:
    """The problem document for ``code``; ``extra`` members with value None are left out.
    ``errors`` keeps its first ``MAX_ERRORS`` entries, and the detail says how many were left out."""
    errors = extra.get("errors")
    if isinstance(errors, Mapping) and len(errors) > MAX_ERRORS:
        extra["errors"] = dict(list(errors.items())[:MAX_ERRORS])
        detail = f"{detail} (the first {MAX_ERRORS} of {len(errors)} errors are listed)"
    body: dict[str, Any] = {"type": f"/errors/{code}", "title": title(code), "status": status, "code": code, "detail": detail}
    body.update({k: v for k, v in extra.items() if v is not None})
    return body


def rules_problem(exc: RulesError, move: Any = None) -> dict[str, Any]:
    """The 422 problem body for a rules refusal (also used inside check and replay answers)."""
    errors = exc.errors if isinstance(exc, InvalidState) else None
    return problem_body(
        422,
        exc.code,
        exc.detail,
        rule=exc.rule,
        rule_url=rule_url(exc.rule),
        move=move if isinstance(move, dict) and isinstance(exc, IllegalMove) else None,
        errors=errors,
    )


# --- citations ------------------------------------------------------------------------------

_CITATION = re.compile(r"([a-z][a-z0-9_]*) §(\d+(?:\.\d+)*)")


def anchor(section: str) -> str:
    """The anchor id of a numbered section: ``"6.1"`` → ``"s6-1"``, ``"8"`` → ``"s8"``."""
    return "s" + section.rstrip(".").replace(".", "-")


def rule_url(rule: str | None) -> str | None:
    """The link to a cited rule: ``"schnapsen §6.1"`` → ``"/v1/games/schnapsen/rules#s6-1"``.

    None for no citation, or one that names no registered game.
    """
    if not rule:
        return None
    m = _CITATION.fullmatch(rule.strip())
    if m is None or m.group(1) not in ENGINES:
        return None
    return f"/v1/games/{m.group(1)}/rules#{anchor(m.group(2))}"
