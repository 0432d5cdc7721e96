"""`zeroquiz insights`: the same insights an admin gets with `/zeroquiz insights`, in the
terminal, for one team of one platform, from the database the bot writes (safe while it runs:
it only reads); `--format csv|json` gives the numbers behind them as a file (bot/results.py)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from adapters.insight_text import insights_text
from adapters.resultscmd import add_team_arguments, open_store, team_bank
from bot.clock import SystemClock
from bot.i18n import t
from bot.insights import Insights
from bot.library import Library
from bot.model import LANGS, TeamRef
from bot.reports import Reports
from bot.results import FORMATS, insights_csv, insights_json
from bot.topics import topics
from bot.views import PERIODS

if TYPE_CHECKING:
    from adapters.cli import Subcommands


def add_parser(sub: Subcommands) -> None:
    insights = sub.add_parser(
        "insights", help="what a team gets wrong, and questions whose key to check"
    )
    add_team_arguments(insights)
    insights.add_argument("--period", choices=PERIODS, default="week", help="default: week")
    insights.add_argument("--topic", help="only this tag (offload, zeropp, ...)")
    insights.add_argument("--lang", choices=LANGS, default="en")
    insights.add_argument(
        "--format", choices=("text", *FORMATS), default="text",
        help="text (default, as in chat), or the topic table and item analysis as csv or json",
    )  # fmt: skip


async def cmd_insights(args: argparse.Namespace) -> int:
    bank = team_bank(args)
    if isinstance(bank, int):
        return bank
    if args.topic is not None and args.topic.lower() not in topics(bank):
        listed = ", ".join(topics(bank))
        print(f"zeroquiz: there is no topic {args.topic!r}; topics: {listed}", file=sys.stderr)
        return 1
    store = await open_store(args)
    if isinstance(store, int):
        return store
    try:
        team = TeamRef(args.platform, args.team)
        topic = args.topic.lower() if args.topic else None
        insights = Insights(store, bank, SystemClock())
        if args.format != "text":
            tables = await insights.tables(team, args.period, topic)
            sys.stdout.write(
                insights_csv(tables) if args.format == "csv" else insights_json(tables)
            )
            return 0
        view = await insights.view(team, args.period, args.lang, topic)
        reports = Reports(store, Library(store, bank), SystemClock())  # as serve's insights
        reported = await reports.by_question(team, args.lang)
        view = view._replace(reported_title=t(args.lang, "insights_reported"), reported=reported)
    finally:
        await store.close()
    print(insights_text(view))
    return 0
