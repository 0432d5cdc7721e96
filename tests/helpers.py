"""Test doubles for the platform side only (never for our own core)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from bot.model import ChannelRef, Lang, Question
from bot.storage.rounds import RoundRow
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


def round_row(
    question: Question,
    lang: Lang,
    *,
    platform: str,
    opened_at: int,
    round_id: int = 1,
    seed: int = 5,
    kind: str = "single",
    message_ref: str | None = None,
) -> RoundRow:
    """An open round as the database would return it, for render tests that need no database.

    kind "run" makes it question 20 of a 20-question run, the longest title a run can have.
    """
    run = kind == "run"
    return RoundRow(
        id=round_id,
        channel_id=1,
        platform=platform,
        team="T1",
        channel="C1",
        lang=lang,
        question_id=question.id,
        seed=seed,
        kind=kind,
        run_id=1 if run else None,
        run_index=19 if run else None,
        run_total=20 if run else None,
        opened_at=opened_at,
        deadline_at=opened_at + 600_000,
        closed_at=None,
        revealed_at=None,
        message_ref=message_ref,
    )
