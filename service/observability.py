"""Request ids, Prometheus metrics and readiness: what an operator sees of the service.

- **Request id**: every request gets one, taken from a well-formed ``X-Request-ID`` header or
  generated, echoed in the response's ``X-Request-ID`` and written in the access log line
  (``gunicorn.conf.py`` logs one JSON line per request).
- **Metrics** (``GET /metrics``, Prometheus text format): requests by route, game and status, a
  latency histogram by route, problem answers by route and problem code, illegal moves by game and
  code, each call to the ledger's store (its duration, and its failures) by store and operation,
  and the gunicorn workers started and recycled. They are served only on the
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

Labels are bounded: the route is the URL rule (never the raw path), the game is a registered
id or ``"-"``, a problem code one of ``docs/rules/errors.md``'s (the contract's closed list) or
``"-"``, a store one of ``STORES`` and an operation one of ``LEDGER_OPERATIONS``, so a client
cannot create new time series by sending odd URLs.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Collection, Iterable
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
    "LEDGER_CODES", "LEDGER_OPERATIONS", "REQUEST_ID_HEADER", "STORES", "LedgerMetrics", "LedgerWatch", "Readiness", "count_illegal_move",
    "count_worker_exit", "count_worker_start", "expect_problems", "install", "metrics_app", "metrics_wsgi", "request_id",
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
PROBLEMS = Counter("referee_http_problems", "Problem answers (application/problem+json), by route and problem code.", ["route", "code"])
# The shared ledger, by store (redis, sqlite or postgresql): the series exist only where a ledger is configured.
# Under gunicorn each worker writes its own observation; "mostrecent" exports the latest of them,
# whichever worker made it (a store's state is not a sum, and an older observation is stale).
LEDGER_UP = Gauge("referee_ledger_up", "Whether the shared ledger answered its last probe (1) or not (0).", ["store"],
                  multiprocess_mode="mostrecent")
LEDGER_USED = Gauge("referee_ledger_used_bytes", "Bytes the shared ledger uses, as of its last answer.", ["store"],
                    multiprocess_mode="mostrecent")
LEDGER_LIMIT = Gauge("referee_ledger_limit_bytes", "The most bytes the shared ledger may use (absent: no limit set).", ["store"],
                     multiprocess_mode="mostrecent")
LEDGER_SECONDS = Histogram(
    "referee_ledger_operation_duration_seconds",
    "Time one call to the ledger's store took (failed calls included), by store and operation.",
    ["store", "operation"],
    buckets=(0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)
LEDGER_ERRORS = Counter("referee_ledger_errors", "Calls to the ledger's store that failed (LedgerUnavailable: not reached, "
                        "timed out, or refused), by store and operation.", ["store", "operation"])
WORKER_STARTS = Counter("referee_worker_starts", "gunicorn workers started in this pod (its first ones included).")
WORKER_RECYCLED = Counter("referee_worker_recycled", "gunicorn workers that left after REFEREE_MAX_REQUESTS requests, as planned.")

STORES: Final = ("redis", "sqlite", "postgresql")
"""The ``store`` label's values: the ledger's backend, from its URL's scheme (``ledger.store_name``)."""
LEDGER_OPERATIONS: Final = ("open", "register", "check", "advance", "history", "epoch", "usage")
"""The ``operation`` label's values: the referee's calls to the store (``service.referee``: opening
it, then the ``Ledger`` methods a request uses) and the metrics listener's ``usage`` probe."""

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


_PROBLEMS_BY_LABELS: dict[tuple[str, str], Any] = {}


def _count_problem(route: str, code: str) -> None:
    key = (route, code)
    counter = _PROBLEMS_BY_LABELS.get(key)
    if counter is None:
        counter = _PROBLEMS_BY_LABELS.setdefault(key, PROBLEMS.labels(route, code))
    counter.inc()


