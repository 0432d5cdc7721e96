"""`zeroquiz check`: the settings serve would run with, and exactly serve's refusals.

Each case is a real `zeroquiz check` child; for every refusal `zeroquiz serve` is run with the
same environment afterwards and must refuse with the same lines and exit code (it stops before
connecting anywhere, so no platform is needed). No secret may appear in anything check prints.
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fake_slack import BOT_TOKEN, SECRET, FakeSlack
from pg_server import PgServer
from test_cli_errors import clean_env
from test_console import run_zeroquiz, zeroquiz

from adapters.exitcodes import EX_CONFIG, EX_TEMPFAIL
from bot.storage import SCHEMA_VERSION

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from history import make_v2_history

BOT = "xoxb-1111-2222-checksecretbot"
APP = "xapp-1-A111-3333-checksecretapp"
DISCORD = "ODk5.discord-check-secret-token.XYZ"
SECRETS = (BOT, APP, DISCORD)


def env_with(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = clean_env()
    env["ZEROQUIZ_DB"] = str(tmp_path / "quiz.sqlite3")
    env["SLACK_BOT_TOKEN"] = BOT
    env["SLACK_APP_TOKEN"] = APP
    env.update(extra)
    return {k: v for k, v in env.items() if v != "<unset>"}


def check(
    tmp_path: Path, env: dict[str, str], *args: str, command: str = "check"
) -> subprocess.CompletedProcess[str]:
    result = run_zeroquiz([command, *args], tmp_path, env)
    out = result.stdout + result.stderr
    assert "Traceback" not in out, out
    for secret in SECRETS:
        assert secret not in out, out
    return result


def setting(out: str, name: str) -> str:
    """`value  (source)` of one line of the settings table."""
    for line in out.splitlines():
        if line.startswith(f"  {name}  "):
            return " ".join(line.split()[len(name.split()) :])
    raise AssertionError(f"no setting {name!r} in:\n{out}")


def test_a_good_configuration_says_what_and_where_from_and_exits_0(tmp_path: Path) -> None:
    env = env_with(
        tmp_path, ZEROQUIZ_HTTP_PORT="3100", DISCORD_TOKEN=DISCORD, ZEROQUIZ_SLACK_TIMEOUT="7.5"
    )
    result = check(tmp_path, env, "--host", "0.0.0.0")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert result.stderr == ""
    assert out.splitlines()[0].startswith("zeroquiz ")  # the version that would run
    assert setting(out, "database") == f"{tmp_path / 'quiz.sqlite3'} (ZEROQUIZ_DB)"
    assert setting(out, "http host") == "0.0.0.0 (--host)"
    assert setting(out, "http port") == "3100 (ZEROQUIZ_HTTP_PORT)"
    assert setting(out, "metrics") == "off (default)"
    assert setting(out, "slack timeout") == "7.5 s (ZEROQUIZ_SLACK_TIMEOUT)"
    assert setting(out, "database statement timeout") == "30 s (default)"
    assert setting(out, "SLACK_BOT_TOKEN") == "set"
    assert setting(out, "SLACK_SIGNING_SECRET") == "not set"
    assert setting(out, "DISCORD_TOKEN") == "set"
    assert "database: " in out and "a new file, created at start" in out
    assert "  slack: Socket Mode" in out and "  discord: global commands" in out
    assert "questions and" in out and "bundled: " in out
    assert out.rstrip().endswith(
        "OK: serve would start (the platforms check the tokens when it connects)"
    )
    assert not (tmp_path / "quiz.sqlite3").exists()  # check only looks


def test_the_alias_config_and_an_old_database_left_as_it_was(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite3"
    make_v2_history(db, answers=200, players=10, seed=2, rounds=20)
    before = db.read_bytes()
    result = check(tmp_path, env_with(tmp_path, ZEROQUIZ_DB=str(db)), command="config")
    assert result.returncode == 0, result.stderr
    assert f"schema v2: upgraded to v{SCHEMA_VERSION} at start" in result.stdout
    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.sqlite3"]  # no .pre-v*.bak


def test_a_postgresql_url_is_shown_without_its_password(
    pg_server: PgServer, tmp_path: Path
) -> None:
    url = pg_server.url("postgres")
    result = check(tmp_path, env_with(tmp_path, ZEROQUIZ_DB=url))
    assert result.returncode == 0, result.stderr
    assert pg_server.password not in result.stdout + result.stderr
    assert f"postgresql://zqapp:***@127.0.0.1:{pg_server.port}/postgres" in result.stdout
    assert "(PostgreSQL: empty, ZeroQuiz's tables created at start)" in result.stdout


def _foreign(tmp_path: Path) -> str:
    other = tmp_path / "invoices.sqlite3"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE invoices (id INTEGER)")
    conn.commit()
    conn.close()
    return str(other)


def _bad_questions(tmp_path: Path) -> str:
    bad = tmp_path / "team.yaml"
    bad.write_text("- id: broken\n  question: what?\n")
    return str(bad)


Change = str | Callable[[Path], str]
REFUSALS: dict[str, tuple[dict[str, Change], int]] = {
    "no adapter": ({"SLACK_BOT_TOKEN": "<unset>", "SLACK_APP_TOKEN": "<unset>"}, EX_CONFIG),
    "malformed token": ({"SLACK_BOT_TOKEN": "not-a-token-checksecret"}, EX_CONFIG),
    "http port": ({"ZEROQUIZ_HTTP_PORT": "three-thousand"}, EX_CONFIG),
    "metrics port": ({"ZEROQUIZ_METRICS_PORT": "99999"}, EX_CONFIG),
    "log format": ({"ZEROQUIZ_LOG_FORMAT": "xml"}, EX_CONFIG),
    "command limit": ({"ZEROQUIZ_LIMIT_PERSON_PER_MINUTE": "plenty"}, EX_CONFIG),
    "timeout": ({"ZEROQUIZ_DB_STATEMENT_TIMEOUT": "0"}, EX_CONFIG),
    "shards": ({"DISCORD_TOKEN": DISCORD, "DISCORD_SHARD_IDS": "0"}, EX_CONFIG),
    "no bundled, no files": ({"ZEROQUIZ_NO_BUNDLED": "1"}, EX_CONFIG),
    "bad question file": ({"ZEROQUIZ_QUESTIONS": _bad_questions}, EX_CONFIG),
    "missing directory": ({"ZEROQUIZ_DB": lambda p: str(p / "nope" / "q.sqlite3")}, EX_CONFIG),
    "foreign database": ({"ZEROQUIZ_DB": _foreign}, EX_CONFIG),
    "unreachable server": ({"ZEROQUIZ_DB": "postgresql://zqapp:pw-9@127.0.0.1:1/zq"}, EX_TEMPFAIL),
}


@pytest.fixture
def taken() -> Iterator[str]:
    """A port of 127.0.0.1 another program listens on."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield str(holder.getsockname()[1])


