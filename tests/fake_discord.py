"""A fake Discord (REST + gateway) on 127.0.0.1: end-to-end tests with the real discord.py client.

Follows ../shared/reference/platform-testing.md. Every request body the bot sends that Discord
would validate (message create/edit, interaction callbacks, webhook followups, command
registration) is checked against Discord's own OpenAPI description plus the limits the schema
can't express (6000 embed characters, no mentions); a body Discord would reject is answered with
400 and recorded in `problems`, which the fixtures assert empty at teardown.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import re
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

import aiohttp
import discord
import jsonschema
import pytest
from aiohttp import BodyPartReader, WSMsgType, web
from fake_tls import client_context, files, server_context
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from adapters.discord.surface import DiscordSurface, surface_from_env
from adapters.runtime import Runtime
from adapters.timeouts import Timeouts
from bot import presenter
from bot.bank import Bank
from bot.clock import FakeClock
from bot.model import ChannelRef
from bot.storage import RoundRecord

# Discord's official OpenAPI description of API v10 (MIT, see data/discord-openapi.LICENSE), kept
# in the repository so the check runs wherever the tests run.
SPEC_PATH = Path(__file__).parent / "data" / "discord-openapi.json"
SPEC_URI = "urn:discord-openapi"
TOKEN = "fake-token.not-a-real-one.0123456789"
APP_ID = 111000000000000001
BOT_ID = 111000000000000002
OWNER_ID = 111000000000000003
GUILD_ID = 222000000000000001
CHANNEL_ID = 333000000000000001
# A second server, on the other shard when there are two: (guild_id >> 22) % 2 is 0 for GUILD_ID
# and 1 for GUILD_B_ID.
GUILD_B_ID = 222000000004194306
CHANNEL_B_ID = 333000000000000002
CHANNELS = {GUILD_ID: CHANNEL_ID, GUILD_B_ID: CHANNEL_B_ID}
EPHEMERAL = 64
ATTACHMENT_LIMIT = 8388608  # the `attachment_size_limit` every interaction here carries
FILES = web.RequestKey("files", dict)  # a multipart request's uploads: index -> (name, bytes)
MANAGE_GUILD = discord.Permissions(manage_guild=True).value
# What `zeroquiz discord-invite` asks for (adapters/discord/invite.py).
BOT_PERMS = discord.Permissions(
    view_channel=True, send_messages=True, send_messages_in_threads=True, embed_links=True
).value
THREAD_ID = 333000000000000011  # a thread (or forum post) in GUILD_ID, under CHANNEL_ID
PUBLIC_THREAD, PRIVATE_THREAD = 11, 12

Json = dict[str, Any]
GATEWAY = "wss://gateway.discord.gg"  # what Discord's /gateway/bot and READY say


@cache
def _registry() -> tuple[Json, Registry[Any]]:
    spec = json.loads(SPEC_PATH.read_text())
    resource = Resource.from_contents(spec, default_specification=DRAFT202012)
    return spec, Registry().with_resource(SPEC_URI, resource)


@cache
def validator(path: str, method: str) -> jsonschema.protocols.Validator:
    """The JSON request-body validator for one operation of Discord's OpenAPI description."""
    spec, registry = _registry()
    schema = spec["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"]
    rooted = json.loads(json.dumps(schema).replace('"#/', f'"{SPEC_URI}#/'))
    return jsonschema.Draft202012Validator(rooted, registry=registry)


def embed_total(embed: Json) -> int:
    """Characters Discord counts against the 6000 per message."""
    total = len(embed.get("title") or "") + len(embed.get("description") or "")
    total += len((embed.get("footer") or {}).get("text") or "")
    total += len((embed.get("author") or {}).get("name") or "")
    for f in embed.get("fields") or []:
        total += len(f.get("name") or "") + len(f.get("value") or "")
    return total


def message_problems(body: Json) -> list[str]:
    """Limits outside the schema: embed totals, and that nothing can ping anyone."""
    problems = []
    embeds = body.get("embeds") or []
    if sum(embed_total(e) for e in embeds) > 6000:
        problems.append("embeds exceed 6000 characters")
    for e in embeds:
        if "fields" in e and len(e["fields"]) > 25:
            problems.append("more than 25 fields")
    if ("content" in body or "embeds" in body) and body.get("allowed_mentions") != {"parse": []}:
        problems.append(f"allowed_mentions is not none: {body.get('allowed_mentions')!r}")
    return problems


def user(n: int, name: str | None = None) -> Json:
    return {
        "id": str(500000000000000000 + n),
        "username": f"user{n}",
        "discriminator": "0",
        "global_name": name or f"User {n}",
        "avatar": None,
    }


def iso(at: datetime) -> str:
    return at.isoformat()


@dataclass
class Call:
    method: str
    path: str
    body: Any
    query: str = ""


