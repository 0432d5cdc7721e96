"""A team's results out (`zeroquiz results`): one row per answer of that team only, in the
period asked, nothing of a person who used `forget`, the letter the channel saw; the insights'
numbers as CSV and JSON. Both backends; the command itself as a real child process."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

from conftest import CHANNEL
from helpers import player, right_choice
from pg_server import on_both_backends

from bot.bank import Bank
from bot.clock import FakeClock
from bot.insights import Insights
from bot.library import Library
from bot.model import ChannelRef, TeamRef, UserRef
from bot.quiz import Quiz
from bot.results import Results, insights_csv, insights_json, results_csv, results_json
from bot.storage import Store
from bot.views import QuestionView

pytestmark = on_both_backends

ROOT = Path(__file__).resolve().parents[2]
TEAM = TeamRef("test", "T1")
OTHER = ChannelRef("test", "T2", "C9")


async def play_round(
    quiz: Quiz, bank: Bank, channel: ChannelRef, who: dict[UserRef, bool]
) -> QuestionView:
    view = await quiz.rounds.start_round(channel)
    assert isinstance(view, QuestionView)
    right = right_choice(view, bank)
    for person, ok in who.items():
        await quiz.rounds.answer(
            view.round_id, person, right if ok else (right + 1) % len(view.options)
        )
    await quiz.close_round(view.round_id, "admin")
    return view


async def test_only_the_asked_teams_answers_of_the_period_and_none_of_a_forgotten_person(
    quiz: Quiz, db: Store, bank: Bank, clock: FakeClock
) -> None:
    ana = player(1)
    budi = UserRef("test", "T1", "U2", '=HYPERLINK("x")')  # a spreadsheet would run it
    stranger = UserRef("test", "T2", "U9", "Other team")
    old = await play_round(quiz, bank, CHANNEL, {ana: True})
    await clock.advance(40 * 24 * 3600)  # the first answer is from an earlier month and week
    views = [await play_round(quiz, bank, CHANNEL, {ana: True, budi: False}) for _ in range(3)]
    await play_round(quiz, bank, OTHER, {stranger: True})
    results = Results(db, Library(db, bank), clock)

    everything = await results.rows(TEAM, "all")
    assert len(everything) == 1 + 3 * 2
    assert {r.user for r in everything} == {"U1", "U2"}  # never team T2's
    assert len(await results.rows(TEAM, "week")) == 3 * 2
    assert len(await results.rows(TeamRef("test", "T2"), "all")) == 1
    assert await results.rows(TeamRef("slack", "T1"), "all") == []  # the platform is part of a team

    # Each row as the channel saw it: the letter on the button, the option's text, the verdict.
    mine = [r for r in everything if r.user == "U1"]
    assert [r.question for r in mine] == [old.question_id, *(v.question_id for v in views)]
    for row, view in zip(mine, [old, *views], strict=True):
        question = bank.get(view.question_id)
        assert question is not None
        shown = {o.letter: o.text for o in view.options}
        assert row.correct and row.points > 0 and shown[row.letter] == row.option
        assert row.option == question.options[question.answer].en
        assert row.topic == ", ".join(question.tags) and row.level == question.difficulty
        assert row.answered_at.endswith("Z") and row.channel == "C1" and row.name == "Player 1"
    wrong = [r for r in everything if r.user == "U2"]
    assert all(not r.correct and r.points == 0 for r in wrong)

    # CSV: a header and a line per answer; a formula-like name is kept as text.
    table = list(csv.DictReader(io.StringIO(results_csv(everything))))
    assert len(table) == len(everything)
    assert {r["name"] for r in table} == {"Player 1", """'=HYPERLINK("x")"""}
    assert json.loads(results_json(everything))[0]["question"] == old.question_id

    # Forgetting a person leaves nothing of them in the results.
    await db.people.forget(TEAM, "U2")
    after = await results.rows(TEAM, "all")
    assert len(after) == 4 and {r.user for r in after} == {"U1"}


async def test_insights_as_csv_and_json_give_the_topics_and_each_questions_analysis(
    quiz: Quiz, db: Store, bank: Bank, clock: FakeClock
) -> None:
    people = {player(n): n % 3 != 0 for n in range(1, 7)}
    views = [await play_round(quiz, bank, CHANNEL, people) for _ in range(2)]
    tables = await Insights(db, bank, clock, cache_for=timedelta(0)).tables(TEAM, "all")
    items = {i.item: i for i in tables.items}
    for view in views:
        item = view.question_id.partition("@")[0]
        assert items[item].answered == 6 and abs(items[item].share_right - 4 / 6) < 1e-9
    data = json.loads(insights_json(tables))
    assert {q["question"] for q in data["questions"]} == set(items)
    assert sum(t["answers"] for t in data["topics"]) >= 12
    topics_part, questions_part = insights_csv(tables).split("\n\n")
    rows = list(csv.DictReader(io.StringIO(questions_part)))
    assert {r["question"] for r in rows} == set(items)
    for r in rows:
        shares = [float(r[f"share_{x}"]) for x in "ABCDE" if r[f"share_{x}"]]
        assert abs(sum(shares) - 1) < 1e-3 and r["answers"] == "6"
    topic_rows = list(csv.DictReader(io.StringIO(topics_part)))
    assert topic_rows and sum(int(r["answers"]) for r in topic_rows) >= 12


def run_zeroquiz(
    args: list[str], cwd: Path, env: dict[str, str], stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "adapters.cli", *args], input=stdin, capture_output=True,
        text=True, cwd=cwd, env=env, timeout=180,
    )  # fmt: skip


def test_the_command_prints_the_terminal_teams_answers(tmp_path: Path) -> None:
    """`--platform console --team local`: the terminal's own games, as a teacher tries it."""
    db = tmp_path / "q.db"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZEROQUIZ_")}
    env |= {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    played = run_zeroquiz(["play", "--count", "3", "--db", str(db)], tmp_path, env, "a\nb\nc\n")
    assert played.returncode == 0, played.stderr
    args = ["results", "--platform", "console", "--team", "local", "--db", str(db)]
    out = run_zeroquiz(args, tmp_path, env)
    assert out.returncode == 0, out.stderr
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert len(rows) == 3 and all(
        r["channel"] == "terminal" and r["letter"] in "ABCD" for r in rows
    )
    as_json = run_zeroquiz([*args, "--format", "json", "--period", "week"], tmp_path, env)
    assert [r["question"] for r in json.loads(as_json.stdout)] == [r["question"] for r in rows]
    none = run_zeroquiz([*args[:4], "nobody", "--db", str(db)], tmp_path, env)
    assert none.returncode == 0 and none.stdout.count("\n") == 1  # the header alone
    assert "no answers" in none.stderr
    insights = run_zeroquiz(
        ["insights", *args[1:], "--period", "all", "--format", "csv"], tmp_path, env
    )
    assert insights.returncode == 0, insights.stderr
    assert insights.stdout.startswith("topic,answers,share_right")
