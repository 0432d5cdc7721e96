"""Bad input through the gateway: interactions Discord would never send, and custom_ids that aren't
ours, against the real discord.py client. No traceback ever, and a button under our prefix always
gets its private answer. What discord.py parses, ZeroQuiz checks before its handlers read it (one
line, the bot carries on); what discord.py can't parse raises in its gateway reader, before any
public hook, and ends the connection: the surface is reported lost in one line, and `serve`
exits 75 to be restarted (tests/serve)."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest
from fake_discord import (
    CHANNEL_ID,
    EPHEMERAL,
    GUILD_ID,
    MANAGE_GUILD,
    BotFactory,
    FakeDiscord,
    RunningBot,
    custom_ids,
    user,
)
from hypothesis import strategies as st
from properties import (
    JSON_VALUES,
    ODD_STRINGS,
    assert_no_tracebacks,
    mutations,
    run_examples,
    tracebacks,
)

from bot.model import ChannelRef

Json = dict[str, Any]
INVALID = "That button is no longer valid."
NOT_MINE = ("That button isn't mine",)
VERDICT = ("✅ Correct!", "❌ Not quite")
CHANNEL = ChannelRef("discord", str(GUILD_ID), str(CHANNEL_ID))


def text_of(reply: Json) -> str:
    return str(reply["embeds"][0].get("description") or "")


async def answers(bot: RunningBot) -> int:
    rows = await bot.runtime.store.rounds.in_channel(CHANNEL)
    return sum([await bot.runtime.store.rounds.total_answers(r.id) for r in rows])


def showing(message: Json, custom_id: Any) -> Json:
    """The question message as if it carried one button with this custom_id."""
    button = {"type": 2, "style": 2, "label": "A", "custom_id": custom_id}
    return message | {"components": [{"type": 1, "components": [button]}]}


class Quiz:
    """A bot with a question open, and what it takes to click on it."""

    def __init__(self, fake: FakeDiscord, bots: BotFactory, bot: RunningBot, mid: int) -> None:
        self.fake, self.bots, self.bot, self.mid = fake, bots, bot, mid
        self.ids = custom_ids(fake.messages[mid])

    @property
    def message(self) -> Json:
        return self.fake.messages[self.mid]

    async def ended(self) -> bool:
        """Whether the client's connection ended on what was sent before: a command sent after
        it is answered, or the surface is reported lost."""
        token = ""
        if self.fake.connected:
            with contextlib.suppress(AssertionError):  # the connection closed meanwhile
                token = await self.fake.slash("help")
        lost = self.bot.runtime.lost
        await self.fake.wait_for(lambda: lost.is_set() or self.fake.responses.get(token))
        return lost.is_set()

    async def restart(self) -> None:
        """A new bot on the same database, as the supervisor restarts `serve` (exit 75)."""
        assert self.bot.runtime.lost_reason.startswith("discord: the connection ended (")
        await self.bots.stop(self.bot)
        self.bot = await self.bots.start()

    async def verdict_after(self, who: Json) -> None:
        """The bot still works: a plain click gets its verdict."""
        reply = await self.fake.reply_to(await self.fake.click(self.mid, self.ids[0], who))
        assert reply["flags"] & EPHEMERAL
        assert text_of(reply).startswith(("✅ Correct!", "❌ Not quite")), text_of(reply)

    async def alive(self) -> None:
        """The gateway still delivers interactions: a command gets its answer."""
        assert self.fake.connected == 1
        reply = await self.fake.reply_to(await self.fake.slash("help"))
        assert reply["flags"] & EPHEMERAL


@pytest.fixture
async def quiz(bots: BotFactory, fake_discord: FakeDiscord) -> Quiz:
    bot = await bots.start()
    await fake_discord.reply_to(await fake_discord.slash("question"))
    return Quiz(fake_discord, bots, bot, fake_discord.posted[-1])


def logged_since(caplog: pytest.LogCaptureFixture, before: int) -> list[str]:
    return [r.getMessage() for r in caplog.records[before:]]


ENDED = "the Discord connection ended: "  # the surface's one line (ERROR) when it is lost


def assert_nothing_else(caplog: pytest.LogCaptureFixture) -> None:
    """No traceback and no ERROR line but the connections' ends this test caused."""
    found = [line for line in tracebacks(caplog.records) if ENDED not in line]
    assert found == [], found


