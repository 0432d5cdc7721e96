"""Daily schedules: admins set them per channel; the scheduler posts each day exactly once.

Exactly once: a posting is claimed in the database (unique per schedule and local date) in the same
transaction that opens its round, before anything is sent, and marked posted after. A claim that a
crashed process left unfinished is taken over (compare-and-swap on its token) once its holder has
gone silent (bot/liveness.py) or its lease runs out, and re-sent with its round's dedupe key,
which Discord uses as a nonce to drop a repeat.
"""

from __future__ import annotations

import logging
import random
import uuid
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from functools import partial
from zoneinfo import ZoneInfo

from bot import analysis
from bot.bank import Bank
from bot.clock import Clock
from bot.daily import adaptive
from bot.daily import spec as specs
from bot.daily.timing import due_at, local_date, occurrences
from bot.delivery import Delivery
from bot.fanout import Fanout, Send
from bot.i18n import t
from bot.limits import Limiter
from bot.liveness import claim_wakes, silent_since
from bot.model import ChannelRef, Lang, TeamRef
from bot.rounds import Rounds
from bot.storage import PostingStatus, ScheduleRecord, StaleClaim, Store
from bot.topics import Filter, topics
from bot.views import NoticeView, ScheduleLine

log = logging.getLogger(__name__)

GRACE = timedelta(hours=1)
LEASE = timedelta(minutes=2)


