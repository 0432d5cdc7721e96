"""The outbound port: how the core reaches a platform for things nobody clicked.

Each adapter implements ChatPort once; the core looks the port up by the round's platform, so
several adapters share one process and one database.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Protocol

from bot.model import ChannelRef, UserRef
from bot.views import NoticeView, QuestionView, ReminderView, RevealView


class DeliveryError(Exception):
    """A post or edit did not reach the platform; `reason` is safe to log and to show an admin.

    Every port raises one of the two kinds below, never its library's own errors:

        DeliveryError
        ├── Refused       permanent: channel, permission, auth. Tell the person or the admin,
        │                 close the round as undelivered, mark the daily post failed.
        └── Unavailable   transient: not connected yet, network, server error, rate limit after
                          the library's own retries. Change nothing and try again later; never
                          counted as a refusal.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Refused(DeliveryError):
    """The platform said no, and asking again will not change that."""


class Unavailable(DeliveryError):
    """The platform could not be reached or asked us to wait: worth trying again later."""


class PortNotReady(Unavailable):
    """The platform connection is not up yet (start-up, reconnect)."""


class ChatPort(Protocol):
    platform: str
    # Messages older than this are no longer edited for live counts (Discord caps old edits).
    live_update_max_age: timedelta | None

    async def post_question(
        self,
        channel: ChannelRef,
        view: QuestionView,
        *,
        dedupe_key: str | None = None,
        tried_since: datetime | None = None,
    ) -> str | None:
        """Post a question; return an opaque message reference for later edits.

        `dedupe_key` is the same for every try of one round's post (a retry, or a re-post after a
        crash before the reference was saved): a platform that can drop a repeated send
        (Discord's nonce with enforce_nonce) should pass it on. `tried_since` is set when an
        earlier try may have reached the platform (it began no earlier than that instant): a
        platform with no such key but a way to find the earlier message by the key (Slack: the
        message's metadata, read back from the channel) looks for it first and returns it.
        """
        ...

    async def update_question(self, channel: ChannelRef, ref: str, view: QuestionView) -> None:
        """Refresh a posted question (its answer count)."""
        ...

    async def post_reveal(self, channel: ChannelRef, ref: str | None, view: RevealView) -> None:
        """Replace the question with its reveal (or post it anew when there is no reference)."""
        ...

    async def reveal_stray(self, channel: ChannelRef, ref: str, view: RevealView) -> None:
        """Turn a second copy of a revealed question into the reveal too; never post anew.

        A crash between a post and saving its reference leaves a copy the platform couldn't
        give back (Slack has no idempotency key); someone clicking it is how the bot learns of it.
        """
        ...

    async def post_notice(self, channel: ChannelRef, view: NoticeView) -> None: ...

    async def send_direct(
        self, user: UserRef, view: ReminderView, *, dedupe_key: str, tried_since: datetime | None
    ) -> str | None:
        """A direct message to one person (a review reminder); the keys as for `post_question`:
        every try of one day's reminder carries the same `dedupe_key`, and `tried_since` says an
        earlier try may have reached the platform."""
        ...
