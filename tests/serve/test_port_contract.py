"""The port contract, the same cases against every ChatPort: a post returns its reference; a
refusal raises Refused and a passing failure Unavailable, never the library's own errors.

Slack and Discord run their real adapters against the fakes; the console cannot fail at all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import fake_discord as fd
import pytest
from fake_slack import BOT_TOKEN, CHANNEL, TEAM, FakeSlack, shown
from helpers import RecordingPort, round_row

from adapters.console.port import ConsolePort
from adapters.slack.port import SlackPort
from adapters.slack.web import build_client
from bot import presenter
from bot.bank import Bank
from bot.model import ChannelRef, Lang
from bot.ports import ChatPort, DeliveryError, Refused, Unavailable
from bot.views import NoticeView, QuestionView, RevealView

PORTS = ("console", "recording", "slack", "discord")


@dataclass
class Case:
    port: ChatPort
    channel: ChannelRef
    refuse: Callable[[], None] | None  # the next post is refused (None: this port never is)
    unavailable: Callable[[], None] | None  # the next post fails for a passing reason
    posted: Callable[[], int]  # how many messages the platform shows
    shows: Callable[[str], str]  # what a message shows now, as text ("" if the port can't tell)
    gone: str  # a reference to a message that doesn't exist (deleted)


async def english(_: ChannelRef) -> Lang:
    return "en"


@pytest.fixture
def console_case() -> Case:
    console = ConsolePort()
    return Case(console, ChannelRef("console", "local", "t"), None, None,
                lambda: len(console.questions), lambda _: "", "none")  # fmt: skip


@pytest.fixture
def recording_case() -> Case:
    rec = RecordingPort()

    def refuse() -> None:
        rec.fail_posts.append(Refused("not allowed"))

    def unavailable() -> None:
        rec.fail_posts.append(Unavailable("offline"))

    def shows(ref: str) -> str:
        return next((v.explanation for r, v in reversed(rec.reveals) if r == ref), "")

    return Case(rec, ChannelRef("test", "T1", "C1"), refuse, unavailable,
                lambda: len(rec.posted), shows, "msg-gone")  # fmt: skip


@pytest.fixture
def slack_case(fake: FakeSlack) -> Case:
    port = SlackPort(build_client(BOT_TOKEN, fake.api_url + "/"), english)

    def refuse() -> None:
        fake.errors["chat.postMessage"].append("not_in_channel")

    def unavailable() -> None:
        fake.errors["chat.postMessage"].append("internal_error")

    def shows(ts: str) -> str:
        return shown(fake.messages[ts]["blocks"]) if ts in fake.messages else ""

    return Case(port, ChannelRef("slack", TEAM, CHANNEL), refuse, unavailable,
                lambda: len(fake.posted), shows, "1700000000.999999")  # fmt: skip


@pytest.fixture
async def discord_case(bots: fd.BotFactory) -> Case:
    bot = await bots.start()
    fake = bots.fake

    def refuse() -> None:
        fake.post_failures.append(403)

    def unavailable() -> None:
        fake.post_failures.append(503)

    channel = ChannelRef("discord", str(fd.GUILD_ID), str(fd.CHANNEL_ID))

    def shows(ref: str) -> str:
        message = fake.messages.get(int(ref.split(":")[1]))
        if message is None or message["components"]:
            return ""  # gone, or still a question with buttons
        return "\n".join(str(f.get("value")) for f in message["embeds"][0].get("fields", []))

    gone = f"{fd.CHANNEL_ID}:{fd.CHANNEL_ID + 999}"
    return Case(bot.surface.port, channel, refuse, unavailable,
                lambda: len(fake.posted), shows, gone)  # fmt: skip


@pytest.fixture(params=PORTS)
def case(request: pytest.FixtureRequest) -> Case:
    found: Case = request.getfixturevalue(f"{request.param}_case")
    return found


def question_view(bank: Bank, case: Case) -> QuestionView:
    row = round_row(
        bank.questions[0], "en", platform=case.port.platform, opened_at=1_767_603_600_000
    )
    return presenter.question_view(row, bank.questions[0], 0)


def reveal_view(bank: Bank, case: Case) -> RevealView:
    row = round_row(
        bank.questions[0], "en", platform=case.port.platform, opened_at=1_767_603_600_000
    )
    return presenter.reveal_view(row, bank.questions[0], {0: 2, 1: 1}, None)


async def test_a_post_reaches_the_platform_and_names_its_message(case: Case, bank: Bank) -> None:
    ref = await case.port.post_question(case.channel, question_view(bank, case))
    assert case.posted() == 1
    assert isinstance(ref, str) and ref  # what live counts and the reveal will edit
    await case.port.post_notice(case.channel, NoticeView("en", "hello"))  # and notices go out


async def test_a_refusal_raises_refused(case: Case, bank: Bank) -> None:
    if case.refuse is None:
        pytest.skip(f"{case.port.platform} cannot refuse a post")
    case.refuse()
    with pytest.raises(Refused) as refused:
        await case.port.post_question(case.channel, question_view(bank, case))
    assert refused.value.reason  # something to tell the person who asked
    assert case.posted() == 0


async def test_a_passing_failure_raises_unavailable(case: Case, bank: Bank) -> None:
    if case.unavailable is None:
        pytest.skip(f"{case.port.platform} cannot fail")
    case.unavailable()
    with pytest.raises(Unavailable):
        await case.port.post_question(case.channel, question_view(bank, case))
    assert case.posted() == 0
    await case.port.post_question(case.channel, question_view(bank, case))  # then it goes through
    assert case.posted() == 1


async def test_only_contract_errors_leave_a_port(case: Case, bank: Bank) -> None:
    for inject in (case.refuse, case.unavailable):
        if inject is None:
            continue
        inject()
        with pytest.raises(DeliveryError) as raised:
            await case.port.post_question(case.channel, question_view(bank, case))
        assert isinstance(raised.value, Refused | Unavailable)


async def test_a_stray_copy_shows_the_reveal_in_place_and_nothing_is_posted_anew(
    case: Case, bank: Bank
) -> None:
    ref = await case.port.post_question(case.channel, question_view(bank, case))
    assert ref is not None
    reveal = reveal_view(bank, case)
    await case.port.reveal_stray(case.channel, ref, reveal)
    if case.port.platform != "console":  # the terminal shows each question once, as typed
        assert reveal.explanation.split()[0] in case.shows(ref)
    await case.port.reveal_stray(case.channel, case.gone, reveal)  # deleted meanwhile: fine
    assert case.posted() == 1  # a copy is only ever edited
