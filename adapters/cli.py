"""The `zeroquiz` command: the composition root that wires the core to a surface."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
from collections.abc import Sequence
from typing import Any, Protocol

from adapters.exitcodes import EX_CONFIG, EX_PIPE, EX_USAGE, storage_exit
from bot import __version__
from bot.app import build_quiz
from bot.bank import BankError
from bot.clock import SystemClock
from bot.config import cache_dir, database_path, is_default_location
from bot.i18n import t
from bot.model import LANGS
from bot.runs import MAX_RUN
from bot.storage import StorageError, Store
from bot.topics import parse_level

DB_HELP = "SQLite file or postgresql:// URL (default: $ZEROQUIZ_DB or a per-user data dir)"
QUESTIONS_HELP = "question files or folders, added to the bundled ones (as in serve)"
NO_BUNDLED_HELP = "only the --questions files, without the bundled bank (as in serve)"


class Subcommands(Protocol):
    """What `add_subparsers()` returns, as the command modules use it (argparse names its class
    only privately)."""

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser: ...


def serve_options(serve: argparse.ArgumentParser) -> None:
    """`serve`'s options, which `check` takes too: it answers for `serve` with the same ones."""
    serve.add_argument("--db", help=DB_HELP)
    serve.add_argument("--host", help="HTTP host for Slack's HTTP mode ($ZEROQUIZ_HTTP_HOST)")
    serve.add_argument(
        "--port", type=int, help="HTTP port for Slack's HTTP mode ($ZEROQUIZ_HTTP_PORT)"
    )
    serve.add_argument(
        "--log-level", default="INFO", type=str.upper, choices=["DEBUG", "INFO", "WARNING"],
        help="DEBUG, INFO (default) or WARNING, in any case",
    )  # fmt: skip
    serve.add_argument(
        "--questions", nargs="+", metavar="PATH", help="the team's question files or folders, "
        "added to the bundled ones ($ZEROQUIZ_QUESTIONS, joined with ':')",
    )  # fmt: skip
    serve.add_argument(
        "--no-bundled", action="store_true",
        help="serve only the --questions files ($ZEROQUIZ_NO_BUNDLED=1)",
    )  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="zeroquiz", description="A quiz bot that teaches ZeRO.")
    # bot.__version__ is also pyproject's version (dynamic), so it is what pip installed.
    parser.add_argument(
        "--version", action="version", version=f"zeroquiz {__version__}",
        help="show the version and exit",
    )  # fmt: skip
    sub = parser.add_subparsers(dest="command")  # none: the help, as `zeroquiz help`

    play = sub.add_parser("play", help="play in the terminal (no account needed)")
    play.add_argument("--lang", choices=LANGS, default="en")
    play.add_argument(
        "--count", type=int, default=8, help=f"questions to play, 1 to {MAX_RUN} (default 8)"
    )
    play.add_argument("--player", default="you", help="your name on the local leaderboard")
    play.add_argument("--topic", help="only questions with this tag (offload, zeropp, ...)")
    play.add_argument(
        "--level",
        help="only questions of this difficulty: 1-3, easy/medium/hard, mudah/sedang/sulit",
    )
    play.add_argument("--db", help=DB_HELP)
    play.add_argument("--questions", nargs="+", metavar="PATH", help=QUESTIONS_HELP)
    play.add_argument("--no-bundled", action="store_true", help=NO_BUNDLED_HELP)

    for name, what in (
        ("review", "review your due cards in the terminal"),
        ("drill", "practise the questions you missed (up to 10), in the terminal"),
    ):
        review = sub.add_parser(name, help=what)
        review.add_argument("--lang", choices=LANGS, default="en")
        review.add_argument("--player", default="you", help="whose cards (as in `zeroquiz play`)")
        review.add_argument("--topic", help="only cards of this tag (offload, zeropp, ...)")
        review.add_argument("--level", help="only cards of this difficulty (as in `zeroquiz play`)")
        review.add_argument("--db", help=DB_HELP)
        review.add_argument("--questions", nargs="+", metavar="PATH", help=QUESTIONS_HELP)
        review.add_argument("--no-bundled", action="store_true", help=NO_BUNDLED_HELP)

    serve_options(
        sub.add_parser("serve", help="run every chat adapter configured in the environment")
    )
    serve_options(
        sub.add_parser(
            "check",
            aliases=["config"],
            help="print the settings serve would run with, and where each came from; "
            "exit 78 (75) on what serve would refuse",
        )
    )

    validate = sub.add_parser(
        "validate", help="check question files as serve will load them; exit 1 on any problem"
    )
    validate.add_argument(
        "paths", nargs="*", metavar="PATH",
        help="files or folders, checked with the bundled bank as serve adds them; - is stdin "
        "(default: $ZEROQUIZ_QUESTIONS, as serve)",
    )  # fmt: skip
    validate.add_argument(
        "--no-bundled", action="store_true",
        help="check the files alone, as `serve --no-bundled` loads them ($ZEROQUIZ_NO_BUNDLED=1)",
    )  # fmt: skip

    export = sub.add_parser("export", help="print the question bank as JSON or as a question file")
    export.add_argument("paths", nargs="*", metavar="PATH")
    export.add_argument(
        "--format", choices=("json", "yaml"), default="json",
        help="json: the questions as data for other tools (default); yaml: a question file "
        "with the questions and the templates, which `zeroquiz validate` and serve read",
    )  # fmt: skip

    copy = sub.add_parser("copy", help="copy a database into an empty one (e.g. into PostgreSQL)")
    copy.add_argument("source", metavar="FROM", help="a SQLite file or a postgresql:// URL")
    copy.add_argument("target", metavar="TO", help="where to copy it; must hold no ZeroQuiz data")

    from adapters.backupcmd import add_parsers as add_backup_parsers
    from adapters.packcmd import add_parsers as add_pack_parsers

    add_backup_parsers(sub)
    add_pack_parsers(sub)

    from adapters.insightscmd import add_parser as add_insights_parser

    add_insights_parser(sub)
    from adapters.resultscmd import add_parser as add_results_parser

    add_results_parser(sub)

    invite = sub.add_parser("discord-invite", help="print the URL that adds the bot to a server")
    invite.add_argument("--app-id", help="the application ID ($DISCORD_APPLICATION_ID)")

    helps = sub.add_parser("help", help="print this help, or one command's (zeroquiz help play)")
    helps.add_argument("about", nargs="?", metavar="COMMAND", help="one command (play, serve, ...)")
    return parser


