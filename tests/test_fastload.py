"""The compiled load plans (service/schemas/fields.py, ``FastSchema``) agree with marshmallow, input for input.

Every game's states from seeded random matches, and thousands of mutations of them (values of the
wrong type, out of range, null, missing, unknown keys, lists too long or too short, cards of
another pack), are loaded twice: through the plans, and through marshmallow alone (plans switched
off). Both must give the same state, or the same refusal with the same field paths and messages.
The request schemas get the same treatment. A test also pins that the hot schemas have a plan at
all, so a change that silently sends them back to the slow path is noticed.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from service.engines import ENGINES
from service.engines.base import InvalidState
from service.schemas import SCHEMAS
from service.schemas import fields as fastload
from service.schemas.common import MoveRequest, NewRequest, ReplayRequest, StateRequest
from tests.playouts import random_playout

GAMES = sorted(SCHEMAS)


def _loader(game: str) -> Callable[[Any], Any]:
    """The game's state loader, shape only (what the plans compile)."""
    return lambda wire: SCHEMAS[game].load_state(wire, check=False)
ODD_VALUES: tuple[Any, ...] = (
    None, True, False, 0, 1, -1, 2, 7, 66, 2**31, 2**53, -(2**53), 1.5, 0.0, "", "x", "AS", "10H", "QS/a",
    "S", "H", "play", [], [None], ["AS"], ["AS", "AS"], [0, 0], [[], []], {}, {"x": 1},
)


def _states(game: str, seeds: range = range(3)) -> list[Any]:
    engine = ENGINES[game]
    out = []
    for players in engine.PLAYER_COUNTS[:2]:
        for seed in seeds:
            steps = list(random_playout(engine, players, seed=seed, max_moves=400))
            picks = {0, len(steps) // 3, len(steps) // 2, len(steps) - 1}
            out += [steps[i][0] for i in sorted(picks) if i >= 0]
            if steps:
                out.append(steps[-1][2])
    return out


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*prefix, i))


def _mutants(wire: dict[str, Any], rng: random.Random, count: int) -> Iterator[Any]:
    paths = [p for p in _paths(wire) if p]
    for _ in range(count):
        mutant = copy.deepcopy(wire)
        for _ in range(rng.choice((1, 1, 1, 2))):
            path = rng.choice(paths)
            parent = mutant
            try:
                for step in path[:-1]:
                    parent = parent[step]
                last = path[-1]
                current = parent[last]
            except (KeyError, IndexError, TypeError):
                continue
            if not isinstance(parent, (dict, list)):
                continue
            action = rng.randrange(8)
            if action == 0 and isinstance(parent, dict):
                del parent[last]
            elif action == 1 and isinstance(parent, dict):
                parent[f"extra_{rng.randrange(3)}"] = current
            elif action == 2 and isinstance(current, list) and current:
                current.pop(rng.randrange(len(current)))
            elif action == 3 and isinstance(current, list):
                current.append(copy.deepcopy(current[0]) if current else rng.choice(ODD_VALUES))
            elif action == 4 and isinstance(current, int) and not isinstance(current, bool):
                parent[last] = current + rng.choice((-1, 1, 1000, -1000, 2**40))
            else:
                parent[last] = copy.deepcopy(rng.choice(ODD_VALUES))
        yield mutant


def _outcome(load: Callable[[Any], Any], data: Any) -> tuple[str, Any]:
    try:
        return "ok", load(data)
    except InvalidState as exc:
        return "invalid_state", (exc.code, exc.detail, exc.errors)
    except Exception as exc:  # noqa: BLE001 - the same exception, whatever it is, on both paths
        messages = getattr(exc, "messages", None)
        return type(exc).__name__, (str(exc), messages)


@pytest.fixture
def no_plans(monkeypatch: pytest.MonkeyPatch) -> Callable[[Callable[[], Any]], Any]:
    """Run a callable with every plan switched off: marshmallow alone."""

    def run(fn: Callable[[], Any]) -> Any:
        with monkeypatch.context() as m:
            m.setattr(fastload, "_plan_of", lambda schema: None)
            return fn()

    return run


@pytest.mark.parametrize("game", GAMES)
def test_every_state_schema_and_request_schema_has_a_plan(game: str) -> None:
    module = SCHEMAS[game].module
    assert fastload.has_plan(module.STATE), f"{game}: the state schema fell back to marshmallow"
    for schema in (MoveRequest(), StateRequest(), NewRequest(), ReplayRequest()):
        assert fastload.has_plan(schema)


