"""`zeroquiz results`: one row per answer of one team, as CSV or JSON on stdout, from the
database the bot writes (it only reads, so it is safe while the bot runs). The bank is the one
serve would load (`--questions`, `--no-bundled`, or ZEROQUIZ_QUESTIONS / ZEROQUIZ_NO_BUNDLED), so
the topic, level and option text of the team's own questions are there too."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from adapters.errors import ConfigError
from adapters.exitcodes import EX_CONFIG, EX_USAGE, storage_exit
from bot.bank import Bank, BankError
from bot.clock import SystemClock
from bot.config import database_path
from bot.library import Library
from bot.model import TeamRef
from bot.results import FORMATS, RESULT_PERIODS, Results, results_csv, results_json
from bot.storage import StorageError, Store

if TYPE_CHECKING:
    from adapters.cli import Subcommands

DB_HELP = "SQLite file or postgresql:// URL (default: $ZEROQUIZ_DB or a per-user data dir)"
PLATFORMS = ("slack", "discord", "console")  # console: the terminal's games, team `local`


def add_team_arguments(parser: argparse.ArgumentParser) -> None:
    """The database, the team and the bank, as `results` and `insights` take them."""
    parser.add_argument("--db", help=DB_HELP)
    parser.add_argument("--platform", required=True, choices=PLATFORMS)
    parser.add_argument(
        "--team", required=True,
        help="the Slack team id (T…), the Discord server id, or `local` for the terminal",
    )  # fmt: skip
    parser.add_argument(
        "--questions", nargs="+", metavar="PATH",
        help="the team's question files or folders, added to the bundled ones (as serve has them)",
    )  # fmt: skip
    parser.add_argument(
        "--no-bundled", action="store_true", help="only the --questions files (as serve has them)"
    )


def add_parser(sub: Subcommands) -> None:
    results = sub.add_parser("results", help="one row per answer of a team, as CSV or JSON")
    add_team_arguments(results)
    results.add_argument("--period", choices=RESULT_PERIODS, default="all", help="default: all")
    results.add_argument("--format", choices=FORMATS, default="csv", help="default: csv")


def team_bank(args: argparse.Namespace) -> Bank | int:
    """The bank serve would load from these flags and the environment; or, said on stderr,
    the exit code of a wrong setting (2) or of problems in the files (1)."""
    from adapters.questions import serve_bank

    try:
        return serve_bank(args.questions, args.no_bundled, os.environ)
    except ConfigError as exc:
        print(f"zeroquiz: {exc}", file=sys.stderr)
        return EX_USAGE
    except BankError as exc:
        print(exc, file=sys.stderr)
        return 1


async def open_store(args: argparse.Namespace) -> Store | int:
    """The database, read as it is (never created here); an exit code when it can't be."""
    where = database_path(args.db)
    if "://" not in str(where) and not Path(where).exists():
        print(f"zeroquiz: there is no database at {where}", file=sys.stderr)
        return EX_CONFIG
    try:
        return await Store.open(where)
    except StorageError as exc:
        print(f"zeroquiz: {exc}", file=sys.stderr)
        return storage_exit(exc)


async def cmd_results(args: argparse.Namespace) -> int:
    bank = team_bank(args)
    if isinstance(bank, int):
        return bank
    store = await open_store(args)
    if isinstance(store, int):
        return store
    try:
        team = TeamRef(args.platform, args.team)
        rows = await Results(store, Library(store, bank), SystemClock()).rows(team, args.period)
    finally:
        await store.close()
    sys.stdout.write(results_csv(rows) if args.format == "csv" else results_json(rows))
    if not rows:
        print(f"zeroquiz: no answers from {args.platform} team {args.team} in that period",
              file=sys.stderr)  # fmt: skip
    return 0
