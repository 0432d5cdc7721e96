"""The HTTP front of every listener `zeroquiz serve` opens: what a hostile client can't do to it.

aiohttp's server already refuses an over-long header line or field (8190 bytes), more than 128
headers and a body over the app's client_max_size, and closes a connection that has sent no
complete request within its keep-alive timer. What it lacks is added here:
- a connection cap, well below the open-file limit: at the cap a new connection displaces the
  oldest one with no request in progress (one that is idle or still sending its head), and when
  every connection is inside a request the new one gets a short 503 and is closed, cheaply, before
  aiohttp sees it;
- a header timeout: a request's head must arrive complete within `header_timeout` of the
  connection opening, or of its first byte after the previous response;
- an idle limit on kept-alive connections (`idle_timeout`);
- a body timeout: the body must arrive within `body_timeout` of the head, else 408;
- no traceback for anything a client does: a malformed head (aiohttp's 400), a body cut off or
  badly chunked is one DEBUG line, never an ERROR.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.typedefs import Handler
from aiohttp.web_protocol import RequestHandler, RequestPayloadError

if TYPE_CHECKING:
    from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

log = logging.getLogger(__name__)
# aiohttp's per-connection log, given to its RequestHandler: client faults are demoted here.
server_log = logging.getLogger("adapters.front.server")

DEFAULT_MAX_CONNECTIONS = 1000
# Open files kept for everything but inbound connections: the database and its journal files,
# the outbound HTTP pools (Slack, Discord, reply URLs), PostgreSQL's pool, the health listener;
# and the sockets of a burst that asyncio accepts (up to BACKLOG) before the front sees them.
BACKLOG = 256  # the kernel queues this many before accept: a burst of connects isn't dropped
RESERVED_FILES = 256 + BACKLOG
LINGER_SECONDS = 2.0  # after an answer, how long aiohttp reads and drops an unread body
REFUSED = b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


@dataclass(frozen=True)
class HttpLimits:
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
        raw = env.get(name, "").strip()
        if not raw:
            continue
        try:
            value = float(raw)
        except ValueError:
            value = -1.0
        if not 0.1 <= value <= 3600:
            raise ValueError(f"{name} must be a number of seconds from 0.1 to 3600")
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


_CLIENT_FAULTS = (HttpProcessingError, RequestPayloadError, ConnectionError)
server_log.addFilter(_ClientFaults())


def _reason(exc: BaseException) -> str:
    if isinstance(exc, HttpProcessingError):
        return f"{exc.code} {exc.message}"[:200]
    return type(exc).__name__


class Front:
    """One listener's connections: counted, timed, and displaced or refused at the cap."""

    def __init__(self, limits: HttpLimits, name: str) -> None:
        self.limits = limits
        self.name = name
        self._guards: dict[RequestHandler, _Guard] = {}
        # Connections with no request in progress, oldest first: the ones a new one displaces.
        self._waiting: dict[_Guard, None] = {}
        self.refused = 0
        self.displaced = 0
        self.timed_out = 0

    @property
    def open(self) -> int:
        return len(self._guards)

    @property
    def in_request(self) -> int:
        return len(self._guards) - len(self._waiting)

    def protocol(self, server: web.Server) -> asyncio.Protocol:
        """The protocol of one accepted connection (the listening socket's factory)."""
        if len(self._guards) >= self.limits.max_connections and not self._displace():
            self.refused += 1
            log.debug("http %s: refused a connection at the cap of %d", self.name, self.open)
            return _Refuse()
        guard = _Guard(self, server())
        self._guards[guard.inner] = guard
        return guard

    def _displace(self) -> bool:
        for guard in self._waiting:
            self.displaced += 1
            guard.drop("displaced at the connection cap")
            return True
        return False

    def forget(self, guard: _Guard) -> None:
        self._guards.pop(guard.inner, None)
        self._waiting.pop(guard, None)

    def waiting(self, guard: _Guard, waits: bool) -> None:
        self._waiting.pop(guard, None)
        if waits and guard.inner in self._guards:
            self._waiting[guard] = None  # to the end: the most recently active

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """The head is in: no header timer while the request runs; its body within
        body_timeout (then every handler reads it from memory)."""
        guard = self._guards.get(request.protocol)
        if guard is not None:
            guard.busy()
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
            if guard is not None:
                guard.idle()


