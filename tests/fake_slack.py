"""A fake Slack on loopback: Web API that records every call, response_urls, a Socket Mode server.

The real AsyncApp (over HTTP, signed like Slack, or over a local websocket) talks to it, so the
tests run slack-bolt's and slack_sdk's own code paths. The fake rejects messages that break Block
Kit's limits with `invalid_blocks`, as Slack would.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import random
import re
import time
import uuid
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode

import aiohttp
import pytest
from aiohttp import WSMsgType, web
from slack_sdk.http_retry.builtin_interval_calculators import FixedValueRetryIntervalCalculator
from slack_sdk.signature import SignatureVerifier

from adapters.runtime import Runtime
from adapters.slack.config import SlackConfig, load_config
from adapters.slack.surface import BOT_SCOPES, SlackSurface
from adapters.slack.web import TIMEOUT_SECONDS
from bot.bank import Bank
from bot.clock import FakeClock

SECRET = "8f742231b10e8888abcd99a1b2c3d4e5"
BOT_TOKEN = "xoxb-zeroquiz-test"
APP_TOKEN = "xapp-zeroquiz-test"
TEAM = "T0TEAM"
# Multi-workspace mode: the app's OAuth client, as Slack's app settings show it.
CLIENT_ID = "1111.2222"
CLIENT_SECRET = "fake-client-secret"
CHANNEL = "C0QUIZ"
POLL_DEADLINE = 10.0
RESPONSE_URL_USES = 5
HOME_BLOCKS = 100  # a Home tab view may hold 100 blocks; a message 50
# slack_sdk's retry handlers, with its backoff shortened: a test's retries don't sleep for real.
QUICK_RETRIES = FixedValueRetryIntervalCalculator(0.01)


@dataclass
class Call:
    method: str
    args: dict[str, Any]
    team: str = ""  # the workspace whose token made the call ('' for none)


@dataclass
class FakeSlack:
    calls: list[Call] = field(default_factory=list)
    replies: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: defaultdict(list))
    messages: dict[str, dict[str, Any]] = field(default_factory=dict)  # ts -> as shown now
    posted: dict[str, dict[str, Any]] = field(default_factory=dict)  # ts -> as first posted
    history: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))  # by channel
    metadata: dict[str, dict[str, Any]] = field(default_factory=dict)  # ts -> message metadata
    users: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Enterprise Grid: one user id in several workspaces, admin in some (team -> admins there).
    admins_in: dict[str, set[str]] = field(default_factory=dict)
    errors: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    rate_limits: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    drops: dict[str, int] = field(default_factory=lambda: defaultdict(int))  # cut connections
    # HTTP statuses (500, 502, 503...) the next calls of a method answer with, before doing it.
    server_errors: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    # What the next response_url requests meet: an HTTP status, or "reset" (connection cut).
    respond_faults: list[int | str] = field(default_factory=list)
    delay: float = 0.0  # seconds every Web API call and response_url request takes (a slow Slack)
    # Calls of these methods do their work, then answer only once `released` is set (a test
    # kills the app meanwhile: the work is done, the app never learns its result).
    holds: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    released: asyncio.Event = field(default_factory=asyncio.Event)
    # Seconds a method's answer takes after its work is done (a wide crash window to land in).
    late: dict[str, float] = field(default_factory=dict)
    acks: dict[str, dict[str, Any]] = field(default_factory=dict)
    homes: dict[str, dict[str, Any]] = field(default_factory=dict)  # user -> published Home view
    modals: list[dict[str, Any]] = field(default_factory=list)  # views.open, in order
    respond_calls: dict[str, int] = field(default_factory=lambda: defaultdict(int))  # per key
    ephemerals: list[dict[str, Any]] = field(default_factory=list)  # chat.postEphemeral, in order
    problems: list[str] = field(default_factory=list)  # what Slack refused, and why
    sockets: list[web.WebSocketResponse] = field(default_factory=list)
    reply_gate: asyncio.Event | None = None  # when set up, private replies wait until it opens
    # Bot tokens Slack accepts, each for its workspace (one more per OAuth installation).
    tokens: dict[str, str] = field(default_factory=lambda: {BOT_TOKEN: TEAM})
    # OAuth codes Slack would hand to the redirect once a person approved: code -> workspace.
    codes: dict[str, str] = field(default_factory=dict)
    # Codes of org-wide Enterprise Grid installs (code -> enterprise), and tokens Slack revoked.
    org_codes: dict[str, str] = field(default_factory=dict)
    revoked: set[str] = field(default_factory=set)
    # Asked about each Web API call as it arrives (before `delay`): an answer to give instead
    # after the delay (a rate limit's 429), or None to go on. Benchmarks' limits live there.
    before: Callable[[Call, web.Request], Awaitable[web.Response | None]] | None = None
    base: str = ""
    _runner: web.AppRunner | None = None
    _ts: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    _keys: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    async def start(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/api/{method}", self._api)
        app.router.add_post("/respond/{key}", self._respond)
        app.router.add_get("/link", self._link)
        self._runner = web.AppRunner(app, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.base = f"http://{host}:{port}"

    async def listen(self) -> str:
        """One more address of this fake's Web API (its api_url), so calls from apps pointed at
        different addresses can be told apart (by the local port of the request)."""
        assert self._runner is not None
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        host, port = self._runner.addresses[-1][:2]
        return f"http://{host}:{port}/api"

    async def stop(self) -> None:
        for ws in self.sockets:
            await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def api_url(self) -> str:
        return f"{self.base}/api"  # no trailing slash: the adapter must add it

    def response_url(self, key: str) -> str:
        return f"{self.base}/respond/{key}"

    def new_key(self) -> str:
        """A fresh response_url key, unique across restarts of the app."""
        return f"r{next(self._keys)}"

    def add_user(
        self, user_id: str, name: str, *, admin: bool = False, owner: bool = False
    ) -> None:
        self.users[user_id] = {
            "id": user_id, "team_id": TEAM, "name": name.lower().replace(" ", "."),
            "real_name": name, "profile": {"display_name": name, "real_name": name},
            "is_admin": admin, "is_owner": owner, "tz": "Asia/Jakarta",
        }  # fmt: skip

    def calls_to(self, method: str) -> list[Call]:
        return [c for c in self.calls if c.method == method]

    async def wait_until(self, check: Callable[[], bool], what: str) -> None:
        """Poll for a side effect of a handler that runs after its ack, with a deadline."""
        deadline = time.monotonic() + POLL_DEADLINE
        while not check():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            await asyncio.sleep(0.01)

    async def reply(self, key: str) -> dict[str, Any]:
        """The first private reply sent to response_url `key`."""
        await self.wait_until(lambda: bool(self.replies[key]), f"a reply on {key}")
        return self.replies[key][0]

    # -- Web API ----------------------------------------------------------------------------------
    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        args: dict[str, Any] = dict(request.query)
        raw = await request.text()
        if raw:
            is_json = request.content_type == "application/json"
            args.update(json.loads(raw) if is_json else dict(parse_qsl(raw)))
        if isinstance(args.get("blocks"), str):
            args["blocks"] = json.loads(args["blocks"])
        token = request.headers.get("Authorization", "").removeprefix("Bearer ")
        call = Call(method, args, self.tokens.get(token, ""))  # calls[-1] may be another's later
        self.calls.append(call)
        instead = await self.before(call, request) if self.before is not None else None
        if self.delay:
            await asyncio.sleep(self.delay)
        if instead is not None:  # not truth: a response is a mapping, empty here
            return instead
        if self.server_errors[method]:
            status = self.server_errors[method].pop(0)
            return web.Response(status=status, text="upstream trouble")  # not Slack's JSON
        if self.drops[method] > 0 and request.transport is not None:
            self.drops[method] -= 1
            request.transport.close()  # the client sees the connection drop mid-request
            return web.Response()
        if self.rate_limits[method] > 0:
            self.rate_limits[method] -= 1
            return web.json_response(
                {"ok": False, "error": "ratelimited"}, status=429, headers={"Retry-After": "0"}
            )
        if method == "oauth.v2.access":
            return web.json_response(self._oauth_access(request, args))
        if method == "apps.connections.open":
            if token != APP_TOKEN:
                return web.json_response({"ok": False, "error": "invalid_auth"})
        elif token in self.revoked:
            return web.json_response({"ok": False, "error": "token_revoked"})
        elif token not in self.tokens:
            return web.json_response({"ok": False, "error": "invalid_auth"})
        if method == "apps.uninstall":
            self.revoke(token)
            return web.json_response({"ok": True})
        if self.errors[method]:
            return web.json_response({"ok": False, "error": self.errors[method].pop(0)})
        answer = self._answer(method, args, call.team)
        if self.late.get(method):
            await asyncio.sleep(self.late[method])  # done; the answer is on its way
        if self.holds[method] > 0:
            self.holds[method] -= 1
            await self.released.wait()
        return web.json_response(answer)

    def _answer(self, method: str, args: dict[str, Any], team: str) -> dict[str, Any]:
        if method == "auth.test":
            return {
                "ok": True,
                "team_id": team or TEAM,
                "user_id": "UBOT",
                "bot_id": "BBOT",
                "team": "ZQ",
            }
        if method == "apps.connections.open":
            return {"ok": True, "url": self.base.replace("http", "ws", 1) + "/link"}
        if method == "users.info":
            user = self.users.get(str(args.get("user")))
            if user and team in self.admins_in:
                user = user | {"team_id": team, "is_admin": user["id"] in self.admins_in[team]}
            return {"ok": True, "user": user} if user else {"ok": False, "error": "user_not_found"}
        if method == "views.publish":
            return self._publish(args)
        if method == "views.open":
            return self._open(args)
        if method == "chat.postEphemeral":
            problems = block_problems(args.get("blocks") or [])
            if problems:
                self.problems += problems
                return {"ok": False, "error": "invalid_blocks", "errors": problems}
            if not args.get("channel") or not args.get("user"):
                return {"ok": False, "error": "invalid_arguments"}
            shown = {k: args.get(k) for k in ("channel", "user", "text", "blocks")}
            self.ephemerals.append(shown | {"team": team})
            return {"ok": True, "message_ts": self._new_ts()}
        if method in ("chat.postMessage", "chat.update"):
            problems = block_problems(args.get("blocks") or [])
            if problems:
                return {"ok": False, "error": "invalid_blocks", "errors": problems}
            if method == "chat.update" and args.get("ts") not in self.messages:
                return {"ok": False, "error": "message_not_found"}
            ts = str(args.get("ts") or self._new_ts())
            self.messages[ts] = {k: args.get(k) for k in ("channel", "text", "blocks")}
            if ts not in self.posted:
                self.history[str(args.get("channel"))].append(ts)
                meta = args.get("metadata")
                if meta:
                    self.metadata[ts] = json.loads(meta) if isinstance(meta, str) else meta
            self.posted.setdefault(ts, self.messages[ts])
            return {"ok": True, "channel": args.get("channel"), "ts": ts, "message": args}
        if method == "conversations.history":
            return self._history(args)
        if method == "conversations.open":  # a direct message with one person: D + their id
            person = str(args.get("users") or "")
            if "," in person or person not in self.users:
                return {"ok": False, "error": "user_not_found"}
            return {"ok": True, "channel": {"id": f"D{person}"}}
        return {"ok": False, "error": "unknown_method"}

    def _new_ts(self) -> str:
        """A message's `ts`: Slack's clock (the real one here), unique in the fake."""
        return f"{int(time.time())}.{next(self._ts):06d}"

    def _history(self, args: dict[str, Any]) -> dict[str, Any]:
        """conversations.history: newest first, from `oldest` on, pages of `limit` by cursor;
        a message's metadata only when include_all_metadata is asked for."""
        oldest = float(args.get("oldest") or 0)
        limit = min(int(args.get("limit") or 100), 999)
        start = int(args.get("cursor") or 0)
        every = [
            ts for ts in reversed(self.history[str(args.get("channel"))]) if float(ts) > oldest
        ]
        with_meta = str(args.get("include_all_metadata")).lower() in ("true", "1")
        page = []
        for ts in every[start : start + limit]:
            shown: dict[str, Any] = {"type": "message", "ts": ts, "bot_id": "BBOT"}
            shown["text"] = self.messages[ts].get("text")
            if with_meta and ts in self.metadata:
                shown["metadata"] = self.metadata[ts]
            page.append(shown)
        more = start + limit < len(every)
        cursor = str(start + limit) if more else ""
        return {
            "ok": True, "messages": page, "has_more": more,
            "response_metadata": {"next_cursor": cursor},
        }  # fmt: skip

    def _open(self, args: dict[str, Any]) -> dict[str, Any]:
        """views.open: a modal, held to Slack's limits for one (title and submit 24 chars)."""
        view = args.get("view")
        view = json.loads(view) if isinstance(view, str) else view
        if not isinstance(args.get("trigger_id"), str) or not isinstance(view, dict):
            return {"ok": False, "error": "invalid_arguments"}
        problems = [
            f"{key} is longer than 24" for key in ("title", "submit")
            if len(view.get(key, {}).get("text", "")) > 24
        ]  # fmt: skip
        if not 0 < len(view.get("blocks") or []) <= 100:
            problems.append("a modal holds 1 to 100 blocks")
        if view.get("type") != "modal" or len(view.get("private_metadata", "")) > 3000:
            problems.append("not a modal, or private_metadata longer than 3000")
        for block in view.get("blocks") or []:
            if block.get("type") != "input" or len(block["label"]["text"]) > 2000:
                problems.append(f"block {block.get('block_id')} is no input with a label")
        if problems:
            return {"ok": False, "error": "invalid_arguments", "errors": problems}
        self.modals.append(view)
        return {"ok": True, "view": {"id": f"V{len(self.modals)}", **view}}

    def _publish(self, args: dict[str, Any]) -> dict[str, Any]:
        """views.publish: a Home tab view for one person, held to the Home surface's limits."""
        view = args.get("view")
        view = json.loads(view) if isinstance(view, str) else view
        if not isinstance(args.get("user_id"), str) or not isinstance(view, dict):
            return {"ok": False, "error": "invalid_arguments"}
        if view.get("type") != "home":
            return {"ok": False, "error": "invalid_arguments"}
        problems = block_problems(view.get("blocks") or [], most_blocks=HOME_BLOCKS)
        if problems:
            return {"ok": False, "error": "invalid_blocks", "errors": problems}
        self.homes[str(args["user_id"])] = view
        return {"ok": True, "view": {"id": "V0HOME", **view}}

    def approve(self, team: str) -> str:
        """A person of `team` approved the install on Slack: the code Slack redirects with."""
        code = f"code-{team}-{uuid.uuid4().hex[:8]}"
        self.codes[code] = team
        return code

    def approve_org(self, enterprise: str) -> str:
        """An org admin approved an org-wide install of the whole Enterprise Grid org."""
        code = f"code-{enterprise}-{uuid.uuid4().hex[:8]}"
        self.org_codes[code] = enterprise
        return code

    def revoke(self, token: str) -> None:
        """The workspace uninstalled the app: Slack answers token_revoked to this token."""
        self.tokens.pop(token, None)
        self.revoked.add(token)

    def _oauth_access(self, request: web.Request, args: dict[str, Any]) -> dict[str, Any]:
        """oauth.v2.access: the app's client credentials and a fresh code buy a bot token."""
        auth = aiohttp.BasicAuth.decode(request.headers.get("Authorization", ""))
        if (auth.login, auth.password) != (CLIENT_ID, CLIENT_SECRET):
            return {"ok": False, "error": "invalid_client_id"}
        enterprise = self.org_codes.pop(str(args.get("code")), None)
        if enterprise is not None:  # as Slack answers an org-wide install: no team at all
            token = f"xoxb-{enterprise}-{uuid.uuid4().hex}"
            self.tokens[token] = enterprise
            return {
                "ok": True, "access_token": token, "token_type": "bot",
                "scope": ",".join(BOT_SCOPES),
                "bot_user_id": f"UBOT{enterprise}", "app_id": "A0ZEROQUIZ", "team": None,
                "enterprise": {"id": enterprise, "name": f"Org {enterprise}"},
                "authed_user": {"id": "UADMIN"}, "is_enterprise_install": True,
            }  # fmt: skip
        team = self.codes.pop(str(args.get("code")), None)
        if team is None:
            return {"ok": False, "error": "invalid_code"}  # unknown, or used once already
        token = f"xoxb-{team}-{uuid.uuid4().hex}"
        self.tokens[token] = team
        return {
            "ok": True, "access_token": token, "token_type": "bot",
            "scope": ",".join(BOT_SCOPES),
            "bot_user_id": f"UBOT{team}", "app_id": "A0ZEROQUIZ",
            "team": {"id": team, "name": f"Team {team}"}, "enterprise": None,
            "authed_user": {"id": "UADMIN"}, "is_enterprise_install": False,
        }  # fmt: skip

    async def _respond(self, request: web.Request) -> web.Response:
        if self.reply_gate is not None:
            await self.reply_gate.wait()
        body = await request.json()
        key = request.match_info["key"]
        self.respond_calls[key] += 1
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.respond_faults:
            fault = self.respond_faults.pop(0)
            if fault == "reset" and request.transport is not None:
                request.transport.close()
                return web.Response()
            return web.Response(status=int(fault), text="try again")
        if self.respond_calls[key] > RESPONSE_URL_USES:  # Slack honours a response_url 5 times
            self.problems.append(f"response_url {key} used {self.respond_calls[key]} times")
            return web.Response(status=404, text="used_url")
        problems = block_problems(body.get("blocks") or [])
        if problems:
            self.problems += problems
            return web.Response(status=400, text="invalid_blocks")
        self.replies[key].append(body)
        return web.Response(text="ok")

    # -- Socket Mode ------------------------------------------------------------------------------
    async def _link(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self.sockets.append(ws)
        await ws.send_json({"type": "hello", "num_connections": 1, "debug_info": {}})
        async for msg in ws:
            if msg.type == WSMsgType.TEXT:
                data = json.loads(msg.data)
                self.acks[data["envelope_id"]] = data
        return ws

    async def send_envelope(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        """Deliver one event over the websocket; returns the app's acknowledgement."""
        await self.wait_until(lambda: bool(self.sockets), "a Socket Mode connection")
        envelope_id = str(uuid.uuid4())
        envelope = {
            "envelope_id": envelope_id,
            "type": kind,
            "accepts_response_payload": True,
            "payload": payload,
        }
        await self.sockets[-1].send_json(envelope)
        await self.wait_until(lambda: envelope_id in self.acks, f"the ack of {kind}")
        return self.acks[envelope_id]


# -- what Slack accepts -------------------------------------------------------------------------
def block_problems(blocks: list[dict[str, Any]], *, most_blocks: int = 50) -> list[str]:
    """Every Block Kit limit a ZeroQuiz message (or, with most_blocks=100, a Home tab view)
    could break: empty when Slack would accept it."""
    problems: list[str] = []

    def limit(what: str, value: int, most: int) -> None:
        if value > most:
            problems.append(f"{what}: {value} > {most}")

    limit("blocks", len(blocks), most_blocks)
    for i, block in enumerate(blocks):
        kind = block["type"]
        limit(f"block {i} block_id", len(block.get("block_id", "")), 255)
        if kind == "header":
            if block["text"]["type"] != "plain_text":
                problems.append(f"block {i}: header text must be plain_text")
            limit(f"block {i} header", len(block["text"]["text"]), 150)
        elif kind == "section":
            if "text" in block:
                limit(f"block {i} section text", len(block["text"]["text"]), 3000)
            fields = block.get("fields", [])
            limit(f"block {i} fields", len(fields), 10)
            for f in fields:
                limit(f"block {i} field", len(f["text"]), 2000)
        elif kind == "actions":
            elements = block["elements"]
            limit(f"block {i} elements", len(elements), 25)
            ids = [e["action_id"] for e in elements]
            if len(set(ids)) != len(ids):
                problems.append(f"block {i}: duplicate action_id")
            for e in elements:
                limit("button text", len(e["text"]["text"]), 75)
                limit("action_id", len(e["action_id"]), 255)
                limit("button value", len(e.get("value", "")), 2000)
                limit("accessibility_label", len(e.get("accessibility_label", "")), 75)
        elif kind == "context":
            limit(f"block {i} context elements", len(block["elements"]), 10)
            for e in block["elements"]:
                limit(f"block {i} context text", len(e["text"]), 3000)
        elif kind == "divider":
            if set(block) - {"type", "block_id"}:
                problems.append(f"block {i}: a divider holds nothing")
        else:
            problems.append(f"block {i}: unexpected type {kind}")
    limit("total text", sum(len(s) for s in texts(blocks)), 12000)
    return problems


def texts(blocks: list[dict[str, Any]]) -> list[str]:
    """Every text a reader sees in these blocks."""
    out: list[str] = []
    for block in blocks:
        parts = [block.get("text"), *block.get("fields", []), *block.get("elements", [])]
        for part in filter(None, parts):
            text = part["text"]
            out.append(text["text"] if isinstance(text, dict) else text)
    return out


def shown(blocks: list[dict[str, Any]]) -> str:
    return "\n".join(texts(blocks))


def is_reveal(blocks: list[dict[str, Any]]) -> bool:
    """Buttons gone, explanation shown."""
    return all(b["type"] != "actions" for b in blocks) and "*Why:*" in shown(blocks)


def verdict_for(letter: str, blocks: list[dict[str, Any]]) -> bool:
    """A private verdict on a first answer `letter`, right or wrong."""
    text = shown(blocks)
    return f"you chose {letter}." in text or f"Correct! The answer is {letter})" in text


# -- requests as Slack signs them ------------------------------------------------------------------
def signed_headers(
    body: str, *, timestamp: int | None = None, secret: str = SECRET
) -> dict[str, str]:
    ts = str(int(time.time()) if timestamp is None else timestamp)
    signature = SignatureVerifier(secret).generate_signature(timestamp=ts, body=body)
    assert signature is not None  # None only for a missing timestamp
    return {
        "X-Slack-Request-Timestamp": ts,
        "X-Slack-Signature": signature,
        "Content-Type": "application/x-www-form-urlencoded",
    }


def slash_payload(
    text: str, user: str, response_url: str, channel: str = CHANNEL, channel_name: str = "quiz"
) -> dict[str, str]:
    return dict(
        token="unused", team_id=TEAM, team_domain="zq", channel_id=channel,
        channel_name=channel_name,
        user_id=user, user_name=user.lower(), command="/zeroquiz", text=text,
        api_app_id="A0ZEROQUIZ", response_url=response_url, trigger_id=new_trigger_id(),
    )  # fmt: skip


def new_trigger_id() -> str:
    """A fresh trigger_id, as Slack gives every command its own (a repeated one is a replay)."""
    return f"{int(time.time())}.{uuid.uuid4().int % 10**12}.{uuid.uuid4().hex}"


def click_payload(
    message_ts: str, message: dict[str, Any], button: dict[str, Any], user: str, response_url: str
) -> dict[str, Any]:
    actions_block = next(b for b in message["blocks"] if b["type"] == "actions")
    return {
        "type": "block_actions",
        "team": {"id": TEAM, "domain": "zq"},
        "user": {"id": user, "username": user.lower(), "team_id": TEAM},
        "api_app_id": "A0ZEROQUIZ",
        "container": {"type": "message", "message_ts": message_ts, "channel_id": CHANNEL},
        "channel": {"id": CHANNEL, "name": "quiz"},
        "message": {"ts": message_ts, "text": message["text"], "blocks": message["blocks"]},
        "response_url": response_url,
        "trigger_id": "1.2.3",
        "actions": [
            {"type": "button", "action_id": button["action_id"], "value": button["value"],
             "block_id": actions_block["block_id"], "text": button["text"],
             "action_ts": f"{time.time():.6f}"}
        ],
    }  # fmt: skip


# -- the real app, wired to the fake -----------------------------------------------------------
@dataclass
class SlackHarness:
    """A running SlackSurface (HTTP or Socket Mode) on a fresh Runtime, driven like Slack would."""

    fake: FakeSlack
    runtime: Runtime
    surface: SlackSurface
    http: aiohttp.ClientSession
    socket: bool

    async def post(self, body: str, headers: dict[str, str] | None = None) -> int:
        """POST a body to the app as Slack does (signed now unless other headers are given)."""
        assert self.surface.url is not None
        async with self.http.post(
            self.surface.url, data=body.encode(), headers=headers or signed_headers(body)
        ) as response:
            await response.read()
            return response.status

    async def command(
        self, text: str, user: str = "U1", channel: str = CHANNEL, channel_name: str = "quiz"
    ) -> str:
        """Type `/zeroquiz text`; returns the response_url key where the private reply lands."""
        key = self.fake.new_key()
        payload = slash_payload(text, user, self.fake.response_url(key), channel, channel_name)
        if self.socket:
            await self.fake.send_envelope("slash_commands", payload)
        else:
            assert await self.post(urlencode(payload)) == 200
        return key

    async def ask(
        self, text: str, user: str = "U1", channel: str = CHANNEL, channel_name: str = "quiz"
    ) -> dict[str, Any]:
        return await self.fake.reply(await self.command(text, user, channel, channel_name))

    def question(self) -> tuple[str, dict[str, Any]]:
        """The latest question posted in the channel, as first posted: (ts, message)."""
        for ts, message in self._questions():
            return ts, message
        raise AssertionError("no question was posted")

    def _questions(self) -> Iterator[tuple[str, dict[str, Any]]]:
        for ts, message in reversed(self.fake.posted.items()):
            if any(b["type"] == "actions" for b in message["blocks"]):
                yield ts, message

    def click_body(self, letter: str, user: str, key: str) -> dict[str, Any]:
        ts, message = self.question()
        actions = next(b for b in message["blocks"] if b["type"] == "actions")
        button = next(e for e in actions["elements"] if e["text"]["text"] == letter)
        return click_payload(ts, message, button, user, self.fake.response_url(key))

    async def click(self, letter: str, user: str = "U1") -> tuple[int, str]:
        """Click a letter; returns (HTTP status of the ack, response_url key). A question is
        posted after its command's ack (or by the scheduler), so the click waits for one."""
        await self.fake.wait_until(lambda: any(self._questions()), "a question posted")
        key = self.fake.new_key()
        payload = self.click_body(letter, user, key)
        if self.socket:
            await self.fake.send_envelope("interactive", payload)
            return 200, key
        return await self.post("payload=" + quote(json.dumps(payload))), key

    async def submit(
        self, modal: dict[str, Any], values: dict[str, str], user: str = "U1", team: str = TEAM
    ) -> tuple[int, dict[str, Any]]:
        """Submit a modal the app opened, its inputs filled in, as a signed view_submission:
        (HTTP status, the acknowledgement's JSON body, {} when empty)."""
        payload = {
            "type": "view_submission",
            "team": {"id": team, "domain": "zq"},
            "user": {"id": user, "username": user.lower(), "team_id": team},
            "api_app_id": "A0ZEROQUIZ",
            "trigger_id": "1.2.4",
            "view": {
                "id": "V1", "type": "modal", "callback_id": modal["callback_id"],
                "private_metadata": modal.get("private_metadata", ""),
                "state": {"values": {
                    block: {block: {"type": "plain_text_input", "value": value}}
                    for block, value in values.items()
                }},
            },
        }  # fmt: skip
        body = "payload=" + quote(json.dumps(payload))
        assert self.surface.url is not None
        async with self.http.post(
            self.surface.url, data=body.encode(), headers=signed_headers(body)
        ) as response:
            text = await response.text()
            return response.status, (json.loads(text) if text.strip() else {})

    async def close(self) -> None:
        await self.surface.stop()
        await self.runtime.close()
        await self.http.close()


async def open_harness(
    fake: FakeSlack,
    db_path: Path,
    clock: FakeClock,
    bank: Bank,
    *,
    socket: bool = False,
    admins: frozenset[str] = frozenset(),
    api_timeout: float | None = None,
) -> SlackHarness:
    env = {
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_API_URL": fake.api_url,  # without the trailing slash, as an admin might write it
        "ZEROQUIZ_SLACK_ADMINS": ",".join(sorted(admins)),
        **({"SLACK_APP_TOKEN": APP_TOKEN} if socket else {"SLACK_SIGNING_SECRET": SECRET}),
    }
    config = load_config(env)
    assert config is not None
    return await _serve(fake, config, db_path, clock, bank, socket=socket, api_timeout=api_timeout)


async def _serve(
    fake: FakeSlack,
    config: SlackConfig,
    db_path: str | Path,
    clock: FakeClock,
    bank: Bank,
    *,
    socket: bool,
    api_timeout: float | None = None,
) -> SlackHarness:
    runtime = await Runtime.open(db_path, bank, clock, random.Random(11))
    surface = SlackSurface(
        config, runtime, host="127.0.0.1", port=0, backoff=QUICK_RETRIES,
        api_timeout=api_timeout if api_timeout is not None else TIMEOUT_SECONDS,
    )  # fmt: skip
    runtime.start()
    # As in `zeroquiz serve` against the real Slack: the scheduler's first pass ends before the
    # surface is up, so the surface itself must get Slack's overdue rounds handled.
    await runtime.scheduler.caught_up()
    try:
        await surface.start()
    except BaseException:
        await runtime.close()
        raise
    return SlackHarness(fake, runtime, surface, aiohttp.ClientSession(), socket)


# A Fernet key for the tests' sealed tokens (any 32 url-safe base64 bytes).
TOKEN_KEY = "bXVsdGktd29ya3NwYWNlLXRlc3Qta2V5LTMyYnl0ZSE="


def oauth_env(fake: FakeSlack, *, key: str = TOKEN_KEY) -> dict[str, str]:
    """Multi-workspace mode: no bot token, the OAuth client instead."""
    return {
        "SLACK_CLIENT_ID": CLIENT_ID,
        "SLACK_CLIENT_SECRET": CLIENT_SECRET,
        "SLACK_SIGNING_SECRET": SECRET,
        "ZEROQUIZ_TOKEN_KEY": key,
        "SLACK_API_URL": fake.api_url,
    }


async def open_oauth_harness(
    fake: FakeSlack,
    db_path: str | Path,
    clock: FakeClock,
    bank: Bank,
    *,
    key: str = TOKEN_KEY,
    env: dict[str, str] | None = None,
) -> SlackHarness:
    """The real AsyncApp in multi-workspace HTTP mode, its installations in `db_path` (a SQLite
    file or a PostgreSQL URL), tokens sealed with `key`, `env` added to its variables."""
    config = load_config(oauth_env(fake, key=key) | (env or {}))
    assert config is not None and config.oauth is not None
    return await _serve(fake, config, db_path, clock, bank, socket=False)


async def begin_install(harness: SlackHarness) -> tuple[str, str]:
    """Open /slack/install as a browser would: (the state in its Slack link, its cookie)."""
    assert harness.surface.base_url is not None
    async with harness.http.get(harness.surface.base_url + "/slack/install") as response:
        page = await response.text()
        assert response.status == 200, page
        cookie = response.headers["Set-Cookie"].split(";", 1)[0]
    found = re.search(r"state=([A-Za-z0-9_\-]+)", page)
    assert found is not None, page
    return found.group(1), cookie


async def finish_install(harness: SlackHarness, code: str, state: str, cookie: str) -> int:
    """Slack redirects the browser back with the code and the state: the HTTP status shown."""
    assert harness.surface.base_url is not None
    async with harness.http.get(
        harness.surface.base_url + "/slack/oauth_redirect",
        params={"code": code, "state": state},
        headers={"Cookie": cookie},
    ) as response:
        await response.read()
        return response.status


async def install(harness: SlackHarness, team: str) -> int:
    """The whole "Add to Slack" round trip for workspace `team`."""
    state, cookie = await begin_install(harness)
    return await finish_install(harness, harness.fake.approve(team), state, cookie)


@pytest.fixture(name="fake")
async def fake_fixture(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeSlack]:
    """A fresh fake Slack with a few people; SLACK_* variables cleared (Bolt reads them)."""
    for name in list(os.environ):
        if name.startswith("SLACK_"):
            monkeypatch.delenv(name)
    fake = FakeSlack()
    fake.add_user("U1", "Ada Lovelace")
    fake.add_user("U2", "Alan Turing")
    fake.add_user("UADMIN", "Grace Hopper", admin=True)
    await fake.start()
    yield fake
    await fake.stop()


@pytest.fixture(name="slack")
async def slack_fixture(
    fake: FakeSlack, db_path: Path, clock: FakeClock, bank: Bank
) -> AsyncIterator[SlackHarness]:
    """The real AsyncApp served over HTTP on 127.0.0.1, against the fake Web API."""
    harness = await open_harness(fake, db_path, clock, bank)
    yield harness
    await harness.close()
