"""The contract's schema of what a loader loads: a game's ``<Game>State`` and its parts, written
from the marshmallow schema that validates a posted state (``STATE``), never by hand.

The loader is the declaration: each field's type and validators give the JSON Schema (an
integer's ``Range`` its ``minimum`` and ``maximum``, a list's ``Length`` its ``minItems`` and
``maxItems``, ``allow_none`` an ``anyOf`` with ``null``, ``required`` the object's ``required``),
so the contract says what the service refuses, bound for bound. What a field cannot say is in its
``metadata``:

- ``description``: the member's text in the contract;
- ``contract``: the member's schema when the loader does not check it (a derived value, ignored on
  input but sent in every response: a ``load_only`` field, whose ``allow_none`` says what input is
  ignored, not what answers carry), or when a named ``Wire`` writes it (``SchnapsenPair``);
- ``wire: "seat"``: the integer is a seat, written as the game's seat schema (``SeatField``);
- ``advances: True``: a counter a move advances (``seq``, a deal number, a list of finished deals):
  a move from a state posted at the loader's bound answers with one more, so the contract gives the
  bound in words ("a posted state's is at most N") instead of a ``maximum`` (``maxItems``) that an
  answer would break.

A nested schema class names its component with ``WIRE_NAME`` (``<Game>`` + the class name
without ``Schema`` otherwise) and describes it with ``WIRE_DESCRIPTION``; a field class of a game
that fits none of the rules below writes its own schema in a ``contract(game)`` method.
``Loaded(game).state(STATE)`` gives the ``<Game>State`` wire; ``contract.py`` writes it and every
component it reaches into openapi.yaml, and a test fails when the file differs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from marshmallow import Schema, fields, validate

from .common import REF, OptionsField
from .fields import CardField, ObjectField, StrictBool, StrictInt, StrictString, SuitField
from .moves import SUIT, Wire

__all__ = ["Loaded"]

_NULL: Final = {"type": "null"}


class Loaded:
    """A game's loader schemas turned into contract wires: ``card`` and ``seat`` are the game's
    card and seat wires, ``prefix`` the component names' prefix (``Schnapsen``)."""

    def __init__(self, prefix: str, card: Wire, seat: Wire) -> None:
        self.prefix, self.card, self.seat = prefix, card, seat
        self._named: dict[type, Wire] = {}

    def state(self, schema: Schema) -> Wire:
        """The ``<Game>State`` wire of the game's state loader (described by its ``WIRE_DESCRIPTION``)."""
        return Wire(self._object(schema, getattr(schema, "WIRE_DESCRIPTION", None)), name=self.prefix + "State")

    # --- one schema, one field ---

    def nested(self, cls: type[Schema]) -> Wire:
        """The named wire of a nested schema class (one per class, however often it is nested)."""
        wire = self._named.get(cls)
        if wire is None:
            name = getattr(cls, "WIRE_NAME", None) or self.prefix + cls.__name__.removesuffix("Schema")
            wire = Wire(self._object(cls(), getattr(cls, "WIRE_DESCRIPTION", None)), name=name)
            self._named[cls] = wire
        return wire

    def _object(self, schema: Schema, description: str | None) -> dict[str, Any]:
        out: dict[str, Any] = {"description": description} if description else {}
        loaded = {name: f for name, f in schema.fields.items() if not f.dump_only}
        out["type"] = "object"
        out["required"] = [f.data_key or name for name, f in loaded.items() if f.required]
        out["properties"] = {f.data_key or name: self.member(f) for name, f in loaded.items()}
        if not out["required"]:
            del out["required"]
        return out

    def member(self, f: fields.Field[Any]) -> Any:
        """A field's schema as its object holds it: its description first, ``null`` beside it when
        the field allows it."""
        meta = f.metadata
        schema = meta["contract"] if "contract" in meta else self.field(f)
        if meta.get("advances") and "wire_name" not in meta:
            schema, bound = _unbounded(schema)
            meta = {**meta, "description": " ".join(filter(None, (meta.get("description"), bound)))}
        if f.allow_none and not f.load_only and not _admits_null(schema):  # a derived value's schema is the answers'
            schema = {"anyOf": [schema, _NULL]}
        if "description" in meta:
            base = schema if isinstance(schema, Mapping) else {"$ref": schema}
            schema = {"description": meta["description"], **base}
        return schema

    def field(self, f: fields.Field[Any]) -> Any:
        """A field's own schema (without its description and ``null``): a ``Wire`` where it is a
        named component (``metadata["wire_name"]``, described by ``metadata["wire_description"]``),
        else a JSON Schema fragment that may hold wires."""
        schema = self._field(f)
        name = f.metadata.get("wire_name")
        if name is None:
            return schema
        text = f.metadata.get("wire_description")
        if f.metadata.get("advances"):  # the named component states the bound
            schema, bound = _unbounded(schema)
            text = " ".join(filter(None, (text, bound)))
        return Wire({"description": text, **schema} if text else schema, name=name)

    def _field(self, f: fields.Field[Any]) -> Any:
        own = getattr(f, "contract", None)
        if callable(own):
            return own(self)
        if f.metadata.get("wire") == "seat":
            return self.seat
        if isinstance(f, CardField):
            return self.card
        if isinstance(f, SuitField):
            return SUIT
        if isinstance(f, OptionsField):
            return {"$ref": REF + self.prefix + "Options"}
        if isinstance(f, StrictBool):
            return {"type": "boolean"}
        if isinstance(f, StrictInt):
            return _scalar("integer", f)
        if isinstance(f, StrictString):
            return _scalar("string", f)
        if isinstance(f, ObjectField):
            return {"type": "object"}
        if isinstance(f, fields.Nested):
            inner = f.nested
            if not (isinstance(inner, type) and issubclass(inner, Schema)):
                raise TypeError(f"a nested schema must be a Schema class, not {inner!r}")
            wire = self.nested(inner)
            return _array(wire, 0, None) if f.many else wire
        if isinstance(f, fields.List):
            return _array(self.member(f.inner), *_length(f))
        raise TypeError(f"{type(f).__name__} {f.name!r} has no contract: give it metadata 'contract' or a contract() method")


