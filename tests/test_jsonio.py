"""service/jsonio.py: the same verdicts as the standard library with the service's hooks, faster.

The reference is the standard library's ``json`` with today's rules made exact (every integer
literal checked against the bounds, NaN/Infinity and infinite numbers refused, nesting checked):
``jsonio.loads`` must agree with it on every input, valid or not, whichever parser ran — checked
on property-based JSON texts (derandomized) and byte-level mutations of them, and on the edge
cases named here. A name repeated in any object, however it is written and wherever it sits, is
``DuplicateMember`` with its JSON Pointer, whichever of the fast counts the body takes (the
module's docstring); the standard library's ``object_pairs_hook`` is the independent reference.
``dumps`` must write compact JSON that reads back as the same value.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from service import jsonio
from service.jsonio import MAX_INT, DuplicateMember, Malformed, OutOfRange, TooDeep

SETTINGS = settings(derandomize=True, max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
BOUNDS_64 = (-(2**63), 2**63 - 1)


def _reference(raw: bytes | str, bounds: tuple[int, int] = (-MAX_INT, MAX_INT), max_depth: int = 64) -> Any:
    """The verdict of the standard library alone, with the service's rules."""
    value = jsonio._strict_loads(raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw, bounds)
    if isinstance(value, (dict, list)) and _depth(value) > max_depth:
        raise TooDeep(f"the JSON nests deeper than {max_depth} levels")
    return value


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def _verdict(fn: Any, raw: Any, **kw: Any) -> tuple[str, Any]:
    try:
        value = fn(raw, **kw)
    except jsonio.JSONError as exc:
        return type(exc).__name__, str(exc)
    return "ok", json.dumps(value, sort_keys=False)  # exact: key order, int vs float, -0.0


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([MAX_INT, MAX_INT + 1, -MAX_INT, -MAX_INT - 1, 2**63 - 1, 2**63, -(2**63), 10**15, 10**16, 0]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=30,
)


@SETTINGS
@given(value=json_values, spaced=st.booleans())
def test_loads_agrees_with_the_standard_library_on_json_texts(value: Any, spaced: bool) -> None:
    raw = json.dumps(value, separators=(", ", ": ") if spaced else (",", ":"), ensure_ascii=False).encode()
    assert _verdict(jsonio.loads, raw) == _verdict(_reference, raw)
    assert _verdict(jsonio.loads, raw, bounds=BOUNDS_64) == _verdict(_reference, raw, bounds=BOUNDS_64)


@SETTINGS
@given(value=json_values, cut=st.integers(0, 10_000), junk=st.binary(min_size=1, max_size=4))
def test_loads_agrees_with_the_standard_library_on_broken_texts(value: Any, cut: int, junk: bytes) -> None:
    raw = json.dumps(value).encode()
    at = cut % (len(raw) + 1)
    for broken in (raw[:at], raw[:at] + junk + raw[at:], raw[:at] + raw[at + 1 :]):
        assert _verdict(jsonio.loads, broken) == _verdict(_reference, broken)


