"""JSON in and out of the HTTP layer: fast (orjson), with the service's own rules.

``loads(raw)`` parses a request body and refuses, with a ``JSONError`` saying why:

- text that is not JSON (``Malformed``, with the standard library's own description);
- an integer outside ``bounds`` (default ±(2^53 − 1), where every JSON client reads it exactly)
  and the non-numbers ``NaN``, ``Infinity``, ``-Infinity``, or a number too large to be finite
  such as ``1e400`` (``OutOfRange``);
- nesting deeper than ``max_depth`` levels (``TooDeep``; default 64).

``dumps(obj)`` writes compact UTF-8 JSON bytes (no spaces; non-ASCII characters as themselves).

Speed without a second set of rules: orjson parses every ordinary body. A body in which a run of
digits is long enough to be an integer near or past the bounds, or that orjson refuses for any
reason, is parsed again by the standard library with hooks that check each integer literal
exactly, so the verdict and its wording never depend on which parser ran. orjson turns integer
literals past 64 bits into floats, which is why such bodies never take its path. Output that
orjson cannot write (integers past 64 bits, lone surrogates, non-string keys) falls back to the
standard library's writer, which escapes what UTF-8 cannot carry.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Final

import orjson

__all__ = ["MAX_DEPTH", "MAX_INT", "JSONError", "Malformed", "OutOfRange", "TooDeep", "dumps", "loads"]

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
    return 0x2E  # anything else: "."


_SKETCH: Final = bytes(_class_of(b) for b in range(256))
"""A translation table: digits become ``0``, openings ``[``, everything else ``.`` (one C pass)."""


@lru_cache(maxsize=8)
def _long_digit_run(bounds: tuple[int, int]) -> bytes:
    """A run of digits (in the sketch) long enough that its number might lie outside ``bounds``.

    Shorter runs cannot: an integer of n digits is below 10^n.
    """
    safe = len(str(min(-bounds[0], bounds[1]))) - 1  # every integer of this many digits is inside
    return b"0" * (safe + 1)


def _strict_loads(raw: bytes | str, bounds: tuple[int, int]) -> Any:
    """The standard library's parser, every integer literal checked against ``bounds``."""
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

    try:
        return json.loads(raw, parse_int=integer, parse_float=number, parse_constant=constant)
    except JSONError:
        raise
    except RecursionError:
        raise TooDeep("the JSON nests too deeply") from None
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise Malformed(str(exc)) from None


def _deeper_than(value: Any, room: int) -> bool:
    """Whether the array or object ``value`` needs more than ``room`` levels (itself counts one)."""
    if room < 1:
        return True
    for item in value.values() if type(value) is dict else value:
        kind = type(item)
        if (kind is dict or kind is list) and _deeper_than(item, room - 1):
            return True
    return False


def loads(raw: bytes | str, *, bounds: tuple[int, int] = (-MAX_INT, MAX_INT), max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value of ``raw``; raises ``Malformed``, ``OutOfRange`` or ``TooDeep`` (all ``JSONError``)."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    sketch = data.translate(_SKETCH)
    if _long_digit_run(bounds) in sketch:
        value = _strict_loads(raw, bounds)
    else:
        try:
            value = _orjson_loads(data)
        except _ORJSON_ERROR:  # the standard library gives the verdict, and its wording
            value = _strict_loads(raw, bounds)
    kind = type(value)
    if (kind is dict or kind is list) and sketch.count(b"[") > max_depth and _deeper_than(value, max_depth):
        raise TooDeep(f"the JSON nests deeper than {max_depth} levels")
    return value


def dumps(obj: Any) -> bytes:
    """Compact UTF-8 JSON of ``obj`` (TypeError for a value JSON has no form for)."""
    try:
        return _orjson_dumps(obj)
    except _ORJSON_ENCODE_ERROR:
        return json.dumps(obj, separators=(",", ":"), allow_nan=False).encode("ascii")
