"""The one error boundary: every exception becomes ``application/problem+json`` (RFC 9457).

Views never catch rules errors; they raise, and ``register(app)`` turns each family into a
problem with a stable ``code``. ``type`` is the relative reference ``/errors/<code>``, a page that
describes the code (``rules.py``); a rules refusal's ``rule`` comes with ``rule_url``, the link to
that section of the game's rules page. The refusals and their problem documents are data without
Flask (``service/problems.py``): the referee core builds them, this module answers. A 503 (the
ledger cannot be reached, ``ledger_unavailable``) carries ``Retry-After: RETRY_AFTER_SECONDS``.
A body that did not arrive whole (``CLOSING``) is the connection's last answer, and says so
(``Connection: close``): where the next request would begin is unknown.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from flask import Flask, Response, g, request
from marshmallow import ValidationError
from werkzeug.exceptions import HTTPException

from .. import jsonio
from ..engines import UnknownGame
from ..engines.base import IllegalMove, RulesError
from ..observability import count_illegal_move
from ..problems import ApiError, problem_body, rules_problem, title
from ..schemas.common import flatten_errors
from ..server import close_after_answer

__all__ = ["CLOSING", "RETRY_AFTER_SECONDS", "ProblemResponse", "problem", "register"]  # refusals as data: service/problems.py

log = logging.getLogger("service.api")

PROBLEM_TYPE = "application/problem+json"

RETRY_AFTER_SECONDS = 2
"""What a 503 tells the client to wait before sending again. The ledger it could not reach is shared
by every pod, so another pod would not do better at once; a store restarting or failing over takes
seconds, and a request already waits up to ``ledger.TIMEOUT`` (2 s) for it, so retrying sooner than
that only adds waiting requests. Moves are exactly-once for the same token and move: sending one
again is safe."""

CLOSING = frozenset({"body_incomplete", "body_timeout", "bad_framing"})
"""Codes after which the server closes the connection (``Connection: close``, under gunicorn)."""

_HTTP_CODES = {
    400: "invalid_request",
    404: "not_found",
    405: "method_not_allowed",
    413: "body_too_large",
    415: "unsupported_media_type",
}


class ProblemResponse(Response):
    """A problem+json answer that names its ``code`` (``problem_code``): the metrics count answers
    by route and code from it (``observability.install``), without reading the body."""

    problem_code: str


def problem(body: Mapping[str, Any], headers: Mapping[str, str] | None = None) -> Response:
    """A problem+json response for ``body``."""
    resp = ProblemResponse(jsonio.dumps(body), status=int(body["status"]), content_type=PROBLEM_TYPE)
    resp.problem_code = str(body["code"])
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp


def register(app: Flask) -> None:
    """Install the error handlers on ``app``."""

    @app.errorhandler(ApiError)
    def _api(exc: ApiError) -> Response:
        headers = {"Retry-After": str(RETRY_AFTER_SECONDS)} if exc.status == 503 else None
        if exc.code in CLOSING:
            close_after_answer()
        return problem(problem_body(exc.status, exc.code, exc.detail, errors=exc.errors), headers)

    @app.errorhandler(ValidationError)
    def _shape(exc: ValidationError) -> Response:
        errors = flatten_errors(exc.messages)
        first = next(iter(errors.items()), ("body", ["is not valid"]))
        detail = f"{first[0]}: {first[1][0]}"
        return problem(problem_body(400, "invalid_request", detail, errors=errors))

    @app.errorhandler(RulesError)
    def _rules(exc: RulesError) -> Response:
        if isinstance(exc, IllegalMove):
            count_illegal_move(exc.code)
        move = g.get("raw_move")
        return problem(rules_problem(exc, move))

    @app.errorhandler(UnknownGame)
    def _unknown(exc: UnknownGame) -> Response:
        return problem(problem_body(404, "unknown_game", f"There is no game {exc.game_id!r}; GET /v1/games lists them."))

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> Response:
        status = exc.code or 500
        code = _HTTP_CODES.get(status, "invalid_request" if status < 500 else "internal")
        detail = exc.description or title(code)
        headers = {}
        allowed = getattr(exc, "valid_methods", None)
        if status == 405 and allowed:
            headers["Allow"] = ", ".join(allowed)
        if status == 413:
            detail = "The request body is larger than this service accepts."
        return problem(problem_body(status, code, detail), headers)

    @app.errorhandler(Exception)
    def _internal(exc: Exception) -> Response:
        log.exception("unhandled error on %s %s", request.method, request.path)
        return problem(problem_body(500, "internal", "The service failed to answer this request."))
