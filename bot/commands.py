"""The `/zeroquiz` command set, shared by every surface.

Slack passes the words after the command (`parse_text`); Discord builds a Command from typed
options.
`dispatch` runs it against the core, enforces admin rights (asked of the adapter only when an admin
action is requested, so the platform lookup stays off the common path) and returns a view to show
privately to the person who asked.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot.i18n import t
from bot.model import ChannelRef, Lang, TeamRef, UserRef, parse_lang
from bot.ports import Refused, Unavailable
from bot.quiz import Quiz
from bot.runs import MAX_RUN
from bot.views import PERIODS, LeaderboardView, NoticeView, Period, QuestionView, StatsView

ADMIN_COMMANDS = frozenset({"close", "lang", "daily"})

Reply = NoticeView | LeaderboardView | StatsView


@dataclass(frozen=True)
class Command:
    name: str
    args: tuple[str, ...] = ()


@dataclass
class Context:
    channel: ChannelRef
    user: UserRef
    is_admin: Callable[[], Awaitable[bool]]


def parse_text(text: str) -> Command:
    """`"start 5"` -> Command("start", ("5",)); empty text -> help."""
    words = text.strip().split()
    if not words:
        return Command("help")
    return Command(words[0].lower(), tuple(words[1:]))


def help_view(lang: Lang, ok: bool = True) -> NoticeView:
    return NoticeView(lang, t(lang, "help"), title=t(lang, "help_title"), ok=ok)


async def dispatch(quiz: Quiz, command: Command, ctx: Context) -> Reply:
    lang = await quiz.channel_lang(ctx.channel)
    name = command.name
    if name in ADMIN_COMMANDS and not await ctx.is_admin():
        return NoticeView(lang, t(lang, "not_admin"), ok=False)
    if name == "help":
        return help_view(lang)
    if name == "question":
        return await _post(quiz, ctx, lang, None)
    if name == "start":
        count = _int(command.args[0]) if command.args else None
        if count is None:
            return NoticeView(lang, t(lang, "run_count_invalid", max=_max_run(quiz)), ok=False)
        return await _post(quiz, ctx, lang, count)
    if name == "leaderboard":
        period = _period(command.args)
        if period is None:
            return NoticeView(lang, t(lang, "period_invalid"), ok=False)
        team = TeamRef(ctx.channel.platform, ctx.channel.team)
        return await quiz.leaderboard(team, period, lang=lang, user=ctx.user)
    if name == "stats":
        return await quiz.stats(ctx.user, lang=lang)
    if name == "close":
        return await quiz.close_latest(ctx.channel)
    if name == "daily":
        if quiz.daily is None:
            return NoticeView(lang, t(lang, "daily_unavailable"), ok=False)
        return await quiz.daily.command(ctx.channel, command.args, lang)
    if name == "lang":
        chosen = parse_lang(command.args[0]) if command.args else None
        if chosen is None:
            return NoticeView(lang, t(lang, "lang_invalid"), ok=False)
        return await quiz.set_channel_lang(ctx.channel, chosen)
    return help_view(lang, ok=False)


async def _post(quiz: Quiz, ctx: Context, lang: Lang, count: int | None) -> Reply:
    try:
        result = (
            await quiz.start_round(ctx.channel)
            if count is None
            else await quiz.start_run(ctx.channel, count)
        )
    except Refused as exc:
        return NoticeView(lang, t(lang, "cannot_post", reason=exc.reason), ok=False)
    except Unavailable:
        return NoticeView(lang, t(lang, "post_later"), ok=False)
    if isinstance(result, NoticeView):
        return result
    if isinstance(result, QuestionView) and count is not None:
        return NoticeView(lang, t(lang, "run_started", count=count))
    return NoticeView(lang, t(lang, "question_posted"))


def _int(word: str) -> int | None:
    try:
        return int(word)
    except ValueError:
        return None


def _max_run(quiz: Quiz) -> int:
    return min(MAX_RUN, len(quiz.bank))


def _period(args: tuple[str, ...]) -> Period | None:
    if not args:
        return "week"
    word = args[0].lower()
    aliases: dict[str, Period] = {"minggu": "week", "bulan": "month", "semua": "all"}
    if word in PERIODS:
        return word
    return aliases.get(word)
