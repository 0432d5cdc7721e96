"""Where the database file goes, checked before SQLite touches it.

SQLite itself would find most of these faults too, but later and worse: a file of random bytes
only fails at the first statement, a read-only file opens silently read-only and fails at the
first answer, and by then WAL mode may have created `-wal` and `-shm` files beside something
that was never a database. These checks only look (stat, access, the 16-byte header), so a file
that is refused is left exactly as it was.

A missing directory is created only when the caller says the location is ZeroQuiz's own (the
per-user data directory): a typo in an operator's path must not start an empty leaderboard in a
freshly made directory.

What ZeroQuiz creates is its user's alone, whatever the umask: files 0600 (SQLite gives the
`-wal`, `-shm` and `-journal` files the database file's mode), directories 0700. A file or
directory that already exists keeps the mode its owner gave it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from bot.storage.errors import DatabaseUnusable, one_line

SQLITE_HEADER = b"SQLite format 3\x00"
_WRITE_DIR = os.W_OK | os.X_OK  # create and delete files in it: the -wal and -shm files
PRIVATE_FILE = 0o600
PRIVATE_DIR = 0o700


def create_private(path: Path) -> None:
    """Create `path` empty with mode 0600 unless it exists (an empty file is a new SQLite
    database), so SQLite never creates it with the umask's wider mode."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
    except FileExistsError:
        return
    try:
        os.fchmod(fd, PRIVATE_FILE)  # a umask could have taken bits away; never added any
    finally:
        os.close(fd)


def check_place(path: Path, *, create_parent: bool = False) -> None:
    """Refuse a path that can't hold a writable SQLite database; create ZeroQuiz's own
    directory when `create_parent` says the location is the default one."""
    shown = str(path)
    try:
        info = path.stat()
    except FileNotFoundError:
        _check_new(path, create_parent=create_parent)
        return
    except NotADirectoryError:
        raise DatabaseUnusable(shown, f"cannot be created: {_not_a_directory(path)}") from None
    except OSError as exc:
        raise DatabaseUnusable(shown, f"cannot be reached ({exc.strerror})") from None
    if stat.S_ISDIR(info.st_mode):
        raise DatabaseUnusable(
            shown, "is a directory, not a file: give the path of a database file inside it"
        )
    if not stat.S_ISREG(info.st_mode):
        raise DatabaseUnusable(shown, "is not a regular file")
    if not os.access(path, os.R_OK):
        raise DatabaseUnusable(shown, "cannot be read (permission denied)")
    if not os.access(path, os.W_OK):
        raise DatabaseUnusable(shown, "is read-only: ZeroQuiz must be able to write to it")
    folder = path.parent
    if not os.access(folder, _WRITE_DIR):
        raise DatabaseUnusable(
            shown,
            f"is in the read-only directory {one_line(str(folder))}: SQLite writes its -wal "
            "and -shm files beside the database, so the directory must be writable too",
        )
    if info.st_size and header(path) != SQLITE_HEADER:
        raise DatabaseUnusable(
            shown, "is not a SQLite database: give the path of a ZeroQuiz database or a new file"
        )


def _check_new(path: Path, *, create_parent: bool) -> None:
    shown = str(path)
    folder = path.parent
    if not folder.exists():
        blocker = _not_a_directory(path)
        if blocker:
            raise DatabaseUnusable(shown, f"cannot be created: {blocker}")
        if not create_parent:
            raise DatabaseUnusable(
                shown,
                f"cannot be created: directory {one_line(str(folder))} does not exist "
                "(ZeroQuiz creates only its default directory)",
            )
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR)
            folder.chmod(PRIVATE_DIR)
        except OSError as exc:
            raise DatabaseUnusable(
                shown, f"cannot be created: directory {one_line(str(folder))}: {exc.strerror}"
            ) from None
    if not folder.is_dir():
        raise DatabaseUnusable(
            shown, f"cannot be created: {one_line(str(folder))} is not a directory"
        )
    if not os.access(folder, _WRITE_DIR):
        raise DatabaseUnusable(
            shown, f"cannot be created: directory {one_line(str(folder))} is not writable"
        )


def _not_a_directory(path: Path) -> str:
    """The nearest existing ancestor of `path` if it is not a directory ('' if it is one)."""
    for ancestor in path.parents:
        if ancestor.exists():
            return "" if ancestor.is_dir() else f"{one_line(str(ancestor))} is not a directory"
    return ""


def header(path: Path) -> bytes:
    try:
        with path.open("rb") as file:
            return file.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise DatabaseUnusable(str(path), f"cannot be read ({exc.strerror})") from None
