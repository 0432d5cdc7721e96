"""Socket Mode's door: the front door's shape check on each envelope before Bolt reads it.

A module of its own so that HTTP mode never imports slack_sdk's websocket client and Bolt's
Socket Mode handler (about a fifth of a Slack start's imports).
"""

from __future__ import annotations

import logging

from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_sdk.socket_mode.aiohttp import SocketModeClient
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.socket_mode.response import SocketModeResponse

from adapters.slack import shapes
from adapters.slack.inbound import quiet
from adapters.slack.shapes import Malformed, Quiet, Unhandled

log = logging.getLogger(__name__)


class CheckedSocketMode(AsyncSocketModeHandler):
    """Bolt's Socket Mode handler with the front door's shape check in front of it."""

    async def handle(self, client: SocketModeClient, req: SocketModeRequest) -> None:  # type: ignore[override]
        body = req.payload
        verdict = (
            shapes.classify(body)
            if isinstance(body, dict)
            else Malformed(req.type, "not an object")
        )
        if isinstance(verdict, Quiet):
            quiet(verdict)
            await client.send_socket_mode_response(SocketModeResponse(envelope_id=req.envelope_id))
            return
        if isinstance(verdict, Malformed | Unhandled):
            what = verdict if isinstance(verdict, Malformed) else f"{verdict.kind} with no handler"
            log.warning("slack: refused a %s over Socket Mode", what)
            await client.send_socket_mode_response(SocketModeResponse(envelope_id=req.envelope_id))
            return
        try:
            await super().handle(client, req)
        except Exception as exc:  # Bolt could not even build its request from this envelope
            log.warning(
                "slack: refused a %s over Socket Mode that Bolt cannot read (%s)",
                req.type, type(exc).__name__,
            )  # fmt: skip
            await client.send_socket_mode_response(SocketModeResponse(envelope_id=req.envelope_id))
