"""Query parameters: only those the contract lists for an operation, each at most once.

openapi.yaml gives one query parameter, ``as``, to ``new``, ``moves``, ``state`` and ``replay`` of
every game, and none to any other operation. Any other name, or ``as`` given twice, is refused
400 ``invalid_request`` naming it (``errors``: ``query.<name>``) before the body is read. Requests are
closed (docs/wire.md, "Evolution policy"): a misspelt ``?ass=1`` would otherwise answer the full
state as if no seat had been asked for, silently.
"""

from __future__ import annotations

from typing import Final

from flask import request

from ..problems import ApiError

__all__ = ["QUERY_PARAMETERS", "refuse_unknown_query"]

QUERY_PARAMETERS: Final = {
    "api.new": frozenset({"as"}),
    "api.moves": frozenset({"as"}),
    "api.state": frozenset({"as"}),
    "api.replay": frozenset({"as"}),
}
"""The query parameters each endpoint takes (openapi.yaml); every endpoint not listed takes none."""


def refuse_unknown_query() -> None:
    """``before_app_request``: 400 for a query parameter the operation does not take, or one repeated."""
    if not request.query_string or request.endpoint is None or request.method == "OPTIONS":
        return  # no query; or an unknown path or a CORS preflight, answered as before
    allowed = QUERY_PARAMETERS.get(request.endpoint, frozenset())
    args = request.args
    errors: dict[str, list[str]] = {}
    for name in args:
        if name not in allowed:
            errors[f"query.{name[:64]}"] = ["This operation takes no such query parameter."]
        elif len(args.getlist(name)) > 1:
            errors[f"query.{name}"] = ["Given more than once."]
    if errors:
        names = ", ".join(repr(key.partition(".")[2]) for key in errors)
        takes = f"it takes only {', '.join(sorted(allowed))}" if allowed else "it takes none"
        raise ApiError(400, "invalid_request", f"Query parameter(s) {names[:300]} refused: {takes}.", errors)
