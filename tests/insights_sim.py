"""A seeded simulated team for the insights: players of known skill answer a small bank in
which one question's key is deliberately wrong and one template has a planted misconception.

The bank (written to a file, so a child process can load it too) has three topics whose true
difficulty is known: sim-comms is the hardest, then sim-stages, then sim-memory. `sim-bad-key`
(sim-stages) is keyed B in the file while C is right: the stronger a player, the likelier they
choose C, which the file scores wrong. `sim-gen-bytes` (sim-memory, a template) is answered by
most who get it wrong with its "20 bytes" mistake. Rounds run through the real core: opened,
posted to a recording port, answered by every player at once, closed on the clock.
"""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

from helpers import RecordingPort

from bot.app import build_quiz
from bot.bank import Bank, load_bank
from bot.bank.templates import OPTIONS, parse_draw_id
from bot.clock import FakeClock
from bot.i18n import t
from bot.model import ChannelRef, Lang, UserRef
from bot.quiz import Quiz
from bot.shuffle import permutation
from bot.storage import Store
from bot.views import MAX_INSIGHT_LINE, InsightLine, InsightsView, QuestionView, TopicStat

PLAYERS = 30
CYCLES = 5  # every question is asked this many times
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # a Monday: every round in one week
BAD_KEY = "sim-bad-key"
TRUE_OPTION = 2  # C: what sim-bad-key's key should be (the file says B)
MISCONCEPTION = "ZeRO-Infinity's 20 bytes mixed with ZeRO's 16"
TEMPLATE = "sim-gen-bytes"
PLANTED_SLOT = 1  # the template's first mistake, the one above
WEAKEST_FIRST = ("sim-comms", "sim-stages", "sim-memory")
# How much of a player's skill becomes a right answer, per topic (and for the template).
FACTOR = {
    "sim-memory": 1.0, "sim-stages": 0.75, "sim-comms": 0.4, TEMPLATE: 0.35, BAD_KEY: 1.0
}  # fmt: skip

_TOPIC_QUESTIONS = {
    "sim-memory": ["mem-a", "mem-b", "mem-c"],
    "sim-stages": ["stg-a", "stg-b", "stg-c"],
    "sim-comms": ["com-a", "com-b", "com-c", "com-d"],
}


def _question(qid: str, tag: str, answer: int) -> str:
    options = []
    for n in range(4):
        letter = "ABCD"[n]
        why = f'{{en: "{qid} {letter} misreads the question", id: "{qid} {letter} salah membaca"}}'
        mark = "\n        correct: true" if n == answer else f"\n        why: {why}"
        options.append(
            f'      - en: "{qid} option {letter}"\n        id: "{qid} pilihan {letter}"{mark}'
        )
    return f"""  - id: {qid}
    difficulty: 2
    tags: [{tag}]
    prompt:
      en: "Simulated question {qid}: which option is right?"
      id: "Soal simulasi {qid}: pilihan mana yang benar?"
    options:
{chr(10).join(options)}
    explanation:
      en: "The first sentence of {qid}'s explanation. More follows."
      id: "Kalimat pertama penjelasan {qid}. Ada lanjutannya."
"""


def bank_text() -> str:
    questions = [_question(qid, tag, 0) for tag, ids in _TOPIC_QUESTIONS.items() for qid in ids]
    questions.append(_question(BAD_KEY, "sim-stages", 1))  # keyed B; C is right
    template = f"""templates:
  - id: {TEMPLATE}
    difficulty: 1
    tags: [sim-memory]
    params:
      psi: [1, 2, 3, 5, 7]
    answer: "16 * psi"
    distractors:
      - {{formula: "20 * psi", mistake: "{MISCONCEPTION}"}}
      - {{formula: "12 * psi", mistake: "only the optimizer states counted"}}
      - {{formula: "4 * psi", mistake: "only the fp16 params and grads"}}
    prompt:
      en: "How many GB of model states does a {{psi}}B-parameter model need with Adam?"
      id: "Berapa GB model states untuk model {{psi}} miliar parameter dengan Adam mixed precision?"
    explanation:
      en: "16 bytes per parameter, so {{answer}}. ZeRO-Infinity counts 20."
      id: "16 byte per parameter, jadi {{answer}}. ZeRO-Infinity menghitung 20."
"""
    return "questions:\n" + "".join(questions) + template


