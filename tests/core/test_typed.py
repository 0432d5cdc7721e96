"""Type the number: a typed answer read as people write it (either decimal mark, thousands groups,
the unit in any case and spacing), graded with the tolerance the shown rounding implies (or the
template's), recognised as a named mistake, and recorded as the person's one answer to the round."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from conftest import CHANNEL
from helpers import RecordingPort, player, round_row
from hypothesis import given
from hypothesis import strategies as st
from test_bank_templates import VALID, line_of, problems_of

from bot.bank import Bank, load_bank
from bot.bank.numbers import format_amount, format_number, parse_tolerance, read_number, rounded
from bot.clock import FakeClock
from bot.model import LANGS, Lang, Question, TeamRef, Tolerance
from bot.presenter import display_order, question_view
from bot.quiz import Quiz
from bot.reviewing import Click, encode
from bot.topics import NO_FILTER
from bot.typed import example, grade
from bot.views import Feedback, NoticeView, ReviewResult, ReviewView

BUNDLED = load_bank()
OFFLOAD = "gen-offload-gpu"


@pytest.fixture(name="bank", scope="module")
def templates_only() -> Bank:
    return Bank([], [t for t in BUNDLED.templates if t.id == OFFLOAD])


@pytest.mark.parametrize(
    ("text", "lang", "value"),
    [
        ("31.4", "en", "31.4"),
        ("31,4", "en", "31.4"),  # a decimal comma in English too
        ("31.4 GB", "en", "31.4"),
        ("31.4GB", "en", "31.4"),
        (" 31.4 gb ", "en", "31.4"),
        ("31,4 GB", "id", "31.4"),
        ("31.4", "id", "31.4"),
        ("1,024", "en", "1024"),  # English groups thousands with commas
        ("1.024", "en", "1.024"),
        ("1.024", "id", "1024"),  # Indonesian with dots
        ("1,024", "id", "1.024"),
        ("0,125", "en", "0.125"),  # a whole part of 0 groups nothing
        ("1,024.5", "en", "1024.5"),  # two marks: the last is the decimal one
        ("1.024,5", "en", "1024.5"),
        ("1,024,000", "id", "1024000"),  # one mark repeated groups thousands
        (".5", "en", "0.5"),
        ("-3", "en", "-3"),
    ],
)
def test_a_typed_number_is_read_as_people_write_it(text: str, lang: Lang, value: str) -> None:
    assert read_number(text, "GB", lang) == Decimal(value)


@pytest.mark.parametrize(
    "text",
    ["", "abc", "31.4 MB", "31.4 GB GB", "1,02,4", "1.2.3", "31.", "3 1", "٣١", "31.4e2", "x" * 50],
)
def test_anything_else_is_no_number(text: str) -> None:
    assert read_number(text, "GB", "en") is None


@given(
    value=st.floats(min_value=0.001, max_value=1e9),
    lang=st.sampled_from(LANGS),
    unit=st.sampled_from(["", " GB", "GB", " gb", "  Gb "]),
)
def test_every_number_as_shown_reads_back_as_shown(value: float, lang: Lang, unit: str) -> None:
    assert read_number(format_number(value, lang) + unit, "GB", lang) == rounded(value)


def right(question: Question, text: str, lang: Lang = "en") -> bool:
    graded = grade(question, text, lang)
    assert graded is not None, text
    return graded.correct


def _drawn(count: int) -> list[Question]:
    found = []
    for template in BUNDLED.templates:
        for seed in range(count):
            question = template.draw(seed)
            if question is not None:
                found.append(question)
    return found


@pytest.mark.parametrize("lang", LANGS)
def test_each_option_typed_as_shown_is_graded_as_that_option(lang: Lang) -> None:
    """Over every bundled template: the key as shown is right, every other option as shown is
    wrong and recognised as that option, with its mistake's reason."""
    for question in _drawn(60):
        for option, text in enumerate(question.options):
            graded = grade(question, text.get(lang), lang)
            assert graded is not None, (question.id, text)
            assert graded.correct is (option == question.answer), (question.id, text)
            assert graded.option == option, (question.id, text)
            assert graded.why == question.reason(option), (question.id, text)


def test_the_default_tolerance_is_half_the_last_place_shown() -> None:
    question = next(q for q in _drawn(60) if q.number and 10 <= q.number.value < 100)
    assert question.number is not None
    value = question.number.value
    shown = rounded(value)  # one decimal from 10 to 100
    assert grade(question, f"{shown + Decimal('0.1')}", "en") != grade(question, str(shown), "en")
    assert right(question, repr(value))
    assert not right(question, f"{value + 0.051:.3f}")


