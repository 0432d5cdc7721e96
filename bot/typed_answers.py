"""A typed answer to a round's generated question: graded by bot/typed.py and recorded as the
person's one answer to the round, exactly as a click is (the same group commit, the same
first-answer-counts rule in the database), so a typed answer and a click never both count and
what the platform is told afterwards is recorded. Adapters call it as `quiz.typed`.
"""

from __future__ import annotations

from bot import presenter
from bot.i18n import t
from bot.library import Library
from bot.model import UserRef
from bot.reviewing import decode
from bot.rounds import POINTS_PER_CORRECT, Rounds
from bot.typed import form, grade, invalid
from bot.views import Feedback, TypedForm


class TypedAnswers:
    def __init__(self, rounds: Rounds, library: Library) -> None:
        self.rounds = rounds
        self.library = library  # a review or drill card's question

    async def form(self, round_id: int, user: UserRef) -> TypedForm | Feedback:
        """The form to type the round's number in; why not (a private reply) when the round is
        unknown or over, or its question's answer is no number."""
        found = await self.rounds.facts(round_id, user)
        if isinstance(found, Feedback):
            return found
        row, question = found
        if question.number is None:
            return Feedback("unknown", row.lang, t(row.lang, "button_invalid"))
        if not row.is_open(self.rounds.now()):  # as it was cached: the database decides later
            return Feedback("closed", row.lang, t(row.lang, "feedback_closed"))
        return form(question.number, row.lang)

    async def card_form(self, token: str) -> TypedForm | None:
        """The form to type the number of a review or drill card in (`token`: one of its answer
        buttons'; Quiz.review_click takes what is typed); None when it takes no number."""
        click = decode(token)
        if click is None or click.kind not in ("a", "b"):
            return None
        question = await self.library.get(click.question_id)
        number = question.number if question is not None else None
        return form(number, click.lang) if number is not None else None

    async def answer(self, round_id: int, user: UserRef, text: str) -> Feedback:
        """Grade and record what the person typed; returns once committed. Text that is no
        number records nothing and says how to type one (status "invalid")."""
        found = await self.rounds.facts(round_id, user)
        if isinstance(found, Feedback):
            return found
        row, question = found
        lang = row.lang
        if question.number is None:
            return Feedback("unknown", lang, t(lang, "button_invalid"))
        graded = grade(question, text, lang)
        if graded is None:
            return Feedback("invalid", lang, invalid(question.number, lang))
        outcome = await self.rounds.record(
            row, question, user, graded.option, graded.correct, graded.typed
        )
        if outcome.status != "recorded":
            return self.rounds.not_recorded(row, question, outcome)
        order = presenter.display_order(row, question)
        if graded.correct:
            return presenter.typed_feedback(
                lang, question, order, graded.typed, "correct", POINTS_PER_CORRECT
            )
        return presenter.typed_feedback(lang, question, order, graded.typed, "wrong", 0, graded.why)
