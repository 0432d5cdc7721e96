"""`zeroquiz insights` as a real child process, on the database a simulated Slack team wrote
(tests/insights_sim.py): the same content as in chat, as plain text; a team that never played,
a period without answers, an unknown topic and a missing database are each told so."""

from __future__ import annotations

import os
from pathlib import Path

from insights_sim import BAD_KEY, MISCONCEPTION, TEMPLATE, WEAKEST_FIRST, simulate, simulated_bank
from test_console import run_zeroquiz

from bot.clock import FakeClock
from bot.model import ChannelRef
from bot.storage import Store


def env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "ZEROQUIZ_DB"}


async def test_the_terminal_shows_what_chat_shows(tmp_path: Path) -> None:
    bank = simulated_bank(tmp_path)
    db = tmp_path / "quiz.sqlite3"
    store = await Store.open(db)
    try:
        await simulate(store, bank, FakeClock(), ChannelRef("slack", "T0SIM", "C0SIM"))
    finally:
        await store.close()
    base = ["insights", "--db", str(db), "--platform", "slack", "--team", "T0SIM"]
    bank_file = ["--questions", str(tmp_path / "sim-bank.yaml")]
    result = run_zeroquiz([*base, "--period", "all", *bank_file], tmp_path, env())
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("ZeroQuiz insights · all time")
    chart = out.split("Topics, weakest first\n", 1)[1].split("\nShare answered right")[0]
    assert [line.split()[0] for line in chart.splitlines()] == list(WEAKEST_FIRST)
    check = out.split("Questions to check\n", 1)[1]
    assert check.count("check this question's key") == 1
    assert f"  - {BAD_KEY}: check this question's key" in check
    missed = out.split("Most missed\n", 1)[1].split("Questions to check")[0]
    flat = " ".join(missed.split())
    assert f"- {TEMPLATE} (sim-memory)" in flat and MISCONCEPTION in flat
    assert "`" not in out  # the chat surfaces' code marks dropped

    indonesian = run_zeroquiz(
        [*base, "--period", "all", "--lang", "id", *bank_file], tmp_path, env()
    )
    assert "periksa kunci soal ini" in indonesian.stdout
    stages = run_zeroquiz(
        [*base, "--period", "all", "--topic", "sim-stages", *bank_file], tmp_path, env()
    )
    assert stages.stdout.split("Topics, weakest first\n")[1].split()[0] == "sim-stages"
    # Now is long after the simulated week: this week has no answers; another team none ever.
    this_week = run_zeroquiz([*base, *bank_file], tmp_path, env())
    assert this_week.returncode == 0 and "No answers yet for this week." in this_week.stdout
    other = run_zeroquiz([*base[:-1], "T0OTHER", "--period", "all", *bank_file], tmp_path, env())
    assert "No answers yet for all time." in other.stdout
    unknown = run_zeroquiz([*base, "--topic", "offlaod", *bank_file], tmp_path, env())
    assert unknown.returncode == 1 and "no topic 'offlaod'" in unknown.stderr
    missing = run_zeroquiz(
        [*base[:1], "--db", str(tmp_path / "none.sqlite3"), *base[3:]], tmp_path, env()
    )
    assert missing.returncode == 78 and "there is no database" in missing.stderr
    assert not (tmp_path / "none.sqlite3").exists()
