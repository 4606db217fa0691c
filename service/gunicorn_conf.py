"""gunicorn settings for Card Referee, inside the package so that every install serves alike:

    card-referee serve                                            # the console script
    gunicorn -c python:service.gunicorn_conf 'service:create_app()'

Every setting comes from the environment; the defaults suit one machine or one container.

| variable                     | default                 | meaning                                               |
|------------------------------|-------------------------|-------------------------------------------------------|
| REFEREE_BIND                 | 127.0.0.1:8000          | the API's address (``0.0.0.0:8000`` in the image)     |
| REFEREE_METRICS_BIND         | (none)                  | the metrics listener (``/metrics`` only); none = off  |
| REFEREE_PROBE_BIND           | (none)                  | the probe listener (``/healthz``, ``/readyz`` only)   |
| REFEREE_WORKERS              | 2 x usable CPUs         | worker processes (affinity and cgroup v1/v2 quota)    |
| REFEREE_WORKER_CONNECTIONS   | 1000                    | connections one worker holds at once                  |
| REFEREE_TIMEOUT              | 30                      | seconds a socket read/write or a silent worker may take;|
|                              |                         | the whole body must arrive within it after the head   |
| REFEREE_KEEPALIVE            | 5                       | seconds to send a request's head; idle keep-alive     |
| REFEREE_DRAIN_SECONDS        | 5                       | after SIGTERM: serving on, /readyz 503, then stop     |
| REFEREE_GRACEFUL_TIMEOUT     | 25                      | then: seconds in-flight requests get to finish        |
| REFEREE_MAX_REQUESTS         | 10000                   | a worker is recycled after this many requests         |
| REFEREE_MAX_REQUESTS_JITTER  | 1000                    | ... plus up to this many, so they don't all go        |
| REFEREE_ACCESS_LOG           | -                       | where the JSON access lines go (- = stdout)           |
| REFEREE_LOG_LEVEL            | info                    | gunicorn's error log level                            |
| PROMETHEUS_MULTIPROC_DIR     | a fresh temporary dir   | where workers keep their metric files                 |

The service's own settings (mode, keys, limits, CORS) are in ``service/config.py``; they are
checked here once before any worker starts, so a refused configuration stops the master with a
clear message and exit status 78 (EX_CONFIG) instead of a crash loop of workers.

Workers are gevent-based (``service.gunicorn_worker``): a slow client holds a greenlet, never a
worker. Each listener has its own pool of ``worker_connections`` greenlets per worker, so clients
holding every place on the API's listener leave the probe listener's free: the kubelet's probes
go there. The master's control socket is off: gunicorn would create it under $HOME, which a
non-root user may not have and a read-only root filesystem refuses.
"""

from __future__ import annotations

import datetime as _dt
import json as _json
import os as _os
import shutil as _shutil
import sys as _sys
import tempfile as _tempfile
from collections.abc import Mapping as _Mapping
from pathlib import Path as _Path
from typing import Any as _Any

from gunicorn.glogging import Logger as _GunicornLogger

if __package__:  # imported: python:card_referee.gunicorn_conf (service. in a checkout)
    from .server import DRAIN as _DRAIN
    from .server import install_drain as _install_drain
    from .server import usable_cpus
else:  # run by path (gunicorn -c service/gunicorn_conf.py, runpy): the checkout's package
    from service.server import DRAIN as _DRAIN
    from service.server import install_drain as _install_drain
    from service.server import usable_cpus

__all__ = [
    "accesslog", "bind", "child_exit", "control_socket_disable", "errorlog", "graceful_timeout", "keepalive",
    "limit_request_field_size", "limit_request_fields", "limit_request_line", "logger_class", "loglevel", "max_requests",
    "max_requests_jitter", "on_exit", "on_starting", "post_worker_init", "pre_request", "settings", "timeout",
    "usable_cpus", "when_ready", "worker_class", "worker_connections", "worker_exit", "worker_tmp_dir", "workers", "wsgi_app",
]

EX_CONFIG = 78
_PACKAGE = __package__ or "service"
"""``card_referee`` when installed, ``service`` in a checkout: the worker and the app come from the same package."""


