#!/usr/bin/env python3
"""The most expensive request bodies we know of, beside normal requests: CPU seconds per request.

For each operation (new, state, moves, check, replay) it builds bodies that fill the operation's
size limit with shapes meant to be costly to refuse (deep nesting, tens of thousands of tiny
arrays or unknown fields, long digit strings, escaped strings, huge option objects, a replay of
the longest legal log followed by garbage...) and times them in-process (Flask test client,
``time.process_time``: CPU of this process only, no network), each the median of a few runs.
It prints every case, its status and its cost in "normal requests" (the median CPU time of a
mid-game Schnapsen move request in open mode), and the worst case it tried.

Usage: python3 bench/adversarial_bodies.py [--repeat 3] [--sealed]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

GAME = "/v1/games/schnapsen"
Case = tuple[str, str, bytes]  # (name, operation, body)


def _fill(limit: int, unit: str, head: str, tail: str) -> str:
    """``head`` + as many ``unit`` (comma-separated) as fit in ``limit`` bytes + ``tail``."""
    room = limit - len(head) - len(tail) - 1
    count = max(1, room // (len(unit) + 1))
    return head + ",".join([unit] * count) + tail


def normal_bodies(client: Any) -> dict[str, bytes]:
    """One ordinary body per operation: a mid-game Schnapsen position and a legal move."""
    env = client.post(f"{GAME}/new", json={"seed": 11}).json
    log = []
    for _ in range(6):
        move = env["legal_moves"][0]
        log.append(move)
        env = client.post(f"{GAME}/moves", json={"state": env["state"], "move": move}).json
    move = env["legal_moves"][0]
    return {
        "new": json.dumps({"seed": 11, "options": {"target": 7}}).encode(),
        "state": json.dumps({"state": env["state"]}).encode(),
        "moves": json.dumps({"state": env["state"], "move": move}).encode(),
        "check": json.dumps({"state": env["state"], "move": move}).encode(),
        "replay": json.dumps({"seed": 11, "moves": log}).encode(),
    }


def adversarial_bodies(limits: dict[str, int], normal: dict[str, bytes], long_log: list[Any]) -> Iterator[Case]:
    """Bodies of at most each operation's limit, shaped to be expensive."""
    state = json.loads(normal["state"])["state"]
    move = json.loads(normal["moves"])["move"]
    for op, limit in limits.items():
        slot = {"new": "options", "replay": "options"}.get(op, "state")
        yield f"{op}: whitespace to the limit", op, (b"{}" + b" " * (limit - 2)) if op == "new" else normal[op] + b" " * (limit - len(normal[op]))
        yield f"{op}: 30-deep arrays, repeated", op, _fill(limit, "[" * 30 + "]" * 30, f'{{"{slot}":[', "]}").encode()
        yield f"{op}: nested to the depth limit", op, ('{"' + slot + '":' + "[" * 31 + "1" + "]" * 31 + "}").encode()
        yield f"{op}: too deep by one", op, ('{"' + slot + '":' + "[" * 40 + "]" * 40 + "}").encode()
        yield f"{op}: tiny arrays", op, _fill(limit, "[]", f'{{"{slot}":[', "]}").encode()
        yield f"{op}: zeros", op, _fill(limit, "0", f'{{"{slot}":[', "]}").encode()
        yield f"{op}: unknown fields at the top", op, _fill(limit, '"k":0', "{", "}").encode().replace(b'"k"', b'"k"', 1)
        uniq = "{" + ",".join(f'"f{i}":0' for i in range(limit // 12)) + "}"
        yield f"{op}: distinct unknown fields at the top", op, uniq[: limit - 2].rpartition(",")[0].encode() + b"}"
        if op in ("state", "moves", "check"):
            fields = ",".join(f'"x{i}":[0]' for i in range(limit // 12))
            wide_state = json.dumps(state)[:-1] + "," + fields
            body = '{"state":' + wide_state[: limit - 200].rpartition(",")[0] + "}"
            if op != "state":
                body += ',"move":' + json.dumps(move)
            yield f"{op}: state with distinct unknown fields", op, (body + "}").encode()
            scalars = json.dumps(state)[:-1] + "," + ",".join(f'"z{i}":0' for i in range(limit // 8))
            body = '{"state":' + scalars[: limit - 200].rpartition(",")[0] + "}"
            if op != "state":
                body += ',"move":' + json.dumps(move)
            yield f"{op}: state with distinct unknown scalar fields", op, (body + "}").encode()
            yield f"{op}: state with a long list in a card field", op, (
                '{"state":' + json.dumps({**state, "talon": ["AS"] * (limit // 6 - 400)}) + (',"move":' + json.dumps(move) if op != "state" else "") + "}"
            ).encode()
            yield f"{op}: token of escaped characters", op, ('{"token":"' + "\\u00e9" * ((limit - 20) // 6) + '"}').encode()
        if op in ("moves", "check"):
            wide_move = json.dumps(move)[:-1] + "," + ",".join(f'"y{i}":[0]' for i in range(limit // 12))
            yield f"{op}: move with distinct unknown fields", op, ('{"state":' + json.dumps(state) + ',"move":' + wide_move[: limit - 2000].rpartition(",")[0] + "}}").encode()
        if op in ("new", "replay"):
            deck = '"deck":[' + ",".join(['"AS"'] * ((limit - 64) // 5)) + "]"
            yield f"{op}: a deck of one card repeated", op, ("{" + deck[: limit - 64].rpartition(",")[0] + "]" + ("" if op == "new" else ',"moves":[]') + "}").encode()
        yield f"{op}: integers at the I-JSON bound", op, _fill(limit, str(2**53 - 1), f'{{"{slot}":[', "]}").encode()
        yield f"{op}: long digit strings", op, ('{"' + slot + '":' + "1" * (limit - 20) + "}").encode()
        if op == "replay":
            log = json.dumps({"seed": 11, "moves": long_log}).encode()
            yield "replay: a long legal log (the work a replay is for)", op, log
            bad = [{"type": "claim", "player": 0}] * (limit // 32)
            yield "replay: many unparseable moves", op, json.dumps({"seed": 11, "moves": [{"type": "zzz", "x": [[[0]]]}] + bad})[:limit].encode().rpartition(b",")[0] + b"]}"


def long_legal_log(client: Any, seed: int = 3) -> list[Any]:
    """A whole Schnapsen match (target 7), first-listed moves: the kind of log replay is for."""
    env = client.post(f"{GAME}/new", json={"seed": seed, "options": {"target": 7}}).json
    log: list[Any] = []
    while env["legal_moves"] and len(log) < 3000:
        move = next((m for m in env["legal_moves"] if m["type"] != "claim"), env["legal_moves"][0])
        log.append(move)
        env = client.post(f"{GAME}/moves", json={"state": env["state"], "move": move}).json
    return log


def cpu_seconds(send: Callable[[], Any], repeat: int) -> tuple[float, int]:
    """Median process CPU seconds of ``send()`` over ``repeat`` runs, and the last status."""
    times, status = [], 0
    for _ in range(repeat):
        started = time.process_time()
        status = send().status_code
        times.append(time.process_time() - started)
    return statistics.median(times), status


def run(repeat: int = 3, sealed: bool = False, out: Callable[[str], None] = print) -> dict[str, Any]:
    """Measure everything; returns {"normal": seconds, "worst": (name, seconds, ratio), "rows": [...]}."""
    from flask.testing import FlaskClient

    from service import create_app

    plain = create_app({"SEAL_KEYS": [], "TESTING": True})
    plain.test_client_class = FlaskClient
    client = plain.test_client()
    app = plain
    if sealed:
        from cryptography.fernet import Fernet

        app = create_app({"SEAL_KEYS": [Fernet.generate_key().decode()], "ALLOW_FIXED_DECKS": True, "TESTING": True})
    target = app.test_client()
    limits = dict(app.extensions["referee.config"].body_limits)
    normal = normal_bodies(client)

    def post(op: str, body: bytes) -> Callable[[], Any]:
        return lambda: target.post(f"{GAME}/{op}", data=body, content_type="application/json")

    for op in normal:  # warm up every path
        cpu_seconds(post(op, normal[op]), 3)
    unit, _ = cpu_seconds(post("moves", normal["moves"]), max(15, repeat * 5))
    out(f"normal move request: {unit * 1e3:.3f} ms CPU ({'sealed' if sealed else 'open'} mode)")
    out(f"limits: {limits}")
    rows = []
    for op, body in normal.items():
        seconds, status = cpu_seconds(post(op, body), repeat)
        rows.append((f"{op}: normal", op, len(body), status, seconds))
    for name, op, body in adversarial_bodies(limits, normal, long_legal_log(client)):
        assert len(body) <= limits[op], (name, len(body), limits[op])
        seconds, status = cpu_seconds(post(op, body), repeat)
        rows.append((name, op, len(body), status, seconds))
    out(f"{'case':58} {'bytes':>9} {'status':>6} {'ms CPU':>9} {'x move':>7}")
    for name, _op, size, status, seconds in rows:
        out(f"{name:58} {size:9d} {status:6d} {seconds * 1e3:9.2f} {seconds / unit:7.1f}")
    refused = [r for r in rows if r[3] >= 400]
    worst = max(refused, key=lambda r: r[4])
    out(f"worst refused body: {worst[0]!r}: {worst[4] * 1e3:.2f} ms CPU = {worst[4] / unit:.1f} normal move requests")
    return {"normal": unit, "worst": (worst[0], worst[4], worst[4] / unit), "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sealed", action="store_true")
    args = parser.parse_args()
    run(args.repeat, args.sealed)


if __name__ == "__main__":
    main()
