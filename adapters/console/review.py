"""Terminal review: the person's due cards one after another, answered by letter, explained at
once, until nothing is due, `q`, or the end of input. Same database as `zeroquiz play`."""

from __future__ import annotations

from typing import TextIO

from adapters.console import render
from adapters.console.play import TERMINAL_TEAM, ReadLine
from adapters.console.port import PLATFORM
from bot.i18n import t
from bot.model import LETTERS, Lang, UserRef
from bot.quiz import Quiz
from bot.topics import UnknownTopic, matching, parse_filter, topics
from bot.views import NoticeView, ReviewResult, ReviewView


async def review(
    quiz: Quiz,
    *,
    lang: Lang,
    player: str,
    read_line: ReadLine,
    out: TextIO,
    echo: bool = False,
    words: tuple[str, ...] = (),
) -> int:
    """Review `player`'s due cards (of the topic and level `words` name, if any)."""
    user = UserRef(PLATFORM, TERMINAL_TEAM.team, player, player)
    flt = parse_filter(words, quiz.bank)
    if isinstance(flt, UnknownTopic):
        listed = ", ".join(topics(quiz.bank))
        print(t(lang, "topic_unknown", word=flt.word, topics=listed), file=out)
        return 1
    if not matching(quiz.bank, flt):
        print(t(lang, "filter_no_match"), file=out)
        return 1
    step: ReviewView | ReviewResult | NoticeView | None = await quiz.reviews.start(user, flt, lang)
    while isinstance(step, ReviewView):
        print(render.review_card(step), file=out, flush=True)
        token = await _choose(step, lang, read_line, out, echo)
        if token is None:
            print(t(lang, "review_stopped"), file=out, flush=True)
            return 0
        step = await quiz.reviews.click(user, token)
        if not isinstance(step, ReviewResult):
            break
        print(render.review_result(step), file=out, flush=True)
        if not step.buttons:
            return 0  # the footer said nothing more is due
        step = await quiz.reviews.start(user, flt, lang)
    if isinstance(step, NoticeView):
        print(render.notice(step), file=out, flush=True)
    return 0


async def _choose(
    view: ReviewView, lang: Lang, read_line: ReadLine, out: TextIO, echo: bool
) -> str | None:
    """The token of the letter typed; None for `q` or the end of input."""
    letters = LETTERS[: len(view.options)]
    while True:
        prompt = t(lang, "term_review_prompt", letters="/".join(letters))
        print(prompt, end="", file=out, flush=True)
        line = await read_line()
        if line is None:
            print(file=out)
            return None
        text = line.strip().upper()
        if echo:
            print(line.strip(), file=out)
        if text == "Q":
            return None
        if len(text) == 1 and text in letters:
            return view.buttons[letters.index(text)].token
        print(t(lang, "term_hint", letters=", ".join(letters)), file=out)