def _env_int(env: _Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{name} must be a whole number, not {raw!r}") from None
    if value < 0:
        raise ValueError(f"{name} must not be negative: {raw!r}")
    return value


def settings(env: _Mapping[str, str] | None = None) -> dict[str, _Any]:
    """gunicorn's settings for ``env`` (default: this process's environment)."""
    env = _os.environ if env is None else env
    api = env.get("REFEREE_BIND", "").strip() or "127.0.0.1:8000"
    metrics = env.get("REFEREE_METRICS_BIND", "").strip()
    probes = env.get("REFEREE_PROBE_BIND", "").strip()
    return {
        "bind": [api, *(bind for bind in (metrics, probes) if bind)],
        "workers": _env_int(env, "REFEREE_WORKERS", 0) or 2 * usable_cpus(),
        "worker_class": f"{_PACKAGE}.gunicorn_worker.RefereeWorker",
        "worker_connections": _env_int(env, "REFEREE_WORKER_CONNECTIONS", 1000) or 1000,
        "timeout": _env_int(env, "REFEREE_TIMEOUT", 30),
        "keepalive": _env_int(env, "REFEREE_KEEPALIVE", 5),
        "graceful_timeout": _env_int(env, "REFEREE_GRACEFUL_TIMEOUT", 25),
        "drain_seconds": _env_int(env, "REFEREE_DRAIN_SECONDS", 5),
        "max_requests": _env_int(env, "REFEREE_MAX_REQUESTS", 10000),
        "max_requests_jitter": _env_int(env, "REFEREE_MAX_REQUESTS_JITTER", 1000),
        "accesslog": env.get("REFEREE_ACCESS_LOG", "-"),
        "loglevel": env.get("REFEREE_LOG_LEVEL", "info"),
    }


_S = settings()
wsgi_app = f"{_PACKAGE}:create_app()"
bind = _S["bind"]
workers = _S["workers"]
worker_class = _S["worker_class"]
worker_connections = _S["worker_connections"]
timeout = _S["timeout"]
keepalive = _S["keepalive"]
graceful_timeout = _S["graceful_timeout"]
max_requests = _S["max_requests"]
max_requests_jitter = _S["max_requests_jitter"]
accesslog = _S["accesslog"]
loglevel = _S["loglevel"]
errorlog = "-"
control_socket_disable = True
worker_tmp_dir = "/dev/shm" if _os.path.isdir("/dev/shm") else None  # heartbeat files off the (read-only) root fs
# gunicorn's request-head limits, stated: a 4094-byte request line (longer: 414), at most 100 header
# fields (more: 431) of at most 8190 bytes each (larger: 431); answered as problem+json by the worker.
limit_request_line = 4094
limit_request_fields = 100
limit_request_field_size = 8190
_DRAIN_SECONDS = _S["drain_seconds"]


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
    """Refuse a configuration the app would refuse, before any worker starts; open a SQLite ledger's
    file once, for every worker (``service.ledger.pin_sqlite_file``); start the metric files from
    empty (counters restart with the instance, as Prometheus expects). The master never imports
    psycopg (``service.ledger.keep_psycopg_out_of_this_process``: a PostgreSQL URL is read by libpq
    in a child process), so that the gevent workers import it after their patching."""
    if __package__:
        from .config import Config, ConfigError
        from .ledger import keep_psycopg_out_of_this_process, pin_sqlite_file
    else:  # run by path
        from service.config import Config, ConfigError
        from service.ledger import keep_psycopg_out_of_this_process, pin_sqlite_file

    if server is not None:  # the master: psycopg is imported by its gevent workers only, after their patching
        keep_psycopg_out_of_this_process()
    try:
        cfg = Config.from_env()
    except ConfigError as exc:
        print(f"card-referee: refusing to start: {exc}", file=_sys.stderr, flush=True)
        raise SystemExit(EX_CONFIG) from None
    if server is not None:
        server.log.info("card-referee: %s mode, %s worker(s), drain %s s", cfg.mode, workers, _DRAIN_SECONDS)
    pin_sqlite_file(cfg.ledger_url)  # every worker, also one started later, holds to the file opened now
    directory = _Path(_os.environ["PROMETHEUS_MULTIPROC_DIR"])
    directory.mkdir(parents=True, exist_ok=True)
    for stale in directory.glob("*.db"):
        stale.unlink()


def when_ready(server: _Any) -> None:
    """SIGTERM drains (``service.server.install_drain``) instead of closing the listener at once."""
    _DRAIN.clear()
    _install_drain(server, _DRAIN_SECONDS)


def _observability() -> _Any:
    if __package__:
        from . import observability
    else:  # run by path
        from service import observability
    return observability


def post_worker_init(worker: _Any) -> None:
    """``/readyz`` says ``draining`` from the moment the master got SIGTERM; the worker's start is
    counted (``referee_worker_starts_total``: a worker that crashed and was replaced shows there,
    where the pod's container restarts do not)."""
    readiness = getattr(worker.wsgi, "extensions", {}).get("referee.readiness")
    if readiness is not None:
        readiness.attach_drain(_DRAIN.is_set)
    _observability().count_worker_start()


def worker_exit(server: _Any, worker: _Any) -> None:
    """In a worker leaving in order: recycled after ``max_requests`` is counted
    (``referee_worker_recycled_total``), so that starts less recycled workers are the crashes."""
    _observability().count_worker_exit(getattr(worker, "nr", 0), getattr(worker, "max_requests", 0))


def pre_request(worker: _Any, req: _Any) -> None:
    """While draining, every answer closes its connection (``Connection: close``); the app may
    close it after its answer too (``service.server.close_after_answer``), and say so."""
    serving = getattr(worker.wsgi, "extensions", {}).get("referee.serving")
    if serving is not None:
        serving(req)
    if _DRAIN.is_set():
        req.must_close = True


def child_exit(server: _Any, worker: _Any) -> None:
    """A dead worker's live-gauge files go; its counters stay, so totals never drop."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]


def on_exit(server: _Any) -> None:
    if _OWN_METRICS_DIR:
        _shutil.rmtree(_os.environ["PROMETHEUS_MULTIPROC_DIR"], ignore_errors=True)