@dataclass(eq=False)
class DailySchedules:
    """`rounds` opens and posts each day's question; `delivery` says which platforms this
    process serves (only their schedules are its work)."""

    store: Store
    bank: Bank
    clock: Clock
    rounds: Rounds
    delivery: Delivery
    grace: timedelta = field(default=GRACE, kw_only=True)
    rng: random.Random = field(default_factory=random.Random, kw_only=True)  # adaptive topics
    limiter: Limiter | None = field(default=None, kw_only=True)  # caps schedules per team
    # Names this replica in its claims (stable across restarts, bot/app.py): a restarted
    # replica takes back its own unfinished posts at once, another one after LEASE.
    holder: str = field(default="", kw_only=True)
    fanout: Fanout | None = field(default=None, kw_only=True)  # the process's one (bot/app.py)

    def __post_init__(self) -> None:
        self._fanout = self.fanout or Fanout(self.clock)
        self._own = f"{self.holder}/" if self.holder else ""
        self._started = self.clock.now()

    # -- admin commands -------------------------------------------------------------------------
    async def command(self, channel: ChannelRef, words: tuple[str, ...], lang: Lang) -> NoticeView:
        """`daily` shows, `daily off` stops, `daily HH:MM Zone [days] [window]` sets."""
        if not words:
            return await self.show(channel, lang)
        if words[0].lower() in ("off", "stop", "mati"):
            return await self.off(channel, lang)
        known = topics(self.bank)
        try:
            spec = specs.parse_spec(words, frozenset(known))
        except specs.SpecError as exc:
            text = t(lang, exc.key, value=exc.value)
            if exc.key == "daily_bad_days" and known:  # perhaps a misspelt topic
                listed = ", ".join(f"`{name}`" for name in known)
                text += "\n" + t(lang, "daily_topics_hint", topics=listed)
            return NoticeView(lang, text, ok=False)
        if not (len(words) > 2 and specs.WINDOW_RE.match(words[-1].lower())):
            # No window typed: the channel's own (`/zeroquiz window`), within a daily's bounds.
            own = await self.store.windows.get(channel)
            if own is not None:
                bounded = min(max(own, specs.MIN_WINDOW), specs.MAX_WINDOW)
                spec = spec._replace(window=bounded)
        return await self.set(channel, spec, lang)

    async def set(self, channel: ChannelRef, spec: specs.DailySpec, lang: Lang) -> NoticeView:
        now = self.clock.now()
        async with self.store.transaction():
            cid = await self.store.teams.channel_id(channel)
            if self.limiter is not None:  # a new schedule, not a change, counts against the cap
                active, here = await self.store.daily.team_schedule_count(cid)
                refusal = None if here else self.limiter.add_schedule(active)
                if refusal is not None:
                    return refusal.notice(lang)
            await self.store.daily.upsert_schedule(
                channel_id=cid,
                at=spec.at,
                tz=spec.tz,
                days=specs.days_code(spec.days),
                window=spec.window,
                grace=self.grace,
                now=now,
                topics=spec.topics,
                adaptive=spec.adaptive,
            )
            # The team's leaderboards follow the time zone its admins schedule in.
            await self.store.teams.set_team_tz(
                TeamRef(channel.platform, channel.team), spec.tz, now
            )
        self.rounds.notify_changed()
        shown = await self.show(channel, lang)
        return NoticeView(lang, t(lang, "daily_set") + "\n" + shown.text)

    async def show(self, channel: ChannelRef, lang: Lang) -> NoticeView:
        cid = await self.store.teams.find_channel(channel)
        schedule = await self.store.daily.channel_schedule(cid) if cid is not None else None
        if schedule is None:
            return NoticeView(lang, t(lang, "daily_none"))
        next_at = await self._next_occurrence(schedule)
        days = specs.days_label(schedule.days, lang)
        text = t(
            lang,
            "daily_show",
            time=schedule.at.strftime("%H:%M"),
            tz=schedule.tz,
            days=days,
            hours=_hours(schedule.window),
        )
        if schedule.topics:
            text += "\n" + t(lang, "daily_topics", topics=", ".join(schedule.topics))
        if schedule.adaptive:
            text += "\n" + t(lang, "daily_adaptive")
        if next_at is not None:
            local = next_at.astimezone(ZoneInfo(schedule.tz))
            text += "\n" + t(
                lang, "daily_next", when=local.strftime("%Y-%m-%d %H:%M"), tz=schedule.tz
            )
        return NoticeView(lang, text)

    async def team_lines(self, team: TeamRef, lang: Lang) -> tuple[ScheduleLine, ...]:
        """Every channel of the team with a daily question, its next time (its own zone) and the
        topics it asks about, as `/zeroquiz daily` shows them."""
        lines: list[ScheduleLine] = []
        for schedule in await self.store.daily.team_schedules(team.platform, team.team):
            next_at = await self._next_occurrence(schedule)
            text = t(
                lang,
                "home_daily_line",
                time=schedule.at.strftime("%H:%M"),
                tz=schedule.tz,
                days=specs.days_label(schedule.days, lang),
            )
            if next_at is not None:
                local = next_at.astimezone(ZoneInfo(schedule.tz))
                when = local.strftime("%Y-%m-%d %H:%M")
                text += " · " + t(lang, "home_daily_next", when=when, tz=schedule.tz)
            if schedule.topics:  # last: a renderer that must shorten the line cuts only these
                text += " · " + t(lang, "daily_topics", topics=", ".join(schedule.topics))
            lines.append(ScheduleLine(schedule.channel, next_at, text, schedule.topics))
        return tuple(lines)

    async def off(self, channel: ChannelRef, lang: Lang) -> NoticeView:
        async with self.store.transaction():
            cid = await self.store.teams.channel_id(channel)
            stopped = await self.store.daily.deactivate(cid, self.clock.now())
        self.rounds.notify_changed()
        return NoticeView(lang, t(lang, "daily_off" if stopped else "daily_none"))

    # -- due work -------------------------------------------------------------------------------
    async def next_due(self) -> datetime | None:
        candidates: list[datetime] = []
        schedules = await self._served_schedules()
        oldest = await self.store.daily.oldest_claim()
        for schedule in schedules:
            when = await self._next_occurrence(schedule)
            if when is not None:
                candidates.append(when)
        if oldest is not None:
            served = {s.id for s in schedules}
            stale_here = any(c.schedule_id in served for c in await self._stale())
            beat = await self.store.daily.holders_last_beat(self.holder)
            candidates += claim_wakes(self.clock.now(), oldest + LEASE, stale_here, beat)
        return min(candidates) if candidates else None

    async def _stale(self) -> list[StaleClaim]:
        """Claims whose holder died: any after the lease or once its holder went silent
        (bot/liveness.py), this replica's own from before it restarted at once."""
        now = self.clock.now()
        return await self.store.daily.stale_claims(
            now - LEASE, self._own, self._started, silent_since(now)
        )

    async def _served_schedules(self) -> list[ScheduleRecord]:
        return [
            s for s in await self.store.daily.active_schedules() if self.delivery.serves(s.platform)
        ]

    async def _next_occurrence(self, schedule: ScheduleRecord) -> datetime | None:
        """The next due instant whose day has not been claimed or skipped yet."""
        now = self.clock.now()
        start = local_date(now, schedule.tz) - timedelta(days=1)
        for day, due in occurrences(schedule.days, schedule.at, schedule.tz, start, 4):
            if due < schedule.updated_at or await self.store.daily.posting(schedule.id, day):
                continue
            if due > now or now - due <= schedule.grace:
                return max(due, now)
        return None

    async def process_due(self) -> None:
        now = self.clock.now()
        schedules = await self._served_schedules()
        stale = await self._stale()
        sends: list[Send] = []
        for schedule in schedules:
            today = local_date(now, schedule.tz)
            for day in (today - timedelta(days=1), today):
                if day.weekday() in schedule.days:
                    job = partial(self._maybe_post, schedule, day, now)
                    sends.append((_workspace(schedule), ("post", schedule.id, day), job))
        by_id = {s.id: s for s in schedules}
        for claim in stale:
            if claim.schedule_id in by_id:
                schedule = by_id[claim.schedule_id]
                job = partial(self._take_over, schedule, claim.day, claim.token)
                sends.append((_workspace(schedule), ("take", schedule.id, claim.day), job))
        # Each workspace in turn, a few at once; what takes longer goes on (bot/fanout.py).
        await self._fanout.run(sends)

    async def _maybe_post(self, schedule: ScheduleRecord, day: date, now: datetime) -> None:
        due = due_at(day, schedule.at, schedule.tz)
        if due > now or due < schedule.updated_at:
            return
        late = now - due
        token = self._own + uuid.uuid4().hex
        if late > schedule.grace:
            detail = f"not running at {due.isoformat()}; {late} late exceeds the grace period"
            skipped = await self.store.daily.claim(
                schedule.id, day, token, now, status="skipped", detail=detail
            )
            if skipped:
                log.warning(
                    "daily question for %s on %s skipped: %s", schedule.channel_ref, day, detail
                )
            return
        flt = Filter(any_of=schedule.topics)
        if schedule.adaptive:
            flt = Filter(topic=await self._adaptive_topic(schedule), any_of=schedule.topics)
        async with self.store.transaction():
            if not await self.store.daily.claim(schedule.id, day, token, now):
                return  # posted, skipped, or being posted by another instance
            row = await self.rounds.open_round(
                schedule.channel_ref, window=schedule.window, kind="daily", flt=flt
            )
            assert row is not None
            await self.store.daily.finish(schedule.id, day, token, "claimed", round_id=row.id)
        self.rounds.notify_changed()
        await self._send(schedule, day, token, row.id)

    async def _adaptive_topic(self, schedule: ScheduleRecord) -> str | None:
        """The topic of an adaptive schedule's next question (bot/daily/adaptive.py): from the
        team's answers over all time and the topics this schedule asked so far."""
        pool = [name for name in schedule.topics or topics(self.bank) if name in topics(self.bank)]
        if not pool:
            return None
        team = await self.store.insights.team(schedule.platform, schedule.team)
        totals: dict[str, tuple[int, int]] = {}
        if team is not None:
            rows = await self.store.insights.totals(team[0], "all", [0])
            totals = analysis.topic_totals(self.bank, rows[0], pool)
        asked = []
        for question_id in await self.store.insights.daily_items(schedule.id):
            question = self.bank.get(question_id)
            if question is not None:
                asked.append(question.tags)
        return adaptive.next_topic(pool, totals, asked, self.rng)

    async def _take_over(self, schedule: ScheduleRecord, day: date, old_token: str) -> None:
        token = self._own + uuid.uuid4().hex
        async with self.store.transaction():
            if not await self.store.daily.take_over(
                schedule.id, day, old_token, token, self.clock.now()
            ):
                return
            posting = await self.store.daily.posting(schedule.id, day)
        if posting is None or posting.round_id is None:
            return
        log.info(
            "completing the daily posting for %s on %s left by a crash", schedule.channel_ref, day
        )
        await self._send(schedule, day, token, posting.round_id)

    async def _send(self, schedule: ScheduleRecord, day: date, token: str, round_id: int) -> None:
        row = await self.rounds.round_row(round_id)
        if row is None or not row.is_open(self.clock.now()):
            await self.store.daily.finish(
                schedule.id, day, token, "failed", detail="expired unsent"
            )
            return
        _, result = await self.rounds.post_round(row)
        if not result.done:  # passing: keep the claim, retried after the lease
            log.warning(
                "daily question for %s on %s not sent yet: %s",
                schedule.channel_ref, day, result.reason or result.outcome,
            )  # fmt: skip
            return
        status: PostingStatus = "failed" if result.outcome == "refused" else "posted"
        detail = result.reason if status == "failed" else None
        await self.store.daily.finish(schedule.id, day, token, status, detail=detail)
        if status == "failed":
            log.warning("daily question for %s on %s failed: %s", schedule.channel_ref, day, detail)


def _hours(window: timedelta) -> str:
    return f"{window / timedelta(hours=1):g}"


def _workspace(schedule: ScheduleRecord) -> str:
    return f"{schedule.platform}:{schedule.team}"
