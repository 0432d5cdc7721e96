"""Team controls: what `/zeroquiz window`, `season`, `forget` and `audit` do, and the audit log
every admin action is written to (bot/commands.py records them after they succeed).

Replies are private notices, sized by construction: an audit page holds at most `AUDIT_PAGE`
lines of at most `AUDIT_LINE` characters (well inside Slack's 3000-character section and
Discord's 4096-character description).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from bot.clock import Clock
from bot.controls import words as w
from bot.i18n import t
from bot.model import ChannelRef, Lang, TeamRef, UserRef
from bot.periods import zone
from bot.rounds import DEFAULT_WINDOW
from bot.storage import AuditRecord, Store
from bot.views import NoticeView

AUDIT_PAGE = 10
AUDIT_LINE = 200
DETAIL_MAX = 200  # characters of a command's words kept in the log


def team_of(channel: ChannelRef) -> TeamRef:
    return TeamRef(channel.platform, channel.team)


def clipped(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(eq=False)
class Controls:
    """`store` keeps the settings and the log; `clock` stamps them; `default_window` is the
    window of a channel no admin set one for (bot/app.py's)."""

    store: Store
    clock: Clock
    default_window: timedelta = field(default=DEFAULT_WINDOW, kw_only=True)

    # -- the answer window ----------------------------------------------------------------------
    async def window(self, channel: ChannelRef, words: tuple[str, ...], lang: Lang) -> NoticeView:
        """`window` shows the channel's; `window 30m` sets it (1 min to 24 h); `window default`
        goes back to the default. New questions, runs and daily schedules set afterwards use it."""
        if not words:
            own = await self.store.windows.get(channel)
            key = "window_show" if own else "window_show_default"
            shown = w.duration_text(lang, own or self.default_window)
            return NoticeView(lang, t(lang, key, window=shown))
        word = words[0]
        if word.lower() in w.RESET_WORDS:
            await self.store.windows.set(channel, None, self.clock.now())
            shown = w.duration_text(lang, self.default_window)
            return NoticeView(lang, t(lang, "window_reset", window=shown))
        span = w.parse_window(word)
        if span is None or not w.in_bounds(span) or len(words) > 1:
            return NoticeView(lang, t(lang, "window_invalid", value=" ".join(words)), ok=False)
        await self.store.windows.set(channel, span, self.clock.now())
        return NoticeView(lang, t(lang, "window_set", window=w.duration_text(lang, span)))

    # -- seasons --------------------------------------------------------------------------------
    async def season(self, channel: ChannelRef, words: tuple[str, ...], lang: Lang) -> NoticeView:
        """`season` shows when the current one began; `season new` starts one now: every
        leaderboard of the team counts from this moment, and what was counted before is kept."""
        team = team_of(channel)
        if not words:
            began = await self.store.seasons.current(team)
            if began is None:
                return NoticeView(lang, t(lang, "season_none"))
            return NoticeView(lang, t(lang, "season_show", date=await self.day(team, began)))
        if [word.lower() for word in words] not in (["new"], ["baru"]):
            return NoticeView(lang, t(lang, "season_usage"), ok=False)
        now = self.clock.now()
        await self.store.seasons.start(team, now)
        return NoticeView(lang, t(lang, "season_started", date=await self.day(team, now)))

    async def day(self, team: TeamRef, at: datetime) -> str:
        """A date in the team's zone (the one its leaderboards' weeks and months follow)."""
        tz = await self.store.seasons.zone(team)
        return at.astimezone(zone(tz)).strftime("%Y-%m-%d")

    # -- forgetting a person --------------------------------------------------------------------
    async def forget(
        self,
        channel: ChannelRef,
        asker: UserRef,
        words: tuple[str, ...],
        lang: Lang,
        is_admin: Callable[[], Awaitable[bool]],
    ) -> NoticeView:
        """`forget me` (anyone) or `forget @person` (admins), then the same with `confirm`:
        the person's answers, review cards, name and scores in this team are deleted."""
        confirmed = any(word.lower() in w.CONFIRM_WORDS for word in words)
        named = [word for word in words if word.lower() not in w.CONFIRM_WORDS]
        if len(named) != 1:
            return NoticeView(lang, t(lang, "forget_usage"), ok=False)
        self_ = named[0].lower() in w.ME_WORDS
        target = asker.user if self_ else w.person(named[0])
        if target is None:
            return NoticeView(lang, t(lang, "forget_who", value=named[0]), ok=False)
        mine = target == asker.user
        if not mine and not await is_admin():  # the platform is asked only for someone else
            return NoticeView(lang, t(lang, "forget_not_admin"), ok=False)
        team = team_of(channel)
        held = await self.store.people.held(team, target)
        if not held.players:
            key = "forget_nothing_me" if mine else "forget_nothing"
            return NoticeView(lang, t(lang, key), ok=False)
        if not confirmed:
            if mine:
                again = "/zeroquiz forget me confirm"
                text = t(lang, "forget_ask_me", answers=held.answers, cards=held.cards, again=again)
            else:  # a mention copied back wouldn't parse (Slack escapes what is typed)
                text = t(lang, "forget_ask", answers=held.answers, cards=held.cards)
            return NoticeView(lang, text)
        gone = await self.store.people.forget(team, target)
        key = "forget_done_me" if mine else "forget_done"
        return NoticeView(lang, t(lang, key, answers=gone.answers, cards=gone.cards))

    # -- the audit log --------------------------------------------------------------------------
    async def record(self, channel: ChannelRef, actor: UserRef, action: str, detail: str) -> None:
        """Keep one admin action (after it succeeded)."""
        await self.store.audit.add(
            channel,
            actor.user,
            clipped(actor.display_name, 80),
            action,
            clipped(detail, DETAIL_MAX),
            self.clock.now(),
        )

    async def audit(self, channel: ChannelRef, words: tuple[str, ...], lang: Lang) -> NoticeView:
        """`audit [page]`: the team's admin actions, newest first, `AUDIT_PAGE` per page."""
        page = 1
        if words:
            page = int(words[0]) if words[0].isdigit() and len(words) == 1 else 0
            if page < 1:
                return NoticeView(lang, t(lang, "audit_usage"), ok=False)
        entries, total = await self.store.audit.recent(
            team_of(channel), limit=AUDIT_PAGE, offset=(page - 1) * AUDIT_PAGE
        )
        title = t(lang, "audit_title")
        if total == 0:
            return NoticeView(lang, t(lang, "audit_empty"), title=title)
        pages = -(-total // AUDIT_PAGE)
        if not entries:
            return NoticeView(lang, t(lang, "audit_no_page", page=page, pages=pages), ok=False)
        note = t(lang, "audit_page", page=page, pages=pages, total=total)
        if page < pages:
            note += " " + t(lang, "audit_older", next=page + 1)
        lines = tuple(clipped(audit_line(lang, e), AUDIT_LINE) for e in entries)
        return NoticeView(lang, note, title=title, lines=lines)


def audit_line(lang: Lang, entry: AuditRecord) -> str:
    when = entry.at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    who = f"{entry.actor_name} ({entry.actor})" if entry.actor_name else entry.actor
    if entry.action == "forget":
        what = t(lang, "audit_forget")
    else:
        what = f"/zeroquiz {entry.action} {entry.detail}".rstrip()
    return t(lang, "audit_line", when=when, who=who, channel=entry.channel, what=what)
