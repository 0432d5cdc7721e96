"""`zeroquiz insights`: the same insights an admin gets with `/zeroquiz insights`, in the
terminal, for one team of one platform, from the database the bot writes (safe while it runs:
it only reads)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from adapters.exitcodes import EX_CONFIG, storage_exit
from adapters.insight_text import insights_text
from bot.bank import BankError, bundled_paths
from bot.clock import SystemClock
from bot.config import database_path
from bot.insights import Insights
from bot.model import LANGS, TeamRef
from bot.storage import StorageError, Store
from bot.topics import topics
from bot.views import PERIODS

DB_HELP = "SQLite file or postgresql:// URL (default: $ZEROQUIZ_DB or a per-user data dir)"


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    insights = sub.add_parser(
        "insights", help="what a team gets wrong, and questions whose key to check"
    )
    insights.add_argument("--db", help=DB_HELP)
    insights.add_argument("--platform", required=True, choices=("slack", "discord"))
    insights.add_argument(
        "--team", required=True, help="the Slack team id (T…) or the Discord server id"
    )
    insights.add_argument("--period", choices=PERIODS, default="week", help="default: week")
    insights.add_argument("--topic", help="only this tag (offload, zeropp, ...)")
    insights.add_argument("--lang", choices=LANGS, default="en")
    insights.add_argument(
        "--questions", nargs="+", metavar="PATH",
        help="the team's question files or folders, added to the bundled ones (as serve has them)",
    )  # fmt: skip


async def cmd_insights(args: argparse.Namespace) -> int:
    try:
        from bot.bank import load_bank

        bank = load_bank([*bundled_paths(), *(args.questions or ())])
    except BankError as exc:
        print(exc, file=sys.stderr)
        return 1
    if args.topic is not None and args.topic.lower() not in topics(bank):
        listed = ", ".join(topics(bank))
        print(f"zeroquiz: there is no topic {args.topic!r}; topics: {listed}", file=sys.stderr)
        return 1
    where = database_path(args.db)
    if "://" not in str(where) and not Path(where).exists():
        print(f"zeroquiz: there is no database at {where}", file=sys.stderr)
        return EX_CONFIG
    try:
        store = await Store.open(where)
    except StorageError as exc:
        print(f"zeroquiz: {exc}", file=sys.stderr)
        return storage_exit(exc)
    try:
        team = TeamRef(args.platform, args.team)
        topic = args.topic.lower() if args.topic else None
        view = await Insights(store, bank, SystemClock()).view(team, args.period, args.lang, topic)
    finally:
        await store.close()
    print(insights_text(view))
    return 0
