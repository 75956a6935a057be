"""How the mock's HTTP server guards itself: timeouts, a connection cap, a quiet log.

uvicorn times out idle keep-alive connections only. A client that opens a connection
and never finishes its request line and headers, or that sends its body at a byte a
second, would hold a connection (and a file descriptor) forever; a thousand of them
exhaust the descriptors and the accept loop then logs an error per attempt. So:

- :class:`ServerSettings` holds every limit, for ``python -m arctic_rl_mock`` and the
  in-process :class:`devtools.live_mock.LiveMock` alike (``uvicorn_options``
  is the one place both turn them into uvicorn's arguments);
- :func:`guarded_protocol` is uvicorn's HTTP protocol plus a header deadline (request line
  and headers complete within ``header_timeout_s`` of the connection or of the first byte
  of a new request, else 408 and close), a cap on their size (400 and close beyond
  ``max_header_bytes``) and a connection cap (a connection beyond
  ``max_connections`` is answered 503 with ``Retry-After`` and closed at once, before it
  can pin a descriptor);
- the body's pace is the ASGI middleware's job (:mod:`arctic_rl_mock.web.middleware`), since
  only the app knows when it is waiting for the body;
- :class:`ThrottledLog` keeps each kind of refusal to one log line per interval;
- :func:`quiet_resource_errors` does the same for the event loop's own errors when the
  process runs out of descriptors or buffers (``EMFILE``, ``ENFILE``, ``ENOBUFS``,
  ``ENOMEM``): asyncio's accept loop reports each failed ``accept()`` to the loop's
  exception handler ("socket.accept() out of system resource"), whose default logs a
  traceback each time; the handler installed here logs one line per interval with a count
  of the ones left out, and passes every other error to the default handler.
"""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any

from cortex_gs_contract import REQUEST_ID_HEADER, RETRY_AFTER_HEADER, ErrorCode
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from arctic_rl_mock.errors import error_body

log = logging.getLogger("arctic_rl_mock")

# Descriptors kept free beyond the connection cap: the store, chunk files, logs, threads.
FD_HEADROOM = 256
# The errors of a process out of descriptors or buffers: transient, and one is like another.
RESOURCE_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})


@dataclass(frozen=True)
class ServerSettings:
    """The server's limits; the defaults are what ``python -m arctic_rl_mock`` runs with.

    ``header_timeout_s``: request line and headers must be complete this long after the
    connection opens (or the first byte of a follow-up request arrives). ``keep_alive_s``:
    an idle keep-alive connection is closed after this. A request body must keep coming:
    no gap longer than ``body_idle_timeout_s``, and after ``body_grace_s`` of waiting at
    least ``body_min_rate`` bytes per second waited (time the app spends not reading does
    not count against the client); otherwise 408 and close. ``max_connections`` open
    connections (and as many in-flight requests) at most; ``backlog`` is the listen queue.
    ``graceful_shutdown_s`` bounds how long a stopping server waits for in-flight requests.
    ``max_header_bytes`` caps the request line plus headers (400 and close beyond it).
    ``blocking_threads`` is the size of the pool the mock's blocking work (store, files,
    hashing) runs on, the event loop's default executor: fixed, so the mock's threads are
    the same on every machine and Python (asyncio's own is ``min(32, cores + 4)`` and
    starts another thread whenever a call finds every worker busy, which depends on
    timing).
    """

    header_timeout_s: float = 10.0
    keep_alive_s: float = 5.0
    body_idle_timeout_s: float = 30.0
    body_grace_s: float = 10.0
    body_min_rate: float = 1024.0
    max_connections: int = 512
    backlog: int = 512
    graceful_shutdown_s: float = 10.0
    max_header_bytes: int = 16 * 1024
    log_interval_s: float = 10.0
    blocking_threads: int = 4

    def uvicorn_options(self) -> dict[str, Any]:
        """Keyword arguments for ``uvicorn.run`` / ``uvicorn.Config`` that apply these limits."""
        return {
            "http": guarded_protocol(self),
            "timeout_keep_alive": self.keep_alive_s,
            "backlog": self.backlog,
            "timeout_graceful_shutdown": self.graceful_shutdown_s,
            # No proxy in front: the peer a refusal logs is the socket's, never a header's
            # (and a middleware layer fewer on every request).
            "proxy_headers": False,
        }

    def ensure_descriptors(self) -> None:
        """Raise this process's open-file limit so the cap, not the kernel, refuses first."""
        try:
            import resource
        except ImportError:  # Windows: no such limit to raise
            return
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        needed = self.max_connections + FD_HEADROOM
        if soft != resource.RLIM_INFINITY and soft < needed:
            ceiling = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
            resource.setrlimit(resource.RLIMIT_NOFILE, (ceiling, hard))
            if ceiling < needed:
                log.warning(
                    "open-file limit %d is below max_connections + %d; lower the cap",
                    hard,
                    FD_HEADROOM,
                )


