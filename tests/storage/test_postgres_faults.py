"""`ZEROQUIZ_DB=postgresql://…` against the real server the suite starts: a database ZeroQuiz can't
use stops `zeroquiz play` with exit code 78 (75 when the server does not answer) and one line
naming the URL (its password left out) and the problem; the password never appears in anything
it prints. A good URL plays, and another scheme is refused rather than taken for a file name."""

from __future__ import annotations

import subprocess
from pathlib import Path

import asyncpg
import pytest
from pg_server import PgServer
from test_database_faults import zeroquiz

from adapters.exitcodes import EX_CONFIG, EX_TEMPFAIL
from bot.storage import SCHEMA_VERSION, Store


def refused(
    result: subprocess.CompletedProcess[str], secret: str, *words: str, code: int = EX_CONFIG
) -> str:
    """One line, no secret, and the exit status: 78 (a setting is wrong) unless `code` says 75
    (the server did not answer: a restart may work)."""
    out = result.stdout + result.stderr
    assert secret not in out, out
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and result.returncode == code, result.stderr
    assert lines[0].startswith("zeroquiz: database postgresql://zqapp:***@127.0.0.1:"), lines[0]
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def play(url: str) -> subprocess.CompletedProcess[str]:
    return zeroquiz("play", None, ZEROQUIZ_DB=url)


async def test_a_good_url_plays_and_keeps_its_state_in_the_server(
    pg_server: PgServer, pg_url: str
) -> None:
    first = play(pg_url)
    assert first.returncode == 0, first.stderr
    assert "Question" in first.stdout
    conn = await asyncpg.connect(pg_url)
    try:
        assert await conn.fetchval("SELECT COUNT(*) FROM answers") == 1
        assert await conn.fetchval("SELECT version FROM schema_version") == SCHEMA_VERSION
    finally:
        await conn.close()
    assert not list(Path.cwd().glob("postgresql*")), "a file was made from the URL"


async def test_a_wrong_password_is_refused_without_printing_either_password(
    pg_server: PgServer, pg_url: str
) -> None:
    wrong = "not-the-real-one-4711"
    url = pg_url.replace(pg_server.password, wrong)
    line = refused(play(url), wrong, "refused the user name or password")
    assert pg_server.password not in line


@pytest.mark.parametrize("form", ["query", "sslpassword", "empty user"])
async def test_a_password_in_any_url_form_never_reaches_the_line(
    pg_server: PgServer, pg_url: str, form: str
) -> None:
    wrong = "not-the-real-one-4712"
    authority = f"zqapp:{pg_server.password}@"
    url = {
        "query": pg_url.replace(authority, "zqapp@") + f"?password={wrong}",
        "sslpassword": pg_url.replace(pg_server.password, wrong) + f"?sslpassword={wrong}",
        "empty user": pg_url.replace(authority, f":{wrong}@"),
    }[form]
    result = play(url)
    out = result.stdout + result.stderr
    assert wrong not in out and pg_server.password not in out, out
    assert "Traceback" not in result.stderr, result.stderr
    [line] = result.stderr.splitlines()
    assert result.returncode == EX_CONFIG and line.startswith("zeroquiz: database postgresql://")
    assert "***" in line, line


def test_a_server_nobody_runs_and_a_missing_database_are_named(pg_server: PgServer) -> None:
    closed = pg_server.url("zq").replace(f":{pg_server.port}/", ":1/")
    refused(play(closed), pg_server.password, "cannot be reached", code=EX_TEMPFAIL)
    refused(play(pg_server.url("no_such_db")), pg_server.password, "has no such database")


async def test_a_foreign_or_newer_database_is_left_as_it_was(pg_server: PgServer) -> None:
    foreign = pg_server.url(await pg_server.create_database())
    conn = await asyncpg.connect(foreign)
    await conn.execute("CREATE TABLE invoices (id INT)")
    await conn.close()
    refused(play(foreign), pg_server.password, "is not a ZeroQuiz database")
    newer = pg_server.url(await pg_server.create_database())
    store = await Store.open(newer)
    await store.close()
    conn = await asyncpg.connect(newer)
    await conn.execute("UPDATE schema_version SET version = $1", SCHEMA_VERSION + 1)
    await conn.close()
    refused(play(newer), pg_server.password, f"schema version {SCHEMA_VERSION + 1}")
    conn = await asyncpg.connect(foreign)
    try:
        tables = await conn.fetch(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
        )
        assert [r["table_name"] for r in tables] == ["invoices"]  # nothing was added
    finally:
        await conn.close()


@pytest.mark.parametrize("url", ["mysql://zq:secret-9@127.0.0.1/zq", "sqlite://relative.db"])
def test_a_url_of_another_kind_is_refused_not_taken_for_a_file(
    url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = play(url)
    assert result.returncode == EX_CONFIG and "secret-9" not in result.stderr, result.stderr
    assert "is a URL ZeroQuiz can't use" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_sqlite_url_names_a_file(tmp_path: Path) -> None:
    target = tmp_path / "quiz.sqlite3"
    result = play(f"sqlite:///{target}")
    assert result.returncode == 0, result.stderr
    assert target.exists()
