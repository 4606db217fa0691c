#!/usr/bin/env python3
"""Where the time of one move request goes, stage by stage, in open and in sealed mode.

A mid-game Schnapsen ``play`` (or the move at ``--at N`` of a long seeded match) is sent to the
WSGI app in-process, with a prepared WSGI environ as gunicorn would pass it (no sockets, no test
client), request ids and metrics on as in production. Two loops:

- **plain**: the request alone, its process CPU time taken per request;
- **traced**: the same request with light wrappers around the functions each stage consists of
  (JSON parsing and writing, the request schema, state loading, unsealing and unpacking, the
  engine, the envelope's wire form, packing and sealing, the canonical JSON of the move the record
  keeps). Each wrapper records its *own* time,
  without the wrapped functions it calls, so the stages add up.

Every figure is the 20th percentile of its samples: a busy machine only adds time (preemption,
cold caches), so the low end is what the code costs, and it is steadier than the minimum.
"framework" is the plain request minus the stages: Flask, Werkzeug, routing, request ids,
metrics, the seat checks of the views (and the tracing wrappers' own cost, a few µs, lands in the
stages). Compare columns of one run rather than runs of different days.

``--jsonio`` is for trees from before ``service/jsonio.py`` was wired in (this tree's HTTP layer
already parses and writes bodies with it): it routes such a tree's JSON calls to jsonio.

``--against DIR`` measures another source tree (e.g. an unpacked copy of the commit before a
change) in the same run, in alternating rounds, each in a subprocess with that tree first on the
path, and prints the trees side by side. ``--cprofile N`` prints cProfile's top functions instead.

Usage: python3 bench/profile_move.py [--requests 1500] [--rounds 3] [--against DIR] [--jsonio]
       [--at N] [--modes open,sealed] [--cprofile N]
In-process and bounded by the request counts; nothing listens on a socket.
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
import types
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]
GAME = "schnapsen"
STAGES = (
    "framework",
    "JSON: parse body",
    "edge: request schema",
    "edge: state load",
    "sealing: unseal",
    "edge: unpack",
    "sealing: seat key",
    "edge: move parse",
    "engine",
    "envelope: wire form",
    "edge: pack",
    "sealing: seal",
    "records: canonical",
    "JSON: write body",
)


# --- the request ------------------------------------------------------------------------------


def _position(at: int | None) -> tuple[Any, Any]:
    """(state, move): the ``at``-th move of a long seeded match, or a play in the middle of one."""
    from service.engines import ENGINES
    from tests.playouts import random_playout

    engine = ENGINES[GAME]
    if at is not None:  # a long match: the largest target the options allow
        options = engine.Options(target=engine.OPTION_INFO["target"]["maximum"])
        for seed in range(3, 23):
            steps = list(random_playout(engine, engine.DEFAULT_PLAYERS, seed=seed, options=options, max_moves=at + 1))
            if len(steps) > at:
                return steps[at][0], steps[at][1]
        raise SystemExit(f"no seeded match reaches move {at}: choose a smaller --at")
    steps = list(random_playout(engine, engine.DEFAULT_PLAYERS, seed=3))
    plays = [i for i, (_, m, _) in enumerate(steps) if type(m).__name__ == "Play"]
    before, move, _ = steps[plays[len(plays) // 2]]
    return before, move


def _request(mode: str, at: int | None) -> tuple[Any, Callable[[], None], dict[str, Any]]:
    """(app, one request, facts): a move request ready to run against the WSGI app."""
    from cryptography.fernet import Fernet
    from werkzeug.test import EnvironBuilder

    from service import create_app
    from service.schemas import SCHEMAS
    from service.schemas.common import to_wire

    codec = SCHEMAS[GAME]
    before, move = _position(at)
    app = create_app({"SEAL_KEYS": [Fernet.generate_key().decode()]} if mode == "sealed" else {"SEAL_KEYS": []})
    headers: dict[str, str] = {}
    if mode == "sealed":
        sealer = app.extensions["referee.sealer"]
        try:  # padded as the service pads its tokens (a tree from before padding: unpadded)
            from service.referee import pad_target

            pad: int | None = pad_target(GAME, len(before.hands), before.seq)
        except ImportError:
            pad = None
        token = sealer.seal(GAME, "bench-match", codec.pack(before), pad_to=pad) if pad else sealer.seal(GAME, "bench-match", codec.pack(before))
        body = {"token": token, "move": to_wire(move)}
        headers["X-Seat-Key"] = sealer.seat_key("bench-match", move.player)  # the mover's own key
    else:
        body = {"state": codec.dump_state(before), "move": to_wire(move)}
    raw = json.dumps(body, separators=(",", ":")).encode()
    path = f"/v1/games/{GAME}/moves"
    template = EnvironBuilder(path=path, method="POST", data=raw, content_type="application/json", headers=headers).get_environ()
    statuses: list[str] = []
    sizes: list[int] = []

    def start_response(status: str, _headers: Any, _exc: Any = None) -> None:
        statuses.append(status)

    def call() -> None:
        environ = dict(template)
        environ["wsgi.input"] = io.BytesIO(raw)
        out = app(environ, start_response)
        try:
            size = sum(len(chunk) for chunk in out)
        finally:
            getattr(out, "close", lambda: None)()
        status = statuses.pop()
        if not status.startswith("200"):
            raise AssertionError(f"the move request answered {status}")
        sizes.append(size)

    call()
    return app, call, {"seq": before.seq, "body_bytes": len(raw), "response_bytes": sizes[-1]}


# --- tracing: each stage's own time ------------------------------------------------------------


class Tracer:
    """Wraps functions; each wrapper adds its own time (minus wrapped callees) to its stage."""

    def __init__(self) -> None:
        self.totals: dict[str, float] = defaultdict(float)
        self._child = [0.0]

    def wrap(self, fn: Callable[..., Any], stage: str) -> Callable[..., Any]:
        totals, child = self.totals, self._child
        clock = time.perf_counter

        def traced(*args: Any, **kwargs: Any) -> Any:
            outer = child[0]
            child[0] = 0.0
            start = clock()
            try:
                return fn(*args, **kwargs)
            finally:
                spent = clock() - start
                totals[stage] += spent - child[0]
                child[0] = outer + spent

        traced.__wrapped__ = fn  # type: ignore[attr-defined]
        return traced

    def take(self) -> dict[str, float]:
        out = dict(self.totals)
        self.totals.clear()
        return out


def _json_proxy(loads: Callable[..., Any], dumps: Callable[..., Any], *, text: bool) -> Any:
    """A stand-in for the ``json`` module as a caller uses it, routed to jsonio."""

    def proxy_loads(raw: Any, **_hooks: Any) -> Any:
        return loads(raw, bounds=(-(2**63), 2**63 - 1))

    def proxy_dumps(obj: Any, **_options: Any) -> Any:
        out = dumps(obj)
        return out.decode() if text else out

    return types.SimpleNamespace(loads=proxy_loads, dumps=proxy_dumps, JSONDecodeError=json.JSONDecodeError)


def _route_json_to_jsonio() -> None:
    """Send the HTTP layer's and the sealer's JSON calls to jsonio (what wiring it in would do)."""
    from service import jsonio, sealing  # type: ignore[attr-defined]
    from service.api import problems, routes

    routes.json = _json_proxy(jsonio.loads, jsonio.dumps, text=False)
    problems.json = _json_proxy(jsonio.loads, jsonio.dumps, text=False)
    sealing.json = _json_proxy(jsonio.loads, jsonio.dumps, text=True)


def _trace(app: Any, tracer: Tracer) -> None:
    """Wrap the functions each stage consists of, where the request looks them up."""
    from service.api import routes
    from service.engines import ENGINES
    from service.schemas import SCHEMAS

    engine, codec = ENGINES[GAME], SCHEMAS[GAME]
    wrap = tracer.wrap
    if hasattr(routes, "json"):  # a tree from before jsonio was wired in
        routes.json = types.SimpleNamespace(
            loads=wrap(routes.json.loads, "JSON: parse body"),
            dumps=wrap(routes.json.dumps, "JSON: write body"),
            JSONDecodeError=json.JSONDecodeError,
        )
    else:  # body.py, routes.py and problems.py call jsonio.loads/dumps through the module
        from service import jsonio

        jsonio.loads = wrap(jsonio.loads, "JSON: parse body")  # type: ignore[assignment]
        jsonio.dumps = wrap(jsonio.dumps, "JSON: write body")  # type: ignore[assignment]
    routes._MOVE.load = wrap(routes._MOVE.load, "edge: request schema")
    if hasattr(codec.module, "load_state"):  # a tree from before GameCodec loaded every game's STATE
        codec.module.load_state = wrap(codec.module.load_state, "edge: state load")
    else:  # since the schema kit: GameCodec.load_state calls schemas.load_state_with
        import service.schemas as schemas_package

        schemas_package.load_state_with = wrap(schemas_package.load_state_with, "edge: state load")  # type: ignore[attr-defined]
    codec.module.MOVES.parse = wrap(codec.module.MOVES.parse, "edge: move parse")
    codec.module.dump_state = wrap(codec.module.dump_state, "envelope: wire form")
    codec.packer.pack = wrap(codec.packer.pack, "edge: pack")
    codec.packer.unpack = wrap(codec.packer.unpack, "edge: unpack")
    for name in ("check_state", "step", "legal_moves", "status", "to_move", "scores", "outcome", "view", "derived"):
        setattr(engine, name, wrap(getattr(engine, name), "engine"))
    if hasattr(routes, "envelope"):  # a tree from before the referee core: the envelope in api/envelope.py
        from service.api import envelope as envelope_module

        routes.envelope = wrap(routes.envelope, "envelope: wire form")
    else:  # since the referee core (service/referee.py): service/envelope.py
        from service import envelope as envelope_module  # type: ignore[no-redef]
    envelope_module.to_wire = wrap(envelope_module.to_wire, "envelope: wire form")
    try:  # since the referee core: each accepted sealed move joins the record in canonical JSON
        from service import referee as referee_module

        referee_module.canonical = wrap(referee_module.canonical, "records: canonical")  # type: ignore[attr-defined]
    except (ImportError, AttributeError):
        pass
    sealer = app.extensions["referee.sealer"]
    if sealer is not None:
        sealer.unseal = wrap(sealer.unseal, "sealing: unseal")
        if hasattr(sealer, "open"):  # since the referee core: Table.begin calls open (unseal calls it too)
            sealer.open = wrap(sealer.open, "sealing: unseal")
        sealer.seal = wrap(sealer.seal, "sealing: seal")
        sealer.identify = wrap(sealer.identify, "sealing: seat key")


def _timed(call: Callable[[], None]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one call."""
    cpu, wall = time.process_time(), time.perf_counter()
    call()
    return time.process_time() - cpu, time.perf_counter() - wall