@pytest.mark.parametrize(
    ("raw", "kind"),
    [
        (b"9007199254740991", "ok"),
        (b"-9007199254740991", "ok"),
        (b"9007199254740992", "OutOfRange"),
        (b"-9007199254740992", "OutOfRange"),
        (b"[18446744073709551616]", "OutOfRange"),  # orjson alone would read a float here
        (b'{"seq": ' + b"1" * 5000 + b"}", "OutOfRange"),
        (b"NaN", "OutOfRange"),
        (b"[Infinity]", "OutOfRange"),
        (b'{"a": -Infinity}', "OutOfRange"),
        (b"[1e400]", "OutOfRange"),
        (b"[-1e400]", "OutOfRange"),
        (b"[1e308, 1.5, -0.0, 0.1]", "ok"),
        (b"12345678901234567.5", "ok"),  # a long float is not an integer
        (b"{", "Malformed"),
        (b"", "Malformed"),
        (b"[1,]", "Malformed"),
        (b"\xff", "BadEncoding"),  # not UTF-8 (issue 32: one reading of bytes everywhere, tests/test_bytes.py)
        (b'"\\ud800"', "BadEncoding"),  # a lone surrogate escape: no UTF-8 text can carry it (I-JSON)
        (b'"\\ud83d\\ude00"', "ok"),  # a pair is one character
        (b'"\\\\ud800"', "ok"),  # an escaped backslash, then the text ud800
        (b"\xef\xbb\xbf{}", "BadEncoding"),  # a UTF-8 byte order mark (the standard library would read it)
        ('{"a": 1}'.encode("utf-16"), "BadEncoding"),  # so UTF-16 and UTF-32 (it would read them too)
        ('{"a": 1}'.encode("utf-32-le"), "BadEncoding"),
        (b'"\xed\xa0\x80"', "BadEncoding"),  # a surrogate as raw bytes
        (b'"\xc0\xaf"', "BadEncoding"),  # an overlong form
        (b"[" * 64 + b"]" * 64, "ok"),
        (b"[" * 65 + b"]" * 65, "TooDeep"),
        (b'{"a":' * 65 + b"1" + b"}" * 65, "TooDeep"),
        (b"[" * 5000 + b"]" * 5000, "TooDeep"),
        (b"[" * 100_000, "TooDeep"),
        (b'{"a":1,"a":1}', "DuplicateMember"),
        (b'{"a":1,"\\u0061":2}', "DuplicateMember"),  # one name, however it is written
        (b'{"a":"\\u003a","a":1}', "DuplicateMember"),  # an escaped colon would balance the count
        (b'{"a":"x:y:z","b":"::"}', "ok"),  # colons inside strings: the standard library decides
        (b'{"a":{"a":{"a":1}},"b":[{"a":1},{"a":1}]}', "ok"),  # equal names in different objects
        (b'[{"x":1,"y":2,"x":3}]', "DuplicateMember"),
        (b'{"seed":1234567890123456,"seed":1}', "DuplicateMember"),  # the strict path from the start
        (b'{"token":"' + b"t" * 600_000 + b'","move":{"type":"play","type":"x"}}', "DuplicateMember"),  # walked
        (b'{"m":[' + b",".join([b'{"a":1,"b":2}'] * 5000) + b'],"m":1}', "DuplicateMember"),  # counted in C
        (b'{"m":[' + b",".join([b'{"a":1,"b":2}'] * 4999 + [b'{"a":1,"a":2}']) + b"]}", "DuplicateMember"),
        (b'{"m":[' + b",".join([b'{"a":"\\n","b":2}'] * 4999 + [b'{"a":1,"a":2}']) + b"]}", "DuplicateMember"),
        (b'{"m":[' + b",".join([b'{"a":"\\n","b":2}'] * 5000) + b"]}", "ok"),
        (b'{"m":[' + b",".join([b'{"a":"\\u003a:","b":2}'] * 5000) + b"]}", "ok"),  # escaped colons are counted
        (b'{"m":[' + b",".join([b'{"a":"\\\\u003A","b":2}'] * 5000) + b"]}", "ok"),  # a backslash, then u003A
        (b'{"m":[' + b",".join([b'{"a":1,"b":2}'] * 4999 + [b'{"a":1,"a":2,"b":"\\u003a"}']) + b"]}", "DuplicateMember"),
    ],
)
def test_edge_cases(raw: bytes, kind: str) -> None:
    got = _verdict(jsonio.loads, raw)
    assert got[0] == kind, got
    if kind != "TooDeep":  # the reference recurses where loads walks iteratively: compare the rest
        assert got == _verdict(_reference, raw)


def test_refusals_say_why() -> None:
    with pytest.raises(OutOfRange, match=r"the integer 9007199254740992 is outside ±\(2\^53 − 1\)"):
        jsonio.loads(b'{"seed": 9007199254740992}')
    with pytest.raises(OutOfRange, match=r"outside \[−2\^63, 2\^63 − 1\]"):
        jsonio.loads(str(2**63).encode(), bounds=BOUNDS_64)
    assert jsonio.loads(str(2**63 - 1).encode(), bounds=BOUNDS_64) == 2**63 - 1
    with pytest.raises(OutOfRange, match="NaN is not JSON"):
        jsonio.loads(b"[NaN]")
    with pytest.raises(TooDeep, match="deeper than 64 levels"):
        jsonio.loads(b"[" * 65 + b"]" * 65)
    with pytest.raises(Malformed, match="Expecting value: line 1 column 1"):
        jsonio.loads(b"nope")
    for exc in (OutOfRange, TooDeep, Malformed):
        assert issubclass(exc, ValueError) and exc.reason in ("out of range", "too deep", "malformed JSON")


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    names = [name for name, _ in pairs]
    if len(set(names)) != len(names):
        raise ValueError("repeated name")
    return dict(pairs)


def _pointer(*names: str) -> str:
    return "".join("/" + n.replace("~", "~0").replace("/", "~1") for n in names)


