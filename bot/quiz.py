"""Quiz: the user actions, and the close → reveal → continue-the-run orchestration.

The thin top layer of the core. Each action is a call into the services below (rounds, runs,
reveals, delivery, storage), none of which knows Quiz; `bot/app.py` wires them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from bot import presenter, review
from bot.bank import Bank
from bot.clock import Clock
from bot.controls.service import Controls
from bot.delivery import Delivery
from bot.drills import Drills
from bot.i18n import t
from bot.insights import Insights
from bot.library import Library
from bot.limits import Limiter, Limits
from bot.model import ChannelRef, Lang, TeamRef, UserRef
from bot.ports import ChatPort
from bot.reminders import Reminders
from bot.reports import Reports
from bot.results import ResultPeriod, Results, insights_notice
from bot.reveals import Reveals
from bot.reviewing import Reviews
from bot.rounds import Rounds
from bot.runs import Runs
from bot.storage import CloseReason, RoundRecord, Store
from bot.teampacks import Added, TeamPacks
from bot.topics import NO_FILTER, Filter
from bot.typed_answers import TypedAnswers
from bot.views import (
    Feedback,
    HomeView,
    InsightsView,
    LeaderboardView,
    NoticeView,
    Period,
    QuestionView,
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


class Quiz:
    def __init__(
        self,
        store: Store,
        bank: Bank,
        clock: Clock,
        delivery: Delivery,
        rounds: Rounds,
        runs: Runs,
        reveals: Reveals,
        reviews: Reviews,
        controls: Controls,
        packs: TeamPacks,
        *,
        library: Library,
        daily: DailySchedules | None = None,
        insights: Insights | None = None,
        results: Results | None = None,
        drills: Drills | None = None,
        reports: Reports | None = None,
        reminders: Reminders | None = None,
        limiter: Limiter | None = None,
    ) -> None:
        """Built by bot/app.py; `daily` only where chat platforms are served (not the terminal);
        `limiter` holds the command rates (none when not given)."""
        self.store = store
        self.library = library
        self.bank = bank  # the bundled bank (the terminal; topics where no channel is known)
        self.packs = packs  # the team's own question packs
        self.clock = clock
        self.delivery = delivery
        self.rounds = rounds
        self.runs = runs
        self.reveals = reveals
        self.reviews = reviews  # the personal review
        self.drills = drills or Drills(store, library, clock)  # the person's missed questions
        self.reports = reports or Reports(store, library, clock)  # questions players flagged
        self.typed = TypedAnswers(rounds, library)  # a generated question's number, typed
        self.controls = controls  # window, season, forget, audit (bot/controls/)
        self.daily = daily
        self._insights = insights or Insights(store, bank, clock)  # what the answers show
        self.results = results or Results(store, library, clock)  # a teacher's records
        self.limiter = limiter or Limiter(Limits.none(), clock)
        # Review reminders (bot/reminders.py): the commands call the service itself.
        self.reminders = reminders or Reminders(store, clock, delivery, reviews, self.limiter)

    # -- wiring ---------------------------------------------------------------------------------
    def add_port(self, port: ChatPort) -> None:
        """A surface connected: its platform is served by this process from now on."""
        self.delivery.add_port(port)
        self.rounds.notify_changed()  # rounds of this platform are now due work here

    def on_change(self, callback: Callable[[], None]) -> None:
        """Called when a round opens, so a sleeping scheduler can re-plan."""
        self.rounds.on_change(callback)

    def now(self) -> datetime:
        return self.clock.now()

    # -- question packs (bot/teampacks.py) ----------------------------------------------------
    async def channel_bank(self, channel: ChannelRef) -> Bank:
        """What the channel draws from now (its topics and filters follow it)."""
        return await self.library.for_channel_ref(channel)

    async def pack_command(
        self, channel: ChannelRef, words: tuple[str, ...], lang: Lang
    ) -> NoticeView:
        return await self.packs.command(TeamRef(channel.platform, channel.team), words, lang)

    async def add_pack(
        self,
        team: TeamRef,
        text: str,
        *,
        label: str,
        name: str | None,
        by: str,
        lang: Lang,
        default_name: str | None = None,
    ) -> Added:
        return await self.packs.add_any(
            team, text, label=label, name=name, by=by, lang=lang, default_name=default_name
        )

    async def add_pack_question(
        self,
        team: TeamRef,
        pack: str,
        prompt: str,
        options: str,
        explanation: str,
        *,
        by: str,
        lang: Lang,
    ) -> Added:
        return await self.packs.add_question(
            team, pack, prompt, options, explanation, by=by, lang=lang
        )

    async def questions_source(
        self, channel: ChannelRef, words: tuple[str, ...], lang: Lang
    ) -> NoticeView:
        return await self.packs.source(channel, words, lang)

    # -- rounds ---------------------------------------------------------------------------------
    async def start_round(
        self, channel: ChannelRef, *, window: timedelta | None = None, flt: Filter = NO_FILTER
    ) -> QuestionView | None:
        """Open a round and post it; Refused or Unavailable as `Rounds.post_round` says."""
        return await self.rounds.start_round(channel, window=window, flt=flt)

    # -- commands: taken once, within the limits, their effect committed before the platform is
    # told OK (bot/commands.py `accept`) --------------------------------------------------------
    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        """One transaction for a command's receipt and its effect."""
        async with self.store.transaction():
            yield

    async def take_receipt(self, platform: str, receipt: str) -> bool:
        """False if this request (Slack's trigger_id, Discord's interaction id) was seen."""
        return await self.store.receipts.take(platform, receipt, self.now(), RECEIPT_KEEP)

    def command_allowed(self, user: UserRef, lang: Lang) -> NoticeView | None:
        """Take one command of this person's (and team's) rate, or the reply saying wait."""
        refusal = self.limiter.command(user.platform, user.team, user.user)
        return refusal.notice(lang) if refusal is not None else None

    async def open_question(self, channel: ChannelRef, flt: Filter) -> RoundRecord | NoticeView:
        """`question`: its round opened (committed, not posted), or why not."""
        return await self.rounds.open_question(channel, flt=flt)

    async def open_run(
        self, channel: ChannelRef, count: int, flt: Filter, started_by: str | None
    ) -> RoundRecord | NoticeView:
        """`start N`: the run and its first round opened (committed, not posted), or why not."""
        return await self.runs.open(channel, count, flt, started_by)

    async def post_opened(self, row: RoundRecord) -> QuestionView:
        """Post a round a command opened; Refused or Unavailable for the person to be told. A
        crash before it leaves the round open and unposted: the next start posts it."""
        return await self.rounds.deliver_opened(row)

    async def answer(self, round_id: int, user: UserRef, choice: int) -> Feedback:
        return await self.rounds.answer(round_id, user, choice)

    async def question_view(self, round_id: int) -> QuestionView | None:
        return await self.rounds.question_view(round_id)

    async def round_row(self, round_id: int) -> RoundRecord | None:
        return await self.rounds.round_row(round_id)

    async def close_round(self, round_id: int, reason: CloseReason) -> RevealView | None:
        """Close a round once: reveal it and move its run on. None if it was already closed, or
        if its question never reached the platform: an unseen question is never revealed."""
        if not await self.rounds.close(round_id, reason):
            return None
        view = await self.reveals.deliver(round_id)
        await self.runs.continue_after(round_id)
        return view

    async def reveal_stray(self, round_id: int, ref: str) -> bool:
        """A late click on message `ref`: if it is a stray copy of a revealed question (a crash
        left it), it shows the reveal from now on. Adapters call it after a "closed" verdict."""
        return await self.reveals.stray(round_id, ref)

    async def close_latest(self, channel: ChannelRef) -> NoticeView:
        """Admin close: the most recently opened open round of the channel."""
        lang = await self.store.teams.channel_lang(channel)
        latest = await self.store.rounds.latest_open(channel)
        if latest is None or await self.close_round(latest.id, "admin") is None:
            return NoticeView(lang, t(lang, "no_open_round"), ok=False)
        return NoticeView(lang, t(lang, "round_closed_now"))

    # -- runs (bot/runs.py) ------------------------------------------------------------------
    async def start_run(
        self,
        channel: ChannelRef,
        count: int,
        window: timedelta | None = None,
        flt: Filter = NO_FILTER,
        started_by: str | None = None,
    ) -> NoticeView | QuestionView | None:
        """Start N questions in a row; a notice if the count is invalid or a run is going.
        `started_by` (a platform user id) may stop it later without being an admin."""
        return await self.runs.start(channel, count, window, flt, started_by)

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

    # -- the personal review and daily schedules (bot/reviewing.py, bot/daily/) ------------------
    async def start_review(self, user: UserRef, flt: Filter, lang: Lang) -> ReviewView | NoticeView:
        """`review`: the person's first due card, or when the next one is due."""
        return await self.reviews.start(user, flt, lang)

    async def review_click(
        self, user: UserRef, token: str, typed: str | None = None
    ) -> ReviewView | ReviewResult | NoticeView | None:
        """A review or drill button's answer (or the card's `typed` number), next card or end."""
        drilled = await self.drills.click(user, token, typed)
        return drilled if drilled is not None else await self.reviews.click(user, token, typed)

    async def start_drill(self, user: UserRef, flt: Filter, lang: Lang) -> ReviewView | NoticeView:
        """The person's missed questions, privately, one at a time (bot/drills.py)."""
        return await self.drills.start(user, flt, lang)

    async def remind_command(self, user: UserRef, words: tuple[str, ...], lang: Lang) -> NoticeView:
        """`remind …`: the person's review reminder (bot/reminders.py); a sleeping scheduler
        re-plans for a new one."""
        reply = await self.reminders.command(user, words, lang)
        self.rounds.notify_changed()
        return reply

    async def daily_command(
        self, channel: ChannelRef, words: tuple[str, ...], lang: Lang
    ) -> NoticeView:
        """`daily …`, where this process serves chat platforms (the terminal has none)."""
        if self.daily is None:
            return NoticeView(lang, t(lang, "daily_unavailable"), ok=False)
        return await self.daily.command(channel, words, lang)

    async def end_runs(self, channel: ChannelRef) -> None:
        """Abandon the channel's unfinished run and close its open rounds without moving on."""
        await self.runs.abandon(channel)

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
        overdue, unrevealed, stalled = await self.store.rounds.due_work(self.now(), served)
        for row in overdue:
            await self.close_round(row.id, "deadline")
        done = {o.id for o in overdue}
        await self.rounds.post_pending(skip=done)
        for row in unrevealed:
            if self.reveals.may_retry(row.id):
                await self.reveals.deliver(row.id)
        for row in stalled:
            if row.id not in done:
                await self.runs.continue_after(row.id)

    # -- team controls (bot/controls/) -----------------------------------------------------------
    async def window_command(
        self, channel: ChannelRef, words: tuple[str, ...], lang: Lang
    ) -> NoticeView:
        """`window [30m|default]`: the channel's answer window, shown or set."""
        return await self.controls.window(channel, words, lang)

    async def season_command(
        self, channel: ChannelRef, words: tuple[str, ...], lang: Lang
    ) -> NoticeView:
        """`season [new]`: when the team's leaderboards count from, shown or started now."""
        return await self.controls.season(channel, words, lang)

    async def forget_command(
        self,
        channel: ChannelRef,
        user: UserRef,
        words: tuple[str, ...],
        lang: Lang,
        is_admin: Callable[[], Awaitable[bool]],
    ) -> NoticeView:
        """`forget me|@person [confirm]`: the platform is asked about admin rights only when
        someone names another person."""
        return await self.controls.forget(channel, user, words, lang, is_admin)

    async def audit_log(
        self, channel: ChannelRef, words: tuple[str, ...], lang: Lang
    ) -> NoticeView:
        """`audit [page]`: the team's admin actions, newest first."""
        return await self.controls.audit(channel, words, lang)

    async def record_admin_action(
        self, channel: ChannelRef, user: UserRef, action: str, detail: str
    ) -> None:
        """Keep an admin action that succeeded in the team's audit log."""
        await self.controls.record(channel, user, action, detail)

    # -- settings, scores -----------------------------------------------------------------------
    async def channel_lang(self, channel: ChannelRef) -> Lang:
        return await self.store.teams.channel_lang(channel)

    async def set_channel_lang(self, channel: ChannelRef, lang: Lang) -> NoticeView:
        await self.store.teams.set_channel_lang(channel, lang)
        self.rounds.forget_facts()  # feedback of open rounds follows the new language
        return NoticeView(lang, t(lang, "lang_set"))

    async def set_team_tz(self, team: TeamRef, tz_name: str) -> None:
        """Leaderboard weeks and months follow the new zone from now on (totals recounted)."""
        await self.store.teams.set_team_tz(team, tz_name, self.now())

    async def rename_players(self, users: list[UserRef]) -> None:
        """Display names learnt after the answers (Slack's users.info), for leaderboards."""
        await self.store.teams.rename_players(
            [(TeamRef(u.platform, u.team), u.user, u.display_name) for u in users]
        )

    async def forget_team(self, team: TeamRef) -> tuple[int, int]:
        """The app was removed from a team (Slack's app_uninstalled): its stored display names
        are cleared and its daily schedules stopped. Answers stay, so reveal counts and totals
        still add up, shown by platform user ID. Returns (names cleared, schedules stopped)."""
        names = await self.store.teams.forget_names(team)
        stopped = await self.store.daily.deactivate_team(team.platform, team.team, self.now())
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
        now = self.now()
        top, mine = await self.store.scores.leaderboard(
            team, period, now, limit=limit, user=user.user if user else None
        )
        view = presenter.leaderboard_view(lang, period, top, mine, asked=user is not None)
        season = await self.store.scores.season(team)  # as the board just read it: no query
        if season is None:
            return view
        return presenter.in_season(view, await self.controls.day(team, season))

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
        return replace(page, insights=await self.insights(team, "week", lang))

    async def insights(
        self, team: TeamRef, period: Period, lang: Lang, topic: str | None = None
    ) -> InsightsView:
        """What the team's answers show admins (bot/insights.py), and what players reported."""
        view = await self._insights.view(team, period, lang, topic)
        reported = await self.reports.by_question(team, lang)
        return replace(view, reported_title=t(lang, "insights_reported"), reported=reported)

    async def report(
        self, user: UserRef, question_id: str, reason: str, note: str, lang: Lang
    ) -> NoticeView:
        """A person's report of a question they answered (bot/reports.py), within the person's
        (and team's) command rate, as any command."""
        refused = self.command_allowed(user, lang)
        if refused is not None:
            return refused
        return await self.reports.report(user, question_id, reason, note, lang)

    async def reports_command(
        self, channel: ChannelRef, words: tuple[str, ...], lang: Lang
    ) -> NoticeView:
        return await self.reports.command(TeamRef(channel.platform, channel.team), words, lang)

    async def insights_file(
        self, team: TeamRef, period: Period, topic: str | None, form: str, lang: Lang
    ) -> NoticeView:
        """The numbers behind the insights as a CSV or JSON file (bot/results.py)."""
        tables = await self._insights.tables(team, period, topic)
        return insights_notice(tables, period, form, lang)

    async def results_file(
        self, team: TeamRef, period: ResultPeriod, form: str, lang: Lang
    ) -> NoticeView:
        """Every answer of the team in the period, one row each, as a file (bot/results.py)."""
        return await self.results.notice(team, period, form, lang)

    async def stats(self, user: UserRef, *, lang: Lang) -> StatsView:
        history = await self.store.scores.answer_history(user)
        now = self.now()
        due_now, due_week = await self.store.cards.due_counts(user, now, now + review.WEEK)
        return presenter.stats_view(lang, user.name, history, (due_now, due_week))
