"""Every CLI command either does what it says or stops with one line on stderr and its exit code.

Each case is one short real `zeroquiz` child process, run as an operator would from a shell:
a mistyped path, a file that is no database, a directory where a file belongs. Nothing may be
created where the command was pointed by mistake, and no traceback may reach the terminal.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest
from test_console import run_zeroquiz, zeroquiz

from bot.storage import Store

CONFIG = 78


def clean_env() -> dict[str, str]:
    """This machine's environment without any ZeroQuiz, Slack or Discord setting."""
    prefixes = ("ZEROQUIZ_", "SLACK_", "DISCORD_")
    return {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}


def run(args: list[str], cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = clean_env()
    env["ZEROQUIZ_DB"] = str(cwd / "default.sqlite3")
    return run_zeroquiz(args, cwd, env, stdin)


def one_line_error(result: subprocess.CompletedProcess[str], code: int, *words: str) -> None:
    """The exit code, nothing on stdout, and exactly one line on stderr saying `words`."""
    assert result.returncode == code, (result.stdout, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in lines[0]


async def _new_db(path: Path) -> None:
    store = await Store.open(path)
    await store.close()


@pytest.fixture
def place(tmp_path: Path) -> Path:
    """A directory with a ZeroQuiz database, a text file, an empty directory, and an SQLite file
    of another application."""
    asyncio.run(_new_db(tmp_path / "quiz.sqlite3"))
    (tmp_path / "notes.txt").write_text("hello, not a database\n")
    (tmp_path / "folder").mkdir()
    other = sqlite3.connect(tmp_path / "other.sqlite3")
    other.execute("CREATE TABLE invoices (id INTEGER)")
    other.commit()
    other.close()
    return tmp_path


def listing(place: Path) -> set[str]:
    return {str(p.relative_to(place)) for p in place.rglob("*")}


SOURCES = [
    ("typo.sqlite3", "does not exist"),
    ("notes.txt", "is not a SQLite database"),
    ("folder", "is a directory"),
    ("other.sqlite3", "is not a ZeroQuiz database"),
]


@pytest.mark.parametrize(("source", "problem"), SOURCES)
def test_copy_from_a_source_that_is_no_zeroquiz_database_creates_nothing(
    place: Path, source: str, problem: str
) -> None:
    before = listing(place)
    result = run(["copy", source, "new.sqlite3"], place)
    one_line_error(result, CONFIG, source, problem)
    assert listing(place) == before  # neither the source nor the target was created


@pytest.mark.parametrize(("source", "problem"), SOURCES[:3])
def test_backup_and_restore_of_a_source_that_is_no_database_create_nothing(
    place: Path, source: str, problem: str
) -> None:
    before = listing(place)
    one_line_error(run(["backup", "--db", source, "b.sqlite3"], place), CONFIG, source, problem)
    one_line_error(run(["restore", source, "new.sqlite3"], place), CONFIG, source, problem)
    assert listing(place) == before


@pytest.mark.parametrize(
    ("dest", "problem"),
    [("missing/b.sqlite3", "directory missing does not exist"), ("folder", "is a directory")],
)
def test_a_backup_that_cannot_be_written_is_one_line(place: Path, dest: str, problem: str) -> None:
    before = listing(place)
    result = run(["backup", "--db", "quiz.sqlite3", dest], place)
    one_line_error(result, CONFIG, dest, problem)
    assert listing(place) == before


@pytest.mark.parametrize("dest", ["quiz.sqlite3", "./quiz.sqlite3", "link.sqlite3"])
def test_a_backup_onto_the_database_itself_is_refused_and_leaves_it_in_place(
    place: Path, dest: str
) -> None:
    """Renamed over the database, a "backup" would replace the file a running bot writes in;
    what the bot committed after that would be lost at its next checkpoint."""
    (place / "link.sqlite3").symlink_to(place / "quiz.sqlite3")
    before = listing(place), (place / "quiz.sqlite3").stat().st_ino
    result = run(["backup", "--db", "quiz.sqlite3", dest], place)
    one_line_error(result, CONFIG, dest, "is the database itself")
    assert (listing(place), (place / "quiz.sqlite3").stat().st_ino) == before


@pytest.mark.parametrize(
    ("target", "problem"),
    [
        ("folder", "is a directory"),
        ("missing/quiz.sqlite3", "directory missing does not exist"),
        ("notes.txt", "is not a SQLite database"),
    ],
)
def test_a_restore_into_a_place_that_cannot_hold_a_database_is_one_line(
    place: Path, target: str, problem: str
) -> None:
    before = listing(place)
    result = run(["restore", "quiz.sqlite3", target], place)
    one_line_error(result, CONFIG, target, problem)
    assert "Event loop is closed" not in result.stderr
    assert listing(place) == before
    assert (place / "notes.txt").read_text() == "hello, not a database\n"


@pytest.mark.parametrize(
    "args",
    [
        ["export"],
        ["play", "--count", "2"],
        ["review"],
        ["validate"],
        ["insights", "--platform", "slack", "--team", "T1"],
    ],
)
def test_a_reader_that_closed_the_pipe_ends_the_command_quietly(
    tmp_path: Path, args: list[str]
) -> None:
    """`zeroquiz export | head`: the reader is gone (here before the child's first write, so
    every write of the child fails); it stops with 141, as `cat` would, and says nothing."""
    env = clean_env()
    env["ZEROQUIZ_DB"] = str(tmp_path / "quiz.sqlite3")
    if args[0] == "insights":  # it reads an existing database: a game makes one
        made = subprocess.run(
            [*zeroquiz(), "play", "--count", "1"], input="a\n", capture_output=True,
            text=True, cwd=tmp_path, env=env, timeout=60,
        )  # fmt: skip
        assert made.returncode == 0, made.stderr
    reader, writer = os.pipe()
    os.close(reader)
    try:
        result = subprocess.run(
            [*zeroquiz(), *args],
            input="a\nb\n",
            stdout=writer,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            env=env,
            timeout=60,
        )
    finally:
        os.close(writer)
    assert result.returncode == 141, result.stderr
    assert result.stderr == ""


@pytest.mark.parametrize("count", ["0", "21"])
def test_a_count_outside_one_to_twenty_is_refused_with_one_line(tmp_path: Path, count: str) -> None:
    result = run(["play", "--count", count], tmp_path, stdin="a\n")
    one_line_error(result, 2, "--count", "1 to 20", count)
    assert not (tmp_path / "default.sqlite3").exists()  # refused before the database opens


def test_twenty_questions_is_the_most_and_is_played(tmp_path: Path) -> None:
    result = run(["play", "--count", "20"], tmp_path, stdin="a\n" * 20)
    assert result.returncode == 0, result.stderr
    assert "Question 20/20" in result.stdout and " of 20 right" in result.stdout


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["play", "--level", "7"], "There is no level \u201c7\u201d. Levels: easy, medium, hard"),
        (["review", "--lang", "id", "--level", "super"], "Tidak ada tingkat \u201csuper\u201d"),
    ],
)
def test_an_unknown_level_is_named_as_a_level_with_the_levels(
    tmp_path: Path, args: list[str], said: str
) -> None:
    result = run(args, tmp_path, stdin="a\n")
    one_line_error(result, 1, said)
    assert "topic" not in result.stderr.lower() and "topik" not in result.stderr.lower()


