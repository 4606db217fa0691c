"""Each rules page's option table, pinned to the game's one declaration of its options (issue 33,
item 4): ``docs/rules/<game>.md``'s table ``| Option | ... | Default | Effect |`` has a row for
every field of the engine's ``Options`` (declared with ``kit.option``), no row for anything else,
and each row's default agrees with the declared one.

A Default cell is the value as JSON (``0``, ``true``, ``null``, ``"2C"``, ``[0, 0]``), backticked or
not, optionally followed by a bracketed source note (``[seed]``, ``[decision]``); ``all `0``` says
every item of a list is 0 (Seven Up's ``start_scores``: the empty default, "every party at 0").
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from service.engines import ENGINES
from service.schemas.common import to_wire

RULES = Path(__file__).resolve().parents[1] / "docs" / "rules"
HEADER = re.compile(r"^\| Option \|[^\n]*\| Default \|[^\n]*\n\|[-| ]+\|\n((?:\|[^\n]*\n)*)", re.MULTILINE)
NOTE = re.compile(r"\s*\[[^\]]*\]$")
ALL = re.compile(r"^all `([^`]+)`$")


def _cells(row: str) -> list[str]:
    """A Markdown table row's cells (``\\|`` inside a cell is not a separator)."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", row.strip())[1:-1]]


def option_rows(page: str) -> dict[str, str]:
    """The option table's rows: option name -> its Default cell. Exactly one such table per page."""
    tables = HEADER.findall(page)
    assert len(tables) == 1, f"{len(tables)} option tables (| Option | ... | Default | ... |)"
    rows: dict[str, str] = {}
    for line in tables[0].splitlines():
        cells = _cells(line)
        name = re.fullmatch(r"`(\w+)`", cells[0])
        assert name, f"an option row names its option in backticks: {line}"
        assert name.group(1) not in rows, f"two rows for {name.group(1)}"
        rows[name.group(1)] = cells[2]
    return rows


def _agrees(cell: str, declared: object) -> bool:
    """Whether a Default cell states ``declared`` (the option's default in wire form)."""
    text = cell
    while NOTE.search(text):
        text = NOTE.sub("", text)
    every = ALL.match(text)
    if every:
        return isinstance(declared, list) and all(item == json.loads(every.group(1)) for item in declared)
    if text.startswith("`") and text.endswith("`"):
        text = text[1:-1]
    try:
        return bool(json.loads(text) == declared and type(json.loads(text)) is type(declared))
    except json.JSONDecodeError:
        return False


def problems(game: str, page: str) -> list[str]:
    """What the page's option table says that the engine's ``Options`` does not, and what it omits."""
    declared = {f.name: to_wire(f.default) for f in dataclasses.fields(ENGINES[game].Options)}
    rows = option_rows(page)
    found = [f"no row for option {name}" for name in declared if name not in rows]
    found += [f"a row for {name}, which is not an option" for name in rows if name not in declared]
    found += [f"{name}: default {rows[name]!r}, declared {json.dumps(value)}"
              for name, value in declared.items() if name in rows and not _agrees(rows[name], value)]
    return found


def _page(game: str) -> str:
    return (RULES / f"{game}.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_the_rules_pages_option_table_is_the_declaration(game: str) -> None:
    assert problems(game, _page(game)) == []


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_a_missing_row_or_a_wrong_default_is_caught(game: str) -> None:
    """The check can fail: each row deleted, and each default changed, is reported."""
    page = _page(game)
    table = HEADER.search(page)
    assert table
    for line in table.group(1).splitlines():
        name = _cells(line)[0].strip("`")
        assert problems(game, page.replace(line + "\n", "", 1)) == [f"no row for option {name}"], name
        cells = _cells(line)
        wrong = line.replace(f"| {cells[2]} |", "| `\"no such value\"` |", 1)
        assert [p for p in problems(game, page.replace(line, wrong, 1)) if p.startswith(f"{name}: default")], name


def test_a_declared_option_without_a_row_is_caught() -> None:
    page = _page("schnapsen")
    extra = "| `target` | int ≥ 1 | `7` | Game points needed to win the match (seed: 7). |\n"
    assert problems("schnapsen", page.replace(extra, extra + "| `house_rule` | bool | `false` | Not an option. |\n")) == [
        "a row for house_rule, which is not an option"]
