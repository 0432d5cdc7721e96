"""The `/zeroquiz` command set, shared by every surface.

Slack passes the words after the command (`parse_text`); Discord builds a Command from typed
options.
`dispatch` runs it against the core, enforces admin rights (asked of the adapter only when an admin
action is requested, so the platform lookup stays off the common path) and returns a view to show
privately to the person who asked.

Acknowledged means carried out: a surface calls `accept` before it tells the platform OK. It
takes the command's receipt (a repeat of the same request is done once), its share of the
person's and team's command rates, and, for `question` and `start`, opens the round (committed)
in that same transaction; the posting and the reply (`Accepted.finish`) come after the OK, and a
crash between the two leaves an open, unposted round that the next start posts.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import NamedTuple

from bot.controls.words import CONFIRM_WORDS, ME_WORDS, person
from bot.i18n import t
from bot.model import ChannelRef, Lang, TeamRef, UserRef, parse_lang
from bot.ports import Refused, Unavailable
from bot.quiz import Quiz
from bot.results import FORMATS as FILE_FORMATS
from bot.results import RESULT_PERIODS, ResultPeriod, insights_notice
from bot.runs import MAX_RUN
from bot.storage import RoundRecord
from bot.topics import Filter, UnknownTopic, matching, parse_filter, topics
from bot.views import (
    PERIODS,
    InsightsView,
    LeaderboardView,
    NoticeView,
    Period,
    ReviewView,
    StatsView,
)

Reply = NoticeView | LeaderboardView | StatsView | ReviewView | InsightsView


class Command(NamedTuple):
    name: str
    args: tuple[str, ...] = ()


@dataclass
class Context:
    channel: ChannelRef
    user: UserRef
    is_admin: Callable[[], Awaitable[bool]]


# What the audit log keeps of a command that succeeded: its words, or None when this use of it
# changed nothing (`window` alone shows the window).
Audit = Callable[[Command, Context], str | None]


def _words(command: Command, ctx: Context) -> str | None:
    return " ".join(command.args)


def _changes(command: Command, ctx: Context) -> str | None:
    return " ".join(command.args) if command.args else None


def _forgot_someone(command: Command, ctx: Context) -> str | None:
    """An admin's forget of another person, confirmed; whom is not kept (they asked to go)."""
    words = {word.lower() for word in command.args}
    if not words & CONFIRM_WORDS or words & ME_WORDS:
        return None
    named = [person(word) for word in command.args if word.lower() not in CONFIRM_WORDS]
    return None if ctx.user.user in named else ""


class Later(NamedTuple):
    """What is left of a command whose effect is committed already: post it, and the reply."""

    run: Callable[[], Awaitable[Reply]]


class Accepted(NamedTuple):
    """A command taken (`accept`): its reply if that is decided, else what is left to do."""

    reply: Reply | None = None
    rest: Callable[[], Awaitable[Reply]] | None = None

    async def finish(self) -> Reply:
        if self.rest is not None:
            return await self.rest()
        assert self.reply is not None
        return self.reply


Handler = Callable[["Quiz", Command, Context, Lang], Awaitable[Reply | Later]]


class Spec(NamedTuple):
    """One subcommand, declared once: the surfaces, the admin check and the help follow from it.

    `usage` is the words after the name, as help shows them (the same in every language);
    `posts` marks commands that post or edit public messages, which Discord checks the channel
    permissions for (and defers) before running; `early` the ones `accept` carries out before
    the acknowledgement (their handler commits the effect and returns the posting as `Later`);
    `audit` says what the audit log keeps of it.
    """

    name: str
    handler: Handler
    usage: str = ""
    admin: bool = False
    posts: bool = False
    audit: Audit | None = None  # an admin action: kept in the audit log when it succeeded
    early: bool = False


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


async def dispatch(
    quiz: Quiz, command: Command, ctx: Context, *, receipt: str | None = None
) -> Reply:
    """Accept the command and carry it out to its reply (where nothing is acknowledged first)."""
    return await (await accept(quiz, command, ctx, receipt=receipt)).finish()


