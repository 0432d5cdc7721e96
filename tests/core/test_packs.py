"""A team's question packs in the core: a one-language pack is drawn in a channel set to the
team's packs (in every channel language), never in another team; a broken pack stores nothing;
a round of a removed pack still reveals and its review card still renders; the limits say so."""

from __future__ import annotations

from datetime import timedelta

from conftest import CHANNEL
from helpers import RecordingPort, player
from pg_server import on_both_backends

from bot.bank.packs import MAX_PACK_QUESTIONS, MAX_PACKS_PER_TEAM
from bot.clock import FakeClock
from bot.commands import Context, dispatch, parse_text
from bot.i18n import t
from bot.model import ChannelRef, TeamRef, UserRef
from bot.quiz import Quiz
from bot.storage import Store
from bot.topics import NO_FILTER
from bot.views import NoticeView, QuestionView, ReviewResult, ReviewView

pytestmark = on_both_backends

TEAM = TeamRef(CHANNEL.platform, CHANNEL.team)
PACK = """\
language: en
name: our-cluster
questions:
  - id: nodes
    prompt: "How many GPUs does one node of our cluster hold?"
    options:
      - "4"
      - text: "8"
        correct: true
      - "16"
    explanation: "Every node of our cluster has 8 GPUs."
    tags: [cluster]
"""
BROKEN = PACK.replace('      - "4"\n', "      - {en: four, id: empat}\n").replace(
    "correct: true", "correct: maybe"
)


def ctx(channel: ChannelRef = CHANNEL, *, admin: bool = True) -> Context:
    async def is_admin() -> bool:
        return admin

    return Context(
        channel=channel, user=UserRef(channel.platform, channel.team, "UA"), is_admin=is_admin
    )


async def say(
    quiz: Quiz, text: str, channel: ChannelRef = CHANNEL, admin: bool = True
) -> NoticeView:
    reply = await dispatch(quiz, parse_text(text), ctx(channel, admin=admin))
    assert isinstance(reply, NoticeView)
    return reply


async def test_a_one_language_pack_is_drawn_in_a_team_channel_and_nowhere_else(
    quiz: Quiz, port: RecordingPort, db: Store
) -> None:
    added = await quiz.packs.add_any(TEAM, PACK, label="ours.yaml", name=None, by="UA", lang="en")
    assert added.stored, added.notice
    assert "our-cluster" in added.notice.text
    assert "our-cluster" in " ".join((await say(quiz, "pack list")).lines)
    assert "team" in (await say(quiz, "questions team")).text
    await say(quiz, "lang id")  # the interface in Indonesian; the pack's text stays English
    for _ in range(3):
        view = await quiz.rounds.start_round(CHANNEL)
        assert isinstance(view, QuestionView)
        assert view.prompt == "How many GPUs does one node of our cluster hold?"
        assert view.question_id.endswith(":nodes")
        assert view.lang == "id" and view.hint == t("id", "pick_letter")  # Indonesian around it
        await quiz.close_round(view.round_id, "admin")
    # Another team, its channel set to its own (no) packs: the bundled bank, never ours.
    other = ChannelRef(CHANNEL.platform, "T2", "C9")
    await say(quiz, "questions team", other)
    seen = set()
    for _ in range(5):
        view = await quiz.rounds.start_round(other)
        assert isinstance(view, QuestionView)
        seen.add(view.question_id)
        await quiz.close_round(view.round_id, "admin")
    assert not any(":" in q for q in seen)
    assert (await say(quiz, "pack list", other)).lines == ()
    assert "our-cluster" in (await say(quiz, "pack show our-cluster")).text
    assert (await say(quiz, "pack show our-cluster", other)).ok is False


async def test_a_broken_pack_lists_its_lines_and_stores_nothing(quiz: Quiz, db: Store) -> None:
    added = await quiz.packs.add_any(TEAM, BROKEN, label="ours.yaml", name=None, by="UA", lang="en")
    assert not added.stored
    assert added.problems == (
        "ours.yaml:7: option 1 must be plain text or 'text:' with 'correct:': "
        "this file is in 'en' only",
        "ours.yaml:7: question 'nodes' has 0 options marked correct; exactly one must be",
        "ours.yaml:9: 'correct' must be true or false",
    )
    assert list(added.notice.lines[: len(added.problems)]) == list(added.problems)
    assert await db.packs.list(TEAM) == []


async def test_admins_only(quiz: Quiz) -> None:
    for text in ("pack list", "questions team", "pack remove x"):
        reply = await say(quiz, text, admin=False)
        assert reply.ok is False