def test_a_number_no_option_gives_is_wrong_and_no_option() -> None:
    question = _drawn(1)[0]
    assert question.number is not None
    graded = grade(question, str(question.number.value * 7.77), "en")
    assert graded is not None and not graded.correct and graded.option == -1 and graded.why is None


def test_a_named_mistake_not_among_the_options_still_says_why() -> None:
    for question in _drawn(30):
        assert question.number is not None
        for value, option, why in question.number.mistakes:
            if option == -1 and why is not None and rounded(value) > 0:
                typed = format_number(value, "en")
                graded = grade(question, typed, "en")
                assert graded is not None and graded.option == -1 and graded.why == why
                return
    pytest.fail("no template drew a named mistake that is not an option")


def test_the_example_is_in_the_answers_magnitude_and_never_right() -> None:
    for question in _drawn(20):
        assert question.number is not None
        for lang in LANGS:
            shown = example(question.number, lang)
            graded = grade(question, shown, lang)
            assert graded is not None and not graded.correct, (question.id, shown)
            digits = len(str(int(question.number.value)))
            assert len(str(int(read_number(shown, question.number.unit, lang) or 0))) == digits


def test_a_templates_tolerance_is_an_amount_or_a_percentage() -> None:
    assert parse_tolerance("0.5") == Tolerance(0.5)
    assert parse_tolerance("2%") == Tolerance(0.02, relative=True)
    assert parse_tolerance(" 2.5 % ") == Tolerance(0.025, relative=True)
    for bad in ("0", "0%", "100%", "-1", "abc", "1e3", "2 GB"):
        assert parse_tolerance(bad) is None, bad


