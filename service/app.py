"""Assembles the Flask app: configuration, sealing, routes, the error boundary, the docs page."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from flask import Flask, Response
from flask_swagger_ui import get_swaggerui_blueprint

from . import observability
from .api import problems
from .api.routes import bp
from .api.rules import bp as rules_bp
from .cards.shuffle import deal_deck
from .config import Config
from .engines import ENGINES
from .resources import openapi_path
from .schemas import SCHEMAS
from .sealing import Sealer

log = logging.getLogger("service")



def build(overrides: Mapping[str, Any] | None = None) -> Flask:
    """See ``service.create_app``."""
    cfg = Config.from_env(overrides=overrides)
    app = Flask("service")
    app.config["MAX_CONTENT_LENGTH"] = cfg.max_body
    app.config["TESTING"] = cfg.testing
    app.extensions["referee.config"] = cfg
    app.extensions["referee.sealer"] = Sealer(cfg.seal_keys) if cfg.sealed else None
    if not cfg.sealed:
        log.warning("REFEREE_SEAL_KEYS is not set: running in OPEN mode (plain states are trusted)")
    readiness = observability.install(app)
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

    docs = get_swaggerui_blueprint("/docs", "/openapi.yaml", config={"app_name": "Card Referee API"})
    app.register_blueprint(docs)
    app.add_url_rule("/docs", "docs_index", app.view_functions["swagger_ui.show"])

    @app.get("/healthz")
    def healthz() -> Response:
        return Response('{"status":"ok"}', mimetype="application/json")

    mode = "sealed" if cfg.sealed else "open"

    @app.get("/readyz")
    def readyz() -> Response:
        phase = readiness.phase
        status = 200 if phase == "ready" else 503
        return Response(f'{{"status":"{phase}","mode":"{mode}"}}', status=status, mimetype="application/json")

    _warm_up(app)
    readiness.mark_ready()
    return app


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