@pytest.mark.parametrize("game", GAMES)
def test_valid_states_load_the_same_both_ways(game: str, no_plans: Any) -> None:
    load_state = _loader(game)
    for state in _states(game):
        wire = SCHEMAS[game].dump_state(state)
        fast = load_state(wire)
        slow = no_plans(lambda w=wire: load_state(w))
        assert fast == slow == state


@pytest.mark.parametrize("game", GAMES)
def test_mutated_states_are_refused_or_loaded_the_same_both_ways(game: str, no_plans: Any) -> None:
    load_state = _loader(game)
    rng = random.Random(f"fastload-{game}")
    states = _states(game, range(1))
    seen = {"ok": 0, "refused": 0}
    for state in states:
        wire = SCHEMAS[game].dump_state(state)
        for mutant in _mutants(wire, rng, 60):
            fast = _outcome(load_state, mutant)
            slow = no_plans(lambda m=mutant: _outcome(load_state, m))
            assert fast == slow, f"{game}: plan and marshmallow disagree on {mutant!r}"
            seen["ok" if fast[0] == "ok" else "refused"] += 1
    assert seen["refused"] > seen["ok"] > 0  # the mutations reach both outcomes


def test_request_schemas_agree_with_marshmallow(no_plans: Any) -> None:
    rng = random.Random("fastload-requests")
    bodies: list[tuple[Any, dict[str, Any]]] = [
        (MoveRequest(), {"state": {"a": 1}, "move": {"type": "play"}, "expected_seq": 3}),
        (MoveRequest(), {"token": "abc", "move": {}}),
        (StateRequest(), {"token": "t"}),
        (NewRequest(), {"players": 2, "options": {}, "seed": 5, "deck": ["AS"]}),
        (ReplayRequest(), {"seed": 1, "moves": [{"type": "play"}], "players": 2}),
    ]
    for schema, body in bodies:
        assert schema.load(body) == no_plans(lambda s=schema, b=body: s.load(b))
        for mutant in _mutants(body, rng, 300):
            fast = _outcome(schema.load, mutant)
            slow = no_plans(lambda s=schema, m=mutant: _outcome(s.load, m))
            assert fast == slow, f"{type(schema).__name__}: plan and marshmallow disagree on {mutant!r}"
        for odd in ODD_VALUES:
            assert _outcome(schema.load, odd) == no_plans(lambda s=schema, o=odd: _outcome(s.load, o))


def test_a_refused_state_keeps_marshmallows_messages() -> None:
    load_state = _loader("schnapsen")
    wire = SCHEMAS["schnapsen"].dump_state(_states("schnapsen", range(1))[1])
    wire["hands"][0] = ["AS", "XX"]
    wire["deal_number"] = True
    with pytest.raises(InvalidState) as caught:
        load_state(wire)
    assert caught.value.errors == {"deal_number": ["Not a valid integer."], "hands.0.1": ["Not a card of this game's pack."]}


def test_plans_follow_marshmallow_on_the_less_common_declarations(no_plans: Any) -> None:
    from marshmallow import ValidationError, fields, validate

    from service.schemas.fields import FastSchema, StrictInt

    class Inner(FastSchema):
        x = StrictInt(required=True)
        y = StrictInt(validate=lambda v: v != 3)  # a plain function refuses by returning False

    inner = Inner()
    inner.load({"x": 1})  # the instance's own plan is compiled first

    class Outer(FastSchema):
        narrowed = fields.Nested(inner, only=("x",))  # marshmallow copies the instance, then narrows it
        when = fields.Date()  # a field type plans do not know: it loads itself
        tags = fields.List(fields.String(), validate=validate.Length(max=2), load_default=list)

    outer = Outer()
    assert fastload.has_plan(outer)
    for data in (
        {"narrowed": {"x": 1}, "when": "2026-12-01"},
        {"narrowed": {"x": 1, "y": 2}},
        {"narrowed": {"x": 1}, "when": "not a date"},
        {"narrowed": {"x": 1}, "tags": ["a", "b", "c"]},
        {"narrowed": {"x": 1}, "tags": ["a", None]},
        {"narrowed": None},
    ):
        assert _outcome(outer.load, data) == no_plans(lambda d=data: _outcome(outer.load, d))
    assert _outcome(inner.load, {"x": 1, "y": 3}) == no_plans(lambda: _outcome(inner.load, {"x": 1, "y": 3}))
    with pytest.raises(ValidationError):
        outer.load({"narrowed": {"x": 1, "y": 2}})
    assert outer.load({"narrowed": {"x": 1}})["tags"] == []
