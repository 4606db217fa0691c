"""Fixtures for the playground's browser tests: the app served on 127.0.0.1 by a werkzeug server
in a thread, and headless Chromium (Debian's ``/usr/bin/chromium``) driven by Playwright.

The tests skip, with the reason, when Chromium or the ``playwright`` package is missing (``.ci/run``
installs both); the accessibility checks skip when axe-core (npm, ``tests/browser/package.json``) is
not installed. Every page records the requests it makes; a test fails if one leaves the service or
the page raises a JavaScript error. Every wait is bounded.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import make_server

from service import create_app
from tests.conftest import KEY_NEW
from tests.tools import ON_CI, missing

CHROMIUM = Path(os.environ.get("REFEREE_TEST_CHROMIUM", "/usr/bin/chromium"))
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
TIMEOUT_MS = 10_000
AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 360, "height": 740}


def _missing() -> str | None:
    if importlib.util.find_spec("playwright") is None:
        return "the playwright package is not installed (pip install -e '.[test]')"
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing (apt-get install chromium; .ci/run does it)"
    return None


MISSING = _missing()
needs_browser = pytest.mark.skipif(MISSING is not None and not ON_CI, reason=f"browser tests skipped: {MISSING}")  # CI: fail


class Served:
    """The app on a free loopback port, served from a daemon thread until ``close``."""

    def __init__(self, **config: Any) -> None:
        logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no access log in the test output
        self.app = create_app({"TESTING": True, **config})
        self.server = make_server("127.0.0.1", 0, self.app, threaded=True)
        self.base = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.thread.join(timeout=10)


@pytest.fixture(scope="session")
def open_server() -> Iterator[Served]:
    served = Served(SEAL_KEYS=[])
    yield served
    served.close()


@pytest.fixture(scope="session")
def sealed_server() -> Iterator[Served]:
    served = Served(SEAL_KEYS=[KEY_NEW], ALLOW_FIXED_DECKS=True)
    yield served
    served.close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if MISSING is not None:
        missing(f"browser tests: {MISSING}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"], timeout=30_000)
        try:
            yield chromium
        finally:
            chromium.close()


class Page:
    """A browser page on one server, with the log of every request it made."""

    def __init__(self, browser: Any, served: Served, viewport: dict[str, int] | None = None) -> None:
        self.base = served.base
        self.served = served
        self.browser = browser
        self.context = browser.new_context(viewport=viewport or DESKTOP, accept_downloads=True)
        self.context.set_default_timeout(TIMEOUT_MS)
        self.requests: list[str] = []
        self.context.on("request", lambda r: self.requests.append(r.url))
        self.errors: list[str] = []
        self.opened = False
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def open(self, fragment: str = "") -> Any:
        self.opened = True
        self.page.goto(f"{self.base}/play{fragment}")
        self.page.wait_for_selector("body[data-ready='1']")
        return self.page

    def reload(self) -> Any:
        self.page.reload()
        self.page.wait_for_selector("body[data-ready='1']")
        return self.page

    def axe(self, where: str, skip: bool = True) -> list[str]:
        """axe-core's serious and critical violations on the page as it is now (injected by the test:
        the page itself never loads it). Without axe-core installed the test skips here, or (``skip``
        false) this check alone is left out and the test goes on."""
        if not AXE.exists():
            if skip or ON_CI:
                missing("axe-core is not installed (npm ci --prefix tests/browser; .ci/run does it)")
            return []
        if not self.page.evaluate("typeof window.axe !== 'undefined'"):
            self.page.evaluate(AXE.read_text(encoding="utf-8"))
        found = self.page.evaluate(
            "axe.run(document, {resultTypes: ['violations']}).then(r => r.violations"
            ".filter(v => v.impact === 'serious' || v.impact === 'critical')"
            ".map(v => v.id + ' (' + v.impact + '): ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')))"
        )
        return [f"{where}: {v}" for v in found]

    def foreign_requests(self) -> list[str]:
        return [u for u in self.requests if not u.startswith((self.base + "/", "blob:", "data:"))]


def _page(browser: Any, served: Served, viewport: dict[str, int] | None = None) -> Iterator[Page]:
    p = Page(browser, served, viewport)
    try:
        yield p
        assert not p.opened or any("/v1/games" in u for u in p.requests), "the page made no API request at all"
        assert p.foreign_requests() == [], f"requests outside the service: {p.foreign_requests()}"
        assert p.errors == [], f"JavaScript errors: {p.errors}"
    finally:
        p.context.close()


@pytest.fixture
def page(browser: Any, open_server: Served) -> Iterator[Page]:
    yield from _page(browser, open_server)


@pytest.fixture
def sealed_page(browser: Any, sealed_server: Served) -> Iterator[Page]:
    yield from _page(browser, sealed_server)


@pytest.fixture
def phone_page(browser: Any, open_server: Served) -> Iterator[Page]:
    """A page on a 360 × 740 phone screen."""
    yield from _page(browser, open_server, PHONE)
