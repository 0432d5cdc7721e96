"""HTTP mode: slash commands whose form body merely contains the word "payload".

slack-bolt 1.30 parses any form body containing the substring "payload" as an interactive
`payload=` post, so a command from a channel named #payload-team, or typed with that word,
would be dropped with a 404. This middleware re-parses those bodies as the plain form they are
and dispatches them itself; the signature is still checked by Bolt on the unchanged raw body.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware
from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
from slack_bolt.async_app import AsyncApp, AsyncBoltContext
from slack_bolt.request.async_internals import build_async_context


def form_body_middleware(app: AsyncApp) -> Middleware:
    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.method != "POST" or request.content_type == "application/json":
            return await handler(request)
        raw = await request.text()  # aiohttp keeps the body, so Bolt can read it again
        # An interactive post is the one field `payload=`: left to Bolt without parsing it here
        # too (URL-decoding a click's body twice was a sixth of the CPU a click cost).
        if "payload" not in raw or raw.startswith(("{", "payload=")):
            return await handler(request)
        form = dict(parse_qsl(raw, keep_blank_values=True))
        if "payload" in form:
            return await handler(request)  # a real interactive payload: Bolt parses it right
        bolt_request = await to_bolt_request(request)
        bolt_request.body = form
        bolt_request.context = build_async_context(AsyncBoltContext({}), form)
        return await to_aiohttp_response(await app.async_dispatch(bolt_request))

    return middleware
