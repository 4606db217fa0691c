"""The playground's files as the service serves them (no browser needed): documented in
openapi.yaml (the contract client checks every response), confined by a Content-Security-Policy,
shipped inside the package, and free of references to anything outside the service."""

from __future__ import annotations

import re
from importlib.resources import files

from flask.testing import FlaskClient

STATIC = files("service.play").joinpath("static")


def test_the_page_and_its_assets_are_served(client: FlaskClient) -> None:
    page = client.get("/play")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assert '<script src="/play/assets/play.js"' in html and 'href="/play/assets/play.css"' in html
    csp = page.headers["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "connect-src 'self'" in csp and "script-src 'self'" in csp
    js = client.get("/play/assets/play.js")
    assert js.status_code == 200 and js.mimetype == "text/javascript" and "/v1/games" in js.get_data(as_text=True)
    css = client.get("/play/assets/play.css")
    assert css.status_code == 200 and css.mimetype == "text/css"


def test_only_the_two_assets_are_served(client: FlaskClient) -> None:
    for name in ("index.html", "missing.js", "..%2Fapp.py", "play.JS"):
        response = client.get(f"/play/assets/{name}")
        assert response.status_code == 404 and response.get_json()["code"] == "not_found", name
    assert client.post("/play").status_code == 405


def test_the_page_in_sealed_mode_is_the_same_file(sealed: FlaskClient) -> None:
    assert sealed.get("/play").get_data() == STATIC.joinpath("index.html").read_bytes()


def test_no_file_refers_outside_the_service() -> None:
    """No CDN, no external font, no absolute URL to another host in what the page loads."""
    for name in ("index.html", "play.js", "play.css"):
        text = STATIC.joinpath(name).read_text(encoding="utf-8")
        assert not re.search(r"https?://|//[a-z0-9.-]+\.[a-z]{2,}/|@import", text, re.IGNORECASE), name
        assert not re.search(r"\burl\(", text), name  # CSS url(): no image or font from anywhere
