"""What a channel draws from (issue 22): both the bundled bank and its team's packs by default,
only the bundled bank once set to `bundled`, both again once set to `both`; a pack's template is
drawn like its questions, and its round reveals after the pack is removed."""

from __future__ import annotations

from conftest import CHANNEL
from helpers import RecordingPort
from pg_server import on_both_backends
from test_bank_templates import VALID
from test_packs import PACK, TEAM, say

from bot.i18n import t
from bot.quiz import Quiz
from bot.views import QuestionView

pytestmark = on_both_backends


async def drawn_ids(quiz: Quiz) -> set[str]:
    bank = await quiz.library.for_channel_ref(CHANNEL)
    return {q.id for q in bank.questions} | {tp.id for tp in bank.templates}


async def test_a_channel_draws_from_both_by_default_and_from_what_an_admin_sets(
    quiz: Quiz,
) -> None:
    added = await quiz.packs.add_any(TEAM, PACK, label="ours.yaml", name=None, by="UA", lang="en")
    assert added.stored, added.notice
    bundled = {q.id for q in quiz.library.bundled.questions}
    bundled |= {tp.id for tp in quiz.library.bundled.templates}
    shown = (await say(quiz, "questions")).text
    assert shown.startswith("This channel draws from " + t("en", "source_both"))
    both = await drawn_ids(quiz)
    assert bundled < both and [i.split(":", 1)[1] for i in both - bundled] == ["nodes"]
    assert (await say(quiz, "questions bundled")).ok
    assert await drawn_ids(quiz) == bundled
    assert (await say(quiz, "questions both")).ok
    assert await drawn_ids(quiz) == both
    assert not (await say(quiz, "questions everything")).ok
    assert await drawn_ids(quiz) == both


TEMPLATE_PACK = "name: math\n" + VALID


async def test_a_packs_template_is_drawn_and_revealed_and_still_after_its_removal(
    quiz: Quiz, port: RecordingPort
) -> None:
    added = await quiz.packs.add_any(
        TEAM, TEMPLATE_PACK, label="m.yaml", name=None, by="UA", lang="en"
    )
    assert added.stored, added.notice
    assert (await say(quiz, "questions team")).ok
    view = await quiz.rounds.start_round(CHANNEL)
    assert isinstance(view, QuestionView)
    assert view.question_id.split("@")[0].endswith(":t-mem")  # a draw of the pack's template
    assert view.prompt.startswith("Stage 3, ") and "{" not in view.prompt
    assert "removed" in (await say(quiz, "pack remove math")).text
    await quiz.close_round(view.round_id, "admin")
    ((_, reveal),) = port.reveals
    assert reveal.prompt == view.prompt and reveal.explanation.startswith("16 x ")