@dataclass
class FakeDiscord:
    now: Callable[[], datetime] = lambda: datetime.now(UTC)
    token: str = TOKEN
    app_perms: int = BOT_PERMS
    problems: list[str] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    messages: dict[int, Json] = field(default_factory=dict)
    responses: dict[str, list[Json]] = field(default_factory=dict)  # by interaction token
    command_puts: list[tuple[str, list[Json]]] = field(default_factory=list)
    posted: list[int] = field(default_factory=list)  # channel messages, in order
    identifies: int = 0
    intents: int | None = None  # as sent in the last IDENTIFY
    # Sharding, as Discord does it: GET /gateway/bot recommends `shards` and allows
    # `max_concurrency` IDENTIFYs per 5 s; a connection identified with [id, count] gets the
    # guilds with (guild_id >> 22) % count == id, and their interactions; one identified
    # without a shard gets every guild.
    shards: int = 1
    max_concurrency: int = 16
    identified: list[tuple[int, int] | None] = field(default_factory=list)  # per IDENTIFY
    refuse_old_edits: bool = False  # answer edits of messages older than an hour with 30046
    refused_edits: int = 0
    hold_callbacks: asyncio.Event | None = None
    hold_commands: asyncio.Event | None = None  # a slow registration: PUT commands waits for it
    post_failures: list[int] = field(default_factory=list)  # statuses for the next message posts
    # By route ("post", "edit", "callback", "commands"): what the next calls meet. A status is
    # answered instead of doing the work; "cut" (posts and edits) does the work, then cuts the
    # connection before answering (the bot can't know whether it happened: the case a nonce is
    # for); "hold" does the work and answers only once `released` is set (a test kills the bot
    # meanwhile).
    faults: dict[str, list[int | str]] = field(default_factory=dict)
    released: asyncio.Event = field(default_factory=asyncio.Event)
    delay: float = 0.0  # seconds each of those routes takes (a slow Discord)
    sent_at: dict[str, float] = field(default_factory=dict)  # interaction token -> event sent
    answered_at: dict[str, float] = field(default_factory=dict)  # -> first callback arrived
    url: str = ""
    dms: dict[str, str] = field(default_factory=dict)  # DM channel id -> its recipient's user id
    port: int = 0

    def __post_init__(self) -> None:
        self._ids = itertools.count(1)
        self._seq = itertools.count(1)
        self._sockets: list[web.WebSocketResponse] = []
        self._close_asked: dict[web.WebSocketResponse, asyncio.Future[int]] = {}
        self._runner: web.AppRunner | None = None
        self.registered: list[Json] = []
        self._nonces: dict[str, int] = {}
        self._shard_of: dict[web.WebSocketResponse, tuple[int, int]] = {}  # once identified
        self._channel_of: dict[str, str] = {}  # interaction token -> its channel
        self._threads: dict[str, Json] = {}  # id -> a thread made by thread()
        self._clicked: dict[str, int] = {}  # component interaction token -> the message clicked
        self.response_ids: dict[str, int] = {}  # interaction token -> the message it answered with
        self.files: dict[str, bytes] = {}  # attachment id -> its bytes, served under /cdn/

    # -- ids and objects ------------------------------------------------------------------------
    def snowflake(self) -> int:
        return discord.utils.time_snowflake(self.now()) + next(self._ids)

    @property
    def bot_user(self) -> Json:
        return {
            "id": str(BOT_ID),
            "username": "ZeroQuiz",
            "discriminator": "0",
            "global_name": None,
            "avatar": None,
            "bot": True,
            "flags": 0,
        }

    def _message(
        self, channel_id: str, body: Json, flags: int = 0, attachments: list[Json] | None = None
    ) -> Json:
        mid = self.snowflake()
        message = {
            "id": str(mid),
            "channel_id": channel_id,
            "type": 0,
            "content": body.get("content") or "",
            "author": self.bot_user,
            "embeds": body.get("embeds") or [],
            "attachments": attachments or [],
            "mentions": [],
            "mention_roles": [],
            "mention_everyone": False,
            "pinned": False,
            "tts": False,
            "timestamp": iso(self.now()),
            "edited_timestamp": None,
            "flags": flags | (body.get("flags") or 0),
            "components": body.get("components") or [],
        }
        self.messages[mid] = message
        return message

    # -- REST -----------------------------------------------------------------------------------
    @staticmethod
    def _json(data: Any, status: int = 200) -> web.Response:
        # Exactly application/json: discord.py compares the header string.
        return web.Response(
            body=json.dumps(data).encode(), status=status, content_type="application/json"
        )

    def _check(
        self, request: web.Request, body: Any, path: str, method: str
    ) -> web.Response | None:
        found = [
            f"{request.method} {request.path}: {e.json_path}: {e.message[:200]}"
            for e in validator(path, method).iter_errors(body)
        ]
        if isinstance(body, dict):
            message = body.get("data") if path.endswith("/callback") else body
            if isinstance(message, dict) and body.get("type") != 5:
                found += [
                    f"{request.method} {request.path}: {p}" for p in message_problems(message)
                ]
        if not found:
            return None
        self.problems.extend(found)
        return self._json({"code": 50035, "message": "Invalid Form Body", "errors": found}, 400)

    async def _read(self, request: web.Request) -> Any:
        """The JSON body; a multipart one (a message with files, as discord.py sends it) is
        read as Discord does: `payload_json` is the body, `files[n]` the uploads, kept in
        `request["files"]` and checked against the body's `attachments`."""
        if request.content_type == "multipart/form-data":
            body, files = await self._multipart(request)
            request[FILES] = files
        else:
            body = await request.json() if request.can_read_body else None
        self.calls.append(Call(request.method, request.path, body, request.query_string))
        return body

    async def _multipart(self, request: web.Request) -> tuple[Any, dict[int, tuple[str, bytes]]]:
        body: Any = None
        files: dict[int, tuple[str, bytes]] = {}
        reader = await request.multipart()
        while (part := await reader.next()) is not None:
            assert isinstance(part, BodyPartReader)
            name = part.name or ""
            if name == "payload_json":
                body = json.loads(await part.text())
            elif (field_n := re.fullmatch(r"files\[(\d+)\]", name)) is not None:
                files[int(field_n.group(1))] = (part.filename or "", bytes(await part.read()))
            else:
                self.problems.append(f"{request.path}: unexpected multipart field {name!r}")
        message = body.get("data", body) if isinstance(body, dict) else None
        for attachment in (message or {}).get("attachments") or []:
            # The index of files[n], a JSON number in Discord's own "Uploading Files" example
            # (and as discord.py sends it); the OpenAPI types it as a snowflake string.
            if isinstance(attachment.get("id"), int):
                attachment["id"] = str(attachment["id"])
        listed = {int(a["id"]): a.get("filename") for a in (message or {}).get("attachments") or []}
        for index, (filename, data) in files.items():
            if listed.get(index) != filename:
                self.problems.append(f"{request.path}: files[{index}] is not in attachments")
            if len(data) > ATTACHMENT_LIMIT:
                self.problems.append(f"{request.path}: files[{index}] exceeds the upload limit")
        return body, files

    def _attachments(self, request: web.Request) -> list[Json]:
        """Uploaded files as a message shows them, each served from this fake's CDN."""
        shown = []
        for filename, data in request.get(FILES, {}).values():
            aid = str(self.snowflake())
            self.files[aid] = data
            shown.append({
                "id": aid, "filename": filename, "size": len(data),
                "url": f"{self.url}/cdn/{aid}/{filename}",
                "proxy_url": f"{self.url}/cdn/{aid}/{filename}",
                "content_type": "application/octet-stream",
            })  # fmt: skip
        return shown

    async def _fault(self, route: str, request: web.Request) -> web.Response | None:
        """The answer of an injected fault, or None to go on (and maybe cut afterwards)."""
        if self.delay:
            await asyncio.sleep(self.delay)
        queue = self.faults.get(route)
        if not queue or queue[0] in ("cut", "hold"):
            return None
        fault = str(queue.pop(0))  # a status, or "429:<seconds>" for a longer Retry-After
        status, _, wait = fault.partition(":")
        if int(status) == 429:  # as Discord limits a route (API limits come "Via" its proxy)
            retry_after = float(wait or 0.05)
            limited = self._json(
                {"message": "You are being rate limited.", "retry_after": retry_after,
                 "global": False},
                429,
            )  # fmt: skip
            limited.headers.update(
                {"Retry-After": f"{retry_after:g}", "X-RateLimit-Scope": "user",
                 "Via": "1.1 google"}
            )  # fmt: skip
            return limited
        return self._json({"code": 0, "message": "Discord is having trouble"}, int(status))

    async def _cut(self, route: str, request: web.Request, response: web.Response) -> web.Response:
        queue = self.faults.get(route)
        if queue and queue[0] == "hold":
            queue.pop(0)
            await self.released.wait()
        elif queue and queue[0] == "cut" and request.transport is not None:
            queue.pop(0)
            request.transport.close()  # the work is done; its answer never arrives
        return response

    def _authorized(self, request: web.Request) -> bool:
        return request.headers.get("Authorization") == f"Bot {self.token}"

    async def users_me(self, request: web.Request) -> web.Response:
        await self._read(request)
        if not self._authorized(request):
            return self._json({"message": "401: Unauthorized", "code": 0}, 401)
        return self._json(self.bot_user)

    async def gateway_bot(self, request: web.Request) -> web.Response:
        await self._read(request)
        if not self._authorized(request):
            return self._json({"message": "401: Unauthorized", "code": 0}, 401)
        limit = {
            "total": 1000,
            "remaining": 1000 - self.identifies,
            "reset_after": 0,
            "max_concurrency": self.max_concurrency,
        }
        return self._json(
            {
                "url": GATEWAY,
                "shards": self.shards,
                "session_start_limit": limit,
            }
        )

    async def application(self, request: web.Request) -> web.Response:
        await self._read(request)
        owner = user(0, "Owner") | {"id": str(OWNER_ID)}
        return self._json(
            {
                "id": str(APP_ID),
                "name": "ZeroQuiz",
                "description": "",
                "icon": None,
                "bot_public": True,
                "bot_require_code_grant": False,
                "owner": owner,
                "verify_key": "0" * 64,
                "flags": 0,
            }
        )

    async def put_commands(self, request: web.Request) -> web.Response:
        body = await self._read(request)
        guild = request.match_info.get("guild")
        path = "/applications/{application_id}/commands"
        if guild:
            path = "/applications/{application_id}/guilds/{guild_id}/commands"
        if (bad := self._check(request, body, path, "put")) is not None:
            return bad
        if self.hold_commands is not None:
            await self.hold_commands.wait()
        if "commands" in self.faults and (faulty := await self._fault("commands", request)):
            return faulty
        self.command_puts.append((guild or "global", body))
        self.registered = [
            cmd
            | {"id": str(self.snowflake()), "application_id": str(APP_ID), "version": "1"}
            | ({"guild_id": guild} if guild else {})
            for cmd in body
        ]
        return self._json(self.registered)

    async def create_message(self, request: web.Request) -> web.Response:
        body = await self._read(request)
        if (
            bad := self._check(request, body, "/channels/{channel_id}/messages", "post")
        ) is not None:
            return bad
        if self.post_failures:  # 403: Missing Permissions; 503: Discord is having trouble
            status = self.post_failures.pop(0)
            code, text = (50013, "Missing Permissions") if status == 403 else (0, "Unavailable")
            return self._json({"code": code, "message": text}, status)
        if (faulty := await self._fault("post", request)) is not None:
            return faulty
        nonce = body.get("nonce") if body.get("enforce_nonce") else None
        if nonce is not None and nonce in self._nonces:  # Discord drops a repeat, returns the first
            return self._json(self.messages[self._nonces[nonce]])
        message = self._message(request.match_info["channel"], body)
        self.posted.append(int(message["id"]))
        if nonce is not None:
            self._nonces[nonce] = int(message["id"])
        return await self._cut("post", request, self._json(message))

    async def open_dm(self, request: web.Request) -> web.Response:
        """POST /users/@me/channels: the bot's direct-message channel with one user (the same
        channel every time, as Discord gives it); `dms` maps its id to the user's."""
        body = await self._read(request)
        # discord.py sends the id as a JSON number, which Discord takes (its schema says string).
        if isinstance(body, dict) and isinstance(body.get("recipient_id"), int):
            body = {**body, "recipient_id": str(body["recipient_id"])}
        if (bad := self._check(request, body, "/users/@me/channels", "post")) is not None:
            return bad
        recipient = str(body["recipient_id"])
        found = next((c for c, u in self.dms.items() if u == recipient), None)
        channel = found or str(self.snowflake())
        self.dms[channel] = recipient
        person = {**user(0), "id": recipient, "username": f"u{recipient}"}
        return self._json(
            {"id": channel, "type": 1, "recipients": [person], "last_message_id": None}
        )

    def direct_messages(self, recipient: str) -> list[Json]:
        """Messages the bot posted in its DM channel with `recipient`, oldest first."""
        return [
            self.messages[mid] for mid in self.posted
            if self.dms.get(str(self.messages[mid]["channel_id"])) == recipient
        ]  # fmt: skip

    async def edit_message(self, request: web.Request) -> web.Response:
        body = await self._read(request)
        path = "/channels/{channel_id}/messages/{message_id}"
        if (bad := self._check(request, body, path, "patch")) is not None:
            return bad
        if (faulty := await self._fault("edit", request)) is not None:
            return faulty
        message = self.messages.get(int(request.match_info["message"]))
        if message is None:
            return self._json({"message": "Unknown Message", "code": 10008}, 404)
        age = self.now() - discord.utils.snowflake_time(int(message["id"]))
        if self.refuse_old_edits and age > timedelta(hours=1):
            self.refused_edits += 1
            error = "Maximum number of edits to messages older than 1 hour reached."
            return self._json({"message": error, "code": 30046}, 400)
        for key in ("content", "embeds", "components"):
            if key in body:
                message[key] = body[key] or ([] if key != "content" else "")
        message["edited_timestamp"] = iso(self.now())
        return await self._cut("edit", request, self._json(message))

    async def callback(self, request: web.Request) -> web.Response:
        body = await self._read(request)
        path = "/interactions/{interaction_id}/{interaction_token}/callback"
        if (bad := self._check(request, body, path, "post")) is not None:
            return bad
        token = request.match_info["token"]
        kind = body["type"]
        data = body.get("data") or {}
        if (faulty := await self._fault("callback", request)) is not None:
            return faulty
        if token in self.answered_at:  # an interaction is answered once; Discord refuses more
            refusal = "Interaction has already been acknowledged."
            return self._json({"code": 40060, "message": refusal}, 400)
        self.responses.setdefault(token, []).append(body)
        self.answered_at.setdefault(token, time.monotonic())
        if self.hold_callbacks is not None:  # a slow Discord: the bot waits for this answer
            await self.hold_callbacks.wait()
        ephemeral = bool((data.get("flags") or 0) & EPHEMERAL)
        head: Json = {
            "id": request.match_info["interaction"],
            "type": 2,
            "response_message_loading": kind == 5,
            "response_message_ephemeral": ephemeral,
        }
        reply: Json = {"interaction": head}
        if kind == 7:  # UPDATE_MESSAGE: the message the component was on, edited in place
            mid = self._clicked.get(token)
            if mid is None or mid not in self.messages:
                self.problems.append("UPDATE_MESSAGE answers an interaction without a message")
                return self._json({"code": 50035, "message": "Invalid Form Body"}, 400)
            message = self.messages[mid]
            for key in ("content", "embeds", "components"):
                if key in data:
                    message[key] = data[key] or ([] if key != "content" else "")
            message["edited_timestamp"] = iso(self.now())
            head["response_message_id"] = message["id"]
            head["response_message_ephemeral"] = bool(message["flags"] & EPHEMERAL)
            reply["resource"] = {"type": kind, "message": message}
            self.response_ids[token] = mid
        elif kind == 4:
            where = self._channel_of.get(token, str(CHANNEL_ID))
            message = self._message(where, data, attachments=self._attachments(request))
            head["response_message_id"] = message["id"]
            reply["resource"] = {"type": kind, "message": message}
            self.response_ids[token] = int(message["id"])
        # As Discord: the callback object only when asked for (`with_response`), else 204.
        wanted = request.query.get("with_response", "").lower() in ("1", "true")
        answer = self._json(reply) if wanted else web.Response(status=204)
        return await self._cut("callback", request, answer)

    async def followup(self, request: web.Request) -> web.Response:
        body = await self._read(request)
        if bad := self._check(request, body, "/webhooks/{webhook_id}/{webhook_token}", "post"):
            return bad
        token = request.match_info["token"]
        self.responses.setdefault(token, []).append(body)
        where = self._channel_of.get(token, str(CHANNEL_ID))
        return self._json(self._message(where, body, attachments=self._attachments(request)))

    async def edit_original(self, request: web.Request) -> web.Response:
        body = await self._read(request)
        path = "/webhooks/{webhook_id}/{webhook_token}/messages/@original"
        if (bad := self._check(request, body, path, "patch")) is not None:
            return bad
        token = request.match_info["token"]
        first = next(iter(self.responses.get(token, [])), None)
        if first is None:  # nothing to edit before the interaction is answered
            return self._json({"message": "Unknown Webhook", "code": 10015}, 404)
        # The original response keeps what it was answered with: deferred ephemeral, the edit
        # is ephemeral too. Recorded as the user sees it, flags included.
        flags = int((first.get("data") or {}).get("flags") or 0)
        where = self._channel_of.get(token, str(CHANNEL_ID))
        message = self._message(where, body, flags, self._attachments(request))
        self.responses[token].append(body | {"flags": message["flags"]})
        return self._json(message)

    async def unknown(self, request: web.Request) -> web.Response:
        await self._read(request)
        self.problems.append(f"unexpected call {request.method} {request.path}")
        return self._json({"message": "404: Not Found", "code": 0}, 404)

    # -- gateway --------------------------------------------------------------------------------
    async def gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self._sockets.append(ws)
        asked = self._close_asked[ws] = asyncio.get_running_loop().create_future()
        await ws.send_json({"op": 10, "d": {"heartbeat_interval": 45000}})
        reading = asyncio.create_task(self._gateway_messages(ws))
        await asyncio.wait({reading, asked}, return_when=asyncio.FIRST_COMPLETED)
        if not reading.done():
            # Closed from here, not beside a reader: aiohttp then waits for the client's own
            # close frame before it ends the connection. Ended at once (as it does with a
            # reader), the client's reply meets a closed TLS connection, and discord.py sees
            # an abnormal closure (1006), which it retries, instead of the code sent.
            reading.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reading
            await ws.close(code=asked.result(), message=b"closed by the fake")
        del self._close_asked[ws]
        if ws in self._sockets:
            self._sockets.remove(ws)
        self._shard_of.pop(ws, None)
        return ws

    async def _gateway_messages(self, ws: web.WebSocketResponse) -> None:
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                continue
            payload = json.loads(msg.data)
            if payload["op"] == 1:
                await ws.send_json({"op": 11})
            elif payload["op"] == 2:
                self.identifies += 1
                self.intents = int(payload["d"]["intents"])
                shard = payload["d"].get("shard")
                self.identified.append((int(shard[0]), int(shard[1])) if shard else None)
                self._shard_of[ws] = (int(shard[0]), int(shard[1])) if shard else (0, 1)
                guilds = [g for g in CHANNELS if self._owns(ws, g)]
                await self._dispatch(ws, "READY", self._ready(guilds, shard))
                for guild in guilds:
                    await self._dispatch(ws, "GUILD_CREATE", self._guild(guild))

    def _owns(self, ws: web.WebSocketResponse, guild: int) -> bool:
        shard_id, count = self._shard_of.get(ws, (0, 1))
        return (guild >> 22) % count == shard_id

    async def _dispatch(self, ws: web.WebSocketResponse, event: str, data: Json) -> None:
        await ws.send_json({"op": 0, "s": next(self._seq), "t": event, "d": data})

    def _ready(self, guilds: list[int], shard: list[int] | None) -> Json:
        ready: Json = {
            "v": 10,
            "user": self.bot_user,
            "session_id": "s1",
            "resume_gateway_url": GATEWAY,
            "guilds": [{"id": str(g), "unavailable": True} for g in guilds],
            "application": {"id": str(APP_ID), "flags": 0},
            "private_channels": [],
        }
        if shard:
            ready["shard"] = shard
        return ready

    def _guild(self, guild: int) -> Json:
        everyone = discord.Permissions(view_channel=True, send_messages=True).value
        channel = CHANNELS[guild]
        return {
            "id": str(guild),
            "name": "ZeRO study group" if guild == GUILD_ID else "ZeRO reading club",
            "owner_id": str(OWNER_ID),
            "roles": [
                {
                    "id": str(guild),
                    "name": "@everyone",
                    "permissions": str(everyone),
                    "position": 0,
                    "color": 0,
                    "hoist": False,
                    "managed": False,
                    "mentionable": False,
                    "flags": 0,
                }
            ],
            "channels": [{"id": str(channel), "type": 0, "name": "quiz", "position": 0}],
            "members": [],
            "member_count": 2,
            "emojis": [],
            "stickers": [],
            "features": [],
            "threads": [],
            "unavailable": False,
        }

    @property
    def connected(self) -> int:
        """Gateway connections currently open."""
        return len(self._sockets)

    async def close_gateway(self, code: int) -> None:
        """Close every gateway connection with a close code, as Discord does (4004: the token
        is no longer valid, which discord.py does not retry)."""
        for asked in list(self._close_asked.values()):
            if not asked.done():
                asked.set_result(code)
        await self.wait_for(lambda: not self._sockets)

    async def send_event(self, event: str, data: Json) -> None:
        """An event on the gateway; an interaction in a guild goes, as Discord sends it, to every
        connection identified with the guild's shard."""
        if not self._sockets:
            raise AssertionError("the bot is not connected to the fake gateway")
        guild = data.get("guild_id") if event == "INTERACTION_CREATE" else None
        if not isinstance(guild, str) or not guild.isdecimal():  # int() takes these only
            await self._dispatch(self._sockets[-1], event, data)
            return
        owners = [ws for ws in self.shard_sockets(int(guild)) if not ws.closed]
        if not owners:
            raise AssertionError(f"no connection runs the shard of guild {guild}")
        for ws in owners:
            await self._dispatch(ws, event, data)

    def shard_sockets(self, guild: int) -> list[web.WebSocketResponse]:
        """The identified connections that get the guild's events."""
        return [ws for ws in self._sockets if ws in self._shard_of and self._owns(ws, guild)]

    # -- interactions the tests send ------------------------------------------------------------
    def _interaction(
        self,
        kind: int,
        member: Json,
        data: Json,
        app_perms: int | None,
        guild: int = GUILD_ID,
        place: Json | None = None,
    ) -> Json:
        iid = self.snowflake()
        where = place or {"id": str(CHANNELS[guild]), "type": 0, "name": "quiz", "position": 0}
        channel = where["id"]
        self._channel_of[f"itoken-{iid}"] = str(channel)
        return {
            "id": str(iid),
            "application_id": str(APP_ID),
            "type": kind,
            "token": f"itoken-{iid}",
            "version": 1,
            "attachment_size_limit": ATTACHMENT_LIMIT,
            "guild_id": str(guild),
            "channel_id": str(channel),
            "channel": where,
            "member": member,
            "app_permissions": str(self.app_perms if app_perms is None else app_perms),
            "locale": "en-US",
            "guild_locale": "en-US",
            "entitlements": [],
            "authorizing_integration_owners": {"0": str(guild)},
            "context": 0,
            "data": data,
        }

    def thread(self, kind: int = PUBLIC_THREAD, thread_id: int = THREAD_ID) -> Json:
        """A thread under the quiz channel as an interaction carries it (a forum post is a
        public thread whose parent is a forum); clicks on messages in it come from it too."""
        channel: Json = {
            "id": str(thread_id),
            "type": kind,
            "guild_id": str(GUILD_ID),
            "parent_id": str(CHANNEL_ID),
            "owner_id": str(OWNER_ID),
            "name": "quiz thread",
            "message_count": 0,
            "member_count": 1,
            "rate_limit_per_user": 0,
            "flags": 0,
            "thread_metadata": {
                "archived": False,
                "auto_archive_duration": 1440,
                "archive_timestamp": iso(self.now()),
                "locked": False,
            },
        }
        self._threads[str(thread_id)] = channel
        return channel

    @staticmethod
    def member(who: Json, permissions: int = 0) -> Json:
        return {
            "user": who,
            "roles": [],
            "flags": 0,
            "permissions": str(permissions),
            "joined_at": "2025-01-01T00:00:00+00:00",
            "deaf": False,
            "mute": False,
        }

    async def slash(
        self,
        sub: str,
        options: dict[str, Any] | None = None,
        *,
        who: Json | None = None,
        permissions: int = 0,
        app_perms: int | None = None,
        guild: int = GUILD_ID,
        place: Json | None = None,
    ) -> str:
        """`/zeroquiz <sub> ...` by `who` (in `guild`'s quiz channel, or in `place`: a thread);
        returns the interaction token to find its replies. As in Discord, a command can be
        typed once it is registered: the bot registers beside its connection, so this waits."""
        await self.wait_for(lambda: self.registered, timeout=10)
        payload = self.slash_payload(
            sub,
            options,
            who=who,
            permissions=permissions,
            app_perms=app_perms,
            guild=guild,
            place=place,
        )
        self.sent_at[str(payload["token"])] = time.monotonic()
        await self.send_event("INTERACTION_CREATE", payload)
        return str(payload["token"])

    def slash_payload(
        self,
        sub: str,
        options: dict[str, Any] | None = None,
        *,
        who: Json | None = None,
        permissions: int = 0,
        app_perms: int | None = None,
        guild: int = GUILD_ID,
        place: Json | None = None,
    ) -> Json:
        """The INTERACTION_CREATE payload of such a command, for tests that send it changed."""
        command = next((c for c in self.registered if c["name"] == "zeroquiz"), None)
        assert command is not None, "commands were never synced to the fake"
        types = {
            o["name"]: {p["name"]: p["type"] for p in o.get("options", [])}
            for o in command["options"]
        }
        opts = [{"name": k, "type": types[sub][k], "value": v} for k, v in (options or {}).items()]
        data = {
            "id": command["id"],
            "name": "zeroquiz",
            "type": 1,
            "options": [{"name": sub, "type": 1, "options": opts}],
        }
        member = self.member(who or user(1), permissions)
        return self._interaction(2, member, data, app_perms, guild, place)

    async def slash_with_file(
        self,
        sub: str,
        options: dict[str, Any],
        option: str,
        filename: str,
        content: bytes,
        *,
        permissions: int = 0,
        guild: int = GUILD_ID,
    ) -> str:
        """`/zeroquiz <sub>` with a file attached to its `option` (an ATTACHMENT option: the
        value is the attachment's id, the attachment itself in `data.resolved`), the file
        served from this fake's CDN; returns the interaction token."""
        aid = str(self.snowflake())
        self.files[aid] = content
        payload = self.slash_payload(
            sub, {**options, option: aid}, permissions=permissions, guild=guild
        )
        payload["data"]["resolved"] = {
            "attachments": {
                aid: {
                    "id": aid, "filename": filename, "size": len(content),
                    "url": f"{self.url}/cdn/{aid}/{filename}",
                    "proxy_url": f"{self.url}/cdn/{aid}/{filename}",
                    "content_type": "application/yaml",
                }
            }
        }  # fmt: skip
        self.sent_at[str(payload["token"])] = time.monotonic()
        await self.send_event("INTERACTION_CREATE", payload)
        return str(payload["token"])

    async def cdn(self, request: web.Request) -> web.Response:
        content = self.files.get(request.match_info["id"])
        if content is None:
            return web.Response(status=404)
        return web.Response(body=content, content_type="application/octet-stream")

    def modal_of(self, token: str) -> Json:
        """The modal the bot answered an interaction with (callback type 9)."""
        for body in self.responses.get(token, []):
            if body.get("type") == 9:
                data: Json = body["data"]
                return data
        raise AssertionError("no modal was sent")

    async def submit_modal(
        self,
        modal: Json,
        values: Mapping[str, str | list[str]],
        *,
        permissions: int = 0,
        guild: int = GUILD_ID,
        who: Json | None = None,
        clicked: str | None = None,
    ) -> str:
        """Submit a modal the bot sent, its text inputs filled in and its selects chosen (a
        list of values) (MODAL_SUBMIT, type 5), as `who` (user 1 unless given); returns the
        interaction token. `clicked`: the token of the click that opened it, whose message the
        submission then carries, as Discord sends it (UPDATE_MESSAGE may edit that message)."""

        def inputs(component: Json) -> list[Json]:
            if component.get("type") == 4:
                return [component]
            found = [component["component"]] if "component" in component else []
            return found + [c for child in component.get("components", []) for c in inputs(child)]

        def submitted(item: Json) -> Json:
            given = values.get(item["custom_id"], "")
            if item.get("type") == 3:  # a string select, as a label holds it: its values
                chosen = given if isinstance(given, list) else [given]
                return {"type": 18, "component": {"type": 3, "custom_id": item["custom_id"],
                                                  "values": chosen}}  # fmt: skip
            return {"type": 1, "components": [
                {"type": 4, "custom_id": item["custom_id"], "value": given}
            ]}  # fmt: skip

        rows = [submitted(i) for top in modal["components"] for i in inputs(top)]
        data = {"custom_id": modal["custom_id"], "components": rows}
        payload = self._interaction(5, self.member(who or user(1), permissions), data, None, guild)
        mid = self._clicked.get(clicked) if clicked is not None else None
        if mid is not None and mid in self.messages:
            payload["message"] = self.messages[mid]
            self._clicked[str(payload["token"])] = mid
        self.sent_at[str(payload["token"])] = time.monotonic()
        await self.send_event("INTERACTION_CREATE", payload)
        return str(payload["token"])

    async def autocomplete(
        self, sub: str, option: str, typed: str, options: dict[str, Any] | None = None
    ) -> str:
        """A person typing `typed` into `option` of `/zeroquiz <sub>` (an autocomplete
        interaction, type 4, the typed option marked focused); returns the interaction token."""
        payload = self.slash_payload(sub, {**(options or {}), option: typed})
        for opt in payload["data"]["options"][0]["options"]:
            if opt["name"] == option:
                opt["focused"] = True
        payload["type"] = 4
        self.sent_at[str(payload["token"])] = time.monotonic()
        await self.send_event("INTERACTION_CREATE", payload)
        return str(payload["token"])

    async def click(
        self, message_id: int, custom_id: str, who: Json, seen: Json | None = None
    ) -> str:
        """A click on a button of a message the bot posted; returns the interaction token.

        `seen` is the message as the user's screen still showed it (a click racing an edit).
        """
        payload = self.click_payload(message_id, custom_id, who, seen)
        self.sent_at[str(payload["token"])] = time.monotonic()
        await self.send_event("INTERACTION_CREATE", payload)
        return str(payload["token"])

    def click_payload(
        self, message_id: int, custom_id: str, who: Json, seen: Json | None = None
    ) -> Json:
        """The INTERACTION_CREATE payload of such a click, for tests that send it changed."""
        message = dict(seen or self.messages[message_id])
        guild = next((g for g, c in CHANNELS.items() if str(c) == message["channel_id"]), GUILD_ID)
        message["guild_id"] = str(guild)
        data = {"custom_id": custom_id, "component_type": 2}
        place = self._threads.get(message["channel_id"])
        click = self._interaction(3, self.member(who), data, None, guild, place)
        self._clicked[str(click["token"])] = message_id
        return click | {"message": message}

    async def dm_click(self, message_id: int, custom_id: str, who: Json) -> str:
        """A click on a button of a message the bot sent in a direct message: as Discord sends
        it, with no server (no guild_id, `user` instead of `member`); returns the token."""
        iid = self.snowflake()
        message = self.messages[message_id]
        channel = {"id": message["channel_id"], "type": 1, "recipients": [who]}
        payload = {
            "id": str(iid), "application_id": str(APP_ID), "type": 3, "token": f"itoken-{iid}",
            "version": 1, "attachment_size_limit": ATTACHMENT_LIMIT,
            "channel_id": message["channel_id"], "channel": channel, "user": who,
            "app_permissions": str(self.app_perms), "locale": "en-US", "entitlements": [],
            "authorizing_integration_owners": {"0": str(GUILD_ID)}, "context": 1,
            "data": {"custom_id": custom_id, "component_type": 2}, "message": message,
        }  # fmt: skip
        self._channel_of[f"itoken-{iid}"] = str(message["channel_id"])
        self._clicked[f"itoken-{iid}"] = message_id
        self.sent_at[f"itoken-{iid}"] = time.monotonic()
        await self.send_event("INTERACTION_CREATE", payload)
        return f"itoken-{iid}"

    # -- what tests look at ---------------------------------------------------------------------
    def edits_of(self, message_id: int) -> list[Call]:
        return [c for c in self.calls if c.method == "PATCH" and c.path.endswith(f"/{message_id}")]

    async def wait_for(self, check: Callable[[], Any], timeout: float = 5.0) -> Any:
        """Poll for a side effect with a bounded deadline (the bot runs concurrently)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            result = check()
            if result:
                return result
            if loop.time() > deadline:
                raise AssertionError(f"timed out waiting for {check}")
            await asyncio.sleep(0.01)

    def response_delay(self, token: str) -> float:
        """Seconds from sending the interaction to the bot's first callback (Discord allows 3)."""
        return self.answered_at[token] - self.sent_at[token]

    async def reply_to(self, token: str, timeout: float = 5.0) -> Json:
        """The message body the user finally sees for an interaction (skipping a defer)."""

        def final() -> Json | None:
            for body in self.responses.get(token, []):
                if body.get("type") == 5:
                    continue
                return body.get("data", body) if "type" in body else body
            return None

        result: Json = await self.wait_for(final, timeout)
        return result

    async def attachments_of(self, token: str) -> list[tuple[str, bytes]]:
        """The files of the message an interaction was answered with (its first response), each
        downloaded from its URL as a person's client does: (file name, bytes)."""
        await self.reply_to(token)
        mid = self.response_ids.get(token)
        if mid is None:  # deferred, then edited: the edit's message carries them
            edited = [m for m in self.messages.values() if m["attachments"]]
            attachments = edited[-1]["attachments"] if edited else []
        else:
            attachments = self.messages[mid]["attachments"]
        found = []
        connector = aiohttp.TCPConnector(ssl=client_context())
        async with aiohttp.ClientSession(connector=connector) as http:
            for attachment in attachments:
                async with http.get(attachment["url"]) as response:
                    assert response.status == 200
                    found.append((attachment["filename"], await response.read()))
        return found

    # -- lifecycle ------------------------------------------------------------------------------
    async def start(self) -> None:
        app = web.Application()
        api = "/api/v10"
        app.router.add_get(f"{api}/users/@me", self.users_me)
        app.router.add_get(f"{api}/oauth2/applications/@me", self.application)
        app.router.add_get(f"{api}/gateway/bot", self.gateway_bot)
        app.router.add_put(f"{api}/applications/{{app}}/commands", self.put_commands)
        app.router.add_put(
            f"{api}/applications/{{app}}/guilds/{{guild}}/commands", self.put_commands
        )
        app.router.add_post(f"{api}/channels/{{channel}}/messages", self.create_message)
        app.router.add_post(f"{api}/users/@me/channels", self.open_dm)
        app.router.add_patch(f"{api}/channels/{{channel}}/messages/{{message}}", self.edit_message)
        # A token is whatever the interaction carried: discord.py quotes a "/" in it as %2F,
        # which the router decodes, so a token route takes any characters, "/" too.
        token = "{token:.+}"
        app.router.add_post(f"{api}/interactions/{{interaction}}/{token}/callback", self.callback)
        app.router.add_post(f"{api}/webhooks/{{app}}/{token}", self.followup)
        app.router.add_patch(
            f"{api}/webhooks/{{app}}/{token}/messages/@original", self.edit_original
        )
        app.router.add_get("/", self.gateway)  # wss://gateway.discord.gg/?v=10&...
        app.router.add_get("/cdn/{id}/{name}", self.cdn)
        app.router.add_route("*", "/{tail:.*}", self.unknown)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0, ssl_context=server_context()).start()
        self.port = self._runner.addresses[0][1]
        self.url = f"https://127.0.0.1:{self.port}"

    @property
    def env(self) -> dict[str, str]:
        """The variables `zeroquiz serve` would be given to use this fake: Discord's own URLs
        and names, reaching this address, under a certificate of the fake's own CA."""
        return {
            "DISCORD_TOKEN": self.token,
            "DISCORD_CONNECT_TO": f"127.0.0.1:{self.port}",
            "DISCORD_CA_FILE": str(files()[0]),
        }

    async def stop(self) -> None:
        for ws in list(self._sockets):
            await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()


