"""`/zeroquiz pack export NAME` on Slack gives back every valid pack whole, end to end over signed
HTTP: a pack longer than one message comes as numbered code-block parts (through the
response_url, or as ephemeral messages once it needs more than a response_url carries) that,
put together as their heading says, are exactly what `zeroquiz pack export` prints. Every
message keeps Block Kit's limits (the fake refuses one that doesn't)."""

from __future__ import annotations

import asyncio
import html
import random
import re
from functools import partial
from pathlib import Path
from typing import Any

from fake_slack import CHANNEL, TEAM, FakeSlack, SlackHarness, block_problems, open_harness
from pack_cases import big_pack, zeroquiz_pack

from adapters.slack.export import export_messages
from bot.bank import Bank
from bot.clock import FakeClock
from bot.teampacks import export_notice

ADMIN = "UADMIN"
PART = re.compile(r"\*(?:Part|Bagian) (\d+)/(\d+)( \([^)]*\))?\*\n```\n(.*)\n```", re.DOTALL)


def parts_of(messages: list[dict[str, Any]]) -> tuple[str, list[str]]:
    """What a person reads: (the heading, each part's label), and the YAML put together as the
    heading says (each part on a new line; a part marked as going on, without a line break)."""
    joined, labels, heading = "", [], ""
    for message in messages:
        for block in message["blocks"]:
            text = block["text"]["text"]
            found = PART.fullmatch(text)
            if found is None:
                heading += html.unescape(text)
                continue
            labels.append(f"{found.group(1)}/{found.group(2)}")
            goes_on = found.group(3) is not None
            joined += html.unescape(found.group(4)) + ("" if goes_on else "\n")
    return joined, [heading, *labels]


async def terminal_export(db: Path, name: str) -> str:
    """The operator's terminal beside the running app: a thread, so the app's loop goes on (a
    write it has under way would otherwise hold the file while the terminal waits for it)."""
    args = ("export", name, "--db", str(db), "--platform", "slack", "--team", TEAM)
    result = await asyncio.to_thread(zeroquiz_pack, *args)
    assert result.returncode == 0, result.stderr
    return result.stdout


async def terminal_add(db: Path, name: str, body: str) -> None:
    args = ("add", "-", "--name", name, "--db", str(db), "--platform", "slack", "--team", TEAM)
    result = await asyncio.to_thread(partial(zeroquiz_pack, *args, stdin=body))
    assert result.returncode == 0, result.stderr


async def open_admin(fake: FakeSlack, db_path: Path, clock: FakeClock, bank: Bank) -> SlackHarness:
    return await open_harness(fake, db_path, clock, bank, admins=frozenset({ADMIN}))


async def test_sixty_questions_come_back_whole_in_numbered_parts_through_the_response_url(
    fake: FakeSlack, db_path: Path, clock: FakeClock, bank: Bank
) -> None:
    slack = await open_admin(fake, db_path, clock, bank)
    try:
        await terminal_add(db_path, "our-cluster", big_pack(60))
        key = await slack.command("pack export our-cluster", user=ADMIN)
        await fake.wait_until(lambda: len(fake.replies[key]) == 2, "both messages")
        replies = fake.replies[key]
        assert all(r["response_type"] == "ephemeral" for r in replies)
        joined, (heading, *labels) = parts_of(replies)
        assert "Pack `our-cluster`, version 1, in 8 parts" in heading
        assert labels == [f"{n}/8" for n in range(1, 9)]
        assert joined == await terminal_export(db_path, "our-cluster")
        assert fake.ephemerals == [] and fake.problems == []
    finally:
        await slack.close()


async def test_a_pack_beyond_a_response_url_comes_as_ephemeral_messages_or_says_why_not(
    fake: FakeSlack, db_path: Path, clock: FakeClock, bank: Bank
) -> None:
    slack = await open_admin(fake, db_path, clock, bank)
    try:
        body = big_pack(99, explanation_words=60, long_line=True)  # ~65 kB, one 2,900 line
        await terminal_add(db_path, "runbook", body)
        count = len(export_messages(export_notice("en", "runbook", 1, body)))
        assert count > 5  # more than a response_url takes
        key = await slack.command("pack export runbook", user=ADMIN)
        await fake.wait_until(lambda: len(fake.ephemerals) == count, "every message")
        assert {(m["channel"], m["user"]) for m in fake.ephemerals} == {(CHANNEL, ADMIN)}
        joined, (heading, *labels) = parts_of(fake.ephemerals)
        total = len(labels)
        assert f"Pack `runbook`, version 1, in {total} parts" in heading
        assert labels == [f"{n}/{total}" for n in range(1, total + 1)]
        assert joined == await terminal_export(db_path, "runbook")
        assert fake.replies[key] == [] and fake.problems == []
        # A channel the app can't post in: the person is told why, through the response_url.
        fake.errors["chat.postEphemeral"] = ["channel_not_found"]
        said = await slack.ask("pack export runbook", user=ADMIN)
        text = said["blocks"][0]["text"]["text"]
        assert f"Sending pack `runbook` stopped after part 0 of {total}" in text
        assert "Invite it with `/invite @ZeroQuiz`" in text and "zeroquiz pack export" in text
    finally:
        await slack.close()


def test_every_export_message_fits_block_kit_and_its_parts_join_back_exactly() -> None:
    """Whatever a pack holds (escapes that grow, long lines, ``` ), each message passes the
    fake's Block Kit check and the parts put together are the YAML (``` shown as ''')."""
    rng = random.Random(22)
    alphabet = "ab &<>`\n\n  é—"
    for _ in range(200):
        body = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30_000)))
        view = export_notice(rng.choice(["en", "id"]), "p", 3, body)
        messages = export_messages(view)
        for message in messages:
            assert block_problems(message.blocks) == [], body[:80]
            assert len(message.text) <= 3000
        shown = [{"blocks": m.blocks} for m in messages]
        joined, _ = parts_of(shown)
        if "```" not in body:
            assert joined in (body, body + "\n")
        else:  # each ``` in a part shows as ''' (the same length); the heading says so
            assert len(joined) in (len(body), len(body) + 1)
            assert "```" in shown[0]["blocks"][0]["text"]["text"].split("\n")[1]
