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
- **The shared ledger's health** (sealed mode with a ledger; ``LedgerWatch``): whether the store
  answers and its memory, as gauges refreshed when ``/metrics`` is scraped, at most once every
  ``LedgerWatch.EVERY`` seconds per worker (one bounded round trip, ``ledger.PING_TIMEOUT``; never
  on an API request); a warning is logged when its use passes ``LedgerWatch.FULL`` of its limit.
  The store is shared by every pod, so its state never makes this pod unready.
- **Readiness**: ``/readyz`` answers 503 until the app is built and warmed up (its keys read and
  used), and again once shutdown has begun: at once when the gunicorn master gets SIGTERM (``attach_drain``: a flag
  the master shares with its workers) or when a worker gets SIGTERM (``begin_shutdown``).

Labels are bounded: the route is the URL rule (never the raw path) and the game is a registered
id or ``"-"``, so a client cannot create new time series by sending odd URLs.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any, Final, Literal

from flask import Flask, Response, g, request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

from .engines import ENGINES
from .ledger import Ledger, LedgerUnavailable
from .problems import ApiError

__all__ = [
    "REQUEST_ID_HEADER", "LedgerWatch", "Readiness", "count_illegal_move", "install", "metrics_app", "metrics_wsgi", "request_id",
]

log = logging.getLogger("service")

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
# The shared ledger, by store (redis or sqlite): the series exist only where a ledger is configured.
# Under gunicorn each worker writes its own observation; "mostrecent" exports the latest of them,
# whichever worker made it (a store's state is not a sum, and an older observation is stale).
LEDGER_UP = Gauge("referee_ledger_up", "Whether the shared ledger answered its last probe (1) or not (0).", ["store"],
                  multiprocess_mode="mostrecent")
LEDGER_USED = Gauge("referee_ledger_used_bytes", "Bytes the shared ledger uses, as of its last answer.", ["store"],
                    multiprocess_mode="mostrecent")
LEDGER_LIMIT = Gauge("referee_ledger_limit_bytes", "The most bytes the shared ledger may use (absent: no limit set).", ["store"],
                     multiprocess_mode="mostrecent")

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


class LedgerWatch:
    """The shared ledger's health as metrics, refreshed on demand at most once every ``every`` seconds.

    ``ledger()`` gives the ledger (opening it on first use; ``ApiError`` 503 or ``LedgerUnavailable``
    when it cannot be); ``store`` labels the series. ``refresh()`` asks the store for its usage (one
    round trip, bounded by ``ledger.PING_TIMEOUT``) unless it did within ``every`` seconds or another
    refresh is under way, and sets ``referee_ledger_up`` to 1 (it answered) or 0, and
    ``referee_ledger_used_bytes`` / ``referee_ledger_limit_bytes`` from its answer (kept as they
    were when it does not answer). Crossing ``FULL`` of the limit upwards logs a warning.
    """

    EVERY: Final = 5.0
    FULL: Final = 0.8

    def __init__(self, ledger: Callable[[], Ledger | None], store: str, every: float = EVERY,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._ledger = ledger
        self._every = every
        self._clock = clock
        self._last: float | None = None
        self._busy = threading.Lock()
        self._full = False
        self._store = store  # each series is made when first set: a labelled child exists (as 0) once asked for

    def refresh(self) -> None:
        if not self._busy.acquire(blocking=False):
            return  # another scrape is asking the store right now
        try:
            now = self._clock()
            if self._last is not None and now - self._last < self._every:
                return
            self._last = now
            self._observe()
        finally:
            self._busy.release()

    def _observe(self) -> None:
        try:
            ledger = self._ledger()
            if ledger is None:
                return
            used, limit = ledger.usage()
        except (LedgerUnavailable, ApiError) as exc:
            LEDGER_UP.labels(self._store).set(0)
            log.warning("the ledger does not answer: %s", getattr(exc, "detail", None) or exc)
            return
        LEDGER_UP.labels(self._store).set(1)
        LEDGER_USED.labels(self._store).set(used)
        if limit is not None:
            LEDGER_LIMIT.labels(self._store).set(limit)
        full = limit is not None and used > self.FULL * limit
        if full and not self._full:
            log.warning("the ledger uses %d of its %d bytes (over %d%%): it refuses every sealed move once full",
                        used, limit, round(self.FULL * 100))
        self._full = full


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


WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def metrics_app(*before: Callable[[], None]) -> WSGIApp:
    """The metrics listener's whole application: ``GET /metrics``, and 404 for anything else.
    ``before``: called before each ``/metrics`` answer is written (``LedgerWatch.refresh``)."""

    def metrics(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO") != "/metrics":
            return not_found(start_response, "Only /metrics is served here.")
        if environ.get("REQUEST_METHOD") not in ("GET", "HEAD"):
            body = (b'{"type":"/errors/method_not_allowed","title":"Method not allowed","status":405,'
                    b'"code":"method_not_allowed","detail":"GET /metrics."}')
            start_response("405 Method Not Allowed", [("Content-Type", "application/problem+json"), ("Content-Length", str(len(body))),
                                                      ("Allow", "GET, HEAD"), ("X-Content-Type-Options", "nosniff")])
            return [body]
        for hook in before:
            hook()
        text = _metrics_text()
        start_response("200 OK", [("Content-Type", CONTENT_TYPE_LATEST), ("Content-Length", str(len(text))),
                                  ("X-Content-Type-Options", "nosniff"), ("Cache-Control", "no-store")])
        return [text]

    return metrics


def not_found(start_response: Callable[..., Any], detail: str) -> Iterable[bytes]:
    """A 404 ``not_found`` problem, for a listener that serves only some paths."""
    problem = {"type": "/errors/not_found", "title": "Not found", "status": 404, "code": "not_found", "detail": detail}
    body = json.dumps(problem, separators=(",", ":")).encode()
    start_response("404 Not Found", [("Content-Type", "application/problem+json"), ("Content-Length", str(len(body))),
                                     ("X-Content-Type-Options", "nosniff"), ("Cache-Control", "no-store")])
    return [body]


metrics_wsgi: Final = metrics_app()
"""The metrics application without a ledger to watch."""