def custom_ids(message: Json) -> list[str]:
    return [c["custom_id"] for row in message["components"] for c in row["components"]]


def letter_ids(message: Json) -> list[str]:
    """The custom_ids of a question's (or a review card's) own buttons, in order: not a generated
    question's Type it (zqt:) nor a verdict's Report (zqp:)."""
    return [c for c in custom_ids(message) if c.startswith(("zq:a:", "zqr:"))]


@pytest.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    fake = FakeDiscord()
    await fake.start()
    yield fake
    await fake.stop()
    assert fake.problems == [], fake.problems


# -- the bot under test, on a FakeClock, pointed at the fake ---------------------------------------
@dataclass
class RunningBot:
    runtime: Runtime
    surface: DiscordSurface

    async def stop(self) -> None:
        await self.surface.stop()
        await self.runtime.close()


class BotFactory:
    """Starts ZeroQuiz processes (runtime + Discord surface) against the fake; stops them all."""

    def __init__(
        self, fake: FakeDiscord, bank: Bank, clock: FakeClock, db_path: str | Path
    ) -> None:
        self.fake, self.bank, self.clock, self.db_path = fake, bank, clock, db_path
        self.running: list[RunningBot] = []

    async def start(
        self,
        env: dict[str, str] | None = None,
        *,
        synced: bool = True,
        timeouts: Timeouts | None = None,
    ) -> RunningBot:
        """A started bot; with `synced`, once its command registration has settled too (it runs
        beside the connection), so a test reads what it did."""
        runtime = await Runtime.open(
            self.db_path, self.bank, self.clock, random.Random(7), timeouts=timeouts
        )
        surface = surface_from_env(env or self.fake.env, runtime)
        assert surface is not None
        try:
            await surface.start()
        except BaseException:
            await runtime.close()
            raise
        runtime.start()  # as `zeroquiz serve` does: due work once the surface is connected
        if synced:
            await asyncio.wait_for(surface.client.sync_done.wait(), 30)
        bot = RunningBot(runtime, surface)
        self.running.append(bot)
        return bot

    async def stop(self, bot: RunningBot) -> None:
        self.running.remove(bot)
        await bot.stop()

    async def close(self) -> None:
        for bot in reversed(self.running):
            await bot.stop()
        self.running.clear()


