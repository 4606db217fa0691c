"""docs/library.md's examples, run as doctests against the installed import name ``card_referee``
(issue 22, item 4: a documented library whose examples the suite runs)."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "library.md"


def test_the_library_page_runs_as_written() -> None:
    pytest.importorskip("card_referee", reason="the package is not installed (pip install -e .)")
    result = doctest.testfile(str(DOC), module_relative=False, optionflags=doctest.ELLIPSIS, verbose=False, report=True)
    assert result.attempted >= 30, result
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of docs/library.md failed (see above)"
