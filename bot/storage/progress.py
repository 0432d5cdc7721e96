"""How long storage work says how far it has got: a callback the caller (a CLI command, `serve`'s
log) turns into a progress bar or log lines. Storage only counts; it never prints.

A report is (what, done, total): `what` a few words ("copying answers", "upgrading the schema"),
`done` and `total` in the same unit (rows, pages, steps); `done == total` ends that piece of work.
A report of `done == 0` says a piece whose first unit may take long (a migration step) has begun.
"""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[str, int, int], None]


def silent(what: str, done: int, total: int) -> None:
    """The default: nobody is watching (tests, the library used directly)."""
