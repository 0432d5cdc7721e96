"""Test doubles for the platform side only (never for our own core), and a read-only peek."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import aiohttp
from prometheus_client.parser import text_string_to_metric_families

from bot.bank import Bank
from bot.bank.templates import Template
from bot.model import ChannelRef, Lang, Question, UserRef
from bot.periods import from_ms
from bot.storage import RoundKind, RoundRecord
from bot.views import NoticeView, QuestionView, ReminderView, RevealView


def player(n: int | str) -> UserRef:
    """Person `n` of the test team, with a display name."""
    return UserRef("test", "T1", f"U{n}", f"Player {n}")


def right_choice(view: QuestionView, bank: Bank) -> int:
    """Which button is right in this round (options are shuffled per round)."""
    question = bank.get(view.question_id)
    assert question is not None
    return [o.text for o in view.options].index(question.options[question.answer].en)


@dataclass
class RecordingPort:
    """A ChatPort that records every outbound call, as a platform would receive them."""

    platform: str = "test"
    live_update_max_age: timedelta | None = None
    posted: list[tuple[ChannelRef, QuestionView]] = field(default_factory=list)
    updates: list[tuple[str, QuestionView]] = field(default_factory=list)
    reveals: list[tuple[str | None, RevealView]] = field(default_factory=list)
    notices: list[tuple[ChannelRef, NoticeView]] = field(default_factory=list)
    directs: list[tuple[UserRef, ReminderView, str]] = field(default_factory=list)
    direct_tried: list[datetime | None] = field(default_factory=list)  # per direct message
    fail_reveals: int = 0
    fail_posts: list[Exception] = field(default_factory=list)  # raised by the next posts
    # By method name ("update_question"...): raised by its next calls, before doing anything.
    failures: dict[str, list[Exception]] = field(default_factory=dict)
    dedupe_keys: list[str | None] = field(default_factory=list)
    tried_since: list[datetime | None] = field(default_factory=list)  # per post, in order

    def _fail(self, method: str) -> None:
        if self.failures.get(method):
            raise self.failures[method].pop(0)

    async def post_question(
        self,
        channel: ChannelRef,
        view: QuestionView,
        *,
        dedupe_key: str | None = None,
        tried_since: datetime | None = None,
    ) -> str | None:
        self.dedupe_keys.append(dedupe_key)
        self.tried_since.append(tried_since)
        self._fail("post_question")
        if self.fail_posts:
            raise self.fail_posts.pop(0)
        self.posted.append((channel, view))
        return f"msg-{view.round_id}"

    async def update_question(self, channel: ChannelRef, ref: str, view: QuestionView) -> None:
        self._fail("update_question")
        self.updates.append((ref, view))

    async def post_reveal(self, channel: ChannelRef, ref: str | None, view: RevealView) -> None:
        self._fail("post_reveal")
        if self.fail_reveals:
            self.fail_reveals -= 1
            raise RuntimeError("platform unavailable")
        self.reveals.append((ref, view))

    async def reveal_stray(self, channel: ChannelRef, ref: str, view: RevealView) -> None:
        self._fail("reveal_stray")
        self.reveals.append((ref, view))

    async def post_notice(self, channel: ChannelRef, view: NoticeView) -> None:
        self._fail("post_notice")
        self.notices.append((channel, view))

    async def send_direct(
        self, user: UserRef, view: ReminderView, *, dedupe_key: str, tried_since: datetime | None
    ) -> str | None:
        self._fail("send_direct")
        self.directs.append((user, view, dedupe_key))
        self.direct_tried.append(tried_since)
        return dedupe_key


class HangingPort(RecordingPort):
    """Accepts the post and never answers: the process dies before recording it."""

    async def post_question(
        self,
        channel: ChannelRef,
        view: QuestionView,
        *,
        dedupe_key: str | None = None,
        tried_since: datetime | None = None,
    ) -> str | None:
        self.dedupe_keys.append(dedupe_key)
        self.tried_since.append(tried_since)
        await asyncio.Event().wait()
        return None


def round_row(
    question: Question,
    lang: Lang,
    *,
    platform: str,
    opened_at: int,
    round_id: int = 1,
    seed: int = 5,
    kind: RoundKind = "single",
    message_ref: str | None = None,
) -> RoundRecord:
    """An open round as the database would return it, for render tests that need no database.

    kind "run" makes it question 20 of a 20-question run, the longest title a run can have.
    """
    run = kind == "run"
    return RoundRecord(
        id=round_id,
        channel_id=1,
        team_id=1,
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
        opened_at=from_ms(opened_at),
        deadline_at=from_ms(opened_at + 600_000),
        closed_at=None,
        revealed_at=None,
        message_ref=message_ref,
        posted_at=from_ms(opened_at),
    )


def peek(db_path: str | Path, sql: str, *params: object) -> list[tuple[object, ...]]:
    """What the database file holds, read on a separate read-only connection.

    Only for tests that check the storage layer itself from outside (its own tests, the upgrade
    test, the recomputation the leaderboards are compared with): every other test reads state
    through the Store, as the code does.
    """
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        return list(conn.execute(sql, params))
    finally:
        conn.close()


def poke(db_path: str | Path, *statements: str) -> None:
    """Change the file behind the bot's back (simulating a crash at a chosen moment)."""
    conn = sqlite3.connect(db_path, timeout=5)
    try:
        with conn:
            for statement in statements:
                conn.execute(statement)
    finally:
        conn.close()


def entry_shown(bank: Bank, text: str) -> Question | Template:
    """The hand-written question whose prompt (in either language) `text` shows, or the template
    whose prompt it shows with drawn numbers in place of the {placeholders} (a generated question
    has no fixed text)."""
    found: list[Question | Template] = [
        q for q in bank.questions if q.prompt.en in text or q.prompt.id in text
    ]
    for t in bank.templates:
        for prompt in (t.prompt.en, t.prompt.id):  # either language; numbers as either writes them
            parts = re.split(r"\{\w+\}", prompt)
            if re.search(r"[\d,.]+".join(map(re.escape, parts)), text):
                found.append(t)
                break
    assert len(found) == 1, found
    return found[0]


Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


async def scrape(url: str) -> Samples:
    """GET a /metrics page: every sample by (name, sorted labels), read by Prometheus' parser."""
    async with aiohttp.ClientSession() as http, http.get(url) as response:
        assert response.status == 200
        text = await response.text()
    found: Samples = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            found[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return found
