"""SlackPort: how the core reaches a Slack channel for things nobody clicked.

A posted question's reference is its message `ts`; live counts and the reveal edit that same
message with chat.update, so the channel keeps one message per question. In multi-workspace mode
a token Slack rejects (the workspace uninstalled, and perhaps installed again through another
replica) is dropped and read from the database again once, before the call is given up.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack import render
from adapters.slack.web import (
    Rejected,
    TokenSource,
    error_code,
    reason_for,
    waiting_out_rate_limits,
    with_token,
)
from bot.model import ChannelRef, Lang, UserRef
from bot.ports import DeliveryError, Refused, Unavailable
from bot.views import NoticeView, QuestionView, ReminderView, RevealView

log = logging.getLogger(__name__)

PLATFORM = "slack"
# A question's (and a reminder's) message carries its dedupe key as metadata, so a later try can
# find it.
METADATA_TYPE = "zeroquiz_question"
FIND_MARGIN = timedelta(minutes=1)  # Slack's clock against ours
FIND_PAGES = 5  # at most 5 x 200 messages read back: a busy channel's first minutes of a round
FIND_PAGE_SIZE = 200
# The message was deleted or can't be edited: a reveal is then posted as a new message.
_GONE = frozenset({"message_not_found", "cant_update_message", "edit_window_closed"})


class SlackPort:
    platform = PLATFORM
    live_update_max_age: timedelta | None = None  # Slack has no cap on editing old messages

    def __init__(
        self,
        client: AsyncWebClient,
        lang_of: Callable[[ChannelRef], Awaitable[Lang]],
        tokens: TokenSource | None = None,
        *,
        rejected: Rejected | None = None,
    ) -> None:
        self.client = client
        self._lang_of = lang_of
        self._tokens = tokens  # multi-workspace: each channel's workspace has its own bot token
        self._rejected = rejected  # ... and when Slack refuses one, the newer one, if any

    async def _token(self, channel: ChannelRef) -> str | None:
        """The token for a call into the channel's workspace (None: the client's own)."""
        if self._tokens is None:
            return None
        try:
            token = await self._tokens(channel.team)
        except Exception as exc:  # the installation store (the database) did not answer
            raise Unavailable(type(exc).__name__) from exc
        if token is None:
            log.warning("workspace %s is not installed: nothing sent to it", channel.team)
            raise Refused(reason_for("not_authed", await self._lang(channel)))
        return token

    async def _lang(self, channel: ChannelRef) -> Lang:
        """The channel's language for a reason; English if even that can't be read now."""
        try:
            return await self._lang_of(channel)
        except Exception:
            log.warning(
                "language of channel %s unknown; the reason is given in English", channel.channel
            )
            return "en"

    async def post_question(
        self,
        channel: ChannelRef,
        view: QuestionView,
        *,
        dedupe_key: str | None = None,
        tried_since: datetime | None = None,
    ) -> str | None:
        """Slack has no idempotency key for chat.postMessage: the key goes into the message's
        metadata instead, and a try after one that may have reached Slack first looks for a
        message carrying it in the channel (see `_find`)."""
        if dedupe_key is not None and tried_since is not None:
            found = await self._find(channel, dedupe_key, tried_since)
            if found is not None:
                log.info(
                    "question %s was already in channel %s as %s: not posted again",
                    dedupe_key, channel.channel, found,
                )  # fmt: skip
                return found
        metadata = None if dedupe_key is None else _metadata(dedupe_key)
        return await self._post(channel, render.question_message(view), metadata=metadata)

    async def _find(self, channel: ChannelRef, key: str, since: datetime) -> str | None:
        """The `ts` of our message carrying `key`, posted since `since` (less a margin for the
        clocks); None if there is none, or if the channel's history can't be read (without
        channels:history / groups:history, or posting into a public channel the bot isn't in):
        then posting again is the lesser harm, a question shown twice rather than never."""
        oldest = f"{since.timestamp() - FIND_MARGIN.total_seconds():.6f}"
        cursor: str | None = None
        for _ in range(FIND_PAGES):
            try:
                page = await self._with_token(
                    channel,
                    self.client.conversations_history,
                    channel=channel.channel,
                    oldest=oldest,
                    limit=FIND_PAGE_SIZE,
                    include_all_metadata=True,
                    **({"cursor": cursor} if cursor else {}),
                )
            except DeliveryError:
                raise
            except Exception as exc:
                if isinstance(exc, SlackApiError) and not is_transient(error_code(exc)):
                    log.warning(
                        "channel %s's history can't be read (%s): the message is posted again, "
                        "and shows twice if the earlier try reached Slack",
                        channel.channel, error_code(exc),
                    )  # fmt: skip
                    return None
                raise await self._delivery_error("conversations.history", channel, exc) from exc
            for message in page.get("messages") or []:
                meta = message.get("metadata") or {}
                payload = meta.get("event_payload") or {}
                if meta.get("event_type") == METADATA_TYPE and payload.get("key") == key:
                    ts = message.get("ts")
                    return str(ts) if ts else None
            cursor = (page.get("response_metadata") or {}).get("next_cursor") or None
            if not page.get("has_more") or cursor is None:
                return None
        log.warning(
            "channel %s: message %s not found in its last %d messages; posted again",
            channel.channel, key, FIND_PAGES * FIND_PAGE_SIZE,
        )  # fmt: skip
        return None

    async def update_question(self, channel: ChannelRef, ref: str, view: QuestionView) -> None:
        await self._update(channel, ref, render.question_message(view))

    async def post_reveal(self, channel: ChannelRef, ref: str | None, view: RevealView) -> None:
        message = render.reveal_message(view)
        if ref is not None:
            try:
                await self._update(channel, ref, message)
                return
            except _Gone:
                log.info(
                    "question message %s in channel %s is gone; posting the reveal anew",
                    ref, channel.channel,
                )  # fmt: skip
        await self._post(channel, message)

    async def reveal_stray(self, channel: ChannelRef, ref: str, view: RevealView) -> None:
        """Edit the copy (message `ts` = ref) into the reveal; if it is gone, so much the better."""
        try:
            await self._update(channel, ref, render.reveal_message(view))
        except _Gone:
            log.info("copy %s in channel %s is gone already", ref, channel.channel)

    async def post_notice(self, channel: ChannelRef, view: NoticeView) -> None:
        await self._post(channel, render.notice_message(view))

    async def send_direct(
        self, user: UserRef, view: ReminderView, *, dedupe_key: str, tried_since: datetime | None
    ) -> str | None:
        """The person's direct message with the app (conversations.open, needing im:write),
        then the message, carrying the key as a question does; a try after one that may have
        reached Slack looks for it there first (needing im:history)."""
        where = ChannelRef(PLATFORM, user.team, user.user)
        try:
            opened = await self._with_token(where, self.client.conversations_open, users=user.user)
        except DeliveryError:
            raise
        except Exception as exc:
            raise await self._delivery_error("conversations.open", where, exc) from exc
        direct = ChannelRef(PLATFORM, user.team, str((opened.get("channel") or {}).get("id")))
        if tried_since is not None:
            found = await self._find(direct, dedupe_key, tried_since)
            if found is not None:
                log.info("reminder %s was already sent as %s: not sent again", dedupe_key, found)
                return found
        message = render.reminder_message(view)
        return await self._post(direct, message, metadata=_metadata(dedupe_key))

    async def _with_token(
        self, where: ChannelRef, call: Callable[..., Awaitable[Any]], /, **args: Any
    ) -> Any:
        """`call` with the channel's token; once more with a newer one if Slack rejects it; a
        rate limit waited out (web.waiting_out_rate_limits) for this workspace alone."""
        token = await self._token(where)
        return await waiting_out_rate_limits(
            where.team, with_token, where.team, token, call, self._rejected, **args
        )

    async def _post(
        self,
        channel: ChannelRef,
        message: render.SlackMessage,
        *,
        metadata: dict[str, Any] | None = None,
    ) -> str | None:
        try:
            response = await self._with_token(
                channel,
                self.client.chat_postMessage,
                channel=channel.channel,
                text=message.text,
                blocks=message.blocks,
                unfurl_links=False,
                unfurl_media=False,
                **({"metadata": metadata} if metadata is not None else {}),
            )
        except DeliveryError:  # the workspace's token could not be had (see _token)
            raise
        except Exception as exc:
            raise await self._delivery_error("chat.postMessage", channel, exc) from exc
        ts: Any = response.get("ts")
        return str(ts) if ts else None

    async def _update(self, channel: ChannelRef, ts: str, message: render.SlackMessage) -> None:
        try:
            await self._with_token(
                channel,
                self.client.chat_update,
                channel=channel.channel,
                ts=ts,
                text=message.text,
                blocks=message.blocks,
            )
        except DeliveryError:
            raise
        except SlackApiError as exc:
            if error_code(exc) in _GONE:
                raise _Gone(error_code(exc)) from exc
            raise await self._delivery_error("chat.update", channel, exc) from exc
        except Exception as exc:
            raise await self._delivery_error("chat.update", channel, exc) from exc

    async def _delivery_error(
        self, method: str, channel: ChannelRef, exc: Exception
    ) -> DeliveryError:
        """Slack's errors onto the port contract. What is left after slack_sdk's own retries
        (connection errors, rate limits) is either passing (the network, a server error, a rate
        limit) and tried again later, or a refusal (channel, permission, auth) that is reported."""
        code = error_code(exc)
        log.warning("%s to channel %s failed: %s", method, channel.channel, code)
        reason = reason_for(code, await self._lang(channel))
        if not isinstance(exc, SlackApiError) or is_transient(code):
            return Unavailable(reason)  # no answer from Slack at all, or a passing one
        return Refused(reason)


def _metadata(key: str) -> dict[str, Any]:
    return {"event_type": METADATA_TYPE, "event_payload": {"key": key}}


def is_transient(code: str) -> bool:
    return code in _TRANSIENT or (code.startswith("http_") and code[5:6] == "5")


_TRANSIENT = frozenset(
    {"unreachable", "ratelimited", "internal_error", "fatal_error", "service_unavailable",
     "request_timeout", "http_429"}
)  # fmt: skip


class _Gone(Refused):
    """The message to edit no longer exists."""