def _closing(status: int, text: str) -> web.Response:
    response = web.json_response({"error": text}, status=status)
    response.force_close()
    return response


class _Refuse(asyncio.Protocol):
    """A connection over the cap: a 503 and closed, without reading a byte."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        transport.write(REFUSED)
        transport.close()


class _Guard(asyncio.Protocol):
    """aiohttp's RequestHandler for one connection, with a timer on its head and idle time."""

    def __init__(self, front: Front, inner: RequestHandler) -> None:
        self.front = front
        self.inner = inner
        self.transport: asyncio.Transport | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._idle = False  # kept alive after a response, nothing of the next request yet
        self._busy = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.front.waiting(self, True)
        self._arm(self.front.limits.header_timeout, "no complete request head")
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self._idle:
            self._idle = False
            self._arm(self.front.limits.header_timeout, "no complete request head")
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()  # type: ignore[func-returns-value]

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self.front.forget(self)
        self.inner.connection_lost(exc)

    def busy(self) -> None:
        self._busy, self._idle = True, False
        self._disarm()
        self.front.waiting(self, False)

    def idle(self) -> None:
        self._busy, self._idle = False, True
        self._arm(self.front.limits.idle_timeout, "idle")
        self.front.waiting(self, True)

    def drop(self, why: str) -> None:
        log.debug("http %s: closed a connection (%s)", self.front.name, why)
        self._disarm()
        self.front.forget(self)
        if self.transport is not None:
            self.transport.close()

    def _arm(self, seconds: float, why: str) -> None:
        self._disarm()
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(seconds, self._expired, why)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _expired(self, why: str) -> None:
        self._timer = None
        if not self._busy:
            self.front.timed_out += 1
            self.drop(why)


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


class GuardedSite(web.BaseSite):
    """aiohttp's TCPSite with each accepted connection going through a Front."""

    def __init__(self, runner: web.BaseRunner, host: str, port: int, front: Front) -> None:
        super().__init__(runner, backlog=BACKLOG)
        self._host = host
        self._port = port
        self.front = front

    @property
    def name(self) -> str:
        sockets = getattr(self._server, "sockets", None)
        port = sockets[0].getsockname()[1] if sockets else self._port
        return f"http://{self._host}:{port}"

    async def start(self) -> None:
        await super().start()
        server = self._runner.server
        assert server is not None
        self._server = await asyncio.get_running_loop().create_server(
            lambda: self.front.protocol(server), self._host, self._port, backlog=self._backlog
        )


async def serve_app(
    app: web.Application,
    host: str,
    port: int,
    limits: HttpLimits,
    name: str,
    *,
    gate: Gate | None = None,
) -> tuple[web.AppRunner, Front]:
    """Serve `app` on host:port behind a Front (and a Gate on some paths, if given): the runner
    (its `addresses`) and the front."""
    front = Front(limits, name)
    if gate is not None:
        app.middlewares.insert(0, gate.middleware)
    app.middlewares.insert(0, front.middleware)
    runner = web.AppRunner(
        app,
        handle_signals=False,
        access_log=None,
        logger=server_log,
        # aiohttp's own timer, a backstop behind the Front's: it closes a connection that has
        # not sent a whole request within this long of opening or of its last response.
        keepalive_timeout=limits.header_timeout + limits.idle_timeout,
        lingering_time=LINGER_SECONDS,
    )
    await runner.setup()
    try:
        await GuardedSite(runner, host, port, front).start()
    except BaseException:
        await runner.cleanup()
        raise
    return runner, front