def _low(values: list[float]) -> float:
    """The 20th percentile: a busy machine only ever adds time (preemption, cold caches), so the
    low end of many samples is what the code itself costs; it is steadier than the minimum."""
    ordered = sorted(values)
    return ordered[len(ordered) // 5]


def measure(mode: str, requests: int, at: int | None, use_jsonio: bool) -> dict[str, Any]:
    """µs per request (process CPU time) and per stage (own wall time in the traced requests),
    each the 20th percentile of its samples."""
    app, call, facts = _request(mode, at)
    if use_jsonio:
        _route_json_to_jsonio()
    for _ in range(50):
        call()
    plain = [_timed(call)[0] for _ in range(requests)]
    tracer = Tracer()
    _trace(app, tracer)
    for _ in range(30):
        call()
    tracer.take()
    samples: dict[str, list[float]] = defaultdict(list)
    for _ in range(requests):
        call()
        for stage, spent in tracer.take().items():
            samples[stage].append(spent)
    us = {stage: _low(values) * 1e6 for stage, values in samples.items()}
    whole = _low(plain) * 1e6
    us["framework"] = max(whole - sum(us.values()), 0.0)
    return {"stages": us, "request": whole, "facts": facts}


# --- output -----------------------------------------------------------------------------------


def _rows(result: dict[str, Any]) -> list[tuple[str, float]]:
    stages = result["stages"]
    rows = [(name, stages[name]) for name in STAGES if name in stages]
    rows.append(("whole request (CPU)", result["request"]))
    return rows


def _print_columns(mode: str, columns: dict[str, dict[str, Any]]) -> None:
    first = next(iter(columns.values()))
    facts = first["facts"]
    print(f"\n{GAME} move request, {mode} mode (seq {facts['seq']}, body {facts['body_bytes']:,} B, "
          f"response {facts['response_bytes']:,} B): µs per request")
    names = list(columns)
    print(f"  {'stage':<28}" + "".join(f"{n:>14}" for n in names))
    tables = {n: dict(_rows(c)) for n, c in columns.items()}
    for stage in dict.fromkeys(s for t in tables.values() for s in t):
        cells = []
        for n in names:
            value = tables[n].get(stage)
            cells.append(f"{'-' if value is None else f'{value:,.1f}':>14}")
        print(f"  {stage:<28}" + "".join(cells))
    base = first["request"]
    if len(names) > 1:
        print(f"  {'whole request vs ' + names[0]:<28}" + "".join(f"{c['request'] / base:>14.0%}" for c in columns.values()))


def _median_result(results: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"facts": results[0]["facts"], "stages": {}}
    for name in {s for r in results for s in r["stages"]}:
        out["stages"][name] = statistics.median(r["stages"].get(name, 0.0) for r in results)
    out["request"] = statistics.median(r["request"] for r in results)
    return out


def _cprofile(requests: int, at: int | None, top: int, modes: list[str]) -> None:
    import cProfile
    import pstats

    for mode in modes:
        _, call, facts = _request(mode, at)
        for _ in range(30):
            call()
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(requests):
            call()
        profiler.disable()
        stats = pstats.Stats(profiler)
        whole = sum(row[2] for row in stats.stats.values())  # type: ignore[attr-defined]
        print(f"\n{GAME} move request, {mode} mode ({facts['body_bytes']:,} B body): top {top} functions by own time")
        rows = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])[:top]  # type: ignore[attr-defined]
        for (filename, line, name), (_, calls, tottime, _, _) in rows:
            short = "/".join(Path(filename).parts[-2:])
            print(f"  {tottime / whole:>6.1%}  {calls / requests:>6.1f}/call  {short}:{line} {name}")


