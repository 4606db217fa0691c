"""Assembles the Flask app: configuration, sealing, the referee core, routes, the error boundary, the docs page,
the headers every response carries, CORS for the allowed browser origins, and the split between
the API listener, the metrics listener and the probe listener."""

from __future__ import annotations

import logging
import urllib.parse
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Final

from flask import Flask, Response, abort, request

from . import jsonio, observability
from .api import problems
from .api.routes import bp, count_refusal
from .api.rules import bp as rules_bp
from .api.rules import codes as problem_codes
from .cards.shuffle import deal_deck
from .config import Config
from .engines import ENGINES
from .ledger import store_name
from .problems import ApiError
from .referee import Referee
from .resources import openapi_path
from .schemas import SCHEMAS
from .sealing import Sealer
from .server import serving

log = logging.getLogger("service")

#: The docs page: Swagger UI from the package's own copy, no inline script, nothing from elsewhere.
#: Swagger UI sets inline style attributes, hence 'unsafe-inline' for styles only.
DOCS_CSP: Final = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
_DOCS_ASSETS: Final = {
    "swagger-ui.css": "text/css",
    "index.css": "text/css",
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui-standalone-preset.js": "text/javascript",
    "favicon-32x32.png": "image/png",
    "favicon-16x16.png": "image/png",
}
_DOCS_PAGE: Final = b"""<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Card Referee API</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="stylesheet" href="/docs/index.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/swagger-ui-standalone-preset.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
"""
# validatorUrl null: Swagger UI never sends the contract to a third-party validator service.
_DOCS_INIT: Final = b"""window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.yaml",
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: "StandaloneLayout"
  });
});
"""

#: What the probe listener (REFEREE_PROBE_BIND) serves: the probes and nothing else.
PROBE_PATHS: Final = frozenset({"/healthz", "/readyz"})

#: What a browser on an allowed origin may send (REFEREE_CORS_ORIGINS).
CORS_METHODS: Final = "GET, POST, OPTIONS"
CORS_HEADERS: Final = "Content-Type, X-Seat-Key, X-Request-ID"
CORS_MAX_AGE: Final = "600"


def _swagger_dist() -> Path:
    import flask_swagger_ui

    return Path(flask_swagger_ui.__file__).resolve().parent / "dist"


