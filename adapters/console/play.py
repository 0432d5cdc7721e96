"""Terminal play: questions one after another, answered by letter, explained at once.

Works with piped input (tests drive it that way) and stops cleanly at end of input.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import TextIO

from adapters.console import render
from adapters.console.port import PLATFORM, ConsolePort
from bot.i18n import t
from bot.model import LETTERS, ChannelRef, Lang, TeamRef, UserRef
from bot.quiz import Quiz
from bot.topics import UnknownTopic, matching, parse_filter, topics
from bot.views import NoticeView

TERMINAL = ChannelRef(PLATFORM, "local", "terminal")
TERMINAL_TEAM = TeamRef(PLATFORM, "local")
WINDOW = timedelta(hours=1)

ReadLine = Callable[[], Awaitable[str | None]]


def stdin_reader(stream: TextIO) -> ReadLine:
    """Read lines on a daemon thread, so Ctrl-C never waits for a pending read to finish."""

    async def read() -> str | None:
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[str | None] = loop.create_future()

        def work() -> None:
            try:
                line = stream.readline()
                result: str | None = line if line else None
            except (OSError, ValueError):
                result = None
            loop.call_soon_threadsafe(_settle, fut, result)

        threading.Thread(target=work, daemon=True).start()
        return await fut

    return read


def _settle(fut: asyncio.Future[str | None], result: str | None) -> None:
    if not fut.done():
        fut.set_result(result)


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
) -> int:
    """Play `count` questions (of the topic and level `words` name, if any); `echo` repeats
    piped answers so the transcript reads well."""
    port = ConsolePort()
    quiz.add_port(port)
    user = UserRef(PLATFORM, TERMINAL_TEAM.team, player, player)
    await quiz.set_channel_lang(TERMINAL, lang)
    await quiz.end_runs(TERMINAL)  # a previous session cut off mid-run
    if len(quiz.bank) == 0:
        print(t(lang, "term_no_questions"), file=out)
        return 1
    flt = parse_filter(words, quiz.bank)
    if isinstance(flt, UnknownTopic):
        listed = ", ".join(topics(quiz.bank))
        print(t(lang, "topic_unknown", word=flt.word, topics=listed), file=out)
        return 1
    pool = matching(quiz.bank, flt)
    if not pool:
        print(t(lang, "filter_no_match"), file=out)
        return 1
    total = max(1, min(count, len(pool)))
    started = await quiz.start_run(TERMINAL, total, WINDOW, flt)
    if isinstance(started, NoticeView):
        print(started.text, file=out)
        return 1
    answered = correct = points = 0
    n = 0
    while port.questions:
        view = port.questions.popleft()
        n += 1
        print(render.question(view, n, total), file=out, flush=True)
        letters = LETTERS[: len(view.options)]
        choice: int | None = None
        while choice is None:
            print(t(lang, "term_prompt", letters="/".join(letters)), end="", file=out, flush=True)
            line = await read_line()
            if line is None:
                print(file=out)
                await _finish(quiz, out, lang, user, answered, correct, points)
                return 0
            text = line.strip().upper()
            if echo:
                print(line.strip(), file=out)
            if len(text) == 1 and text in letters:
                choice = letters.index(text)
            else:
                print(t(lang, "term_hint", letters=", ".join(letters)), file=out)
        feedback = await quiz.answer(view.round_id, user, choice)
        print(render.feedback(feedback), file=out, flush=True)
        if feedback.recorded:
            answered += 1
            correct += feedback.status == "correct"
            points += feedback.points
        await quiz.close_round(view.round_id, "next")
    await _finish(quiz, out, lang, user, answered, correct, points)
    return 0


async def _finish(
    quiz: Quiz, out: TextIO, lang: Lang, user: UserRef, answered: int, correct: int, points: int
) -> None:
    await quiz.end_runs(TERMINAL)
    print("", file=out)
    print(t(lang, "term_final", correct=correct, answered=answered, points=points), file=out)
    board = await quiz.leaderboard(TERMINAL_TEAM, "all", lang=lang, user=user)
    print(render.leaderboard(board, t(lang, "term_leaderboard")), file=out)
    print(t(lang, "term_bye"), file=out, flush=True)
