"""Which question bank `zeroquiz serve` uses: the bundled one, the team's own files, or both.

The team's files come from `serve --questions PATH…` or, when no flag is given, from
$ZEROQUIZ_QUESTIONS (paths joined by the OS path separator, `:` on Linux). They are added to the
bundled bank unless `--no-bundled` or ZEROQUIZ_NO_BUNDLED=1 asks for them alone. Everything is
loaded through load_bank, so start-up reports exactly what `zeroquiz validate` would, ids unique
across bundled and custom files included.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

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
    flag_paths: Sequence[str] | None, flag_no_bundled: bool, env: Mapping[str, str]
) -> Bank:
    """The bank to serve; BankError lists every file:line problem, ConfigError a bad setting."""
    custom = custom_paths(flag_paths, env)
    if no_bundled(flag_no_bundled, env):
        if not custom:
            raise ConfigError(
                "--no-bundled (ZEROQUIZ_NO_BUNDLED) needs question files: "
                "pass --questions PATH… or set ZEROQUIZ_QUESTIONS"
            )
        return load_bank(custom)
    if not custom:
        return load_bank()
    paths: list[str | Path] = [*bundled_paths(), *custom]
    return load_bank(paths)