def build(overrides: Mapping[str, Any] | None = None) -> Flask:
    """See ``service.create_app``."""
    cfg = Config.from_env(overrides=overrides)
    app = Flask("service")
    app.config["MAX_CONTENT_LENGTH"] = cfg.max_body  # a backstop: service/api/body.py enforces each operation's limit
    app.config["TESTING"] = cfg.testing
    app.extensions["referee.config"] = cfg
    app.extensions["referee.serving"] = serving  # gunicorn's pre_request hook names its request (Connection: close)
    store = _store(cfg)
    measure = observability.LedgerMetrics(store) if store is not None else None  # every call to the store, timed
    referee = Referee.from_config(cfg, on_refusal=count_refusal, on_ledger=measure)  # the core the views adapt (no Flask)
    app.extensions["referee.referee"] = referee
    app.extensions["referee.sealer"] = referee.sealer
    app.extensions["referee.fairplay"] = referee  # its signer and ledger, under the name tools used before the core
    if not cfg.sealed:
        log.warning("no seal keys configured: running in OPEN mode (plain states are trusted); REFEREE_MODE=sealed refuses this")
    readiness = observability.install(app, _response_headers(cfg), problem_codes=problem_codes())
    problems.register(app)
    app.register_blueprint(bp)
    app.register_blueprint(rules_bp)  # /v1/games/<id>/rules and /errors/<code>
    from .play import bp as play_bp  # the playground page at /play (service/play/)

    app.register_blueprint(play_bp)

    spec_path = openapi_path()
    spec_bytes = spec_path.read_bytes() if spec_path.is_file() else b""

    @app.get("/openapi.yaml")
    def openapi() -> Response:
        return Response(spec_bytes, mimetype="application/yaml")

    _install_docs(app)

    @app.get("/healthz")
    def healthz() -> Response:
        return Response('{"status":"ok"}', mimetype="application/json")

    mode = cfg.mode

    @app.get("/metrics")
    def metrics_elsewhere() -> Response:
        """A documented path (GET), so another method is 405 with ``Allow``, as for every path
        (schemathesis: TRACE /metrics answered 404); GET is the declared 404: the metrics are
        served by the metrics listener alone (``REFEREE_METRICS_BIND``)."""
        abort(404, "The metrics are served on the metrics listener (REFEREE_METRICS_BIND), not on the API's port.")

    if store is not None:  # the ledger's refusals, counted from 0 on the operations that reach it
        observability.expect_problems(r.rule for r in app.url_map.iter_rules()
                                      if r.rule.startswith("/v1/games/") and "POST" in (r.methods or ()))

    own_ledger = _own_ledger(referee, cfg)
    if own_ledger is not None:
        own_ledger()  # open it now: the file this worker holds is the one its path names at start

    @app.get("/readyz")
    def readyz() -> Response:
        """Ready once warmed up (the keys read and used) and until shutdown begins: 503 while
        ``starting`` or ``draining``. A shared ledger's state never enters into it (every pod shares
        a Redis store, so a slow or stopped store would make every pod unready at once): it is in
        ``/metrics`` (``referee_ledger_up``), and a sealed request it refuses is 503
        ``ledger_unavailable`` with ``Retry-After``. A SQLite ledger is the pod's own: while its
        file cannot be opened, or was deleted or replaced under the service, ``/readyz`` is 503
        ``ledger_unavailable`` with the ``reason`` (one ``stat``)."""
        phase = readiness.phase
        if phase == "ready" and own_ledger is not None:
            problem = own_ledger()
            if problem is not None:
                body = jsonio.dumps({"status": "ledger_unavailable", "mode": mode, "reason": problem})
                return Response(body, status=503, mimetype="application/json")
        status = 200 if phase == "ready" else 503
        return Response(f'{{"status":"{phase}","mode":"{mode}"}}', status=status, mimetype="application/json")

    listeners: dict[int, Any] = {}
    if cfg.metrics_port is not None:
        watch = _ledger_watch(referee, cfg, measure)
        listeners[cfg.metrics_port] = observability.metrics_wsgi if watch is None else observability.metrics_app(watch.refresh)
    if cfg.probe_port is not None:
        listeners[cfg.probe_port] = _ProbesOnly(app.wsgi_app)
    if listeners:
        app.wsgi_app = _ByListener(app.wsgi_app, listeners)  # type: ignore[method-assign]
    _warm_up(app)
    readiness.mark_ready()
    return app


def _install_docs(app: Flask) -> None:
    dist = _swagger_dist()

    def docs_response(body: bytes, mimetype: str) -> Response:
        resp = Response(body, mimetype=mimetype)
        resp.headers["Content-Security-Policy"] = DOCS_CSP
        resp.headers["Cache-Control"] = "no-cache"
        return resp

    @app.get("/docs")
    def docs_index() -> Response:
        """The interactive page for the contract (Swagger UI, served offline)."""
        return docs_response(_DOCS_PAGE, "text/html")

    @app.get("/docs/<name>")
    def docs_asset(name: str) -> Response:
        if name == "init.js":
            return docs_response(_DOCS_INIT, "text/javascript")
        mimetype = _DOCS_ASSETS.get(name)
        if mimetype is None:
            abort(404)
        return docs_response((dist / name).read_bytes(), mimetype)


def _response_headers(cfg: Config) -> Callable[[Response, set[str]], None]:
    """The headers every response carries, set in observability's after-request hook
    (``observability.install``): nosniff; no-store unless the view chose its caching (tokens, seat
    keys and states must never sit in a cache); CORS headers for allowed origins only."""
    allowed = frozenset(cfg.cors_origins)
    any_origin = "*" in allowed

    def headers_of(response: Response, sent: set[str]) -> None:
        headers = response.headers
        if "x-content-type-options" in sent:
            headers["X-Content-Type-Options"] = "nosniff"
        else:
            headers.add("X-Content-Type-Options", "nosniff")  # what setting it does when it is not there
        if "cache-control" not in sent:
            headers.add("Cache-Control", "no-store")
        if allowed:
            origin = request.headers.get("Origin")
            if origin and (any_origin or origin in allowed) and _cors_path(request.path):
                headers["Access-Control-Allow-Origin"] = "*" if any_origin else origin
                headers["Access-Control-Expose-Headers"] = "X-Request-ID"
                if request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers:
                    headers["Access-Control-Allow-Methods"] = CORS_METHODS
                    headers["Access-Control-Allow-Headers"] = CORS_HEADERS
                    headers["Access-Control-Max-Age"] = CORS_MAX_AGE
            if not any_origin:
                headers.add("Vary", "Origin")

    return headers_of


