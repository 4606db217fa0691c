"""Limits of what a client can send (issue 8, robustness 4): each bounded and documented in
openapi.yaml's info ("Limits"), each refused with a problem, never a 500; and a slow client
cannot hold a worker for longer than gunicorn's timeout."""

from __future__ import annotations

import socket
import time
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.servers import Gunicorn, call

ROOT = Path(__file__).resolve().parents[2]
INFO = (ROOT / "openapi.yaml").read_text().split("servers:", 1)[0]


def _post_raw(client: FlaskClient, raw: str) -> Any:
    return client.post("/v1/games/schnapsen/state", data=raw, content_type="application/json")


@pytest.mark.parametrize("literal", [str(2**53), str(-(2**53)), str(2**63), "1" * 5000], ids=["2^53", "-2^53", "2^63", "5000-digits"])
def test_integers_outside_i_json_are_refused_at_parse(client: FlaskClient, literal: str) -> None:
    r = _post_raw(client, '{"state": {"seq": ' + literal + "}}")
    assert r.status_code == 400 and r.json["code"] == "invalid_request"
    assert r.json["errors"] == {"body": ["out of range"]}


@pytest.mark.parametrize("literal", [str(2**53 - 1), str(-(2**53 - 1))])
def test_integers_at_the_i_json_bounds_parse_and_are_judged_by_the_schema(client: FlaskClient, literal: str) -> None:
    r = _post_raw(client, '{"state": {"seq": ' + literal + "}}")
    assert r.status_code in (400, 422) and r.json.get("errors") != {"body": ["out of range"]}


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json(client: FlaskClient, literal: str) -> None:
    r = _post_raw(client, '{"state": ' + literal + "}")
    assert r.status_code == 400 and r.json["errors"] == {"body": ["out of range"]}


def test_body_size_and_depth_limits_are_documented_and_enforced(client: FlaskClient) -> None:
    assert "1 MiB" in INFO and "64 levels" in INFO and "10,000 moves" in INFO
    assert "64 KiB" in INFO and "16 KiB" in INFO and "2^53" in INFO and "128 members" in INFO
    r = _post_raw(client, '{"state": "' + "x" * (64 * 1024) + '"}')  # state, moves, check: 64 KiB
    assert r.status_code == 413 and r.json["code"] == "body_too_large"
    r = client.post("/v1/games/schnapsen/new", data='{"seed": 1' + " " * (16 * 1024) + "}", content_type="application/json")
    assert r.status_code == 413  # new: 16 KiB
    r = client.post("/v1/games/schnapsen/replay", data='{"seed": 1, "moves": []' + " " * (1024 * 1024) + "}", content_type="application/json")
    assert r.status_code == 413  # replay: 1 MiB
    r = _post_raw(client, '{"state": ' + "[" * 65 + "]" * 65 + "}")
    assert r.status_code == 400 and r.json["errors"] == {"body": ["too deep"]}
    r = client.post("/v1/games/schnapsen/replay", json={"seed": 1, "moves": [{"type": "claim", "player": 0}] * 10_001})
    assert r.status_code == 400 and r.json["code"] == "invalid_request"


@pytest.mark.slow
def test_a_slow_client_holds_a_worker_no_longer_than_the_timeout(tmp_path: Path) -> None:
    """One sync worker, timeout 2 s: a client that sends half a request line and then nothing ties
    the worker up; gunicorn's master kills the silent worker after the timeout and starts another,
    which answers the next client. (Bounded: the whole test waits at most 20 s.)"""
    with Gunicorn(tmp_path, workers=1, env={"REFEREE_TIMEOUT": "2", "REFEREE_GRACEFUL_TIMEOUT": "1"}) as g:
        slow = socket.create_connection(("127.0.0.1", g.port), timeout=20)
        try:
            slow.sendall(b"POST /v1/games/schnapsen/new HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{")
            time.sleep(0.3)
            started = time.monotonic()
            status, body = call(f"{g.url}/healthz", timeout=20)
            waited = time.monotonic() - started
        finally:
            slow.close()
        assert (status, body) == (200, {"status": "ok"})
        assert waited < 15, f"the next client waited {waited:.1f} s"
        assert "WORKER TIMEOUT" in g.stderr.read_text() or waited < 1.0


def test_problem_errors_are_capped_and_say_so(client: FlaskClient) -> None:
    """A state with seventy unknown fields gets the first 50 listed, and the detail says how many."""
    env = client.post("/v1/games/schnapsen/new", json={"seed": 2}).json
    state = {**env["state"], **{f"unknown_{i}": 0 for i in range(70)}}
    r = client.post("/v1/games/schnapsen/state", json={"state": state})
    assert r.status_code in (400, 422) and len(r.json["errors"]) == 50
    assert "the first 50 of" in r.json["detail"]


def test_a_long_replay_log_fits_the_shape_budget(client: FlaskClient) -> None:
    """The value and container budgets leave room for the longest log the contract allows (10,000
    moves of the widest move shape, Russian Bank's), which is judged, not refused."""
    move = {"type": "move", "player": 0, "card": "4C/a", "from": "tableau:1", "to": "tableau:5"}
    r = client.post("/v1/games/russian_bank/replay", json={"seed": 1, "moves": [move] * 10_000})
    assert r.status_code == 200 and r.json["moves_total"] == 10_000


@pytest.mark.slow
def test_adversarial_bodies_cost_a_bounded_amount_of_cpu() -> None:
    """bench/adversarial_bodies.py's shapes, each timed with process CPU time: on new, state, moves
    and check none costs more than 10 normal move requests (measured: under 3); on replay none
    costs more than 8 times an accepted replay body of the same size (measured: under 4).

    A ratio of two CPU times still moves on a loaded 2-core machine (caches and the shared core
    slow both sides unequally; one run read 8.05 against 8), so each case keeps its best of up to
    three rounds, every round re-measuring both sides: a real regression is over the bound in
    every round, noise is not.
    """
    from bench.adversarial_bodies import run

    best: dict[str, float] = {}
    bounds: dict[str, float] = {}
    for _round in range(3):
        result = run(repeat=1, out=lambda line: None)
        rows = result["rows"]
        assert {status for name, op, _s, status, _t in rows if "normal" in name} <= {200, 201}
        parse_1mib = next(seconds for name, *_, seconds in rows if name == "replay: whitespace to the limit")
        for name, op, _size, status, seconds in rows:
            if status < 400:
                continue
            ratio = seconds / (parse_1mib if op == "replay" else result["normal"])
            best[name] = min(ratio, best.get(name, ratio))
            bounds[name] = 8 if op == "replay" else 10
        over = {name: round(best[name], 2) for name in best if best[name] > bounds[name]}
        if not over:
            break
    assert any(bounds[n] == 10 for n in bounds) and any(bounds[n] == 8 for n in bounds), bounds
    assert not over, over
