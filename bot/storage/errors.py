"""Why a database can't be used, as typed errors the composition root turns into one line.

```
StorageError
└── DatabaseUnusable(path, problem)   this file can't serve as ZeroQuiz's database as it is
    ├── DatabaseTooNewError           written by a newer ZeroQuiz
    └── DatabaseUnreachable           the server did not answer: trying again later may work
        └── DatabaseTimeout           ...within its timeout (a statement, a connection)
```

The message is built from the path and the problem only, never from a connection string (a
later backend takes URLs that carry passwords), and it is always one line.
"""

from __future__ import annotations


class StorageError(Exception):
    """The database can't be opened or used; restarting with the same settings won't help."""


class DatabaseUnusable(StorageError):
    def __init__(self, path: str, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(f"database {one_line(path)} {problem}")


class DatabaseTooNewError(DatabaseUnusable):
    pass


class DatabaseUnreachable(DatabaseUnusable):
    """A database server that could not be reached at start-up: transient, unlike the others."""


class DatabaseTimeout(DatabaseUnreachable):
    """A statement, or a connection (new or from the pool), not had within its timeout
    (engine.DbTimeouts): the server is slow, locked or gone. `call` ("statement" or
    "connection") is what the metrics count it by."""

    def __init__(self, path: str, call: str, seconds: float) -> None:
        self.call = call
        self.seconds = seconds
        what = "a statement" if call == "statement" else "with a connection"
        super().__init__(path, f"did not answer {what} within {seconds:g} s")


def one_line(text: str) -> str:
    """`text` with control characters escaped, so a path can't break the one-line message."""
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)
