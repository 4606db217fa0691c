"""Response-contract checker: every response of the test suite must match ``openapi.yaml``.

``assert_conforms(method, rule, status, content_type, body)`` raises ``AssertionError`` unless

* ``status`` is documented for the operation (the exact code, else a ``4XX``-style range, else
  ``default``);
* ``content_type`` (parameters such as ``charset`` ignored) is one of that response's media types;
* for JSON media types (``application/json``, ``…+json``) ``body`` validates against the
  documented schema (JSON Schema 2020-12, ``$ref``s resolved inside ``openapi.yaml`` through a
  ``referencing`` registry); an ``application/problem+json`` body must moreover carry the HTTP
  status in ``status`` and ``/errors/<code>`` in ``type``.

Closed reading. openapi.yaml is open on responses (evolution policy, docs/wire.md: clients must
accept added members, problem codes, game ids and event types). Our own server must still emit
only what the document describes, so every schema is checked in its *closed reading* (``CLOSED``):
an object schema with ``properties`` and no ``additionalProperties`` gets
``additionalProperties: false``, ``x-enum-known`` becomes ``enum``, and the ``UnknownEvent``
branch of an event union is dropped.

``rule`` is the OpenAPI path (each game's own, ``/v1/games/schnapsen/moves``, or a template such as
``/v1/games/{game_id}``; ``documented_path`` picks it for a request); Flask's form
(``/v1/games/<game_id>/moves``) is accepted too. Outcomes that the document cannot list per
operation are checked against its shared responses: a method that a documented path does not list
may only answer 405 (``#/components/responses/MethodNotAllowed``); an unknown path (``rule`` None
or not in the document) only 404 (``NotFound``) or 405. ``HEAD`` is checked as ``GET`` without
its body.

Speed. Validators are built once per (path, method, status, media type) and cached. Each runs on a
prepared copy of its schema with the same meaning: local ``$ref``s inlined (a recursive one is still
resolved through the registry), annotations dropped, a ``oneOf`` with an OpenAPI ``discriminator``
dispatched on the discriminator's value (OpenAPI's semantics; the branches differ by a ``const``),
``allOf`` + ``unevaluatedProperties: false`` over plain objects merged into one closed object.
Every subschema made only of simple keywords also gets a compiled Python predicate that may only
ever say "valid" when jsonschema would (it is allowed to be stricter: a ``False`` just falls
back to jsonschema), so valid bodies mostly skip jsonschema's per-node overhead. Whenever a
predicate says no, jsonschema decides, and its error is the one reported.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any, Final

import yaml
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from jsonschema.validators import extend
from referencing import Registry
from referencing.jsonschema import DRAFT202012

__all__ = [
    "SPEC",
    "SPEC_PATH",
    "YAML_LOADER",
    "assert_conforms",
    "assert_problem",
    "documented_path",
    "is_valid",
    "plain_validator_at",
    "schema_pointer",
    "validator_at",
    "validator_for",
]

YAML_LOADER: Final = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""The safe YAML loader, libyaml's when present (about 5x faster): the suite's loader for the
contract, the scenarios and the generated client's settings."""

SPEC_PATH: Final = Path(__file__).resolve().parents[1] / "openapi.yaml"
with SPEC_PATH.open(encoding="utf-8") as _f:
    SPEC: Final[dict[str, Any]] = yaml.load(_f, Loader=YAML_LOADER)

_BASE: Final = "urn:card-referee:openapi.yaml"


_FALLBACKS: Final = frozenset({"#/components/schemas/UnknownEvent"})
"""Union branches that stand for what a later version may add; closed reading drops them."""


_SUBSCHEMA: Final = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
                     "unevaluatedItems", "unevaluatedProperties")


