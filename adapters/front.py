"""The HTTP front of every listener `zeroquiz serve` opens: what a hostile client can't do to it.

On public APIs only: the listening sockets are ours; each accepted connection is handed with
asyncio's `connect_accepted_socket` to aiohttp's low-level `web.Server` (documented as a protocol
factory for asyncio), and the front keeps its asyncio transport; a middleware sees each request
begin and end. Which limit lives where (docs/operations.md has the table):
- aiohttp's documented settings: an over-long header line or field (8190 bytes), more than 128
  headers, a body over the app's client_max_size (413); `keepalive_timeout` = `idle_timeout`: a
  connection must bring a whole request head within it of its last response (idle and slow
  alike), and of opening (behind the shorter header timeout below);
- here: a connection cap, well below the open-file limit: at the cap a new connection displaces
  the oldest one with no request in progress (new, or kept alive after a response), and when
  every connection is inside a request the new one gets a short 503 and is closed, before
  aiohttp sees it; a new connection's first request head within `header_timeout`; a body
  within `body_timeout` of its head, else 408; no traceback for anything a client does (a
  malformed head, a body cut off or badly chunked is one DEBUG line, never an ERROR);
- the reverse proxy HTTP mode requires (TLS): a head trickled over a connection kept alive after
  a response is timed by aiohttp's idle timer here (75 s); the proxy's own header timeout and
  per-client connection limits are the finer guard.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import resource
import socket
import time
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, NamedTuple

from aiohttp import web
from aiohttp.http import HttpProcessingError
from aiohttp.typedefs import Handler

from adapters.timeouts import seconds

if TYPE_CHECKING:
    from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

log = logging.getLogger(__name__)
# aiohttp's per-connection log, given to its server: client faults are demoted here.
server_log = logging.getLogger("adapters.front.server")

DEFAULT_MAX_CONNECTIONS = 1000
# Open files kept for everything but inbound connections: the database and its journal files,
# the outbound HTTP pools (Slack, Discord, reply URLs), PostgreSQL's pool, the health listener;
# and the sockets of a burst the kernel queues (up to BACKLOG) before the front accepts them.
BACKLOG = 256  # the kernel queues this many before accept: a burst of connects isn't dropped
RESERVED_FILES = 256 + BACKLOG
LINGER_SECONDS = 2.0  # after an answer, how long aiohttp reads and drops an unread body
REFUSED = b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
# Connections that closed by themselves (the client, aiohttp's idle timer) are forgotten at the
# cap, when counted for /metrics, and every this many accepted, so few are held below the cap.
SWEEP_EVERY = 64


class HttpLimits(NamedTuple):
    """What one listener allows; every value has an environment variable (http_limits)."""

    max_connections: int = DEFAULT_MAX_CONNECTIONS
    header_timeout: float = 10.0
    body_timeout: float = 10.0
    idle_timeout: float = 75.0  # longer than a reverse proxy's upstream keep-alive (nginx: 60 s)


_TIMEOUTS = {
    "ZEROQUIZ_HTTP_HEADER_TIMEOUT": "header_timeout",
    "ZEROQUIZ_HTTP_BODY_TIMEOUT": "body_timeout",
    "ZEROQUIZ_HTTP_IDLE_TIMEOUT": "idle_timeout",
}


def http_limits(env: Mapping[str, str]) -> HttpLimits:
    """The public listener's limits from the environment; ValueError names a bad variable.

    The cap must leave RESERVED_FILES open files for the rest: the soft RLIMIT_NOFILE is raised
    towards the hard one when needed (no privilege is needed for that), and a cap asked for
    beyond what the hard limit allows stops start-up."""
    values: dict[str, float] = {}
    for name, field in _TIMEOUTS.items():
        value = seconds(env, name)
        if value is not None:
            values[field] = value
    raw = env.get("ZEROQUIZ_HTTP_MAX_CONNECTIONS", "").strip()
    if raw and (not raw.isdigit() or not 1 <= int(raw) <= 1_000_000):
        raise ValueError("ZEROQUIZ_HTTP_MAX_CONNECTIONS must be a whole number from 1")
    room = _file_room(int(raw) if raw else DEFAULT_MAX_CONNECTIONS)
    if raw and int(raw) > room:
        raise ValueError(
            f"ZEROQUIZ_HTTP_MAX_CONNECTIONS must be at most {room} (the open-file limit less "
            f"{RESERVED_FILES}): raise the limit (LimitNOFILE=, ulimit -n) or lower it"
        )
    cap = int(raw) if raw else min(DEFAULT_MAX_CONNECTIONS, room)
    if cap < 1:
        raise ValueError("the open-file limit is too low to serve HTTP: raise LimitNOFILE")
    return HttpLimits(max_connections=cap, **values)


def _file_room(wanted: int) -> int:
    """How many connections the open-file limit leaves room for, raising the soft limit up to
    the hard one if `wanted` needs it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = wanted + RESERVED_FILES
    if soft != resource.RLIM_INFINITY and soft < need:
        target = need if hard == resource.RLIM_INFINITY else min(need, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    if soft == resource.RLIM_INFINITY:
        return wanted
    return soft - RESERVED_FILES


class _ClientFaults(logging.Filter):
    """aiohttp logs each request it could not parse (an 8 KB+ header line, 129 headers, a bad
    request line) as an ERROR with a traceback: the client's fault, so one DEBUG line here."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if record.levelno < logging.ERROR or not isinstance(exc, _CLIENT_FAULTS):
            return True
        record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        record.msg, record.args = "http: refused a request: %s", (_reason(exc),)
        record.exc_info = record.exc_text = None
        return server_log.isEnabledFor(logging.DEBUG)


_CLIENT_FAULTS = (HttpProcessingError, web.RequestPayloadError, ConnectionError)
server_log.addFilter(_ClientFaults())


def _reason(exc: BaseException) -> str:
    if isinstance(exc, HttpProcessingError):
        return f"{exc.code} {exc.message}"[:200]
    return type(exc).__name__


Transport = asyncio.BaseTransport


class Front:
    """One listener's connections, by transport: counted, timed, displaced or refused at the cap."""

    def __init__(self, limits: HttpLimits, name: str) -> None:
        self.limits = limits
        self.name = name
        # Connections with no request in progress, oldest first: the ones a new one displaces.
        # A new one carries its header timer; one kept alive after a response, None (aiohttp's
        # keep-alive timer closes it). Closed ones leave at the next sweep.
        self._waiting: dict[Transport, asyncio.TimerHandle | None] = {}
        self._busy: set[Transport] = set()
        self.refused = 0
        self.displaced = 0
        self.timed_out = 0
        self._accepted = 0

    @property
    def open(self) -> int:
        self._sweep()
        return len(self._waiting) + len(self._busy)

    @property
    def in_request(self) -> int:
        return len(self._busy)

    def admit(self) -> bool:
        """Room for one more connection, displacing the oldest waiting one at the cap."""
        cap = self.limits.max_connections
        self._accepted += 1
        if self._accepted % SWEEP_EVERY == 0:
            self._sweep()
        if len(self._waiting) + len(self._busy) < cap or self.open < cap:
            return True
        for transport in self._waiting:
            self.displaced += 1
            self._drop(transport, "displaced at the connection cap")
            return True
        self.refused += 1
        log.debug("http %s: refused a connection at the cap of %d", self.name, cap)
        return False

    def opened(self, transport: Transport) -> None:
        if transport in self._busy or transport.is_closing():
            return
        loop = asyncio.get_running_loop()
        self._waiting[transport] = loop.call_later(
            self.limits.header_timeout, self._expired, transport
        )

    def _expired(self, transport: Transport) -> None:
        if self._waiting.get(transport) is None:  # a request came, or it is gone
            return
        if not transport.is_closing():
            self.timed_out += 1
        self._drop(transport, "no complete request head")

    def _drop(self, transport: Transport, why: str) -> None:
        log.debug("http %s: closed a connection (%s)", self.name, why)
        self._forget(transport)
        transport.close()

    def _forget(self, transport: Transport) -> None:
        timer = self._waiting.pop(transport, None)
        if timer is not None:
            timer.cancel()

    def _sweep(self) -> None:
        """Forget the connections that closed by themselves (the client, aiohttp)."""
        for transport in [t for t in self._waiting if t.is_closing()]:
            self._forget(transport)

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """The head is in: no header timer while the request runs; its body within
        body_timeout (then every handler reads it from memory)."""
        transport = request.transport
        if transport is not None:
            self._forget(transport)
            self._busy.add(transport)
        try:
            if request.body_exists:
                try:
                    await asyncio.wait_for(request.read(), self.limits.body_timeout)
                except TimeoutError:
                    self.timed_out += 1
                    log.debug("http %s: a body was too slow", self.name)
                    return _closing(408, "request body too slow")
                except _CLIENT_FAULTS as exc:
                    log.debug("http %s: a body cut off or malformed: %s", self.name, _reason(exc))
                    return _closing(400, "malformed request body")
            return await handler(request)
        finally:
            if transport is not None:
                self._busy.discard(transport)
                if not transport.is_closing():
                    self._waiting[transport] = None  # to the end: the most recently active


def _closing(status: int, text: str) -> web.Response:
    response = web.json_response({"error": text}, status=status)
    response.force_close()
    return response


class Gate:
    """At most `rate` requests a second to `paths` (a bucket of `burst`), the rest answered 429
    at once (about a tenth of the page's cost). For pages anyone may open that cost the loop a
    millisecond each without ever waiting (Bolt's install page): aiohttp gives every connection
    a turn of the loop, so a hundred pipelined connections of them would make each turn a
    tenth of a second long, and a click waits several turns."""

    def __init__(
        self,
        paths: tuple[str, ...],
        *,
        rate: float = 20.0,
        burst: float = 40.0,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.paths = paths
        self.rate = rate
        self.burst = burst
        self._now = now
        self._tokens = burst
        self._at = now()
        self.refused = 0

    def _take(self) -> bool:
        now = self._now()
        self._tokens = min(self.burst, self._tokens + (now - self._at) * self.rate)
        self._at = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.path not in self.paths or self._take():
            return await handler(request)
        self.refused += 1
        return web.json_response(
            {"error": "too many requests"}, status=429, headers={"Retry-After": "1"}
        )


class FrontMetrics:
    """The front's connections for /metrics, read when scraped (a prometheus_client collector:
    the library is imported only once a registry exists, see adapters/metrics.py)."""

    def __init__(self, front: Front) -> None:
        self.front = front

    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

        f = self.front
        open_now = GaugeMetricFamily(
            "zeroquiz_http_connections",
            "Open connections to a listener, by state (waiting: idle or sending a head)",
            labels=["listener", "state"],
        )
        open_now.add_metric([f.name, "in_request"], f.in_request)
        open_now.add_metric([f.name, "waiting"], f.open - f.in_request)
        yield open_now
        closed = CounterMetricFamily(
            "zeroquiz_http_connections_closed",
            "Connections the front closed: refused at the cap, displaced, timed out",
            labels=["listener", "reason"],
        )
        closed.add_metric([f.name, "refused"], f.refused)
        closed.add_metric([f.name, "displaced"], f.displaced)
        closed.add_metric([f.name, "timed_out"], f.timed_out)
        yield closed


class Listener:
    """A listener: our sockets, their accept loops, aiohttp's runner (`addresses`, `cleanup`
    as an AppRunner's) and the front."""

    def __init__(self, runner: web.AppRunner, front: Front, sockets: list[socket.socket]) -> None:
        self.runner = runner
        self.front = front
        self.sockets = sockets
        self.addresses = [sock.getsockname() for sock in sockets]
        self._tasks = [asyncio.create_task(self._accept(sock)) for sock in sockets]

    @property
    def url(self) -> str:
        """http://host:port of the first address (the port is the real one when 0 was asked)."""
        host, port = self.addresses[0][:2]
        return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"

    async def _accept(self, sock: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        server = self.runner.server
        assert server is not None
        while True:
            try:
                conn, _ = await loop.sock_accept(sock)
            except ConnectionAbortedError:  # the client left before it was accepted
                continue
            except OSError as exc:  # as asyncio's own server: a second's pause, then again
                log.warning("http %s: cannot accept a connection: %s", self.front.name, exc)
                await asyncio.sleep(1.0)
                continue
            if not self.front.admit():
                _refuse(conn)
                continue
            try:
                transport, _ = await loop.connect_accepted_socket(server, conn)
            except OSError:
                conn.close()
                continue
            self.front.opened(transport)

    async def cleanup(self) -> None:
        """Stop accepting, then aiohttp's shutdown: requests in progress may finish."""
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for sock in self.sockets:
            sock.close()
        await self.runner.cleanup()


def _refuse(conn: socket.socket) -> None:
    """A connection over the cap: a 503 and closed, without reading a byte."""
    with contextlib.suppress(OSError):
        conn.send(REFUSED)
    conn.close()


async def _listen(host: str, port: int) -> list[socket.socket]:
    """Listening sockets on every address `host` names, as asyncio's create_server binds them."""
    try:  # an address needs no resolver thread
        found = socket.getaddrinfo(
            host or None,
            port,
            type=socket.SOCK_STREAM,
            flags=socket.AI_PASSIVE | socket.AI_NUMERICHOST,
        )
    except socket.gaierror:  # a name
        found = await asyncio.get_running_loop().getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    sockets: list[socket.socket] = []
    try:
        for family, address in dict.fromkeys((info[0], info[4]) for info in found):
            sockets.append(socket.create_server(address, family=family, backlog=BACKLOG))
            sockets[-1].setblocking(False)
    except BaseException:
        for sock in sockets:
            sock.close()
        raise
    return sockets


async def serve_app(
    app: web.Application,
    host: str,
    port: int,
    limits: HttpLimits,
    name: str,
    *,
    gate: Gate | None = None,
) -> Listener:
    """Serve `app` on host:port behind a Front (and a Gate on some paths, if given)."""
    front = Front(limits, name)
    if gate is not None:
        app.middlewares.insert(0, gate.middleware)
    app.middlewares.insert(0, front.middleware)
    runner = web.AppRunner(
        app,
        handle_signals=False,
        access_log=None,
        logger=server_log,
        # aiohttp's own timer: a connection that has not sent a whole request head within this
        # long of its last response (or of opening: the front's header timer is shorter) closes.
        keepalive_timeout=limits.idle_timeout,
        lingering_time=LINGER_SECONDS,
    )
    await runner.setup()
    try:
        sockets = await _listen(host, port)
    except BaseException:
        await runner.cleanup()
        raise
    return Listener(runner, front, sockets)
