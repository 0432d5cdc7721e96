"""The quiz core: user actions in, plain views out; closing, reveals and runs through the ports.

Every state change is one short database transaction; answers are guarded by the schema (one per
round and player, and only while the round is open), so retries and concurrent clicks can't count
twice. Platform calls happen outside transactions.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from bot import presenter
from bot.bank import Bank
from bot.clock import Clock
from bot.i18n import t
from bot.model import ChannelRef, Lang, TeamRef, UserRef
from bot.periods import from_ms, period_start, to_ms
from bot.ports import ChatPort, DeliveryError
from bot.reveals import Reveals
from bot.runs import Runs
from bot.selection import choose_question
from bot.storage import Database, scores
from bot.storage import rounds as q
from bot.storage.db import Tx
from bot.views import (
    Feedback,
    LeaderboardView,
    NoticeView,
    Period,
    QuestionView,
    RevealView,
    StatsView,
)

if TYPE_CHECKING:
    from bot.daily.service import DailySchedules

log = logging.getLogger(__name__)

POINTS_PER_CORRECT = 10
ROUND_CACHE_SIZE = 1024
DEFAULT_WINDOW = timedelta(minutes=10)


class Quiz:
    def __init__(
        self,
        db: Database,
        bank: Bank,
        clock: Clock,
        rng: random.Random,
        *,
        default_window: timedelta = DEFAULT_WINDOW,
    ) -> None:
        self.db = db
        self.bank = bank
        self.clock = clock
        self.rng = rng
        self.default_window = default_window
        self.ports: dict[str, ChatPort] = {}
        self._changed: list[Callable[[], None]] = []
        self._answered: list[Callable[[int], None]] = []
        self._message_locks: dict[int, asyncio.Lock] = {}
        self._player_ids: dict[UserRef, int] = {}
        self._round_cache: dict[int, q.RoundRow] = {}
        self._round_loads: dict[int, asyncio.Future[q.RoundRow | None]] = {}
        self.runs = Runs(self)
        self.reveals = Reveals(self)
        self.daily: DailySchedules | None = None  # set by DailySchedules when a runtime has one

    # -- wiring ---------------------------------------------------------------------------------
    def add_port(self, port: ChatPort) -> None:
        self.ports[port.platform] = port
        self.notify_changed()  # rounds of this platform are now due work here

    def on_change(self, callback: Callable[[], None]) -> None:
        """Called when a round opens, so a sleeping scheduler can re-plan."""
        self._changed.append(callback)

    def on_answer(self, callback: Callable[[int], None]) -> None:
        """Called with the round id after an answer was recorded (for live counts)."""
        self._answered.append(callback)

    def message_lock(self, round_id: int) -> asyncio.Lock:
        """Serialises edits of one posted message, so a late live count never hides a reveal."""
        return self._message_locks.setdefault(round_id, asyncio.Lock())

    def forget_message(self, round_id: int) -> None:
        """The round is revealed: its message is never edited again, and its facts not needed."""
        self._message_locks.pop(round_id, None)
        self._round_cache.pop(round_id, None)

    def now_ms(self) -> int:
        return to_ms(self.clock.now())

    # -- rounds ---------------------------------------------------------------------------------
    async def start_round(
        self,
        channel: ChannelRef,
        *,
        window: timedelta | None = None,
        kind: str = "single",
        run: tuple[int, int] | None = None,
    ) -> QuestionView | None:
        """Open a round and post it through the channel's port.

        Returns None when a run's round at that index already exists (opened elsewhere).
        Raises DeliveryError if the platform refused the post; the round is then closed.
        """
        async with self.db.write() as tx:
            row = await self.open_round(tx, channel, window=window, kind=kind, run=run)
        if row is None:
            return None
        self.notify_changed()
        return await self.post_round(row)

    async def open_round(
        self,
        tx: Tx,
        channel: ChannelRef,
        *,
        window: timedelta | None = None,
        kind: str = "single",
        run: tuple[int, int] | None = None,
    ) -> q.RoundRow | None:
        """Insert a round inside the caller's transaction (a daily claim shares it)."""
        now = self.now_ms()
        span = window or self.default_window
        cid = await q.channel_id(tx, channel)
        uses = await q.question_use_counts(tx, cid)
        question = choose_question(self.bank, uses, self.rng)
        round_id = await q.insert_round(
            tx,
            channel_id=cid,
            question_id=question.id,
            seed=self.rng.getrandbits(31),
            kind=kind,
            opened_at=now,
            deadline_at=now + int(span.total_seconds() * 1000),
            run_id=run[0] if run else None,
            run_index=run[1] if run else None,
        )
        return await q.get_round(tx, round_id) if round_id is not None else None

    async def post_round(self, row: q.RoundRow, dedupe_key: str | None = None) -> QuestionView:
        """Post an opened round; if refused, close it so nobody answers an unseen question."""
        question = self.bank.get(row.question_id)
        assert question is not None
        view = presenter.question_view(row, question, 0)
        port = self.ports.get(row.platform)
        if port is None:
            return view
        try:
            ref = await port.post_question(row.channel_ref, view, dedupe_key=dedupe_key)
        except DeliveryError as exc:
            log.warning("could not post round %s to %s: %s", row.id, row.channel_ref, exc.reason)
            now = self.now_ms()
            async with self.db.write() as tx:
                await q.mark_closed(tx, row.id, now, "undelivered")
                await tx.execute("UPDATE rounds SET revealed_at = ? WHERE id = ?", (now, row.id))
                if row.run_id is not None:
                    await tx.execute(
                        "UPDATE runs SET finished_at = ? WHERE id = ?", (now, row.run_id)
                    )
            raise
        if ref is not None:
            async with self.db.write() as tx:
                await tx.execute("UPDATE rounds SET message_ref = ? WHERE id = ?", (ref, row.id))
        return view

    async def answer(self, round_id: int, user: UserRef, choice: int) -> Feedback:
        """Record a person's first answer (choice = displayed position, 0 for A).

        The hot path: a round's fixed facts and a known player's id come from memory, so a
        click costs one INSERT; the INSERT itself decides (open round, first answer).
        """
        now = self.now_ms()
        row = await self._round_facts(round_id)
        question = self.bank.get(row.question_id) if row else None
        if row is None or question is None or not 0 <= choice < len(question.options):
            lang: Lang = row.lang if row else "en"
            return Feedback("unknown", lang, t(lang, "feedback_unknown"))
        order = presenter.display_order(row, question)
        option = order[choice]
        correct = option == question.answer
        points = POINTS_PER_CORRECT if correct else 0
        player = self._player_ids.get(user)
        if player is not None:
            params = q.answer_params(
                round_id=round_id, player=player, option=option, correct=correct,
                points=points, at=now,
            )  # fmt: skip
            recorded = await self.db.execute_one(q.INSERT_ANSWER, params) == 1
        else:
            async with self.db.write() as tx:
                player = await q.player_id(tx, user)
                recorded = await q.insert_answer(
                    tx, round_id=round_id, player=player, option=option, correct=correct,
                    points=points, at=now,
                )  # fmt: skip
            self._player_ids[user] = player  # committed: ids never change
        if recorded:
            for callback in self._answered:
                callback(round_id)
            return presenter.feedback_view(
                row.lang, question, order, option, "correct" if correct else "wrong", points
            )
        async with self.db.read() as tx:
            earlier = await q.existing_answer(tx, round_id, player)
        if earlier is not None:
            return presenter.feedback_view(row.lang, question, order, earlier, "already", 0)
        return Feedback("closed", row.lang, t(row.lang, "feedback_closed"))

    async def _round_facts(self, round_id: int) -> q.RoundRow | None:
        """A round's fixed facts (question, seed, channel language), cached after first use.

        Only fields that never change after opening are read from it; whether the round is
        still open is always decided by the database.
        """
        cached = self._round_cache.get(round_id)
        if cached is not None:
            return cached
        loading = self._round_loads.get(round_id)
        if loading is None:  # one read however many clicks arrive at once
            loading = asyncio.ensure_future(self.round_row(round_id))
            self._round_loads[round_id] = loading
            loading.add_done_callback(lambda _: self._round_loads.pop(round_id, None))
        row = await asyncio.shield(loading)
        if row is not None:
            if len(self._round_cache) >= ROUND_CACHE_SIZE:
                self._round_cache.pop(next(iter(self._round_cache)))
            self._round_cache[round_id] = row
        return row

    async def question_view(self, round_id: int) -> QuestionView | None:
        """The current public view of a round (for live answer counts)."""
        async with self.db.read() as tx:
            row = await q.get_round(tx, round_id)
            if row is None:
                return None
            count = await q.total_answers(tx, round_id)
        question = self.bank.get(row.question_id)
        return presenter.question_view(row, question, count) if question else None

    async def round_row(self, round_id: int) -> q.RoundRow | None:
        async with self.db.read() as tx:
            return await q.get_round(tx, round_id)

    async def close_round(self, round_id: int, reason: str) -> RevealView | None:
        """Close a round once: reveal it and move its run on. None if it was already closed."""
        async with self.db.write() as tx:
            closed = await q.mark_closed(tx, round_id, self.now_ms(), reason)
        if not closed:
            return None
        view = await self.reveals.deliver(round_id)
        await self.runs.continue_after(round_id)
        return view

    async def close_latest(self, channel: ChannelRef) -> NoticeView:
        """Admin close: the most recently opened open round of the channel."""
        async with self.db.read() as tx:
            lang = await q.channel_lang(tx, channel)
            rows = await q.rounds_where(
                tx,
                "t.platform = ? AND t.team = ? AND c.channel = ? AND r.closed_at IS NULL "
                "ORDER BY r.opened_at DESC, r.id DESC LIMIT 1",
                (channel.platform, channel.team, channel.channel),
            )
        if not rows or await self.close_round(rows[0].id, "admin") is None:
            return NoticeView(lang, t(lang, "no_open_round"), ok=False)
        return NoticeView(lang, t(lang, "round_closed_now"))

    # -- runs (bot/runs.py) ------------------------------------------------------------------
    async def start_run(
        self, channel: ChannelRef, count: int, window: timedelta | None = None
    ) -> NoticeView | QuestionView | None:
        """Start N questions in a row; a notice if the count is invalid or a run is going."""
        return await self.runs.start(channel, count, window)

    async def end_runs(self, channel: ChannelRef) -> None:
        """Abandon the channel's unfinished run and close its open rounds without moving on."""
        await self.runs.abandon(channel)

    # -- due work (driven by the scheduler) -----------------------------------------------------
    async def next_due(self) -> datetime | None:
        """The earliest moment at which process_due has something to do.

        Only rounds of platforms this process serves count: a round of a surface that is not
        configured here waits, open, for a process that can reveal it.
        """
        platforms = tuple(self.ports)
        marks = ",".join("?" * len(platforms))
        async with self.db.read() as tx:
            row = await tx.fetchone(
                f"""SELECT MIN(r.deadline_at) AS d FROM rounds r
                    JOIN channels c ON c.id = r.channel_id JOIN teams t ON t.id = c.team_id
                    WHERE r.closed_at IS NULL AND t.platform IN ({marks})""",
                platforms,
            )
        candidates = [from_ms(int(row["d"]))] if row and row["d"] is not None else []
        retry = self.reveals.next_retry()
        candidates += [retry] if retry is not None else []
        return min(candidates) if candidates else None

    async def process_due(self) -> None:
        """Close overdue rounds, retry failed reveals, and resume runs a crash left stalled."""
        now = self.now_ms()
        async with self.db.read() as tx:
            overdue = await q.rounds_where(
                tx, "r.closed_at IS NULL AND r.deadline_at <= ? ORDER BY r.deadline_at", (now,)
            )
            unrevealed = await q.rounds_where(
                tx, "r.closed_at IS NOT NULL AND r.revealed_at IS NULL ORDER BY r.closed_at"
            )
            stalled = await q.rounds_where(
                tx,
                """r.run_id IS NOT NULL AND r.closed_at IS NOT NULL AND u.finished_at IS NULL
                   AND r.run_index = (SELECT MAX(run_index) FROM rounds WHERE run_id = r.run_id)""",
            )
        served = set(self.ports)
        overdue = [r for r in overdue if r.platform in served]
        unrevealed = [r for r in unrevealed if r.platform in served]
        stalled = [r for r in stalled if r.platform in served]
        for row in overdue:
            await self.close_round(row.id, "deadline")
        for row in unrevealed:
            if self.reveals.may_retry(row.id):
                await self.reveals.deliver(row.id)
        for row in stalled:
            if row.id not in {o.id for o in overdue}:
                await self.runs.continue_after(row.id)

    def notify_changed(self) -> None:
        for callback in self._changed:
            callback()

    # -- settings, scores -----------------------------------------------------------------------
    async def channel_lang(self, channel: ChannelRef) -> Lang:
        async with self.db.read() as tx:
            return await q.channel_lang(tx, channel)

    async def set_channel_lang(self, channel: ChannelRef, lang: Lang) -> NoticeView:
        async with self.db.write() as tx:
            cid = await q.channel_id(tx, channel)
            await tx.execute("UPDATE channels SET lang = ? WHERE id = ?", (lang, cid))
        self._round_cache.clear()  # feedback of open rounds follows the new language
        return NoticeView(lang, t(lang, "lang_set"))

    async def set_team_tz(self, team: TeamRef, tz_name: str) -> None:
        async with self.db.write() as tx:
            tid = await q.team_id(tx, team)
            await tx.execute("UPDATE teams SET tz = ? WHERE id = ?", (tz_name, tid))

    async def leaderboard(
        self,
        team: TeamRef,
        period: Period,
        *,
        lang: Lang,
        user: UserRef | None = None,
        limit: int = 10,
    ) -> LeaderboardView:
        async with self.db.read() as tx:
            tz_name = await q.team_tz(tx, team)
            start = period_start(period, self.clock.now(), tz_name)
            rows = await scores.leaderboard(tx, team, to_ms(start) if start else None)
        return presenter.leaderboard_view(lang, period, rows, user.user if user else None, limit)

    async def stats(self, user: UserRef, *, lang: Lang) -> StatsView:
        async with self.db.read() as tx:
            history = await scores.answer_history(tx, user)
        return presenter.stats_view(lang, user.name, history)
