"""Runs: `start N` posts N questions in a row, each with its own window, then the standings.

Every step is keyed in the database (one round per run and index), so a restart, a second instance
or a late close can neither skip nor repeat a question of the run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from bot import presenter
from bot.bank import Bank
from bot.clock import Clock
from bot.delivery import Delivery
from bot.i18n import t
from bot.limits import CHANNEL_RUNS, Limiter, Refusal
from bot.model import ChannelRef, Lang
from bot.rounds import Rounds
from bot.storage import RoundRecord, RunRecord, Store
from bot.topics import NO_FILTER, Filter, matching
from bot.views import LeaderRow, NoticeView, QuestionView

MAX_RUN = 20


@dataclass(eq=False)
class Runs:
    """`rounds` opens and posts each question; `delivery` posts the standings."""

    store: Store
    bank: Bank
    clock: Clock
    rounds: Rounds
    delivery: Delivery
    limiter: Limiter | None = field(default=None, kw_only=True)  # counts refused runs

    async def start(
        self,
        channel: ChannelRef,
        count: int,
        window: timedelta | None = None,
        flt: Filter = NO_FILTER,
        started_by: str | None = None,
    ) -> NoticeView | QuestionView | None:
        """Start N questions in a row; a notice if the count is invalid or a run is going.

        The run keeps who started it (they may stop it) and its filter, in the database."""
        limit = min(MAX_RUN, len(matching(self.bank, flt)))
        span = window or await self.rounds.channel_window(channel)
        store = self.store
        lang = await store.teams.channel_lang(channel)
        if not 1 <= count <= limit:
            return NoticeView(lang, t(lang, "run_count_invalid", max=limit), ok=False)
        cid = await store.teams.channel_id(channel)
        run_id = await store.rounds.start_run(
            cid,
            count,
            span,
            self.clock.now(),
            started_by=started_by,
            topic=flt.topic,
            level=flt.level,
        )
        if run_id is None:
            return NoticeView(lang, t(lang, "run_busy"), ok=False)
        return await self.rounds.start_round(
            channel, window=span, kind="run", run=(run_id, 0), flt=flt
        )

    async def open(
        self,
        channel: ChannelRef,
        count: int,
        flt: Filter = NO_FILTER,
        started_by: str | None = None,
    ) -> RoundRecord | NoticeView:
        """`/zeroquiz start N`: the run and its first round, committed together and not yet
        posted (`Rounds.deliver_opened` posts it), unless the count is invalid, a run is going
        or a limit on open questions says no: all decided in that one transaction."""
        limit = min(MAX_RUN, len(matching(self.bank, flt)))
        span = await self.rounds.channel_window(channel)
        store = self.store
        lang = await store.teams.channel_lang(channel)
        if not 1 <= count <= limit:
            return NoticeView(lang, t(lang, "run_count_invalid", max=limit), ok=False)
        async with store.transaction():
            cid = await store.teams.channel_id(channel)
            refusal = await self.rounds.limit_open(cid)  # on PostgreSQL: the team's row held
            if refusal is None and await store.rounds.unfinished_run(cid) is not None:
                refusal = Refusal(CHANNEL_RUNS, "run_busy", {})
                if self.limiter is not None:
                    self.limiter.refused(refusal)
            if refusal is not None:
                return refusal.notice(lang)
            run_id = await store.rounds.start_run(
                cid, count, span, self.clock.now(),
                started_by=started_by, topic=flt.topic, level=flt.level,
            )  # fmt: skip
            assert run_id is not None  # no unfinished run, in this same transaction
            row = await self.rounds.open_round(
                channel, window=span, kind="run", run=(run_id, 0), flt=flt
            )
        assert row is not None
        return row

    async def abandon(self, channel: ChannelRef) -> None:
        """Abandon the channel's unfinished run and close its open rounds without moving on."""
        store = self.store
        await store.rounds.abandon_runs(await store.teams.channel_id(channel), self.clock.now())

    async def continue_after(self, round_id: int) -> None:
        row = await self.rounds.round_row(round_id)
        if row is None or row.run_id is None or row.run_index is None or row.run_total is None:
            return
        run = await self.store.rounds.run(row.run_id)
        if run is None or run.finished:
            return
        if row.run_index + 1 < row.run_total:
            following = await self.rounds.open_round(
                row.channel_ref,
                window=run.window,
                kind="run",
                run=(row.run_id, row.run_index + 1),
                flt=Filter(run.topic, run.level),
            )
            if following is not None:  # None: opened elsewhere already
                # A failed post is decided and logged by Delivery: refused ends the run (its
                # round closes unseen), passing posts it later.
                await self.rounds.post_opened(following)
            return
        await self._finish(row.run_id, row.channel_ref, row.lang)

    async def _finish(self, run_id: int, channel: ChannelRef, lang: Lang) -> None:
        store = self.store
        async with store.transaction():
            if not await store.rounds.finish_run(run_id, self.clock.now()):
                return
            standings = await store.scores.run_standings(run_id, 10)
        await self._post_standings(run_id, channel, lang, standings)

    async def current(self, channel: ChannelRef) -> RunRecord | None:
        """The channel's run in progress, with who started it; None if there is none."""
        store = self.store
        cid = await store.teams.find_channel(channel)
        return await store.rounds.unfinished_run(cid) if cid is not None else None

    async def stop(self, run: RunRecord) -> list[int] | None:
        """Mark the run finished in the database first (so neither this process after a
        restart nor another replica posts a further question), then return its open rounds
        for the caller to close and reveal as usual; None if it had finished meanwhile."""
        store = self.store
        if not await store.rounds.finish_run(run.id, self.clock.now()):
            return None
        return [row.id for row in await store.rounds.open_in_run(run.id)]

    async def post_standings(self, run_id: int, channel: ChannelRef, lang: Lang) -> None:
        """The run's standings so far, posted to the channel as a run's end posts them."""
        standings = await self.store.scores.run_standings(run_id, 10)
        await self._post_standings(run_id, channel, lang, standings)

    async def _post_standings(
        self, run_id: int, channel: ChannelRef, lang: Lang, standings: list[LeaderRow]
    ) -> None:
        view = presenter.leaderboard_view(lang, "all", standings, None, asked=False)
        notice = NoticeView(
            lang,
            t(lang, "run_standings_title"),
            title=t(lang, "run_standings_title"),
            lines=view.lines or (t(lang, "run_standings_empty"),),
        )
        await self.delivery.post_notice(channel, notice, about=run_id)  # a failure is logged
