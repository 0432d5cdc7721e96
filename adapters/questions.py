"""Which question bank `zeroquiz serve`, `validate`, `play` and `review` use: the bundled one,
the team's own files, or both.

The team's files are added to the bundled bank unless `--no-bundled` asks for them alone, the
same for every command. `serve` and `validate` also read $ZEROQUIZ_QUESTIONS (paths joined by the
OS path separator, `:` on Linux) and ZEROQUIZ_NO_BUNDLED=1 when no flag is given, so
`zeroquiz validate` checks exactly what `serve` would load, ids unique across bundled and custom
files included. (A team's packs in the database have ids of their own: bot/bank/packs.py.)

`serve`, `play` and `review` pass a cache folder: the bank checked at an earlier start from the
very same bytes is taken from it (bot/bank/cache.py). `validate` passes none: it checks it all.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import BinaryIO

from adapters.errors import ConfigError
from bot.bank import Bank, bundled_paths

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
    cache: Path | None = None,
) -> Bank:
    """The bank to serve; BankError lists every file:line problem, ConfigError a bad setting."""
    custom = custom_paths(flag_paths, env)
    if no_bundled(flag_no_bundled, env) and not custom:
        raise ConfigError(
            "--no-bundled (ZEROQUIZ_NO_BUNDLED) needs question files: "
            "pass --questions PATH… or set ZEROQUIZ_QUESTIONS"
        )
    return chosen_bank(custom, no_bundled(flag_no_bundled, env), stdin=stdin, cache=cache)


def without_bundled_copies(paths: Sequence[str | Path]) -> list[str | Path]:
    """The given files, a folder as its YAML files, less those that are bundled files or byte-
    identical copies of them (a clone's `questions/`): those are loaded once, as the bundled
    file, rather than reported as duplicating every id of the bank. An unreadable place is kept
    as given, for the loader to name."""
    bundled = {p.name: p for p in bundled_paths()}
    out: list[str | Path] = []
    for path in paths:
        place = Path(path)
        try:
            if str(path) != "-" and place.is_dir():
                files = sorted(x for x in place.iterdir() if x.suffix in (".yaml", ".yml"))
                out += [f for f in files if not _same(f, bundled.get(f.name))]
            elif str(path) == "-" or not _same(place, bundled.get(place.name)):
                out.append(path)
        except OSError:
            out.append(path)
    return out


def _same(file: Path, bundled: Path | None) -> bool:
    if bundled is None or not file.is_file():
        return False
    return file.resolve() == bundled.resolve() or file.read_bytes() == bundled.read_bytes()


def chosen_bank(
    paths: Sequence[str] | None,
    only_these: bool,
    *,
    stdin: BinaryIO | None = None,
    cache: Path | None = None,
) -> Bank:
    """The bundled bank plus `paths`, or `paths` alone (`--no-bundled`); ConfigError when
    `--no-bundled` is given without files. With `cache`, a bank checked before is reused."""
    if only_these and not paths:
        raise ConfigError("--no-bundled needs question files: pass --questions PATH…")
    every: list[str | Path] | None = None  # the bundled files alone
    if only_these:
        every = list(paths or ())
    elif paths:
        given = without_bundled_copies(paths)
        every = [*bundled_paths(), *given] if given else None
    if cache is not None and stdin is None:
        from bot.bank.cache import cached_bank

        return cached_bank(every, cache)
    from bot.bank import load_bank

    return load_bank(every, stdin=stdin)
