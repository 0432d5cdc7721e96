"""HTTP mode's front door: each request's signature is checked, then its shape, before Bolt.

slack-bolt 1.30 parses the body while building its request, before its own signature check,
and reads the fields it routes on without checking their types: a body that wasn't UTF-8, a
`payload` that wasn't a JSON object or an `actions` that wasn't a list ended in HTTP 500 and a
traceback in the log. Here, in this order:
- no valid signature (slack_sdk's SignatureVerifier: missing, forged or stale; a body that isn't
  UTF-8 can't carry one, since Slack signs UTF-8 text): 401, as Bolt answers. Only Bolt's
  ssl_check, which it answers before its signature check, still goes to Bolt;
- signed but malformed (shapes.py names the problem): 400 and one warning line, never the body;
- signed and well-formed but not ZeroQuiz's (another command, another action): 404, as Bolt
  answers an unhandled request;
- signed, not ZeroQuiz's, in a shape Slack sends every app (`app_rate_limited`, an org-level
  event without a team_id, a click on an element without a value or in another app's view):
  200 and one log line (a warning for app_rate_limited), so Slack neither retries nor counts it;
- an answer click, with one workspace (no OAuth): straight to its handler, without Bolt's
  dispatch, which for it only repeated the checks made here (about a sixth of a click's CPU);
- otherwise Bolt gets the body as parsed here, once, and checks the signature again itself.
aiohttp refuses bodies over its client_max_size (1 MiB) with 413 while reading them.

Socket Mode bodies skip this door. CheckedSocketMode (socket.py) makes the same shape check on each
envelope before Bolt builds its request from it (Bolt's request building itself fails on some
bodies, e.g. an `authorizations` that isn't a list); a refused envelope is acknowledged, so
Slack doesn't deliver it again, and acted on by nobody. ShapeCheck, a Bolt middleware, checks
again inside Bolt, before its routing reads `actions[0].action_id` unchecked.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware
from slack_bolt.adapter.aiohttp import to_aiohttp_response
from slack_bolt.async_app import AsyncApp, AsyncBoltContext
from slack_bolt.middleware.async_middleware import AsyncMiddleware
from slack_bolt.request.async_internals import build_async_context
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse
from slack_sdk.signature import SignatureVerifier

from adapters.slack import shapes
from adapters.slack.shapes import Malformed, Quiet, Unhandled

log = logging.getLogger(__name__)


# Single-workspace HTTP mode: an answer click the front door has checked goes straight to its
# handler (handlers.SlackHandlers.answer_click), which returns the HTTP status.
DirectClick = Callable[[shapes.Click, AsyncBoltContext], Awaitable[int]]


def inbound_middleware(
    app: AsyncApp, signing_secret: str, path: str, direct: DirectClick | None = None
) -> Middleware:
    verifier = SignatureVerifier(signing_secret)

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.method != "POST" or request.path != path:
            return await handler(request)
        text = _utf8(await request.read())  # aiohttp keeps the bytes; nothing reads them again
        if text is None or not _signed(verifier, text, request.headers):
            return await _unsigned(app, request, text)
        body = shapes.read_body(text, request.content_type)
        if isinstance(body, Malformed):
            return _malformed(body)
        verdict = shapes.classify(body)
        if isinstance(verdict, Malformed):
            return _malformed(verdict)
        if isinstance(verdict, Quiet):
            return quiet(verdict)
        if isinstance(verdict, Unhandled):
            log.warning("slack: no handler for a %s request: answered 404", verdict.kind)
            return _error(404, "unhandled request")
        if direct is not None and isinstance(verdict, shapes.Click) and verdict.is_answer:
            return await _direct(direct, verdict, body)
        bolt_request = _bolt_request(request, text, body)
        if bolt_request is None:
            return _malformed(Malformed(verdict.kind, "Bolt cannot read its fields"))
        return await to_aiohttp_response(await app.async_dispatch(bolt_request))

    return middleware


class ShapeCheck(AsyncMiddleware):
    """The front door's shape check inside Bolt, for Socket Mode.

    A class, not a function: Bolt computes every argument a middleware function might ask for
    (`action` is `actions[0]`) before calling it, and would fail on the very bodies this
    refuses. Refused in Socket Mode means acknowledged and not acted on, so Slack doesn't
    deliver the envelope again; over HTTP, 400 and 404 as at the front door.
    """

    async def async_process(
        self,
        *,
        req: AsyncBoltRequest,
        resp: BoltResponse,
        next: Callable[[], Awaitable[BoltResponse]],  # Bolt's name for it
    ) -> BoltResponse | None:
        verdict = shapes.classify(req.body)
        if isinstance(verdict, Malformed):
            log.warning("slack: refused a %s", verdict)
            return BoltResponse(status=200 if req.mode == "socket_mode" else 400, body="")
        if isinstance(verdict, Quiet):
            quiet(verdict)
            return BoltResponse(status=200, body="")
        if isinstance(verdict, Unhandled):
            log.warning("slack: no handler for a %s request", verdict.kind)
            return BoltResponse(status=200 if req.mode == "socket_mode" else 404, body="")
        return await next()


def _utf8(raw: bytes) -> str | None:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _signed(verifier: SignatureVerifier, text: str, headers: Mapping[str, str]) -> bool:
    try:
        return verifier.is_valid(
            text, headers.get("X-Slack-Request-Timestamp"), headers.get("X-Slack-Signature")
        )
    except (ValueError, TypeError):  # a timestamp that isn't a number; a non-ASCII signature
        return False


async def _unsigned(app: AsyncApp, request: web.Request, text: str | None) -> web.StreamResponse:
    form = shapes.ssl_check(text, request.content_type) if text is not None else None
    if form is not None and text is not None:
        bolt_request = _bolt_request(request, text, form)
        if bolt_request is not None:  # Bolt's SslCheck answers it before checking signatures
            return await to_aiohttp_response(await app.async_dispatch(bolt_request))
    if text is None:
        log.info("slack: refused a request whose body is not UTF-8: answered 401")
    else:
        log.info("slack: refused a request without a valid signature: answered 401")
    return _error(401, "invalid request")


def _bolt_request(request: web.Request, text: str, body: dict[str, Any]) -> AsyncBoltRequest | None:
    """Bolt's request with the body parsed here (Bolt would parse it again, and differently
    for a form holding the word "payload"); None if Bolt's own field readers would fail."""
    headers: dict[str, str | Sequence[str]] = dict(request.headers)
    bolt_request = AsyncBoltRequest(body="", query=request.query_string, headers=headers)
    bolt_request.raw_body = text  # what Bolt's own signature check reads
    bolt_request.body = body
    try:
        # Bolt reads team, user, channel, enterprise, authorizations... of any request it gets.
        bolt_request.context = build_async_context(AsyncBoltContext({}), body)
    except Exception:
        return None
    return bolt_request


