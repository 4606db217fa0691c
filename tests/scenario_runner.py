"""Replay the specs' worked examples (``tests/scenarios/<game_id>/*.yaml``) through an engine.

A scenario is data in wire form (STYLE.md B6): ``players``, ``options``, ``deck`` (top first) and
``steps``; each step is ``{"move": {...}}`` and/or ``{"expect": {...}}`` (the checks apply to the
current position, before the step's move). ``base: <file>`` means "first run all steps of that
file" and inherits its ``players``/``options``/``deck`` unless the scenario sets them.

``load_scenarios`` resolves ``base``, so every runner (this engine runner, the HTTP runner) gets
self-contained scenarios. ``run_engine`` replays one through the engine with a small wire codec:
the real one from ``service.schemas`` when it exists, else the converter below.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from enum import Enum
from pathlib import Path
from typing import Any

import yaml

from service.cards import BadCard, Card, Suit
from service.engines import find
from service.engines.base import BadMove, IllegalMove, is_listed

__all__ = ["SCENARIO_ROOT", "game_ids", "load_scenarios", "run_engine", "to_wire", "EngineCodec", "codec_for"]

SCENARIO_ROOT = Path(__file__).parent / "scenarios"
EXPECT_KEYS = frozenset({"legal", "refused", "state", "status", "scores", "winner"})


# --- loading ----------------------------------------------------------------------------------


def game_ids() -> list[str]:
    """Every game folder under tests/scenarios/ that holds scenario files."""
    return sorted(p.name for p in SCENARIO_ROOT.iterdir() if p.is_dir() and any(p.glob("*.yaml")))


def load_scenarios(game_id: str) -> list[tuple[str, dict[str, Any]]]:
    """(file name, scenario) pairs of one game, sorted by name, with ``base`` resolved.

    Files that hold no ``steps`` (e.g. a future ``perft.yaml``) are skipped.
    """
    folder = SCENARIO_ROOT / game_id
    out = []
    for path in sorted(folder.glob("*.yaml")):
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        if not isinstance(raw, dict) or "steps" not in raw:
            continue
        scenario = _resolve(folder, path.name, ())
        scenario.setdefault("game", game_id)
        out.append((path.name, scenario))
    return out


def _resolve(folder: Path, name: str, seen: tuple[str, ...]) -> dict[str, Any]:
    if name in seen:
        raise ValueError(f"scenario base cycle: {' -> '.join((*seen, name))}")
    raw = yaml.safe_load((folder / name).read_text(encoding="utf-8"))
    base_name = raw.pop("base", None)
    if base_name is None:
        raw.setdefault("players", 2)
        raw.setdefault("options", {})
        return raw
    base = _resolve(folder, base_name, (*seen, name))
    scenario = dict(raw)
    for key in ("players", "options", "deck"):
        scenario.setdefault(key, base.get(key))
    scenario["steps"] = list(base["steps"]) + list(raw.get("steps", []))
    scenario["based_on"] = [*base.get("based_on", []), base_name]
    return scenario


# --- wire conversion --------------------------------------------------------------------------


def to_wire(obj: Any) -> Any:
    """A JSON-like rendering of engine values: cards as strings, enums as values, tuples as lists."""
    if obj is None or isinstance(obj, (bool, int, float)):
        return obj
    if isinstance(obj, Card):  # a NamedTuple itself: test it first
        return str(obj)
    if isinstance(obj, Enum):
        return obj.value
    if isinstance(obj, str):
        return obj
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return {f: to_wire(getattr(obj, f)) for f in obj._fields}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out: dict[str, Any] = {}
        move_type = getattr(obj, "TYPE", None)
        if move_type is not None:
            out["type"] = move_type
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            if move_type is not None and value is None:
                continue  # optional move fields (next_deal's deck) are omitted on the wire
            out[f.name] = to_wire(value)
        return out
    if isinstance(obj, Mapping):
        return {str(to_wire(k)): to_wire(v) for k, v in obj.items()}
    if isinstance(obj, (tuple, list, frozenset, set)):
        items = [to_wire(x) for x in obj]
        return sorted(items, key=_canon) if isinstance(obj, (set, frozenset)) else items
    raise TypeError(f"no wire form for {obj!r}")


def _canon(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True)


class EngineCodec:
    """The runner's own wire codec: full state with derived values, moves to and from dicts."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def dump_state(self, state: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"game": self.engine.GAME_ID, "rules_version": self.engine.RULES_VERSION}
        out.update(to_wire(state))
        if self.engine.GAME_ID == "schnapsen":  # §5.1: the trick as [{player: leader, card}]
            out["trick"] = [{"player": state.leader, "card": str(c)} for c in state.trick]
        derived = getattr(self.engine, "derived", None)
        if derived is not None:
            out.update(to_wire(derived(state)))
        return out

    def load_options(self, wire: Mapping[str, Any]) -> Any:
        return self.engine.Options(**wire)

    def dump_move(self, move: Any) -> dict[str, Any]:
        return to_wire(move)  # type: ignore[no-any-return]

    def load_move(self, wire: Any) -> Any:
        """Engine move, or BadMove carrying the first parse problem (invalid_move … invalid_card)."""
        if not isinstance(wire, Mapping):
            return BadMove("invalid_move", "a move is an object")
        move_type = wire.get("type")
        player = wire.get("player")
        ok_player = isinstance(player, int) and not isinstance(player, bool) and 0 <= player < 16
        seat = player if ok_player else None
        classes = getattr(self.engine, "MOVE_CLASSES", {})
        if not isinstance(move_type, str) or move_type not in classes:
            return BadMove("unknown_move_type", f"unknown move type {move_type!r}", None, seat)
        cls = classes[move_type]
        names = {f.name for f in dataclasses.fields(cls)}
        kwargs: dict[str, Any] = {}
        problem: tuple[str, str] | None = None
        for name in names - {"player"}:
            if name not in wire:
                if name == "deck":
                    continue
                problem = problem or ("invalid_move", f"missing field {name!r}")
                continue
            value = wire[name]
            try:
                if name == "card":
                    kwargs[name] = _card(value)
                elif name == "suit":
                    if value not in {s.value for s in Suit}:
                        raise ValueError(f"bad suit {value!r}")
                    kwargs[name] = Suit(value)
                elif name == "deck":
                    if not isinstance(value, list):
                        raise ValueError("deck must be a list")
                    kwargs[name] = tuple(_card(v) for v in value)
                else:
                    kwargs[name] = value
            except BadCard as exc:
                problem = problem or ("invalid_card", str(exc))
            except ValueError as exc:
                problem = problem or ("invalid_move", str(exc))
        if problem is not None and problem[0] == "invalid_move":
            return BadMove(problem[0], problem[1], move_type, seat)
        if not ok_player:
            return BadMove("invalid_player", f"bad player {player!r}", move_type, None)
        if problem is not None:
            return BadMove(problem[0], problem[1], move_type, seat)
        return cls(player=player, **kwargs)


