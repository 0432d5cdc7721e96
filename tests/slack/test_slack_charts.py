"""Memory charts on Slack: every draw of every charted memory template, in both languages, in the
feedback, the reveal and the review verdict, inside Block Kit's limits, its bars in a code block
(monospace) under the explanation, the asked stage marked with the question's own answer."""

from __future__ import annotations

from chart_cases import longest_charted, memory_draws
from fake_slack import block_problems, texts
from helpers import round_row
from review_cases import review_views

from adapters.slack import render as blocks
from adapters.slack.mrkdwn import escape
from bot import presenter
from bot.bank import Bank
from bot.charts import MARK, chart_view
from bot.model import LANGS, Lang, Question
from bot.views import ReviewResult

OPENED = 1_767_603_600_000
MOST_TEXT = 12_000  # combined block text: keep well under Slack's undocumented limit


def _fits(message: blocks.SlackMessage) -> str:
    """The message's chart section, after checking the message fits."""
    assert block_problems(message.blocks) == []
    assert sum(len(text) for text in texts(message.blocks)) < MOST_TEXT
    assert len(message.text) <= 3000
    [chart] = [text for text in texts(message.blocks) if "```" in text]
    return chart


def _messages(question: Question) -> list[tuple[Lang, blocks.SlackMessage]]:
    out: list[tuple[Lang, blocks.SlackMessage]] = []
    for lang in LANGS:
        r = round_row(question, lang, platform="slack", opened_at=OPENED, round_id=10**15)
        order = presenter.display_order(r, question)
        wrong = next(o for o in order if o != question.answer)
        for status, option in (("correct", question.answer), ("wrong", wrong), ("already", wrong)):
            view = presenter.feedback_view(lang, question, order, option, status, 10)  # type: ignore[arg-type]
            out.append((lang, blocks.feedback_message(view)))
        counts = dict.fromkeys(range(len(question.options)), 10**6)
        reveal = presenter.reveal_view(r, question, counts, ("n" * 80, 599_999))
        out.append((lang, blocks.reveal_message(reveal)))
    for step in review_views(question):
        if isinstance(step, ReviewResult):
            out.append((step.lang, blocks.review_message(step)))
    return out


def test_every_memory_draws_chart_fits_in_a_code_block_in_both_languages(bank: Bank) -> None:
    draws = memory_draws(bank)
    for question in [*draws, longest_charted()]:
        assert question.chart is not None
        for lang, message in _messages(question):
            chart = _fits(message)
            view = chart_view(question.chart, lang)
            assert chart == f"*{escape(view.title)}*\n```{escape(view.body)}```"
            marked = [line for line in view.lines if line.endswith(MARK)]
            assert len(marked) == 1
            if question in draws:  # the marked figure is the keyed option, as Slack shows it
                assert question.options[question.answer].get(lang) in marked[0]


def test_the_chart_comes_right_after_the_explanation(bank: Bank) -> None:
    question = memory_draws(bank)[0]
    r = round_row(question, "en", platform="slack", opened_at=OPENED)
    reveal = blocks.reveal_message(presenter.reveal_view(r, question, {question.answer: 1}, None))
    shown = texts(reveal.blocks)
    why = next(i for i, text in enumerate(shown) if "*Why:*" in text)
    assert "```" in shown[why + 1] and "How people answered" in shown[why + 2]


def test_a_question_without_a_chart_has_no_code_block(bank: Bank) -> None:
    question = bank.questions[0]
    view = presenter.feedback_view("en", question, (0, 1, 2, 3), 0, "correct", 10)
    assert view.chart is None
    assert not any("```" in text for text in texts(blocks.feedback_message(view).blocks))
