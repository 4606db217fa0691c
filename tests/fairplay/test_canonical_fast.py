"""``records.canonical``'s fast path (orjson) writes exactly the reference writer's RFC 8785 text.

Signatures and the record's hash chain are over this text: one differing byte and a record signed
before a change no longer verifies. So every value is written both ways and compared: random values
of JSON's types (names and strings from an alphabet rich in what differs between writers: quotes,
backslashes, control characters, DEL, non-ASCII, astral characters, lone surrogates, names whose
UTF-16 and code point orders differ), integers at and past ±(2^53 − 1), other types (floats, enums,
subclasses, dataclasses, other mappings), nesting past orjson's depth, and every move and record
the engines produce in a played match. Where the reference writer refuses a value, ``canonical``
refuses it with the same error.
"""

from __future__ import annotations

import dataclasses
import enum
from collections import OrderedDict
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.engines import ENGINES
from service.records import MAX_SAFE, _json_types_only, canonical, canonical_reference
from service.schemas.common import to_wire
from tests.playouts import random_playout

# what differs between JSON writers: escapes, control characters, DEL, non-ASCII (2-, 3- and 4-byte
# UTF-8; U+E000 sorts before U+1F600 by code point but after it by UTF-16 code units), lone surrogates
TRICKY = ['"', "\\", "/", "\b", "\f", "\n", "\r", "\t", "\x00", "\x1f", "\x7f", "\x80", "é", "\u2028", "\ue000",
          "\U0001f600", "\ud800", "\udfff", "a", "B", "_", "0", "~", " ", "<", "&"]
TEXT = st.text(st.sampled_from(TRICKY) | st.characters(max_codepoint=0x7F) | st.characters(), max_size=8)
ASCII_TEXT = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=8)
INTS = st.integers(-MAX_SAFE, MAX_SAFE) | st.sampled_from([MAX_SAFE, -MAX_SAFE, MAX_SAFE + 1, -MAX_SAFE - 1, 2**63, 2**64, 0])
SCALARS = st.none() | st.booleans() | INTS | TEXT | ASCII_TEXT
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.lists(inner, max_size=3).map(tuple)
    | st.dictionaries(TEXT | ASCII_TEXT, inner, max_size=5),
    max_leaves=30,
)


class Colour(enum.Enum):
    RED = "red"


class Level(enum.IntEnum):
    ONE = 1


class Name(str):
    pass


class Number(int):
    pass


@dataclasses.dataclass
class Point:
    x: int


def _same(value: Any) -> None:
    """``canonical(value)`` is the reference text, or both refuse it alike."""
    try:
        expected = canonical_reference(value)
    except (ValueError, RecursionError) as exc:
        with pytest.raises(type(exc)) as got:
            canonical(value)
        assert str(got.value) == str(exc)
        return
    assert canonical(value) == expected


@settings(max_examples=3000, deadline=None)
@given(VALUES)
def test_random_values_are_written_alike(value: Any) -> None:
    _same(value)


@settings(max_examples=1000, deadline=None)
@given(st.dictionaries(ASCII_TEXT, st.none() | INTS | ASCII_TEXT, max_size=12))
def test_ascii_objects_take_the_fast_path_and_sort_alike(value: dict[str, Any]) -> None:
    """Printable ASCII names in any order: the members' order is RFC 8785's (the fast path is taken
    whenever the value allows it, so this compares orjson's order, not the reference with itself)."""
    _same(value)


@pytest.mark.parametrize("value", [
    {"b": 1, "a": 2, "B": 3, "_": 4, "aa": 5, "a0": 6, "": 7, " ": 8, "~": 9},
    {"\ue000": 1, "\U0001f600": 2, "a": 3},  # UTF-16 order: the astral character first
    {"é": 1, "e": 2, "f": 3},
    ["\x7f", "\x1f", "\x00", '"', "\\", "/", "\u2028", "é", "\U0001f600"],
    [MAX_SAFE, -MAX_SAFE, 0, -1, True, False, None, [], {}, (), ""],
    [MAX_SAFE + 1], [-MAX_SAFE - 1], [2**64], {"n": 2**63},
    [1.0], [float("nan")], {"x": 0.5},
    [Colour.RED], [Level.ONE], [Name("x")], {Name("k"): 1}, [Number(3)], [Point(1)],
    OrderedDict([("b", 1), ("a", 2)]), {1: "x"}, {None: 1}, ("a", ("b",)),
    ["\ud800"], {"\udfff": 1}, {1, 2},
])
def test_corner_cases(value: Any) -> None:
    _same(value)


def test_nesting_past_orjsons_limit() -> None:
    """orjson writes at most 255 levels; deeper values are the reference writer's."""
    deep: Any = "x"
    for _ in range(300):
        deep = [deep]
    assert not _json_types_only(deep) or canonical(deep) == canonical_reference(deep)
    _same(deep)


def test_the_fast_path_is_taken_for_moves() -> None:
    """A move's wire form is JSON's own types: the fast path applies (else it would save nothing)."""
    assert _json_types_only({"type": "play", "player": 0, "card": "10S", "claims": [{"at": 5}]})
    assert not _json_types_only({"x": 1.5})
    assert not _json_types_only([MAX_SAFE + 1])
    assert not _json_types_only({1: 2})


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_every_move_and_state_of_a_match(game: str) -> None:
    """Every move of a random match, and the wire state after it, as the records hold them."""
    engine = ENGINES[game]
    for _, move, after in random_playout(engine, engine.DEFAULT_PLAYERS, seed=5, max_moves=300):
        _same(to_wire(move))
        _same(to_wire(engine.view(after, None)))