NOT_OURS = {  # each case with one bot: a running bot per case would cost seconds
    "superscript two": "zq:a:²:0",
    "Arabic-Indic three": "zq:a:٣:0",
    "Arabic-Indic option": "zq:a:1:٠",
    "5000-digit round": "zq:a:" + "9" * 5000 + ":0",
    "beyond int64": "zq:a:" + "9" * 20 + ":0",
    "huge option": "zq:a:1:" + "1" * 30,
    "negative": "zq:a:-1:0",
    "trailing newline": "zq:a:1:0\n",
    "nothing after the prefix": "zq:a:",
}


async def test_a_custom_id_that_is_not_ours_gets_a_private_no_longer_valid(
    quiz: Quiz, caplog: pytest.LogCaptureFixture
) -> None:
    for case, custom_id in NOT_OURS.items():
        seen = showing(quiz.message, custom_id)
        reply = await quiz.fake.reply_to(
            await quiz.fake.click(quiz.mid, custom_id, user(1), seen=seen)
        )
        assert reply["flags"] & EPHEMERAL and text_of(reply) == INVALID, case
    assert await answers(quiz.bot) == 0
    await quiz.verdict_after(user(1))  # nothing was recorded for them meanwhile
    assert_no_tracebacks(caplog)


# discord.py parses these; ZeroQuiz's own check drops them with one line.
DROPPED: list[tuple[Json, str]] = [
    ({"token": None}, "token is missing or not a string"),
    ({"guild_id": None}, "user is missing"),  # outside a server discord.py reads `user`
    ({"member": FakeDiscord.member(user(1) | {"global_name": ["x"]})}, "a name is not a string"),
    ({"member": FakeDiscord.member(user(1)) | {"nick": 5}}, "a name is not a string"),
]
# discord.py parses these too, and they get their private answer.
ANSWERED: list[tuple[Json, tuple[str, ...]]] = [
    ({"data": {"custom_id": 7, "component_type": 2}}, NOT_MINE),
    ({"data": {"custom_id": "zq:a:1:0", "component_type": "2"}}, NOT_MINE),
    ({"message": {"components": None}}, VERDICT),  # no message discord.py can read: none
    ({"message": {"flags": None, "components": []}}, VERDICT),
]
# discord.py can't parse these: its gateway reader raises, and the connection ends.
UNREADABLE: list[tuple[Json, str]] = [
    ({"data": {"component_type": 2}}, "KeyError: 'custom_id'"),
    ({"data": {"custom_id": ["zq:a:1:0"], "component_type": 2}}, "TypeError: unhashable"),
    ({"data": {"custom_id": "zq:a:1:0"}}, "KeyError: 'component_type'"),
    ({"data": None}, "TypeError"),
    ({"data": "zq:a:1:0"}, "TypeError"),
    ({"id": "not-a-snowflake"}, "ValueError"),
    ({"version": None, "application_id": None}, "TypeError"),
    ({"member": {"user": "someone"}}, "TypeError"),
    ({"guild_id": "a guild"}, "ValueError"),
    ({"member": {"user": user(1)}}, "KeyError: 'roles'"),
]


async def test_an_interaction_discord_would_never_send_is_dropped_with_one_line(
    quiz: Quiz, caplog: pytest.LogCaptureFixture
) -> None:
    for change, problem in DROPPED:
        payload = quiz.fake.click_payload(quiz.mid, quiz.ids[0], user(1)) | change
        before = len(caplog.records)
        await quiz.fake.send_event("INTERACTION_CREATE", payload)
        await quiz.alive()
        [line] = logged_since(caplog, before)
        assert line == f"discord: dropped a malformed INTERACTION_CREATE ({problem})", line
    assert await answers(quiz.bot) == 0
    for n, (change, said) in enumerate(ANSWERED, 10):
        payload = quiz.fake.click_payload(quiz.mid, quiz.ids[0], user(n)) | change
        await quiz.fake.send_event("INTERACTION_CREATE", payload)
        reply = await quiz.fake.reply_to(payload["token"])
        assert reply["flags"] & EPHEMERAL and text_of(reply).startswith(said), change
    await quiz.alive()
    assert_no_tracebacks(caplog)


async def test_an_interaction_discord_py_cannot_parse_ends_the_connection_with_one_line(
    quiz: Quiz, caplog: pytest.LogCaptureFixture
) -> None:
    """No public hook of discord.py comes before its parse: the surface is lost (one line), and
    a new process (here a new bot on the same database) carries on."""
    for change, error in UNREADABLE:
        payload = quiz.fake.click_payload(quiz.mid, quiz.ids[0], user(1)) | change
        before = len(caplog.records)
        await quiz.fake.send_event("INTERACTION_CREATE", payload)
        assert await quiz.ended(), change
        [line] = logged_since(caplog, before)
        assert line.startswith(ENDED) and error in line, line
        await quiz.restart()
    await quiz.verdict_after(user(1))
    assert_nothing_else(caplog)