def _run_tree(tree: Path, args: argparse.Namespace, modes: list[str], use_jsonio: bool) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--emit", "--tree", str(tree), "--modes", ",".join(modes),
           "--requests", str(args.requests)]
    if args.at is not None:
        cmd += ["--at", str(args.at)]
    if use_jsonio:
        cmd.append("--jsonio")
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800, check=False, cwd=tree)
    if done.returncode != 0:
        raise SystemExit(f"measuring {tree} failed:\n{done.stderr[-2000:]}")
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("RESULT "))
    return json.loads(line[len("RESULT "):])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--requests", type=int, default=1500, help="requests per loop (plain and traced)")
    parser.add_argument("--at", type=int, default=None, help="measure the move at this index of a long seeded match")
    parser.add_argument("--against", type=Path, default=None, help="another source tree, measured in alternating rounds")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per tree (the median round is shown)")
    parser.add_argument("--jsonio", action="store_true", help="also measure with JSON routed to service.jsonio")
    parser.add_argument("--modes", default="open,sealed")
    parser.add_argument("--cprofile", type=int, default=None, metavar="REQUESTS")
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--tree", type=Path, default=HERE, help=argparse.SUPPRESS)
    parser.add_argument("--emit", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.requests = max(10, min(args.requests, 20_000))
    args.rounds = max(1, min(args.rounds, 10))
    modes = [m for m in args.modes.split(",") if m in ("open", "sealed")]
    if args.emit:
        sys.path.insert(0, str(args.tree.resolve()))
        print("RESULT " + json.dumps({m: measure(m, args.requests, args.at, args.jsonio) for m in modes}))
        return
    if args.cprofile is not None:
        sys.path.insert(0, str(args.tree.resolve()))
        _cprofile(min(args.cprofile, 20_000), args.at, args.top, modes)
        return
    runs: dict[str, tuple[Path, bool]] = {}
    if args.against is not None:
        runs["before"] = (args.against.resolve(), False)
    runs["this tree" if args.against is None else "after"] = (args.tree.resolve(), False)
    if args.jsonio:
        runs["+ jsonio"] = (args.tree.resolve(), True)
    collected: dict[str, list[dict[str, Any]]] = {name: [] for name in runs}
    for r in range(args.rounds):
        for name, (tree, use_jsonio) in runs.items():
            collected[name].append(_run_tree(tree, args, modes, use_jsonio))
            print(f"round {r + 1}/{args.rounds}: {name} measured", file=sys.stderr)
    for mode in modes:
        _print_columns(mode, {name: _median_result([c[mode] for c in results]) for name, results in collected.items()})


if __name__ == "__main__":
    main()
