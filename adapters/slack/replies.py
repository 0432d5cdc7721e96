"""Private replies through a request's response_url, on the app's shared HTTP session.

Bolt's `respond` opens a new HTTP session for every reply; under a burst that is hundreds of
sessions and TLS handshakes at once. This sends the same JSON through one pooled session, as one
plain POST (slack_sdk's webhook client, used before, cost a sixth of the reply's CPU in building
itself and its retry state); as slack_sdk did, a connection cut or refused is tried once more
after half a second, and the POST goes through the proxy HTTPS_PROXY or HTTP_PROXY names.

A reply that fails in passing (a dropped connection, a timeout, HTTP 429 or 5xx) is the verdict a
person is waiting for, and its answer is recorded already: it is sent again in the background on
the injected clock, at most `MAX_USES` requests in all (Slack honours a response_url five times)
and only while the URL is valid (30 minutes). The click's in-flight slot is released meanwhile,
so an outage of response_url never blocks new clicks. A refusal (another 4xx) is not retried.
A try that gets no answer within the session's timeout is logged, naming the workspace (see
web.calls_for), and counted (`on_timeout`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Literal

import aiohttp
from slack_sdk.proxy_env_variable_loader import load_http_proxy_from_env

from adapters.slack.render import SlackMessage
from adapters.slack.web import workspace_of_calls
from bot.clock import Clock

log = logging.getLogger(__name__)

URL_LIFETIME = timedelta(minutes=30)
MAX_USES = 5
# After the first try: how long to wait before each further one (4 more: 5 uses in all).
BACKOFF = (timedelta(seconds=1), timedelta(seconds=5), timedelta(seconds=30), timedelta(minutes=3))
Outcome = Literal["sent", "refused", "again"]
MAX_WAITING = 2048  # replies waiting for a retry; beyond that a new failure is only logged
_HEADERS = {"Content-Type": "application/json;charset=utf-8"}
# What slack_sdk's connection-error retry handler retried once (ClientOSError: a reset, a refusal).
_CUT = (aiohttp.ServerConnectionError, aiohttp.ServerDisconnectedError, aiohttp.ClientOSError)
CUT_RETRY_SECONDS = 0.5  # real time, as slack_sdk waited (its backoff's first step)


def _uncounted() -> None:
    """The default: nobody counts timeouts."""


class Replies:
    def __init__(
        self,
        session: aiohttp.ClientSession,
        clock: Clock,
        *,
        seconds: float,
        on_timeout: Callable[[], None] = _uncounted,
        workspace: str | None = None,
    ) -> None:
        self._session = session
        self._clock = clock
        self._seconds = seconds  # the timeout `session` carries, said when a post runs it out
        self._on_timeout = on_timeout
        self._workspace = workspace  # one workspace's id: named when no request says which
        self._waiting: set[asyncio.Task[None]] = set()
        self._proxy = load_http_proxy_from_env()

    async def send(
        self, response_url: str, message: SlackMessage, *, replace: bool = False
    ) -> None:
        """Send privately to the person; a passing failure is retried later, in the background.
        `replace`: the message replaces the private one clicked (the review's steps)."""
        received = self._clock.now()
        payload = {
            "text": message.text,
            "blocks": message.blocks,
            "response_type": "ephemeral",
            "replace_original": replace,
        }
        if await self._try(response_url, payload) != "again":
            return
        if len(self._waiting) >= MAX_WAITING:
            log.warning("private reply not delivered: too many replies waiting for a retry")
            return
        task = asyncio.create_task(self._retry(response_url, payload, received))
        self._waiting.add(task)
        task.add_done_callback(self._waiting.discard)

    async def _retry(self, url: str, payload: dict[str, object], received: datetime) -> None:
        for wait in BACKOFF:
            at = self._clock.now() + wait
            if at >= received + URL_LIFETIME:
                break
            await self._clock.sleep_until(at)
            outcome = await self._try(url, payload)
            if outcome != "again":
                return
        log.warning("private reply not delivered after %d tries", MAX_USES)

    async def _try(self, url: str, payload: dict[str, object]) -> Outcome:
        """One request: sent, refused (not worth another use of the URL), or again."""
        try:
            try:
                status = await self._post(url, payload)
            except _CUT:
                await asyncio.sleep(CUT_RETRY_SECONDS)
                status = await self._post(url, payload)
        except TimeoutError:
            log.warning(
                "Slack response_url for workspace %s: no answer within %g s",
                workspace_of_calls(self._workspace), self._seconds,
            )  # fmt: skip
            self._on_timeout()
            return "again"
        except aiohttp.ClientError as exc:
            log.warning("private reply failed for now: %s", type(exc).__name__)
            return "again"
        if status == 429 or status >= 500:
            log.warning("private reply failed for now: HTTP %d", status)
            return "again"
        if status >= 400:
            log.warning("private reply refused: HTTP %d", status)
            return "refused"
        return "sent"

    async def _post(self, url: str, payload: dict[str, object]) -> int:
        body = json.dumps(payload)
        async with self._session.post(url, data=body, headers=_HEADERS, proxy=self._proxy) as r:
            await r.read()
            return r.status

    async def close(self) -> None:
        """Drop the replies still waiting (the process is stopping); say how many."""
        if self._waiting:
            log.warning("%d private replies were still waiting for a retry", len(self._waiting))
        for task in list(self._waiting):
            task.cancel()
        await asyncio.gather(*self._waiting, return_exceptions=True)