@pytest.fixture
async def bots(
    fake_discord: FakeDiscord, bank: Bank, clock: FakeClock, db_path: Path
) -> AsyncIterator[BotFactory]:
    fake_discord.now = clock.now
    factory = BotFactory(fake_discord, bank, clock, db_path)
    yield factory
    await factory.close()


# -- what tests read back ----------------------------------------------------------------------
QUIZ_CHANNEL = ChannelRef("discord", str(GUILD_ID), str(CHANNEL_ID))


async def latest_round(bot: RunningBot) -> RoundRecord:
    rows = await bot.runtime.store.rounds.in_channel(QUIZ_CHANNEL)
    assert rows
    return rows[-1]


def right_option(bot: RunningBot, row: RoundRecord) -> int:
    question = bot.runtime.quiz.bank.get(row.question_id)
    assert question is not None
    return presenter.display_order(row, question).index(question.answer)


async def answers(bot: RunningBot) -> int:
    """Answers recorded in the channel, as the store holds them."""
    store = bot.runtime.store
    rounds = await store.rounds.in_channel(QUIZ_CHANNEL)
    return sum([await store.rounds.total_answers(r.id) for r in rounds])


def text_of(reply: Json) -> str:
    """The main text of a reply's embed."""
    embed = reply["embeds"][0]
    return str(embed.get("description") or "")
