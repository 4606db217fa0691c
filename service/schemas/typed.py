"""The library's typed records, written from the contract's declarations: ``service/typed.py``.

Every game's answers (``<Game>Envelope``, its views, events, scores and moves as the wire carries
them) become ``TypedDict`` classes of the same names as their openapi.yaml components, written
from the components the declarations give (``contract.generated``; the few hand-kept common ones,
``Problem``, ``Fairness`` …, from openapi.yaml, which ``contract --check`` keeps equal to them).
Each engine's own ``view`` (Python values: ``Card``, ``Suit``, tuples, the game's dataclasses)
gets ``<Game>EngineView``: the members of its seat and public views, a member both carry required,
cards typed ``cards.Card``, suits ``cards.Suit``, sequences ``Sequence``, anything the engine keeps as its own
object ``object``.

    python3 -m service.schemas.typed          # rewrite service/typed.py
    python3 -m service.schemas.typed --check  # exit 1 if service/typed.py differs

TypedDicts cost nothing at run time: the engines and the referee import them only for type
checkers, and the request path never builds or converts one. ``tests/test_library_types.py`` runs
the check and plays every game checking its engine views against ``<Game>EngineView``.
"""

from __future__ import annotations

import importlib
import keyword
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

__all__ = ["ROOTS", "source"]

REF: Final = "#/components/schemas/"
ROOTS: Final = ("Envelope", "View", "Event", "Scores", "Move", "ReplayResult")
"""Each game's components written (with every component they reach), as ``<Game><root>``."""
COMMON: Final = ("CheckResult", "RecordResult")

_SCALARS: Final = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}


def _components() -> dict[str, Any]:
    from ..resources import openapi_path
    from .contract import generated

    yaml = importlib.import_module("yaml")  # the test extra's PyYAML (no stubs): only the writer reads YAML
    document = yaml.safe_load(Path(openapi_path()).read_text(encoding="utf-8"))
    return {**document["components"]["schemas"], **generated()}


def _literal(values: list[Any]) -> str:
    return "Literal[" + ", ".join(repr(v) for v in values) + "]"


def _union(parts: list[str]) -> str:
    out: list[str] = []
    for p in parts:
        if p not in out:
            out.append(p)
    if "object" in out:
        return "object"
    return " | ".join(out)


