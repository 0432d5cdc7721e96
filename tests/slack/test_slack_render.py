"""Block Kit rendering: every bundled question, both languages, inside every limit, escaped."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from fake_slack import block_problems, shown, texts
from helpers import round_row
from review_cases import longest, review_views

from adapters.slack import render as blocks
from adapters.slack.mrkdwn import clip, escape
from bot import presenter
from bot.bank import Bank, load_bank
from bot.i18n import t
from bot.model import LANGS, Lang, Question, Text
from bot.storage import RoundRecord
from bot.views import Feedback, LeaderboardView, LeaderRow, NoticeView, ReviewResult, StatsView

OPENED = 1_767_603_600_000  # 2026-01-05 09:00 UTC
DEADLINE = OPENED + 10 * 60 * 1000
BANK = load_bank()
# Anything shaped like a mention, a broadcast or a link, except the closing-time date token.
PING = re.compile(r"<(?!!date\^\d+\^\{date_short_pretty\} \{time\}\|[^<>]*>)")


def row(question: Question, lang: Lang, *, run: bool = False, seed: int = 5) -> RoundRecord:
    return round_row(
        question,
        lang,
        platform="slack",
        opened_at=OPENED,
        round_id=4321,
        seed=seed,
        kind="run" if run else "single",
        message_ref="1700000000.000001",
    )


def assert_fits(message: blocks.SlackMessage) -> None:
    assert block_problems(message.blocks) == []
    for text in [message.text, *texts(message.blocks)]:
        assert not PING.search(text), text
    assert len(message.text) <= 3000


def feedbacks(question: Question, lang: Lang) -> list[Feedback]:
    """The private replies a click can get, with the longest texts each can carry."""
    right = question.options[question.answer].get(lang)
    explanation = question.explanation.get(lang)
    why = t(lang, "why")
    return [
        Feedback(
            "correct",
            lang,
            t(lang, "feedback_correct", letter="E", text=right),
            "E",
            "E",
            explanation,
            why,
            10,
        ),
        Feedback(
            "wrong",
            lang,
            t(lang, "feedback_wrong", chosen="A", letter="E", text=right),
            "A",
            "E",
            explanation,
            why,
            0,
        ),
        Feedback("already", lang, t(lang, "feedback_already", letter="A"), "A"),
        Feedback("closed", lang, t(lang, "feedback_closed")),
    ]


@pytest.mark.parametrize("lang", LANGS)
def test_every_bundled_question_renders_within_block_kit_limits(lang: Lang) -> None:
    assert len(BANK) >= 50
    for question in BANK.questions:
        for run in (False, True):
            r = row(question, lang, run=run)
            view = presenter.question_view(r, question, answer_count=987)
            message = blocks.question_message(view)
            assert_fits(message)
            [actions] = [b for b in message.blocks if b["type"] == "actions"]
            labels = [e["text"]["text"] for e in actions["elements"]]
            assert labels == list("ABCDE"[: len(question.options)])
            assert [e["action_id"] for e in actions["elements"]] == [
                f"zq_answer_{x}" for x in labels
            ]
            assert [e["value"] for e in actions["elements"]] == [
                f"4321:{i}" for i in range(len(labels))
            ]
            for option in view.options:  # every option is in the body as a lettered line
                assert f"*{option.letter})* {escape(option.text)}" in shown(message.blocks)
            counts = {i: 3 * i + 1 for i in range(len(question.options))}
            reveal = presenter.reveal_view(r, question, counts, ("Ada Lovelace", 4200))
            assert_fits(blocks.reveal_message(reveal))
        for feedback in feedbacks(question, lang):
            assert_fits(blocks.feedback_message(feedback))


def test_question_shows_prompt_options_closing_time_and_count() -> None:
    question = BANK.questions[0]
    view = presenter.question_view(row(question, "en"), question, answer_count=3)
    message = blocks.question_message(view)
    assert message.blocks[0] == {
        "type": "header",
        "text": {"type": "plain_text", "text": "ZeroQuiz", "emoji": True},
    }
    assert escape(question.prompt.en) in shown(message.blocks)
    context = message.blocks[-1]["elements"][0]["text"]
    assert context == (
        f"Closes <!date^{DEADLINE // 1000}^{{date_short_pretty}} {{time}}|2026-01-05 09:10 UTC>"
        " · 3 answered so far"
    )


def test_reveal_removes_buttons_marks_the_answer_and_draws_the_spread() -> None:
    question = BANK.questions[0]
    r = row(question, "en")
    order = presenter.display_order(r, question)
    counts = {question.answer: 3, next(o for o in order if o != question.answer): 1}
    view = presenter.reveal_view(r, question, counts, None)
    message = blocks.reveal_message(view)
    text = shown(message.blocks)
    assert all(b["type"] != "actions" for b in message.blocks)
    letter = view.correct_letter
    assert f"✅ *{letter})* {escape(question.options[question.answer].en)}" in text
    assert escape(question.explanation.en) in text
    assert f"`█████████░░░` *{letter}* 3 (75%) ✅" in text
    assert "3 of 4 answered right" in text


HOSTILE = "<!channel> & <!here> <@U123> <https://evil.example|click> *bold*"


def hostile_question() -> Question:
    texts_ = [Text(f"{HOSTILE} {i}", f"{HOSTILE} {i}") for i in range(5)]
    return Question(
        id="hostile",
        prompt=Text(HOSTILE * 8, HOSTILE * 8),
        options=tuple(texts_),
        answer=2,
        explanation=Text(HOSTILE * 60, HOSTILE * 60),  # far over any section limit
    )


@pytest.mark.parametrize("lang", LANGS)
def test_dynamic_text_is_escaped_and_clipped(lang: Lang) -> None:
    question = hostile_question()
    r = row(question, lang)
    view = presenter.question_view(r, question, 1)
    reveal = presenter.reveal_view(r, question, {2: 1}, (HOSTILE, 1500))
    for message in (blocks.question_message(view), blocks.reveal_message(reveal)):
        assert_fits(message)
        assert "&lt;!channel&gt; &amp; &lt;!here&gt; &lt;@U123&gt;" in shown(message.blocks)
    for b in blocks.reveal_message(reveal).blocks:
        if b["type"] == "section":
            assert len(b["text"]["text"]) <= 3000
            assert not re.search(r"&[a-z]{0,3}…$", b["text"]["text"])  # no half entity


def test_leaderboard_stats_and_notices_show_names_never_mentions() -> None:
    rows = tuple(
        LeaderRow(i + 1, f"U{i}", f"{HOSTILE} {'x' * 300}", 100 - i, 10, 12) for i in range(10)
    )
    board = LeaderboardView(
        lang="en",
        period="week",
        title="ZeroQuiz leaderboard · this week",
        rows=rows,
        lines=tuple(f"{r.rank}. {r.name} · {r.points} pts" for r in rows),
        me=rows[0],
        me_line="You: #1",
        empty_text="No scores yet.",
    )
    stats = StatsView("id", "Statistik", "Ada", 3, 2, 20, 2 / 3, 1, 2, (("Dijawab", "3"),) * 6)
    notice = NoticeView("en", "Results", title="Results", lines=(HOSTILE,) * 10)
    for view in (board, stats, notice):
        assert_fits(blocks.reply_message(view))
    assert "&lt;@U123&gt;" in shown(blocks.reply_message(board).blocks)


def test_clip_never_cuts_an_entity_in_half() -> None:
    assert clip("abc", 3) == "abc"
    assert clip(escape("a&b"), 4) == "a…"
    assert clip("x" * 10, 5) == "xxxx…"


def test_bundled_bank_is_the_one_rendered(bank: Bank) -> None:
    assert [q.id for q in bank.questions] == [q.id for q in BANK.questions]


def test_every_review_step_renders_within_block_kit_limits() -> None:
    """The personal review's card and verdicts, for every bundled question and the longest."""
    for question in [*BANK.questions, longest()]:
        for view in review_views(question):
            message = blocks.review_message(view)
            assert_fits(message)
            text = shown(message.blocks)
            assert escape(view.prompt)[:100] in text
            labels = [b.label for b in view.buttons]
            if isinstance(view, ReviewResult):  # a verdict also carries the Report control
                labels.append(t(view.lang, "report_button"))
            actions = [b for b in message.blocks if b["type"] == "actions"]
            elements = [e for a in actions for e in a["elements"]]
            assert [e["text"]["text"] for e in elements] == labels
            report = "zq_report"
            assert all(
                e["action_id"].startswith("zqr_") or e["action_id"] == report for e in elements
            )


@pytest.mark.parametrize("lang", LANGS)
def test_the_next_review_card_is_due_in_each_readers_own_zone(lang: Lang) -> None:
    """Slack's date token (each reader's zone), UTC named only as its fallback; the sentence
    around it escaped like any catalogue text."""
    when = datetime(2026, 1, 7, 2, 30, tzinfo=UTC)
    token = f"<!date^{int(when.timestamp())}^{{date_short_pretty}} {{time}}|2026-01-07 02:30 UTC>"
    nothing = shown(blocks.notice_message(NoticeView(lang, "x", next_due=when)).blocks)
    assert t(lang, "review_next_due", when=token) in nothing
    verdict = next(
        v
        for v in review_views(longest())
        if isinstance(v, ReviewResult) and not v.buttons and v.lang == lang
    )
    message = blocks.review_message(verdict._replace(next_due=when))
    assert t(lang, "review_next_due", when=token) in shown(message.blocks)
    assert block_problems(message.blocks) == [] and "UTC" not in message.text
    plain = shown(blocks.notice_message(NoticeView(lang, t(lang, "review_none"))).blocks)
    assert "<!date" not in plain  # no next card: no sentence
