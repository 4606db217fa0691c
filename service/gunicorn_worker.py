"""The gunicorn worker class of Card Referee: gevent's, so slow clients cost a greenlet, not a worker.

Every connection gets its own greenlet (up to ``worker_connections`` per worker), so a client that
trickles its request holds only that greenlet, and never for long:

- **head**: ``keepalive`` seconds (``REFEREE_KEEPALIVE``) to send the request line and headers,
  and as long between two requests on one connection (gunicorn's own deadline);
- **body**: ``timeout`` seconds (``REFEREE_TIMEOUT``) after the head, in total, however the body
  trickles (``service.server.body_deadline``); past it the read fails, the app answers 400
  ``body_timeout`` and the connection closes;
- **any read or write**: at most ``timeout`` seconds (gunicorn's gevent worker would make the
  socket blocking again, without a timeout, so this worker does not call its ``handle``).

The rules engines are CPU-bound and quick; a request runs from start to end without yielding.

On stop (SIGTERM from the master once the drain period is over) the worker stops accepting, takes
every connection still queued on the listening socket (the master has already made the socket
refuse new ones, see ``service.server.refuse_new_connections``), finishes everything in flight
within ``graceful_timeout``, and only then closes its copy of the listener.
"""

from __future__ import annotations

import time
from functools import partial
from typing import Any

import gevent
import gunicorn.util
from gevent.pool import Pool
from gevent.server import StreamServer
from gunicorn.workers.base_async import AsyncWorker
from gunicorn.workers.ggevent import GeventWorker

from .server import body_deadline, write_problem

__all__ = ["RefereeWorker"]


class RefereeWorker(GeventWorker):  # type: ignore[misc]
    """gunicorn's gevent worker, with a stop that answers every queued connection."""

    def init_process(self) -> None:
        gunicorn.util.write_error = write_problem  # gunicorn's own 400/414/431 answers, as problems
        super().init_process()

    def handle(self, listener: Any, client: Any, addr: Any) -> None:
        # No single read or write waits longer than ``timeout``. GeventWorker.handle would set the
        # socket blocking (no timeout at all) before going on to AsyncWorker.handle: skip it.
        client.settimeout(self.cfg.timeout or None)
        AsyncWorker.handle(self, listener, client, addr)

    def handle_request(self, listener_name: Any, req: Any, sock: Any, addr: Any) -> Any:
        with body_deadline(req, self.cfg.timeout):  # the whole body within ``timeout`` of its head
            return super().handle_request(listener_name, req, sock, addr)

    def handle_exit(self, sig: int, frame: Any) -> None:
        readiness = getattr(getattr(self, "wsgi", None), "extensions", {}).get("referee.readiness")
        if readiness is not None:
            readiness.begin_shutdown()
        super().handle_exit(sig, frame)

    def run(self) -> None:
        servers: list[StreamServer] = []
        for listener in self.sockets:
            listener.setblocking(1)
            server = StreamServer(listener, handle=partial(self.handle, listener), spawn=Pool(self.worker_connections))
            if self.cfg.workers > 1:
                server.max_accept = 1  # leave queued connections to idle workers
            server.start()
            servers.append(server)

        while self.alive:
            self.notify()
            gevent.sleep(0.5)

        # Stop: take what is queued, finish everything in flight, then close the listener copies.
        # (The handlers still read the listener's address, so it stays open until they are done;
        # the master has made it refuse new connections, so nothing joins the queue meanwhile.)
        taken = 0
        for server in servers:
            server.stop_accepting()
            taken += self._take_queued(server)
        if taken:
            self.log.info("took %d queued connection(s) at stop", taken)
        deadline = time.monotonic() + self.cfg.graceful_timeout
        while time.monotonic() < deadline and any(s.pool.free_count() != s.pool.size for s in servers):
            self.notify()
            gevent.sleep(0.05)
            for server in servers:
                self._take_queued(server)
        for server in servers:
            if server.pool.free_count() != server.pool.size:
                self.log.warning("graceful timeout: cutting %d connection(s)", server.pool.size - server.pool.free_count())
            server.close()
            server.stop(timeout=1)

    @staticmethod
    def _take_queued(server: StreamServer) -> int:
        """Accept and hand to the pool every connection waiting on the listener (non-blocking)."""
        taken = 0
        while True:
            try:
                accepted = server.do_read()
            except OSError:
                break
            if not accepted:
                break
            server.do_handle(*accepted)
            taken += 1
        return taken
