"""The playground at ``/play``: a page that plays any registered game and judges move logs.

Plain HTML, CSS and JavaScript shipped inside the package and served as they are (no template
engine, no build step, nothing fetched from elsewhere). The page is a client like any other: it
talks only to the public API (``/v1/games…``, ``/readyz``). A Content-Security-Policy keeps every
request it makes on this origin.
"""

from __future__ import annotations

from importlib.resources import files
from typing import Final

from flask import Blueprint, Response, abort

__all__ = ["bp"]

bp = Blueprint("play", __name__)

_STATIC = files(__name__).joinpath("static")
_ASSETS: Final = {"play.js": "text/javascript", "play.css": "text/css"}
_CSP: Final = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


def _read(name: str) -> bytes:
    return _STATIC.joinpath(name).read_bytes()


def _static(body: bytes, mimetype: str) -> Response:
    resp = Response(body, mimetype=mimetype)
    resp.headers["Content-Security-Policy"] = _CSP
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Cache-Control"] = "no-cache"
    return resp


@bp.get("/play")
def page() -> Response:
    """The playground page: the table and the dispute desk."""
    return _static(_read("index.html"), "text/html")


@bp.get("/play/assets/<name>")
def asset(name: str) -> Response:
    """The page's script and style sheet (only these names; anything else is a 404)."""
    mimetype = _ASSETS.get(name)
    if mimetype is None:
        abort(404)
    return _static(_read(name), mimetype)
