"""The port contract, the same cases against every ChatPort: a post returns its reference; a
refusal raises Refused and a passing failure Unavailable, never the library's own errors, and
that for every method a port has (posts, live-count edits, reveals, stray copies, notices).

Slack and Discord run their real adapters against the fakes; the console cannot fail at all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import fake_discord as fd
import pytest
from fake_slack import BOT_TOKEN, CHANNEL, QUICK_RETRIES, TEAM, FakeSlack, shown
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
METHODS = ("post_question", "update_question", "post_reveal", "reveal_stray", "post_notice")
# refused: the platform says no; passing: it says "not now"; raw: its library fails on its own
# (a connection cut after the library's retries), which the port must map too.
Failure = Literal["refused", "passing", "raw"]
FAILURES: tuple[Failure, ...] = ("refused", "passing", "raw")


@dataclass
class Case:
    port: ChatPort
    channel: ChannelRef
    refuse: Callable[[], None] | None  # the next post is refused (None: this port never is)
    unavailable: Callable[[], None] | None  # the next post fails for a passing reason
    posted: Callable[[], int]  # how many messages the platform shows
    shows: Callable[[str], str]  # what a message shows now, as text ("" if the port can't tell)
    gone: str  # a reference to a message that doesn't exist (deleted)
    # The next call of that method meets that failure; False if the platform can't produce it.
    fail: Callable[[str, Failure], bool] = lambda method, failure: False


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

    def fail(method: str, failure: Failure) -> bool:
        if failure == "raw":
            return False  # no library below it
        error = Refused("not allowed") if failure == "refused" else Unavailable("offline")
        rec.failures.setdefault(method, []).append(error)
        return True

    return Case(rec, ChannelRef("test", "T1", "C1"), refuse, unavailable,
                lambda: len(rec.posted), shows, "msg-gone", fail)  # fmt: skip


@pytest.fixture
def slack_case(fake: FakeSlack) -> Case:
    port = SlackPort(build_client(BOT_TOKEN, fake.api_url + "/", backoff=QUICK_RETRIES), english)

    def refuse() -> None:
        fake.errors["chat.postMessage"].append("not_in_channel")

    def unavailable() -> None:
        fake.errors["chat.postMessage"].append("internal_error")

    def shows(ts: str) -> str:
        return shown(fake.messages[ts]["blocks"]) if ts in fake.messages else ""

    def fail(method: str, failure: Failure) -> bool:
        api = "chat.postMessage" if method in ("post_question", "post_notice") else "chat.update"
        if failure == "raw":
            fake.drops[api] += 3  # more cut connections than slack_sdk tries again
        else:
            fake.errors[api].append("not_in_channel" if failure == "refused" else "internal_error")
        return True

    return Case(port, ChannelRef("slack", TEAM, CHANNEL), refuse, unavailable,
                lambda: len(fake.posted), shows, "1700000000.999999", fail)  # fmt: skip


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

    def fail(method: str, failure: Failure) -> bool:
        route = "post" if method in ("post_question", "post_notice") else "edit"
        # 503 is not retried by discord.py, nor a cut connection (it knows only BSD's errno).
        faults: dict[Failure, int | str] = {"refused": 403, "passing": 503, "raw": "cut"}
        fake.faults.setdefault(route, []).append(faults[failure])
        return True

    gone = f"{fd.CHANNEL_ID}:{fd.CHANNEL_ID + 999}"
    return Case(bot.surface.port, channel, refuse, unavailable,
                lambda: len(fake.posted), shows, gone, fail)  # fmt: skip


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


async def call(case: Case, method: str, ref: str, bank: Bank) -> None:
    """One call of a port method, on the message `ref` where it edits one."""
    if method == "post_question":
        await case.port.post_question(case.channel, question_view(bank, case), dedupe_key=None)
    elif method == "update_question":
        await case.port.update_question(case.channel, ref, question_view(bank, case))
    elif method == "post_reveal":
        await case.port.post_reveal(case.channel, ref, reveal_view(bank, case))
    elif method == "reveal_stray":
        await case.port.reveal_stray(case.channel, ref, reveal_view(bank, case))
    else:
        await case.port.post_notice(case.channel, NoticeView("en", "hello"))


@pytest.mark.parametrize("failure", FAILURES)
@pytest.mark.parametrize("method", METHODS)
async def test_every_method_fails_only_with_the_contracts_errors(
    case: Case, bank: Bank, method: str, failure: Failure
) -> None:
    """Refused for a refusal; Unavailable for a passing failure and for whatever the library
    lets through on its own; and the port goes on working after it."""
    ref = await case.port.post_question(case.channel, question_view(bank, case))
    assert ref is not None  # the message the edits are made to
    if not case.fail(method, failure):
        pytest.skip(f"{case.port.platform} cannot meet a {failure} failure in {method}")
    with pytest.raises(DeliveryError) as raised:
        await call(case, method, ref, bank)
    assert isinstance(raised.value, Refused if failure == "refused" else Unavailable)
    assert raised.value.reason  # something to log, or to tell an admin
    await call(case, method, ref, bank)  # the next call goes through