VALID = """\
questions:
  - id: piped-01
    difficulty: 1
    tags: [stages]
    source: "ZeRO paper (arXiv 1910.02054)"
    prompt:
      en: "Which ZeRO stage shards the parameters too?"
      id: "Stage ZeRO mana yang juga membagi parameter?"
    options:
      - en: "Stage 3"
        id: "Stage 3"
        correct: true
      - en: "Stage 1"
        id: "Stage 1"
    explanation:
      en: "Stage 3 partitions the parameters as well as the gradients and optimizer states."
      id: "Stage 3 membagi parameter, gradient, dan optimizer state."
"""


def test_validate_dash_reads_the_question_file_from_stdin(tmp_path: Path) -> None:
    good = run(["validate", "--no-bundled", "-"], tmp_path, stdin=VALID)
    assert good.returncode == 0, good.stderr
    assert good.stdout == "OK: 1 questions in 1 file(s), all valid\n"
    bad = run(["validate", "-"], tmp_path, stdin=VALID.replace("correct: true", "correct: no"))
    assert bad.returncode == 1 and bad.stdout == ""
    assert "<stdin>:12: 'correct' must be true or false" in bad.stderr.splitlines()


def test_a_problem_of_the_whole_file_names_no_line_zero(tmp_path: Path) -> None:
    result = run(["validate", "missing.yaml"], tmp_path)
    assert result.returncode == 1 and result.stdout == ""
    first = result.stderr.splitlines()[0]
    assert first == "missing.yaml: cannot read file: No such file or directory"