LOGGED = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} [A-Z]+ ")  # serve's own log lines


def same_refusal(tmp_path: Path, env: dict[str, str], code: int) -> str:
    """check's refusal, then serve's with the same environment: the same lines, the same code."""
    checked = check(tmp_path, env)
    assert checked.returncode == code, checked.stdout + checked.stderr
    assert "serve would refuse to start: 1 problem(s), on stderr" in checked.stdout
    assert "OK: serve would start" not in checked.stdout
    assert "pw-9" not in checked.stdout + checked.stderr
    served = run_zeroquiz(["serve"], tmp_path, env)
    assert served.returncode == code, served.stderr
    refusal = [line for line in served.stderr.splitlines() if not LOGGED.match(line)]
    assert checked.stderr.splitlines() == refusal
    return checked.stdout


@pytest.mark.parametrize("case", list(REFUSALS))
def test_each_refusal_is_serves_own_line_and_exit_code(tmp_path: Path, case: str) -> None:
    changes, code = REFUSALS[case]
    extra = {k: (v(tmp_path) if callable(v) else v) for k, v in changes.items()}
    same_refusal(tmp_path, env_with(tmp_path, **extra), code)


def test_a_metrics_port_another_program_holds_is_refused_as_serve_does(
    tmp_path: Path, taken: str
) -> None:
    out = same_refusal(tmp_path, env_with(tmp_path, ZEROQUIZ_METRICS_PORT=taken), EX_CONFIG)
    assert f"health and metrics: http://127.0.0.1:{taken} (refused: in use now" in out


async def test_slacks_http_port_another_program_holds_is_refused_as_serve_does(
    tmp_path: Path, taken: str, fake: FakeSlack
) -> None:
    """serve asks Slack who it is before it listens: the fake answers (its loop runs while the
    children do), so serve gets as far as the port."""
    env = env_with(
        tmp_path, SLACK_APP_TOKEN="<unset>", SLACK_BOT_TOKEN=BOT_TOKEN, SLACK_SIGNING_SECRET=SECRET,
        SLACK_API_URL=fake.api_url, ZEROQUIZ_HTTP_PORT=taken,
    )  # fmt: skip
    out = await asyncio.to_thread(same_refusal, tmp_path, env, EX_CONFIG)
    assert "  slack: HTTP mode on http://127.0.0.1:" in out and "(refused: in use now" in out


def test_a_reader_that_closed_the_pipe_ends_check_quietly(tmp_path: Path) -> None:
    """`zeroquiz check | head`, the reader gone before the first write: 141, nothing said."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        result = subprocess.run(
            [*zeroquiz(), "check"], stdout=writer, stderr=subprocess.PIPE, text=True,
            cwd=tmp_path, env=env_with(tmp_path), timeout=60,
        )  # fmt: skip
    finally:
        os.close(writer)
    assert result.returncode == 141, result.stderr
    assert result.stderr == ""
