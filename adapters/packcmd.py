"""`zeroquiz pack add|list|remove|export`: a team's question packs from the terminal.

The same checks and the same store as `/zeroquiz pack` in chat (bot/teampacks.py): a broken pack
prints every problem as `zeroquiz validate` does, on stderr, exits 1 and stores nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from adapters.exitcodes import storage_exit
from bot.bank import Bank
from bot.clock import SystemClock
from bot.config import database_path, is_default_location
from bot.library import Library
from bot.model import TeamRef
from bot.storage import StorageError, Store
from bot.teampacks import Added, TeamPacks

if TYPE_CHECKING:
    from adapters.cli import Subcommands

PLATFORMS = ("slack", "discord", "console")  # console: the terminal's games, team `local`
IMPORT_FORMATS = ("gift", "aiken", "csv")
DB_HELP = "SQLite file or postgresql:// URL (default: $ZEROQUIZ_DB or a per-user data dir)"


def add_parsers(sub: Subcommands) -> None:
    pack = sub.add_parser("pack", help="a team's question packs in the database")
    actions = pack.add_subparsers(dest="action", required=True)
    for name, what in (
        ("add", "add a pack from a YAML file (a new version if the name exists)"),
        ("import", "add a pack from a GIFT, Aiken or Kahoot CSV file"),
        ("list", "list the team's packs"),
        ("remove", "stop asking a pack's questions"),
        ("export", "print a pack's YAML"),
    ):
        one = actions.add_parser(name, help=what)
        if name == "add":
            one.add_argument("file", metavar="FILE", help="the pack, a question file; - is stdin")
            one.add_argument("--name", help="the pack's name (default: its `name:`, or the file's)")
        elif name == "import":
            one.add_argument("file", metavar="FILE", help="a .gift, .txt (GIFT or Aiken) or .csv")
            one.add_argument("--name", help="the pack's name (default: the file's)")
            one.add_argument(
                "--lang", choices=("en", "id"), default="en",
                help="the language the file is written in (default: en)",
            )  # fmt: skip
            one.add_argument(
                "--format", choices=IMPORT_FORMATS,
                help="default: guessed from the extension (and a .txt's text)",
            )  # fmt: skip
        elif name != "list":
            one.add_argument("name", metavar="NAME")
        one.add_argument("--db", help=DB_HELP)
        one.add_argument("--platform", required=True, choices=PLATFORMS)
        one.add_argument("--team", required=True, help="the Slack team or Discord server id")


def _read(file: str) -> tuple[str, str] | None:
    """(text, label): the label is what problems are named by, as validate names the file."""
    try:
        if file == "-":
            return sys.stdin.buffer.read().decode("utf-8", errors="surrogateescape"), "<stdin>"
        return Path(file).read_bytes().decode("utf-8", errors="surrogateescape"), file
    except OSError as exc:
        print(f"{file}: cannot read file: {exc.strerror or exc}", file=sys.stderr)
        return None


async def cmd_pack(args: argparse.Namespace) -> int:
    reads = args.action in ("add", "import")
    read = _read(args.file) if reads else None
    if reads and read is None:
        return 1
    path = database_path(args.db)
    try:
        store = await Store.open(path, create_parent=is_default_location(path))
    except StorageError as exc:
        print(f"zeroquiz: {exc}", file=sys.stderr)
        return storage_exit(exc)
    team = TeamRef(args.platform, args.team)
    packs = TeamPacks(store, Library(store, Bank()), SystemClock())
    try:
        if read is not None and args.action == "import":
            return await _import(packs, team, read, args)
        if read is not None:
            return await _add(packs, team, read, args)
        if args.action == "list":
            for p in await store.packs.list(team):
                print(f"{p.name}\tversion {p.version}\t{p.questions} question(s)")
            return 0
        if args.action == "remove":
            if await packs.remove(team, args.name):
                print(f"pack {args.name} removed: its questions are no longer asked")
                return 0
            print(f"zeroquiz: {args.platform} team {args.team} has no pack {args.name}",
                  file=sys.stderr)  # fmt: skip
            return 1
        body = await packs.export(team, args.name)
        if body is None:
            print(f"zeroquiz: {args.platform} team {args.team} has no pack {args.name}",
                  file=sys.stderr)  # fmt: skip
            return 1
        sys.stdout.write(body if body.endswith("\n") else body + "\n")
        return 0
    finally:
        await store.close()


async def _add(
    packs: TeamPacks, team: TeamRef, read: tuple[str, str], args: argparse.Namespace
) -> int:
    text, label = read
    default = None if label == "<stdin>" else Path(label).stem.lower()
    added = await packs.add(
        team, text, label=label, name=args.name, default_name=default, by="terminal", lang="en"
    )
    return _said(added)


async def _import(
    packs: TeamPacks, team: TeamRef, read: tuple[str, str], args: argparse.Namespace
) -> int:
    text, label = read
    added = await packs.import_file(
        team, text, label=label, fmt=args.format, name=args.name, by="terminal", lang="en",
        pack_lang=args.lang,
    )  # fmt: skip
    return _said(added)


def _said(added: Added) -> int:
    """What the terminal prints of an add or an import: problems on stderr (exit 1), or the
    notice and what an import left out."""
    if added.problems:
        for problem in added.problems:
            print(problem, file=sys.stderr)
        print(f"{len(added.problems)} problem(s) found", file=sys.stderr)
        return 1
    if not added.stored:
        print(f"zeroquiz: {added.notice.text}", file=sys.stderr)
        return 1
    print(added.notice.text)
    for line in added.skipped:
        print(line)
    return 0
