"""Review reminders: `/zeroquiz remind 08:30 Asia/Jakarta mon-fri` sends the person one direct
message at that local time, on those days, when review cards are due in that team ("N cards
due", and a button that starts the review privately); nothing when none are due.

Once a day, across restarts, SIGKILLs and replicas, as daily questions are (bot/daily/): a day's
send is claimed in the database before the message leaves and marked sent after; a claim whose
holder died is taken over after LEASE and sent again with the same dedupe key (Discord's nonce
drops a repeat; Slack's look-back finds the message the dead holder sent). A reminder found
more than GRACE late (nobody was running at that time) is recorded as skipped, not sent late.
"""

from __future__ import annotations

import logging
import uuid
from datetime import date, datetime, timedelta
from functools import partial
from zoneinfo import ZoneInfo

from bot.clock import Clock
from bot.daily import spec as specs
from bot.daily.timing import due_at, local_date
from bot.delivery import Delivery
from bot.fanout import Fanout, Send
from bot.i18n import t
from bot.limits import Limiter
from bot.liveness import claim_wakes, silent_since
from bot.model import Lang, TeamRef, UserRef
from bot.reviewing import Reviews
from bot.storage import Store
from bot.storage.reminders import ReminderClaim, ReminderRecord, SendStatus
from bot.views import NoticeView, ReminderView

log = logging.getLogger(__name__)

GRACE = timedelta(hours=1)  # as a daily question's: a reminder later than this is skipped
LEASE = timedelta(minutes=2)
OFF_WORDS = frozenset({"off", "stop", "mati"})