async def accept(
    quiz: Quiz, command: Command, ctx: Context, *, receipt: str | None = None
) -> Accepted:
    """Take a command before the platform is told OK: its receipt (`receipt`, the platform's id
    of the request: a repeat is answered "carried out already" and does nothing), its rates,
    and an `early` command's effect, all in one transaction. Fast: no platform call (the admin
    check and any posting come in `finish`)."""
    async with quiz.transaction():
        lang = await quiz.channel_lang(ctx.channel)
        spec = BY_NAME.get(command.name)
        if spec is None:
            return Accepted(help_view(lang, ok=False))
        if receipt is not None and not await quiz.take_receipt(ctx.channel.platform, receipt):
            return Accepted(NoticeView(lang, t(lang, "command_repeated"), ok=False))
        refused = quiz.command_allowed(ctx.user, lang)
        if refused is not None:
            return Accepted(refused)
        if spec.early and not spec.admin:
            taken = await spec.handler(quiz, command, ctx, lang)
            return Accepted(rest=taken.run) if isinstance(taken, Later) else Accepted(taken)

    async def carry_out() -> Reply:
        if spec.admin and not await ctx.is_admin():
            return NoticeView(lang, t(lang, "not_admin"), ok=False)
        result = await spec.handler(quiz, command, ctx, lang)
        reply = await result.run() if isinstance(result, Later) else result
        if spec.audit is not None and isinstance(reply, NoticeView) and reply.ok:
            detail = spec.audit(command, ctx)
            if detail is not None:
                await quiz.controls.record(ctx.channel, ctx.user, spec.name, detail)
        return reply

    return Accepted(rest=carry_out)


