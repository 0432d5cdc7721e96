"""Which question bank `zeroquiz serve`, `validate`, `play` and `review` use: the bundled one,
the team's own files, or both.

The team's files are added to the bundled bank unless `--no-bundled` asks for them alone, the
same for every command. `serve` and `validate` also read $ZEROQUIZ_QUESTIONS (paths joined by the
OS path separator, `:` on Linux) and ZEROQUIZ_NO_BUNDLED=1 when no flag is given, so
`zeroquiz validate` checks exactly what `serve` would load, ids unique across bundled and custom
files included. (A team's packs in the database have ids of their own: bot/bank/packs.py.)
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import BinaryIO

from adapters.runtime import ConfigError
from bot.bank import Bank, bundled_paths, load_bank

TRUE = frozenset({"1", "true", "yes", "on"})


def custom_paths(flag: Sequence[str] | None, env: Mapping[str, str]) -> list[str]:
    """The team's question files and folders: the flag's if given, else the variable's."""
    if flag:
        return list(flag)
    joined = env.get("ZEROQUIZ_QUESTIONS", "")
    return [p for p in joined.split(os.pathsep) if p.strip()]


def no_bundled(flag: bool, env: Mapping[str, str]) -> bool:
    return flag or env.get("ZEROQUIZ_NO_BUNDLED", "").strip().lower() in TRUE


def serve_bank(
    flag_paths: Sequence[str] | None,
    flag_no_bundled: bool,
    env: Mapping[str, str],
    *,
    stdin: BinaryIO | None = None,
) -> Bank:
    """The bank to serve; BankError lists every file:line problem, ConfigError a bad setting."""
    custom = custom_paths(flag_paths, env)
    if no_bundled(flag_no_bundled, env) and not custom:
        raise ConfigError(
            "--no-bundled (ZEROQUIZ_NO_BUNDLED) needs question files: "
            "pass --questions PATH… or set ZEROQUIZ_QUESTIONS"
        )
    return chosen_bank(custom, no_bundled(flag_no_bundled, env), stdin=stdin)


def chosen_bank(
    paths: Sequence[str] | None, only_these: bool, *, stdin: BinaryIO | None = None
) -> Bank:
    """The bundled bank plus `paths`, or `paths` alone (`--no-bundled`); ConfigError when
    `--no-bundled` is given without files."""
    if only_these and not paths:
        raise ConfigError("--no-bundled needs question files: pass --questions PATH…")
    if only_these:
        return load_bank(paths, stdin=stdin)
    if not paths:
        return load_bank()
    every: list[str | Path] = [*bundled_paths(), *paths]
    return load_bank(every, stdin=stdin)
