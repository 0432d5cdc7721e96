"""The `/zeroquiz` app-command group: typed options in, core `Command`s out.

Each subcommand only turns its options into the words the core's dispatch understands, so adding
one (like `daily`) is one small function here and nothing else in the adapter.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import cache
from zoneinfo import available_timezones

import discord
from discord import app_commands

from adapters.discord.translator import text
from bot.commands import Command
from bot.runs import MAX_RUN

Runner = Callable[[discord.Interaction, Command], Awaitable[None]]

PERIOD_CHOICES = [
    app_commands.Choice(name=text(f"period_{p}"), value=p) for p in ("week", "month", "all")
]
LANG_CHOICES = [
    app_commands.Choice(name=text(f"discord_choice_{lang}"), value=lang) for lang in ("en", "id")
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


def build_group(run: Runner) -> app_commands.Group:
    group = app_commands.Group(
        name="zeroquiz", description=text("discord_cmd_group"), guild_only=True
    )

    @group.command(name="question", description=text("discord_cmd_question"))
    async def question(interaction: discord.Interaction) -> None:
        await run(interaction, Command("question"))

    @group.command(name="start", description=text("discord_cmd_start"))
    @app_commands.describe(count=text("discord_opt_count"))
    async def start(
        interaction: discord.Interaction, count: app_commands.Range[int, 1, MAX_RUN]
    ) -> None:
        await run(interaction, Command("start", (str(count),)))

    @group.command(name="leaderboard", description=text("discord_cmd_leaderboard"))
    @app_commands.describe(period=text("discord_opt_period"))
    @app_commands.choices(period=PERIOD_CHOICES)
    async def leaderboard(interaction: discord.Interaction, period: str = "week") -> None:
        await run(interaction, Command("leaderboard", (period,)))

    @group.command(name="stats", description=text("discord_cmd_stats"))
    async def stats(interaction: discord.Interaction) -> None:
        await run(interaction, Command("stats"))

    @group.command(name="help", description=text("discord_cmd_help"))
    async def help_(interaction: discord.Interaction) -> None:
        await run(interaction, Command("help"))

    @group.command(name="close", description=text("discord_cmd_close"))
    async def close(interaction: discord.Interaction) -> None:
        await run(interaction, Command("close"))

    @group.command(name="lang", description=text("discord_cmd_lang"))
    @app_commands.describe(language=text("discord_opt_lang"))
    @app_commands.choices(language=LANG_CHOICES)
    async def lang(interaction: discord.Interaction, language: str) -> None:
        await run(interaction, Command("lang", (language,)))

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

    return group
