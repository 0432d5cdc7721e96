"""The core's ChatPort on Discord: post, refresh and reveal question messages in channels, and
send review reminders as direct messages.

A message reference is "channel_id:message_id", so the scheduler can reveal a question posted
by an earlier process. Every send uses AllowedMentions.none() (also the client default).

discord.py gives a request no timeout of its own (aiohttp's default is 300 s), so each of the
port's calls has one (ZEROQUIZ_DISCORD_TIMEOUT): a call Discord does not answer in time is
logged, counted (`on_timeout`) and reported as passing, to be tried again later (a post with
the same nonce, which Discord answers with the message if the first try did reach it).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import TypeVar

import discord

from adapters.discord.buttons import answer_buttons, reminder_buttons
from adapters.discord.render import notice_embed, question_embed, reminder_embed, reveal_embed
from bot.clock import Clock
from bot.model import ChannelRef, UserRef
from bot.ports import DeliveryError, PortNotReady, Refused, Unavailable
from bot.views import NoticeView, QuestionView, ReminderView, RevealView

log = logging.getLogger(__name__)

PLATFORM = "discord"
EDIT_MAX_AGE = timedelta(hours=1)
OLD_MESSAGE_EDITS_CAPPED = 30046  # Discord's error code for too many edits of old messages
NO_MENTIONS = discord.AllowedMentions.none()
MAX_NONCE = 25
TIMEOUT_SECONDS = 15.0
T = TypeVar("T")


def parse_ref(ref: str) -> tuple[int, int]:
    """Refused for a reference that names no Discord message: asking again won't change it."""
    try:
        channel_id, message_id = ref.split(":", 1)
        return int(channel_id), int(message_id)
    except ValueError:
        raise Refused(f"not a Discord message reference: {ref!r}") from None


def nonce_for(key: str) -> str:
    """Discord nonces are at most 25 characters; longer keys are hashed to fit."""
    if len(key) <= MAX_NONCE:
        return key
    return hashlib.sha256(key.encode()).hexdigest()[:MAX_NONCE]


def _reason(exc: discord.HTTPException) -> str:
    return f"{exc.status} {exc.text or type(exc).__name__}".strip()


def delivery_error(exc: Exception) -> DeliveryError:
    """discord.py's errors onto the port contract: Discord said no (403, 404, 400) is a refusal;
    a server error, a rate limit left after discord.py's own waiting, or no connection at all is
    a passing unavailability."""
    if isinstance(exc, DeliveryError):
        return exc
    if isinstance(exc, discord.HTTPException):
        if exc.status >= 500 or exc.status == 429:
            return Unavailable(_reason(exc))
        return Refused(_reason(exc))
    return Unavailable(type(exc).__name__)  # network: aiohttp errors, timeouts, resets


