"""Every message the Discord adapter can build fits Discord's limits, for every bundled question in
both languages and for a synthetic question at the bank's maximum lengths; and the bodies pass
Discord's own OpenAPI schema."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

import discord
import pytest
from fake_discord import Json, message_problems, validator
from helpers import round_row
from review_cases import longest as review_longest
from review_cases import review_views

from adapters.discord.buttons import answer_buttons, review_buttons
from adapters.discord.render import (
    bar,
    feedback_embed,
    leaderboard_embed,
    notice_embed,
    question_embed,
    reveal_embed,
    review_embed,
    review_token,
)
from adapters.discord.reporting import reported
from bot import presenter
from bot.bank import Bank
from bot.bank.limits import MAX_EXPLANATION, MAX_OPTION, MAX_OPTIONS, MAX_PROMPT
from bot.i18n import t
from bot.model import LANGS, Lang, Question, Text
from bot.reviewing import decode
from bot.storage import RoundRecord
from bot.views import LeaderRow, NoticeView, ReviewResult

BIG_ROUND = 10**15  # years of rounds: the custom_id must still fit
SENT = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def row(question: Question, lang: Lang, run: bool = True) -> RoundRecord:
    return round_row(
        question,
        lang,
        platform="discord",
        opened_at=int(SENT.timestamp() * 1000),
        round_id=BIG_ROUND,
        seed=12345,
        kind="run" if run else "daily",
    )


def longest() -> Question:
    text = Text("W" * MAX_PROMPT, "W" * MAX_PROMPT)
    option = Text("O" * MAX_OPTION, "O" * MAX_OPTION)
    return Question(
        id="x" * 40,
        prompt=text,
        options=(option,) * MAX_OPTIONS,
        answer=MAX_OPTIONS - 1,
        explanation=Text("E" * MAX_EXPLANATION, "E" * MAX_EXPLANATION),
    )


def assert_fits(embed: discord.Embed) -> None:
    data = embed.to_dict()
    assert len(data.get("title") or "") <= 256
    assert len(data.get("description") or "") <= 4096
    footer = data.get("footer")
    assert len((footer.get("text") if footer else None) or "") <= 2048
    assert len(data.get("fields") or []) <= 25
    for f in data.get("fields") or []:
        assert 0 < len(f["name"]) <= 256 and 0 < len(f["value"]) <= 1024
    assert len(embed) <= 6000


def assert_valid_message(body: Json) -> None:
    """What Discord itself would say about this channel message body."""
    errors = [
        e.message for e in validator("/channels/{channel_id}/messages", "post").iter_errors(body)
    ]
    assert errors == [] and message_problems(body) == []


def cases(bank: Bank) -> list[tuple[Question, Lang]]:
    return [(q, lang) for q in [*bank.questions, longest()] for lang in LANGS]


def test_question_message_fits_for_every_question(bank: Bank) -> None:
    for question, lang in cases(bank):
        view = presenter.question_view(row(question, lang), question, answer_count=10**6)
        embed = question_embed(view)
        assert_fits(embed)
        buttons = answer_buttons(view)
        rows = buttons.to_components()
        assert len(rows) == 1 and len(rows[0]["components"]) == len(question.options) <= 5
        for button in rows[0]["components"]:
            assert len(button["label"]) <= 80 and 1 <= len(button["custom_id"]) <= 100
        body = {
            "embeds": [embed.to_dict()],
            "components": rows,
            "allowed_mentions": {"parse": []},
        }
        assert_valid_message(body)


def test_reveal_and_feedback_fit_for_every_question(bank: Bank) -> None:
    for question, lang in cases(bank):
        r = row(question, lang, run=False)
        counts = dict.fromkeys(range(len(question.options)), 10**6)
        streaks = [("n" * 32, 365)] * 200  # a huge server's daily streak line
        view = presenter.reveal_view(r, question, counts, ("n" * 32, 599_999), streaks)
        embed = reveal_embed(view)
        assert_fits(embed)
        assert_valid_message(
            {"embeds": [embed.to_dict()], "components": [], "allowed_mentions": {"parse": []}}
        )
        order = presenter.display_order(r, question)
        wrong = next(o for o in order if o != question.answer)
        verdicts: tuple[tuple[Literal["correct", "wrong", "already"], int], ...] = (
            ("correct", question.answer),
            ("wrong", wrong),
            ("already", wrong),
        )
        for status, option in verdicts:
            feedback = presenter.feedback_view(lang, question, order, option, status, 10)
            assert_fits(feedback_embed(feedback))


def test_reveal_marks_the_right_option_and_draws_the_spread(bank: Bank) -> None:
    question = bank.questions[0]
    r = row(question, "en", run=False)
    counts = {question.answer: 3, (question.answer + 1) % len(question.options): 1}
    embed = reveal_embed(presenter.reveal_view(r, question, counts, None))
    correct = presenter.display_order(r, question).index(question.answer)
    marked = [line for line in (embed.description or "").splitlines() if line.startswith("✅")]
    assert len(marked) == 1 and f"{'ABCDE'[correct]})" in marked[0]
    spread = embed.fields[1].value or ""
    assert f"`{bar(0.75)}` 3 · 75%" in spread and embed.footer.text == "3 of 4 answered right"


@pytest.mark.parametrize(("share", "filled"), [(0.0, 0), (0.04, 0), (0.5, 5), (1.0, 10)])
def test_bar(share: float, filled: int) -> None:
    assert bar(share) == "█" * filled + "░" * (10 - filled)


def test_leaderboard_with_long_names_fits() -> None:
    rows = tuple(
        LeaderRow(i + 1, str(i), "@everyone" + "x" * 300, 10**6, 10**5, 10**5) for i in range(10)
    )
    view = presenter.leaderboard_view("en", "all", [], None, asked=False)
    lines = tuple(f"{r.rank}. {r.name} · {r.points} pts" for r in rows)
    big = type(view)(
        lang="en",
        period="all",
        title=view.title,
        rows=rows,
        lines=lines * 5,
        me=None,
        me_line="x" * 500,
        empty_text=view.empty_text,
    )
    assert_fits(leaderboard_embed(big))


def test_names_show_as_typed_not_as_markdown() -> None:
    rows = [LeaderRow(1, "U1", "**Ada** _x_", 10, 1, 1), LeaderRow(2, "U2", "a|b`c", 0, 0, 1)]
    view = presenter.leaderboard_view("en", "all", rows, rows[1], asked=True)
    description = leaderboard_embed(view).description or ""
    assert "1. \\*\\*Ada\\*\\* \\_x\\_ · 10 pts" in description
    assert "2. a\\|b\\`c · 0 pts" in description
    assert "**Ada**" not in description


def test_every_review_step_fits_with_its_buttons(bank: Bank) -> None:
    """The personal review's card and verdicts, for every bundled question and the longest."""
    for question in [*bank.questions, review_longest()]:
        for view in review_views(question):
            embed = review_embed(view)
            assert_fits(embed)
            buttons = review_buttons(view)
            rows = buttons.to_components() if buttons is not None else []
            assert len(rows) <= 1
            for button in rows[0]["components"] if rows else []:
                assert len(button["label"]) <= 80 and 1 <= len(button["custom_id"]) <= 100
                if button["custom_id"].startswith("zqp:"):  # a verdict's Report control
                    assert isinstance(view, ReviewResult) and reported(button["custom_id"])
                    continue
                token = review_token(button["custom_id"])
                assert token is not None and decode(token) is not None
            body = {
                "embeds": [embed.to_dict()],
                "components": rows,
                "allowed_mentions": {"parse": []},
            }
            assert_valid_message(body)


@pytest.mark.parametrize("lang", LANGS)
def test_the_next_review_card_is_due_in_each_readers_own_zone(lang: Lang) -> None:
    """Discord's `<t:epoch:f>` where Discord renders it (the description, never the footer,
    which would show the token as typed)."""
    when = datetime(2026, 1, 7, 2, 30, tzinfo=UTC)
    line = t(lang, "review_next_due", when=f"<t:{int(when.timestamp())}:f>")
    nothing = notice_embed(NoticeView(lang, t(lang, "review_none"), next_due=when))
    assert nothing.description == t(lang, "review_none") + " " + line
    verdict = next(
        v
        for v in review_views(review_longest())
        if isinstance(v, ReviewResult) and not v.buttons and v.lang == lang
    )
    embed = review_embed(verdict._replace(next_due=when))
    assert_fits(embed)
    assert (embed.description or "").endswith("\n\n" + line)
    assert "<t:" not in (embed.footer.text or "") and "UTC" not in str(embed.to_dict())
    assert "<t:" not in (notice_embed(NoticeView(lang, "x")).description or "")
