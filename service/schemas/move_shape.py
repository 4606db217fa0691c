"""Whether a value is a move of a game as the contract writes it (``<Game>Move`` in openapi.yaml).

``replay`` parses every logged move with this before any engine runs: a log entry that is not a
move of the game at all (a float ``at``, a string seat, a move type the game does not have, a card
that no pack of the game holds) is the client's malformed document, refused with 400
``invalid_request`` and the JSON Pointer of the entry (``/moves/3/player``). A well-formed move
the rules refuse stays a verdict (``first_illegal``). docs/wire.md, "Requests".

The shapes are the contract's own, not a second description of it: ``_contract_moves.DEFS`` is the
closure of each ``<Game>Move`` schema in openapi.yaml with its annotations dropped, kept as Python
data so that nothing parses YAML at run time, and ``tests/api/test_replay_rejects_malformed_moves``
keeps it equal to the document. After changing a move schema, regenerate it with
``python3 -m service.schemas.move_shape``.

The schemas are compiled once into plain functions. Only the keywords the move schemas use are
understood; any other keyword is refused at compile time, so a contract that grows one fails the
suite instead of being skipped. Integers follow the contract's Numbers rule: a JSON integer, never
``2.0`` (JSON Schema alone would count it) and never ``true``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final

from ._contract_moves import DEFS

__all__ = ["MOVE_SCHEMA_NAMES", "extract", "move_problem"]

Problem = tuple[str, str] | None
"""(JSON Pointer suffix, message) of the first fault, or None."""
Check = Callable[[Any], Problem]

ANNOTATIONS: Final = frozenset({"description", "examples", "default", "title", "format"})
_KNOWN: Final = frozenset({
    "$ref", "type", "const", "enum", "minimum", "maximum", "pattern", "minLength", "maxLength", "required", "properties",
    "additionalProperties", "items", "minItems", "maxItems", "uniqueItems", "anyOf", "oneOf", "discriminator",
})


def _schema_name(game_id: str) -> str:
    return "".join(part.capitalize() for part in game_id.split("_")) + "Move"


def _is_type(value: Any, kind: str) -> bool:
    if kind == "integer":
        return type(value) is int
    if kind == "number":
        return type(value) in (int, float)
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "null":
        return value is None
    raise ValueError(f"unknown JSON type {kind!r}")


def _same(a: Any, b: Any) -> bool:
    """JSON equality (``true`` is not ``1``)."""
    return type(a) is type(b) and a == b if not isinstance(a, (dict, list)) else _canon(a) == _canon(b)


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _pointer(key: str | int) -> str:
    return "/" + str(key).replace("~", "~0").replace("/", "~1")


class _Compiler:
    def __init__(self, defs: Mapping[str, Any]) -> None:
        self.defs = defs
        self.done: dict[str, Check] = {}
        self.busy: set[str] = set()

    def ref(self, ref: str) -> Check:
        name = ref.rsplit("/", 1)[-1]
        if not ref.startswith("#/components/schemas/") or name not in self.defs:
            raise ValueError(f"unresolvable $ref {ref!r}: run `python3 -m service.schemas.move_shape` after changing openapi.yaml")
        if name in self.busy:
            raise ValueError(f"recursive schema {name}: not a move shape")
        if name not in self.done:
            self.busy.add(name)
            self.done[name] = self.compile(self.defs[name])
            self.busy.discard(name)
        return self.done[name]

    def compile(self, schema: Mapping[str, Any]) -> Check:
        unknown = set(schema) - _KNOWN - ANNOTATIONS
        if unknown:
            raise ValueError(f"keywords this checker does not know: {sorted(unknown)}")
        checks: list[Check] = []
        if "$ref" in schema:
            checks.append(self.ref(schema["$ref"]))
        if "type" in schema:
            kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            for kind in kinds:
                _is_type(None, kind)  # an unknown type name fails here, at compile time
            wrong = ("", f"must be of type {' or '.join(kinds)}")
            if kinds == ["integer"]:
                checks.append(lambda v: None if type(v) is int else wrong)
            elif kinds == ["string"]:
                checks.append(lambda v: None if type(v) is str else wrong)
            else:
                checks.append(lambda v: None if any(_is_type(v, k) for k in kinds) else wrong)
        if "const" in schema:
            const = schema["const"]
            checks.append(lambda v: None if _same(v, const) else ("", f"must be {json.dumps(const)}"))
        if "enum" in schema:
            options = list(schema["enum"])
            checks.append(lambda v: None if any(_same(v, o) for o in options) else ("", f"must be one of {json.dumps(options)[:200]}"))
        if "minimum" in schema:
            low = schema["minimum"]
            checks.append(lambda v: ("", f"must be at least {low}") if type(v) in (int, float) and v < low else None)
        if "maximum" in schema:
            high = schema["maximum"]
            checks.append(lambda v: ("", f"must be at most {high}") if type(v) in (int, float) and v > high else None)
        if "pattern" in schema:
            pattern = re.compile(schema["pattern"])
            checks.append(lambda v: ("", f"must match {pattern.pattern}") if isinstance(v, str) and not pattern.search(v) else None)
        if "minLength" in schema or "maxLength" in schema:
            lo, hi = schema.get("minLength", 0), schema.get("maxLength")
            checks.append(lambda v: ("", "has the wrong length") if isinstance(v, str) and (
                len(v) < lo or (hi is not None and len(v) > hi)) else None)
        if {"required", "properties", "additionalProperties"} & set(schema):
            checks.append(self._object(schema))
        if {"items", "minItems", "maxItems", "uniqueItems"} & set(schema):
            checks.append(self._array(schema))
        if "anyOf" in schema:
            branches = [self.compile(b) for b in schema["anyOf"]]
            checks.append(lambda v: None if any(b(v) is None for b in branches) else ("", "matches none of the allowed forms"))
        if "oneOf" in schema:
            checks.append(self._one_of(schema))

        if len(checks) == 1:
            return checks[0]

        def check(value: Any) -> Problem:
            for one in checks:
                problem = one(value)
                if problem is not None:
                    return problem
            return None

        return check

    def _object(self, schema: Mapping[str, Any]) -> Check:
        required = list(schema.get("required", ()))
        props = {name: self.compile(sub) for name, sub in schema.get("properties", {}).items()}
        extra = schema.get("additionalProperties", True)
        extra_check = self.compile(extra) if isinstance(extra, dict) else None

        def check(value: Any) -> Problem:
            if not isinstance(value, dict):
                return None
            for name in required:
                if name not in value:
                    return "", f"needs {name!r}"
            for name, member in value.items():
                sub = props.get(name)
                if sub is None:
                    if extra is False:
                        return _pointer(name), "is not a member of this move"
                    sub = extra_check
                if sub is not None:
                    problem = sub(member)
                    if problem is not None:
                        return _pointer(name) + problem[0], problem[1]
            return None

        return check

    def _array(self, schema: Mapping[str, Any]) -> Check:
        items = self.compile(schema["items"]) if "items" in schema else None
        lo, hi, unique = schema.get("minItems", 0), schema.get("maxItems"), schema.get("uniqueItems", False)

        def check(value: Any) -> Problem:
            if not isinstance(value, list):
                return None
            if len(value) < lo or (hi is not None and len(value) > hi):
                return "", f"must hold {lo} to {hi if hi is not None else 'any number of'} items"
            if unique and len({_canon(v) for v in value}) != len(value):
                return "", "must not repeat an item"
            if items is not None:
                for index, item in enumerate(value):
                    problem = items(item)
                    if problem is not None:
                        return _pointer(index) + problem[0], problem[1]
            return None

        return check

    def _one_of(self, schema: Mapping[str, Any]) -> Check:
        branches = [self.compile(b) for b in schema["oneOf"]]

        def exactly_one(value: Any) -> Problem:
            matched = sum(b(value) is None for b in branches)
            return None if matched == 1 else ("", "must match exactly one of the allowed forms")

        mapping = schema.get("discriminator", {}).get("mapping")
        if mapping:  # each branch has its own ``const`` tag, so at most one can match: dispatch on it
            prop = schema["discriminator"]["propertyName"]
            by_tag = {tag: self.ref(ref) for tag, ref in mapping.items()}

            def dispatch(value: Any) -> Problem:
                if not isinstance(value, dict):
                    return None if exactly_one(value) is None else ("", "must be a JSON object: a move")
                tag = value.get(prop)
                branch = by_tag.get(tag) if isinstance(tag, str) else None
                if branch is None:
                    return _pointer(prop), f"must be one of {json.dumps(sorted(by_tag))}"
                return branch(value)

            return dispatch
        return exactly_one


def _compile_all() -> dict[str, Check]:
    from ..engines import ENGINES

    compiler = _Compiler(DEFS)
    return {game_id: compiler.ref(f"#/components/schemas/{_schema_name(game_id)}") for game_id in ENGINES}


_CHECKS: Final = _compile_all()
MOVE_SCHEMA_NAMES: Final = {game_id: _schema_name(game_id) for game_id in _CHECKS}


def move_problem(game_id: str, value: Any) -> Problem:
    """None when ``value`` is a ``<Game>Move`` of the contract; else (pointer within it, message)."""
    return _CHECKS[game_id](value)


# --- keeping DEFS equal to the contract ---------------------------------------------------------


def _refs(schema: Any) -> Iterator[str]:
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            elif key == "mapping" and isinstance(value, dict):
                yield from value.values()
            else:
                yield from _refs(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _refs(item)


def _strip(schema: Any, under_properties: bool = False) -> Any:
    if isinstance(schema, dict):
        return {k: _strip(v, k == "properties") for k, v in schema.items() if under_properties or k not in ANNOTATIONS}
    if isinstance(schema, list):
        return [_strip(v) for v in schema]
    return schema


def extract(spec: Mapping[str, Any], game_ids: list[str]) -> dict[str, Any]:
    """The schemas of openapi.yaml (parsed) that the moves of ``game_ids`` reach, annotations dropped."""
    schemas = spec["components"]["schemas"]
    todo = [_schema_name(g) for g in game_ids]
    out: dict[str, Any] = {}
    while todo:
        name = todo.pop()
        if name in out:
            continue
        out[name] = _strip(schemas[name])
        todo.extend(ref.rsplit("/", 1)[-1] for ref in _refs(out[name]))
    return dict(sorted(out.items()))


def _write() -> None:  # pragma: no cover - a maintainer's tool
    import importlib
    import pprint
    from pathlib import Path

    yaml = importlib.import_module("yaml")  # only here, a maintainer's tool: the service never parses YAML

    from ..engines import ENGINES
    from ..resources import openapi_path

    spec = yaml.load(openapi_path().read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    target = Path(__file__).with_name("_contract_moves.py")
    body = pprint.pformat(extract(spec, list(ENGINES)), width=120, sort_dicts=False)
    target.write_text(
        '"""Generated from openapi.yaml by ``python3 -m service.schemas.move_shape``: the closure of every\n'
        '``<Game>Move`` schema, annotations dropped (see move_shape.py). Do not edit by hand."""\n\n'
        "from typing import Any, Final\n\n"
        f"DEFS: Final[dict[str, Any]] = {body}\n",
        encoding="utf-8",
    )


if __name__ == "__main__":  # pragma: no cover
    _write()
