"""openapi.yaml's generated components: written from the games' declarations, never by hand.

Every game's moves (``<Game>Move``, each move type, and every schema they reach: seats, cards,
stakes, timestamps) are declared once in ``service/schemas/<game_id>.py`` (``moves.Moves``), and
its request and answer schemas (``<Game>NewRequest`` … ``<Game>ReplayResult``) are written from
its ``CONTRACT`` (``wrappers.py``). This module writes them into openapi.yaml, in place, each
component where it stands:

    python3 -m service.schemas.contract          # rewrite openapi.yaml's generated components
    python3 -m service.schemas.contract --check  # exit 1 if openapi.yaml differs from them

``tests/test_contract_generated.py`` runs the check, so a hand edit of a generated component, or a
declaration changed without regenerating, fails the suite. The file stays committed: clients and
reviewers read it. Writing needs PyYAML (the test extra); the service itself never parses YAML.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

from .moves import components
from .wrappers import enums, options, state_components, wrappers

__all__ = ["generated", "generated_sections", "render", "rewrite", "written"]



def generated() -> dict[str, Any]:
    """The components the declarations give, by name: ``GameId`` (the registry's games), every
    game's move schemas, then its request and answer, state, view, event, score and problem-code
    schemas."""
    from . import SCHEMAS

    out = components(codec.moves for codec in SCHEMAS.values())
    out["GameId"] = {"description": "The id of a game this service referees.", "type": "string", "enum": list(SCHEMAS)}
    for codec in SCHEMAS.values():
        contract = codec.module.CONTRACT
        own = {**wrappers(contract), **options(contract), **enums(contract), **state_components(contract)}
        for name, schema in own.items():
            if out.setdefault(name, schema) != schema:
                raise ValueError(f"two different schemas are named {name}")
    return out


def generated_sections() -> dict[str, dict[str, Any]]:
    """Everything the declarations give, by section: the components above, every game's ``as``
    parameter and its five operations (``operations.py``)."""
    from . import SCHEMAS
    from .operations import as_parameter, operations

    contracts = [codec.module.CONTRACT for codec in SCHEMAS.values()]
    return {
        "schemas": generated(),
        "parameters": {"As" + c.moves.prefix: as_parameter(c) for c in contracts},
        "paths": {path: item for c in contracts for path, item in operations(c).items()},
    }


_WIDTH = 110


def _dump(name: str, schema: Mapping[str, Any], indent: str = "    ") -> str:
    """One component as openapi.yaml writes it: a collection in flow style when it fits on its
    line (a component with a description stays in block style), multi-line text as a literal block."""
    yaml = importlib.import_module("yaml")

    def flow(value: Any) -> str:
        text: str = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=10**9, sort_keys=False)
        return text.strip().removesuffix("...").strip()

    def multiline(value: Any) -> bool:
        if isinstance(value, str):
            return "\n" in value
        if isinstance(value, Mapping):
            return any(multiline(v) for v in value.values())
        if isinstance(value, list):
            return any(multiline(v) for v in value)
        return False

    def fits(prefix: str, value: Any) -> bool:
        return not multiline(value) and len(prefix) + len(flow(value)) <= _WIDTH

    def entry(prefix: str, value: Any, indent: str) -> list[str]:
        """``prefix`` (``"key: "`` or ``"- "``, already indented) followed by ``value``."""
        if isinstance(value, str) and "\n" in value:
            return [prefix + "|"] + [indent + "  " + line if line else "" for line in value.rstrip("\n").split("\n")]
        described = isinstance(value, Mapping) and "description" in value
        if not isinstance(value, (Mapping, list)) or (fits(prefix, value) and not described):
            return [prefix + flow(value)]
        inner = indent + "  "
        item = prefix.endswith("- ")  # a list item's mapping starts on the dash's line
        out = [] if item else [prefix.rstrip()]
        if isinstance(value, Mapping):
            for k, v in value.items():
                out.extend(entry(f"{prefix if item and not out else inner}{flow(k)}: ", v, inner))
        else:  # an item's list starts on the dash's line, its other elements under that one's
            at = inner if item else indent
            for element in value:
                out.extend(entry(prefix + "- " if item and not out else f"{at}- ", element, at))
        return out

    return "".join(line + "\n" for line in entry(f"{indent}{flow(name)}: ", dict(schema), indent))


_SECTIONS: Final = {"schemas": "  schemas:\n", "parameters": "  parameters:\n", "paths": "paths:\n", "examples": "  examples:\n"}
"""Where each generated kind lives in openapi.yaml: its section's heading line."""


def _render_section(document: str, heading: str, wanted: Mapping[str, Any]) -> str:
    lines = document.splitlines(keepends=True)
    start = lines.index(heading) + 1
    indent = " " * (len(heading) - len(heading.lstrip()) + 2)  # the section's entries
    entry = re.compile(rf"^{indent}(\S[^:]*):")
    end = next((i for i in range(start, len(lines)) if lines[i].strip() and not lines[i].startswith(indent)), len(lines))
    blocks: list[tuple[str | None, list[str]]] = []
    for line in lines[start:end]:
        match = entry.match(line)
        if match:
            blocks.append((match.group(1), [line]))
        elif blocks:
            blocks[-1][1].append(line)
        else:
            blocks.append((None, [line]))
    present = {name for name, _ in blocks}
    missing = sorted(set(wanted) - present)
    if missing:
        raise ValueError(f"openapi.yaml has no {heading.strip()} entry {missing[0]} to rewrite: add a line "
                         f"`{indent}{missing[0]}: {{}}` where it belongs")
    out = lines[:start]
    for name, block in blocks:
        out.append(_dump(name, wanted[name], indent) if name is not None and name in wanted else "".join(block))
    out.extend(lines[end:])
    return "".join(out)


def render(document: str, wanted: Mapping[str, Any], section: str = "schemas") -> str:
    """``document`` (openapi.yaml's text) with each entry of ``wanted`` rewritten in place in
    ``section`` (``schemas``, ``parameters``, ``paths`` or ``examples``). Raises ValueError if one of them is
    not in the document's section."""
    return _render_section(document, _SECTIONS[section], wanted)


def written(document: str) -> str:
    """``document`` with every generated entry rewritten: schemas, parameters and paths."""
    for section, wanted in generated_sections().items():
        document = render(document, wanted, section)
    return document


def rewrite(argv: list[str], write: Callable[[str], str], differs: str) -> int:
    """A maintainer's writer of openapi.yaml: ``write`` the file in place, or with ``--check`` exit
    1 (saying ``differs``) when it would change."""
    from ..resources import openapi_path

    path = Path(openapi_path())
    before = path.read_text(encoding="utf-8")
    after = write(before)
    if "--check" in argv:
        if after != before:
            print(f"{path}: {differs}")
            return 1
        return 0
    if after != before:
        path.write_text(after, encoding="utf-8")
        print(f"{path}: rewritten")
    return 0


def main(argv: list[str]) -> int:  # pragma: no cover - a maintainer's tool, run by its test
    return rewrite(argv, written, "generated components differ from the declarations; run python3 -m service.schemas.contract")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
