"""Private replies through a request's response_url, on the app's shared HTTP session.

Bolt's `respond` opens a new HTTP session for every reply; under a burst that is hundreds of
sessions and TLS handshakes at once. This sends the same JSON through one pooled session, with
slack_sdk's connection-error retries.
"""

from __future__ import annotations

import logging

import aiohttp
from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.builtin_async_handlers import AsyncConnectionErrorRetryHandler
from slack_sdk.webhook.async_client import AsyncWebhookClient

from adapters.slack.render import SlackMessage

log = logging.getLogger(__name__)


class Replies:
    def __init__(self, session: aiohttp.ClientSession) -> None:
        self._session = session
        self._retries: list[AsyncRetryHandler] = [
            AsyncConnectionErrorRetryHandler(max_retry_count=2)
        ]

    async def send(self, response_url: str, message: SlackMessage) -> None:
        """Send privately to the person; a failure is logged (the answer is recorded already)."""
        client = AsyncWebhookClient(
            url=response_url, session=self._session, retry_handlers=self._retries
        )
        try:
            response = await client.send_dict(
                {
                    "text": message.text,
                    "blocks": message.blocks,
                    "response_type": "ephemeral",
                    "replace_original": False,
                }
            )
            if response.status_code >= 400:
                log.warning("private reply refused: HTTP %d", response.status_code)
        except Exception as exc:
            log.warning("private reply not delivered: %s", type(exc).__name__)
