"""Request ids, Prometheus metrics and readiness: what an operator sees of the service.

- **Request id**: every request gets one, taken from a well-formed ``X-Request-ID`` header or
  generated, echoed in the response's ``X-Request-ID`` and written in the access log line
  (``gunicorn.conf.py`` logs one JSON line per request).
- **Metrics** (``GET /metrics``, Prometheus text format): requests by route, game and status, a
  latency histogram by route, and illegal moves by game and code. They are served only on the
  metrics listener (``REFEREE_METRICS_BIND``, see ``metrics_wsgi``), never on the API port. Under
  gunicorn the workers share them through ``prometheus_client``'s multiprocess mode:
  ``service/gunicorn_conf.py`` points ``PROMETHEUS_MULTIPROC_DIR`` at a fresh directory before the
  workers start, and ``/metrics`` sums the files of every worker, so any worker answers for all.
- **Readiness**: ``/readyz`` answers 503 until the app is built and warmed up, and again once
  shutdown has begun: at once when the gunicorn master gets SIGTERM (``attach_drain``: a flag
  the master shares with its workers) or when a worker gets SIGTERM (``begin_shutdown``).

Labels are bounded: the route is the URL rule (never the raw path) and the game is a registered
id or ``"-"``, so a client cannot create new time series by sending odd URLs.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any, Literal

from flask import Flask, Response, g, request
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, Counter, Histogram, generate_latest, multiprocess

from .engines import ENGINES

__all__ = ["REQUEST_ID_HEADER", "Readiness", "count_illegal_move", "install", "metrics_wsgi", "request_id"]

REQUEST_ID_HEADER = "X-Request-ID"
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:\-]{1,128}")

REQUESTS = Counter("referee_http_requests", "HTTP requests answered, by route, game and status.", ["route", "game", "status"])
LATENCY = Histogram(
    "referee_http_request_duration_seconds",
    "Time to answer an HTTP request, by route.",
    ["route"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
)
ILLEGAL = Counter("referee_illegal_moves", "Moves refused by a game's rules, by game and error code.", ["game", "code"])

Phase = Literal["starting", "ready", "draining"]


class Readiness:
    """Whether this worker should receive traffic: ``starting`` → ``ready`` → ``draining``."""

    def __init__(self) -> None:
        self._phase: Phase = "starting"
        self._lock = threading.Lock()
        self._draining: Callable[[], bool] = _never

    @property
    def phase(self) -> Phase:
        if self._phase == "ready" and self._draining():
            return "draining"
        return self._phase

    @property
    def draining(self) -> bool:
        """Shutdown has begun: answers should close their connection (``Connection: close``)."""
        return self._phase == "draining" or self._draining()

    def attach_drain(self, draining: Callable[[], bool]) -> None:
        """Also report ``draining`` whenever ``draining()`` says so (the master's shared flag)."""
        self._draining = draining

    def mark_ready(self) -> None:
        with self._lock:
            if self._phase == "starting":
                self._phase = "ready"

    def begin_shutdown(self) -> None:
        with self._lock:
            self._phase = "draining"


def _never() -> bool:
    return False


def request_id() -> str:
    """The current request's id (only inside a request)."""
    rid: str = g.request_id
    return rid


def _game_label() -> str:
    return _game_of(request.view_args)


def _game_of(view_args: dict[str, Any] | None) -> str:
    game = view_args.get("game_id") if view_args else None
    return game if isinstance(game, str) and game in ENGINES else "-"


def _new_request_id() -> str:
    """A generated request id: 32 random hex digits (128 bits from the operating system)."""
    return os.urandom(16).hex()


_REQUESTS_BY_LABELS: dict[tuple[str, str, str], Any] = {}
_LATENCY_BY_ROUTE: dict[str, Any] = {}
"""The labelled series, looked up once each (``labels()`` checks and locks on every call). Bounded
as the labels are: routes are URL rules, games registered ids or ``"-"``, statuses HTTP's."""


def _count_request(route: str, game: str, status: str, seconds: float | None) -> None:
    key = (route, game, status)
    counter = _REQUESTS_BY_LABELS.get(key)
    if counter is None:
        counter = _REQUESTS_BY_LABELS.setdefault(key, REQUESTS.labels(route, game, status))
    counter.inc()
    if seconds is not None:
        histogram = _LATENCY_BY_ROUTE.get(route)
        if histogram is None:
            histogram = _LATENCY_BY_ROUTE.setdefault(route, LATENCY.labels(route))
        histogram.observe(seconds)


def count_illegal_move(code: str) -> None:
    """Count one move refused by the rules, for the game of the current request."""
    ILLEGAL.labels(_game_label(), code).inc()


def _metrics_text() -> bytes:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return generate_latest(registry)
    return generate_latest(REGISTRY)


def install(app: Flask, headers: Callable[[Response, set[str]], None] | None = None) -> Readiness:
    """Wire request ids, metrics and ``/metrics`` into ``app``; returns its readiness.

    ``headers(response, sent)``: the app's own headers for every response, set first in the same
    after-request hook (Flask looks up and calls each hook on every request); ``sent`` holds the
    lower-cased names the response carried when the hook began, so that neither looks one up by
    scanning the response's headers again."""
    readiness = Readiness()
    app.extensions["referee.readiness"] = readiness

    match_id = _REQUEST_ID.fullmatch
    clock = time.perf_counter
    request_id_name = REQUEST_ID_HEADER.lower()

    @app.before_request
    def _start() -> None:
        context = g._get_current_object()  # one proxy look-up per object, not one per use
        given = request.environ.get("HTTP_X_REQUEST_ID")
        context.request_id = given if given and match_id(given) else _new_request_id()
        context.started = clock()

    @app.after_request
    def _finish(response: Response) -> Response:
        now = clock()
        sent = {name.lower() for name, _ in response.headers}
        if headers is not None:
            headers(response, sent)
        context = g._get_current_object()
        request_id = getattr(context, "request_id", None) or _new_request_id()
        if request_id_name in sent:
            response.headers[REQUEST_ID_HEADER] = request_id
        else:
            response.headers.add(REQUEST_ID_HEADER, request_id)  # what setting it does when it is not there
        current = request._get_current_object()  # type: ignore[attr-defined]  # a LocalProxy, typed as the Request
        rule = current.url_rule
        started = getattr(context, "started", None)
        _count_request("(unmatched)" if rule is None else rule.rule, _game_of(current.view_args), str(response.status_code),
                       None if started is None else now - started)
        return response

    return readiness


def metrics_wsgi(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    """The metrics listener's whole application: ``GET /metrics``, and 404 for anything else."""
    if environ.get("PATH_INFO") != "/metrics":
        body = b'{"type":"/errors/not_found","title":"Not found","status":404,"code":"not_found","detail":"Only /metrics is served here."}'
        start_response("404 Not Found", [("Content-Type", "application/problem+json"), ("Content-Length", str(len(body))),
                                         ("X-Content-Type-Options", "nosniff"), ("Cache-Control", "no-store")])
        return [body]
    if environ.get("REQUEST_METHOD") not in ("GET", "HEAD"):
        body = b'{"type":"/errors/method_not_allowed","title":"Method not allowed","status":405,"code":"method_not_allowed","detail":"GET /metrics."}'
        start_response("405 Method Not Allowed", [("Content-Type", "application/problem+json"), ("Content-Length", str(len(body))),
                                                  ("Allow", "GET, HEAD"), ("X-Content-Type-Options", "nosniff")])
        return [body]
    text = _metrics_text()
    start_response("200 OK", [("Content-Type", CONTENT_TYPE_LATEST), ("Content-Length", str(len(text))),
                              ("X-Content-Type-Options", "nosniff"), ("Cache-Control", "no-store")])
    return [text]
