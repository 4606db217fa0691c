"""/docs in headless Chromium under its Content-Security-Policy: Swagger UI renders the contract,
raises no JavaScript error and no CSP violation, and makes no request outside the service (in
particular none to a validator service: ``validatorUrl`` is null)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import Served

pytestmark = pytest.mark.browser


def test_docs_renders_under_its_policy_and_stays_on_this_origin(browser: Any, open_server: Served) -> None:
    base = open_server.base
    context = browser.new_context()
    requests: list[str] = []
    errors: list[str] = []
    context.on("request", lambda r: requests.append(r.url))
    page = context.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        page.goto(f"{base}/docs")
        # a locator wait, not wait_for_function("expression"): Playwright polls a string expression
        # through eval(), which this page's policy (no 'unsafe-eval') refuses once rendering is slow
        page.locator(".opblock").nth(6).wait_for(timeout=60_000)
        assert "Card Referee" in page.inner_text("#swagger-ui")
    finally:
        context.close()
    foreign = [u for u in requests if not u.startswith((base + "/", "data:", "blob:"))]
    assert foreign == [], foreign
    assert not [e for e in errors if "Content Security Policy" in e or "Refused" in e], errors