async def test_a_name_no_database_can_store_does_not_lose_the_answer(
    quiz: Quiz, caplog: pytest.LogCaptureFixture
) -> None:
    """JSON's "\\ud800" decodes to a lone surrogate, which SQLite refuses: and the answers of
    everyone in the same group commit with it."""
    who = user(7) | {"global_name": "\ud800"}
    reply = await quiz.fake.reply_to(await quiz.fake.click(quiz.mid, quiz.ids[0], who))
    assert text_of(reply).startswith(("✅ Correct!", "❌ Not quite")), text_of(reply)
    assert await answers(quiz.bot) == 1
    assert_no_tracebacks(caplog)


def command_with(fake: FakeDiscord, options: Any) -> Json:
    """/zeroquiz with these raw options (as Discord would put them in `data.options`)."""
    payload = fake.slash_payload("help")
    return payload | {"data": payload["data"] | {"options": options}}


MISMATCHED: list[Any] = [
    [{"name": "nope", "type": 1, "options": []}],  # an unknown subcommand
    [{"name": "start", "type": 1, "options": []}],  # its required option missing
    [{"name": "start", "type": 1, "options": [{"name": "size", "type": 4, "value": 3}]}],
]


async def test_a_command_that_does_not_match_ours_gets_a_private_answer(
    quiz: Quiz, caplog: pytest.LogCaptureFixture
) -> None:
    for options in MISMATCHED:
        payload = command_with(quiz.fake, options)
        before = len(caplog.records)
        await quiz.fake.send_event("INTERACTION_CREATE", payload)
        reply = await quiz.fake.reply_to(payload["token"])
        assert reply["flags"] & EPHEMERAL
        assert text_of(reply).startswith("That command doesn't match this bot's /zeroquiz")
        [line] = logged_since(caplog, before)
        assert line.startswith("discord: refused a command that doesn't match /zeroquiz")
    assert_no_tracebacks(caplog)


def subcommand(name: str, *options: Json) -> list[Json]:
    return [{"name": name, "type": 1, "options": list(options)}]


ILL_TYPED: list[tuple[Any, str]] = [
    ("leaderboard", "options are not a list of subcommands and options"),
    ([["leaderboard"]], "an option is not an object with a name"),
    ([{"name": "leaderboard", "type": "1"}], "an option's type is not an integer"),
    (
        subcommand("leaderboard", {"name": "period", "type": 3, "value": 5}),
        "an option's value does not have its option's type",
    ),
    (
        subcommand("start", {"name": "count", "type": 4, "value": True}),
        "an option's value does not have its option's type",
    ),
    (
        subcommand("start", {"name": "count", "type": 4}),
        "an option's value does not have its option's type",
    ),
]


async def test_a_command_discord_would_never_send_is_dropped_with_one_line(
    quiz: Quiz, caplog: pytest.LogCaptureFixture
) -> None:
    for options, problem in ILL_TYPED:
        before = len(caplog.records)
        await quiz.fake.send_event("INTERACTION_CREATE", command_with(quiz.fake, options))
        await quiz.alive()
        assert logged_since(caplog, before) == [
            f"discord: dropped a malformed INTERACTION_CREATE ({problem})"
        ]
    assert len(quiz.fake.posted) == 1  # nothing started
    assert_no_tracebacks(caplog)


async def test_a_click_delivered_twice_is_recorded_and_answered_once_without_a_traceback(
    quiz: Quiz, caplog: pytest.LogCaptureFixture
) -> None:
    payload = quiz.fake.click_payload(quiz.mid, quiz.ids[0], user(1))
    await quiz.fake.send_event("INTERACTION_CREATE", payload)
    first = await quiz.fake.reply_to(payload["token"])
    before = len(caplog.records)
    await quiz.fake.send_event("INTERACTION_CREATE", payload)  # the same id and token again
    said = "discord: a click was answered already"
    await quiz.fake.wait_for(lambda: said in logged_since(caplog, before))
    assert await quiz.fake.reply_to(payload["token"]) == first
    assert await answers(quiz.bot) == 1
    assert_no_tracebacks(caplog)


