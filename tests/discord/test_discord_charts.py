"""Memory charts on Discord: every draw of every charted memory template, in both languages, in
the feedback, the reveal and the review verdict, inside Discord's embed limits and its OpenAPI
schema, its bars in a code block field (monospace) under the explanation, the asked stage marked
with the question's own answer."""

from __future__ import annotations

import discord
from chart_cases import longest_charted, memory_draws
from fake_discord import Json, message_problems, validator
from helpers import round_row
from review_cases import review_views

from adapters.discord.render import feedback_embed, reveal_embed, review_embed
from bot import presenter
from bot.bank import Bank
from bot.charts import MARK, chart_view
from bot.model import LANGS, Lang, Question
from bot.views import ReviewResult

OPENED = 1_767_603_600_000


def _chart_field(embed: discord.Embed) -> tuple[str, str]:
    """(name, value) of the embed's chart field, after checking the embed fits."""
    data = embed.to_dict()
    assert len(data.get("title") or "") <= 256 and len(data.get("description") or "") <= 4096
    footer = data.get("footer")
    assert len((footer.get("text") if footer else None) or "") <= 2048
    fields = data.get("fields") or []
    assert len(fields) <= 25 and len(embed) <= 6000
    assert all(0 < len(f["name"]) <= 256 and 0 < len(f["value"]) <= 1024 for f in fields)
    body: Json = {"embeds": [data], "components": [], "allowed_mentions": {"parse": []}}
    path = "/channels/{channel_id}/messages"
    assert [e.message for e in validator(path, "post").iter_errors(body)] == []
    assert message_problems(body) == []
    [chart] = [(f["name"], f["value"]) for f in fields if f["value"].startswith("```")]
    return chart


def _embeds(question: Question) -> list[tuple[Lang, discord.Embed]]:
    out: list[tuple[Lang, discord.Embed]] = []
    for lang in LANGS:
        r = round_row(question, lang, platform="discord", opened_at=OPENED, round_id=10**15)
        order = presenter.display_order(r, question)
        wrong = next(o for o in order if o != question.answer)
        for status, option in (("correct", question.answer), ("wrong", wrong), ("already", wrong)):
            view = presenter.feedback_view(lang, question, order, option, status, 10)  # type: ignore[arg-type]
            out.append((lang, feedback_embed(view)))
        counts = dict.fromkeys(range(len(question.options)), 10**6)
        streaks = [("n" * 32, 365)] * 200
        reveal = presenter.reveal_view(r, question, counts, ("n" * 32, 599_999), streaks)
        out.append((lang, reveal_embed(reveal)))
    for step in review_views(question):
        if isinstance(step, ReviewResult):
            out.append((step.lang, review_embed(step)))
    return out


def test_every_memory_draws_chart_fits_in_a_code_block_in_both_languages(bank: Bank) -> None:
    draws = memory_draws(bank)
    for question in [*draws, longest_charted()]:
        assert question.chart is not None
        for lang, embed in _embeds(question):
            name, value = _chart_field(embed)
            view = chart_view(question.chart, lang)
            assert (name, value) == (view.title, f"```\n{view.body}\n```")
            marked = [line for line in view.lines if line.endswith(MARK)]
            assert len(marked) == 1
            if question in draws:  # the marked figure is the keyed option, as Discord shows it
                assert question.options[question.answer].get(lang) in marked[0]


def test_the_chart_field_follows_the_explanation(bank: Bank) -> None:
    question = memory_draws(bank)[0]
    r = round_row(question, "id", platform="discord", opened_at=OPENED)
    embed = reveal_embed(presenter.reveal_view(r, question, {question.answer: 1}, None))
    names = [f.name for f in embed.fields]
    assert names[0] == "Penjelasan" and (embed.fields[1].value or "").startswith("```\nDP biasa ")
    assert names[2] == "Sebaran jawaban"


def test_a_question_without_a_chart_has_no_chart_field(bank: Bank) -> None:
    question = bank.questions[0]
    embed = feedback_embed(presenter.feedback_view("en", question, (0, 1, 2, 3), 0, "correct", 10))
    assert [f.name for f in embed.fields] == ["Why"]