@SETTINGS
@given(
    name=st.text(max_size=8),
    first=json_values,
    last=json_values,
    others=st.dictionaries(st.text(max_size=8), json_values, max_size=4),
    wraps=st.lists(st.sampled_from(["list", "object"]), max_size=6),
    ascii_only=st.booleans(),
)
def test_a_repeated_name_is_refused_with_its_pointer(
    name: str, first: Any, last: Any, others: dict[str, Any], wraps: list[str], ascii_only: bool
) -> None:
    """A name written twice in one object, among other members and under arrays and objects:
    refused with the pointer of the repeated member, whatever the strings hold (colons, escapes)."""
    assume(all(type(leaf) is not int or abs(leaf) <= MAX_INT for leaf in _leaves([first, last, others])))
    def dump(v: Any) -> str:
        return json.dumps(v, ensure_ascii=ascii_only)

    members = [f"{dump(k)}:{dump(v)}" for k, v in others.items() if k != name]
    text = "{" + ",".join([f"{dump(name)}:{dump(first)}", *members, f"{dump(name)}:{dump(last)}"]) + "}"
    path: list[str] = []
    for wrap in wraps:
        text = f"[0,{text}]" if wrap == "list" else f'{{"w/~:":{text}}}'
        path.insert(0, "1" if wrap == "list" else "w/~:")
    with pytest.raises(ValueError, match="repeated name"):
        json.loads(text, object_pairs_hook=_no_repeats)  # the reference agrees that it is one
    with pytest.raises(DuplicateMember) as caught:
        jsonio.loads(text.encode())
    assert caught.value.pointer == _pointer(*path, name)
    assert caught.value.pointer in str(caught.value) or len(caught.value.pointer) > 200


@SETTINGS
@given(value=json_values, ascii_only=st.booleans())
def test_no_repeated_name_no_refusal(value: Any, ascii_only: bool) -> None:
    """JSON written from a value never repeats a name, and loads reads it back unchanged."""
    assume(all(type(leaf) is not int or abs(leaf) <= MAX_INT for leaf in _leaves(value)))
    raw = json.dumps(value, ensure_ascii=ascii_only).encode()
    assert json.dumps(jsonio.loads(raw)) == json.dumps(json.loads(raw, object_pairs_hook=_no_repeats))


def test_a_repeated_name_says_where() -> None:
    with pytest.raises(DuplicateMember, match=r"the member /record/result appears more than once in its object \(I-JSON"):
        jsonio.loads(b'{"record": {"result": {"winner": [1]}, "game": "snap", "result": {"winner": [0]}}}')
    assert issubclass(DuplicateMember, jsonio.JSONError) and DuplicateMember.reason == "duplicate member"
    assert DuplicateMember.code == "duplicate_member"


def test_str_input_is_read_like_bytes() -> None:
    assert jsonio.loads('{"a": "é", "b": [1, 2]}') == {"a": "é", "b": [1, 2]}
    with pytest.raises(jsonio.BadEncoding):
        jsonio.loads('"\ud800"')  # a str holding a lone surrogate is no UTF-8 text
    with pytest.raises(OutOfRange):
        jsonio.loads("[9007199254740992]")


@SETTINGS
@given(value=json_values)
def test_dumps_is_compact_json_of_the_same_value(value: Any) -> None:
    out = jsonio.dumps(value)
    assert isinstance(out, bytes)
    assert json.loads(out) == value
    if not any(isinstance(v, float) for v in _leaves(value)):  # float spellings differ (1e+16, 1e16)
        compact = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
        assert out in (compact, json.dumps(value, separators=(",", ":")).encode())


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [x for v in value.values() for x in _leaves(v)]
    if isinstance(value, list):
        return [x for v in value for x in _leaves(v)]
    return [value]


def test_dumps_writes_what_orjson_cannot() -> None:
    assert jsonio.dumps({"a": 2**64, "b": "x"}) == b'{"a":18446744073709551616,"b":"x"}'
    assert jsonio.dumps({"s": "\ud800"}) == b'{"s":"\\ud800"}'
    assert jsonio.dumps({1: True}) == b'{"1":true}'
    assert jsonio.dumps({"t": (1, 2), "e": "é"}) == '{"t":[1,2],"e":"é"}'.encode()
    with pytest.raises(TypeError):
        jsonio.dumps({"x": object()})
    assert math.isfinite(jsonio.loads(jsonio.dumps(1e308)))
