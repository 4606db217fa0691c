#!/usr/bin/env python3
"""Where the CPU time of one move request goes, stage by stage, in open and in sealed mode.

A mid-game Schnapsen ``play`` is sent to the WSGI app in-process (no sockets, no test client: a
prepared WSGI environ, as gunicorn would pass it), and each stage the request goes through is
also run on its own, many times, on the same inputs: JSON parsing, the request schema, state
loading (marshmallow) or unsealing and unpacking, the engine's check and step, the envelope
(engine calls and wire form), packing and sealing, JSON writing. Times are process CPU time
(``time.process_time``), so other busy processes on the machine count less than on a wall clock;
each figure is the fastest of several blocks (the one least disturbed by the rest of the machine;
the median of blocks is noisier on a shared machine). "framework" is what the whole request costs beyond
the stages: Flask, Werkzeug, routing, request ids and metrics.

The JSON rows show the standard library's ``json`` as the HTTP layer uses it today and, when the
tree has ``service/jsonio.py``, the same work through ``jsonio``; "request, jsonio wired" is the
whole request with the JSON stages swapped (what it costs once the HTTP layer calls jsonio).

Before/after in one run: ``--against DIR`` measures another source tree (e.g. an unpacked copy of
the commit before a change) in alternating rounds, each tree in its own subprocess, and prints
both columns side by side. ``--cprofile`` prints cProfile's function shares instead (cProfile
slows Python-heavy code more than C code: read its shares, not its times).

Usage: python3 bench/profile_move.py [--blocks 40] [--per-block 25] [--against DIR] [--rounds 3]
       [--at N] [--cprofile]
Everything is in-process and bounded by the block counts; nothing listens on a socket.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]
GAME = "schnapsen"


def _setup_path(tree: Path) -> None:
    sys.path.insert(0, str(tree))


# --- the request and its stages ----------------------------------------------------------------


def _stdlib_json() -> tuple[Callable[[bytes], Any], Callable[[Any], bytes]]:
    """JSON as the HTTP layer does it without jsonio: bounded integers, no NaN, compact output."""

    def bounded(text: str) -> int:
        value = int(text) if len(text) <= 20 else 2**63
        if not -(2**63) <= value < 2**63:
            raise ValueError("out of range")
        return value

    def constant(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    def loads(raw: bytes) -> Any:
        return json.loads(raw, parse_int=bounded, parse_constant=constant)

    def dumps(obj: Any) -> bytes:
        return json.dumps(obj, separators=(",", ":")).encode()

    return loads, dumps


def _position(at: int | None) -> tuple[Any, Any]:
    """(state, move): the ``at``-th move of a long seeded match, or a play in the middle of one."""
    from service.engines import ENGINES
    from tests.playouts import random_playout

    engine = ENGINES[GAME]
    if at is not None:
        for seed in range(3, 200):
            steps = list(random_playout(engine, engine.DEFAULT_PLAYERS, seed=seed))
            if len(steps) > at:
                before, move, _ = steps[at]
                return before, move
        raise SystemExit(f"no seeded match reaches move {at}")
    steps = list(random_playout(engine, engine.DEFAULT_PLAYERS, seed=3))
    plays = [i for i, (_, m, _) in enumerate(steps) if type(m).__name__ == "Play"]
    before, move, _ = steps[plays[len(plays) // 2]]
    return before, move


def _wsgi_call(app: Any, path: str, raw: bytes, headers: dict[str, str]) -> Callable[[], None]:
    from werkzeug.test import EnvironBuilder

    template = EnvironBuilder(path=path, method="POST", data=raw, content_type="application/json", headers=headers).get_environ()
    statuses: list[str] = []

    def start_response(status: str, _headers: Any, _exc: Any = None) -> None:
        statuses.append(status)

    def call() -> None:
        environ = dict(template)
        environ["wsgi.input"] = io.BytesIO(raw)
        body = app(environ, start_response)
        try:
            for _ in body:
                pass
        finally:
            getattr(body, "close", lambda: None)()
        status = statuses.pop()
        if not status.startswith("200"):
            raise AssertionError(f"the move request answered {status}")

    return call


def _stages(mode: str, at: int | None) -> tuple[Callable[[], None], list[tuple[str, Callable[[], Any]]], dict[str, Any]]:
    """The whole request, and each stage on its own (name, callable), plus facts about the inputs."""
    from cryptography.fernet import Fernet

    from service import create_app
    from service.api.envelope import envelope
    from service.engines import ENGINES
    from service.schemas import SCHEMAS
    from service.schemas.common import MoveRequest, to_wire

    try:
        from service import jsonio  # type: ignore[attr-defined]
    except ImportError:
        jsonio = None
    engine, codec = ENGINES[GAME], SCHEMAS[GAME]
    before, move = _position(at)
    std_loads, std_dumps = _stdlib_json()
    key = Fernet.generate_key().decode()
    app = create_app({"SEAL_KEYS": [key]} if mode == "sealed" else {"SEAL_KEYS": []})
    headers: dict[str, str] = {}
    match_id = "bench-match"
    sealer = app.extensions["referee.sealer"]
    if mode == "sealed":
        body = {"token": sealer.seal(GAME, match_id, codec.pack(before)), "move": to_wire(move)}
        headers["X-Seat-Key"] = sealer.seat_key(match_id, move.player)  # the mover's own key
    else:
        body = {"state": codec.dump_state(before), "move": to_wire(move)}
    raw = json.dumps(body, separators=(",", ":")).encode()
    request = _wsgi_call(app, f"/v1/games/{GAME}/moves", raw, headers)
    data = std_loads(raw)
    req_schema = MoveRequest()
    players = engine.players(before)
    new_state, events = engine.step(before, move)
    viewer = None

    def engine_calls() -> None:
        if mode == "open":
            engine.legal_moves(new_state)
        else:
            engine.view(new_state, viewer)
        engine.status(new_state)
        engine.to_move(new_state)
        engine.scores(new_state, viewer)
        engine.outcome(new_state)

    env = envelope(engine, codec, new_state, events, viewer, sealer, match_id if sealer else None)
    stages: list[tuple[str, Callable[[], Any]]] = [
        ("JSON: parse body", lambda: std_loads(raw)),
        ("edge: request schema", lambda: req_schema.load(data)),
    ]
    if mode == "open":
        stages += [
            ("edge: state load", lambda: codec.load_state(data["state"], check=False)),
            ("engine: check_state", lambda: engine.check_state(before)),
        ]
    else:
        packed = codec.pack(before)
        stages += [
            ("sealing: unseal", lambda: sealer.unseal(GAME, data["token"])),
            ("edge: unpack", lambda: codec.unpack(packed)),
            ("sealing: seat key", lambda: sealer.identify(match_id, players, headers["X-Seat-Key"])),
        ]
    stages += [
        ("edge: move parse", lambda: codec.load_move(data["move"], players)),
        ("engine: step", lambda: engine.step(before, move)),
        ("engine: envelope calls", engine_calls),
        ("envelope (whole)", lambda: envelope(engine, codec, new_state, events, viewer, sealer, match_id if sealer else None)),
    ]
    if mode == "sealed":
        packed_after = codec.pack(new_state)
        stages += [
            ("edge: pack", lambda: codec.pack(new_state)),
            ("sealing: seal", lambda: sealer.seal(GAME, match_id, packed_after)),
        ]
    stages.append(("JSON: write body", lambda: std_dumps(env)))
    if jsonio is not None:
        stages += [
            ("JSON: parse body (jsonio)", lambda: jsonio.loads(raw)),
            ("JSON: write body (jsonio)", lambda: jsonio.dumps(env)),
        ]
    facts = {"body_bytes": len(raw), "response_bytes": len(std_dumps(env)), "seq": before.seq}
    return request, stages, facts


def _cpu_us(fn: Callable[[], Any], n: int) -> float:
    start = time.process_time()
    for _ in range(n):
        fn()
    return (time.process_time() - start) / n * 1e6


def measure(mode: str, blocks: int, per_block: int, at: int | None) -> dict[str, Any]:
    """CPU µs per call of the whole request and of each stage (the fastest of ``blocks`` blocks)."""
    request, stages, facts = _stages(mode, at)
    for _ in range(30):  # warm-up: caches, first-call paths
        request()
        for _, fn in stages:
            fn()
    samples: dict[str, list[float]] = {"request": []}
    for name, _ in stages:
        samples[name] = []
    for _ in range(blocks):  # interleaved, so a busy moment on the machine touches every stage
        samples["request"].append(_cpu_us(request, per_block))
        for name, fn in stages:
            samples[name].append(_cpu_us(fn, per_block))
    us = {name: min(values) for name, values in samples.items()}
    parts = {
        name: value for name, value in us.items()
        if name not in ("request", "envelope (whole)") and "(jsonio)" not in name
    }
    wire = us["envelope (whole)"] - us["engine: envelope calls"] - us.get("edge: pack", 0.0) - us.get("sealing: seal", 0.0)
    parts["envelope: wire form"] = max(wire, 0.0)
    parts["framework"] = max(us["request"] - sum(parts.values()), 0.0)
    out: dict[str, Any] = {"stages": parts, "request": us["request"], "facts": facts}
    if "JSON: parse body (jsonio)" in us:
        parts_jsonio = dict(parts)
        parts_jsonio["JSON: parse body"] = us["JSON: parse body (jsonio)"]
        parts_jsonio["JSON: write body"] = us["JSON: write body (jsonio)"]
        out["jsonio"] = {"parse": us["JSON: parse body (jsonio)"], "write": us["JSON: write body (jsonio)"]}
        out["request_jsonio"] = sum(parts_jsonio.values())
    return out


ORDER = (
    "framework",
    "JSON: parse body",
    "edge: request schema",
    "edge: state load",
    "engine: check_state",
    "sealing: unseal",
    "edge: unpack",
    "sealing: seat key",
    "edge: move parse",
    "engine: step",
    "engine: envelope calls",
    "envelope: wire form",
    "edge: pack",
    "sealing: seal",
    "JSON: write body",
)


def _rows(result: dict[str, Any]) -> list[tuple[str, float]]:
    stages = result["stages"]
    rows = [(name, stages[name]) for name in ORDER if name in stages]
    rows.append(("request (measured whole)", result["request"]))
    if "jsonio" in result:
        rows.append(("  JSON: parse body via jsonio", result["jsonio"]["parse"]))
        rows.append(("  JSON: write body via jsonio", result["jsonio"]["write"]))
        rows.append(("request, jsonio wired (sum)", result["request_jsonio"]))
    return rows


def _print_one(mode: str, result: dict[str, Any]) -> None:
    facts = result["facts"]
    print(f"\n{GAME} move request, {mode} mode (seq {facts['seq']}, body {facts['body_bytes']:,} B, "
          f"response {facts['response_bytes']:,} B): CPU µs per request")
    whole = result["request"]
    for name, value in _rows(result):
        share = f"{value / whole:>7.1%}" if not name.startswith(("request", "  ")) else ""
        print(f"  {name:<34}{value:>9,.1f}{share}")


def _print_pair(mode: str, before: dict[str, Any], after: dict[str, Any], labels: tuple[str, str]) -> None:
    print(f"\n{GAME} move request, {mode} mode: CPU µs per request (median of rounds)")
    print(f"  {'stage':<34}{labels[0]:>10}{labels[1]:>10}{'change':>9}")
    old = dict(_rows(before))
    new = dict(_rows(after))
    for name in list(dict.fromkeys([*old, *new])):
        a, b = old.get(name), new.get(name)
        change = f"{(b - a) / a:>+9.0%}" if a and b is not None else ""
        print(f"  {name:<34}{'-' if a is None else f'{a:,.1f}':>10}{'-' if b is None else f'{b:,.1f}':>10}{change}")


def _median_result(results: list[dict[str, Any]]) -> dict[str, Any]:
    out = json.loads(json.dumps(results[0]))
    for name in out["stages"]:
        out["stages"][name] = statistics.median(r["stages"][name] for r in results)
    out["request"] = statistics.median(r["request"] for r in results)
    if "jsonio" in out:
        for k in ("parse", "write"):
            out["jsonio"][k] = statistics.median(r["jsonio"][k] for r in results)
        out["request_jsonio"] = statistics.median(r["request_jsonio"] for r in results)
    return out


def _cprofile(requests: int, at: int | None, top: int) -> None:
    import cProfile
    import pstats

    for mode in ("open", "sealed"):
        request, _, facts = _stages(mode, at)
        for _ in range(30):
            request()
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(requests):
            request()
        profiler.disable()
        stats = pstats.Stats(profiler)
        whole = sum(row[2] for row in stats.stats.values())  # type: ignore[attr-defined]
        print(f"\n{GAME} move request, {mode} mode ({facts['body_bytes']:,} B body): top {top} functions by own time")
        rows = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])[:top]  # type: ignore[attr-defined]
        for (filename, line, name), (_, calls, tottime, _, _) in rows:
            short = "/".join(Path(filename).parts[-2:])
            print(f"  {tottime / whole:>6.1%}  {calls / requests:>6.1f}/call  {short}:{line} {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--blocks", type=int, default=40, help="blocks per stage (the fastest is reported)")
    parser.add_argument("--per-block", type=int, default=25, help="calls per block")
    parser.add_argument("--at", type=int, default=None, help="measure the move at this index of a long seeded match")
    parser.add_argument("--against", type=Path, default=None, help="another source tree to measure in alternating rounds")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per tree with --against")
    parser.add_argument("--modes", default="open,sealed")
    parser.add_argument("--cprofile", type=int, nargs="?", const=2000, default=None, metavar="REQUESTS")
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--tree", type=Path, default=HERE, help=argparse.SUPPRESS)
    parser.add_argument("--emit", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.blocks = max(1, min(args.blocks, 100))
    args.per_block = max(1, min(args.per_block, 5000))
    args.rounds = max(1, min(args.rounds, 10))
    modes = [m for m in args.modes.split(",") if m in ("open", "sealed")]
    if args.against is None or args.emit:
        _setup_path(args.tree.resolve())
        if args.cprofile is not None:
            _cprofile(min(args.cprofile, 20_000), args.at, args.top)
            return
        results = {mode: measure(mode, args.blocks, args.per_block, args.at) for mode in modes}
        if args.emit:
            print("RESULT " + json.dumps(results))
            return
        for mode in modes:
            _print_one(mode, results[mode])
        return
    trees = {"before": args.against.resolve(), "after": args.tree.resolve()}
    collected: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    for r in range(args.rounds):
        for name, tree in trees.items():
            cmd = [sys.executable, str(Path(__file__).resolve()), "--emit", "--tree", str(tree), "--modes", ",".join(modes),
                   "--blocks", str(args.blocks), "--per-block", str(args.per_block)]
            if args.at is not None:
                cmd += ["--at", str(args.at)]
            env = dict(os.environ, PYTHONPATH=str(tree))
            out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800, check=True, cwd=tree).stdout
            line = next(ln for ln in out.splitlines() if ln.startswith("RESULT "))
            collected[name].append(json.loads(line[len("RESULT "):]))
            print(f"round {r + 1}/{args.rounds}: {name} measured", file=sys.stderr)
    for mode in modes:
        _print_pair(mode, _median_result([c[mode] for c in collected["before"]]),
                    _median_result([c[mode] for c in collected["after"]]), ("before", "after"))


if __name__ == "__main__":
    main()
