"""The baseline for bench/http_move.py: a trivial Flask endpoint that parses a JSON body and echoes it."""

from __future__ import annotations

import json

from flask import Flask, Response, request


def create_app() -> Flask:
    """``POST /echo``: parse the JSON body, answer it back."""
    app = Flask("echo")

    @app.post("/echo")
    def echo() -> Response:
        data = json.loads(request.get_data())
        return Response(json.dumps(data, separators=(",", ":")), mimetype="application/json")

    return app