def test_a_template_states_its_tolerance(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(VALID.replace("    params:", '    tolerance: "5%"\n    params:', 1))
    [template] = load_bank([path]).templates
    assert template.tolerance == Tolerance(0.05, relative=True)
    question = template.draw(3)
    assert question is not None and question.number is not None
    value = question.number.value
    assert right(question, format_number(value * 1.04, "en"))
    assert not right(question, format_number(value * 1.06, "en"))


def test_a_bad_tolerance_or_one_that_holds_an_option_is_named_on_its_line(tmp_path: Path) -> None:
    bad = VALID.replace("    params:", "    tolerance: plenty\n    params:", 1)
    [problem] = problems_of(tmp_path, bad)
    assert problem.line == line_of(bad, "tolerance:") and "tolerance must be" in problem.message
    wide = VALID.replace("    params:", '    tolerance: "30%"\n    params:', 1)  # 20/16, 12/16
    [problem] = problems_of(tmp_path, wide)
    assert problem.line == line_of(wide, "tolerance:")
    assert "an option is within the answer's tolerance" in problem.message


async def test_a_typed_answer_counts_once_and_the_reveal_counts_it(
    quiz: Quiz, port: RecordingPort, bank: Bank
) -> None:
    view = await quiz.rounds.start_round(CHANNEL)
    assert view is not None and view.typed is not None and view.typed.button == "Type it"
    question = bank.get(view.question_id)
    assert question is not None and question.number is not None
    row = await quiz.rounds.round_row(view.round_id)
    assert row is not None
    order = display_order(row, question)
    key = question.options[question.answer].en

    invalid = await quiz.typed.answer(view.round_id, player(1), "about thirty")
    assert invalid.status == "invalid" and "type a number like" in invalid.headline
    assert await quiz.store.rounds.total_answers(view.round_id) == 0  # counted nothing

    right = await quiz.typed.answer(view.round_id, player(1), f" {key.lower()} ")
    assert right.status == "correct" and right.points == 10
    assert right.headline.startswith(f"✅ Correct! You typed {key.lower()}.")
    assert right.explanation == question.explanation.en  # the worked calculation
    again = await quiz.typed.answer(view.round_id, player(1), "1")
    clicked = await quiz.rounds.answer(view.round_id, player(1), 0)
    for second in (again, clicked):
        assert second.status == "already" and f"({key.lower()})" in second.headline

    mistaken = next(o for o in range(len(question.options)) if question.reason(o) is not None)
    typed = question.options[mistaken].en.removesuffix(" GB")
    wrong = await quiz.typed.answer(view.round_id, player(2), typed)
    assert wrong.status == "wrong" and wrong.points == 0
    assert wrong.mistake is not None and wrong.mistake.label == f"Why {typed} is not right"
    reason = question.reason(mistaken)
    assert reason is not None and wrong.mistake.text == reason.en
    after_typed = await quiz.rounds.answer(view.round_id, player(2), order.index(question.answer))
    assert after_typed.status == "already" and not after_typed.recorded

    await quiz.rounds.answer(view.round_id, player(3), order.index(question.answer))  # a click
    reveal = await quiz.close_round(view.round_id, "admin")
    assert reveal is not None and reveal.total == 3 and reveal.right == 2
    assert reveal.typed == "⌨️ 2 typed the number, 1 of them right"
    spread = {r.letter: r.count for r in reveal.spread}
    assert spread[reveal.correct_letter] == 2  # the typed key counts as the key's option
    assert spread["ABCD"[order.index(mistaken)]] == 1  # the typed mistake as its option
    rows = await quiz.results.rows(TeamRef("test", "T1"), "all")  # a teacher's records
    assert [(r.user, r.typed, r.correct) for r in rows] == [
        ("U1", key.lower(), True), ("U2", typed, False), ("U3", "", True)
    ]  # fmt: skip
    assert rows[1].option == question.options[mistaken].en  # the option the number is


async def test_a_typed_answer_in_indonesian_reads_the_decimal_comma(quiz: Quiz, bank: Bank) -> None:
    await quiz.set_channel_lang(CHANNEL, "id")
    view = await quiz.rounds.start_round(CHANNEL)
    assert view is not None and view.typed is not None and view.typed.button == "Ketik"
    question = bank.get(view.question_id)
    assert question is not None and question.number is not None
    key = question.options[question.answer].id  # "31,4 GB" as Indonesian writes it
    right = await quiz.typed.answer(view.round_id, player(1), key)
    assert right.status == "correct" and right.headline.startswith("✅ Benar! Kamu mengetik")
    invalid = await quiz.typed.answer(view.round_id, player(2), "tiga puluh")
    assert "ketik angka seperti" in invalid.headline
    assert format_amount(1.5, "GB", "id") == "1,5 GB"  # the examples' form


async def test_only_a_generated_question_offers_typing(quiz: Quiz) -> None:
    hand = BUNDLED.questions[0]
    assert hand.number is None and grade(hand, "3", "en") is None
    view = question_view(round_row(hand, "en", platform="test", opened_at=0), hand, 0)
    assert view.typed is None  # no Type it button
    assert (await quiz.typed.answer(10**9, player(1), "3")).status == "unknown"
    assert isinstance(await quiz.typed.form(10**9, player(1)), Feedback)


async def test_a_review_card_and_a_drill_card_take_the_number_typed(
    quiz: Quiz, bank: Bank, clock: FakeClock
) -> None:
    view = await quiz.rounds.start_round(CHANNEL)
    assert view is not None
    question = bank.get(view.question_id)
    assert question is not None and question.number is not None
    missed = await quiz.typed.answer(view.round_id, player(1), str(question.number.value * 9.1))
    assert missed.status == "wrong"  # a number no option gives: a miss all the same
    await quiz.close_round(view.round_id, "admin")

    drill = await quiz.drills.start(player(1), NO_FILTER, "en")
    assert isinstance(drill, ReviewView) and drill.question_id == question.id
    assert drill.typed is not None and drill.typed.button == "Type it"
    token = drill.buttons[0].token  # any answer button's: the card, whatever its option
    refused = await quiz.review_click(player(1), token, typed="lots")
    assert isinstance(refused, NoticeView) and not refused.ok
    assert "type a number like" in refused.text
    key = question.options[question.answer].en
    right = await quiz.review_click(player(1), token, typed=key)
    assert isinstance(right, ReviewResult) and right.correct and right.rescheduled
    assert right.headline.startswith(f"✅ Correct! You typed {key}.")
    assert right.explanation == question.explanation.en
    assert isinstance(await quiz.drills.start(player(1), NO_FILTER, "en"), NoticeView)  # left

    await clock.advance(40 * 24 * 3600)  # the card is due again
    card = await quiz.reviews.start(player(1), NO_FILTER, "en")
    assert isinstance(card, ReviewView) and card.typed is not None
    mistaken = next(o for o in range(len(question.options)) if question.reason(o) is not None)
    number = question.options[mistaken].en
    wrong = await quiz.review_click(player(1), card.buttons[0].token, typed=number)
    assert isinstance(wrong, ReviewResult) and not wrong.correct and wrong.rescheduled
    reason = question.reason(mistaken)
    assert wrong.mistake is not None and reason is not None
    assert (wrong.mistake.label, wrong.mistake.text) == (f"Why {number} is not right", reason.en)
    again = await quiz.review_click(player(1), card.buttons[0].token, typed=key)
    assert isinstance(again, ReviewResult) and not again.rescheduled  # the same card: once
    next_token = encode(Click("n", "en", NO_FILTER))
    assert await quiz.review_click(player(1), next_token, typed=key) is None  # only an answer
