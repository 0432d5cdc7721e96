"""The team controls with the real discord.py client against the fake Discord: Manage Server
sets the channel's answer window (typed option) and starts a season, both in force after a
restart; `forget` takes a user option (resolved as Discord sends it) or none for oneself, asks
first and deletes on `confirm` (read back from the database file); the audit log lists the
admin actions newest first after a restart; members without Manage Server are refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fake_discord import (
    EPHEMERAL,
    MANAGE_GUILD,
    BotFactory,
    FakeDiscord,
    custom_ids,
    latest_round,
    right_option,
    text_of,
    user,
)
from helpers import peek

ANA, BUDI = user(1, "Ana"), user(2, "Budi")


async def said(
    fake: FakeDiscord, sub: str, options: dict[str, Any] | None = None, **kw: Any
) -> dict[str, Any]:
    reply = await fake.reply_to(await fake.slash(sub, options, **kw))
    assert reply["flags"] & EPHEMERAL
    return reply


async def forget(fake: FakeDiscord, who: dict[str, Any], person: dict[str, Any] | None,
                 confirm: bool, permissions: int = 0) -> str:  # fmt: skip
    """`/zeroquiz forget [person:@x] [confirm:True]`, the user option resolved as Discord
    sends it (the user's object in `data.resolved`)."""
    options: dict[str, Any] = {}
    if person is not None:
        options["person"] = person["id"]
    if confirm:
        options["confirm"] = True
    payload = fake.slash_payload("forget", options, who=who, permissions=permissions)
    if person is not None:
        member: dict[str, Any] = {
            "roles": [], "joined_at": "2025-01-01T00:00:00+00:00", "nick": None, "flags": 0,
            "permissions": "0",
        }  # fmt: skip
        payload["data"]["resolved"] = {
            "users": {person["id"]: person}, "members": {person["id"]: member}
        }  # fmt: skip
    await fake.send_event("INTERACTION_CREATE", payload)
    return text_of(await fake.reply_to(str(payload["token"])))


def players(db_path: Path) -> set[str]:
    return {str(r[0]) for r in peek(db_path, "SELECT platform_user FROM players")}


async def test_window_season_forget_and_audit_across_restarts(
    bots: BotFactory, fake_discord: FakeDiscord, db_path: Path
) -> None:
    fake = fake_discord
    bot = await bots.start()
    for sub, options in (("window", {"length": "30m"}), ("season", {"new": True}), ("audit", {})):
        refused = await said(fake, sub, options, who=BUDI)
        assert text_of(refused) == "Only admins can do that.", sub
    refused_forget = await forget(fake, BUDI, ANA, confirm=True)
    assert refused_forget.startswith("Only admins can delete someone else's data")
    admin: dict[str, Any] = {"who": ANA, "permissions": MANAGE_GUILD}
    assert "now stay open 30 min" in text_of(await said(fake, "window", {"length": "30m"}, **admin))
    bad = await said(fake, "window", {"length": "a week"}, **admin)
    assert "is not an answer window" in text_of(bad)
    assert "A new season began today" in text_of(await said(fake, "season", {"new": True}, **admin))

    await fake.reply_to(await fake.slash("question", who=ANA))
    [mid] = fake.posted
    row = await latest_round(bot)
    assert (row.deadline_at - row.opened_at).total_seconds() == 30 * 60
    ids = custom_ids(fake.messages[mid])
    for who in (ANA, BUDI):
        await fake.reply_to(await fake.click(mid, ids[right_option(bot, row)], who))
    await bots.stop(bot)

    bot = await bots.start()  # a restart
    shown = text_of(await said(fake, "window", **admin))
    assert "30 min (set by an admin)" in shown
    await bots.clock.advance(20 * 60)
    await bot.runtime.scheduler.caught_up()
    assert fake.messages[mid]["components"]  # still open after the default 10 minutes
    await bots.clock.advance(11 * 60)
    await fake.wait_for(lambda: fake.messages[mid]["components"] == [])
    revealed = dict(fake.messages[mid])

    board = await said(fake, "leaderboard", {"period": "all"}, who=ANA)
    assert "season since" in board["embeds"][0]["title"]
    asked = await forget(fake, ANA, BUDI, confirm=False, permissions=MANAGE_GUILD)
    assert "It can't be undone" in asked and BUDI["id"] in players(db_path)
    done = await forget(fake, ANA, BUDI, confirm=True, permissions=MANAGE_GUILD)
    assert done.startswith("Done: that person's 1 answers")
    assert players(db_path) == {ANA["id"]}
    assert fake.messages[mid] == revealed  # the reveal is never edited afterwards
    assert "your 1 answers" in await forget(fake, ANA, None, confirm=False)
    assert "your 1 answers" in await forget(fake, ANA, None, confirm=True)
    assert players(db_path) == set()
    assert peek(db_path, "SELECT COUNT(*) FROM answers") == [(0,)]
    await bots.stop(bot)

    await bots.start()  # the log survives the restart
    log = await said(fake, "audit", **admin)
    embed = log["embeds"][0]
    assert embed["title"] == "ZeroQuiz · Admin actions"
    lines = [line for line in embed["description"].splitlines() if "UTC · " in line]
    assert len(lines) == 3
    assert lines[0].endswith("deleted a person's data (forget)") and BUDI["id"] not in lines[0]
    assert lines[1].endswith("/zeroquiz season new")
    assert lines[2].endswith("/zeroquiz window 30m")
    paged = await said(fake, "audit", {"page": 2}, **admin)
    assert text_of(paged) == "There is no page 2: the log has 1."


BAD_RESOLVED: list[tuple[Any, str]] = [
    ({"channels": {}}, "command data resolves users, channels or roles"),
    ({"users": []}, "resolved users or members are not objects"),
    ({"users": {"5": {"id": "6", "username": "x"}}}, "a resolved user is not an object with its own id"),  # noqa: E501
    ({"users": {"5": {"id": "5", "username": 7}}}, "a resolved user's name is not a string"),
    ({"users": {}, "members": {"5": {}}}, "a resolved member is not an object of a resolved user"),
    (
        {"users": {"5": {"id": "5", "username": "x"}}, "members": {"5": {"roles": ["r"]}}},
        "a resolved member's roles are not snowflakes",
    ),
]  # fmt: skip


async def test_a_forget_whose_resolved_person_discord_would_never_send_is_dropped(
    bots: BotFactory, fake_discord: FakeDiscord, caplog: Any
) -> None:
    await bots.start()
    for resolved, problem in BAD_RESOLVED:
        payload = fake_discord.slash_payload("forget", {"person": "5"}, permissions=MANAGE_GUILD)
        payload["data"]["resolved"] = resolved
        before = len(caplog.records)
        await fake_discord.send_event("INTERACTION_CREATE", payload)
        line = f"discord: dropped a malformed INTERACTION_CREATE ({problem})"

        def logged(line: str = line, before: int = before) -> bool:
            return line in [r.getMessage() for r in caplog.records[before:]]

        await fake_discord.wait_for(logged)
        assert str(payload["token"]) not in fake_discord.responses  # nothing answered or done
    assert not [r for r in caplog.records if r.exc_info]  # one line each, no traceback
    help_reply = await fake_discord.reply_to(await fake_discord.slash("help"))
    assert "/zeroquiz forget" in text_of(help_reply)  # still connected, still answering
