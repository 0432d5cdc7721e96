"""Architecture rules that a user never sees but every later change relies on."""

from __future__ import annotations

import re
import string
import subprocess
import sys
from pathlib import Path
from typing import SupportsInt, cast

import pytest

from bot.i18n import en, id
from bot.storage import DatabaseTooNewError, Store

ROOT = Path(__file__).resolve().parents[2]


def test_core_imports_no_platform_library() -> None:
    code = (
        "import sys, pkgutil, importlib, bot\n"
        "for m in pkgutil.walk_packages(bot.__path__, 'bot.'):\n"
        "    importlib.import_module(m.name)\n"
        "platforms = ('discord', 'slack_bolt', 'slack_sdk')\n"
        "bad = [n for n in sys.modules if n.split('.')[0] in platforms]\n"
        "print(bad)\n"
        "sys.exit(1 if bad else 0)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    for path in (ROOT / "bot").rglob("*.py"):
        assert not re.search(
            r"^\s*(import|from)\s+(discord|slack_bolt|slack_sdk)\b", path.read_text(), re.M
        ), path


def test_sql_lives_only_in_storage() -> None:
    """The core and the adapters call the Store by name: no driver, connection or SQL text."""
    driver = re.compile(r"^\s*(import|from)\s+(sqlite3|aiosqlite|asyncpg)\b", re.M)
    internals = re.compile(
        r"^\s*from\s+bot\.storage\.(engine|answers|totals|migrations|schema)\b", re.M
    )
    sql = re.compile(r"\b(SELECT\s.+\sFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM)\b")
    for path in [*(ROOT / "bot").rglob("*.py"), *(ROOT / "adapters").rglob("*.py")]:
        if (ROOT / "bot" / "storage") in path.parents:
            continue
        text = path.read_text()
        assert not driver.search(text), path
        assert not internals.search(text), path
        assert not sql.search(text), path


def test_catalogues_have_the_same_keys_and_placeholders() -> None:
    assert en.MESSAGES.keys() == id.MESSAGES.keys()
    fields = string.Formatter()
    for key in en.MESSAGES:
        names_en = {f for _, f, _, _ in fields.parse(en.MESSAGES[key]) if f}
        names_id = {f for _, f, _, _ in fields.parse(id.MESSAGES[key]) if f}
        assert names_en == names_id, key


async def test_database_newer_than_code_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.sqlite3"
    db = await Store.open(path)
    await db.close()
    import sqlite3

    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 999")
    with pytest.raises(DatabaseTooNewError, match="schema version 999"):
        await Store.open(path)


async def test_database_pragmas(tmp_path: Path) -> None:
    db = await Store.open(tmp_path / "p.sqlite3")
    try:
        settings = await db.connection_settings()
    finally:
        await db.close()
    writer, *readers = settings
    assert readers, "reads have connections of their own"
    for conn in settings:
        assert conn["foreign_keys"] == 1
        busy_timeout = cast("SupportsInt | str", conn["busy_timeout"])  # typed object
        assert int(busy_timeout) >= 1000
        assert conn["journal_mode"] == "wal"
    assert writer["query_only"] == 0
    assert all(r["query_only"] == 1 for r in readers)  # a reader can never write


@pytest.mark.parametrize(
    "tool",
    [
        ["ruff", "check", "."],
        ["ruff", "format", "--check", "."],
        ["mypy"],
    ],
)
def test_code_quality(tool: list[str]) -> None:
    exe = Path(sys.executable).parent / tool[0]
    result = subprocess.run([str(exe), *tool[1:]], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