@pytest.mark.parametrize("level", ["debug"])
def test_the_log_level_is_taken_in_any_case(tmp_path: Path, level: str) -> None:
    """Accepted: serve goes on to its next check (no chat adapter set here: 78) and logs at it."""
    result = run(["serve", "--log-level", level], tmp_path)
    assert result.returncode == CONFIG, result.stderr
    assert "invalid choice" not in result.stderr
    assert " DEBUG " in result.stderr and "no chat adapter is configured" in result.stderr


@pytest.mark.parametrize("args", [[], ["help"]])
def test_zeroquiz_alone_or_help_prints_the_help(tmp_path: Path, args: list[str]) -> None:
    result = run(args, tmp_path)
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout.startswith("usage: zeroquiz")
    for command in ("play", "serve", "validate", "backup", "restore"):
        assert command in result.stdout


def test_help_for_one_command_prints_its_options(tmp_path: Path) -> None:
    result = run(["help", "play"], tmp_path)
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout.startswith("usage: zeroquiz play") and "--count" in result.stdout


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["play", "--topic", "nosuch"], "There is no topic \u201cnosuch\u201d"),
        (["review", "--topic", "nosuch"], "There is no topic \u201cnosuch\u201d"),
        (
            [
                "play",
                "--no-bundled",
                "--questions",
                "q.yaml",
                "--topic",
                "stages",
                "--level",
                "hard",
            ],
            "No question matches that topic and level.",
        ),
    ],
)
def test_a_refused_session_says_why_on_stderr_not_stdout(
    tmp_path: Path, args: list[str], said: str
) -> None:
    (tmp_path / "q.yaml").write_text(VALID)  # one easy question about stages
    result = run(args, tmp_path, stdin="a\n")
    assert result.returncode == 1
    assert said in result.stderr and said not in result.stdout
    assert "Question 1" not in result.stdout


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://u:secret@[::1]:99999/db",
        "postgresql://u:secret@127.0.0.1:notaport/db",
        "postgresql://u:secret@h1:5432,h2:0/db",
    ],
)
@pytest.mark.parametrize(
    "command",
    [
        ["play", "--count", "1"],
        ["backup", "BACKUP"],
        ["results", "--platform", "console", "--team", "local"],
        ["insights", "--platform", "console", "--team", "local"],
        ["pack", "list", "--platform", "console", "--team", "local"],
    ],
)
def test_a_database_url_with_a_bad_port_is_one_line_that_names_it(
    tmp_path: Path, url: str, command: list[str]
) -> None:
    """No traceback, no password: the setting to fix, and 78 (restarting can't help)."""
    args = [str(tmp_path / "b.sqlite3") if a == "BACKUP" else a for a in command]
    result = run([*args, "--db", url], tmp_path)
    assert result.returncode == 78, result.stderr
    [line] = result.stderr.splitlines()
    assert "a port is a number from 1 to 65535" in line and "secret" not in line
    assert "postgresql://u:***@" in line


def test_validate_takes_a_copy_of_the_bundled_files_as_those_files(tmp_path: Path) -> None:
    """`zeroquiz validate questions/` in a clone: the same files as the installed bundled ones
    are checked once, not reported as duplicating every id; a changed copy still is."""
    from bot.bank import bundled_paths, load_bank

    copy = tmp_path / "questions"
    copy.mkdir()
    for path in bundled_paths():
        (copy / path.name).write_bytes(path.read_bytes())
    bank = load_bank()
    result = run(["validate", str(copy)], tmp_path)
    assert result.returncode == 0, result.stderr
    assert f"OK: {len(bank)} questions and {len(bank.templates)} templates" in result.stdout
    changed = copy / "00_original.yaml"
    changed.write_text(changed.read_text().replace("id: orig-01", "id: orig-x1"))
    clash = run(["validate", str(copy)], tmp_path)
    assert clash.returncode == 1 and "duplicate id 'orig-02'" in clash.stderr
