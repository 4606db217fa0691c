"""The contract's ``<Game>State`` is the state loader's own (``service/schemas/loaded.py``).

Every bound the contract states for a posted state (an integer's ``minimum``/``maximum``, a list's
``minItems``/``maxItems``), the loader enforces, and the other way round: states of a seeded random
match, each pushed one step past a bound at every place the contract bounds it, are refused by the
contract's schema and by the loader alike; the states themselves pass both. Members the loader
declares unchecked (derived values, ``metadata["contract"]``) are skipped: the contract describes
what responses carry there and the loader ignores them on input.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from marshmallow import Schema, fields

from service.engines import ENGINES
from service.engines.base import InvalidState
from service.schemas import SCHEMAS
from service.schemas.loaded import Loaded
from service.schemas.moves import Wire
from tests.contract import SPEC, is_valid, validator_at
from tests.playouts import random_playout

GAMES = sorted(g for g, codec in SCHEMAS.items() if codec.module.CONTRACT.state is not None)
_REF = "#/components/schemas/"
Path = tuple[str | int, ...]


def _states(game: str) -> list[Any]:
    """A few states of one seeded random match, from the deal to the end, as JSON."""
    engine = ENGINES[game]
    steps = list(random_playout(engine, engine.DEFAULT_PLAYERS, seed=11, max_moves=400))
    picked = [steps[0][0]] + [after for _, _, after in steps[:: max(1, len(steps) // 5)]] + [steps[-1][2]]
    return [json.loads(json.dumps(SCHEMAS[game].dump_state(s))) for s in picked]


def _deref(node: Any, components: dict[str, Any]) -> Any:
    while isinstance(node, dict) and "$ref" in node:
        node = components[node["$ref"].removeprefix(_REF)]
    return node


def _inner(f: Any, key: str | int) -> Any:
    """The loader's field for a member (``key`` a name) or an item (an index), where it is known."""
    if isinstance(f, Schema):
        return f.fields.get(str(key))
    if isinstance(f, fields.Nested) and isinstance(f.nested, type):
        inner = f.nested()
        return inner if not f.many else fields.Nested(f.nested)
    if isinstance(f, fields.List) and isinstance(key, int):
        return f.inner
    if isinstance(f, fields.Nested) and isinstance(f.schema, Schema):
        return f.schema.fields.get(str(key))
    return None


def _unchecked(f: Any) -> bool:
    return isinstance(f, fields.Field) and "contract" in f.metadata


def _sites(node: Any, value: Any, path: Path, f: Any, components: dict[str, Any]) -> Iterator[tuple[Path, Any]]:
    """(path, an out-of-bounds replacement) for every bound the contract states at ``value``."""
    if _unchecked(f):
        return
    node = _deref(node, components)
    if "anyOf" in node:
        if value is None:
            return
        node = _deref(next(b for b in node["anyOf"] if b != {"type": "null"}), components)
    if isinstance(f, fields.Nested) and isinstance(f.nested, type) and isinstance(value, dict):
        f = f.nested()
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        if "maximum" in node:
            yield path, node["maximum"] + 1
        if "minimum" in node:
            yield path, node["minimum"] - 1
    elif isinstance(value, list):
        if "maxItems" in node and value:
            yield path, value + [value[-1]] * (node["maxItems"] + 1 - len(value))
        if node.get("minItems", 0) > 0:
            yield path, value[: node["minItems"] - 1]
        items = node.get("items")
        if items is not None:
            for i, item in enumerate(value[:2]):
                yield from _sites(items, item, (*path, i), _inner(f, i), components)
    elif isinstance(value, dict):
        for key, inner in node.get("properties", {}).items():
            if key in value:
                yield from _sites(inner, value[key], (*path, key), _inner(f, key), components)


def _replaced(data: Any, path: Path, new: Any) -> Any:
    out = copy.deepcopy(data)
    at = out
    for key in path[:-1]:
        at = at[key]
    at[path[-1]] = new
    return out


