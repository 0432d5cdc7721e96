"""Questions in and results out on Slack, over signed HTTP: an Aiken file pasted into the pack
form becomes a pack; `/zeroquiz results` comes back privately as numbered code-block parts that
put together are exactly what `zeroquiz results` prints in the terminal."""

from __future__ import annotations

import csv
import io
import re
import subprocess
import sys
from pathlib import Path

from fake_slack import TEAM, FakeSlack, block_problems, open_harness, shown
from test_slack_pack_export import ADMIN, parts_of
from test_slack_packs import open_modal

from bot.bank import Bank
from bot.clock import FakeClock
from bot.model import TeamRef

ROOT = Path(__file__).resolve().parents[2]

AIKEN = """\
Which ZeRO stage also shards the parameters?
A) Stage 1
B) Stage 2
C) Stage 3
ANSWER: C

What does ZeRO stage 1 shard?
A. The optimizer states
B. The activations
ANSWER: A
"""


def terminal_results(db: Path) -> str:
    args = ["results", "--db", str(db), "--platform", "slack", "--team", TEAM, "--period", "all"]
    done = subprocess.run(
        [sys.executable, "-m", "adapters.cli", *args], capture_output=True, text=True,
        cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


async def test_a_pasted_aiken_file_becomes_a_pack(
    fake: FakeSlack, db_path: Path, clock: FakeClock, bank: Bank
) -> None:
    slack = await open_harness(fake, db_path, clock, bank, admins=frozenset({ADMIN}))
    try:
        modal = await open_modal(slack, fake, "pack add")
        status, ack = await slack.submit(modal, {"name": "onboarding", "yaml": AIKEN}, user=ADMIN)
        assert status == 200 and ack == {}, ack
        record = await slack.runtime.store.packs.get(TeamRef("slack", TEAM), "onboarding")
        assert record is not None and record.questions == 2
        assert record.body.startswith("language: en")  # kept as the question file it became
        broken = AIKEN.replace("ANSWER: C", "ANSWER: F")
        status, ack = await slack.submit(modal, {"name": "broken", "yaml": broken}, user=ADMIN)
        assert ack["response_action"] == "errors" and "pasted.txt:5" in str(ack["errors"])
        assert await slack.runtime.store.packs.get(TeamRef("slack", TEAM), "broken") is None
    finally:
        await slack.close()


async def test_results_come_back_whole_as_numbered_parts(
    fake: FakeSlack, db_path: Path, clock: FakeClock, bank: Bank
) -> None:
    slack = await open_harness(fake, db_path, clock, bank, admins=frozenset({ADMIN}))
    try:
        await slack.ask("question")
        for n in range(40):
            user = f"U{n:03d}"
            fake.add_user(user, f"Player {n}")
            await fake.reply((await slack.click("ABCD"[n % 4], user=user))[1])
        key = await slack.command("results all", user=ADMIN)
        await fake.wait_until(lambda: len(fake.replies[key]) >= 1, "the results")
        replies = fake.replies[key]
        assert all(r["response_type"] == "ephemeral" for r in replies)
        assert all(block_problems(r["blocks"]) == [] for r in replies)
        joined, (heading, *_) = parts_of(replies)
        assert "40 row(s)" in heading and re.search(r"in \d+ parts", heading)
        rows = list(csv.DictReader(io.StringIO(joined)))
        assert len(rows) == 40
        assert joined == terminal_results(db_path)  # the same file, byte for byte
        refused = await slack.ask("results")
        assert "Only admins" in shown(refused["blocks"])
    finally:
        await slack.close()
