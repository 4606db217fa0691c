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
import functools
import hashlib
import sys
import types
import typing
from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any

from ..cards import Card
from .cardtext import CARD_TEXT, CARDS, card_text

__all__ = ["Packer"]

Fn = Callable[[Any], Any]
Codec = tuple[Fn | None, Fn | None]
"""(encode, decode) of one annotated type; None where the value is its own packed form."""

def _card_codec() -> Codec:
    return card_text, CARDS.__getitem__  # KeyError (or TypeError) for anything but a card's text


def _enum_codec(tp: type[Enum]) -> Codec:
    values = {id(m): m.value for m in tp}
    by_value = {m.value: m for m in tp}
    custom_lookup = "_missing_" in vars(tp)

    def encode(e: Any) -> Any:
        value = values.get(id(e), values)
        return e.value if value is values else value

    return encode, (tp if custom_lookup else by_value.__getitem__)


def _optional(codec: Codec) -> Codec:
    enc, dec = codec
    return (
        None if enc is None else (lambda v: None if v is None else enc(v)),
        None if dec is None else (lambda v: None if v is None else dec(v)),
    )


def _compile(tp: Any, owner: type) -> Codec:
    """(encode, decode) for the annotation ``tp``."""
    origin = typing.get_origin(tp)
    if tp in (int, str, bool, float):
        return None, None
    if tp is Card:
        return _card_codec()
    if isinstance(tp, type) and issubclass(tp, Enum):
        return _enum_codec(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) != 1:
            raise TypeError(f"{owner.__name__}: only X | None unions can be packed, not {tp}")
        return _optional(_compile(args[0], owner))
    if origin is tuple:
        items = typing.get_args(tp)
        if len(items) == 2 and items[1] is Ellipsis:
            enc, dec = _compile(items[0], owner)
            if tp == tuple[Card, ...]:
                text, card = CARD_TEXT.get, CARDS.__getitem__
                return (lambda seq: [text(id(c)) or card_text(c) for c in seq]), (lambda seq: tuple(map(card, seq)))
            return (
                list if enc is None else (lambda seq: [enc(x) for x in seq]),
                tuple if dec is None else (lambda seq: tuple([dec(x) for x in seq])),
            )
        return _positional([_compile(a, owner) for a in items], tuple, f"{owner.__name__} tuple")
    if isinstance(tp, type) and issubclass(tp, tuple) and hasattr(tp, "_fields"):
        return _record(tp)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _dataclass(tp)
    raise TypeError(f"{owner.__name__}: no packed form for {tp!r}")


def _hints(cls: type) -> dict[str, Any]:
    module = sys.modules[cls.__module__]
    return typing.get_type_hints(cls, vars(module))


def _positional(parts: list[Codec], make: Callable[..., Any], label: str, keywords: Sequence[str] | None = None) -> Codec:
    """Codec of a fixed-length record: packed as a list, one entry per part, in order.

    The encoder and decoder are compiled to straight-line code (``[e1(r[1]), r[2], ...]``): no
    loop, no call for the parts that are their own packed form. ``keywords``: ``make`` takes the
    parts by these names (dataclasses) rather than as one tuple (records, tuples).
    """
    scope: dict[str, Any] = {"make": make}
    reads, builds = [], []
    for i, (enc, dec) in enumerate(parts):
        if enc is not None:
            scope[f"e{i}"] = enc
        if dec is not None:
            scope[f"d{i}"] = dec
        read = f"r.{keywords[i]}" if keywords is not None else f"r[{i}]"
        reads.append(read if enc is None else f"e{i}({read})")
        builds.append(f"s[{i}]" if dec is None else f"d{i}(s[{i}])")
    count = len(parts)
    if keywords is not None:
        made = "make(" + ", ".join(f"{k}={b}" for k, b in zip(keywords, builds)) + ")"
    else:
        made = "make((" + "".join(f"{b}, " for b in builds) + "))"
    source = (
        f"def encode(r):\n    return [{', '.join(reads)}]\n"
        f"def decode(s):\n    if len(s) != {count}:\n        raise ValueError('not a packed record')\n    return {made}\n"
    )
    exec(compile(source, f"<packed {label}>", "exec"), scope)  # noqa: S102 - our own field list
    return scope["encode"], scope["decode"]


def _record(cls: type) -> Codec:
    hints = _hints(cls)
    parts = [_compile(hints[name], cls) for name in cls._fields]  # type: ignore[attr-defined]
    make = functools.partial(tuple.__new__, cls)  # what NamedTuple._make does, without its iterator
    return _positional(parts, make, cls.__qualname__)


def _dataclass(cls: type) -> Codec:
    hints = _hints(cls)
    names = [f.name for f in dataclasses.fields(cls) if f.init]
    return _positional([_compile(hints[name], cls) for name in names], cls, cls.__qualname__, names)


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
        encode, decode = _record(state_type)
        assert encode is not None and decode is not None
        self._encode, self._decode = encode, decode
        self.fingerprint = hashlib.sha256(_layout(state_type).encode()).hexdigest()[:16]

    def pack(self, state: Any) -> dict[str, Any]:
        """The JSON-ready compact form of ``state``."""
        return {"f": self.fingerprint, "s": self._encode(state)}

    def unpack(self, data: Any) -> Any:
        """The state packed in ``data``; ValueError (or TypeError) if it is not this layout's form."""
        if not isinstance(data, dict) or data.get("f") != self.fingerprint or not isinstance(data.get("s"), list):
            raise ValueError("not a packed state of this layout")
        return self._decode(data["s"])