class ThrottledLog:
    """One kind of event logged at most once per ``interval_s``; the rest are counted.

    A flood of refused connections or slow senders then costs a line per interval that
    says how many were left out, not a line each. The event loop and the worker threads
    (storage errors) both report here, so the count and the next slot change under a lock.
    """

    def __init__(self, logger: logging.Logger, interval_s: float) -> None:
        self.logger = logger
        self.interval_s = interval_s
        self._next_at = 0.0
        self._suppressed = 0
        self._lock = threading.Lock()

    def warning(self, message: str, *args: object) -> None:
        """Log ``message`` now, or count it if a line went out less than an interval ago."""
        with self._lock:
            now = time.monotonic()
            if now < self._next_at:
                self._suppressed += 1
                return
            suppressed, self._suppressed = self._suppressed, 0
            self._next_at = now + self.interval_s
        if suppressed:
            message += " (and %d more like it in the last %.0f s)"
            args = (*args, suppressed, self.interval_s)
        self.logger.warning(message, *args)


def out_of_resources(exc: BaseException | None) -> bool:
    """Whether ``exc`` says the process ran out of descriptors or buffers."""
    return isinstance(exc, OSError) and exc.errno in RESOURCE_ERRNOS


def quiet_resource_errors(loop: asyncio.AbstractEventLoop, interval_s: float) -> None:
    """Make ``loop`` log running out of descriptors or buffers once per ``interval_s``.

    The loop's exception handler (what asyncio calls for errors no task catches, such as
    a failed ``accept()``) logs those as one throttled line without a traceback; any other
    error goes to the loop's default handler, as before.
    """
    throttled = ThrottledLog(log, interval_s)

    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if out_of_resources(exc):
            throttled.warning("%s: %s", context.get("message", "out of resources"), exc)
        elif _late_accept_retry(context):
            log.debug("accept retry after the listener closed: %s", exc)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handle)


def _late_accept_retry(context: dict[str, Any]) -> bool:
    """Whether ``context`` is asyncio's retry of ``accept()`` firing after shutdown.

    After a failed accept (out of descriptors) asyncio re-arms the listener a second
    later; if the server closed meanwhile, that timer finds the socket gone and raises
    ``ValueError`` (descriptor -1). Nothing is lost: the listener is closed on purpose.
    """
    exc = context.get("exception")
    return isinstance(exc, ValueError) and "_start_serving" in str(context.get("message", ""))


def canned_response(status: int, reason: str, code: str, message: str) -> bytes:
    """A whole ``Connection: close`` error answer, for refusals made before any request.

    These are written straight to the socket (no request was parsed, so h11 cannot frame
    them); the body has the same shape as every other error the mock sends.
    """
    request_id = str(uuid.uuid4())
    body = json.dumps(error_body(status, code, message, request_id)).encode()
    headers = [
        f"HTTP/1.1 {status} {reason}",
        "content-type: application/json",
        f"content-length: {len(body)}",
        "connection: close",
        f"{REQUEST_ID_HEADER.lower()}: {request_id}",
    ]
    if status == 503:
        headers.append(f"{RETRY_AFTER_HEADER.lower()}: 1")
    return ("\r\n".join(headers) + "\r\n\r\n").encode() + body


