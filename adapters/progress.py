"""Progress of long storage work (copy, backup, restore, a schema upgrade) for the person waiting.

On a terminal, a bar redrawn in place on stderr; anywhere else (a pipe, a file, a journal), a
line each time a piece of work passes another tenth, with its counts, so a log shows the work
moving and how far it got. The storage layer only reports (bot/storage/progress.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TextIO

BAR = 30


def percent(done: int, total: int) -> int:
    return 100 if total <= 0 else min(100, done * 100 // total)


class Lines:
    """A line per tenth passed: `what: done/total (pct%)`, handed to `emit`; and the start of a
    piece reported as such (done 0: a schema upgrade, whose first step may take seconds)."""

    def __init__(self, emit: Callable[[str], None]) -> None:
        self.emit = emit
        self._tenths: dict[str, int] = {}

    def __call__(self, what: str, done: int, total: int) -> None:
        if total <= 0:
            return
        tenth = min(10, done * 10 // total)
        started = done == 0 and what not in self._tenths
        if done < total and tenth <= self._tenths.get(what, 0) and not started:
            return
        self._tenths[what] = 10 if done >= total else tenth
        self.emit(f"{what}: {done}/{total} ({percent(done, total)}%)")
        if done >= total:
            del self._tenths[what]  # the same words may start a new piece of work later


class Bar:
    """A bar redrawn in place on a terminal, ended with a newline when the piece is done."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self._shown: tuple[str, int] | None = None

    def __call__(self, what: str, done: int, total: int) -> None:
        if total <= 0:
            return
        pct = percent(done, total)
        if self._shown == (what, pct) and done < total:
            return
        self._shown = (what, pct)
        filled = BAR * pct // 100
        bar = "#" * filled + "-" * (BAR - filled)
        end = "\n" if done >= total else ""
        self.stream.write(f"\r\x1b[K{what}: [{bar}] {pct:3d}% {done}/{total}{end}")
        self.stream.flush()
        if done >= total:
            self._shown = None


def for_stream(stream: TextIO) -> Callable[[str, int, int], None]:
    """The bar on a terminal, else `zeroquiz: …` lines, on `stream` (stderr: stdout stays the
    command's result)."""
    isatty = getattr(stream, "isatty", None)
    if isatty is not None and isatty():
        return Bar(stream)

    def emit(line: str) -> None:
        print(f"zeroquiz: {line}", file=stream, flush=True)

    return Lines(emit)


def for_log(log: logging.Logger) -> Callable[[str, int, int], None]:
    """`serve`'s: lines at INFO in its log, in the log's format (text or JSON)."""
    return Lines(log.info)
