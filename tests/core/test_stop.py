"""`/zeroquiz stop` and a run's kept filter: a stopped run reveals its open question, shows the
standings so far and never posts another question, here, after a restart or on a second replica;
a filtered run cut by a restart goes on with its filter. Both backends."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from conftest import CHANNEL
from helpers import RecordingPort, player, right_choice
from pg_server import on_both_backends

from bot.bank import Bank
from bot.clock import FakeClock
from bot.commands import Context, dispatch, help_view, parse_text
from bot.model import Lang, UserRef
from bot.quiz import Quiz
from bot.storage import Store
from bot.views import NoticeView, QuestionView

pytestmark = on_both_backends

ALICE = player("alice")  # starts the runs, not an admin
BOB = player("bob")


class Asked:
    """The platform's admin check, recording whether it was asked."""

    def __init__(self, answer: bool) -> None:
        self.answer = answer
        self.times = 0

    async def __call__(self) -> bool:
        self.times += 1
        return self.answer


async def say(quiz: Quiz, text: str, user: UserRef, admin: Asked | None = None) -> NoticeView:
    reply = await dispatch(quiz, parse_text(text), Context(CHANNEL, user, admin or Asked(False)))
    assert isinstance(reply, NoticeView)
    return reply


async def started(quiz: Quiz, port: RecordingPort, text: str = "start 3") -> QuestionView:
    reply = await say(quiz, text, ALICE)
    assert reply.ok, reply
    return port.posted[-1][1]


async def test_the_starter_stops_the_run_the_question_is_revealed_and_nothing_follows(
    quiz: Quiz, port: RecordingPort, bank: Bank, clock: FakeClock
) -> None:
    first = await started(quiz, port)
    await quiz.rounds.answer(first.round_id, BOB, right_choice(first, bank))
    await quiz.close_round(first.round_id, "deadline")
    second = port.posted[-1][1]
    assert second.title.endswith("2/3")
    await quiz.rounds.answer(second.round_id, ALICE, right_choice(second, bank))
    admin = Asked(False)
    reply = await say(quiz, "stop", ALICE, admin)
    assert reply.ok and reply.text.startswith("Run stopped")
    assert admin.times == 0  # the starter needs no admin check
    assert [v.round_id for _, v in port.reveals] == [first.round_id, second.round_id]
    ((_, standings),) = port.notices
    assert standings.title == "ZeroQuiz · Results of this run"
    assert standings.lines[0].startswith("1. Player ")  # both scored 10 points
    assert {line.split(" · ")[0][3:] for line in standings.lines} == {"Player alice", "Player bob"}
    await clock.advance(timedelta(hours=2).total_seconds())  # far past the window
    await quiz.process_due()
    assert len(port.posted) == 2 and len(port.reveals) == 2 and len(port.notices) == 1
    again = await say(quiz, "stop", ALICE)
    assert not again.ok and again.text == "No run is going in this channel."
    assert (await say(quiz, "start 2", BOB)).ok  # the channel is free for a new run


async def test_someone_else_is_refused_unless_an_admin(
    quiz: Quiz, port: RecordingPort, clock: FakeClock
) -> None:
    first = await started(quiz, port)
    refused = await say(quiz, "stop", BOB, Asked(False))
    assert not refused.ok
    assert refused.text == "Only the person who started this run, or an admin, can stop it."
    assert port.reveals == [] and port.notices == []  # the run goes on untouched
    await quiz.close_round(first.round_id, "deadline")
    assert len(port.posted) == 2
    admin = Asked(True)
    reply = await say(quiz, "stop", BOB, admin)
    assert reply.ok and admin.times == 1
    assert [v.round_id for _, v in port.reveals] == [first.round_id, port.posted[1][1].round_id]
    ((_, standings),) = port.notices
    assert standings.lines == ("Nobody scored in this run.",)
    await clock.advance(timedelta(hours=1).total_seconds())
    await quiz.process_due()
    assert len(port.posted) == 2


@pytest.mark.parametrize(
    ("lang", "none", "refused", "stopped"),
    [
        ("en", "No run is going", "Only the person who started", "Run stopped"),
        ("id", "Tidak ada sesi", "Hanya orang yang memulai", "Sesi dihentikan"),
    ],
)
async def test_the_private_answers_in_both_languages(
    quiz: Quiz, port: RecordingPort, lang: Lang, none: str, refused: str, stopped: str
) -> None:
    await quiz.set_channel_lang(CHANNEL, lang)
    nothing = await say(quiz, "stop", ALICE, Asked(True))
    assert not nothing.ok and nothing.text.startswith(none)
    await started(quiz, port)
    assert (await say(quiz, "stop", BOB)).text.startswith(refused)
    assert (await say(quiz, "stop", BOB, Asked(True))).text.startswith(stopped)
    ((_, standings),) = port.notices
    assert standings.lang == lang