def _closed(node: Any) -> Any:
    """The closed reading of a schema (module docstring, "Closed reading"), recursively."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("properties", "patternProperties", "$defs"):
            out[key] = {name: _closed(sub) for name, sub in value.items()}
        elif key in _SUBSCHEMA:
            out[key] = _closed(value)
        elif key in ("anyOf", "oneOf", "allOf", "prefixItems"):
            out[key] = [_closed(b) for b in value if not (isinstance(b, dict) and b.get("$ref") in _FALLBACKS)]
        elif key == "x-enum-known":
            out.setdefault("enum", value)
        elif not key.startswith("x-"):
            out[key] = value
    if "properties" in out and not out.keys() & {"additionalProperties", "patternProperties", "unevaluatedProperties"}:
        out["additionalProperties"] = False
    return out


def _closed_document(doc: Any, key: str = "") -> Any:
    """``doc`` with every schema in it (component schemas, and every ``schema`` member of a
    parameter, header or media type) in its closed reading."""
    if isinstance(doc, list):
        return [_closed_document(v) for v in doc]
    if not isinstance(doc, dict):
        return doc
    if key == "schemas":
        return {name: _closed(sub) for name, sub in doc.items()}
    return {k: (_closed(v) if k == "schema" else _closed_document(v, k)) for k, v in doc.items()}


CLOSED: Final[dict[str, Any]] = _closed_document(SPEC)
"""The document as ``assert_conforms`` reads it for our own server (the closed reading)."""
_REGISTRY: Final = Registry().with_resource(_BASE, DRAFT202012.create_resource(CLOSED))


_METHODS: Final = frozenset({"get", "put", "post", "delete", "options", "head", "patch", "trace"})
_FLASK_VAR: Final = re.compile(r"<(?:[^:<>]+:)?([^<>]+)>")
_UNLISTED_METHOD: Final = {405: "MethodNotAllowed"}
_UNKNOWN_PATH: Final = {404: "NotFound", 405: "MethodNotAllowed"}

Pred = Callable[[Any], bool]


# --- finding the documented outcome ----------------------------------------------------------


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _deref(pointer: str) -> tuple[str, Any]:
    """The object at JSON pointer ``pointer`` of the closed document, following local ``$ref``s."""
    node: Any = CLOSED
    for part in pointer.lstrip("/").split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    if isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#/"):
        return _deref(node["$ref"][1:])
    return pointer, node


def _normalise_rule(rule: str | None) -> str | None:
    return None if rule is None else _FLASK_VAR.sub(r"{\1}", rule)


def documented_path(request_path: str, rule: str | None) -> str | None:
    """The path item of openapi.yaml that documents a request: the concrete path when the
    document lists it (each game's own operations, ``/v1/games/schnapsen/moves``), else the
    route's template (``/v1/games/{game_id}``)."""
    return request_path if request_path in SPEC["paths"] else _normalise_rule(rule)


def _media(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


def _is_json(media: str) -> bool:
    return media == "application/json" or media.endswith("+json")


def _response_pointer(method: str, rule: str | None, status: int) -> str:
    """Pointer of the (dereferenced) response object documented for this outcome."""
    paths = SPEC["paths"]
    if rule is None or rule not in paths:
        if status in _UNKNOWN_PATH:
            return f"/components/responses/{_UNKNOWN_PATH[status]}"
        raise AssertionError(
            f"{method.upper()} {rule}: path not in openapi.yaml; only a 404 or 405 problem may answer it, not {status}"
        )
    item = paths[rule]
    if method not in item:
        if status in _UNLISTED_METHOD:
            return f"/components/responses/{_UNLISTED_METHOD[status]}"
        listed = ", ".join(sorted(m.upper() for m in item if m in _METHODS))
        raise AssertionError(
            f"{method.upper()} {rule}: method not documented (only {listed}); it may only answer 405, not {status}"
        )
    responses = item[method].get("responses", {})
    for key in (str(status), f"{str(status)[0]}XX", "default"):
        if key in responses:
            return _deref(f"/paths/{_escape(rule)}/{method}/responses/{key}")[0]
    raise AssertionError(
        f"{method.upper()} {rule}: status {status} is not documented (documented: {', '.join(responses)})"
    )


@cache
def schema_pointer(method: str, rule: str | None, status: int, media: str) -> str | None:
    """Pointer of the schema documented for this outcome and media type (None: no schema)."""
    method, rule = method.lower(), _normalise_rule(rule)
    pointer = _response_pointer(method, rule, status)
    content = _deref(pointer)[1].get("content") or {}
    if media not in content:
        documented = ", ".join(content) or "no body"
        raise AssertionError(
            f"{method.upper()} {rule} → {status}: content type {media!r} is not documented ({documented})"
        )
    if "schema" not in content[media]:
        return None
    return f"{pointer}/content/{_escape(media)}/schema"


# --- prepared schemas ------------------------------------------------------------------------

_ANNOTATIONS: Final = frozenset(
    {"description", "summary", "title", "examples", "example", "default", "deprecated", "readOnly",
     "writeOnly", "$comment", "externalDocs", "xml", "discriminator"}
)
_PLAIN_OBJECT_KEYS: Final = frozenset({"type", "required", "properties"})
_SCHEMA_MAPS: Final = frozenset({"properties", "patternProperties", "$defs", "dependentSchemas"})


def _prepare(node: Any, stack: frozenset[str] = frozenset()) -> Any:
    """``node`` with the same meaning for our own server (the closed reading), shaped for fast
    validation (see the module docstring)."""
    if isinstance(node, list):
        return [_prepare(v, stack) for v in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        siblings = {k: v for k, v in node.items() if k != "$ref" and k not in _ANNOTATIONS}
        target: Any = {"$ref": _BASE + ref} if ref in stack else _prepare(_deref(ref[1:])[1], stack | {ref})
        if not siblings:
            return target
        siblings = _prepare(siblings, stack)
        if isinstance(target, dict) and "$ref" not in target and not target.keys() & siblings.keys():
            return {**target, **siblings}
        return {"allOf": [target, siblings]}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _ANNOTATIONS:
            continue
        if key in _SCHEMA_MAPS:
            out[key] = {name: _prepare(sub, stack) for name, sub in value.items()}
        else:
            out[key] = _prepare(value, stack)
    mapping = (node.get("discriminator") or {}).get("mapping")
    if mapping and "oneOf" in out:
        branches = {name: _prepare({"$ref": target}, stack) for name, target in mapping.items()}
        out["x-dispatch"] = {"property": node["discriminator"]["propertyName"], "branches": branches,
                             "oneOf": out.pop("oneOf")}
    if out.get("unevaluatedProperties") is False and _mergeable(out):
        out = _merge_objects(out)
    first = ("type", "const", "enum", "required", "additionalProperties")  # cheap, decisive checks first
    return {**{k: out[k] for k in first if k in out}, **out}


def _mergeable(schema: dict[str, Any]) -> bool:
    own = set(schema) - {"allOf", "unevaluatedProperties"}
    return own <= _PLAIN_OBJECT_KEYS and schema.get("type", "object") == "object" and all(
        isinstance(p, dict) and set(p) <= _PLAIN_OBJECT_KEYS and p.get("type", "object") == "object"
        for p in schema.get("allOf", [])
    )


def _merge_objects(schema: dict[str, Any]) -> dict[str, Any]:
    """``allOf`` of plain objects + ``unevaluatedProperties: false`` → one closed object."""
    required: list[str] = []
    properties: dict[str, Any] = {}
    for part in (*schema.get("allOf", []), schema):
        required += [r for r in part.get("required", []) if r not in required]
        for name, sub in part.get("properties", {}).items():
            properties[name] = {"allOf": [properties[name], sub]} if name in properties else sub
    return {"type": "object", "required": required, "properties": properties, "additionalProperties": False}


# --- compiled predicates: True only if jsonschema would accept --------------------------------

_IS: Final[dict[str, Pred]] = {
    "string": lambda x: isinstance(x, str),
    "integer": lambda x: isinstance(x, int) and not isinstance(x, bool),
    "number": lambda x: isinstance(x, (int, float)) and not isinstance(x, bool),
    "boolean": lambda x: isinstance(x, bool),
    "null": lambda x: x is None,
    "array": lambda x: isinstance(x, list),
    "object": lambda x: isinstance(x, dict),
}
_SCALARS: Final = (str, int, float, bool, type(None))


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _same(x: Any, value: Any) -> bool:
    return isinstance(value, _SCALARS) and type(x) is type(value) and x == value


def _fast(sub: Any) -> Pred | None:
    return sub.get("x-fast") if isinstance(sub, dict) else None


def _attach(schema: Any) -> Pred | None:
    """Give every simple subschema of ``schema`` (bottom-up) its predicate under ``x-fast``."""
    if schema is True:
        return lambda x: True
    if not isinstance(schema, dict):
        return None
    if "x-fast" in schema:
        return schema["x-fast"]  # type: ignore[no-any-return]
    for key, value in schema.items():
        if key in _SCHEMA_MAPS:
            for sub in value.values():
                _attach(sub)
        elif key in ("items", "additionalProperties", "not", "if", "then", "else", "contains",
                     "propertyNames", "unevaluatedItems", "unevaluatedProperties"):
            _attach(value)
        elif key in ("allOf", "anyOf", "oneOf", "prefixItems"):
            for sub in value:
                _attach(sub)
        elif key == "x-dispatch":
            for sub in value["branches"].values():
                _attach(sub)
            for sub in value["oneOf"]:
                _attach(sub)
    pred = _compile(schema)
    if pred is not None:
        schema["x-fast"] = pred
    return pred


def _compile(schema: dict[str, Any]) -> Pred | None:
    """A predicate for ``schema`` if every keyword is a simple one, else None."""
    checks: list[Pred] = []
    for key, value in schema.items():
        if key in ("$schema", "x-fast", "required", "properties", "additionalProperties"):
            continue  # the object keywords are compiled together below
        if key == "type":
            kinds = [_IS[t] for t in (value if isinstance(value, list) else [value])]
            checks.append(kinds[0] if len(kinds) == 1 else (lambda x, ks=kinds: any(k(x) for k in ks)))
        elif key in ("enum", "const"):
            values = value if key == "enum" else [value]
            if not all(isinstance(v, _SCALARS) for v in values):
                return None
            typed = frozenset((type(v), v) for v in values)
            checks.append(lambda x, t=typed: isinstance(x, _SCALARS) and (type(x), x) in t)
        elif key == "pattern":
            checks.append(lambda x, search=re.compile(value).search: not isinstance(x, str) or search(x) is not None)
        elif key == "minimum":
            checks.append(lambda x, m=value: not _number(x) or x >= m)
        elif key == "maximum":
            checks.append(lambda x, m=value: not _number(x) or x <= m)
        elif key == "multipleOf" and isinstance(value, int):
            checks.append(lambda x, m=value: not _number(x) or (type(x) is int and x % m == 0))  # floats: jsonschema
        elif key == "minLength":
            checks.append(lambda x, n=value: not isinstance(x, str) or len(x) >= n)
        elif key == "maxLength":
            checks.append(lambda x, n=value: not isinstance(x, str) or len(x) <= n)
        elif key == "minItems":
            checks.append(lambda x, n=value: not isinstance(x, list) or len(x) >= n)
        elif key == "maxItems":
            checks.append(lambda x, n=value: not isinstance(x, list) or len(x) <= n)
        elif key == "uniqueItems":
            if value:
                checks.append(lambda x: not isinstance(x, list) or (
                    all(isinstance(v, str) for v in x) and len(set(x)) == len(x)))
        elif key == "items":
            item = (lambda x: True) if value is True else _fast(value)
            if item is None or "prefixItems" in schema:
                return None
            checks.append(lambda x, p=item: not isinstance(x, list) or all(map(p, x)))
        elif key in ("anyOf", "allOf"):
            subs = [_fast(s) for s in value]
            if any(p is None for p in subs):
                return None
            checks.append(_any(subs) if key == "anyOf" else _all(subs))
        elif key == "x-dispatch":
            branches = {name: _fast(sub) for name, sub in value["branches"].items()}
            if any(p is None for p in branches.values()):
                return None
            checks.append(_dispatcher(value["property"], branches))  # type: ignore[arg-type]
        else:  # oneOf, not, $ref, if/then/else, unevaluated*, patternProperties ...: jsonschema decides
            return None
    if {"required", "properties", "additionalProperties"} & schema.keys():
        obj = _object_check(schema)
        if obj is None:
            return None
        checks.append(obj)
    return _all(checks)


def _all(checks: list[Pred]) -> Pred:
    if not checks:
        return lambda x: True
    if len(checks) == 1:
        return checks[0]
    checks_ = tuple(checks)

    def every(x: Any) -> bool:
        for check in checks_:
            if not check(x):
                return False
        return True

    return every


def _any(checks: list[Pred]) -> Pred:
    checks_ = tuple(checks)

    def some(x: Any) -> bool:
        for check in checks_:
            if check(x):
                return True
        return False

    return some


def _dispatcher(prop: str, branches: dict[str, Pred]) -> Pred:
    def dispatch(x: Any) -> bool:
        tag = x.get(prop) if isinstance(x, dict) else None
        branch = branches.get(tag) if isinstance(tag, str) else None
        return branch is not None and branch(x)

    return dispatch


def _object_check(schema: dict[str, Any]) -> Pred | None:
    """``required`` + ``properties`` + ``additionalProperties`` as one predicate."""
    required = tuple(schema.get("required", ()))
    props: dict[str, Pred | None] = {name: _fast(sub) for name, sub in schema.get("properties", {}).items()}
    if any(p is None for p in props.values()) or "patternProperties" in schema:
        return None
    extra_schema = schema.get("additionalProperties", True)
    closed = extra_schema is False
    extra = None if closed or extra_schema is True else _fast(extra_schema)
    if not closed and extra_schema is not True and extra is None:
        return None
    props_ = {k: v for k, v in props.items() if v is not None}

    def check(x: Any) -> bool:
        if not isinstance(x, dict):
            return True
        for name in required:
            if name not in x:
                return False
        for k, v in x.items():
            p = props_.get(k)
            if p is None:
                if closed or (extra is not None and not extra(v)):
                    return False
            elif not p(v):
                return False
        return True

    return check


# --- jsonschema, with the predicates as shortcuts --------------------------------------------

_BASE_KEYWORDS: Final = Draft202012Validator.VALIDATORS


_probing = 0
"""> 0 while ``_passes`` asks only *whether* a subschema holds: its errors are thrown away, so a
failing ``anyOf``/``oneOf`` inside a probe yields one plain error instead of collecting the errors
of every branch (which grows with every game in the ``Any…`` unions). Verdicts are unchanged."""


def _passes(validator: Any, instance: Any, sub: Any, index: int) -> bool:
    global _probing
    fast = _fast(sub)
    if fast is not None and fast(instance):
        return True
    if isinstance(sub, dict) and "anyOf" in sub and sub.keys() <= {"anyOf", "x-fast"}:
        # a bare union (AnyState, AnyView, ...): valid iff a branch is, without building the
        # union's error (which would list every branch's errors, one more branch per game)
        return any(_passes(validator, instance, branch, i) for i, branch in enumerate(sub["anyOf"]))
    _probing += 1
    try:
        return next(validator.descend(instance, sub, schema_path=index), None) is None
    finally:
        _probing -= 1


def _any_of(validator: Any, any_of: list[Any], instance: Any, schema: Any) -> Iterator[ValidationError]:
    if any(_passes(validator, instance, sub, i) for i, sub in enumerate(any_of)):
        return
    if _probing:  # a branch being tried: one error says it fails; the full report is for the top level
        yield ValidationError(f"{instance!r:.80} is not valid under any of the given schemas", validator="anyOf")
        return
    yield from _BASE_KEYWORDS["anyOf"](validator, any_of, instance, schema)


def _one_of(validator: Any, one_of: list[Any], instance: Any, schema: Any) -> Iterator[ValidationError]:
    if sum(_passes(validator, instance, sub, i) for i, sub in enumerate(one_of)) == 1:
        return
    if _probing:
        yield ValidationError("is not valid under exactly one of the given schemas")
        return
    yield from _BASE_KEYWORDS["oneOf"](validator, one_of, instance, schema)


def _all_of(validator: Any, all_of: list[Any], instance: Any, schema: Any) -> Iterator[ValidationError]:
    for index, sub in enumerate(all_of):
        fast = _fast(sub)
        if fast is None or not fast(instance):
            yield from validator.descend(instance, sub, schema_path=index)


def _properties(validator: Any, properties: dict[str, Any], instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not isinstance(instance, dict):
        return
    for name, sub in properties.items():
        if name in instance:
            fast = _fast(sub)
            if fast is None or not fast(instance[name]):
                yield from validator.descend(instance[name], sub, path=name, schema_path=name)


def _items(validator: Any, items: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    fast = _fast(items)
    if fast is not None and "prefixItems" not in schema and isinstance(instance, list) and all(map(fast, instance)):
        return
    yield from _BASE_KEYWORDS["items"](validator, items, instance, schema)


def _dispatch(validator: Any, spec: dict[str, Any], instance: Any, schema: Any) -> Iterator[ValidationError]:
    """OpenAPI discriminator: validate against the branch that the property's value names."""
    if isinstance(instance, dict):
        tag = instance.get(spec["property"])
        branch = spec["branches"].get(tag) if isinstance(tag, str) else None
        if branch is not None:
            fast = _fast(branch)
            if fast is None or not fast(instance):
                yield from validator.descend(instance, branch)
            return
    yield from _one_of(validator, spec["oneOf"], instance, schema)


_Validator: Final = extend(
    Draft202012Validator,
    {"anyOf": _any_of, "oneOf": _one_of, "allOf": _all_of, "properties": _properties, "items": _items,
     "x-dispatch": _dispatch},
)


@cache
def validator_at(pointer: str) -> Any:
    """The (prepared, cached) validator of the schema at ``pointer``, e.g. ``/components/schemas/Problem``."""
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", **_prepare({"$ref": f"#{pointer}"})}
    _attach(schema)
    return _Validator(schema, registry=_REGISTRY)


def plain_validator_at(pointer: str) -> Draft202012Validator:
    """A stock jsonschema validator of the unprepared schema at ``pointer`` (the reference semantics)."""
    return Draft202012Validator({"$ref": f"{_BASE}#{pointer}"}, registry=_REGISTRY)


@cache
def validator_for(method: str, rule: str | None, status: int, media: str) -> Any:
    """The validator of one documented outcome, built once (None: documented without a schema)."""
    pointer = schema_pointer(method, rule, status, media)
    return None if pointer is None else validator_at(pointer)


def is_valid(validator: Any, instance: Any) -> bool:
    """Whether ``instance`` is valid under a validator from ``validator_at`` (fast path first)."""
    fast = validator.schema.get("x-fast")
    if fast is not None and fast(instance):
        return True
    return next(validator.iter_errors(instance), None) is None


# --- the check ------------------------------------------------------------------------------


def _branches(error: ValidationError) -> list[list[ValidationError]]:
    groups: dict[Any, list[ValidationError]] = {}
    for sub in error.context or ():
        groups.setdefault(sub.relative_schema_path[0] if sub.relative_schema_path else None, []).append(sub)
    return list(groups.values())


def _cost(error: ValidationError) -> int:
    """How far the body is from satisfying this error's schema: errors in its nearest branch."""
    branches = _branches(error)
    return min(sum(_cost(e) for e in b) for b in branches) if branches else 1


def _deepest(error: ValidationError) -> ValidationError:
    """Inside anyOf/oneOf failures: the nearest branch (fewest errors), and its deepest error."""
    branches = _branches(error)
    if not branches:
        return error
    nearest = min(branches, key=lambda b: sum(_cost(e) for e in b))
    return max((_deepest(e) for e in nearest), key=lambda e: len(e.absolute_path))


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + " …"


def assert_conforms(method: str, rule: str | None, status: int, content_type: str | None, body: object) -> None:
    """Raise AssertionError unless this response is documented by openapi.yaml.

    ``body`` is the parsed JSON for JSON media types (``bytes``/``str`` are parsed first); it is
    not looked at for other media types (the YAML document, the HTML page).
    """
    method = method.lower()
    check_body = True
    if method == "head":  # a HEAD answer is the GET answer without its body
        method, check_body = "get", False
    media = _media(content_type)
    validator = validator_for(method, rule, status, media)
    if validator is None or not check_body or not _is_json(media):
        return
    where = f"{method.upper()} {_normalise_rule(rule)} → {status} {media}"
    if isinstance(body, (bytes, bytearray, str)):
        try:
            body = json.loads(body)
        except ValueError as exc:
            raise AssertionError(f"{where}: body is not JSON: {exc}") from None
    if not is_valid(validator, body):
        errors = validator.iter_errors(body)
        first = next(errors)
        worst = _deepest(first)
        raise AssertionError(
            f"{where}: body does not match #{schema_pointer(method, rule, status, media)}\n"
            f"  at {worst.json_path}: {_clip(worst.message, 500)}\n"
            f"  (outer: at {first.json_path}: {_clip(first.message, 200)})\n"
            f"  body: {_clip(json.dumps(body, default=str), 800)}"
        )
    if media == "application/problem+json" and isinstance(body, dict):
        if body.get("status") != status:
            raise AssertionError(f"{where}: the problem's status member is {body.get('status')!r}")
        if body.get("type") != f"/errors/{body.get('code')}":
            raise AssertionError(f"{where}: problem type {body.get('type')!r} does not name its code {body.get('code')!r}")


def assert_problem(body: object, status: int | None = None) -> None:
    """Raise AssertionError unless ``body`` is a ``Problem`` (for answers outside any documented path)."""
    validator = validator_at("/components/schemas/Problem")
    if not is_valid(validator, body):
        worst = _deepest(next(validator.iter_errors(body)))
        raise AssertionError(
            f"not a Problem: at {worst.json_path}: {_clip(worst.message, 500)}\n"
            f"  body: {_clip(json.dumps(body, default=str), 800)}"
        )
    assert isinstance(body, dict)
    if status is not None and body.get("status") != status:
        raise AssertionError(f"the problem's status member is {body.get('status')!r}, the response's {status}")
    if body.get("type") != f"/errors/{body.get('code')}":
        raise AssertionError(f"problem type {body.get('type')!r} does not name its code {body.get('code')!r}")