def _loads(game: str, data: Any) -> bool:
    try:
        SCHEMAS[game].load_state(data, check=False)
    except InvalidState:
        return False
    return True


@pytest.mark.parametrize("game", GAMES)
def test_every_bound_the_contract_states_the_loader_enforces(game: str) -> None:
    components = SPEC["components"]["schemas"]  # the committed contract (the drift test pins it to the declarations)
    prefix = SCHEMAS[game].moves.prefix
    validator = validator_at(f"/components/schemas/{prefix}State")
    loader = SCHEMAS[game].module.STATE
    tried: set[tuple[Path, str]] = set()
    for data in _states(game):
        assert is_valid(validator, data) and _loads(game, data), game
        for path, new in _sites(components[prefix + "State"], data, (), loader, components):
            shape = (tuple(k if isinstance(k, str) else "#" for k in path), type(new).__name__)
            if (shape, json.dumps(new)) in tried:
                continue
            tried.add((shape, json.dumps(new)))
            bad = _replaced(data, path, new)
            assert not is_valid(validator, bad), (game, path, new, "the contract allows it")
            assert not _loads(game, bad), (game, path, new, "the loader allows it")
    assert len(tried) >= 10, (game, "too few bounds tried", len(tried))


def test_a_field_the_converter_cannot_read_is_an_error_not_a_guess() -> None:
    class Odd(Schema):
        anything = fields.Raw(required=True)

    loaded = Loaded("Odd", Wire({"type": "string"}, name="OddCard"), Wire({"type": "integer"}, name="OddSeat"))
    with pytest.raises(TypeError, match="'anything' has no contract"):
        loaded.state(Odd())


def test_nullable_described_and_named_fields() -> None:
    from marshmallow import validate

    from service.schemas.fields import SeatField, StrictInt

    class Inner(Schema):
        WIRE_NAME = "OddPart"
        WIRE_DESCRIPTION = "A part."
        n = StrictInt(required=True, validate=validate.Range(0, 3), metadata={"description": "Count."})

    class Outer(Schema):
        WIRE_DESCRIPTION = "The whole."
        part = fields.Nested(Inner, allow_none=True, required=True)
        seat = SeatField(2)

    seat = Wire({"type": "integer"}, name="OddSeat")
    wire = Loaded("Odd", Wire({"type": "string"}, name="OddCard"), seat).state(Outer())
    assert wire.name == "OddState"
    assert wire.schema["description"] == "The whole." and wire.schema["required"] == ["part"]
    part = wire.schema["properties"]["part"]["anyOf"]
    assert part[1] == {"type": "null"} and part[0].name == "OddPart"
    assert part[0].schema["properties"]["n"] == {"description": "Count.", "type": "integer", "minimum": 0, "maximum": 3}
    assert wire.schema["properties"]["seat"] is seat


@pytest.mark.parametrize("game", sorted(SCHEMAS))
def test_a_move_from_a_state_posted_at_a_counters_bound_answers_within_the_contract(game: str) -> None:
    """Regression: the contract stated the loader's ``seq`` maximum, and a move from a state posted
    with ``seq`` at it answered with one more: a response outside the contract. A counter a move
    advances (``advances`` in its metadata) states its bound in words, not as a ``maximum``."""
    from service import create_app
    from service.examples import example_move
    from tests.contract import assert_conforms

    client = create_app({"SEAL_KEYS": [], "TESTING": True}).test_client()
    env = client.post(f"/v1/games/{game}/new", json={"seed": 7}).json
    state = {**env["state"], "seq": 2**31}
    move = example_move(SCHEMAS[game], env["legal_moves"][0])
    answer = client.post(f"/v1/games/{game}/moves", json={"state": state, "move": move})
    assert answer.status_code == 200, answer.json
    assert answer.json["state"]["seq"] == 2**31 + 1
    assert_conforms("POST", f"/v1/games/{game}/moves", 200, "application/json", answer.json)
