"""The compact form of a trusted state, for sealed tokens: compiled once from the State's types.

A token's state was sealed by this service, so it needs no re-validation (docs/rules/conventions.md): decoding it
through the validating marshmallow schema would spend most of a request on checks that cannot
fail. ``Packer`` reads the type annotations of an engine's ``State`` (a ``NamedTuple``) and builds
an encoder and a decoder for exactly those types: records become positional lists, cards their
text, enums their values. It is generic, so every game gets it without code of its own, and the
invariant suite checks ``unpack(pack(s)) == s`` over random playouts of every game.

A release reads the tokens of the releases before it: every layout a game's states were ever
packed in is recorded in ``layouts.py`` (``python3 -m service.schemas.history``), and a state packed
in an older one is rewritten field by field into the current layout before it is decoded
(``Packer.upgrades``; docs/dev/upgrades.md).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import operator
import sys
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from enum import Enum
from typing import Any

from ..cards import Card
from .cardtext import CARD_TEXT, CARDS, card_text

__all__ = ["Layout", "LayoutError", "Packer", "describe", "fingerprint", "recorded"]

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


Layout = Any
"""A layout's description, JSON-ready (``describe``): a record is ``{"record": name, "fields": {field:
layout, ...}}`` (its fields in order); ``["optional", x]``, ``["seq", x]`` (``tuple[x, ...]``) and
``["tuple", x, y, ...]``; a leaf is ``"int"``, ``"str"``, ``"bool"``, ``"float"``, ``"card"`` or
``"enum <Name>"``."""


class LayoutError(TypeError):
    """A recorded layout the current types cannot read (a field with no default added, a field
    removed, a type changed): raised when the ``Packer`` is built, never on a request."""


def _is_record(tp: Any) -> bool:
    return isinstance(tp, type) and ((issubclass(tp, tuple) and hasattr(tp, "_fields")) or dataclasses.is_dataclass(tp))


def _fields(cls: type) -> list[str]:
    """The fields of a record as its packed form lists them."""
    if issubclass(cls, tuple):
        return list(cls._fields)  # type: ignore[attr-defined]
    return [f.name for f in dataclasses.fields(typing.cast(Any, cls)) if f.init]


def describe(tp: Any) -> Layout:
    """The layout of the annotation ``tp`` (a ``State`` type, or any type ``Packer`` packs): what the
    packed form holds where, naming fields, never modules (the same in a checkout and installed)."""
    if tp in (int, str, bool, float):
        return tp.__name__
    if tp is Card:
        return "card"
    if isinstance(tp, type) and issubclass(tp, Enum):
        return f"enum {tp.__name__}"
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        (inner,) = [a for a in args if a is not type(None)]
        return ["optional", describe(inner)]
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return ["seq", describe(args[0])]
        return ["tuple", *[describe(a) for a in args]]
    if _is_record(tp):
        hints = _hints(tp)
        return {"record": tp.__name__, "fields": {name: describe(hints[name]) for name in _fields(tp)}}
    raise TypeError(f"no packed form for {tp!r}")


def fingerprint(layout: Layout) -> str:
    """The fingerprint a packed state carries: the first 16 hex digits of SHA-256 over the layout
    as compact JSON, its fields in order."""
    return hashlib.sha256(json.dumps(layout, separators=(",", ":")).encode()).hexdigest()[:16]


def _default(cls: type, name: str) -> Any:
    """The declared default of field ``name`` of record ``cls``; ``dataclasses.MISSING`` for none."""
    if issubclass(cls, tuple):
        return cls._field_defaults.get(name, dataclasses.MISSING)  # type: ignore[attr-defined]
    field = next(f for f in dataclasses.fields(typing.cast(Any, cls)) if f.name == name)
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return field.default


def _upgrader(old: Layout, tp: Any, path: str) -> Fn | None:
    """The function from a value packed in the ``old`` layout to the same value packed as the
    annotation ``tp`` packs it now; None when they are the same; LayoutError when no such function
    can be written without inventing data."""
    new = describe(tp)
    if old == new:
        return None
    if isinstance(old, dict) and isinstance(new, dict):
        return _record_upgrader(old, tp, path)
    if isinstance(new, list) and new[0] == "optional":
        inner = _upgrader(old[1] if isinstance(old, list) and old[0] == "optional" else old, _without_none(tp), path)
        return None if inner is None else (lambda v: None if v is None else inner(v))
    if isinstance(old, list) and isinstance(new, list) and old[0] == new[0] == "seq":
        item = _upgrader(old[1], typing.get_args(tp)[0], f"{path}[]")
        assert item is not None  # old != new
        return lambda seq: [item(x) for x in seq]
    if isinstance(old, list) and isinstance(new, list) and old[0] == new[0] == "tuple" and len(old) == len(new):
        parts = [_upgrader(o, t, f"{path}[{i}]") for i, (o, t) in enumerate(zip(old[1:], typing.get_args(tp), strict=True))]
        return lambda seq: [x if f is None else f(x) for f, x in zip(parts, seq, strict=True)]
    raise LayoutError(f"{path} was {_short(old)} and is {_short(new)} now")


def _without_none(tp: Any) -> Any:
    (inner,) = [a for a in typing.get_args(tp) if a is not type(None)]
    return inner


def _short(layout: Layout) -> str:
    return f"record {layout['record']}" if isinstance(layout, dict) else json.dumps(layout)


def _converted(i: int, convert: Fn) -> Fn:
    return lambda s: convert(s[i])


def _constant(value: Any) -> Fn:
    return lambda s: value


def _record_upgrader(old: dict[str, Any], cls: type, path: str) -> Fn:
    """A record's upgrader: its fields by name, each upgraded; a field added takes its declared
    default (packed); a field removed is a LayoutError (the value it held would be lost, and what
    it meant with it)."""
    old_fields: dict[str, Layout] = old["fields"]
    names = _fields(cls)
    removed = [name for name in old_fields if name not in names]
    if removed:
        raise LayoutError(f"{path}.{removed[0]} was removed: a token's value of it would be dropped")
    hints = _hints(cls)
    position = {name: i for i, name in enumerate(old_fields)}
    steps: list[Fn] = []
    for name in names:
        if name in position:
            i, convert = position[name], _upgrader(old_fields[name], hints[name], f"{path}.{name}")
            steps.append(operator.itemgetter(i) if convert is None else _converted(i, convert))
        else:
            default = _default(cls, name)
            if default is dataclasses.MISSING:
                raise LayoutError(f"{path}.{name} was added without a default")
            encode = _compile(hints[name], cls)[0]
            packed = default if encode is None else encode(default)
            steps.append(_constant(packed))
    count = len(old_fields)

    def upgrade(s: Any) -> list[Any]:
        if not isinstance(s, list) or len(s) != count:
            raise ValueError("not a packed record of the recorded layout")
        return [step(s) for step in steps]

    return upgrade


def _same(s: Any) -> Any:
    return s


def recorded(state_type: type) -> Mapping[str, Layout]:
    """The layouts recorded for the game whose engine declares ``state_type`` (``layouts.py``), by
    fingerprint; none for a type of no game."""
    from .layouts import LAYOUTS

    game = getattr(sys.modules[state_type.__module__], "GAME_ID", None)
    return LAYOUTS.get(game, {}) if isinstance(game, str) else {}


class Packer:
    """Encoder and decoder of one ``State`` type's compact, trusted form.

    The packed form carries the fingerprint of the State's layout. A state packed in the current
    layout is decoded at once; one packed in an older layout recorded for the game (``recorded``:
    ``layouts.py``, written by ``python3 -m service.schemas.history``) is first rewritten into the
    current layout, field by field by name (``upgrades``, compiled here: a recorded layout the
    current types cannot read raises LayoutError now, not on a request); any other fingerprint is
    refused (ValueError) rather than decoded into nonsense.

    ``sealed_as`` is the fingerprint ``pack`` writes: the *oldest* recorded fingerprint of the
    current layout (else ``fingerprint``). A release that leaves a layout as it was therefore seals
    what the release before it reads, and a rolling upgrade (old and new pods side by side) refuses
    nothing in either direction; a release that changes a layout writes the new fingerprint, which
    only pods of that release read (docs/dev/upgrades.md).
    """

    def __init__(self, state_type: type, history: Mapping[str, Layout] | None = None) -> None:
        encode, decode = _record(state_type)
        assert encode is not None and decode is not None
        self._encode, self._decode = encode, decode
        self.layout = describe(state_type)
        self.fingerprint = fingerprint(self.layout)
        history = recorded(state_type) if history is None else history
        self.sealed_as = next((fp for fp, layout in history.items() if layout == self.layout), self.fingerprint)
        self.upgrades: dict[str, Fn] = {}
        for fp, layout in history.items():
            if fp not in (self.fingerprint, self.sealed_as):
                try:
                    upgrade = _upgrader(layout, state_type, state_type.__name__)
                except LayoutError as exc:
                    raise LayoutError(f"{state_type.__module__}: the recorded layout {fp} cannot be upgraded: {exc} "
                                      "(docs/dev/upgrades.md)") from None
                self.upgrades[fp] = upgrade or _same

    def pack(self, state: Any) -> dict[str, Any]:
        """The JSON-ready compact form of ``state``."""
        return {"f": self.sealed_as, "s": self._encode(state)}

    def unpack(self, data: Any) -> Any:
        """The state packed in ``data``, in the current layout or a recorded one; ValueError (or
        TypeError) if it is neither."""
        if isinstance(data, dict) and data.get("f") == self.sealed_as and isinstance(data.get("s"), list):
            return self._decode(data["s"])
        return self._unpack_recorded(data)

    def _unpack_recorded(self, data: Any) -> Any:
        fp = data.get("f") if isinstance(data, dict) else None
        upgrade = (_same if fp == self.fingerprint else self.upgrades.get(fp)) if isinstance(fp, str) else None
        if upgrade is None or not isinstance(data.get("s"), list):
            raise ValueError("not a packed state of this layout or a recorded one")
        return self._decode(upgrade(data["s"]))