class DiscordPort:
    platform = PLATFORM
    live_update_max_age: timedelta | None = EDIT_MAX_AGE

    def __init__(
        self,
        client: discord.Client,
        clock: Clock,
        *,
        seconds: float = TIMEOUT_SECONDS,
        on_timeout: Callable[[str], None] | None = None,
    ) -> None:
        self.client = client
        self.clock = clock
        self.seconds = seconds
        self.on_timeout = on_timeout

    async def _timed(self, call: str, server: str, work: Awaitable[T]) -> T:
        """`work` within the timeout; past it, one line and a count, and TimeoutError."""
        try:
            async with asyncio.timeout(self.seconds):
                return await work
        except TimeoutError:
            log.warning(
                "Discord %s in server %s: no answer within %g s", call, server, self.seconds
            )
            if self.on_timeout is not None:
                self.on_timeout(call)
            raise

    def _channel(
        self, channel: ChannelRef, channel_id: int | None = None
    ) -> discord.PartialMessageable:
        """A handle that needs no cache: works for channels the client hasn't seen since start."""
        target = channel_id if channel_id is not None else int(channel.channel)
        return self.client.get_partial_messageable(target, guild_id=int(channel.team))

    def _require_ready(self) -> None:
        # Posting and editing go over REST, which works as soon as the client has logged in; the
        # gateway's READY can come seconds later, and interactions may arrive in between.
        if self.client.user is None or self.client.is_closed():
            raise PortNotReady("the Discord client is not logged in")

    async def post_question(
        self,
        channel: ChannelRef,
        view: QuestionView,
        *,
        dedupe_key: str | None = None,
        tried_since: datetime | None = None,
    ) -> str | None:
        """Post with the dedupe key as nonce (enforced): Discord returns the message a lost
        answer or a crash left unrecorded, instead of posting the question twice."""
        self._require_ready()
        # Without a key discord.py picks a random nonce; with one, Discord drops a repeat.
        nonce = nonce_for(dedupe_key) if dedupe_key else secrets.randbits(63)
        try:
            message = await self._timed(
                "send_message",
                channel.team,
                self._channel(channel).send(
                    embed=question_embed(view),
                    view=answer_buttons(view),
                    allowed_mentions=NO_MENTIONS,
                    nonce=nonce,
                ),
            )
        except Exception as exc:
            raise delivery_error(exc) from exc
        return f"{message.channel.id}:{message.id}"

    async def update_question(self, channel: ChannelRef, ref: str, view: QuestionView) -> None:
        self._require_ready()
        channel_id, message_id = parse_ref(ref)
        message = self._channel(channel, channel_id).get_partial_message(message_id)
        try:
            await self._timed(
                "edit_message",
                channel.team,
                message.edit(embed=question_embed(view), allowed_mentions=NO_MENTIONS),
            )
        except Exception as exc:
            raise delivery_error(exc) from exc

    async def post_reveal(self, channel: ChannelRef, ref: str | None, view: RevealView) -> None:
        """Edit the question once into its reveal; post anew if the old message can't be edited."""
        self._require_ready()
        embed = reveal_embed(view)
        if ref is not None:
            channel_id, message_id = parse_ref(ref)
            target = self._channel(channel, channel_id)
            try:
                await self._timed(
                    "edit_message",
                    channel.team,
                    target.get_partial_message(message_id).edit(
                        embed=embed, view=None, allowed_mentions=NO_MENTIONS
                    ),
                )
                return
            except Exception as exc:  # a cut connection too: discord.py lets it through
                if not self._repost_instead(exc, message_id):
                    raise delivery_error(exc) from exc
                log.info("question message %s not editable (%s); posting the reveal", ref, exc)
        try:
            await self._timed(
                "send_message",
                channel.team,
                self._channel(channel).send(embed=embed, allowed_mentions=NO_MENTIONS),
            )
        except Exception as exc:
            raise delivery_error(exc) from exc

    async def reveal_stray(self, channel: ChannelRef, ref: str, view: RevealView) -> None:
        """Edit the copy ("channel:message") into the reveal, its buttons gone; never post."""
        self._require_ready()
        channel_id, message_id = parse_ref(ref)
        try:
            stray = self._channel(channel, channel_id).get_partial_message(message_id)
            await self._timed(
                "edit_message",
                channel.team,
                stray.edit(embed=reveal_embed(view), view=None, allowed_mentions=NO_MENTIONS),
            )
        except discord.NotFound:
            log.info("copy %s is gone already", ref)
        except Exception as exc:
            raise delivery_error(exc) from exc

    def _repost_instead(self, exc: Exception, message_id: int) -> bool:
        if not isinstance(exc, discord.HTTPException):
            return False  # no answer from Discord: the edit may come through when tried again
        if isinstance(exc, discord.NotFound) or exc.code == OLD_MESSAGE_EDITS_CAPPED:
            return True
        age = self.clock.now() - discord.utils.snowflake_time(message_id)
        return age > EDIT_MAX_AGE

    async def send_direct(
        self, user: UserRef, view: ReminderView, *, dedupe_key: str, tried_since: datetime | None
    ) -> str | None:
        """The person's direct-message channel with the bot (no privileged intent needed), then
        the reminder, with the key as nonce (enforced) as a question's post has: a second try
        gets the first message back instead of a second one."""
        self._require_ready()
        try:
            channel = await self._timed(
                "create_dm", user.team, self.client.create_dm(discord.Object(id=int(user.user)))
            )
            message = await self._timed(
                "send_message",
                user.team,
                channel.send(
                    embed=reminder_embed(view),
                    view=reminder_buttons(view),
                    allowed_mentions=NO_MENTIONS,
                    nonce=nonce_for(dedupe_key),
                ),
            )
        except Exception as exc:
            raise delivery_error(exc) from exc
        return f"{message.channel.id}:{message.id}"

    async def post_notice(self, channel: ChannelRef, view: NoticeView) -> None:
        self._require_ready()
        try:
            await self._timed(
                "send_message",
                channel.team,
                self._channel(channel).send(embed=notice_embed(view), allowed_mentions=NO_MENTIONS),
            )
        except Exception as exc:
            raise delivery_error(exc) from exc
