"""/healthz, /readyz and /metrics: what an orchestrator and Prometheus ask a running process.

/healthz answers 200 while the event loop runs. /readyz answers 200 only when every configured
surface says it is connected and the database answers a trivial query, else 503 with a JSON body
naming each part's state. The routes go on their own server (ZEROQUIZ_METRICS_PORT, on
127.0.0.1 unless ZEROQUIZ_METRICS_HOST says otherwise), never on Slack's public listener: what the
process is doing is for its operator, not for whoever reaches /slack/events.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

from adapters.logs import brief
from adapters.metrics import Metrics
from bot.storage import Store

if TYPE_CHECKING:  # the server's parts are imported when it starts: most starts serve no metrics
    from aiohttp import web

    from adapters.front import Listener

log = logging.getLogger(__name__)

DB_TIMEOUT = 2.0  # a database slower than this to say "1" is not ready
# A health checker and a Prometheus scraper need a handful of connections, not more.
MAX_CONNECTIONS = 64


class Ready(Protocol):
    name: str

    async def ready(self) -> bool: ...


class Health:
    def __init__(self, store: Store, metrics: Metrics) -> None:
        self.store = store
        self.metrics = metrics
        self.surfaces: list[Ready] = []  # set by `zeroquiz serve` once they are built

    async def parts(self) -> dict[str, str]:
        """Each part's state: "ready", or a few words on why not."""
        parts: dict[str, str] = {}
        if not self.surfaces:
            parts["surfaces"] = "none configured yet"
        for surface in self.surfaces:
            try:
                up = await surface.ready()
            except Exception as exc:
                log.warning("readiness of %s failed: %s", surface.name, brief(exc))
                up = False
            parts[surface.name] = "ready" if up else "not connected"
        try:
            await asyncio.wait_for(self.store.ping(), DB_TIMEOUT)
            parts["database"] = "ready"
        except TimeoutError:
            parts["database"] = f"no answer within {DB_TIMEOUT:.0f} s"
        except Exception as exc:
            parts["database"] = f"unreachable ({type(exc).__name__})"
        return parts

    async def healthz(self, request: web.Request) -> web.Response:
        from aiohttp import web

        return web.Response(text="ok\n")

    async def readyz(self, request: web.Request) -> web.Response:
        from aiohttp import web

        parts = await self.parts()
        ready = all(state == "ready" for state in parts.values())
        return web.Response(
            text=json.dumps({"ready": ready, "parts": parts}) + "\n",
            status=200 if ready else 503,
            content_type="application/json",
        )

    async def metrics_page(self, request: web.Request) -> web.Response:
        from aiohttp import web

        body, content_type = self.metrics.render()
        return web.Response(body=body, headers={"Content-Type": content_type})

    def routes(self) -> list[web.RouteDef]:
        from aiohttp import web

        return [
            web.get("/healthz", self.healthz),
            web.get("/readyz", self.readyz),
            web.get("/metrics", self.metrics_page),
        ]


def metrics_address(env: Mapping[str, str]) -> tuple[str, int] | None:
    """(host, port) from ZEROQUIZ_METRICS_HOST/PORT; None when the port is unset (off).
    ValueError, a message naming the variable, for a port that is not 0-65535."""
    raw = env.get("ZEROQUIZ_METRICS_PORT", "").strip()
    if not raw:
        return None
    if not raw.isdigit() or int(raw) > 65535:
        raise ValueError("ZEROQUIZ_METRICS_PORT must be a port number (0-65535)")
    return env.get("ZEROQUIZ_METRICS_HOST", "").strip() or "127.0.0.1", int(raw)


async def start_server(health: Health, host: str, port: int) -> Listener:
    """The health and metrics routes on their own server; port 0 takes a free one (logged)."""
    from aiohttp import web

    from adapters.front import HttpLimits, serve_app

    app = web.Application()
    app.add_routes(health.routes())
    limits = HttpLimits(max_connections=MAX_CONNECTIONS)
    listener = await serve_app(app, host, port, limits, "health")
    log.info("health and metrics on %s", listener.url)
    return listener