async def _help(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    return help_view(lang)


async def _question(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply | Later:
    flt = await _filter(quiz, command.args, lang, ctx.channel)
    if isinstance(flt, NoticeView):
        return flt
    opened = await quiz.rounds.open_question(ctx.channel, flt=flt)
    if isinstance(opened, NoticeView):
        return opened
    return Later(lambda: _post(quiz, lang, opened, None))


async def _start(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply | Later:
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
    opened = await quiz.runs.open(ctx.channel, count, flt, ctx.user.user)
    if isinstance(opened, NoticeView):
        return opened
    return Later(lambda: _post(quiz, lang, opened, count))


async def _stop(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    """Admin OR the run's starter: the handler checks (Spec.admin can only say admin)."""
    return await quiz.stop_run(ctx.channel, ctx.user, ctx.is_admin)


async def _leaderboard(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    period = _period(command.args)
    if period is None:
        return NoticeView(lang, t(lang, "period_invalid"), ok=False)
    team = _team(ctx)
    return await quiz.leaderboard(team, period, lang=lang, user=ctx.user)


async def _stats(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    return await quiz.stats(ctx.user, lang=lang)


async def _review(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    """`review [topic] [level]`: the person's due cards, privately (bot/reviewing.py)."""
    flt = await _filter(quiz, command.args, lang, ctx.channel)
    if isinstance(flt, NoticeView):
        return flt
    return await quiz.reviews.start(ctx.user, flt, lang)


async def _drill(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    """`drill [topic] [level]`: the person's missed questions, privately (bot/drills.py)."""
    flt = await _filter(quiz, command.args, lang, ctx.channel)
    if isinstance(flt, NoticeView):
        return flt
    return await quiz.drills.start(ctx.user, flt, lang)


async def _remind(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    """`remind [HH:MM Zone [days]|off]`: the person's review reminder (bot/reminders.py)."""
    return await quiz.remind_command(ctx.user, command.args, lang)


async def _close(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    return await quiz.close_latest(ctx.channel)


async def _lang(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    chosen = parse_lang(command.args[0]) if command.args else None
    if chosen is None:
        return NoticeView(lang, t(lang, "lang_invalid"), ok=False)
    return await quiz.set_channel_lang(ctx.channel, chosen)


async def _insights(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    """`insights [week|month|all] [topic] [csv|json]`, in any order (bot/insights.py); with a
    format, the numbers behind the view as a file."""
    period: Period = "week"
    topic: str | None = None
    form: str | None = None
    known = set(topics(quiz.bank))
    for word in command.args:
        chosen = _period((word,))
        if chosen is not None:
            period = chosen
        elif word.lower() in FILE_FORMATS and form is None:
            form = word.lower()
        elif word.lower() in known and topic is None:
            topic = word.lower()
        else:
            listed = ", ".join(f"`{name}`" for name in topics(quiz.bank))
            return NoticeView(lang, t(lang, "topic_unknown", word=word, topics=listed), ok=False)
    team = _team(ctx)
    if form is not None:
        return insights_notice(await quiz.insights.tables(team, period, topic), period, form, lang)
    return await quiz.team_insights(team, period, lang, topic)


async def _reports(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    """`reports` lists the questions players reported; `reports clear ID` clears one."""
    return await quiz.reports.command(_team(ctx), command.args, lang)


async def _results(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    """`results [week|month|all|season] [csv|json]`: every answer of the team, as a file."""
    period: ResultPeriod = "all"
    form = "csv"
    for word in (w.lower() for w in command.args):
        if word in FILE_FORMATS:
            form = word
        elif word in RESULT_PERIODS:
            period = next(p for p in RESULT_PERIODS if p == word)
        elif (chosen := _period((word,))) is not None:
            period = chosen
        else:
            return NoticeView(lang, t(lang, "results_usage"), ok=False)
    team = _team(ctx)
    return await quiz.results.notice(team, period, form, lang)


async def _daily(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    """Where this process serves chat platforms (the terminal has no daily schedules)."""
    if quiz.daily is None:
        return NoticeView(lang, t(lang, "daily_unavailable"), ok=False)
    return await quiz.daily.command(ctx.channel, command.args, lang)


async def _window(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    return await quiz.controls.window(ctx.channel, command.args, lang)


async def _season(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    return await quiz.controls.season(ctx.channel, command.args, lang)


async def _forget(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    """Anyone for themselves, admins for another person: the handler checks (bot/controls/)."""
    return await quiz.controls.forget(ctx.channel, ctx.user, command.args, lang, ctx.is_admin)


async def _audit(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    return await quiz.controls.audit(ctx.channel, command.args, lang)


async def _pack(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    """`pack list|show|remove|export NAME`; `pack add` and `pack question` open a form where
    the surface has one (Slack's modals, Discord's attachment and modal)."""
    return await quiz.packs.command(_team(ctx), command.args, lang)


async def _questions(quiz: Quiz, command: Command, ctx: Context, lang: Lang) -> Reply:
    return await quiz.packs.source(ctx.channel, command.args, lang)


REGISTRY: tuple[Spec, ...] = (
    Spec("question", _question, usage="[topic] [easy|medium|hard]", posts=True, early=True),
    Spec("start", _start, usage="N [topic] [easy|medium|hard]", posts=True, early=True),
    Spec("stop", _stop, posts=True, audit=_words),
    Spec("leaderboard", _leaderboard, usage="[week|month|all]"),
    Spec("stats", _stats),
    Spec("review", _review, usage="[topic] [easy|medium|hard]"),
    Spec("drill", _drill, usage="[topic] [easy|medium|hard]"),
    Spec("remind", _remind, usage="[08:30 Asia/Jakarta [mon-fri]|off]"),
    Spec("close", _close, admin=True, posts=True, audit=_words),
    Spec("lang", _lang, usage="en|id", admin=True, audit=_words),
    Spec(
        "daily",
        _daily,
        usage="09:00 Asia/Jakarta [mon-fri] [topics] [8h]",
        admin=True,
        posts=True,
        audit=_changes,
    ),
    Spec("window", _window, usage="[30m|default]", admin=True, audit=_changes),
    Spec("season", _season, usage="[new]", admin=True, audit=_changes),
    Spec("forget", _forget, usage="me|@person [confirm]", audit=_forgot_someone),
    Spec("audit", _audit, usage="[page]", admin=True),
    Spec("insights", _insights, usage="[week|month|all] [topic] [csv|json]", admin=True),
    Spec("results", _results, usage="[week|month|all|season] [csv|json]", admin=True),
    Spec("reports", _reports, usage="[clear ID]", admin=True, audit=_changes),
    Spec("pack", _pack, usage="add|question|list|show|remove|export [NAME]", admin=True),
    Spec("questions", _questions, usage="bundled|team|both", admin=True),
    Spec("help", _help),
)
BY_NAME: dict[str, Spec] = {spec.name: spec for spec in REGISTRY}
POSTING_COMMANDS = frozenset(spec.name for spec in REGISTRY if spec.posts)


async def _post(quiz: Quiz, lang: Lang, row: RoundRecord, count: int | None) -> Reply:
    """Post a question a command opened (a run's first, when `count`), and say how it went."""
    try:
        await quiz.rounds.deliver_opened(row)
    except Refused as exc:
        return NoticeView(lang, t(lang, "cannot_post", reason=exc.reason), ok=False)
    except Unavailable:
        return NoticeView(lang, t(lang, "post_later"), ok=False)
    if count is not None:
        return NoticeView(lang, t(lang, "run_started", count=count))
    return NoticeView(lang, t(lang, "question_posted"))


async def _filter(
    quiz: Quiz, words: tuple[str, ...], lang: Lang, channel: ChannelRef
) -> Filter | NoticeView:
    """The topic and level words, or the private notice that says what is wrong with them; the
    topics are those of what the channel draws from (its team's packs' tags too)."""
    bank = await quiz.library.for_channel_ref(channel) if words else quiz.bank
    flt = parse_filter(words, bank)
    if isinstance(flt, UnknownTopic):
        listed = ", ".join(f"`{name}`" for name in topics(bank))
        return NoticeView(lang, t(lang, "topic_unknown", word=flt.word, topics=listed), ok=False)
    if not matching(bank, flt):
        return NoticeView(lang, t(lang, "filter_no_match"), ok=False)
    return flt


def _team(ctx: Context) -> TeamRef:
    return TeamRef(ctx.channel.platform, ctx.channel.team)


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
