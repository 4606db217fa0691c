"""The service under real gunicorn on 127.0.0.1, as it runs in production (issue 7).

Each test starts its own instance(s) with the repository's gunicorn.conf.py (tests/servers.py),
bounds every wait and every load loop in count and time, and stops what it started.
"""

from __future__ import annotations

import os
import random
import re
import signal
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from cryptography.fernet import Fernet

from tests.servers import Gunicorn, call

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
GAME = "/v1/games/schnapsen"


def _random_log(base: str, seed: int, target: int = 3) -> list[dict[str, Any]]:
    """A whole random Schnapsen match played over HTTP (open mode); returns its move log."""
    rng = random.Random(seed)
    status, env = call(f"{base}{GAME}/new", {"seed": seed, "options": {"target": target}})
    assert status == 201, env
    log: list[dict[str, Any]] = []
    while env["legal_moves"] and len(log) < 2000:
        mv = rng.choice(env["legal_moves"])
        log.append(mv)
        status, env = call(f"{base}{GAME}/moves", {"state": env["state"], "move": mv})
        assert status == 200, env
    assert env["winner"] is not None
    return log


# --- two instances, one set of keys -----------------------------------------------------------


@pytest.fixture(scope="module")
def keys() -> list[str]:
    return [Fernet.generate_key().decode() for _ in range(2)]


def test_two_instances_sharing_seal_keys_play_one_sealed_match(tmp_path: Path, keys: list[str]) -> None:
    """Stateless: any replica continues a match another one started, given the same keys."""
    env = {"REFEREE_SEAL_KEYS": ",".join(keys)}
    other = {"REFEREE_SEAL_KEYS": Fernet.generate_key().decode()}
    with (
        Gunicorn(tmp_path, env=env, name="a") as a,
        Gunicorn(tmp_path, env=env, name="b") as b,
        Gunicorn(tmp_path, env=other, workers=1, name="c") as c,
    ):
        status, envl = call(f"{a.url}{GAME}/new", {"options": {"target": 7}})  # sealed: the service shuffles
        assert status == 201 and "token" in envl
        table = {"X-Seat-Key": envl["table_key"]}
        rng = random.Random(7)
        instances = [b.url, a.url]
        served = 0
        while envl["winner"] is None and served < 1000:
            here = instances[served % 2]
            seat = envl["to_move"][0]
            status, seen = call(f"{here}{GAME}/state?as={seat}", {"token": envl["token"]}, table)
            assert status == 200, seen
            mv = rng.choice(seen["legal_moves"])
            status, envl = call(f"{instances[(served + 1) % 2]}{GAME}/moves", {"token": envl["token"], "move": mv}, table)
            assert status == 200, envl
            served += 1
        assert envl["winner"] is not None and served > 10
        # An instance with other keys cannot open the tokens of this match (403 bad_state_token).
        status, problem = call(f"{c.url}{GAME}/state", {"token": envl["token"]}, table)
        assert (status, problem["code"]) == (403, "bad_state_token")


# --- graceful shutdown --------------------------------------------------------------------------


def test_sigterm_loses_no_accepted_request(tmp_path: Path) -> None:
    """SIGTERM during a stream of concurrent requests: every request a worker accepted is answered.

    A recording hook (counting_gunicorn_conf.py) lists the request ids the workers accepted;
    clients keep sending (bounded: at most 3,000 requests, 30 s) until the listener is gone.
    """
    accepted_file = tmp_path / "accepted.txt"
    conf = str(HERE / "counting_gunicorn_conf.py")
    env = {"REFEREE_TEST_ACCEPTED": str(accepted_file), "REFEREE_DRAIN_SECONDS": "2"}  # tests/deploy/test_under_fire.py: the drain itself
    with Gunicorn(tmp_path, args=["-c", conf], env=env) as g:
        body = {"seed": 3, "options": {"target": 7}, "moves": _random_log(g.url, 3, target=7)}
        answered: dict[str, float] = {}
        failures: list[str] = []
        lock = threading.Lock()
        sent = iter(range(3000))
        deadline = time.monotonic() + 30
        term_at: list[float] = []

        def client(worker: int) -> None:
            while time.monotonic() < deadline:
                with lock:
                    n = next(sent, None)
                if n is None:
                    return
                rid = f"t{worker}-{n}"
                try:
                    status, got = call(f"{g.url}{GAME}/replay", body, {"X-Request-ID": rid}, timeout=20)
                except (urllib.error.URLError, ConnectionError, OSError) as exc:
                    with lock:
                        failures.append(f"{rid}: {exc!r}")
                    if term_at:
                        return  # the listener is closed: stop sending
                    continue
                with lock:
                    if status == 200 and got["moves_legal"] == len(body["moves"]):
                        answered[rid] = time.monotonic()
                    else:
                        failures.append(f"{rid}: {status}")

        threads = [threading.Thread(target=client, args=(i,)) for i in range(6)]
        for t in threads:
            t.start()
        time.sleep(0.5)
        term_at.append(time.monotonic())
        assert g.proc is not None
        g.proc.send_signal(signal.SIGTERM)
        for t in threads:
            t.join(timeout=40)
        assert g.proc.wait(timeout=40) == 0
        accepted = [line for line in accepted_file.read_text().splitlines() if line.startswith("t")]
        lost = sorted(set(accepted) - set(answered))
        assert not lost, f"accepted but not answered: {lost}; client errors: {failures[:5]}"
        assert len(accepted) == len(set(accepted)) >= 20
        # Some requests were in a worker when SIGTERM came, and finished after it.
        after = [rid for rid in accepted if answered[rid] > term_at[0]]
        assert after, f"no request was in flight at SIGTERM ({len(accepted)} accepted, {len(failures)} refused)"


