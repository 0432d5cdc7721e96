"""The personal review: due cards come back privately, most overdue first; an answer reschedules
only the card (never answers, totals or leaderboards); a repeated click changes nothing; the
buttons carry everything, so a fresh Quiz on the same database answers them."""

from __future__ import annotations

from collections.abc import Callable

from conftest import CHANNEL
from helpers import RecordingPort, player, right_choice
from pg_server import on_both_backends

from bot.bank import Bank
from bot.clock import FakeClock
from bot.commands import Context, dispatch, parse_text
from bot.model import TeamRef, UserRef
from bot.quiz import Quiz
from bot.reviewing import Click, decode, encode
from bot.storage import Store
from bot.topics import Filter
from bot.views import NoticeView, QuestionView, ReviewResult, ReviewView

pytestmark = on_both_backends


def ctx(user: UserRef) -> Context:
    async def no() -> bool:
        return False

    return Context(channel=CHANNEL, user=user, is_admin=no)


async def answer_round(quiz: Quiz, bank: Bank, answers: dict[UserRef, bool]) -> QuestionView:
    view = await quiz.rounds.start_round(CHANNEL)
    assert isinstance(view, QuestionView)
    right = right_choice(view, bank)
    for who, ok in answers.items():
        await quiz.rounds.answer(
            view.round_id, who, right if ok else (right + 1) % len(view.options)
        )
    await quiz.close_round(view.round_id, "admin")
    return view


def right_button(view: ReviewView, bank: Bank) -> str:
    question = bank.get(view.question_id)
    assert question is not None
    right = question.options[question.answer].get(view.lang)
    return view.buttons[[o.text for o in view.options].index(right)].token


def wrong_button(view: ReviewView, bank: Bank) -> str:
    token = right_button(view, bank)
    return next(b.token for b in view.buttons if b.token != token)


async def review(quiz: Quiz, who: UserRef, text: str = "review") -> ReviewView | NoticeView:
    reply = await dispatch(quiz, parse_text(text), ctx(who))
    assert isinstance(reply, ReviewView | NoticeView)
    return reply


async def test_a_miss_comes_back_in_review_sooner_than_a_right_answer(
    quiz: Quiz, bank: Bank, clock: FakeClock
) -> None:
    missed, knew = player("m"), player("k")
    view = await answer_round(quiz, bank, {missed: False, knew: True})
    wrong_due = await quiz.store.cards.due_at(missed, view.question_id)
    right_due = await quiz.store.cards.due_at(knew, view.question_id)
    assert wrong_due is not None and right_due is not None
    nothing = await review(quiz, missed)
    assert isinstance(nothing, NoticeView) and "Nothing to review" in nothing.text
    # When the next card is due travels as the instant itself (each adapter writes it in the
    # reader's zone): exactly the missed card's due time.
    assert nothing.next_due == wrong_due
    await clock.advance(to=wrong_due)
    shown = await review(quiz, missed)
    assert isinstance(shown, ReviewView) and shown.question_id == view.question_id
    assert shown.due == 1 and "due for review: 1" in shown.due_line
    assert [b.label for b in shown.buttons] == [o.letter for o in shown.options]
    later = await review(quiz, knew)
    assert isinstance(later, NoticeView)  # the one who knew it waits longer
    await clock.advance(to=right_due)
    assert isinstance(await review(quiz, knew), ReviewView)


async def test_answering_reschedules_once_and_leaves_scores_alone(
    quiz: Quiz, bank: Bank, clock: FakeClock
) -> None:
    me = player(1)
    view = await answer_round(quiz, bank, {me: False})
    due_at = await quiz.store.cards.due_at(me, view.question_id)
    assert due_at is not None
    await clock.advance(to=due_at)
    board = await quiz.leaderboard(TeamRef("test", "T1"), "all", lang="en", user=me)
    stats = await quiz.stats(me, lang="en")
    shown = await review(quiz, me)
    assert isinstance(shown, ReviewView)
    token = right_button(shown, bank)
    result = await quiz.reviews.click(me, token)
    assert isinstance(result, ReviewResult) and result.correct and result.rescheduled
    assert result.headline.startswith("✅") and result.explanation
    assert result.buttons == () and "last card" in result.footer  # nothing more due
    after = await quiz.store.cards.due_at(me, view.question_id)
    assert after is not None and after > clock.now()
    assert result.next_due == after  # the only card, now due again then
    # The same click again (a double click, a retry): the verdict, but no second review.
    await clock.advance(to=after)
    again = await quiz.reviews.click(me, token)
    assert isinstance(again, ReviewResult) and again.correct and not again.rescheduled
    assert "Already reviewed" in again.headline
    assert await quiz.store.cards.due_at(me, view.question_id) == after
    # Review answers never reach answers, totals or leaderboards.
    assert await quiz.leaderboard(TeamRef("test", "T1"), "all", lang="en", user=me) == board
    assert (await quiz.stats(me, lang="en")).answered == stats.answered == 1


