#!/usr/bin/env python3
"""Make the playground's screenshots in docs/screenshots/ again.

The screenshots are taken by the browser tests themselves (tests/browser, headless Debian Chromium
driven by Playwright), so that what they show is what the tests check: every game's table after one
move at 1280 × 800 (``table-<game>.png``) and on a 360 × 740 phone (``phone-<game>.png``), a refused
move (``table.png``), the dispute desk (``dispute.png``) and the hot-seat table (``hotseat.png``).
This runs just those tests, one at a time (``-n 0``). Run it from a checkout with the test extras
installed: ``.venv/bin/python scripts/screenshots.py``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = [
    "tests/browser/test_playground.py::test_every_game_is_a_table_that_plays_by_click",
    "tests/browser/test_playground.py::test_a_refused_move_shows_its_code_detail_and_rule_in_words",
    "tests/browser/test_playground.py::test_the_dispute_desk_highlights_the_first_illegal_move",
    "tests/browser/test_honest_table.py::test_hot_seat_opens_the_full_view_and_the_desk_once_the_game_is_over",
]


def main() -> int:
    cmd = [sys.executable, "-m", "pytest", "-n", "0", "-q", "-p", "no:cacheprovider", *TESTS]
    return subprocess.call(cmd, cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main())
