"""Wire output and the packed token form, fast paths against plain reference encoders.

``to_wire`` picks a compiled encoder per type and ``Packer`` compiles straight-line code per
record; both must give exactly what the plain recursive rules give (reference encoders below,
written the obvious way), for every value a request can send back: full states, every seat's view
and the public one, legal moves, events, scores — over seeded random matches of every game. The
packed form must also be the one earlier versions wrote (tokens sealed before an upgrade still
open), and unpack its own output.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from enum import Enum
from typing import Any

import pytest

from service.cards import Card
from service.engines import ENGINES
from service.engines.base import event_view
from service.schemas import SCHEMAS
from service.schemas.common import to_wire
from tests.playouts import random_playout

GAMES = sorted(ENGINES)


def reference_wire(obj: Any) -> Any:
    """The wire rules, plainly: the order of the checks is the contract."""
    if type(obj) is Card:
        return str(obj)
    if obj is None or type(obj) in (int, bool, str, float):
        return obj
    if isinstance(obj, Enum):
        return obj.value
    if isinstance(obj, (str, int, float)):
        return obj
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return {k: reference_wire(v) for k, v in zip(obj._fields, obj)}
    if isinstance(obj, (tuple, list, frozenset, set)):
        return [reference_wire(v) for v in obj]
    if isinstance(obj, Mapping):
        return {str(k): reference_wire(v) for k, v in obj.items()}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        move_type = getattr(type(obj), "TYPE", None)
        out = {} if move_type is None else {"type": move_type}
        for f in dataclasses.fields(obj):
            if f.metadata.get("wire") is False:
                continue
            value = getattr(obj, f.name)
            if value is None and move_type is not None and f.default is None:
                continue
            out[f.metadata.get("wire_name", f.name)] = reference_wire(value)
        return out
    raise TypeError(f"no wire form for {type(obj).__name__}")


def reference_pack(obj: Any) -> Any:
    """The packed form, plainly: records and dataclasses as positional lists, cards as text."""
    if isinstance(obj, Card):
        return str(obj)
    if isinstance(obj, Enum):
        return obj.value
    if obj is None or isinstance(obj, (int, str, float)):
        return obj
    if isinstance(obj, tuple):
        return [reference_pack(v) for v in obj]
    if dataclasses.is_dataclass(obj):
        return [reference_pack(getattr(obj, f.name)) for f in dataclasses.fields(obj) if f.init]
    raise TypeError(type(obj).__name__)


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON text: same values, same types (1 vs true vs 1.0), same key order."""
    return json.dumps(a) == json.dumps(b)


def _matches(game: str) -> list[Any]:
    engine = ENGINES[game]
    out = []
    for players in engine.PLAYER_COUNTS[:2]:
        out += list(random_playout(engine, players, seed=11, max_moves=300))
    return out


@pytest.mark.parametrize("game", GAMES)
def test_to_wire_is_the_plain_rules_on_everything_a_response_carries(game: str) -> None:
    engine = ENGINES[game]
    checked = 0
    for i, (before, move, after) in enumerate(_matches(game)):
        _, events = engine.step(before, move)
        values: list[Any] = [after, move, engine.legal_moves(after), engine.scores(after, None)]
        values += [[event_view(e, None, True) for e in events], [event_view(e, None, False) for e in events]]
        if i % 5 == 0:
            for seat in (None, *range(engine.players(after))):
                values += [engine.view(after, seat), engine.scores(after, seat), [event_view(e, seat, False) for e in events]]
        for value in values:
            assert _same(to_wire(value), reference_wire(value)), f"{game} step {i}: {value!r}"
            checked += 1
    assert checked > 50


@pytest.mark.parametrize("game", GAMES)
def test_packed_form_is_the_plain_positional_form_and_round_trips(game: str) -> None:
    codec = SCHEMAS[game]
    for _, _, after in _matches(game)[::3]:
        packed = codec.pack(after)
        assert packed["f"] == codec.packer.sealed_as
        assert _same(packed["s"], reference_pack(after))
        assert codec.unpack(json.loads(json.dumps(packed))) == after


def test_unpack_refuses_what_it_did_not_pack() -> None:
    codec = SCHEMAS["schnapsen"]
    state = _matches("schnapsen")[5][0]
    good = json.loads(json.dumps(codec.pack(state)))
    for bad in (
        {**good, "f": "0" * 16},
        {"f": good["f"], "s": good["s"][:-1]},
        {"f": good["f"], "s": [*good["s"], 1]},
        {"f": good["f"], "s": 7},
        [good],
    ):
        with pytest.raises(ValueError, match="not a packed schnapsen state"):
            codec.unpack(bad)
    hands = good["s"][codec.engine.State._fields.index("hands")]
    hands[0][0] = "ZZ"
    with pytest.raises(ValueError, match="not a packed schnapsen state"):
        codec.unpack(good)


def test_values_of_other_types_get_the_same_rules() -> None:
    class Colour(Enum):
        RED = "red"

    class Score(int):
        pass

    @dataclasses.dataclass
    class Note:
        text: str
        hidden: int = dataclasses.field(default=0, metadata={"wire": False})

    odd = {1: Colour.RED, "s": Score(5), "n": Note("hi"), "f": frozenset({Card.parse("AS")}), "t": (True, 1.5, None)}
    assert _same(to_wire(odd), reference_wire(odd))
    with pytest.raises(TypeError, match="no wire form for object"):
        to_wire([object()])
