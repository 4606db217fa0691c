"""gunicorn settings for Card Referee (read by gunicorn from the working directory, or with -c).

Every setting can be changed from the environment; the defaults suit one container or one machine.

| variable                       | default                 | meaning                                        |
|--------------------------------|-------------------------|------------------------------------------------|
| REFEREE_BIND                   | 127.0.0.1:8000          | address (``0.0.0.0:8000`` in the image)        |
| REFEREE_WORKERS                | 2 x usable CPUs         | sync worker processes (CPU quota respected)    |
| REFEREE_TIMEOUT                | 30                      | seconds a worker may spend on one request      |
| REFEREE_GRACEFUL_TIMEOUT       | 25                      | seconds in-flight requests get after SIGTERM   |
| REFEREE_KEEPALIVE              | 5                       | seconds an idle keep-alive connection is kept  |
| REFEREE_MAX_REQUESTS           | 10000                   | a worker is recycled after this many requests  |
| REFEREE_MAX_REQUESTS_JITTER    | 1000                    | ... plus up to this many, so they don't all go |
| REFEREE_ACCESS_LOG             | -                       | where the JSON access lines go (- = stdout)    |
| REFEREE_LOG_LEVEL              | info                    | gunicorn's error log level                     |
| PROMETHEUS_MULTIPROC_DIR       | a fresh temporary dir   | where workers keep their metric files          |

Sync workers (two per core) measured best for this CPU-bound service. The master's control socket
is off: gunicorn 27 would create it under $HOME, which a non-root user may not have and a
read-only root filesystem refuses. A slow client cannot hold a sync worker for more than
``timeout`` seconds: the master kills and replaces a worker stuck on one request that long.
"""

from __future__ import annotations

import datetime as _dt
import json as _json
import os as _os
import shutil as _shutil
import signal as _signal
import tempfile as _tempfile
from pathlib import Path as _Path
from typing import Any as _Any

from gunicorn.glogging import Logger as _GunicornLogger


def _env_int(name: str, default: int) -> int:
    raw = _os.environ.get(name, "").strip()
    if not raw:
        return default
    value = int(raw)
    if value < 0:
        raise ValueError(f"{name} must not be negative: {raw!r}")
    return value


def usable_cpus() -> int:
    """CPUs this process may use: its affinity, capped by a cgroup v2 CPU quota (a container limit)."""
    count = len(_os.sched_getaffinity(0)) if hasattr(_os, "sched_getaffinity") else (_os.cpu_count() or 1)
    try:
        quota, period = _Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        if quota != "max":
            count = min(count, max(1, -(-int(quota) // int(period))))  # ceiling
    except (OSError, ValueError):
        pass
    return max(1, count)


bind = _os.environ.get("REFEREE_BIND", "127.0.0.1:8000")
workers = _env_int("REFEREE_WORKERS", 0) or 2 * usable_cpus()
worker_class = "sync"
timeout = _env_int("REFEREE_TIMEOUT", 30)
graceful_timeout = _env_int("REFEREE_GRACEFUL_TIMEOUT", 25)
keepalive = _env_int("REFEREE_KEEPALIVE", 5)
max_requests = _env_int("REFEREE_MAX_REQUESTS", 10000)
max_requests_jitter = _env_int("REFEREE_MAX_REQUESTS_JITTER", 1000)
control_socket_disable = True
worker_tmp_dir = "/dev/shm" if _os.path.isdir("/dev/shm") else None  # heartbeat files off the (read-only) root fs
accesslog = _os.environ.get("REFEREE_ACCESS_LOG", "-")
errorlog = "-"
loglevel = _os.environ.get("REFEREE_LOG_LEVEL", "info")
# Request-line and header limits stay at gunicorn's defaults (4094-byte line, 100 headers of 8190
# bytes); the body limit is the app's (REFEREE_MAX_BODY, 413 body_too_large).


class JsonAccessLogger(_GunicornLogger):  # type: ignore[misc]
    """One JSON object per line for each request, with the request id the app echoed back."""

    def access(self, resp: _Any, req: _Any, environ: dict[str, _Any], request_time: _dt.timedelta) -> None:
        if not self.access_log_enabled:
            return
        headers = {name.lower(): value for name, value in (resp.headers or ())}
        line = {
            "time": _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds"),
            "request_id": headers.get("x-request-id"),
            "remote": environ.get("REMOTE_ADDR"),
            "method": environ.get("REQUEST_METHOD"),
            "path": environ.get("PATH_INFO"),
            "query": environ.get("QUERY_STRING") or None,
            "status": int(str(resp.status).split()[0]),
            "bytes": getattr(resp, "sent", None),
            "duration_ms": round(request_time.total_seconds() * 1000, 3),
            "user_agent": environ.get("HTTP_USER_AGENT"),
            "pid": _os.getpid(),
        }
        try:
            self.access_log.info(_json.dumps(line, separators=(",", ":")))
        except Exception:  # noqa: BLE001 - a log line must never fail a request
            self.exception("Failed to write the access log line")


logger_class = JsonAccessLogger


# --- metrics shared by the workers --------------------------------------------------------------

_OWN_METRICS_DIR = not _os.environ.get("PROMETHEUS_MULTIPROC_DIR")
if _OWN_METRICS_DIR:
    _os.environ["PROMETHEUS_MULTIPROC_DIR"] = _tempfile.mkdtemp(prefix="referee-metrics-")


def on_starting(server: _Any) -> None:
    """Start from empty metric files: counters restart with the instance, as Prometheus expects."""
    directory = _Path(_os.environ["PROMETHEUS_MULTIPROC_DIR"])
    directory.mkdir(parents=True, exist_ok=True)
    for stale in directory.glob("*.db"):
        stale.unlink()


def child_exit(server: _Any, worker: _Any) -> None:
    """A dead worker's live-gauge files go; its counters stay, so totals never drop."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def on_exit(server: _Any) -> None:
    if _OWN_METRICS_DIR:
        _shutil.rmtree(_os.environ["PROMETHEUS_MULTIPROC_DIR"], ignore_errors=True)


# --- readiness during shutdown ------------------------------------------------------------------


def post_worker_init(worker: _Any) -> None:
    """On SIGTERM the worker reports /readyz 503 ("draining") while it finishes in-flight work."""
    readiness = getattr(worker.wsgi, "extensions", {}).get("referee.readiness")
    if readiness is None:
        return
    finish = worker.handle_exit

    def drain(sig: int, frame: _Any) -> None:
        readiness.begin_shutdown()
        finish(sig, frame)

    _signal.signal(_signal.SIGTERM, drain)
