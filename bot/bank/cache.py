"""The checked bank kept between starts, so a start need not compose and check the YAML again.

Composing the YAML (pure-Python PyYAML, so that every problem names its line) is most of a start's
time. The bank of a set of files is a pure function of their bytes, their names (a question's
origin names its file) and the code that checks them, so the cache file is named by a digest of
all three: a changed file, a renamed one, a new PyYAML or a new version of the checker is a miss,
and a miss is the full check (`load_bank`), whose bank is then written for the next start. A bank
with problems is never cached: each start reports them again, exactly as before.

The file is a pickle of the bank's values. It is read only when it is a regular file owned by this
user with mode 0600, in a folder of this user's that no one else may write: whoever could write it
could already run code as this user. Anything else wrong with it (missing, truncated, garbage,
written by another version) is a miss, never an error; a cache that cannot be written costs only
the next start's time. `zeroquiz validate` never reads it: it checks everything, every time.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import pickle
import stat
import sys
from collections.abc import Sequence
from importlib.util import find_spec
from pathlib import Path

from bot.bank import limits
from bot.bank.bank import Bank, Problem, bundled_paths, expand_paths
from bot.bank.templates import Template
from bot.model import Question

FORMAT = b"zeroquiz bank cache 1"
KEEP = 8  # banks kept (a team may switch between a few sets of files); the oldest go first
PREFIX = "bank-"
SUFFIX = ".pickle"


def cached_bank(paths: Sequence[str | Path] | None, cache_dir: Path) -> Bank:
    """`load_bank(paths)`, taken from `cache_dir` when these very bytes were checked before by
    this very code; BankError as `load_bank` raises it."""
    named = read_files(paths)
    if named is None:  # a file or folder that can't be read, or too large: reported as always
        from bot.bank.loader import load_bank

        return load_bank(paths)
    key = digest(named)
    where = cache_dir / f"{PREFIX}{key[:32]}{SUFFIX}"
    bank = read_cache(where, key)
    if bank is not None:
        return bank
    from bot.bank.loader import check_files

    bank = check_files([(name, io.BytesIO(data)) for name, data in named], [])
    write_cache(where, key, bank)
    return bank


def read_files(paths: Sequence[str | Path] | None) -> list[tuple[str, bytes]] | None:
    """Each file's name (as `load_bank` names it) and bytes; None when `load_bank` would report a
    problem before checking any YAML (an unreadable folder or file, a file over the limit)."""
    problems: list[Problem] = []
    files = bundled_paths() if paths is None else expand_paths(paths, problems)
    if problems or not files:
        return None
    named: list[tuple[str, bytes]] = []
    for path in files:
        try:
            with open(path, "rb") as fh:
                data = fh.read(limits.MAX_FILE_BYTES + 1)
        except OSError:
            return None
        if len(data) > limits.MAX_FILE_BYTES:
            return None
        named.append((str(path), data))
    return named


def code_digest() -> bytes:
    """What the checked bank depends on besides the files: the bank's and the model's code, the
    pickle's Python and PyYAML (its __init__ names its version)."""
    h = hashlib.sha256(FORMAT)
    h.update(sys.version.encode())
    bank_dir = Path(__file__).parent
    code = sorted(bank_dir.glob("*.py"))
    code += [bank_dir.parent / "model.py", bank_dir.parent / "shuffle.py"]
    spec = find_spec("yaml")
    if spec is not None and spec.origin is not None:
        code.append(Path(spec.origin))
    for path in code:
        h.update(path.name.encode())
        try:
            h.update(hashlib.sha256(path.read_bytes()).digest())
        except OSError:
            h.update(b"unreadable")
    return h.digest()


def digest(named: Sequence[tuple[str, bytes]]) -> str:
    h = hashlib.sha256(code_digest())
    for name, data in named:
        encoded = name.encode("utf-8", "surrogateescape")
        h.update(len(encoded).to_bytes(8, "big") + encoded)
        h.update(len(data).to_bytes(8, "big") + hashlib.sha256(data).digest())
    return h.hexdigest()


def _private(info: os.stat_result, *, folder: bool) -> bool:
    """Owned by this user; a folder no one else may write, a file no one else may read."""
    if info.st_uid != os.geteuid():
        return False
    return not info.st_mode & (0o022 if folder else 0o077)


def read_cache(where: Path, key: str) -> Bank | None:
    """The bank stored under `key`, or None for any miss (see the module's docstring)."""
    try:
        if not _private(os.stat(where.parent), folder=True):
            return None
        fd = os.open(where, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode) or not _private(info, folder=False):
            return None
        try:
            data = fh.read()
        except OSError:
            return None
    try:
        payload = pickle.loads(data)
    except Exception:  # truncated or garbage: whatever unpickling raises is a miss
        return None
    if not (isinstance(payload, tuple) and len(payload) == 4):
        return None
    form, stored_key, questions, templates = payload
    if form != FORMAT or stored_key != key:
        return None
    if not (isinstance(questions, list) and isinstance(templates, list)):
        return None
    if not all(isinstance(q, Question) for q in questions):
        return None
    if not all(isinstance(t, Template) for t in templates):
        return None
    return Bank(questions, templates)


def write_cache(where: Path, key: str, bank: Bank) -> None:
    """Store the bank (0600, written aside then renamed into place); keep the KEEP newest."""
    payload = pickle.dumps((FORMAT, key, bank.questions, bank.templates), pickle.HIGHEST_PROTOCOL)
    temporary = where.with_name(f".{where.name}.{os.getpid()}.tmp")
    try:
        where.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
        os.replace(temporary, where)
        _prune(where.parent)
    except OSError:  # a read-only or full disk: the next start checks the files again
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)


def _prune(folder: Path) -> None:
    kept = sorted(folder.glob(f"{PREFIX}*{SUFFIX}"), key=_age, reverse=True)
    for old in kept[KEEP:]:
        old.unlink(missing_ok=True)


def _age(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
