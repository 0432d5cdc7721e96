"""Quiz: the core as its surfaces see it: the services bot/app.py built, and the few actions that
coordinate several of them.

Surfaces call a service directly (`quiz.rounds.answer`, `quiz.daily.command`): each is a public
field here, built and wired by `bot/app.py`, and none of them knows Quiz. What is left as a method
is what no one service can do alone: closing a round (close, reveal, move its run on), stopping a
run, the scheduler's due work, the Home page, a review or drill click, and the few reads and writes
of the store the surfaces need where no service owns them (a command's transaction and receipt, a
channel's language, players' names): the store is no field a surface may use
(tests/core/test_layers.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING

from bot import presenter, review
from bot.bank import Bank
from bot.clock import Clock
from bot.controls.service import Controls
from bot.delivery import Delivery
from bot.drills import Drills
from bot.fanout import Fanout, Send
from bot.i18n import t
from bot.insights import Insights
from bot.library import Library
from bot.limits import Limiter
from bot.model import ChannelRef, Lang, TeamRef, UserRef
from bot.ports import ChatPort
from bot.reminders import Reminders
from bot.reports import Reports
from bot.results import Results
from bot.reveals import Reveals
from bot.reviewing import Reviews
from bot.rounds import Rounds
from bot.runs import Runs
from bot.storage import CloseReason, RoundRecord, Store
from bot.teampacks import TeamPacks
from bot.typed_answers import TypedAnswers
from bot.views import (
    HomeView,
    InsightsView,
    LeaderboardView,
    NoticeView,
    Period,
    RevealView,
    ReviewResult,
    ReviewView,
    StatsView,
)

if TYPE_CHECKING:
    from bot.daily.service import DailySchedules

# How long a command's receipt is kept: longer than any platform repeats a request (Slack's
# signature holds 5 minutes, a Discord interaction 15).
RECEIPT_KEEP = timedelta(hours=1)


@dataclass(frozen=True, kw_only=True)
class Quiz:
    """Built by bot/app.py only. `daily` only where chat platforms are served (not the terminal)."""

    store: Store  # for the methods below only: no surface reads it through the quiz
    bank: Bank  # the bundled bank (the terminal; topics where no channel is known)
    clock: Clock
    delivery: Delivery
    library: Library  # every question: the bundled bank and the teams' packs, per channel
    rounds: Rounds  # one round: open, post, answer
    runs: Runs  # `start N`
    reveals: Reveals  # a closed round's answer, and a stray copy turned into it
    reviews: Reviews  # the personal review
    drills: Drills  # the person's missed questions
    typed: TypedAnswers  # a generated question's number, typed
    controls: Controls  # window, season, forget, audit (bot/controls/)
    packs: TeamPacks  # the team's own question packs
    insights: Insights  # what the answers show admins
    results: Results  # a teacher's records, as files
    reports: Reports  # questions players flagged
    reminders: Reminders  # a person's review reminder
    limiter: Limiter  # the command rates
    fanout: Fanout  # the process's scheduled sends: deadline closes and reveals go out by it
    daily: DailySchedules | None = None

    def add_port(self, port: ChatPort) -> None:
        """A surface connected: its platform is served by this process from now on."""
        self.delivery.add_port(port)
        self.rounds.notify_changed()  # rounds of this platform are now due work here

    # -- commands: taken once, within the limits, their effect committed before the platform is
    # told OK (bot/commands.py `accept`) --------------------------------------------------------
    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        """One transaction for a command's receipt and its effect."""
        async with self.store.transaction():
            yield

    async def take_receipt(self, platform: str, receipt: str) -> bool:
        """False if this request (Slack's trigger_id, Discord's interaction id) was seen."""
        return await self.store.receipts.take(platform, receipt, self.clock.now(), RECEIPT_KEEP)

    def command_allowed(self, user: UserRef, lang: Lang) -> NoticeView | None:
        """Take one command of this person's (and team's) rate, or the reply saying wait."""
        refusal = self.limiter.command(user.platform, user.team, user.user)
        return refusal.notice(lang) if refusal is not None else None

    async def channel_lang(self, channel: ChannelRef) -> Lang:
        return await self.store.teams.channel_lang(channel)

    async def set_channel_lang(self, channel: ChannelRef, lang: Lang) -> NoticeView:
        await self.store.teams.set_channel_lang(channel, lang)
        self.rounds.forget_facts()  # feedback of open rounds follows the new language
        return NoticeView(lang, t(lang, "lang_set"))

    async def rename_players(self, users: list[UserRef]) -> None:
        """Display names learnt after the answers (Slack's users.info), for leaderboards."""
        await self.store.teams.rename_players(
            [(TeamRef(u.platform, u.team), u.user, u.display_name) for u in users]
        )

    # -- closing: close → reveal → continue the run ---------------------------------------------
    async def close_round(self, round_id: int, reason: CloseReason) -> RevealView | None:
        """Close a round once: reveal it and move its run on. None if it was already closed, or
        if its question never reached the platform: an unseen question is never revealed."""
        if not await self.rounds.close(round_id, reason):
            return None
        view = await self.reveals.deliver(round_id)
        await self.runs.continue_after(round_id)
        return view

    async def close_latest(self, channel: ChannelRef) -> NoticeView:
        """Admin close: the most recently opened open round of the channel."""
        lang = await self.store.teams.channel_lang(channel)
        latest = await self.store.rounds.latest_open(channel)
        if latest is None or await self.close_round(latest.id, "admin") is None:
            return NoticeView(lang, t(lang, "no_open_round"), ok=False)
        return NoticeView(lang, t(lang, "round_closed_now"))

    async def stop_run(
        self, channel: ChannelRef, user: UserRef, is_admin: Callable[[], Awaitable[bool]]
    ) -> NoticeView:
        """`stop`: end the channel's run now, for whoever started it or an admin (asked of the
        platform only for someone else). The run is marked finished before its open question
        closes, so no further question follows, even after a restart or on another replica;
        the open question is revealed as usual and the standings so far are posted."""
        lang = await self.store.teams.channel_lang(channel)
        run = await self.runs.current(channel)
        if run is None:
            return NoticeView(lang, t(lang, "stop_no_run"), ok=False)
        if run.started_by != user.user and not await is_admin():
            return NoticeView(lang, t(lang, "stop_not_allowed"), ok=False)
        open_rounds = await self.runs.stop(run)
        if open_rounds is None:  # it ended meanwhile (its last close, or another stop)
            return NoticeView(lang, t(lang, "stop_no_run"), ok=False)
        for round_id in open_rounds:
            await self.close_round(round_id, "admin")
        await self.runs.post_standings(run.id, channel, lang)
        return NoticeView(lang, t(lang, "run_stopped"))

    # -- the personal review and reminders (bot/reviewing.py, bot/drills.py, bot/reminders.py) --
    async def review_click(
        self, user: UserRef, token: str, typed: str | None = None
    ) -> ReviewView | ReviewResult | NoticeView | None:
        """A review or drill button's answer (or the card's `typed` number), next card or end."""
        drilled = await self.drills.click(user, token, typed)
        return drilled if drilled is not None else await self.reviews.click(user, token, typed)

    async def remind_command(self, user: UserRef, words: tuple[str, ...], lang: Lang) -> NoticeView:
        """`remind …`: the person's review reminder (bot/reminders.py); a sleeping scheduler
        re-plans for a new one."""
        reply = await self.reminders.command(user, words, lang)
        self.rounds.notify_changed()
        return reply

    # -- due work (driven by the scheduler) -----------------------------------------------------
    async def next_due(self) -> datetime | None:
        """The earliest moment at which process_due has something to do.

        Only rounds of platforms this process serves count: a round of a surface that is not
        configured here waits, open, for a process that can reveal it.
        """
        deadline = await self.store.rounds.next_deadline(self.delivery.platforms())
        retry = self.delivery.next_retry()  # posts and reveals alike
        candidates = [when for when in (deadline, retry) if when is not None]
        return min(candidates) if candidates else None

    async def process_due(self) -> None:
        """Close overdue rounds, post questions a passing failure or a crash left unposted,
        retry failed reveals, and resume runs a crash left stalled."""
        served = self.delivery.platforms()
        overdue, unrevealed, stalled = await self.store.rounds.due_work(self.clock.now(), served)
        # Closes and reveals side by side, each workspace in turn (bot/fanout.py): a thousand
        # daily questions opened at 09:00 close together.
        sends: list[Send] = [
            (_workspace(row), ("close", row.id), partial(self.close_round, row.id, "deadline"))
            for row in overdue
        ]
        sends += [
            (_workspace(row), ("reveal", row.id), partial(self.reveals.deliver, row.id))
            for row in unrevealed
            if self.reveals.may_retry(row.id)
        ]
        await self.fanout.run(sends)
        done = {o.id for o in overdue}
        await self.rounds.post_pending(skip=done)
        for row in stalled:
            if row.id not in done:
                await self.runs.continue_after(row.id)

    # -- teams, scores, insights ----------------------------------------------------------------
    async def forget_team(self, team: TeamRef) -> tuple[int, int]:
        """The app was removed from a team (Slack's app_uninstalled): its stored display names
        are cleared and its daily schedules stopped. Answers stay, so reveal counts and totals
        still add up, shown by platform user ID. Returns (names cleared, schedules stopped)."""
        names = await self.store.teams.forget_names(team)
        stopped = await self.store.daily.deactivate_team(team.platform, team.team, self.clock.now())
        await self.reminders.stop_team(team)
        self.rounds.notify_changed()  # a sleeping scheduler re-plans without those schedules
        return names, stopped

    async def leaderboard(
        self,
        team: TeamRef,
        period: Period,
        *,
        lang: Lang,
        user: UserRef | None = None,
        limit: int = 10,
    ) -> LeaderboardView:
        now = self.clock.now()
        top, mine = await self.store.scores.leaderboard(
            team, period, now, limit=limit, user=user.user if user else None
        )
        view = presenter.leaderboard_view(lang, period, top, mine, asked=user is not None)
        season = await self.store.scores.season(team)  # as the board just read it: no query
        if season is None:
            return view
        return presenter.in_season(view, await self.controls.day(team, season))

    async def stats(self, user: UserRef, *, lang: Lang) -> StatsView:
        history = await self.store.scores.answer_history(user)
        now = self.clock.now()
        due_now, due_week = await self.store.cards.due_counts(user, now, now + review.WEEK)
        return presenter.stats_view(lang, user.name, history, (due_now, due_week))

    async def home(self, user: UserRef, *, is_admin: bool) -> HomeView:
        """A person's Home page, in the language of the channel they last answered in (English
        for someone new); the team's daily schedules only for an admin."""
        lang = await self.store.teams.last_played_lang(user) or "en"
        team = TeamRef(user.platform, user.team)
        stats = await self.stats(user, lang=lang)
        week = await self.leaderboard(team, "week", lang=lang, user=user)
        schedules = None
        if is_admin:
            schedules = await self.daily.team_lines(team, lang) if self.daily else ()
        page = presenter.home_view(stats, week, schedules, self.reviews.review_now(lang))
        if not is_admin:
            return page
        return page._replace(insights=await self.team_insights(team, "week", lang))

    async def team_insights(
        self, team: TeamRef, period: Period, lang: Lang, topic: str | None = None
    ) -> InsightsView:
        """What the team's answers show admins (bot/insights.py), and what players reported."""
        view = await self.insights.view(team, period, lang, topic)
        reported = await self.reports.by_question(team, lang)
        return view._replace(reported_title=t(lang, "insights_reported"), reported=reported)

    async def report(
        self, user: UserRef, question_id: str, reason: str, note: str, lang: Lang
    ) -> NoticeView:
        """A person's report of a question they answered (bot/reports.py), within the person's
        (and team's) command rate, as any command."""
        refused = self.command_allowed(user, lang)
        if refused is not None:
            return refused
        return await self.reports.report(user, question_id, reason, note, lang)


def _workspace(row: RoundRecord) -> str:
    return f"{row.platform}:{row.team}"
