"""The compact form of a trusted state, for sealed tokens: compiled once from the State's types.

A token's state was sealed by this service, so it needs no re-validation (docs/rules/conventions.md): decoding it
through the validating marshmallow schema would spend most of a request on checks that cannot
fail. ``Packer`` reads the type annotations of an engine's ``State`` (a ``NamedTuple``) and builds
an encoder and a decoder for exactly those types: records become positional lists, cards their
text, enums their values. It is generic, so every game gets it without code of its own, and the
invariant suite checks ``unpack(pack(s)) == s`` over random playouts of every game.
"""

from __future__ import annotations

import dataclasses
import hashlib
import sys
import types
import typing
from collections.abc import Callable
from enum import Enum
from typing import Any

from ..cards import Card

__all__ = ["Packer"]

Codec = tuple[Callable[[Any], Any], Callable[[Any], Any]]


def _identity(value: Any) -> Any:
    return value


def _card_codec() -> Codec:
    return str, Card.parse


def _compile(tp: Any, owner: type) -> Codec:
    """(encode, decode) for the annotation ``tp``."""
    origin = typing.get_origin(tp)
    if tp in (int, str, bool, float):
        return _identity, _identity
    if tp is Card:
        return _card_codec()
    if isinstance(tp, type) and issubclass(tp, Enum):
        return (lambda e: e.value), tp
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) != 1:
            raise TypeError(f"{owner.__name__}: only X | None unions can be packed, not {tp}")
        enc, dec = _compile(args[0], owner)
        return (lambda v: None if v is None else enc(v)), (lambda v: None if v is None else dec(v))
    if origin is tuple:
        items = typing.get_args(tp)
        if len(items) == 2 and items[1] is Ellipsis:
            enc, dec = _compile(items[0], owner)
            if enc is _identity:
                return list, tuple
            return (lambda seq: [enc(x) for x in seq]), (lambda seq: tuple([dec(x) for x in seq]))
        parts = [_compile(a, owner) for a in items]
        encs = [p[0] for p in parts]
        decs = [p[1] for p in parts]
        return (lambda seq: [e(x) for e, x in zip(encs, seq)]), (lambda seq: tuple([d(x) for d, x in zip(decs, seq)]))
    if isinstance(tp, type) and issubclass(tp, tuple) and hasattr(tp, "_fields"):
        return _record(tp)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _dataclass(tp)
    raise TypeError(f"{owner.__name__}: no packed form for {tp!r}")


def _hints(cls: type) -> dict[str, Any]:
    module = sys.modules[cls.__module__]
    return typing.get_type_hints(cls, vars(module))


def _record(cls: type) -> Codec:
    hints = _hints(cls)
    parts = [_compile(hints[name], cls) for name in cls._fields]  # type: ignore[attr-defined]
    encs = [p[0] for p in parts]
    decs = [p[1] for p in parts]
    make = cls._make  # type: ignore[attr-defined]

    def encode(rec: Any) -> list[Any]:
        return [e(x) for e, x in zip(encs, rec)]

    def decode(data: Any) -> Any:
        return make([d(x) for d, x in zip(decs, data)])

    return encode, decode


def _dataclass(cls: type) -> Codec:
    hints = _hints(cls)
    names = [f.name for f in dataclasses.fields(cls) if f.init]
    parts = [_compile(hints[name], cls) for name in names]

    def encode(obj: Any) -> list[Any]:
        return [enc(getattr(obj, n)) for n, (enc, _) in zip(names, parts)]

    def decode(data: Any) -> Any:
        return cls(**{n: dec(x) for n, (_, dec), x in zip(names, parts, data)})

    return encode, decode


def _layout(cls: type, seen: set[type] | None = None) -> str:
    """A text naming every field and type reachable from ``cls`` (records and dataclasses)."""
    seen = set() if seen is None else seen
    if cls in seen:
        return cls.__name__
    seen.add(cls)
    names = cls._fields if hasattr(cls, "_fields") else [f.name for f in dataclasses.fields(cls)]
    hints = _hints(cls)
    parts = []
    for name in names:
        tp = hints[name]
        inner = [a for a in _walk(tp) if isinstance(a, type) and (hasattr(a, "_fields") or dataclasses.is_dataclass(a))]
        parts.append(f"{name}:{tp}" + "".join(_layout(a, seen) for a in inner))
    return f"{cls.__name__}({','.join(parts)})"


def _walk(tp: Any) -> list[Any]:
    out = [tp]
    for arg in typing.get_args(tp):
        out += _walk(arg)
    return out


class Packer:
    """Encoder and decoder of one ``State`` type's compact, trusted form.

    The packed form carries a fingerprint of the State's layout, so a token sealed by a version of
    the service with another layout is refused (ValueError) rather than decoded into nonsense.
    """

    def __init__(self, state_type: type) -> None:
        self._encode, self._decode = _record(state_type)
        self.fingerprint = hashlib.sha256(_layout(state_type).encode()).hexdigest()[:16]

    def pack(self, state: Any) -> dict[str, Any]:
        """The JSON-ready compact form of ``state``."""
        return {"f": self.fingerprint, "s": self._encode(state)}

    def unpack(self, data: Any) -> Any:
        """The state packed in ``data``; ValueError (or TypeError) if it is not this layout's form."""
        if not isinstance(data, dict) or data.get("f") != self.fingerprint or not isinstance(data.get("s"), list):
            raise ValueError("not a packed state of this layout")
        return self._decode(data["s"])
