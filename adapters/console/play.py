"""Terminal play: `/zeroquiz start N [topic] [level]` in the terminal's channel, the questions
answered by letter one after another and explained at once, then the score and the board.

Works with piped input (tests drive it that way) and stops cleanly at end of input.
"""

from __future__ import annotations

from typing import TextIO

from adapters.console import render
from adapters.console.port import ConsolePort
from adapters.console.surface import TERMINAL, ReadLine, Terminal
from bot.bank import Bank
from bot.i18n import t
from bot.model import Lang
from bot.quiz import Quiz
from bot.topics import UnknownTopic, matching, parse_filter
from bot.views import Feedback, LeaderboardView, NoticeView, QuestionView, StatsView


async def play(
    quiz: Quiz,
    *,
    lang: Lang,
    count: int,
    player: str,
    read_line: ReadLine,
    out: TextIO,
    echo: bool = False,
    words: tuple[str, ...] = (),
    err: TextIO | None = None,
) -> int:
    """Play `count` questions (of the topic and level `words` name, if any): 0 when played,
    1 when the registry refused the run (it says why: unknown topic, no match, count)."""
    port = ConsolePort()
    quiz.add_port(port)
    term = Terminal(quiz, player, read_line, out, echo=echo, err=err, port=port)
    await quiz.set_channel_lang(TERMINAL, lang)  # the session's, not an admin action to log
    await quiz.runs.abandon(TERMINAL)  # a previous session cut off mid-run
    if len(quiz.bank) == 0 and not quiz.bank.templates:  # a bank of templates alone plays
        term.refuse(t(lang, "term_no_questions"))
        return 1
    total = _run_length(quiz.bank, count, words)
    before = await term.ask(StatsView, "stats")
    started = await term.ask(NoticeView, "start", str(total), *words)
    if not port.questions:
        term.refuse(render.notice(started))
        return 1
    n = 0
    while port.questions:
        view = port.questions.popleft()
        n += 1
        term.say(render.question(view, n, total))
        feedback = await _answer(quiz, term, view)
        if feedback is None:
            break  # end of input: the score so far
        term.say(render.feedback(feedback))
        term.answered = view.question_id
        await quiz.close_round(view.round_id, "next")  # the run posts the next question
    await quiz.runs.abandon(TERMINAL)
    after = await term.ask(StatsView, "stats")
    term.say()
    term.say(render.session_score(lang, before, after))
    board = await term.ask(LeaderboardView, "leaderboard", "all")
    term.say(render.leaderboard(board, t(lang, "term_leaderboard")))
    term.say(t(lang, "term_bye"))
    return 0


async def _answer(quiz: Quiz, term: Terminal, view: QuestionView) -> Feedback | None:
    """A letter, as a chat surface's click; or, when the answer is a number, the number typed
    (chat's Type it), asked again while it is no number. None at the end of input."""
    example = view.typed.example if view.typed else None
    prompt = "term_prompt" if example is None else "term_prompt_typed"
    while True:
        choice = await term.choice(view.lang, len(view.options), prompt, example=example)
        if choice is None or not isinstance(choice, str):
            return (
                None
                if choice is None
                else await quiz.rounds.answer(view.round_id, term.user, choice)
            )
        feedback = await quiz.typed.answer(view.round_id, term.user, choice)
        if feedback.status != "invalid":
            return feedback
        term.say(render.feedback(feedback))  # how to type a number; nothing was counted


def _run_length(bank: Bank, count: int, words: tuple[str, ...]) -> int:
    """`--count`, cut to the questions that match (at least 1: for a topic or level that matches
    nothing, `start` says what is wrong)."""
    flt = parse_filter(words, bank)
    pool = 0 if isinstance(flt, UnknownTopic) else len(matching(bank, flt))
    return max(1, min(count, pool))