async def test_most_overdue_first_next_until_done_and_stop(
    quiz: Quiz, bank: Bank, clock: FakeClock
) -> None:
    me = player(1)
    first = await answer_round(quiz, bank, {me: False})
    await clock.advance(30)
    second = await answer_round(quiz, bank, {me: False})
    assert first.question_id != second.question_id
    await clock.advance(3600)
    shown = await review(quiz, me)
    assert isinstance(shown, ReviewView) and shown.question_id == first.question_id
    assert shown.due == 2
    result = await quiz.reviews.click(me, wrong_button(shown, bank))
    assert isinstance(result, ReviewResult) and not result.correct and result.rescheduled
    assert result.headline.startswith("❌") and result.remaining == 1
    assert [b.kind for b in result.buttons] == ["next", "stop"]
    nxt = await quiz.reviews.click(me, result.buttons[0].token)
    assert isinstance(nxt, ReviewView) and nxt.question_id == second.question_id
    stop = await quiz.reviews.click(me, result.buttons[1].token)
    assert isinstance(stop, NoticeView) and "stopped" in stop.text
    assert await quiz.reviews.click(me, "garbage") is None


async def test_a_click_after_a_restart_still_works(
    db_target: str, bank: Bank, clock: FakeClock, make_quiz: Callable[..., Quiz]
) -> None:
    me = player(1)
    store = await Store.open(db_target)
    quiz = make_quiz(store, RecordingPort())
    view = await answer_round(quiz, bank, {me: False})
    await clock.advance(3600)
    shown = await review(quiz, me)
    assert isinstance(shown, ReviewView)
    await store.close()
    store = await Store.open(db_target)
    try:
        fresh = make_quiz(store, RecordingPort())
        again = await review(fresh, me)
        assert again == shown  # same letters, same tokens: nothing was kept in memory
        result = await fresh.reviews.click(me, right_button(shown, bank))
        assert isinstance(result, ReviewResult) and result.rescheduled
        assert result.question_id == view.question_id
    finally:
        await store.close()


async def test_topic_and_level_filters_in_both_languages(
    quiz: Quiz, bank: Bank, clock: FakeClock
) -> None:
    me = player(1)
    view = await answer_round(quiz, bank, {me: False})
    question = bank.get(view.question_id)
    assert question is not None and question.tags and question.difficulty
    await clock.advance(3600)
    topic, level = question.tags[0], question.difficulty
    other = next(t for q in bank.questions for t in q.tags if t not in question.tags)
    hit = await review(quiz, me, f"review {topic} {level}")
    assert isinstance(hit, ReviewView) and hit.question_id == question.id
    result = await quiz.reviews.click(me, wrong_button(hit, bank))
    assert isinstance(result, ReviewResult) and result.question_id == question.id
    carried = decode(hit.buttons[0].token)  # the filter rides in the buttons, for Next
    assert carried is not None and carried.flt == Filter(topic, level)
    miss = await review(quiz, me, f"review {other}")
    assert isinstance(miss, NoticeView) and miss.ok and "Nothing to review" in miss.text
    unknown = await review(quiz, me, "review nosuchtopic")
    assert isinstance(unknown, NoticeView) and not unknown.ok
    assert "nosuchtopic" in unknown.text and f"`{topic}`" in unknown.text
    await quiz.set_channel_lang(CHANNEL, "id")
    await clock.advance(3600)
    shown = await review(quiz, me, f"review {topic} sulit" if level == 3 else f"review {topic}")
    assert isinstance(shown, ReviewView) and shown.title == "ZeroQuiz · Ulasan"
    assert shown.prompt == question.prompt.id
    answered = await quiz.reviews.click(me, right_button(shown, bank))
    assert isinstance(answered, ReviewResult) and answered.explanation == question.explanation.id
    assert answered.headline.startswith("✅ Benar")


def test_tokens_round_trip_and_fit_discord() -> None:
    long_topic = "t" * 40
    click = Click("a", "id", Filter(long_topic, 3), "q" * 40, 4, 1_800_000_000_000)
    token = encode(click)
    assert len("zqr:" + token) <= 100
    back = decode(token)
    assert back is not None and back.question_id == "q" * 40 and back.option == 4
    assert back.stamp == click.stamp and back.lang == "id" and back.flt.level == 3
    short = Click("n", "en", Filter("offload", 1))
    assert decode(encode(short)) == short
    for bad in ("", "x", "ze|", "ae|q|9x|1|1|", "ae|q|1|zz!|1|", "ne|7|t", "ne|x|t"):
        assert decode(bad) is None, bad