def guarded_protocol(settings: ServerSettings) -> type[HttpToolsProtocol]:
    """uvicorn's httptools protocol with the header deadline and connection cap of ``settings``.

    httptools (pinned by the ``mock`` extra) parses a request in a fraction of h11's time.
    uvicorn builds one protocol object per connection from the class alone, so the
    settings travel as class attributes of a subclass made for them.
    """
    attributes = {
        "guards": settings,
        "refused_log": ThrottledLog(log, settings.log_interval_s),
        "timed_out_log": ThrottledLog(log, settings.log_interval_s),
    }
    return type("GuardedHttpToolsProtocol", (_GuardedProtocol,), attributes)


class _GuardedProtocol(HttpToolsProtocol):
    """The cap on connections, a deadline and a size cap on request lines and headers.

    Headers are awaited from the moment a connection opens, or from the first byte after
    the last answer, until the parser has them all.

    A subclass because uvicorn (pinned at 0.54.0 by the ``mock`` extra) has no knob for
    any of the three: no header-read timeout (``timeout_keep_alive`` covers idle
    keep-alive connections only); ``limit_concurrency`` answers its 503 only once a
    request's headers are in, so a connection that never sends a byte keeps its
    descriptor; and the header-size limit (``h11_max_incomplete_event_size``) applies
    to the h11 protocol only. It relies on ``HttpToolsProtocol``'s callbacks
    (``connection_made``, ``data_received``, ``on_message_begin``, ``on_url``,
    ``on_header``, ``on_headers_complete``, ``connection_lost``) and attributes
    (``connections``, ``tasks``, ``cycle``, ``transport``, ``loop``, ``client``): check
    them again before moving the pin (``tests/reliability/test_server_guards.py``).
    """

    guards: ServerSettings
    refused_log: ThrottledLog
    timed_out_log: ThrottledLog
    _header_deadline: asyncio.TimerHandle | None = None
    _header_bytes = 0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        cap = self.guards.max_connections
        if len(self.connections) > cap or len(self.tasks) >= cap:
            self.refused_log.warning(
                "refused a connection: %d open, %d requests in flight (cap %d)",
                len(self.connections) - 1,
                len(self.tasks),
                cap,
            )
            transport.write(
                canned_response(
                    503,
                    "Service Unavailable",
                    ErrorCode.unavailable,
                    f"the server holds its maximum of {cap} connections; retry shortly",
                )
            )
            transport.close()
            return
        self._await_headers()

    def connection_lost(self, exc: Exception | None) -> None:
        self._headers_arrived()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.cycle is None or self.cycle.response_complete:
            self._await_headers()  # the first byte of a request starts its header deadline
        super().data_received(data)

    def on_message_begin(self) -> None:
        self._header_bytes = 0
        super().on_message_begin()

    def on_url(self, url: bytes) -> None:
        self._count_header_bytes(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count_header_bytes(len(name) + len(value))
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._headers_arrived()
        super().on_headers_complete()

    def _count_header_bytes(self, size: int) -> None:
        # Raised inside the parser, which uvicorn answers with a 400 and a closed connection.
        self._header_bytes += size
        if self._header_bytes > self.guards.max_header_bytes:
            raise ValueError(f"request headers over {self.guards.max_header_bytes} bytes")

    def _await_headers(self) -> None:
        if self._header_deadline is None:
            self._header_deadline = self.loop.call_later(
                self.guards.header_timeout_s, self._headers_timed_out
            )

    def _headers_arrived(self) -> None:
        if self._header_deadline is not None:
            self._header_deadline.cancel()
            self._header_deadline = None

    def _headers_timed_out(self) -> None:
        self._header_deadline = None
        if self.transport.is_closing():
            return
        peer = f"{self.client[0]}:{self.client[1]}" if self.client else "a client"
        self.timed_out_log.warning(
            "closed the connection from %s: no complete request line and headers within %.1f s",
            peer,
            self.guards.header_timeout_s,
        )
        self.transport.write(
            canned_response(
                408,
                "Request Timeout",
                ErrorCode.request_timeout,
                f"request line and headers not complete within {self.guards.header_timeout_s} s",
            )
        )
        self.transport.close()


__all__ = [
    "ServerSettings",
    "ThrottledLog",
    "canned_response",
    "guarded_protocol",
    "out_of_resources",
    "quiet_resource_errors",
]