def write_bank(folder: Path) -> Path:
    path = folder / "sim-bank.yaml"
    path.write_text(bank_text(), encoding="utf-8")
    return path


def skill(n: int) -> float:
    return 0.05 + 0.95 * n / (PLAYERS - 1)


def _tag(bank: Bank, question_id: str) -> str:
    question = bank.get(question_id)
    assert question is not None
    return question.tags[0]


def _true_option(bank: Bank, question_id: str) -> int:
    """The option in file order that is really right."""
    question = bank.get(question_id)
    assert question is not None
    return TRUE_OPTION if question_id == BAD_KEY else question.answer


def _planted(question_id: str) -> int | None:
    """The file-order option of the template's planted mistake in this draw."""
    parsed = parse_draw_id(question_id)
    if parsed is None or parsed[0] != TEMPLATE:
        return None
    return permutation(parsed[1], OPTIONS).index(PLANTED_SLOT)


def choose(bank: Bank, question_id: str, player: int, rng: random.Random) -> int:
    """Player `player`'s option (file order): right with a chance that grows with their skill,
    else the planted mistake (templates, mostly) or any wrong option."""
    question = bank.get(question_id)
    assert question is not None
    kind = question_id.partition("@")[0]
    factor = FACTOR.get(kind) or FACTOR[_tag(bank, question_id)]
    right = _true_option(bank, question_id)
    if rng.random() < skill(player) * factor:
        return right
    planted = _planted(question_id)
    if planted is not None and rng.random() < 0.8:
        return planted
    wrong = [n for n in range(len(question.options)) if n != right]
    return wrong[rng.randrange(len(wrong))]


async def simulate(
    store: Store, bank: Bank, clock: FakeClock, channel: ChannelRef, *, seed: int = 23
) -> int:
    """Play CYCLES rounds of every question in `channel`; returns the answers recorded."""
    if clock.now() < START:
        await clock.advance(to=START)
    port = RecordingPort(platform=channel.platform)
    quiz = build_quiz(store, bank, clock, random.Random(seed))
    quiz.add_port(port)
    rng = random.Random(seed)
    users = [
        UserRef(channel.platform, channel.team, f"USIM{n:02d}", f"Sim {n}") for n in range(PLAYERS)
    ]
    entries = len(bank.questions) + len(bank.templates)
    recorded = 0
    for _ in range(CYCLES * entries):
        view = await quiz.rounds.start_round(channel)
        assert view is not None
        picks = [choose(bank, view.question_id, n, rng) for n in range(PLAYERS)]
        answers = [_answer(quiz, bank, view, users[n], pick) for n, pick in enumerate(picks)]
        results = await asyncio.gather(*answers)
        recorded += sum(results)
        await quiz.close_round(view.round_id, "deadline")
        await clock.advance(timedelta(minutes=11).total_seconds())
    return recorded


async def _answer(quiz: Quiz, bank: Bank, view: QuestionView, user: UserRef, option: int) -> bool:
    question = bank.get(view.question_id)
    assert question is not None
    display = [o.text for o in view.options].index(question.options[option].en)
    return (await quiz.rounds.answer(view.round_id, user, display)).recorded


def simulated_bank(folder: Path) -> Bank:
    return load_bank([write_bank(folder)])


def biggest(lang: Lang) -> InsightsView:
    """As much as the core ever lists, every line at its longest and full of markup."""
    hostile = "<!channel> & <@U1> *bold* `x`"
    line = (hostile * 40)[:MAX_INSIGHT_LINE]
    items = tuple(InsightLine(f"q{n}", line, 1) for n in range(5))
    topics = tuple(TopicStat(f"topic-{n}", 1000, 500, 0.4) for n in range(20))
    return InsightsView(
        lang=lang, title=t(lang, "insights_title", period=t(lang, "period_month")) + "x" * 200,
        period="month", topic=None, topics_title=t(lang, "insights_topics"), topics=topics,
        chart=tuple(f"{'t' * 16} {'█' * 10} 100% 1000000  ▲ +100" for _ in topics),
        legend=t(lang, "insights_legend_month"), missed_title=t(lang, "insights_missed"),
        missed=items, missed_empty="", check_title=t(lang, "insights_check"), check=items,
        check_empty="", check_note=t(lang, "insights_check_note", min=30, rated=5),
        empty_text=None,
    )  # fmt: skip