def _card(value: Any) -> Card:
    if not isinstance(value, str):
        raise BadCard(f"{value!r} is not a card")
    return Card.parse(value)


def codec_for(engine: Any, players: int = 2) -> Any:
    """The real wire codec ``service.schemas.SCHEMAS[game_id]`` when it exists, else EngineCodec."""
    try:
        from service.schemas import SCHEMAS
    except ImportError:  # the edge's codecs are not written yet
        return EngineCodec(engine)
    schema = SCHEMAS.get(engine.GAME_ID)
    if schema is None:
        return EngineCodec(engine)
    return _SchemaCodec(engine, schema, players)


class _SchemaCodec(EngineCodec):
    """Adapter over ``service.schemas.GameCodec`` (``load_move(data, players)``, ``dump``)."""

    def __init__(self, engine: Any, schema: Any, players: int) -> None:
        super().__init__(engine)
        self.schema = schema
        self.players = players

    def load_options(self, wire: Mapping[str, Any]) -> Any:
        return self.schema.load_options(dict(wire))

    def dump_state(self, state: Any) -> dict[str, Any]:
        return json.loads(json.dumps(self.schema.dump_state(state), default=to_wire))  # type: ignore[no-any-return]

    def dump_move(self, move: Any) -> dict[str, Any]:
        return self.schema.dump(move)  # type: ignore[no-any-return]

    def load_move(self, wire: Any) -> Any:
        return self.schema.load_move(wire, self.players)