async def test_a_round_of_a_removed_pack_still_reveals_and_its_card_renders(
    quiz: Quiz, port: RecordingPort, db: Store, clock: FakeClock
) -> None:
    await quiz.packs.add_any(TEAM, PACK, label="ours.yaml", name=None, by="UA", lang="en")
    await say(quiz, "questions team")
    view = await quiz.rounds.start_round(CHANNEL)
    assert isinstance(view, QuestionView)
    right = [o.text for o in view.options].index("8")
    await quiz.rounds.answer(view.round_id, player(1), right)
    assert "removed" in (await say(quiz, "pack remove our-cluster")).text
    await quiz.close_round(view.round_id, "admin")
    ((_, reveal),) = port.reveals
    assert reveal.prompt == view.prompt and "8" in reveal.answer_line
    assert reveal.explanation == "Every node of our cluster has 8 GPUs."
    # Its review card, once due, renders the question it showed.
    await clock.advance(timedelta(days=60).total_seconds())
    card = await quiz.reviews.start(player(1), NO_FILTER, "en")
    assert isinstance(card, ReviewView) and card.prompt == view.prompt
    button = card.buttons[[o.text for o in card.options].index("8")]
    result = await quiz.review_click(player(1), button.token)
    assert isinstance(result, ReviewResult) and result.correct
    # A removed question stops being asked: the team has no pack, the bundled bank is drawn.
    for _ in range(3):
        again = await quiz.rounds.start_round(CHANNEL)
        assert isinstance(again, QuestionView) and ":" not in again.question_id
        await quiz.close_round(again.round_id, "admin")


async def test_a_changed_pack_keeps_what_a_round_showed(quiz: Quiz, port: RecordingPort) -> None:
    await quiz.packs.add_any(TEAM, PACK, label="ours.yaml", name=None, by="UA", lang="en")
    await say(quiz, "questions team")
    view = await quiz.rounds.start_round(CHANNEL)
    assert isinstance(view, QuestionView)
    changed = PACK.replace("hold?", "hold today?")
    second = await quiz.packs.add_any(
        TEAM, changed, label="ours.yaml", name=None, by="UA", lang="en"
    )
    assert second.stored and "version 2" in second.notice.text
    await quiz.close_round(view.round_id, "admin")
    assert port.reveals[-1][1].prompt == view.prompt  # version 1's text
    newer = await quiz.rounds.start_round(CHANNEL)
    assert isinstance(newer, QuestionView) and newer.prompt.endswith("hold today?")


async def test_the_limits_say_so(quiz: Quiz, db: Store) -> None:
    for n in range(MAX_PACKS_PER_TEAM):
        added = await quiz.packs.add_any(
            TEAM, PACK, label="p.yaml", name=f"p{n}", by="UA", lang="en"
        )
        assert added.stored
    refused = await quiz.packs.add_any(
        TEAM, PACK, label="p.yaml", name="one-more", by="UA", lang="en"
    )
    assert not refused.stored and str(MAX_PACKS_PER_TEAM) in refused.notice.text
    replaced = await quiz.packs.add_any(TEAM, PACK, label="p.yaml", name="p0", by="UA", lang="en")
    assert replaced.stored  # a new version of a pack the team has is no new pack
    body = PACK.split("questions:\n")[1]
    many = "language: en\nquestions:\n" + "".join(
        body.replace("id: nodes", f"id: n{i}") for i in range(MAX_PACK_QUESTIONS + 1)
    )
    other = TeamRef(CHANNEL.platform, "T3")
    big = await quiz.packs.add_any(other, many, label="big.yaml", name="big", by="UA", lang="en")
    assert not big.stored
    assert big.problems == (
        f"big.yaml: the pack holds {MAX_PACK_QUESTIONS + 1} questions and templates; "
        f"the limit is {MAX_PACK_QUESTIONS} (split it into several packs)",
    )
    assert await db.packs.list(other) == []


async def test_one_question_written_in_a_form_joins_the_pack(quiz: Quiz, db: Store) -> None:
    added = await quiz.packs.add_question(
        TEAM, "from-chat", "Which stage shards the parameters?", "Stage 1\n*Stage 3\nStage 2",
        "Only stage 3 shards the parameters.", by="UA", lang="id",
    )  # fmt: skip
    assert added.stored, added.notice
    record = await db.packs.get(TEAM, "from-chat")
    assert record is not None and "language: id" in record.body
    again = await quiz.packs.add_question(
        TEAM, "from-chat", "Which stage shards the parameters?", "*Stage 3\nStage 1",
        "Again.", by="UA", lang="en",
    )  # fmt: skip
    assert again.stored and "version 2: 2 question(s)" in again.notice.text
    wrong = await quiz.packs.add_question(
        TEAM, "from-chat", "Two right?", "*a\n*b", "x", by="UA", lang="en"
    )
    assert not wrong.stored and not wrong.notice.ok
