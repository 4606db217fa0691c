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
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from .moves import components
from .wrappers import enums, options, state_components, wrappers

__all__ = ["ADDED", "generated", "generated_sections", "problem_codes", "render", "rewrite", "write_or_check", "written"]



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
    missing = [name for name in wanted if name not in present]
    if missing:  # a new game's entries: written after the section's last generated one, in the declarations' order
        last = max((i for i, (name, _) in enumerate(blocks) if name in wanted), default=len(blocks) - 1)
        blocks[last + 1:last + 1] = [(name, []) for name in missing]
        ADDED.extend(f"{heading.strip()} {name}" for name in missing)
    out = lines[:start]
    for name, block in blocks:
        out.append(_dump(name, wanted[name], indent) if name is not None and name in wanted else "".join(block))
    out.extend(lines[end:])
    return "".join(out)


ADDED: Final[list[str]] = []
"""The entries the writers added to openapi.yaml in this process (a new game's), each as ``"<section>:
<name>"``: ``rewrite`` reports them all at once."""


def render(document: str, wanted: Mapping[str, Any], section: str = "schemas") -> str:
    """``document`` (openapi.yaml's text) with each entry of ``wanted`` rewritten in place in
    ``section`` (``schemas``, ``parameters``, ``paths`` or ``examples``). An entry the section does
    not hold yet (a new game's) is added after the section's last generated entry, and listed in
    ``ADDED``."""
    return _render_section(document, _SECTIONS[section], wanted)


def _known_list(document: str, component: str, indent: str, values: list[str]) -> str:
    """``document`` with the block list ``x-enum-known`` (at ``indent``) of the hand-written
    component ``component`` made ``values``."""
    lines = document.splitlines(keepends=True)
    at = lines.index(f"    {component}:\n")
    key = next(i for i in range(at + 1, len(lines)) if lines[i] == f"{indent}x-enum-known:\n")
    if any(re.match(r"^    \S", line) for line in lines[at + 1:key]):
        raise ValueError(f"openapi.yaml: {component} has no x-enum-known list at its indent")
    end = key + 1
    while end < len(lines) and lines[end].startswith(f"{indent}- "):
        end += 1
    lines[key + 1:end] = [f"{indent}- {value}\n" for value in values]
    return "".join(lines)


def _tags(document: str) -> str:
    """``document`` with one tag per game under ``tags`` (``Play <name>.``), a new game's after the
    last game's."""
    from . import SCHEMAS

    lines = document.splitlines(keepends=True)
    start = lines.index("tags:\n") + 1
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith("- "))
    tag = re.compile(r"^- \{name: ([a-z_-]+),")
    wanted = {game: f"- {{name: {game}, description: Play {codec.engine.NAME}.}}\n" for game, codec in SCHEMAS.items()}
    found = {m.group(1): i for i in range(start, end) if (m := tag.match(lines[i]))}
    last = max((found[g] for g in wanted if g in found), default=start - 1)
    for game, line in wanted.items():
        if game in found:
            lines[found[game]] = line
    new = [line for game, line in wanted.items() if game not in found]
    ADDED.extend(f"tags: {game}" for game, _ in wanted.items() if game not in found)
    lines[last + 1:last + 1] = new
    return "".join(lines)


def problem_codes(document: str) -> list[str]:
    """Every code of this version, one family after another: ``HttpProblemCode`` and
    ``RulesProblemCode`` (written by hand in openapi.yaml), every game's own (``GameInfo.codes``)
    and ``RecordProblemCode``: ``ProblemCode``'s ``x-enum-known``, derived, never kept by hand."""
    from . import SCHEMAS

    yaml = importlib.import_module("yaml")
    schemas = yaml.safe_load(document)["components"]["schemas"]
    families = [schemas["HttpProblemCode"]["enum"], schemas["RulesProblemCode"]["enum"],
                *(codec.engine.GAME.codes for codec in SCHEMAS.values()), schemas["RecordProblemCode"]["enum"]]
    return list(dict.fromkeys(code for family in families for code in family))


def written(document: str) -> str:
    """``document`` with every generated entry rewritten: schemas, parameters and paths, the games'
    tags, and the lists derived from the registry: ``GameEntry.id``'s and ``ProblemCode``'s
    ``x-enum-known``."""
    from . import SCHEMAS

    for section, wanted in generated_sections().items():
        document = render(document, wanted, section)
    document = _tags(document)
    document = _known_list(document, "GameEntry", "          ", list(SCHEMAS))
    return _known_list(document, "ProblemCode", "      ", problem_codes(document))


def write_or_check(path: Path, before: str, after: str, argv: Sequence[str], differs: str) -> int:
    """The last step of every maintainer's writer (the contract, the examples, the typed records,
    the layouts' history): with ``--check`` in ``argv``, exit status 1 (saying ``differs``) when the
    file would change, else 0; without it, write ``after`` to ``path`` when it differs from
    ``before`` (saying so) and answer 0."""
    if "--check" in argv:
        if after != before:
            print(f"{path}: {differs}")
            return 1
        return 0
    if after != before:
        path.write_text(after, encoding="utf-8")
        print(f"{path}: rewritten")
    return 0


def rewrite(argv: list[str], write: Callable[[str], str], differs: str) -> int:
    """A maintainer's writer of openapi.yaml: ``write`` the file in place, or with ``--check`` exit
    1 (saying ``differs``) when it would change."""
    from ..resources import openapi_path

    path = Path(openapi_path())
    before = path.read_text(encoding="utf-8")
    status = write_or_check(path, before, write(before), argv, differs)
    if ADDED and "--check" not in argv:
        print(f"{path}: added {len(ADDED)} entries a game needed: " + ", ".join(ADDED))
    return status


def main(argv: list[str]) -> int:  # pragma: no cover - a maintainer's tool, run by its test
    return rewrite(argv, written, "generated components differ from the declarations; run python3 -m service.schemas.contract")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