# --- replay -----------------------------------------------------------------------------------


def run_engine(scenario: Mapping[str, Any]) -> Any:
    """Replay ``scenario`` through its engine; AssertionError names the failing step. Returns the final state."""
    engine = find(scenario["game"])
    players = scenario.get("players", 2)
    codec = codec_for(engine, players)
    deck = tuple(Card.parse(c) for c in scenario["deck"])
    state = engine.new_game(codec.load_options(scenario.get("options") or {}), players, deck)
    for index, step in enumerate(scenario["steps"]):
        where = f"{scenario.get('title', '?')}: step {index}"
        unknown = set(step) - {"move", "expect", "note"}
        assert not unknown, f"{where}: unknown step keys {sorted(unknown)}"
        if "expect" in step:
            _check_expect(engine, codec, state, step["expect"], where)
        if "move" in step:
            move = codec.load_move(step["move"])
            legal = engine.legal_moves(state)
            assert is_listed(move, legal), (
                f"{where}: {step['move']} is not listed; legal = {[codec.dump_move(m) for m in legal]}"
            )
            try:
                state = engine.apply(state, move)
            except IllegalMove as exc:
                raise AssertionError(f"{where}: {step['move']} refused with {exc.code}: {exc.detail}") from None
    return state


def _check_expect(engine: Any, codec: Any, state: Any, expect: Mapping[str, Any], where: str) -> None:
    unknown = set(expect) - EXPECT_KEYS
    assert not unknown, f"{where}: unknown expect keys {sorted(unknown)}"
    if "legal" in expect:
        got = sorted(_canon(codec.dump_move(m)) for m in engine.legal_moves(state))
        want = sorted(_canon(m) for m in expect["legal"])
        assert got == want, f"{where}: legal moves\n  got  {got}\n  want {want}"
    for refusal in expect.get("refused", []):
        move = codec.load_move(refusal["move"])
        try:
            after = engine.apply(state, move)
        except IllegalMove as exc:
            assert exc.code == refusal["code"], f"{where}: {refusal['move']} refused with {exc.code}, want {refusal['code']}"
        else:
            raise AssertionError(f"{where}: {refusal['move']} accepted (seq {getattr(after, 'seq', '?')}), want {refusal['code']}")
        if refusal["code"] != "game_over":
            assert not is_listed(move, engine.legal_moves(state)), f"{where}: refused move {refusal['move']} is listed"
    if "state" in expect:
        _assert_subset(codec.dump_state(state), expect["state"], f"{where}: state")
    if "status" in expect:
        assert engine.status(state) == expect["status"], f"{where}: status {engine.status(state)!r}, want {expect['status']!r}"
    if "scores" in expect:
        _assert_subset(to_wire(engine.scores(state)), expect["scores"], f"{where}: scores")
    if "winner" in expect:
        outcome = engine.outcome(state)
        winner = None if outcome is None else sorted(outcome.winners)
        assert winner == expect["winner"], f"{where}: winner {winner}, want {expect['winner']}"


def _assert_subset(got: Any, want: Any, path: str) -> None:
    """Dicts: every key of ``want`` is in ``got`` with a matching value (recursively); else equality."""
    if isinstance(want, Mapping):
        assert isinstance(got, Mapping), f"{path}: got {got!r}, want an object"
        for key, value in want.items():
            assert key in got, f"{path}.{key}: missing (have {sorted(got)})"
            _assert_subset(got[key], value, f"{path}.{key}")
        return
    assert got == want, f"{path}: got {got!r}, want {want!r}"