def cmd_validate(paths: Sequence[str], no_bundled: bool = False) -> int:
    """Every problem of the files (`-`: the file piped on stdin), or a one-line summary: what
    `serve` with the same files and options would load (adapters/questions.py)."""
    from adapters.errors import ConfigError
    from adapters.questions import serve_bank

    try:
        bank = serve_bank(paths or None, no_bundled, os.environ, stdin=sys.stdin.buffer)
    except ConfigError as exc:
        print(f"zeroquiz: {exc}", file=sys.stderr)
        return EX_USAGE
    except BankError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        print(f"{len(exc.problems)} problem(s) found", file=sys.stderr)
        return 1
    origins = [*(q.origin for q in bank.questions), *(t.origin for t in bank.templates)]
    files = len({origin.rsplit(":", 1)[0] for origin in origins})
    templates = f" and {len(bank.templates)} templates" if bank.templates else ""
    print(f"OK: {len(bank)} questions{templates} in {files} file(s), all valid")
    return 0


def cmd_export(paths: Sequence[str], form: str = "json") -> int:
    from bot.bank import load_bank
    from bot.export import bank_to_data, bank_to_yaml

    try:
        bank = load_bank(paths or None)
    except BankError as exc:
        print(exc, file=sys.stderr)
        return 1
    if form == "yaml":
        sys.stdout.write(bank_to_yaml(bank))
        return 0
    json.dump(bank_to_data(bank), sys.stdout, ensure_ascii=False, indent=2)
    print()
    return 0


