"""The `/zeroquiz` app-command group: typed options in, core `Command`s out.

The subcommands come from the core's registry (bot/commands.py), in its order; each only turns
its typed options into the words the core's dispatch understands, so adding one is a registry
entry plus, only where it takes options, one small binder here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine, Sequence
from functools import cache
from typing import Any
from zoneinfo import available_timezones

import discord
from discord import app_commands

from adapters.discord.translator import text
from bot.commands import REGISTRY, Command, Spec
from bot.runs import MAX_RUN
from bot.topics import LEVELS

Runner = Callable[[discord.Interaction, Command], Awaitable[None]]
Topics = Callable[[], Sequence[str]]  # the bank's tags, asked at each autocomplete
Completer = Callable[
    [discord.Interaction, str], Coroutine[Any, Any, list[app_commands.Choice[str]]]
]

PERIOD_CHOICES = [
    app_commands.Choice(name=text(f"period_{p}"), value=p) for p in ("week", "month", "all")
]
RESULT_PERIOD_CHOICES = [
    app_commands.Choice(name=text(f"period_{p}"), value=p)
    for p in ("week", "month", "all", "season")
]
FILE_CHOICES = [app_commands.Choice(name=f.upper(), value=f) for f in ("csv", "json")]
LANG_CHOICES = [
    app_commands.Choice(name=text(f"discord_choice_{lang}"), value=lang) for lang in ("en", "id")
]
LEVEL_CHOICES = [
    app_commands.Choice(name=text(f"discord_choice_{level}"), value=level) for level in LEVELS
]
MAX_CHOICES = 25
MAX_WINDOW_HOURS = 23  # bot.daily.spec.MAX_WINDOW


@cache
def _zones() -> tuple[str, ...]:
    return tuple(sorted(available_timezones()))


async def timezone_choices(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """Autocomplete from the IANA database; prefix matches first."""
    needle = current.strip().lower()
    zones = _zones()
    prefix = [z for z in zones if z.lower().startswith(needle)]
    inner = [z for z in zones if needle in z.lower() and z not in prefix] if needle else []
    return [app_commands.Choice(name=z, value=z) for z in (prefix + inner)[:MAX_CHOICES]]


def topic_completer(names: Topics) -> Completer:
    """Autocomplete from the bank's tags; prefix matches first."""

    async def complete(
        interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        needle = current.strip().lower()
        tags = list(names())
        prefix = [tag for tag in tags if tag.startswith(needle)]
        inner = [tag for tag in tags if needle in tag and tag not in prefix] if needle else []
        return [app_commands.Choice(name=tag, value=tag) for tag in (prefix + inner)[:MAX_CHOICES]]

    return complete


def filter_words(topic: str | None, level: str | None) -> tuple[str, ...]:
    """Typed topic and level -> the words `question` and `start` take on every surface."""
    return tuple(word for value in (topic, level) if value for word in value.split())


def daily_words(
    time: str | None, timezone: str | None, days: str | None, window_hours: int | None, off: bool
) -> tuple[str, ...]:
    """Typed options -> the words `/zeroquiz daily` takes on every surface."""
    if off:
        return ("off",)
    words = [word for value in (time, timezone, days) if value for word in value.split()]
    if window_hours is not None:
        words.append(f"{window_hours}h")
    return tuple(words)


Binder = Callable[[app_commands.Group, Runner, Topics], None]


def _filtered(name: str) -> Binder:
    """A command whose words are a topic and a level (`question`, `review`, `drill`)."""

    def bind(group: app_commands.Group, run: Runner, names: Topics) -> None:
        @group.command(name=name, description=text(f"discord_cmd_{name}"))
        @app_commands.describe(topic=text("discord_opt_topic"), level=text("discord_opt_level"))
        @app_commands.autocomplete(topic=topic_completer(names))
        @app_commands.choices(level=LEVEL_CHOICES)
        async def filtered(
            interaction: discord.Interaction, topic: str | None = None, level: str | None = None
        ) -> None:
            await run(interaction, Command(name, filter_words(topic, level)))

    return bind


def _start(group: app_commands.Group, run: Runner, names: Topics) -> None:
    @group.command(name="start", description=text("discord_cmd_start"))
    @app_commands.describe(
        count=text("discord_opt_count"),
        topic=text("discord_opt_topic"),
        level=text("discord_opt_level"),
    )
    @app_commands.autocomplete(topic=topic_completer(names))
    @app_commands.choices(level=LEVEL_CHOICES)
    async def start(
        interaction: discord.Interaction,
        count: app_commands.Range[int, 1, MAX_RUN],
        topic: str | None = None,
        level: str | None = None,
    ) -> None:
        words = (str(count), *filter_words(topic, level))
        await run(interaction, Command("start", words))


def _leaderboard(group: app_commands.Group, run: Runner, names: Topics) -> None:
    @group.command(name="leaderboard", description=text("discord_cmd_leaderboard"))
    @app_commands.describe(period=text("discord_opt_period"))
    @app_commands.choices(period=PERIOD_CHOICES)
    async def leaderboard(interaction: discord.Interaction, period: str = "week") -> None:
        await run(interaction, Command("leaderboard", (period,)))


def _plain(name: str) -> Binder:
    """A subcommand without options (any registry command without `usage`)."""

    def bind(group: app_commands.Group, run: Runner, names: Topics) -> None:
        @group.command(name=name, description=text(f"discord_cmd_{name}"))
        async def plain(interaction: discord.Interaction) -> None:
            await run(interaction, Command(name))

    return bind


def _lang(group: app_commands.Group, run: Runner, names: Topics) -> None:
    @group.command(name="lang", description=text("discord_cmd_lang"))
    @app_commands.describe(language=text("discord_opt_lang"))
    @app_commands.choices(language=LANG_CHOICES)
    async def lang(interaction: discord.Interaction, language: str) -> None:
        await run(interaction, Command("lang", (language,)))


def _daily(group: app_commands.Group, run: Runner, names: Topics) -> None:
    @group.command(name="daily", description=text("discord_cmd_daily"))
    @app_commands.describe(
        time=text("discord_opt_time"),
        timezone=text("discord_opt_timezone"),
        days=text("discord_opt_days"),
        window_hours=text("discord_opt_window"),
        off=text("discord_opt_off"),
    )
    @app_commands.autocomplete(timezone=timezone_choices)
    async def daily(
        interaction: discord.Interaction,
        time: str | None = None,
        timezone: str | None = None,
        days: str | None = None,
        window_hours: app_commands.Range[int, 1, MAX_WINDOW_HOURS] | None = None,
        off: bool = False,
    ) -> None:
        words = daily_words(time, timezone, days, window_hours, off)
        await run(interaction, Command("daily", words))


def _remind(group: app_commands.Group, run: Runner, names: Topics) -> None:
    @group.command(name="remind", description=text("discord_cmd_remind"))
    @app_commands.describe(
        time=text("discord_opt_time"),
        timezone=text("discord_opt_timezone"),
        days=text("discord_opt_days"),
        off=text("discord_opt_remind_off"),
    )
    @app_commands.autocomplete(timezone=timezone_choices)
    async def remind(
        interaction: discord.Interaction,
        time: str | None = None,
        timezone: str | None = None,
        days: str | None = None,
        off: bool = False,
    ) -> None:
        await run(interaction, Command("remind", daily_words(time, timezone, days, None, off)))


def _window(group: app_commands.Group, run: Runner, names: Topics) -> None:
    @group.command(name="window", description=text("discord_cmd_window"))
    @app_commands.describe(length=text("discord_opt_length"))
    async def window(interaction: discord.Interaction, length: str | None = None) -> None:
        words = tuple(length.split()) if length else ()
        await run(interaction, Command("window", words))


def _season(group: app_commands.Group, run: Runner, names: Topics) -> None:
    @group.command(name="season", description=text("discord_cmd_season"))
    @app_commands.describe(new=text("discord_opt_new"))
    async def season(interaction: discord.Interaction, new: bool = False) -> None:
        await run(interaction, Command("season", ("new",) if new else ()))


def forget_words(person: int | None, confirm: bool) -> tuple[str, ...]:
    """Typed options -> the words `/zeroquiz forget` takes on every surface."""
    who = f"<@{person}>" if person is not None else "me"
    return (who, "confirm") if confirm else (who,)


def _forget(group: app_commands.Group, run: Runner, names: Topics) -> None:
    @group.command(name="forget", description=text("discord_cmd_forget"))
    @app_commands.describe(person=text("discord_opt_person"), confirm=text("discord_opt_confirm"))
    async def forget(
        interaction: discord.Interaction, person: discord.User | None = None, confirm: bool = False
    ) -> None:
        words = forget_words(person.id if person is not None else None, confirm)
        await run(interaction, Command("forget", words))


def _audit(group: app_commands.Group, run: Runner, names: Topics) -> None:
    @group.command(name="audit", description=text("discord_cmd_audit"))
    @app_commands.describe(page=text("discord_opt_page"))
    async def audit(
        interaction: discord.Interaction, page: app_commands.Range[int, 1, 10_000] | None = None
    ) -> None:
        await run(interaction, Command("audit", (str(page),) if page is not None else ()))


def _insights(group: app_commands.Group, run: Runner, names: Topics) -> None:
    @group.command(name="insights", description=text("discord_cmd_insights"))
    @app_commands.describe(
        period=text("discord_opt_insights_period"),
        topic=text("discord_opt_insights_topic"),
        form=text("discord_opt_insights_format"),
    )
    @app_commands.rename(form="format")
    @app_commands.choices(period=PERIOD_CHOICES, form=FILE_CHOICES)
    @app_commands.autocomplete(topic=topic_completer(names))
    async def insights(
        interaction: discord.Interaction,
        period: str = "week",
        topic: str | None = None,
        form: str | None = None,
    ) -> None:
        words = (period, *filter_words(topic, None), *((form,) if form else ()))
        await run(interaction, Command("insights", words))


def _reports(group: app_commands.Group, run: Runner, names: Topics) -> None:
    @group.command(name="reports", description=text("discord_cmd_reports"))
    @app_commands.describe(clear=text("discord_opt_reports_clear"))
    async def reports(
        interaction: discord.Interaction, clear: app_commands.Range[int, 1, 10**12] | None = None
    ) -> None:
        await run(interaction, Command("reports", ("clear", str(clear)) if clear else ()))


def _results(group: app_commands.Group, run: Runner, names: Topics) -> None:
    @group.command(name="results", description=text("discord_cmd_results"))
    @app_commands.describe(
        period=text("discord_opt_results_period"), form=text("discord_opt_results_format")
    )
    @app_commands.rename(form="format")
    @app_commands.choices(period=RESULT_PERIOD_CHOICES, form=FILE_CHOICES)
    async def results(
        interaction: discord.Interaction, period: str = "all", form: str = "csv"
    ) -> None:
        await run(interaction, Command("results", (period, form)))


PACK_ACTIONS = ("add", "question", "list", "show", "remove", "export")
SOURCE_CHOICES = [app_commands.Choice(name=s, value=s) for s in ("bundled", "team", "both")]


def _pack(group: app_commands.Group, run: Runner, names: Topics) -> None:
    """`pack add` reads its `file` (an attachment) and `pack question` opens a modal: the
    handler does both from the interaction (adapters/discord/packs.py)."""

    @group.command(name="pack", description=text("discord_cmd_pack"))
    @app_commands.describe(
        action=text("discord_opt_pack_action"),
        name=text("discord_opt_pack_name"),
        file=text("discord_opt_pack_file"),
    )
    @app_commands.choices(action=[app_commands.Choice(name=a, value=a) for a in PACK_ACTIONS])
    async def pack(
        interaction: discord.Interaction,
        action: str,
        name: str | None = None,
        file: discord.Attachment | None = None,
    ) -> None:
        await run(interaction, Command("pack", tuple(w for w in (action, name) if w)))


def _questions(group: app_commands.Group, run: Runner, names: Topics) -> None:
    @group.command(name="questions", description=text("discord_cmd_questions"))
    @app_commands.describe(source=text("discord_opt_source"))
    @app_commands.choices(source=SOURCE_CHOICES)
    async def questions(interaction: discord.Interaction, source: str | None = None) -> None:
        await run(interaction, Command("questions", (source,) if source else ()))


# How each registry command that takes words gets them on Discord: typed options. A command
# without words (no `usage` in the registry: stop, stats, close, help) needs no entry here.
BINDERS: dict[str, Binder] = {
    "question": _filtered("question"),
    "start": _start,
    "leaderboard": _leaderboard,
    "review": _filtered("review"),
    "drill": _filtered("drill"),
    "lang": _lang,
    "daily": _daily,
    "remind": _remind,
    "window": _window,
    "season": _season,
    "forget": _forget,
    "audit": _audit,
    "insights": _insights,
    "results": _results,
    "reports": _reports,
    "pack": _pack,
    "questions": _questions,
}


def build_group(
    run: Runner, names: Topics = tuple, specs: Sequence[Spec] = REGISTRY
) -> app_commands.Group:
    """The group from the core's registry, in its order; a command that takes words but has no
    binder here is an error at start-up, not a command Discord silently lacks."""
    group = app_commands.Group(
        name="zeroquiz", description=text("discord_cmd_group"), guild_only=True
    )
    for spec in specs:
        binder = BINDERS.get(spec.name) or (None if spec.usage else _plain(spec.name))
        if binder is None:
            raise LookupError(f"/zeroquiz {spec.name} has no Discord options declared")
        binder(group, run, names)
    return group