async def test_a_stop_cut_short_by_a_crash_posts_nothing_further_after_the_restart(
    db: Store,
    db_target: str,
    port: RecordingPort,
    make_quiz: Callable[..., Quiz],
    clock: FakeClock,
) -> None:
    quiz = make_quiz(db, port)
    first = await started(quiz, port)
    run = await quiz.runs.current(CHANNEL)
    assert run is not None and run.started_by == ALICE.user
    assert await quiz.runs.stop(run) == [first.round_id]  # marked finished; then the crash
    # (`quiz` is never used again: the restarted one has its own Store on the same database)

    store = await Store.open(db_target)
    try:
        after = RecordingPort()
        restarted = make_quiz(store, after, seed=11)
        await clock.advance(timedelta(minutes=11).total_seconds())  # past the question's window
        await restarted.process_due()
        assert [v.round_id for _, v in after.reveals] == [first.round_id]  # revealed as usual
        assert after.posted == []  # and no further question of the stopped run
        assert (await say(restarted, "stop", ALICE)).text == "No run is going in this channel."
    finally:
        await store.close()


async def test_a_second_replica_posts_no_further_question_of_a_stopped_run(
    db: Store,
    db_target: str,
    port: RecordingPort,
    make_quiz: Callable[..., Quiz],
    clock: FakeClock,
) -> None:
    here = make_quiz(db, port)
    first = await started(here, port)
    store = await Store.open(db_target)
    try:
        there_port = RecordingPort()
        there = make_quiz(store, there_port, seed=3)
        assert (await say(here, "stop", ALICE)).ok
        await clock.advance(timedelta(hours=1).total_seconds())
        await there.process_due()
        await there.runs.continue_after(first.round_id)  # a late move-on, as after a close
        assert there_port.posted == [] and len(port.posted) == 1
        # Even a replica that read the run as going before the stop can't open its next round.
        cid = await store.teams.channel_id(CHANNEL)
        row = await store.rounds.get(first.round_id)
        assert row is not None and row.run_id is not None
        late = await store.rounds.insert(
            channel_id=cid,
            question_id=row.question_id,
            seed=1,
            kind="run",
            opened_at=clock.now(),
            deadline_at=clock.now() + timedelta(minutes=10),
            run_id=row.run_id,
            run_index=1,
        )
        assert late is None
    finally:
        await store.close()


async def test_a_filtered_run_cut_by_a_restart_goes_on_with_its_filter(
    db: Store,
    db_target: str,
    port: RecordingPort,
    make_quiz: Callable[..., Quiz],
    bank: Bank,
) -> None:
    offload = {q.id for q in bank.questions if "offload" in q.tags and q.difficulty == 2}
    count = min(4, len(offload))
    assert count >= 3 and len(offload) < len(bank.questions) / 4  # a filter that shows
    quiz = make_quiz(db, port)
    first = await started(quiz, port, f"start {count} medium offload")
    await quiz.rounds.close(first.round_id, "deadline")  # closed, then killed before moving on

    store = await Store.open(db_target)
    try:
        after = RecordingPort()
        restarted = make_quiz(store, after, seed=99)
        await restarted.process_due()  # reveals the closed round and resumes the stalled run
        assert [v.round_id for _, v in after.reveals] == [first.round_id]
        assert len(after.posted) == 1  # its second question, by the restarted process
        for _ in range(count - 2):
            await restarted.close_round(after.posted[-1][1].round_id, "next")
        asked = [first.question_id] + [v.question_id for _, v in after.posted]
        assert len(asked) == count and len(set(asked)) == count
        assert set(asked) <= offload  # every question of the run kept its topic and level
        await restarted.close_round(after.posted[-1][1].round_id, "next")
        ((_, standings),) = after.notices  # the run ended normally
        assert standings.title == "ZeroQuiz · Results of this run"
    finally:
        await store.close()


@pytest.mark.parametrize(
    ("lang", "says"),
    [("en", "end this channel's run now"), ("id", "akhiri sesi di channel ini sekarang")],
)
def test_help_shows_stop(lang: Lang, says: str) -> None:
    [line] = [x for x in help_view(lang).text.splitlines() if x.startswith("`/zeroquiz stop`")]
    assert says in line