async def cmd_play(args: argparse.Namespace) -> int:
    from adapters.console.play import play
    from adapters.console.review import review
    from adapters.console.surface import WINDOW, stdin_reader
    from adapters.errors import ConfigError
    from adapters.questions import serve_bank

    try:  # the bank serve would load: the flags, else ZEROQUIZ_QUESTIONS and ZEROQUIZ_NO_BUNDLED
        bank = serve_bank(args.questions, args.no_bundled, os.environ, cache=cache_dir())
    except ConfigError as exc:
        print(f"zeroquiz: {exc}", file=sys.stderr)
        return EX_USAGE
    except BankError as exc:
        print(exc, file=sys.stderr)
        return 1
    path = database_path(args.db)
    try:
        store = await Store.open(path, create_parent=is_default_location(path))
    except StorageError as exc:
        print(f"zeroquiz: {exc}", file=sys.stderr)
        return storage_exit(exc)
    try:
        quiz = build_quiz(store, bank, SystemClock(), random.Random(), default_window=WINDOW)
        if args.command in ("review", "drill"):
            return await review(
                quiz,
                lang=args.lang,
                player=args.player,
                words=tuple(w for w in (args.topic, args.level) if w),
                read_line=stdin_reader(sys.stdin),
                out=sys.stdout,
                err=sys.stderr,
                echo=not sys.stdin.isatty(),
                command=args.command,
            )
        return await play(
            quiz,
            lang=args.lang,
            count=args.count,
            player=args.player,
            words=tuple(w for w in (args.topic, args.level) if w),
            read_line=stdin_reader(sys.stdin),
            out=sys.stdout,
            err=sys.stderr,
            echo=not sys.stdin.isatty(),
        )
    finally:
        await store.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command in (None, "help"):  # what a new operator types first: show them the way
        if getattr(args, "about", None):
            parser.parse_args([args.about, "--help"])  # prints that command's help, exits 0
        parser.print_help()
        return 0
    try:
        if args.command == "validate":
            return cmd_validate(args.paths, args.no_bundled)
        if args.command == "export":
            return cmd_export(args.paths, args.format)
        if args.command == "play" and not 1 <= args.count <= MAX_RUN:
            # The same range as `/zeroquiz start N` in chat; refused before the database opens.
            print(
                f"zeroquiz: --count must be from 1 to {MAX_RUN}, not {args.count}", file=sys.stderr
            )
            return EX_USAGE
        if (
            args.command in ("play", "review", "drill")
            and args.level
            and parse_level(args.level) is None
        ):
            # `--level` can only be a level: "no topic 7" would send the reader the wrong way.
            print(t(args.lang, "level_unknown", word=args.level), file=sys.stderr)
            return 1
        if args.command in ("play", "review", "drill"):
            return asyncio.run(cmd_play(args))
        if args.command == "copy":
            from adapters.copycmd import cmd_copy

            return asyncio.run(cmd_copy(args.source, args.target))
        if args.command in ("backup", "restore"):
            from adapters import backupcmd

            if args.command == "backup":
                return asyncio.run(backupcmd.cmd_backup(args.db, args.path))
            return asyncio.run(backupcmd.cmd_restore(args.backup, args.target, args.replace))
        if args.command == "results":
            from adapters.resultscmd import cmd_results

            return asyncio.run(cmd_results(args))
        if args.command == "insights":
            from adapters.insightscmd import cmd_insights

            return asyncio.run(cmd_insights(args))
        if args.command == "pack":
            from adapters.packcmd import cmd_pack

            return asyncio.run(cmd_pack(args))
        if args.command == "discord-invite":
            from adapters.discord.invite import cmd_invite

            return cmd_invite(args.app_id)
        if args.command in ("check", "config"):
            from adapters.checkcmd import cmd_check

            return asyncio.run(cmd_check(args))
        if args.command == "serve":
            from adapters.logs import setup_logging
            from adapters.serve import serve

            try:
                setup_logging(args.log_level, os.environ)
            except ValueError as exc:
                print(f"zeroquiz: {exc}", file=sys.stderr)
                return EX_CONFIG
            return asyncio.run(
                serve(
                    args.db,
                    args.host,
                    args.port,
                    questions=args.questions,
                    no_bundled=args.no_bundled,
                )
            )
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return _reader_gone()
    return 2


def _reader_gone() -> int:
    """The reader of stdout closed it (`zeroquiz export | head`): stop quietly, as a program
    SIGPIPE stops would. Stdout goes to /dev/null so the interpreter's last flush can't fail."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EX_PIPE


if __name__ == "__main__":
    sys.exit(main())
