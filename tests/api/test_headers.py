"""Headers and browsers (issue 15, item 5), in-process on every route:

- nosniff on every response; ``Cache-Control: no-store`` on every response that may carry a
  state, a token or keys (every API answer and every problem);
- ``/docs``: a Content-Security-Policy with frame-ancestors, no inline script, Swagger UI told
  never to call a validator service, every asset from this origin;
- CORS off by default; with ``REFEREE_CORS_ORIGINS`` an allowed origin gets its preflight
  (``X-Seat-Key`` allowed) and its answers, a refused origin gets no CORS header at all.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.conftest import KEY_NEW, make_app


def _plain(client: FlaskClient) -> FlaskClient:
    """A client without the contract check, for the automatic OPTIONS answers (CORS preflight),
    which openapi.yaml does not list as operations."""
    return FlaskClient(client.application)

GAME = "/v1/games/schnapsen"
ALLOWED = "https://cards.example:8443"


def _every_route(client: FlaskClient) -> list[Any]:
    env = client.post(f"{GAME}/new", json={"seed": 3}).json
    body = {"state": env["state"], "move": env["legal_moves"][0]}
    return [
        client.get("/v1/games"), client.get(f"{GAME}"), client.post(f"{GAME}/new", json={"seed": 3}),
        client.post(f"{GAME}/state", json={"state": env["state"]}), client.post(f"{GAME}/moves", json=body),
        client.post(f"{GAME}/check", json=body), client.post(f"{GAME}/replay", json={"seed": 3, "moves": []}),
        client.post(f"{GAME}/moves", json={"state": env["state"], "move": {"type": "nope"}}),  # 422
        client.post(f"{GAME}/new", data="{", content_type="application/json"),  # 400
        client.get("/v1/games/nope"), client.get("/no/such/path"), client.delete(f"{GAME}/new"),  # 404, 404, 405
        client.get("/healthz"), client.get("/readyz"), client.get("/openapi.yaml"), client.get("/docs"),
        client.get("/docs/init.js"), client.get("/docs/swagger-ui.css"), client.get("/play"), client.get("/play/assets/play.js"),
    ]


def test_every_response_is_nosniff_and_api_answers_are_never_stored(client: FlaskClient) -> None:
    for r in _every_route(client):
        assert r.headers["X-Content-Type-Options"] == "nosniff", r.request.path
        if r.request.path.startswith("/v1/") or r.status_code >= 400:
            assert r.headers["Cache-Control"] == "no-store", (r.request.path, r.status_code)


def test_sealed_answers_with_tokens_and_keys_are_no_store(sealed: FlaskClient) -> None:
    r = sealed.post(f"{GAME}/new", json={"seed": 1})
    assert r.status_code == 201 and "seat_keys" in r.json and "token" in r.json
    assert r.headers["Cache-Control"] == "no-store" and r.headers["X-Content-Type-Options"] == "nosniff"
    r = sealed.post(f"{GAME}/state", json={"token": r.json["token"]})
    assert r.status_code == 200 and r.headers["Cache-Control"] == "no-store"


def test_docs_has_a_strict_policy_no_inline_script_and_no_validator(client: FlaskClient) -> None:
    r = client.get("/docs")
    csp = r.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp and "default-src 'none'" in csp
    assert "unsafe-inline" not in csp.split("script-src", 1)[1].split(";", 1)[0]
    page = r.get_data(as_text=True)
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", page, re.DOTALL)
    assert scripts and all('src="/docs/' in attrs and not body.strip() for attrs, body in scripts)  # no inline script
    assets = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert all(a.startswith("/docs/") for a in assets), assets  # nothing from elsewhere
    for asset in assets:
        assert _plain(client).get(asset).status_code == 200, asset
    init = client.get("/docs/init.js")
    assert init.headers["Content-Security-Policy"] == csp
    assert "validatorUrl: null" in init.get_data(as_text=True) and '"/openapi.yaml"' in init.get_data(as_text=True)
    assert client.get("/docs/../app.py").status_code == 404 and client.get("/docs/LICENSE").status_code == 404


def test_cors_is_off_by_default(client: FlaskClient) -> None:
    r = client.post(f"{GAME}/new", json={}, headers={"Origin": ALLOWED})
    assert r.status_code == 201 and "Access-Control-Allow-Origin" not in r.headers
    pre = _plain(client).options(f"{GAME}/moves", headers={"Origin": ALLOWED, "Access-Control-Request-Method": "POST"})
    assert "Access-Control-Allow-Origin" not in pre.headers


@pytest.fixture(scope="module")
def cors() -> FlaskClient:
    return make_app(SEAL_KEYS=[KEY_NEW], CORS_ORIGINS=f"{ALLOWED}, http://localhost:5173").test_client()


def test_cors_preflight_from_an_allowed_origin_allows_the_seat_key(cors: FlaskClient) -> None:
    pre = _plain(cors).options(f"{GAME}/moves", headers={
        "Origin": ALLOWED, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type, x-seat-key",
    })
    assert pre.status_code == 200
    assert pre.headers["Access-Control-Allow-Origin"] == ALLOWED
    assert "POST" in pre.headers["Access-Control-Allow-Methods"]
    allowed = {h.strip().lower() for h in pre.headers["Access-Control-Allow-Headers"].split(",")}
    assert {"content-type", "x-seat-key", "x-request-id"} <= allowed
    assert int(pre.headers["Access-Control-Max-Age"]) > 0 and "Origin" in pre.headers.get_all("Vary")
    r = cors.post(f"{GAME}/new", json={}, headers={"Origin": ALLOWED})
    assert r.status_code == 201 and r.headers["Access-Control-Allow-Origin"] == ALLOWED
    assert "X-Request-ID" in r.headers["Access-Control-Expose-Headers"]


def test_cors_refuses_other_origins(cors: FlaskClient) -> None:
    for origin in ("https://evil.example", "https://cards.example", "null", "https://cards.example:8443.evil"):
        pre = _plain(cors).options(f"{GAME}/moves", headers={"Origin": origin, "Access-Control-Request-Method": "POST"})
        assert "Access-Control-Allow-Origin" not in pre.headers, origin
        r = cors.post(f"{GAME}/new", json={}, headers={"Origin": origin})
        assert "Access-Control-Allow-Origin" not in r.headers, origin
    assert "Access-Control-Allow-Origin" not in cors.get("/healthz", headers={"Origin": ALLOWED}).headers  # API paths only