# --- a killed worker is replaced ----------------------------------------------------------------


def test_a_worker_killed_with_sigkill_is_replaced(tmp_path: Path) -> None:
    with Gunicorn(tmp_path) as g:
        before = g.worker_pids()
        os.kill(before[0], signal.SIGKILL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            now = g.worker_pids()
            if len(now) == 2 and before[0] not in now:
                break
            time.sleep(0.1)
        now = g.worker_pids()
        assert len(now) == 2 and before[0] not in now and before[1] in now
        for _ in range(10):
            status, envl = call(f"{g.url}{GAME}/new", {"seed": 1})
            assert status == 201 and envl["status"] == "in_progress"


def test_a_worker_still_booting_at_sigterm_stops_without_waiting_for_the_graceful_timeout(tmp_path: Path) -> None:
    """A replacement worker forked just before SIGTERM may get the master's stop signal before it
    has installed its own handlers (the one it inherited swallows it); the master tells remaining
    workers again while it stops, so the instance exits in seconds, not after graceful_timeout
    (25 s) and a SIGKILL."""
    with Gunicorn(tmp_path) as g:
        before = g.worker_pids()
        os.kill(before[0], signal.SIGKILL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and (len(g.worker_pids()) != 2 or before[0] in g.worker_pids()):
            time.sleep(0.02)
        started = time.monotonic()
        assert g.terminate() == 0
        assert time.monotonic() - started < 15
    assert "graceful timeout" not in g.stderr.read_text()


# --- metrics summed over workers ----------------------------------------------------------------


def _metric(text: str, name: str, **labels: str) -> float:
    total = 0.0
    for line in text.splitlines():
        m = re.fullmatch(r"([a-z_]+)\{(.*)\} (\S+)", line)
        if not m or m.group(1) != name:
            continue
        have = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2)))
        if all(have.get(k) == v for k, v in labels.items()):
            total += float(m.group(3))
    return total


def test_metrics_count_what_was_sent_summed_over_workers(tmp_path: Path) -> None:
    """/metrics is served on its own listener (REFEREE_METRICS_BIND) by any worker, for all of
    them; the API port has no /metrics."""
    from tests.servers import free_port

    metrics_port = free_port()
    with Gunicorn(tmp_path, env={"REFEREE_METRICS_BIND": f"127.0.0.1:{metrics_port}"}) as g:
        status, envl = call(f"{g.url}{GAME}/new", {"seed": 5})
        assert status == 201
        created = 1
        # Concurrent batches until both workers have served (bounded): the sum must span workers.
        while created < 30 or (len({line["pid"] for line in g.access_log()}) < 2 and created < 600):
            with ThreadPoolExecutor(6) as pool:
                statuses = list(pool.map(lambda _: call(f"{g.url}{GAME}/new", {"seed": 5})[0], range(10)))
            assert statuses == [201] * 10
            created += 10
        for _ in range(7):
            status, problem = call(f"{g.url}{GAME}/moves", {"state": envl["state"], "move": {"type": "close", "player": 0}})
            assert (status, problem["code"]) == (422, "not_your_turn")
        for _ in range(3):
            assert call(f"{g.url}/v1/games/nope/new", {})[0] == 404
        served_by = {line["pid"] for line in g.access_log()}
        status, problem = call(f"{g.url}/metrics")
        assert (status, problem["code"]) == (404, "not_found")
        status, problem = call(f"{g.url}/metrics", headers={"Host": f"127.0.0.1:{metrics_port}"})  # no header reaches it
        assert status == 404
        assert call(f"http://127.0.0.1:{metrics_port}/v1/games")[0] == 404  # and the metrics port serves nothing else
        text = call(f"http://127.0.0.1:{metrics_port}/metrics")[1]
        assert isinstance(text, str)
        assert _metric(text, "referee_http_requests_total", route="/v1/games/<game_id>/new", game="schnapsen", status="201") == created
        assert _metric(text, "referee_http_requests_total", route="/v1/games/<game_id>/moves", status="422") == 7
        assert _metric(text, "referee_http_requests_total", route="/v1/games/<game_id>/new", game="-", status="404") == 3
        # the two probes above: /metrics is a route of the API port (its GET the declared 404, another method 405)
        assert _metric(text, "referee_http_requests_total", route="/metrics", status="404") == 2
        assert _metric(text, "referee_illegal_moves_total", game="schnapsen", code="not_your_turn") == 7
        assert _metric(text, "referee_http_request_duration_seconds_count", route="/v1/games/<game_id>/new") == created + 3
        assert len(served_by) == 2, "both workers should have served some of the requests"


# --- the access log -----------------------------------------------------------------------------


def test_access_log_is_one_json_line_per_request_with_its_request_id(tmp_path: Path) -> None:
    """Also: with a HOME nobody can write to (a non-root user, a read-only root filesystem), gunicorn
    still starts, because the configuration turns its control socket off."""
    with Gunicorn(tmp_path, workers=1, env={"HOME": "/proc/no-such-home"}) as g:
        req = urllib.request.Request(f"{g.url}/healthz", headers={"X-Request-ID": "probe-42"})
        with urllib.request.urlopen(req, timeout=5) as r:
            assert r.headers["X-Request-ID"] == "probe-42"
        with urllib.request.urlopen(f"{g.url}/healthz", timeout=5) as r:
            generated = r.headers["X-Request-ID"]
        assert re.fullmatch(r"[0-9a-f]{32}", generated)
        g.terminate()
        lines = [line for line in g.access_log() if line["path"] == "/healthz"]
        assert [line["request_id"] for line in lines] == ["probe-42", generated]
        assert all(line["status"] == 200 and line["method"] == "GET" and line["duration_ms"] >= 0 for line in lines)
        assert "control" not in g.stderr.read_text().lower()

