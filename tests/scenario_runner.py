"""Replay the specs' worked examples (``tests/scenarios/<game_id>/*.yaml``) through an engine.

A scenario is data in wire form: ``players``, ``options``, ``deck`` (top first) or
``state`` (a start position in wire form, for specs whose examples give positions), ``seed`` (when
the game keeps it, e.g. for in-game shuffles) and ``steps``; each step is ``{"move": {...}}`` and/or ``{"expect": {...}}`` (the checks apply to the
current position, before the step's move). ``base: <file>`` means "first run all steps of that
file" and inherits its ``players``/``options``/``deck`` unless the scenario sets them. An optional
``position`` (wire-form state fields, e.g. ``{"scores": [150, 140]}``) is laid over the dealt state
before the first step, for a spec example given as an explicit position; it is a plain state, so
only the engine and open-mode HTTP replay it (sealed mode refuses plain states).

``load_scenarios`` resolves ``base``, so every runner (this engine runner, the HTTP runner) gets
self-contained scenarios. ``run_engine`` replays one through the engine (with the real wire codec
of ``service.schemas``); ``run_http`` replays it through the HTTP API, open or sealed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from service.cards import Card
from service.engines import find
from service.engines.base import IllegalMove, is_listed
from service.schemas import SCHEMAS
from tests.contract import YAML_LOADER

__all__ = ["SCENARIO_ROOT", "game_ids", "load_scenarios", "run_engine", "run_http"]

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
        raw = yaml.load(path.read_text(encoding="utf-8"), Loader=YAML_LOADER)
        if not isinstance(raw, dict) or "steps" not in raw:
            continue
        scenario = _resolve(folder, path.name, ())
        scenario.setdefault("game", game_id)
        out.append((path.name, scenario))
    return out


def _resolve(folder: Path, name: str, seen: tuple[str, ...]) -> dict[str, Any]:
    if name in seen:
        raise ValueError(f"scenario base cycle: {' -> '.join((*seen, name))}")
    raw = yaml.load((folder / name).read_text(encoding="utf-8"), Loader=YAML_LOADER)
    base_name = raw.pop("base", None)
    if base_name is None:
        raw.setdefault("players", 2)
        raw.setdefault("options", {})
        return raw
    base = _resolve(folder, base_name, (*seen, name))
    scenario = dict(raw)
    for key in ("players", "options", "deck", "state", "seed"):
        scenario.setdefault(key, base.get(key))
    if "position" in base:
        scenario.setdefault("position", base["position"])
    scenario["steps"] = list(base["steps"]) + list(raw.get("steps", []))
    scenario["based_on"] = [*base.get("based_on", []), base_name]
    return scenario


# --- wire conversion --------------------------------------------------------------------------


def _canon(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True)


class _Codec:
    """The real wire codec (``service.schemas``) bound to a player count."""

    def __init__(self, game_id: str, players: int) -> None:
        self.schema = SCHEMAS[game_id]
        self.players = players

    def load_options(self, wire: Mapping[str, Any]) -> Any:
        return self.schema.load_options(dict(wire))

    def dump_state(self, state: Any) -> dict[str, Any]:
        return self.schema.dump_state(state)

    def dump_move(self, move: Any) -> dict[str, Any]:
        return self.schema.dump(move)  # type: ignore[no-any-return]

    def load_move(self, wire: Any) -> Any:
        return self.schema.load_move(wire, self.players)


# --- replay -----------------------------------------------------------------------------------


def run_engine(scenario: Mapping[str, Any]) -> Any:
    """Replay ``scenario`` through its engine; AssertionError names the failing step. Returns the final state."""
    engine = find(scenario["game"])
    players = scenario.get("players", 2)
    codec = _Codec(engine.GAME_ID, players)
    if scenario.get("state") is not None:
        state = codec.schema.load_state(scenario["state"])
    else:
        deck = tuple(Card.parse(c) for c in scenario["deck"])
        state = engine.new_game(codec.load_options(scenario.get("options") or {}), players, deck, scenario.get("seed"))
    if "position" in scenario:  # fields laid over the dealt state (e.g. running scores)
        state = codec.schema.load_state({**codec.dump_state(state), **scenario["position"]})
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
        _assert_subset(codec.schema.dump(engine.scores(state)), expect["scores"], f"{where}: scores")
    if "winner" in expect:
        outcome = engine.outcome(state)
        winner = None if outcome is None else sorted(outcome.winners)
        assert winner == expect["winner"], f"{where}: winner {winner}, want {expect['winner']}"


def _assert_subset(got: Any, want: Any, path: str) -> None:
    """Dicts: every key of ``want`` is in ``got`` with a matching value (recursively); a list that
    holds objects: the same length, element by element; else equality."""
    if isinstance(want, Mapping):
        assert isinstance(got, Mapping), f"{path}: got {got!r}, want an object"
        for key, value in want.items():
            assert key in got, f"{path}.{key}: missing (have {sorted(got)})"
            _assert_subset(got[key], value, f"{path}.{key}")
        return
    if isinstance(want, list) and any(isinstance(w, Mapping) for w in want):
        assert isinstance(got, list) and len(got) == len(want), f"{path}: got {got!r}, want {want!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            _assert_subset(g, w, f"{path}.{i}")
        return
    assert got == want, f"{path}: got {got!r}, want {want!r}"


# --- through HTTP -----------------------------------------------------------------------------


def run_http(client: Any, scenario: Mapping[str, Any], sealed: bool = False) -> dict[str, Any]:
    """Replay ``scenario`` through the HTTP API; returns the final envelope.

    Open mode checks everything the engine runner checks (the full state is in the envelope).
    Sealed mode plays with the table key and checks what views show: legal lists (``?as=`` the
    seat to move), refusals, status, scores and winner; the full-state subsets are not visible.
    """
    base = f"/v1/games/{scenario['game']}"
    if scenario.get("state") is not None or "position" in scenario:
        env, headers = _start_from_position(client, {**scenario, "state": _start_state(scenario)}, sealed)
    else:
        body = {"players": scenario.get("players", 2), "options": scenario.get("options") or {}, "deck": scenario["deck"]}
        if scenario.get("seed") is not None:
            body["seed"] = scenario["seed"]
        r = client.post(f"{base}/new", json=body)
        assert r.status_code == 201, r.json
        env = r.json
        headers = {"X-Seat-Key": env["table_key"]} if sealed else {}

    def source(e: Mapping[str, Any]) -> dict[str, Any]:
        return {"token": e["token"]} if sealed else {"state": e["state"]}

    for index, step in enumerate(scenario["steps"]):
        where = f"{scenario.get('title', '?')} (HTTP{' sealed' if sealed else ''}): step {index}"
        expect = step.get("expect", {})
        if "legal" in expect:
            got: list[str] = []
            if sealed:  # every seat's view lists that seat's moves (claims are open to seats not to move)
                for seat in range(scenario.get("players", 2)):
                    seen = client.post(f"{base}/state?as={seat}", json=source(env), headers=headers).json
                    got += [_canon(m) for m in seen["legal_moves"]]
            else:
                got = [_canon(m) for m in env["legal_moves"]]
            want = sorted(_canon(m) for m in expect["legal"])
            assert sorted(got) == want, f"{where}: legal moves\n  got  {sorted(got)}\n  want {want}"
        for refusal in expect.get("refused", []):
            r = client.post(f"{base}/moves", json={**source(env), "move": refusal["move"]}, headers=headers)
            assert r.status_code == 422 and r.json["code"] == refusal["code"], f"{where}: {refusal['move']} → {r.json}"
            c = client.post(f"{base}/check", json={**source(env), "move": refusal["move"]}, headers=headers)
            assert c.json["legal"] is False and c.json["error"]["code"] == refusal["code"], f"{where}: check {c.json}"
        if "state" in expect and not sealed:
            _assert_subset(env["state"], expect["state"], f"{where}: state")
        if "status" in expect:
            assert env["status"] == expect["status"], f"{where}: status {env['status']!r}"
        if "scores" in expect:
            _assert_subset(env["scores"], expect["scores"], f"{where}: scores")
        if "winner" in expect:
            assert env["winner"] == expect["winner"], f"{where}: winner {env['winner']}"
        if "move" in step:
            r = client.post(f"{base}/moves", json={**source(env), "move": step["move"]}, headers=headers)
            assert r.status_code == 200, f"{where}: {step['move']} → {r.json}"
            env = r.json
    return env


def _start_state(scenario: Mapping[str, Any]) -> Any:
    """The wire start state of a scenario that gives one: its ``state``, or the state dealt from
    its ``deck`` with its ``position`` fields laid over."""
    if scenario.get("state") is not None and "position" not in scenario:
        return scenario["state"]
    engine, codec = find(scenario["game"]), SCHEMAS[scenario["game"]]
    players = scenario.get("players", 2)
    if scenario.get("state") is not None:
        state = codec.schema.load_state(scenario["state"])
    else:
        deck = tuple(Card.parse(c) for c in scenario["deck"])
        state = engine.new_game(codec.load_options(scenario.get("options") or {}), players, deck, scenario.get("seed"))
    return {**codec.dump_state(state), **scenario["position"]}


def _start_from_position(client: Any, scenario: Mapping[str, Any], sealed: bool) -> tuple[dict[str, Any], dict[str, str]]:
    """The envelope of a scenario's start position: sent as is in open mode; sealed mode has no way
    to submit a plain state, so the runner mints the token as the service would (with the app's own
    sealer, acting as the host that holds the table key) and asks ``/state`` for the envelope."""
    base = f"/v1/games/{scenario['game']}"
    if not sealed:
        r = client.post(f"{base}/state", json={"state": scenario["state"]})
        assert r.status_code == 200, r.json
        return r.json, {}
    from service.sealing import TABLE

    codec = SCHEMAS[scenario["game"]]
    sealer = client.application.extensions["referee.sealer"]
    match_id = "scenario-position"
    token = sealer.seal(scenario["game"], match_id, codec.pack(codec.load_state(scenario["state"])))
    headers = {"X-Seat-Key": sealer.seat_key(match_id, TABLE)}
    r = client.post(f"{base}/state", json={"token": token}, headers=headers)
    assert r.status_code == 200, r.json
    return {**r.json, "token": token}, headers