def _wire(schema: Any, comps: Mapping[str, Any], uses: set[str], hint: str = "", inner: dict[str, str] | None = None) -> str:
    """The Python type of a JSON value of ``schema`` (as the referee answers it); an object declared
    in place becomes its own TypedDict named ``hint`` (added to ``inner``)."""
    if not isinstance(schema, Mapping):
        return "object"
    if "$ref" in schema:
        name = str(schema["$ref"]).removeprefix(REF)
        uses.add(name)
        return name
    if "const" in schema:
        return _literal([schema["const"]])
    if "enum" in schema:
        return _literal(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return _union([_wire(s, comps, uses, f"{hint}{i}", inner) for i, s in enumerate(schema[key])])
    kind = schema.get("type")
    if isinstance(kind, list):
        return _union([_wire({**schema, "type": k}, comps, uses, hint, inner) for k in kind])
    if kind == "array":
        return f"list[{_wire(schema.get('items'), comps, uses, hint + 'Item', inner)}]"
    if kind == "object":
        if "properties" in schema and inner is not None and hint:
            inner[hint] = _members(hint, schema, comps, uses, inner)
            return hint
        extra = schema.get("additionalProperties")
        return f"dict[str, {_wire(extra, comps, uses, hint + 'Value', inner) if isinstance(extra, Mapping) else 'object'}]"
    return _SCALARS.get(kind, "object") if isinstance(kind, str) else "object"


def _engine(schema: Any, comps: Mapping[str, Any]) -> str:
    """The Python type an engine's view holds for a member of ``schema``: a card a ``Card``, a suit
    a ``Suit``, an array any ``Sequence``; a string enum is ``str`` (the engines' enums are
    ``StrEnum``); an object or anything else the engine keeps as its own value is ``object``."""
    if not isinstance(schema, Mapping):
        return "object"
    if "$ref" in schema:
        name = str(schema["$ref"]).removeprefix(REF)
        if name in ("Card", "Suit"):
            return "cards." + name
        return _engine(comps[name], comps)
    if "const" in schema:
        return _literal([schema["const"]]) if isinstance(schema["const"], str) else "object"
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return _union([_engine(s, comps) for s in schema[key]])
    kind = schema.get("type")
    if kind == "array":
        return f"Sequence[{_engine(schema.get('items'), comps)}]"
    if kind in ("integer", "boolean", "null"):
        return _SCALARS[kind]
    if kind == "string":
        return "str"
    return "object"


def _typed_dict(name: str, members: Mapping[str, tuple[str, bool]], doc: str | None) -> str:
    """A TypedDict ``name`` of ``members`` (type, required), as a ``@final`` class when every key
    is a name, else in the functional form."""
    if all(k.isidentifier() and not keyword.iskeyword(k) for k in members):
        lines = ["@final", f"class {name}(TypedDict):"]
        if doc:
            lines.append(f"    {_docstring(doc)}")
        for key, (kind, required) in members.items():
            lines.append(f"    {key}: {kind if required else f'NotRequired[{kind}]'}")
        if len(lines) == 2:
            lines.append("    pass")
        return "\n".join(lines)
    items = ", ".join(f"{key!r}: {(kind if required else f'NotRequired[{kind}]')!r}" for key, (kind, required) in members.items())
    return f"{name} = TypedDict({name!r}, {{{items}}})" + (f"\n{_docstring(doc, prefix='')}" if doc else "")


def _docstring(text: str, prefix: str = "    ") -> str:
    first = " ".join(text.strip().split())
    if len(first) > 100:
        first = first[:97].rsplit(" ", 1)[0] + " …"
    return '"""' + first.replace("\\", "\\\\").replace('"""', "'''") + '"""'


def _members(name: str, schema: Mapping[str, Any], comps: Mapping[str, Any], uses: set[str], inner: dict[str, str]) -> str:
    """The TypedDict ``name`` of an object ``schema`` (objects declared in its members before it)."""
    required = set(schema.get("required", ()))
    members = {k: (_wire(v, comps, uses, name + _camel(k), inner), k in required) for k, v in schema["properties"].items()}
    return _typed_dict(name, members, schema.get("description"))


def _camel(key: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in key.split("_"))


def _definition(name: str, schema: Mapping[str, Any], comps: Mapping[str, Any], uses: set[str]) -> str:
    """``name``'s definition, after the objects its schema declares in place."""
    inner: dict[str, str] = {}
    if schema.get("type") == "object" and "properties" in schema:
        text = _members(name, schema, comps, uses, inner)
        inner.pop(name, None)
    else:
        doc = schema.get("description")
        text = f"{name}: TypeAlias = {_wire(schema, comps, uses, name, inner)!r}" + (f"\n{_docstring(doc, prefix='')}" if doc else "")
    return "\n\n\n".join([*inner.values(), text])


def _engine_view(prefix: str, comps: Mapping[str, Any]) -> str:
    """``<Game>EngineView``: the members of the game's seat and public views (or its one view)."""
    view = comps[prefix + "View"]
    parts = [comps[s["$ref"].removeprefix(REF)] for s in view.get("oneOf", view.get("anyOf", ()))] or [view]
    members: dict[str, tuple[list[str], int]] = {}
    for part in parts:
        required = set(part.get("required", ()))
        for key, schema in part["properties"].items():
            kinds, count = members.get(key, ([], 0))
            members[key] = ([*kinds, _engine(schema, comps)], count + (key in required))
    out = {key: (_union(kinds), count == len(parts)) for key, (kinds, count) in members.items()}
    doc = f"What ``engines.{{game}}.view`` answers, as Python values (the wire's ``{prefix}View`` before it is written)."
    return _typed_dict(prefix + "EngineView", out, doc)


def source() -> str:
    """``service/typed.py``'s text."""
    from . import SCHEMAS

    comps = _components()
    games = {codec.moves.prefix: game_id for game_id, codec in SCHEMAS.items()}
    prefixes = list(games)
    wanted = [p + root for p in prefixes for root in ROOTS] + list(COMMON)
    order: list[str] = []
    defined: dict[str, str] = {}
    visiting: set[str] = set()

    def visit(name: str) -> None:
        if name in defined:
            return
        if name in visiting:  # a recursive schema (ProblemErrors): every reference is a string, read lazily
            return
        visiting.add(name)
        uses: set[str] = set()
        text = _definition(name, comps[name], comps, uses)
        for used in sorted(uses):
            visit(used)
        visiting.discard(name)
        defined[name] = text
        order.append(name)

    for name in wanted:
        visit(name)
    unions = {p: " | ".join(p + "Envelope" for p in prefixes) for p in ("",)}
    head = '''"""Typed records of every game's answers, for type checkers: written by ``python3 -m service.schemas.typed``
from the contract's declarations (openapi.yaml's components of the same names). Do not edit.

``<Game>Envelope`` is what ``Referee.new``/``state``/``move`` answer for the game (``Envelope``: any
game's), with its ``<Game>View`` (``<Game>SeatView | <Game>PublicView`` where they differ),
``<Game>Event`` and ``<Game>Move`` as the wire carries them; ``<Game>EngineView`` is what the
engine's own ``view`` answers (Python values). Narrow a union by its members:
``env["state"]["game"] == "schnapsen"``, ``"hand" in view``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NotRequired, TypeAlias, TypedDict, final

from . import cards

__all__ = [
'''
    names = [*order, *(p + "EngineView" for p in prefixes), "Envelope"]
    body = "".join(f"    \"{n}\",\n" for n in sorted(names)) + "]\n"
    parts = [defined[n] for n in order]
    parts += [_engine_view(p, comps).replace("{game}", games[p]) for p in prefixes]
    parts.append(f"Envelope: TypeAlias = {unions['']!r}\n\"\"\"What ``Referee.new``, ``state`` and ``move`` answer: one game's envelope.\"\"\"")
    return head + body + "\n\n" + "\n\n\n".join(parts) + "\n"


def main(argv: list[str]) -> int:  # pragma: no cover - a maintainer's tool, run by its test
    from .contract import write_or_check

    path = Path(__file__).resolve().parents[1] / "typed.py"
    text = source()
    before = path.read_text(encoding="utf-8") if path.exists() else ""
    status = write_or_check(path, before, text, argv, "differs from the declarations; run python3 -m service.schemas.typed")
    known = set(_names(before))
    added = [name for name in _names(text) if name not in known]
    if added and "--check" not in argv:
        print(f"{path}: added {', '.join(added)}")
    return status


def _names(text: str) -> list[str]:
    """The records a written module defines, in order (what ``main`` reports as added)."""
    return [a or b for a, b in re.findall(r"^(?:class (\w+)\(|(\w+): TypeAlias)", text, flags=re.MULTILINE)]


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