def _unbounded(schema: Any) -> tuple[dict[str, Any], str]:
    """A counter's schema without its upper bound, and the bound in words."""
    out = dict(schema) if isinstance(schema, Mapping) else {}
    if "maximum" in out:
        return out, f"A posted state's is at most {out.pop('maximum')}."
    if "maxItems" in out:
        return out, f"A posted state's holds at most {out.pop('maxItems')}."
    raise TypeError(f"an advancing counter needs an upper bound to state: {schema!r}")


def _admits_null(schema: Any) -> bool:
    """Whether ``schema`` (a wire or a fragment) already lists ``null`` among its branches."""
    if isinstance(schema, Wire):
        schema = schema.schema
    if not isinstance(schema, Mapping):
        return False
    return any(_NULL == branch or _admits_null(branch) for branch in (*schema.get("anyOf", ()), *schema.get("oneOf", ())))


def _validators(f: fields.Field[Any]) -> list[Any]:
    return list(f.validators)


def _length(f: fields.Field[Any]) -> tuple[int, int | None]:
    lo: int = 0
    hi: int | None = None
    for v in _validators(f):
        if not isinstance(v, validate.Length):
            raise TypeError(f"{f.name!r}: {type(v).__name__} on a list has no contract")
        if v.equal is not None:
            return v.equal, v.equal
        lo, hi = v.min or 0, v.max
    return lo, hi


def _array(items: Any, lo: int, hi: int | None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "array"}
    if lo:
        out["minItems"] = lo
    if hi is not None:
        out["maxItems"] = hi
    out["items"] = items
    return out


def _scalar(kind: str, f: fields.Field[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"type": kind}
    for v in _validators(f):
        if isinstance(v, validate.Equal):
            out = {"const": v.comparable, **out}
        elif isinstance(v, validate.OneOf):
            out["enum"] = list(v.choices)
        elif isinstance(v, validate.Range):
            if not (v.min_inclusive and v.max_inclusive):
                raise TypeError(f"{f.name!r}: only inclusive ranges have a contract")
            if v.min is not None:
                out["minimum"] = v.min
            if v.max is not None:
                out["maximum"] = v.max
        else:
            raise TypeError(f"{f.name!r}: {type(v).__name__} has no contract")
    return out
