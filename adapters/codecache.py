"""The code of dataclasses' generated methods (and namedtuples'), compiled once and kept.

Python 3.11's dataclasses write each generated method (`__init__`, `__repr__`, `__eq__`, a frozen
class's `__setattr__`, `__delattr__` and `__hash__`) as source text and `exec` it; compiling those
texts was a fifth of the instructions `zeroquiz serve` spends importing (~95 frozen classes on its
path). The text is a pure function of the class, and the same text compiles to the same code, so
this module keeps the code of every text it has seen, keyed by the whole text, in the cache folder
(as a `.pyc` keeps a module's code): a start whose texts were all seen before only unmarshals them.
`collections.namedtuple` compiles its `__new__` the same way (with `eval`; ~100 on serve's path).

How: importing this module gives `dataclasses` its own `exec` and `collections` its own `eval`
(module globals, found before the builtins), which take the code from the cache or compile the text
exactly as `exec(text)` and `eval(text)` would (`<string>`, no inherited `__future__` flags, eval's
leading blanks stripped) and run it with the same globals and locals; so every class is built from
the same code as before, only sooner (tests/console/test_codecache.py compares them). A start's
new texts are written when `save` is called (`serve` once it is ready) and at exit.

Trust and failure as in bot/bank/cache.py: the file is read only when it is a regular file owned by
this user with mode 0600, in a folder of this user's that no one else may write (whoever could write
it could already run code as this user). Anything else wrong with it (missing, truncated, garbage,
written by another Python) is a miss, never an error; a file that cannot be written costs only the
next start's time.
"""

from __future__ import annotations

import atexit
import builtins
import collections
import contextlib
import dataclasses
import marshal
import os
import stat
import sys
from pathlib import Path
from types import CodeType
from typing import Any

from bot.config import cache_dir

FORMAT = b"zeroquiz code cache 2\n" + sys.version.encode() + b"\n"
NAME = f"dataclass-code-{sys.implementation.cache_tag}.marshal"
Key = tuple[str, str]  # ("exec" or "eval", the source text)
KEEP = 4096  # texts kept; past this, a save keeps only what its own process used


class CodeCache:
    """Compiled code by (mode, source text): what the file held, and what this process added."""

    def __init__(self, where: Path, known: dict[Key, CodeType]) -> None:
        self.where = where
        self.known = known
        self.used: set[Key] = set()
        self.added: dict[Key, CodeType] = {}

    def code(self, text: str, mode: str = "exec") -> CodeType:
        """The code of `text` as `exec(text)` (or `eval`) compiles it: cached, else compiled now."""
        key = (mode, text)
        self.used.add(key)
        code = self.known.get(key)
        if code is None:
            code = compile(text, "<string>", mode, dont_inherit=True)
            self.known[key] = self.added[key] = code
        return code

    def exec(self, source: Any, globals: Any = None, locals: Any = None, /, **kw: Any) -> None:
        """`exec` for dataclasses: the same globals and locals, the text's code from the cache."""
        if globals is None:  # exec's own default: the caller's namespace
            frame = sys._getframe(1)
            globals = frame.f_globals
            if locals is None:
                locals = frame.f_locals
        if isinstance(source, str):
            source = self.code(source)
        builtins.exec(source, globals, locals, **kw)

    def eval(self, source: Any, globals: Any = None, locals: Any = None, /) -> Any:
        """`eval` for namedtuple: the same namespaces, the text's code from the cache."""
        if globals is None:
            frame = sys._getframe(1)
            globals = frame.f_globals
            if locals is None:
                locals = frame.f_locals
        if isinstance(source, str):
            source = self.code(source.lstrip(" \t"), "eval")  # as eval strips a string
        return builtins.eval(source, globals, locals)

    def save(self) -> None:
        """Write the texts this process added (0600, written aside then renamed into place)."""
        if not self.added:
            return
        keep = self.known
        if len(keep) > KEEP:
            keep = {key: code for key, code in keep.items() if key in self.used}
        payload = FORMAT + marshal.dumps(keep)
        temporary = self.where.with_name(f".{self.where.name}.{os.getpid()}.tmp")
        try:
            self.where.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(payload)
            os.replace(temporary, self.where)
            self.added = {}
        except OSError:  # a read-only or full disk: the next start compiles again
            with contextlib.suppress(OSError):
                temporary.unlink(missing_ok=True)


def _private(info: os.stat_result, *, folder: bool) -> bool:
    """Owned by this user; a folder no one else may write, a file no one else may read."""
    if info.st_uid != os.geteuid():
        return False
    return not info.st_mode & (0o022 if folder else 0o077)


def read(where: Path) -> dict[Key, CodeType]:
    """The code stored in `where`, or {} for any miss (see the module's docstring)."""
    try:
        if not _private(os.stat(where.parent), folder=True):
            return {}
        fd = os.open(where, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return {}
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode) or not _private(info, folder=False):
            return {}
        try:
            data = fh.read()
        except OSError:
            return {}
    if not data.startswith(FORMAT):
        return {}
    try:
        stored = marshal.loads(data[len(FORMAT) :])
    except Exception:  # truncated or garbage: whatever unmarshalling raises is a miss
        return {}
    if not isinstance(stored, dict):
        return {}
    return {
        (key[0], key[1]): code
        for key, code in stored.items()
        if isinstance(key, tuple)
        and len(key) == 2
        and key[0] in ("exec", "eval")
        and isinstance(key[1], str)
        and isinstance(code, CodeType)
    }


def install(folder: Path) -> CodeCache:
    """Build dataclasses' and namedtuples' methods from the cache in `folder` from now on; the
    cache is saved at exit too."""
    where = folder / NAME
    cache = CodeCache(where, read(where))
    dataclasses.exec = cache.exec  # type: ignore[attr-defined]
    collections.eval = cache.eval  # type: ignore[attr-defined]
    atexit.register(cache.save)
    return cache


CACHE = install(cache_dir())