async def _direct(direct: DirectClick, click: shapes.Click, body: dict[str, Any]) -> web.Response:
    """An answer click without Bolt's dispatch. Bolt would verify the signature again (done
    here), authorise (single workspace: the token checked at start-up; nothing per request),
    match the listener by its action_id and check the shape again (done here), then call the
    handler with the context it builds from the body: that context is built here the same way,
    so the click acts on the workspace Bolt would name."""
    try:
        context = build_async_context(AsyncBoltContext({}), body)
    except Exception:
        return _malformed(Malformed(click.kind, "Bolt cannot read its fields"))
    try:
        status = await direct(click, context)
    except Exception:  # as Bolt answers a listener that raised
        log.exception("slack: the answer click of %s failed", click.user)
        status = 500
    return web.Response(status=status, text="")


def quiet(verdict: Quiet) -> web.Response:
    """200 and one line: a warning for app_rate_limited, which an operator should see."""
    if verdict.loud:
        log.warning("slack: %s: answered 200", verdict)
    else:
        log.info("slack: not ZeroQuiz's: %s: answered 200", verdict)
    return web.Response(status=200, text="")


def _malformed(problem: Malformed) -> web.Response:
    log.warning("slack: refused a %s: answered 400", problem)
    return _error(400, "malformed request")


def _error(status: int, error: str) -> web.Response:
    return web.json_response({"error": error}, status=status)
