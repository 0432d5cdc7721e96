"""Another tool's file into a team pack (`zeroquiz pack import`, and `/zeroquiz pack add` with
such a file): a Moodle GIFT file, an Aiken file and a Kahoot CSV each become a pack whose export
holds the same questions, keys and reasons; a broken file of each format is answered with its
`file:line` problems and stores nothing. Both backends; the command as a real child process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from pg_server import on_both_backends

from bot.bank import Bank
from bot.bank.imports import convert
from bot.bank.packs import check_pack
from bot.clock import FakeClock
from bot.library import Library
from bot.model import Question, TeamRef
from bot.storage import Store
from bot.teampacks import TeamPacks

pytestmark = on_both_backends

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "imports"
TEAM = TeamRef("slack", "T1")
FILES = {"moodle.gift": 7, "sample.aiken": None, "kahoot.csv": 3}


def shape(q: Question) -> tuple[object, ...]:
    """What a learner meets of a question: its text, options, key, reasons and explanation."""
    reasons = tuple(q.reason(i).en if q.reason(i) else None for i in range(len(q.options)))  # type: ignore[union-attr]
    return (q.id, q.tags, q.prompt.en, tuple(o.en for o in q.options), q.answer, reasons,
            q.explanation.en)  # fmt: skip


@pytest.mark.parametrize("name", sorted(FILES))
async def test_each_format_becomes_a_pack_whose_export_keeps_questions_keys_and_reasons(
    db: Store, bank: Bank, clock: FakeClock, name: str
) -> None:
    packs = TeamPacks(db, Library(db, bank), clock)
    text = (DATA / name).read_text(encoding="utf-8")
    fmt = {"gift": "gift", "aiken": "aiken", "csv": "csv"}[name.rsplit(".", 1)[1]]
    expected = check_pack(convert(text, name, fmt, "en").yaml, name).bank.questions
    if FILES[name] is not None:
        assert len(expected) == FILES[name]
    added = await packs.import_file(
        TEAM, text, label=name, fmt=None, name=None, by="test", lang="en", pack_lang="en"
    )
    assert added.stored, added.problems
    stem = name.rsplit(".", 1)[0]
    exported = await packs.export(TEAM, stem)
    assert exported is not None
    again = check_pack(exported, "exported.yaml").bank.questions
    assert [shape(q) for q in again] == [shape(q) for q in expected]
    if name == "moodle.gift":  # the GIFT feedback of a wrong answer is that option's why
        first = again[0]
        gradients = next(i for i, o in enumerate(first.options) if o.en == "the gradients")
        assert first.reason(gradients) is not None
        assert first.reason(gradients).en == "Those are sharded from stage 2 on."  # type: ignore[union-attr]
        assert [s.split(": ", 1)[0] for s in added.skipped] == ["moodle.gift:27", "moodle.gift:30"]


@pytest.mark.parametrize("name", ["broken.gift", "broken.aiken", "broken.csv"])
async def test_a_broken_file_names_its_lines_and_stores_nothing(
    db: Store, bank: Bank, clock: FakeClock, name: str
) -> None:
    packs = TeamPacks(db, Library(db, bank), clock)
    text = (DATA / name).read_text(encoding="utf-8")
    added = await packs.import_file(
        TEAM, text, label=name, fmt=None, name="broken", by="test", lang="en", pack_lang="en"
    )
    assert not added.stored and added.problems
    lines = [p.split(":")[:2] for p in added.problems if "skipped" not in p]
    assert all(where == name and line.isdigit() and int(line) > 0 for where, line in lines)
    assert await db.packs.list(TEAM) == []


async def test_an_unknown_format_is_refused_in_one_line(
    db: Store, bank: Bank, clock: FakeClock
) -> None:
    packs = TeamPacks(db, Library(db, bank), clock)
    added = await packs.import_file(
        TEAM, "just some words\n", label="notes.docx", fmt=None, name=None, by="t", lang="en",
        pack_lang="en",
    )  # fmt: skip
    assert not added.stored and len(added.problems) == 1
    assert added.problems[0].startswith("notes.docx: cannot tell the file's format")
    assert await db.packs.list(TEAM) == []


def zeroquiz(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZEROQUIZ_")}
    env |= {"XDG_CACHE_HOME": str(cwd / "cache"), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "adapters.cli", *args], capture_output=True, text=True,
        cwd=cwd, env=env, timeout=120,
    )  # fmt: skip


def test_the_terminal_imports_lists_what_it_skipped_and_refuses_a_broken_file(
    tmp_path: Path,
) -> None:
    db = str(tmp_path / "q.db")
    team = ["--db", db, "--platform", "console", "--team", "local"]
    done = zeroquiz(
        ["pack", "import", str(DATA / "moodle.gift"), "--name", "week-1", *team], tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "Pack `week-1` saved as version 1: 7 question(s)" in done.stdout
    assert "moodle.gift:27: skipped: a short answer question" in done.stdout
    listed = zeroquiz(["pack", "list", *team], tmp_path)
    assert listed.stdout.startswith("week-1\tversion 1\t7 question(s)")
    broken = zeroquiz(
        ["pack", "import", str(DATA / "broken.csv"), "--format", "csv", *team], tmp_path
    )
    assert broken.returncode == 1
    assert (
        f"{DATA / 'broken.csv'}:3: correct answer 5 must be a number from 1 to 4" in broken.stderr
    )
    assert zeroquiz(["pack", "list", *team], tmp_path).stdout.count("\n") == 1  # still one pack
    indonesian = zeroquiz(
        ["pack", "import", str(DATA / "sample.aiken"), "--lang", "id", "--name", "aiken", *team],
        tmp_path,
    )
    assert indonesian.returncode == 0, indonesian.stderr
    exported = zeroquiz(["pack", "export", "aiken", *team], tmp_path).stdout
    assert exported.startswith("language: id") and "Jawabannya" in exported
