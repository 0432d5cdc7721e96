"""The team controls over signed HTTP against the real Bolt app: an admin sets the channel's
answer window and starts a season, both still in force after a restart; `forget` asks first,
then deletes (read back from the database file), for oneself or, for an admin, someone named
with a mention as Slack escapes it; the audit log lists the admin actions newest first after a
restart; someone who isn't an admin is refused each admin control with a clear reply."""

from __future__ import annotations

from pathlib import Path

from fake_slack import FakeSlack, SlackHarness, open_harness, shown
from helpers import peek

from bot.bank import Bank
from bot.clock import FakeClock


def reveals(fake: FakeSlack, ts: str) -> list[str]:
    return [
        shown(c.args["blocks"])
        for c in fake.calls_to("chat.update")
        if c.args["ts"] == ts and all(b["type"] != "actions" for b in c.args["blocks"])
    ]


def right_letter(slack: SlackHarness, bank: Bank) -> str:
    _, message = slack.question()
    text = shown(message["blocks"])
    [question] = [q for q in bank.questions if q.prompt.en in text]
    right = question.options[question.answer].en
    return next(line for line in text.splitlines() if line.endswith(right))[1]


async def said(slack: SlackHarness, text: str, user: str) -> str:
    reply = await slack.ask(text, user=user)
    assert reply["response_type"] == "ephemeral"
    return shown(reply["blocks"])


def players(db_path: Path) -> set[str]:
    return {str(r[0]) for r in peek(db_path, "SELECT platform_user FROM players")}


async def test_window_season_forget_and_audit_across_a_restart(
    fake: FakeSlack, db_path: Path, clock: FakeClock, bank: Bank
) -> None:
    first = await open_harness(fake, db_path, clock, bank)
    try:
        for text in ("window 30m", "season new", "audit", "forget <@U2|alan.turing> confirm"):
            refused = await said(first, text, "U1")
            assert "Only admins" in refused, text
        assert "Questions in this channel now stay open 30 min" in await said(
            first, "window 30m", "UADMIN"
        )
        assert "is not an answer window" in await said(first, "window 3d", "UADMIN")
        assert "A new season began today" in await said(first, "season new", "UADMIN")
        await first.ask("question", user="U1")
        ts, _ = first.question()
        for user in ("U1", "U2"):
            status, key = await first.click(right_letter(first, bank), user=user)
            assert status == 200
            await fake.reply(key)
    finally:
        await first.close()

    second = await open_harness(fake, db_path, clock, bank)  # a restart
    try:
        assert "30 min (set by an admin)" in await said(second, "window", "UADMIN")
        await clock.advance(20 * 60)  # past the default 10 minutes, inside the channel's 30
        await second.runtime.scheduler.caught_up()
        assert reveals(fake, ts) == []
        await clock.advance(11 * 60)
        await fake.wait_until(lambda: bool(reveals(fake, ts)), "the reveal at 30 minutes")
        [reveal] = reveals(fake, ts)
        assert "2 of 2 answered right" in reveal

        board = await said(second, "leaderboard all", "U1")
        assert "season since " + clock.now().strftime("%Y-%m-%d") in board
        assert "1. Ada Lovelace · 10 pts" in board and "2. " in board  # two this season

        asked = await said(second, "forget <@U2|alan.turing>", "UADMIN")
        assert "It can't be undone" in asked and "confirm" in asked
        assert "U2" in players(db_path)  # asked first: nothing deleted yet
        done = await said(second, "forget <@U2|alan.turing> confirm", "UADMIN")
        assert done.startswith("Done: that person's 1 answers")
        assert players(db_path) == {"U1"}
        assert peek(db_path, "SELECT COUNT(*) FROM answers") == [(1,)]
        assert "2. " not in await said(second, "leaderboard all", "U1")
        assert reveals(fake, ts) == [reveal]  # the posted reveal is never edited

        assert "your 1 answers" in await said(second, "forget me", "U1")
        assert "U1" in players(db_path)
        assert "your 1 answers" in await said(second, "forget me confirm", "U1")
        assert players(db_path) == set()
        assert peek(db_path, "SELECT COUNT(*) FROM cards") == [(0,)]
        assert "Nothing is stored for you" in await said(second, "forget me", "U1")
        assert "names nobody" in await said(second, "forget @alan", "UADMIN")
    finally:
        await second.close()

    third = await open_harness(fake, db_path, clock, bank)  # the log survives restarts too
    try:
        log = await third.ask("audit", user="UADMIN")
        text = shown(log["blocks"])
        assert "ZeroQuiz · Admin actions" in text and "page 1 of 1 (3 in all)" in text
        lines = [line for line in text.splitlines() if "UTC · " in line]
        assert len(lines) == 3
        assert lines[0].endswith("deleted a person's data (forget)")
        assert "Grace Hopper (UADMIN)" in lines[0] and "U2" not in lines[0]
        assert lines[1].endswith("/zeroquiz season new")
        assert lines[2].endswith("/zeroquiz window 30m")
        assert "/zeroquiz audit" in await said(third, "help", "U1")
    finally:
        await third.close()
