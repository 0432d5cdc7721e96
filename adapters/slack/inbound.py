"""HTTP mode's front door: each request's signature is checked, then its shape, before Bolt.

slack-bolt 1.30 parses the body while building its request, before its own signature check,
and reads the fields it routes on without checking their types: a body that wasn't UTF-8, a
`payload` that wasn't a JSON object or an `actions` that wasn't a list ended in HTTP 500 and a
traceback in the log. Here, in this order:
- no valid signature (slack_sdk's SignatureVerifier: missing, forged or stale; a body that isn't
  UTF-8 can't carry one, since Slack signs UTF-8 text): 401, as Bolt answers. Only Slack's
  ssl_check, which Bolt answers 200 before its signature check, is answered so here too;
- signed but malformed (shapes.py names the problem): 400 and one warning line, never the body;
- signed and well-formed but not ZeroQuiz's (another command, another action): 404, as Bolt
  answers an unhandled request;
- signed, not ZeroQuiz's, in a shape Slack sends every app (`app_rate_limited`, an org-level
  event without a team_id, a click on an element without a value or in another app's view):
  200 and one log line (a warning for app_rate_limited), so Slack neither retries nor counts it;
- an answer click on a message, with one workspace (no OAuth): straight to its handler, without
  Bolt's dispatch, which for it only repeated the checks made here (about a sixth of a click's
  CPU), when the workspace Bolt would name is the click's own `team.id` (`_bolt_names`);
- otherwise Bolt's dispatch, as its aiohttp adapter calls it, with the body as parsed here, once,
  handed over as JSON: Bolt parses it again with json's C decoder, not parse_qsl (a form's
  ~650 escapes one at a time), and reads the same fields (for a form holding the word
  "payload", Bolt's own reading would find no command). Bolt's signature check is therefore
  off (`request_verification_enabled=False`, surface.py): this route is the only way in.
aiohttp refuses bodies over its client_max_size (1 MiB) with 413 while reading them.

Socket Mode bodies skip this door. CheckedSocketMode (socket.py) makes the same shape check on each
envelope before Bolt builds its request from it (Bolt's request building itself fails on some
bodies, e.g. an `authorizations` that isn't a list); a refused envelope is acknowledged, so
Slack doesn't deliver it again, and acted on by nobody. ShapeCheck, a Bolt middleware, checks
again inside Bolt, before its routing reads `actions[0].action_id` unchecked.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from aiohttp import web
from aiohttp.typedefs import Handler
from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
from slack_bolt.async_app import AsyncApp
from slack_bolt.middleware.async_middleware import AsyncMiddleware
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse
from slack_sdk.signature import SignatureVerifier

from adapters.slack import shapes
from adapters.slack.shapes import Malformed, Passed, Quiet, Unhandled
from adapters.slack.web import calls_for

log = logging.getLogger(__name__)


# Single-workspace HTTP mode: an answer click the front door has checked goes straight to its
# handler (handlers.SlackHandlers.answer_click), which returns the HTTP status.
DirectClick = Callable[[shapes.Click], Awaitable[int]]


def web_app(
    app: AsyncApp, signing_secret: str, path: str, direct: DirectClick | None = None
) -> web.Application:
    """The routes of Bolt's own aiohttp server (`AsyncApp.web_app`): POST `path` (through the
    front door, the only way to Bolt's dispatch) and, with OAuth, the install and redirect
    pages, which Bolt's OAuth flow answers as its server does."""
    verifier = SignatureVerifier(signing_secret)

    async def events(request: web.Request) -> web.StreamResponse:
        text = _utf8(await request.read())  # aiohttp keeps the bytes; nothing reads them again
        if text is None or not _signed(verifier, text, request.headers):
            return _unsigned(request, text)
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
        if isinstance(verdict, Passed) and verdict.kind == "ssl_check":
            return web.Response(status=200, text="")
        if direct is not None and isinstance(verdict, shapes.Click) and _bolt_names(verdict, body):
            return await _direct(direct, verdict)
        try:  # Bolt reads team, user, channel, enterprise, authorizations... of any request
            bolt_request = AsyncBoltRequest(
                body=json.dumps(body), query=request.query_string, headers=_json_headers(request)
            )
        except Exception:
            return _malformed(Malformed(verdict.kind, "Bolt cannot read its fields"))
        return await to_aiohttp_response(await app.async_dispatch(bolt_request))

    routes = [web.post(path, events)]
    flow = app.oauth_flow
    if flow is not None:
        routes.append(web.get(flow.install_path, _page(flow.handle_installation)))
        routes.append(web.get(flow.redirect_uri_path, _page(flow.handle_callback)))
    web_app = web.Application()
    web_app.add_routes(routes)
    return web_app


def _page(answer: Callable[[AsyncBoltRequest], Awaitable[BoltResponse]]) -> Handler:
    """An OAuth page, answered by Bolt's OAuth flow as Bolt's own server does."""

    async def page(request: web.Request) -> web.StreamResponse:
        return await to_aiohttp_response(await answer(await to_bolt_request(request)))

    return page


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
        with calls_for(req.context.team_id):  # what it calls is for that workspace
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


def _unsigned(request: web.Request, text: str | None) -> web.Response:
    if text is not None and shapes.ssl_check(text, request.content_type) is not None:
        return web.Response(status=200, text="")  # as Bolt's SslCheck, before any signature
    if text is None:
        log.info("slack: refused a request whose body is not UTF-8: answered 401")
    else:
        log.info("slack: refused a request without a valid signature: answered 401")
    return _error(401, "invalid request")


def _json_headers(request: web.Request) -> dict[str, str | Sequence[str]]:
    """The request's headers, its body now being JSON."""
    headers: dict[str, str | Sequence[str]] = {
        name: value for name, value in request.headers.items() if name.lower() != "content-type"
    }
    headers["Content-Type"] = "application/json"
    return headers


def _bolt_names(click: shapes.Click, body: dict[str, Any]) -> bool:
    """An answer click on a message whose workspace Bolt would name as the click does: Bolt
    reads a view's app_installed_team_id first, then `team.id` (then others, when team is null
    as in org-wide installs: those go to Bolt)."""
    team = body.get("team")
    return (
        click.is_answer
        and "view" not in body
        and type(team) is dict
        and team.get("id") == click.team
    )


async def _direct(direct: DirectClick, click: shapes.Click) -> web.Response:
    """An answer click without Bolt's dispatch. Bolt would authorise (single workspace: the
    token checked at start-up; nothing per request), match the listener by its action_id and
    check the shape again (done here), then call the handler on the workspace named above."""
    try:
        status = await direct(click)
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