class Reminders:
    def __init__(
        self,
        store: Store,
        clock: Clock,
        delivery: Delivery,
        reviews: Reviews,
        limiter: Limiter,
        *,
        grace: timedelta = GRACE,
        holder: str = "",
        fanout: Fanout | None = None,
    ) -> None:
        """`holder` names this replica in its claims (stable across restarts: see
        bot/app.py), so a restarted replica takes back its own unfinished sends at once."""
        self._store = store
        self._clock = clock
        self._delivery = delivery
        self._reviews = reviews
        self._limiter = limiter
        self._grace = grace
        self._own = f"{holder}/" if holder else ""
        self._holder = holder
        self._started = clock.now()
        self._fanout = fanout or Fanout(clock)  # the process's one, from bot/app.py

    # -- the command ------------------------------------------------------------------------------
    async def command(self, user: UserRef, words: tuple[str, ...], lang: Lang) -> NoticeView:
        """`remind` shows, `remind off` stops, `remind HH:MM Zone [days]` sets; a bad time or
        zone gets the same reply as `daily`'s."""
        if not words:
            return await self.show(user, lang)
        if words[0].lower() in OFF_WORDS and len(words) == 1:
            stopped = await self._store.reminders.off(user, self._clock.now())
            return NoticeView(lang, t(lang, "remind_off" if stopped else "remind_none"))
        if len(words) < 2:
            return NoticeView(lang, t(lang, "remind_usage"), ok=False)
        try:
            at, tz = specs.parse_time(words[0]), specs.parse_zone(words[1])
            days = specs.parse_days(" ".join(words[2:]))
        except specs.SpecError as exc:
            text = t(lang, exc.key, value=exc.value) if exc.value else t(lang, "remind_usage")
            return NoticeView(lang, text, ok=False)
        async with self._store.transaction():
            active, mine = await self._store.reminders.count(user)
            refusal = None if mine else self._limiter.add_reminder(active)
            if refusal is not None:
                return refusal.notice(lang)
            code = specs.days_code(days)
            await self._store.reminders.put(user, lang, at, tz, code, self._clock.now())
        shown = await self.show(user, lang)
        return NoticeView(lang, t(lang, "remind_set") + "\n" + shown.text)

    async def show(self, user: UserRef, lang: Lang) -> NoticeView:
        reminder = await self._store.reminders.of(user)
        if reminder is None:
            return NoticeView(lang, t(lang, "remind_none"))
        text = t(
            lang,
            "remind_show",
            time=reminder.at.strftime("%H:%M"),
            tz=reminder.tz,
            days=specs.days_label(reminder.days, lang),
        )
        done = await self._store.reminders.days_done([reminder.id], self._since())
        next_at = self._next(reminder, done)
        if next_at is not None:
            local = next_at.astimezone(ZoneInfo(reminder.tz)).strftime("%Y-%m-%d %H:%M")
            text += "\n" + t(lang, "remind_next", when=local, tz=reminder.tz)
        return NoticeView(lang, text)

    async def stop_team(self, team: TeamRef) -> int:
        """The app was removed from the team: its reminders stop."""
        return await self._store.reminders.off_team(team, self._clock.now())

    # -- due work (the scheduler's) ---------------------------------------------------------------
    async def next_due(self) -> datetime | None:
        reminders = await self._store.reminders.active(self._delivery.platforms())
        done = await self._store.reminders.days_done([r.id for r in reminders], self._since())
        candidates = [when for r in reminders if (when := self._next(r, done)) is not None]
        oldest = await self._store.reminders.oldest_claim()
        if oldest is not None:
            served = {r.id for r in reminders}
            stale_here = any(c.reminder_id in served for c in await self._stale())
            beat = await self._store.reminders.holders_last_beat(self._holder)
            candidates += claim_wakes(self._clock.now(), oldest + LEASE, stale_here, beat)
        return min(candidates, default=None)

    async def process_due(self, only: UserRef | None = None) -> None:
        """Send what is due; `only`: just this person's (the terminal, one player at a time)."""
        now = self._clock.now()
        reminders = await self._store.reminders.active(self._delivery.platforms())
        if only is not None:
            reminders = [r for r in reminders if _same(r.user, only)]
        done = await self._store.reminders.days_done([r.id for r in reminders], self._since())
        sends: list[Send] = []
        for reminder in reminders:
            today = local_date(now, reminder.tz)
            for day in (today - timedelta(days=1), today):
                if day.weekday() in reminder.days and (reminder.id, day) not in done:
                    job = partial(self._maybe_send, reminder, day, now)
                    sends.append((_team(reminder), ("send", reminder.id, day), job))
        by_id = {r.id: r for r in reminders}
        for claim in await self._stale():
            if claim.reminder_id in by_id:
                reminder = by_id[claim.reminder_id]
                job = partial(self._take_over, reminder, claim)
                sends.append((_team(reminder), ("take", reminder.id, claim.day), job))
        # Each team in turn, a few at once; what takes longer goes on (bot/fanout.py).
        await self._fanout.run(sends)

    async def _stale(self) -> list[ReminderClaim]:
        """Claims whose holder died: any after the lease or once its holder went silent
        (bot/liveness.py), this replica's own from before it restarted at once."""
        now = self._clock.now()
        return await self._store.reminders.stale_claims(
            now - LEASE, self._own, self._started, silent_since(now)
        )

    def _since(self) -> date:
        """The oldest local date a pass looks at: yesterday anywhere on Earth."""
        return (self._clock.now() - timedelta(days=2)).date()

    def _next(self, reminder: ReminderRecord, done: set[tuple[int, date]]) -> datetime | None:
        """The next due instant whose day has not been claimed or skipped yet."""
        now = self._clock.now()
        day = local_date(now, reminder.tz) - timedelta(days=1)
        for _ in range(9):  # yesterday, today and a week on: lazily, most find one at once
            if day.weekday() in reminder.days and (reminder.id, day) not in done:
                due = due_at(day, reminder.at, reminder.tz)
                if due >= reminder.updated_at and (due > now or now - due <= self._grace):
                    return max(due, now)
            day += timedelta(days=1)
        return None

    async def _maybe_send(self, reminder: ReminderRecord, day: date, now: datetime) -> None:
        due = due_at(day, reminder.at, reminder.tz)
        if due > now or due < reminder.updated_at:
            return
        token = self._own + uuid.uuid4().hex
        claims = self._store.reminders
        if now - due > self._grace:
            detail = f"not running at {due.isoformat()}; {now - due} late exceeds the grace period"
            await claims.claim(reminder.id, day, token, now, "skipped", detail=detail)
            return
        count = await self._reviews.due_count(reminder.user)
        if count == 0:  # nothing due: no message, and the day is done
            await claims.claim(reminder.id, day, token, now, "empty")
            return
        if await claims.claim(reminder.id, day, token, now, "claimed", cards=count):
            await self._send(reminder, day, token, count, tried_since=None)

    async def _take_over(self, reminder: ReminderRecord, claim: ReminderClaim) -> None:
        token, day = self._own + uuid.uuid4().hex, claim.day
        now = self._clock.now()
        if not await self._store.reminders.take_over(reminder.id, day, claim.token, token, now):
            return  # another replica took it
        log.info("completing the review reminder of %s on %s left by a crash", reminder.user, day)
        await self._send(reminder, day, token, claim.cards, tried_since=claim.claimed_at)

    async def _send(
        self,
        reminder: ReminderRecord,
        day: date,
        token: str,
        count: int,
        *,
        tried_since: datetime | None,
    ) -> None:
        lang = reminder.lang
        view = ReminderView(
            lang=lang,
            team=reminder.user.team,
            title=t(lang, "remind_title"),
            text=t(lang, "remind_text", count=count),
            due=count,
            button=self._reviews.review_now(lang),
        )
        posted = await self._delivery.send_direct(
            reminder.user,
            view,
            about=reminder.id,
            dedupe_key=f"zq-remind:{reminder.id}:{day.isoformat()}",
            tried_since=tried_since,
        )
        if not posted.done:  # passing: the claim stays, taken over after the lease
            return
        status: SendStatus = "failed" if posted.outcome == "refused" else "sent"
        detail = posted.reason if status == "failed" else None
        await self._store.reminders.finish(reminder.id, day, token, status, detail)
        if status == "failed":
            log.warning("review reminder of %s on %s refused: %s", reminder.user, day, detail)


def _same(a: UserRef, b: UserRef) -> bool:
    """The same person in the same team (display names aside)."""
    return (a.platform, a.team, a.user) == (b.platform, b.team, b.user)


def _team(reminder: ReminderRecord) -> str:
    return f"{reminder.user.platform}:{reminder.user.team}"
