"""The terminal's ChatPort: questions and notices the core posts are queued for the play loop."""

from __future__ import annotations

from collections import deque
from datetime import datetime, timedelta

from bot.model import ChannelRef, UserRef
from bot.views import NoticeView, QuestionView, ReminderView, RevealView

PLATFORM = "console"


class ConsolePort:
    platform = PLATFORM
    live_update_max_age: timedelta | None = None

    def __init__(self) -> None:
        self.questions: deque[QuestionView] = deque()
        self.reveals: list[RevealView] = []
        self.notices: list[NoticeView] = []
        self.reminders: deque[ReminderView] = deque()  # shown at the next prompt

    async def post_question(
        self,
        channel: ChannelRef,
        view: QuestionView,
        *,
        dedupe_key: str | None = None,
        tried_since: datetime | None = None,
    ) -> str | None:
        self.questions.append(view)
        return str(view.round_id)

    async def update_question(self, channel: ChannelRef, ref: str, view: QuestionView) -> None:
        return None

    async def post_reveal(self, channel: ChannelRef, ref: str | None, view: RevealView) -> None:
        self.reveals.append(view)

    async def reveal_stray(self, channel: ChannelRef, ref: str, view: RevealView) -> None:
        """The terminal has no second copy of a question: there is nothing to turn."""

    async def post_notice(self, channel: ChannelRef, view: NoticeView) -> None:
        self.notices.append(view)

    async def send_direct(
        self, user: UserRef, view: ReminderView, *, dedupe_key: str, tried_since: datetime | None
    ) -> str | None:
        """The terminal's direct message is a line at the next prompt."""
        self.reminders.append(view)
        return dedupe_key
