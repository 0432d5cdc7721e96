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
from bot.topics import NO_FILTER, Filter, UnknownTopic, matching, parse_filter, topics
from bot.views import (
    PERIODS,
    LeaderboardView,
    NoticeView,
    Period,
    QuestionView,
    ReviewView,
    StatsView,
)

Reply = NoticeView | LeaderboardView | StatsView | ReviewView


@dataclass(frozen=True)
class Command:
    name: str
    args: tuple[str, ...] = ()


@dataclass
class Context:
    channel: ChannelRef
    user: UserRef
    is_admin: Callable[[], Awaitable[bool]]


Handler = Callable[["Quiz", Command, Context, Lang], Awaitable[Reply]]


@dataclass(frozen=True)
class Spec:
    """One subcommand, declared once: the surfaces, the admin check and the help follow from it.

    `usage` is the words after the name, as help shows them (the same in every language);
    `posts` marks commands that post or edit public messages, which Discord checks the channel
    permissions for (and defers) before running.
    """

    name: str
    handler: Handler
    usage: str = ""
    admin: bool = False
    posts: bool = False


def parse_text(text: str) -> Command:
    """`"start 5"` -> Command("start", ("5",)); empty text -> help."""
    words = text.strip().split()
    if not words:
        return Command("help")
    return Command(words[0].lower(), tuple(words[1:]))


def help_view(lang: Lang, ok: bool = True) -> NoticeView:
    lines = []
    for spec in REGISTRY:
        usage = f"/zeroquiz {spec.name} {spec.usage}".rstrip()
        line = f"`{usage}`: {t(lang, f'help_cmd_{spec.name}')}"
        lines.append(line + (f" {t(lang, 'help_admins')}" if spec.admin else ""))
    text = "\n".join([*lines, t(lang, "help_footer")])
    return NoticeView(lang, text, title=t(lang, "help_title"), ok=ok)


async def dispatch(quiz: Quiz, command: Command, ctx: Context) -> Reply:
    lang = await quiz.channel_lang(ctx.channel)
    spec = BY_NAME.get(command.name)
    if spec is None:
        return help_view(lang, ok=False)
    if spec.admin and not await ctx.is_admin():
        return NoticeView(lang, t(lang, "not_admin"), ok=False)
    return await spec.handler(quiz, command, ctx, lang)


async def _help(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    return help_view(lang)


async def _question(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    flt = await _filter(quiz, command.args, lang, ctx.channel)
    if isinstance(flt, NoticeView):
        return flt
    return await _post(quiz, ctx, lang, None, flt)


async def _start(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    """`start N [topic] [level]`: the first number is the count, the rest the filter."""
    counts = [i for i, word in enumerate(command.args) if _int(word) is not None]
    if not counts:
        return NoticeView(lang, t(lang, "run_count_invalid", max=_max_run(quiz)), ok=False)
    count = _int(command.args[counts[0]])
    assert count is not None
    rest = command.args[: counts[0]] + command.args[counts[0] + 1 :]
    flt = await _filter(quiz, rest, lang, ctx.channel)
    if isinstance(flt, NoticeView):
        return flt
    return await _post(quiz, ctx, lang, count, flt)


async def _stop(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    """Admin OR the run's starter: the handler checks (Spec.admin can only say admin)."""
    return await quiz.stop_run(ctx.channel, ctx.user, ctx.is_admin)


async def _leaderboard(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    period = _period(command.args)
    if period is None:
        return NoticeView(lang, t(lang, "period_invalid"), ok=False)
    team = TeamRef(ctx.channel.platform, ctx.channel.team)
    return await quiz.leaderboard(team, period, lang=lang, user=ctx.user)


async def _stats(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    return await quiz.stats(ctx.user, lang=lang)


async def _review(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    """`review [topic] [level]`: the person's due cards, privately (bot/reviewing.py)."""
    flt = await _filter(quiz, command.args, lang, ctx.channel)
    if isinstance(flt, NoticeView):
        return flt
    return await quiz.start_review(ctx.user, flt, lang)


async def _close(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    return await quiz.close_latest(ctx.channel)


async def _lang(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    chosen = parse_lang(command.args[0]) if command.args else None
    if chosen is None:
        return NoticeView(lang, t(lang, "lang_invalid"), ok=False)
    return await quiz.set_channel_lang(ctx.channel, chosen)


async def _daily(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    return await quiz.daily_command(ctx.channel, command.args, lang)


async def _pack(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    """`pack list|show|remove|export NAME`; `pack add` and `pack question` open a form where
    the surface has one (Slack's modals, Discord's attachment and modal)."""
    return await quiz.pack_command(ctx.channel, command.args, lang)


async def _questions(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    return await quiz.questions_source(ctx.channel, command.args, lang)


REGISTRY: tuple[Spec, ...] = (
    Spec("question", _question, usage="[topic] [easy|medium|hard]", posts=True),
    Spec("start", _start, usage="N [topic] [easy|medium|hard]", posts=True),
    Spec("stop", _stop, posts=True),
    Spec("leaderboard", _leaderboard, usage="[week|month|all]"),
    Spec("stats", _stats),
    Spec("review", _review, usage="[topic] [easy|medium|hard]"),
    Spec("close", _close, admin=True, posts=True),
    Spec("lang", _lang, usage="en|id", admin=True),
    Spec(
        "daily", _daily, usage="09:00 Asia/Jakarta [mon-fri] [topics] [8h]", admin=True, posts=True
    ),
    Spec("pack", _pack, usage="add|question|list|show|remove|export [NAME]", admin=True),
    Spec("questions", _questions, usage="bundled|team|both", admin=True),
    Spec("help", _help),
)
BY_NAME: dict[str, Spec] = {spec.name: spec for spec in REGISTRY}
POSTING_COMMANDS = frozenset(spec.name for spec in REGISTRY if spec.posts)


async def _post(
    quiz: Quiz, ctx: Context, lang: Lang, count: int | None, flt: Filter = NO_FILTER
) -> Reply:
    try:
        result = (
            await quiz.start_round(ctx.channel, flt=flt)
            if count is None
            else await quiz.start_run(ctx.channel, count, flt=flt, started_by=ctx.user.user)
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


async def _filter(
    quiz: Quiz, words: tuple[str, ...], lang: Lang, channel: ChannelRef
) -> Filter | NoticeView:
    """The topic and level words, or the private notice that says what is wrong with them; the
    topics are those of what the channel draws from (its team's packs' tags too)."""
    bank = await quiz.channel_bank(channel) if words else quiz.bank
    flt = parse_filter(words, bank)
    if isinstance(flt, UnknownTopic):
        listed = ", ".join(f"`{name}`" for name in topics(bank))
        return NoticeView(lang, t(lang, "topic_unknown", word=flt.word, topics=listed), ok=False)
    if not matching(bank, flt):
        return NoticeView(lang, t(lang, "filter_no_match"), ok=False)
    return flt


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
