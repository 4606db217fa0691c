"""JSON in and out of the HTTP layer: fast (orjson), with the service's own rules.

``loads(raw)`` parses a request body and refuses, with a ``JSONError`` saying why:

- bytes that are not UTF-8 JSON text (``BadEncoding``): a byte-order mark (UTF-8's, or UTF-16's or
  UTF-32's), UTF-16 or UTF-32 text (a NUL byte, which JSON text in UTF-8 never holds), bytes that
  are not UTF-8 (invalid or missing continuation bytes, overlong forms, surrogates encoded as
  bytes), and a string holding a lone surrogate written as an escape (``"\\ud800"``: no UTF-8
  text can carry it; a pair, ``"\\ud83d\\ude00"``, is one character and fine). RFC 8259 §8.1:
  JSON exchanged between systems is UTF-8 without a byte-order mark; I-JSON (RFC 7493 §2.1)
  forbids surrogates. One reader for every document the service reads: request bodies, records
  posted to ``replay`` and records verified offline (``service/verify.py``);
- text that is not JSON (``Malformed``, with the standard library's own description);
- an integer outside ``bounds`` (default ±(2^53 − 1), where every JSON client reads it exactly)
  and the non-numbers ``NaN``, ``Infinity``, ``-Infinity``, or a number too large to be finite
  such as ``1e400`` (``OutOfRange``);
- with ``integers_only``, a number written with a fraction or an exponent (``NotInteger``, with
  its JSON Pointer): the request bodies' rule, where every number is an integer (the value is
  walked only when the text holds a digit followed by ``.``, ``e`` or ``E``, found in the sketch
  the reader makes anyway);
- nesting deeper than ``max_depth`` levels (``TooDeep``; default 64);
- an object that names a member twice (``DuplicateMember``, with the JSON Pointer of the second
  one): I-JSON (RFC 7493 §2.3) forbids it, and a reader that keeps the first value would see
  another document than one that keeps the last (a record with a forged ``result`` first and the
  signed one last). Names are compared after unescaping (``"a"`` and ``"\\u0061"`` are one name).

``dumps(obj)`` writes compact UTF-8 JSON bytes (no spaces; non-ASCII characters as themselves).

Speed without a second set of rules: orjson parses every ordinary body. A body in which a run of
digits is long enough to be an integer near or past the bounds, or that orjson refuses for any
reason, is parsed again by the standard library with hooks that check each integer literal
exactly, so the verdict and its wording never depend on which parser ran. orjson turns integer
literals past 64 bits into floats, which is why such bodies never take its path.

Output that orjson cannot write (integers past 64 bits, lone surrogates, non-string keys) falls
back to the standard library's writer, which escapes what UTF-8 cannot carry.

Duplicate names, without a second parse of every body: orjson keeps the last of two equal names
without a word, so they are found by counting. Every member of the text is written with one ``:``
outside strings, so the text holds at least as many colons as members, and at least as many
members as orjson kept: when its colons equal the members kept, no member was dropped, no name
came twice. A value with few values for its size (a sealed body: one long token) is walked to
count the members kept. Otherwise orjson's compact output of the value is counted, in C: it holds
one ``:`` per member kept plus every colon inside a kept string, and the text one per member plus
every colon inside any string, written as a byte or as the escape ``\\u003a`` (counted too), so
equal counts again mean that nothing was dropped. A body whose counts differ (a duplicate, or an
escaped backslash before ``u003a``) is parsed again by the standard library, whose
``object_pairs_hook`` sees every member and gives the verdict.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any, Final

import orjson

__all__ = [
    "MAX_DEPTH", "MAX_INT", "BadEncoding", "DuplicateMember", "JSONError", "Malformed", "NotInteger", "OutOfRange", "TooDeep", "dumps",
    "loads",
]

MAX_INT: Final = 2**53 - 1
MAX_DEPTH: Final = 64

_ORJSON_ERROR: Final = orjson.JSONDecodeError
_ORJSON_ENCODE_ERROR: Final = orjson.JSONEncodeError
_orjson_loads: Final = orjson.loads
_orjson_dumps: Final = orjson.dumps


class JSONError(ValueError):
    """A body refused by ``loads``; ``reason`` is a short stable tag, ``str()`` the human text."""

    reason = "invalid JSON"


class Malformed(JSONError):
    """Not JSON text."""

    reason = "malformed JSON"


class OutOfRange(JSONError):
    """A number the service does not take: an integer outside the bounds, NaN or an infinity."""

    reason = "out of range"


class TooDeep(JSONError):
    """Arrays and objects nested deeper than the limit."""

    reason = "too deep"


class DuplicateMember(JSONError):
    """An object that names a member twice (I-JSON, RFC 7493 §2.3); ``pointer`` is the JSON Pointer
    (RFC 6901) of the repeated member, e.g. ``/record/result``, in the first object (by where it
    opens) that repeats a name."""

    reason = "duplicate member"
    code = "duplicate_member"

    def __init__(self, pointer: str) -> None:
        shown = pointer if len(pointer) <= 200 else pointer[:200] + "…"
        super().__init__(f"the member {shown} appears more than once in its object (I-JSON, RFC 7493, forbids duplicate names)")
        self.pointer = pointer


class BadEncoding(JSONError):
    """Bytes that are not UTF-8 JSON text without a byte-order mark, or a string that holds a lone
    surrogate (RFC 8259 §8.1, RFC 7493 §2.1)."""

    reason = "not UTF-8"
    code = "bad_encoding"


_BOMS: Final = (
    (b"\x00\x00\xfe\xff", "a UTF-32 byte-order mark"),
    (b"\xff\xfe\x00\x00", "a UTF-32 byte-order mark"),
    (b"\xef\xbb\xbf", "a UTF-8 byte-order mark"),
    (b"\xfe\xff", "a UTF-16 byte-order mark"),
    (b"\xff\xfe", "a UTF-16 byte-order mark"),
)
_UTF8_ONLY: Final = "JSON text is read as UTF-8 without a byte-order mark (RFC 8259 §8.1)"


def _utf8_text(data: bytes) -> str:
    """``data`` decoded as strict UTF-8 (no byte-order mark, no surrogates, no overlong forms); ``BadEncoding`` otherwise."""
    for mark, name in _BOMS:
        if data.startswith(mark):
            raise BadEncoding(f"the text starts with {name}; {_UTF8_ONLY}")
    nul = data.find(b"\x00")
    if nul >= 0:
        raise BadEncoding(f"the byte at offset {nul} is NUL, which UTF-8 JSON text never holds (UTF-16 or UTF-32 text?); {_UTF8_ONLY}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadEncoding(f"the bytes at offset {exc.start} are not UTF-8 ({exc.reason}); {_UTF8_ONLY}") from None


_ESCAPED_SURROGATE: Final = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def _lone_surrogate(value: Any) -> str | None:
    """The JSON Pointer of the first string (a member's name or a value) holding a lone surrogate, else None."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return where
        elif isinstance(item, dict):
            for k, v in item.items():
                if _SURROGATE.search(k):
                    return f"{where}/{_escape(k.encode('utf-8', 'backslashreplace').decode('ascii', 'backslashreplace'))}"
                stack.append((v, f"{where}/{_escape(k)}"))
        elif isinstance(item, list):
            stack.extend((v, f"{where}/{i}") for i, v in enumerate(item))
    return None


class NotInteger(JSONError):
    """A number written with a fraction or an exponent where every number must be an integer
    (``loads(..., integers_only=True)``); ``pointer`` is its JSON Pointer."""

    reason = "not an integer"

    def __init__(self, pointer: str) -> None:
        super().__init__(f"the number at {pointer} is written with a fraction or an exponent")
        self.pointer = pointer


def _has_float(value: Any) -> bool:
    """Whether ``value`` holds a number parsed as a float: the walk of the request path, which
    builds no pointer (``_first_float`` names it once one is there). Iterative."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is float:
            return True
        if kind is dict:
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
    return False


def _first_float(value: Any) -> str | None:
    """The JSON Pointer of the first number parsed as a float in ``value`` (pre-order), else None. Iterative."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, where = stack.pop()
        kind = type(item)
        if kind is float:
            return where
        if kind is dict:
            stack.extend((v, f"{where}/{_escape(k)}") for k, v in reversed(item.items()))
        elif kind is list:
            stack.extend((v, f"{where}/{i}") for i, v in reversed(list(enumerate(item))))
    return None


class _Repeats(dict[str, Any]):
    """An object whose text named ``repeated`` twice (built by ``_strict_loads``' object hook)."""

    repeated = ""


def _marked(pairs: list[tuple[str, Any]], obj: dict[str, Any]) -> _Repeats:
    """``obj`` (the object of ``pairs``, which repeat a name), marked with its first repeated name."""
    seen: set[str] = set()
    marked = _Repeats(obj)
    for name, _ in pairs:
        if name in seen:
            marked.repeated = name
            break
        seen.add(name)
    return marked


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _first_repeat(value: Any) -> str | None:
    """The JSON Pointer of the first repeated member in ``value`` (pre-order), else None.
    Iterative: a value nested as deep as the parser allows has no recursion limit here."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, where = stack.pop()
        if type(item) is _Repeats:
            return f"{where}/{_escape(item.repeated)}"
        if isinstance(item, dict):
            children = [(v, f"{where}/{_escape(k)}") for k, v in item.items() if isinstance(v, (dict, list))]
        elif isinstance(item, list):
            children = [(v, f"{where}/{i}") for i, v in enumerate(item) if isinstance(v, (dict, list))]
        else:
            continue
        stack.extend(reversed(children))
    return None


def _describe(bounds: tuple[int, int]) -> str:
    lo, hi = bounds
    if lo == -hi and hi == MAX_INT:
        return "±(2^53 − 1)"
    if (lo, hi) == (-(2**63), 2**63 - 1):
        return "[−2^63, 2^63 − 1]"
    return f"[{lo}, {hi}]"


def _class_of(byte: int) -> int:
    if 0x30 <= byte <= 0x39:
        return 0x30  # a digit: "0"
    if byte in (0x5B, 0x7B):
        return 0x5B  # "[" or "{": "["
    if byte in (0x2E, 0x65, 0x45):
        return 0x65  # ".", "e" or "E" (after a digit: a fraction or an exponent): "e"
    return 0x2E  # anything else: "."


_SKETCH: Final = bytes(_class_of(b) for b in range(256))
"""A translation table: digits become ``0``, openings ``[``, ``.eE`` ``e``, everything else ``.`` (one C pass)."""


@lru_cache(maxsize=8)
def _long_digit_run(bounds: tuple[int, int]) -> bytes:
    """A run of digits (in the sketch) long enough that its number might lie outside ``bounds``.

    Shorter runs cannot: an integer of n digits is below 10^n.
    """
    safe = len(str(min(-bounds[0], bounds[1]))) - 1  # every integer of this many digits is inside
    return b"0" * (safe + 1)


def _strict_loads(data: bytes, bounds: tuple[int, int]) -> Any:
    """The standard library's parser on strict UTF-8 (``BadEncoding`` otherwise: it would take UTF-16,
    UTF-32, byte-order marks and surrogates), every integer literal checked against ``bounds``."""
    raw = _utf8_text(data)
    lo, hi = bounds
    limit = max(len(str(lo)), len(str(hi)))

    def integer(text: str) -> int:
        value = int(text) if len(text) <= limit else hi + 1  # longer than the bounds' own digits
        if not lo <= value <= hi:
            shown = text[:24] + ("…" if len(text) > 24 else "")
            raise OutOfRange(f"the integer {shown} is outside {_describe(bounds)}")
        return value

    def number(text: str) -> float:
        value = float(text)
        if value in (float("inf"), float("-inf")):
            raise OutOfRange(f"the number {text[:24]}{'…' if len(text) > 24 else ''} is too large")
        return value

    def constant(name: str) -> Any:
        raise OutOfRange(f"{name} is not JSON")

    repeats = 0

    def members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal repeats
        obj = dict(pairs)
        if len(obj) == len(pairs):
            return obj
        repeats += 1
        return _marked(pairs, obj)

    try:
        value = json.loads(raw, parse_int=integer, parse_float=number, parse_constant=constant, object_pairs_hook=members)
    except JSONError:
        raise
    except RecursionError:
        raise TooDeep("the JSON nests too deeply") from None
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise Malformed(str(exc)) from None
    if repeats:
        raise DuplicateMember(_first_repeat(value) or "")
    if "\\u" in raw and _ESCAPED_SURROGATE.search(raw):
        where = _lone_surrogate(value)
        if where is not None:
            raise BadEncoding(f"the string at {where or '/'} holds a lone surrogate escape (\\ud800-\\udfff without its pair), "
                          "which no UTF-8 text can carry (I-JSON, RFC 7493 §2.1)")
    return value


def _members_within(value: Any, budget: int) -> int | None:
    """The members of every object in the array or object ``value``; None when counting them
    would look at more than ``budget`` values (members and elements)."""
    members = 0
    stack = [value]
    while stack:
        item = stack.pop()
        size = len(item)
        budget -= size
        if budget < 0:
            return None
        if type(item) is dict:
            members += size
            item = item.values()
        for child in item:
            kind = type(child)
            if kind is dict or kind is list:
                stack.append(child)
    return members


def _colons_at_most(data: bytes, most: int) -> bool:
    """Whether ``data`` holds at most ``most`` bytes ``:`` (a few ``find`` calls, memchr-fast, when
    ``most`` is small: a sealed body's long token is then skipped, never counted byte by byte)."""
    if most >= 16:
        return data.count(b":") <= most
    at = -1
    for _ in range(most + 1):
        at = data.find(b":", at + 1)
        if at < 0:
            return True
    return False


def _no_member_dropped(data: bytes, value: Any) -> bool:
    """Whether orjson's ``value`` of ``data`` provably kept every member of the text, so that no
    name was repeated (the module's docstring says why). False means "not proven", not "repeated".

    The members orjson kept are counted by walking ``value`` when it has few values for its size
    (a sealed body: a token of 500 KB, three members), else from orjson's own output, in C."""
    kind = type(value)
    if kind is not dict and kind is not list:
        return True  # a string, number or literal holds no object
    kept = _members_within(value, len(data) // 128) if len(data) > 8192 else None  # small: counting in C is quicker
    if kept is not None:
        return _colons_at_most(data, max(kept, 1))  # the text's colons are at least the members kept
    colons = data.count(b":")
    if b"\\" in data:  # a colon inside a string may be written as an escape: \u003a or \u003A
        colons += data.count(b"\\u003a") + data.count(b"\\u003A")  # an escaped backslash before u003a: too many, not proven
    try:
        return _orjson_dumps(value).count(b":") == colons
    except _ORJSON_ENCODE_ERROR:
        return False


def _deeper_than(value: Any, room: int) -> bool:
    """Whether the array or object ``value`` needs more than ``room`` levels (itself counts one)."""
    if room < 1:
        return True
    for item in value.values() if type(value) is dict else value:
        kind = type(item)
        if (kind is dict or kind is list) and _deeper_than(item, room - 1):
            return True
    return False


def loads(
    raw: bytes | str, *, bounds: tuple[int, int] = (-MAX_INT, MAX_INT), max_depth: int = MAX_DEPTH, integers_only: bool = False,
) -> Any:
    """The JSON value of ``raw`` (UTF-8 bytes; a ``str`` is read as its UTF-8 encoding); raises
    ``BadEncoding``, ``Malformed``, ``OutOfRange``, ``TooDeep``, ``DuplicateMember`` or, with
    ``integers_only``, ``NotInteger`` (all ``JSONError``)."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    sketch = data.translate(_SKETCH)
    if _long_digit_run(bounds) in sketch:
        value = _strict_loads(data, bounds)
    else:
        try:
            value = _orjson_loads(data)  # refuses all that BadEncoding names (byte-order marks, bad UTF-8, lone surrogates)
        except _ORJSON_ERROR:  # the standard library gives the verdict, and its wording
            value = _strict_loads(data, bounds)
        else:
            if not _no_member_dropped(data, value):
                value = _strict_loads(data, bounds)  # sees every member: DuplicateMember, or the same value
    kind = type(value)
    if (kind is dict or kind is list) and sketch.count(b"[") > max_depth and _deeper_than(value, max_depth):
        raise TooDeep(f"the JSON nests deeper than {max_depth} levels")
    if integers_only and b"0e" in sketch and _has_float(value):
        raise NotInteger(_first_float(value) or "")
    return value


def dumps(obj: Any) -> bytes:
    """Compact UTF-8 JSON of ``obj`` (TypeError for a value JSON has no form for)."""
    try:
        return _orjson_dumps(obj)
    except _ORJSON_ENCODE_ERROR:
        return json.dumps(obj, separators=(",", ":"), allow_nan=False).encode("ascii")
