"""The terminal as a surface: one person, one channel, the `/zeroquiz` registry's commands.

`zeroquiz play` and `zeroquiz review` ask the core through `bot.commands.dispatch`, as Slack and
Discord do, and the letters typed stand for the buttons the chat surfaces show; so the terminal
has no rules of its own for what a command does or what counts.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import TextIO, TypeVar

from adapters.console import render
from adapters.console.port import PLATFORM, ConsolePort
from bot.commands import Command, Context, Reply, dispatch, parse_text
from bot.i18n import t
from bot.model import LETTERS, ChannelRef, Lang, TeamRef, UserRef
from bot.quiz import Quiz
from bot.reports import parse_reason
from bot.views import NoticeView

TERMINAL = ChannelRef(PLATFORM, "local", "terminal")
TERMINAL_TEAM = TeamRef(PLATFORM, "local")
# The terminal's question window, built in as the core's default (the one `start` uses): a person
# may think for a while, and nothing closes a round here but their answer.
WINDOW = timedelta(hours=1)

ReadLine = Callable[[], Awaitable[str | None]]
R = TypeVar("R", bound=Reply)


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


async def _owner() -> bool:
    """The person at the terminal owns its local database: admin commands (`lang`) are theirs."""
    return True


class Terminal:
    """One player at this terminal: their registry context, and the letters they type.

    `echo` repeats piped answers, so the transcript reads as a session would; `err` takes what
    ends the session refused (stderr), so a piped transcript never holds the error."""

    def __init__(
        self,
        quiz: Quiz,
        player: str,
        read_line: ReadLine,
        out: TextIO,
        *,
        echo: bool = False,
        err: TextIO | None = None,
        port: ConsolePort | None = None,
    ) -> None:
        self.quiz = quiz
        if port is None:  # the terminal's own port: the review's reminders come through it
            port = ConsolePort()
            quiz.add_port(port)
        self.port = port
        self.user = UserRef(PLATFORM, TERMINAL_TEAM.team, player, player)
        self.ctx = Context(TERMINAL, self.user, _owner)
        self._read_line = read_line
        self._out = out
        self._err = err or out
        self._echo = echo
        self.answered: str | None = None  # the question last answered: what `/report` names

    async def command(self, name: str, *args: str) -> Reply:
        """`/zeroquiz <name> <args>`, as a chat surface would send it."""
        return await dispatch(self.quiz, Command(name, args), self.ctx)

    async def typed(self, line: str) -> Reply:
        """A `/zeroquiz` command typed at a prompt (`/zeroquiz` itself may be left out), or
        `/report REASON [note]`: the question just answered, as chat's Report control sends it."""
        words = line.strip()[1:].split()
        if words[:1] == ["zeroquiz"]:
            words = words[1:]
        if words[:1] == ["report"]:
            return await self.report(words[1:])
        return await dispatch(self.quiz, parse_text(" ".join(words)), self.ctx)

    async def report(self, words: list[str]) -> NoticeView:
        lang = await self.quiz.channel_lang(TERMINAL)
        reason = parse_reason(words[0]) if words else None
        if reason is None:
            return NoticeView(lang, t(lang, "report_usage"), ok=False)
        if self.answered is None:
            return NoticeView(lang, t(lang, "report_first_answer"), ok=False)
        note = " ".join(words[1:])
        return await self.quiz.report(self.user, self.answered, reason, note, lang)

    async def ask(self, kind: type[R], name: str, *args: str) -> R:
        """A command whose reply is always of one kind (`stats`, `leaderboard all`)."""
        reply = await self.command(name, *args)
        if not isinstance(reply, kind):
            raise TypeError(f"/zeroquiz {name} replied {type(reply).__name__}")
        return reply

    async def remind(self) -> None:
        """The person's review reminder, when its time has come and cards are due: at the
        terminal its direct message is a line before the next prompt."""
        await self.quiz.reminders.process_due(only=self.user)
        while self.port.reminders:
            view = self.port.reminders.popleft()
            self.say(t(view.lang, "remind_terminal", count=view.due))

    def say(self, text: str = "", *, end: str = "\n") -> None:
        print(text, end=end, file=self._out, flush=True)

    def refuse(self, text: str) -> None:
        """Why the session can't go on (an unknown topic, an empty bank): on the error stream."""
        print(text, file=self._err, flush=True)

    async def letter(
        self, lang: Lang, options: int, prompt: str, *, quit_word: str | None = None
    ) -> int | None:
        """The position of the letter typed (0 for A), asked again until it is one of the
        options; None at the end of input or on `quit_word`. A line that starts with `/` is a
        `/zeroquiz` command, answered as chat answers it, and the letter is asked again."""
        choice = await self.choice(lang, options, prompt, quit_word=quit_word)
        assert not isinstance(choice, str)  # no example: only letters
        return choice

    async def choice(
        self,
        lang: Lang,
        options: int,
        prompt: str,
        *,
        quit_word: str | None = None,
        example: str | None = None,
    ) -> int | str | None:
        """As `letter`; with `example` (the answer is a number: chat's Type it), any other line
        is returned as typed, for the core to grade."""
        letters = LETTERS[:options]
        while True:
            await self.remind()
            self.say(t(lang, prompt, letters="/".join(letters)), end="")
            line = await self._read_line()
            if line is None:
                self.say()
                return None
            text = line.strip().upper()
            if self._echo:
                self.say(line.strip())
            if quit_word is not None and text == quit_word.upper():
                return None
            if text.startswith("/"):  # `/stats`, `/zeroquiz leaderboard all`: as in chat
                self.say(render.reply(await self.typed(line)))
                continue
            if len(text) == 1 and text in letters:
                return letters.index(text)
            if example is not None and text and not (len(text) == 1 and text.isalpha()):
                return line.strip()
            if example is None:
                self.say(t(lang, "term_hint", letters=", ".join(letters)))
            else:
                self.say(t(lang, "term_hint_typed", letters=", ".join(letters), example=example))