async def test_an_interaction_delivered_twice_is_answered_once_without_a_traceback(
    quiz: Quiz, caplog: pytest.LogCaptureFixture
) -> None:
    # The fixture's question closes first: a channel has one open question at a time.
    closed = await quiz.fake.reply_to(await quiz.fake.slash("close", permissions=MANAGE_GUILD))
    assert "Closed the open question." in text_of(closed)
    for sub in ("leaderboard", "question"):
        payload = quiz.fake.slash_payload(sub)
        posted = len(quiz.fake.posted)
        await quiz.fake.send_event("INTERACTION_CREATE", payload)
        await quiz.fake.reply_to(payload["token"])
        want = posted + (sub == "question")
        # The question is a channel message of its own, posted after the reply.
        await quiz.fake.wait_for(lambda: len(quiz.fake.posted) == want)  # noqa: B023
        before = len(caplog.records)
        # The same id and token again, as a repeated delivery would carry.
        await quiz.fake.send_event("INTERACTION_CREATE", payload)
        # The repeat's refusal comes back from Discord after `alive()` may have returned.
        line = f"/zeroquiz {sub} was answered already"
        await quiz.fake.wait_for(lambda: line in logged_since(caplog, before))  # noqa: B023
        await quiz.alive()
        assert len(quiz.fake.posted) == want  # one question, not two
    assert_no_tracebacks(caplog)


# -- properties ---------------------------------------------------------------------------------
async def after_any(quiz: Quiz, before: int, caplog: pytest.LogCaptureFixture) -> None:
    """Never a traceback; either the bot answers as before, or the connection ended on what
    discord.py couldn't parse, in one line, and a restart carries on. Each example's handling
    ends before the next is sent: an answer in flight when a later payload ends the connection
    fails with it (discord.py closes its HTTP session), which is that payload's doing."""
    ended = await quiz.ended()
    if not ended:
        await quiz.fake.wait_for(lambda: quiz.bot.surface.gate.count == 0)
    assert [t for t in tracebacks(caplog.records[before:]) if ENDED not in t] == []
    if ended:
        said = [line for line in logged_since(caplog, before) if ENDED in line]
        assert len(said) == 1, said
        await quiz.restart()
    await quiz.alive()


async def test_random_component_interactions_never_leave_a_traceback(
    quiz: Quiz, caplog: pytest.LogCaptureFixture
) -> None:
    fake = quiz.fake
    base = fake.click_payload(quiz.mid, quiz.ids[0], user(50))
    payloads = st.one_of(
        mutations(base, ODD_STRINGS),  # a real click, damaged
        st.builds(lambda data: base | {"data": data}, JSON_VALUES),
        st.builds(  # a button the message shows, under our prefix or not
            lambda prefix, rest: ("shown", prefix + rest),
            st.just("zq:a:") | st.text(max_size=8),
            ODD_STRINGS,
        ),
    )

    async def check(example: Any) -> None:
        before = len(caplog.records)
        if isinstance(example, tuple):  # a button the message really shows: it gets its answer
            _, custom_id = example
            seen = showing(quiz.message, custom_id)
            token = await fake.click(quiz.mid, custom_id, user(50), seen=seen)
            if custom_id.startswith("zq:a:"):
                reply = await fake.reply_to(token)
                assert reply["flags"] & EPHEMERAL
        else:
            payload = json.loads(json.dumps(example))
            if payload.get("token") == base["token"]:  # a fresh interaction each time
                fresh = fake.click_payload(quiz.mid, quiz.ids[0], user(50))
                payload |= {"id": fresh["id"], "token": fresh["token"]}
            await fake.send_event("INTERACTION_CREATE", payload)
        await after_any(quiz, before, caplog)

    await run_examples(payloads, check, max_examples=80)
    await quiz.verdict_after(user(51))
    await fake.wait_for(lambda: quiz.bot.surface.gate.count == 0)
    assert_nothing_else(caplog)


async def test_random_command_interactions_never_leave_a_traceback(
    quiz: Quiz, caplog: pytest.LogCaptureFixture
) -> None:
    fake = quiz.fake
    base = fake.slash_payload("leaderboard", {"period": "week"})
    payloads = st.one_of(
        mutations(base, ODD_STRINGS),
        st.builds(lambda options: command_with(fake, options), JSON_VALUES),
    )

    async def check(example: Any) -> None:
        before = len(caplog.records)
        payload = json.loads(json.dumps(example))
        if payload.get("token") == base["token"]:
            fresh = fake.slash_payload("help")
            payload |= {"id": fresh["id"], "token": fresh["token"]}
        await fake.send_event("INTERACTION_CREATE", payload)
        await after_any(quiz, before, caplog)

    await run_examples(payloads, check, max_examples=60)
    await quiz.verdict_after(user(51))
    await fake.wait_for(lambda: quiz.bot.surface.gate.count == 0)
    assert_nothing_else(caplog)