LEDGER_CODES: Final = ("ledger_lost", "ledger_unavailable", "token_superseded")
"""The problem codes the ledger decides, whose series exist (at 0) from the start: an alert on
their increase then sees the first one too (a series born at 1 has no increase to show)."""


def expect_problems(routes: Iterable[str], codes: Iterable[str] = LEDGER_CODES) -> None:
    """Make the ``referee_http_problems`` series of ``routes`` × ``codes`` now, at 0."""
    for code in codes:
        for route in routes:
            key = (route, code)
            if key not in _PROBLEMS_BY_LABELS:
                _PROBLEMS_BY_LABELS[key] = PROBLEMS.labels(route, code)


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


class LedgerMetrics:
    """The ledger's latency and failures for one store: called as ``(operation, seconds, failed)``
    once per call to the store (``Referee``'s ``on_ledger``; ``LedgerWatch``'s probe). Every
    series of the store is made up front (at 0), so that a rate has a start before the first
    failure; an operation outside ``LEDGER_OPERATIONS`` is not counted."""

    def __init__(self, store: str) -> None:
        self.store = store if store in STORES else "-"
        self._series: dict[str, tuple[Any, Any]] = {
            operation: (LEDGER_SECONDS.labels(self.store, operation), LEDGER_ERRORS.labels(self.store, operation))
            for operation in LEDGER_OPERATIONS
        }

    def __call__(self, operation: str, seconds: float, failed: bool) -> None:
        series = self._series.get(operation)
        if series is None:
            return
        series[0].observe(seconds)
        if failed:
            series[1].inc()


def count_worker_start() -> None:
    """A gunicorn worker of this pod has started (``gunicorn_conf.post_worker_init``)."""
    WORKER_STARTS.inc()


def count_worker_exit(requests: int, max_requests: int) -> None:
    """A gunicorn worker is leaving, in order (``gunicorn_conf.worker_exit``): counted as recycled
    when it served its ``max_requests``. A worker killed (out of memory, a timeout's SIGKILL) runs
    no code: the difference between starts and recycled workers is what a crash leaves."""
    if 0 < max_requests <= requests:
        WORKER_RECYCLED.inc()


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
                 clock: Callable[[], float] = time.monotonic, measure: Callable[[str, float, bool], None] | None = None) -> None:
        self._ledger = ledger
        self._measure = measure  # the probe's duration and failure, as operation "usage" (LedgerMetrics)
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
            started = time.perf_counter()
            try:
                used, limit = ledger.usage()
            except LedgerUnavailable:
                if self._measure is not None:
                    self._measure("usage", time.perf_counter() - started, True)
                raise
            if self._measure is not None:
                self._measure("usage", time.perf_counter() - started, False)
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


def install(app: Flask, headers: Callable[[Response, set[str]], None] | None = None,
            problem_codes: Collection[str] = ()) -> Readiness:
    """Wire request ids, metrics and ``/metrics`` into ``app``; returns its readiness.

    ``headers(response, sent)``: the app's own headers for every response, set first in the same
    after-request hook (Flask looks up and calls each hook on every request); ``sent`` holds the
    lower-cased names the response carried when the hook began, so that neither looks one up by
    scanning the response's headers again.

    ``problem_codes``: the codes a problem answer may carry (the closed list of
    ``docs/rules/errors.md``). A problem answer is counted in ``referee_http_problems`` by route and
    its code, read from the response's ``problem_code`` (set where the error boundary builds it,
    ``service.api.problems.problem``: no header or body is read for it); a code outside the list
    is counted as ``"-"``."""
    readiness = Readiness()
    app.extensions["referee.readiness"] = readiness

    match_id = _REQUEST_ID.fullmatch
    clock = time.perf_counter
    known_codes = frozenset(problem_codes)
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
        route = "(unmatched)" if rule is None else rule.rule
        _count_request(route, _game_of(current.view_args), str(response.status_code), None if started is None else now - started)
        code = getattr(response, "problem_code", None)
        if code is not None:
            _count_problem(route, code if code in known_codes else "-")
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
