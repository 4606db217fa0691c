"""Assembles the Flask app: configuration, sealing, routes, the error boundary, the docs page."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask, Response
from flask_swagger_ui import get_swaggerui_blueprint

from .api import problems
from .api.routes import bp
from .config import Config
from .sealing import Sealer

log = logging.getLogger("service")

OPENAPI_PATH = Path(__file__).resolve().parent.parent / "openapi.yaml"


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
    problems.register(app)
    app.register_blueprint(bp)
    from .play import bp as play_bp  # the playground page at /play (service/play/)

    app.register_blueprint(play_bp)

    spec_bytes = OPENAPI_PATH.read_bytes() if OPENAPI_PATH.exists() else b""

    @app.get("/openapi.yaml")
    def openapi() -> Response:
        return Response(spec_bytes, mimetype="application/yaml")

    docs = get_swaggerui_blueprint("/docs", "/openapi.yaml", config={"app_name": "Card Referee API"})
    app.register_blueprint(docs)
    app.add_url_rule("/docs", "docs_index", app.view_functions["swagger_ui.show"])

    @app.get("/healthz")
    def healthz() -> Response:
        return Response('{"status":"ok"}', mimetype="application/json")

    @app.get("/readyz")
    def readyz() -> Response:
        mode = "sealed" if cfg.sealed else "open"
        return Response(f'{{"status":"ready","mode":"{mode}"}}', mimetype="application/json")

    return app
