"""A round asking a generated question keeps only `tid@seed`: after a restart (a new process's
Store, bank and random generator) its answers and its reveal show the very same numbers."""

from __future__ import annotations

import random

from conftest import CHANNEL
from helpers import RecordingPort
from pg_server import on_both_backends

from bot.app import build_quiz
from bot.bank import Bank, load_bank
from bot.clock import FakeClock
from bot.model import LETTERS, UserRef
from bot.selection import choose_question
from bot.storage import Store
from bot.topics import Filter

pytestmark = on_both_backends

ALICE = UserRef("test", "T1", "UA", "Alice")
BOB = UserRef("test", "T1", "UB", "Bob")


def only_templates(bank: Bank, *ids: str) -> Bank:
    return Bank([], [t for t in bank.templates if t.id in ids])


async def test_a_generated_round_survives_a_restart_with_its_numbers(
    db_target: str, bank: Bank, clock: FakeClock
) -> None:
    store = await Store.open(db_target)
    port = RecordingPort()
    try:
        quiz = build_quiz(store, only_templates(bank, "gen-mem-stage2"), clock, random.Random(5))
        quiz.add_port(port)
        posted = await quiz.rounds.start_round(CHANNEL)
        assert posted is not None and posted.question_id.startswith("gen-mem-stage2@")
        asked = bank.get(posted.question_id)
        assert asked is not None
        right = asked.options[asked.answer].en
        right_letter = next(o.letter for o in posted.options if o.text == right)
        feedback = await quiz.rounds.answer(posted.round_id, ALICE, LETTERS.index(right_letter))
        assert feedback.status == "correct"
        assert feedback.explanation == asked.explanation.en
    finally:
        await store.close()

    # A new process: its own Store, a bank loaded again, another random generator.
    store = await Store.open(db_target)
    port2 = RecordingPort()
    try:
        quiz = build_quiz(store, load_bank(), clock, random.Random(99))
        quiz.add_port(port2)
        again = await quiz.rounds.question_view(posted.round_id)
        assert again is not None and again.prompt == posted.prompt
        assert again.options == posted.options  # the same numbers behind the same letters
        wrong = next(o.letter for o in posted.options if o.letter != right_letter)
        late = await quiz.rounds.answer(posted.round_id, BOB, LETTERS.index(wrong))
        assert late.status == "wrong" and late.correct_letter == right_letter
        reveal = await quiz.close_round(posted.round_id, "admin")
        assert reveal is not None
        assert reveal.prompt == posted.prompt
        assert reveal.correct_letter == right_letter and right in reveal.answer_line
        assert reveal.explanation == asked.explanation.en and right in reveal.explanation
        assert (reveal.total, reveal.right) == (2, 1)
    finally:
        await store.close()


def test_a_template_is_one_entry_and_its_draws_count_as_its_uses(bank: Bank) -> None:
    """Every template is asked once before any again; each time with numbers of its own seed."""
    pool = only_templates(bank, "gen-offload-gpu", "gen-zeropp-volume", "gen-mem-dp")
    rng = random.Random(4)
    uses: dict[str, int] = {}
    asked = []
    for _ in range(6):
        question = choose_question(pool, uses, rng)
        uses[question.id] = uses.get(question.id, 0) + 1
        asked.append(question.id)
    templates = [qid.partition("@")[0] for qid in asked]
    assert sorted(templates[:3]) == sorted(templates[3:]) == sorted(t.id for t in pool.templates)
    assert len(set(asked)) == 6  # a new seed each time
    offload = choose_question(bank, {}, rng, Filter("offload", 2))
    assert offload.tags and "offload" in offload.tags and offload.difficulty == 2