def _cors_path(path: str) -> bool:
    return path.startswith("/v1/") or path == "/openapi.yaml"


def _own_ledger(referee: Referee, cfg: Config) -> Callable[[], str | None] | None:
    """For a SQLite ledger (the pod's own store): what is wrong with its file, or None (opening it
    on first use); None for no ledger or a shared one."""
    if not referee.has_ledger or cfg.ledger_url is None or urllib.parse.urlsplit(cfg.ledger_url).scheme != "sqlite":
        return None

    def problem() -> str | None:
        try:
            ledger = referee.ledger
        except ApiError as exc:
            return exc.detail
        file_problem = getattr(ledger, "file_problem", None)
        return file_problem() if file_problem is not None else None

    return problem


def _store(cfg: Config) -> str | None:
    """The ``store`` label of the ledger (``ledger.store_name``), when one is configured (sealed mode)."""
    if not cfg.sealed or cfg.ledger_url is None:
        return None
    return store_name(cfg.ledger_url)


def _ledger_watch(referee: Referee, cfg: Config,
                  measure: observability.LedgerMetrics | None) -> observability.LedgerWatch | None:
    """The metrics of the shared ledger, when one is configured (sealed mode)."""
    if not referee.has_ledger or cfg.ledger_url is None:
        return None
    return observability.LedgerWatch(lambda: referee.ledger, store_name(cfg.ledger_url), measure=measure)


class _ByListener:
    """WSGI: a request that came in on one of ``others``' ports gets that port's app, all others the API.

    The port is the local address of the connection itself (``gunicorn.socket``), which no
    header can change; the metrics port serves nothing but ``/metrics``, the probe port nothing
    but the probes.
    """

    def __init__(self, api: Any, others: Mapping[int, Any]) -> None:
        self.api = api
        self.others = dict(others)

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        sock = environ.get("gunicorn.socket")
        if sock is not None:
            try:
                local = sock.getsockname()
            except OSError:
                local = None
            if isinstance(local, tuple) and len(local) >= 2 and local[1] in self.others:
                return self.others[local[1]](environ, start_response)  # type: ignore[no-any-return]
        return self.api(environ, start_response)  # type: ignore[no-any-return]


class _ProbesOnly:
    """WSGI: the probe listener's application, the API's own ``/healthz`` and ``/readyz`` (same
    answers, headers and metrics) and 404 ``not_found`` for anything else."""

    def __init__(self, api: Any) -> None:
        self.api = api

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        if environ.get("PATH_INFO") in PROBE_PATHS:
            return self.api(environ, start_response)  # type: ignore[no-any-return]
        return observability.not_found(start_response, "Only /healthz and /readyz are served here.")


def _warm_up(app: Flask) -> None:
    """Exercise what the first real request would pay for (and fail now, not on a request).

    Plays each registered game's first position through its codec and, in sealed mode, seals and
    unseals it: a bad key or a broken codec stops the worker from ever reporting ready.
    """
    sealer: Sealer | None = app.extensions["referee.sealer"]
    for game_id, engine in ENGINES.items():
        codec = SCHEMAS[game_id]
        options, players = engine.Options(), engine.DEFAULT_PLAYERS
        state = engine.new_game(options, players, deal_deck(engine.pack(options, players), 0), 0)
        codec.dump_state(state)
        if sealer is not None:
            sealer.unseal(game_id, sealer.seal(game_id, "warm-up", codec.pack(state)))


__all__ = ["CORS_HEADERS", "CORS_METHODS", "DOCS_CSP", "PROBE_PATHS", "build"]
