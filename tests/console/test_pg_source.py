"""`copy` and `backup` from a PostgreSQL source the real test server refuses: one line each.

A wrong password, a database that doesn't exist and a server nobody runs are what an operator
meets first when moving to PostgreSQL; each stops the command before anything is created, with
one line naming the URL (its password hidden), and the exit code that says whether a restart can
help (78: fix the setting; 75: the server did not answer).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from pg_server import PgServer
from test_cli_errors import run

from adapters.exitcodes import EX_CONFIG, EX_TEMPFAIL

WRONG = "not-the-password-5150"


def source(server: PgServer, case: str) -> str:
    return {
        "wrong password": server.url("postgres", password=WRONG),
        "missing database": server.url("no_such_database"),
        "refused connection": server.url("postgres").replace(f":{server.port}/", ":1/"),
    }[case]


CASES = [
    ("wrong password", EX_CONFIG, "refused the user name or password"),
    ("missing database", EX_CONFIG, "has no such database"),
    ("refused connection", EX_TEMPFAIL, "cannot be reached"),
]


def refused_once(result: subprocess.CompletedProcess[str], server: PgServer, code: int) -> str:
    out = result.stdout + result.stderr
    assert server.password not in out and WRONG not in out, out
    assert "Traceback" not in out, out
    assert result.returncode == code, out
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith("zeroquiz: database postgresql://zqapp:***@127.0.0.1:"), line
    return line


@pytest.mark.parametrize(("case", "code", "problem"), CASES)
def test_copy_from_a_server_that_refuses_says_so_in_one_line(
    pg_server: PgServer, tmp_path: Path, case: str, code: int, problem: str
) -> None:
    line = refused_once(
        run(["copy", source(pg_server, case), str(tmp_path / "to.sqlite3")], tmp_path),
        pg_server,
        code,
    )
    assert problem in line
    assert not (tmp_path / "to.sqlite3").exists()  # nothing created at the other end


@pytest.mark.parametrize(("case", "code", "problem"), CASES)
def test_backup_of_a_server_that_refuses_says_so_in_one_line(
    pg_server: PgServer, tmp_path: Path, case: str, code: int, problem: str
) -> None:
    backup = tmp_path / "b.sqlite3"
    line = refused_once(
        run(["backup", "--db", source(pg_server, case), str(backup)], tmp_path), pg_server, code
    )
    assert problem in line
    assert list(tmp_path.iterdir()) == []  # no backup file, no temporary one beside it
