"""Test doubles for the platform side only (never for our own core)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from bot.model import ChannelRef
from bot.views import NoticeView, QuestionView, RevealView


@dataclass
class RecordingPort:
    """A ChatPort that records every outbound call, as a platform would receive them."""

    platform: str = "test"
    live_update_max_age: timedelta | None = None
    posted: list[tuple[ChannelRef, QuestionView]] = field(default_factory=list)
    updates: list[tuple[str, QuestionView]] = field(default_factory=list)
    reveals: list[tuple[str | None, RevealView]] = field(default_factory=list)
    notices: list[tuple[ChannelRef, NoticeView]] = field(default_factory=list)
    fail_reveals: int = 0
    dedupe_keys: list[str | None] = field(default_factory=list)

    async def post_question(
        self, channel: ChannelRef, view: QuestionView, *, dedupe_key: str | None = None
    ) -> str | None:
        self.dedupe_keys.append(dedupe_key)
        self.posted.append((channel, view))
        return f"msg-{view.round_id}"

    async def update_question(self, channel: ChannelRef, ref: str, view: QuestionView) -> None:
        self.updates.append((ref, view))

    async def post_reveal(self, channel: ChannelRef, ref: str | None, view: RevealView) -> None:
        if self.fail_reveals:
            self.fail_reveals -= 1
            raise RuntimeError("platform unavailable")
        self.reveals.append((ref, view))

    async def post_notice(self, channel: ChannelRef, view: NoticeView) -> None:
        self.notices.append((channel, view))
