"""Runs: `start N` posts N questions in a row, each with its own window, then the standings.

Every step is keyed in the database (one round per run and index), so a restart, a second instance
or a late close can neither skip nor repeat a question of the run.
"""

from __future__ import annotations

import contextlib
import logging
from datetime import timedelta
from typing import TYPE_CHECKING

from bot import presenter
from bot.i18n import t
from bot.model import ChannelRef, Lang
from bot.ports import DeliveryError
from bot.storage import rounds as q
from bot.storage import scores
from bot.views import NoticeView, QuestionView

if TYPE_CHECKING:
    from bot.quiz import Quiz

log = logging.getLogger(__name__)

MAX_RUN = 20


class Runs:
    def __init__(self, quiz: Quiz) -> None:
        self.quiz = quiz

    async def start(
        self, channel: ChannelRef, count: int, window: timedelta | None = None
    ) -> NoticeView | QuestionView | None:
        """Start N questions in a row; a notice if the count is invalid or a run is going."""
        limit = min(MAX_RUN, len(self.quiz.bank))
        now = self.quiz.now_ms()
        span = window or self.quiz.default_window
        async with self.quiz.db.write() as tx:
            lang = await q.channel_lang(tx, channel)
            if not 1 <= count <= limit:
                return NoticeView(lang, t(lang, "run_count_invalid", max=limit), ok=False)
            cid = await q.channel_id(tx, channel)
            busy = await tx.fetchone(
                "SELECT 1 FROM runs WHERE channel_id = ? AND finished_at IS NULL", (cid,)
            )
            if busy is not None:
                return NoticeView(lang, t(lang, "run_busy"), ok=False)
            _, run_id = await tx.execute(
                "INSERT INTO runs (channel_id, total, window_ms, started_at) VALUES (?, ?, ?, ?)",
                (cid, count, int(span.total_seconds() * 1000), now),
            )
        assert run_id is not None
        return await self.quiz.start_round(channel, window=span, kind="run", run=(run_id, 0))

    async def abandon(self, channel: ChannelRef) -> None:
        """Abandon the channel's unfinished run and close its open rounds without moving on."""
        now = self.quiz.now_ms()
        async with self.quiz.db.write() as tx:
            cid = await q.channel_id(tx, channel)
            await tx.execute(
                "UPDATE runs SET finished_at = ? WHERE channel_id = ? AND finished_at IS NULL",
                (now, cid),
            )
            await tx.execute(
                """UPDATE rounds SET closed_at = ?, close_reason = 'abandoned', revealed_at = ?
                   WHERE channel_id = ? AND closed_at IS NULL AND run_id IS NOT NULL""",
                (now, now, cid),
            )

    async def continue_after(self, round_id: int) -> None:
        row = await self.quiz.round_row(round_id)
        if row is None or row.run_id is None or row.run_index is None or row.run_total is None:
            return
        async with self.quiz.db.read() as tx:
            run = await tx.fetchone(
                "SELECT window_ms, finished_at FROM runs WHERE id = ?", (row.run_id,)
            )
        if run is None or run["finished_at"] is not None:
            return
        if row.run_index + 1 < row.run_total:
            # A DeliveryError is logged by start_round, which also ends the run.
            with contextlib.suppress(DeliveryError):
                await self.quiz.start_round(
                    row.channel_ref,
                    window=timedelta(milliseconds=int(run["window_ms"])),
                    kind="run",
                    run=(row.run_id, row.run_index + 1),
                )
            return
        await self._finish(row.run_id, row.channel_ref, row.lang)

    async def _finish(self, run_id: int, channel: ChannelRef, lang: Lang) -> None:
        async with self.quiz.db.write() as tx:
            count, _ = await tx.execute(
                "UPDATE runs SET finished_at = ? WHERE id = ? AND finished_at IS NULL",
                (self.quiz.now_ms(), run_id),
            )
            standings = await scores.run_standings(tx, run_id) if count else []
        if not count:
            return
        view = presenter.leaderboard_view(lang, "all", standings, None, 10)
        notice = NoticeView(
            lang,
            t(lang, "run_standings_title"),
            title=t(lang, "run_standings_title"),
            lines=view.lines or (t(lang, "run_standings_empty"),),
        )
        port = self.quiz.ports.get(channel.platform)
        if port is not None:
            try:
                await port.post_notice(channel, notice)
            except Exception as exc:
                log.warning("run standings for %s not posted: %s", channel, exc)
