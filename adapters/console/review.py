"""Terminal review: `/zeroquiz review [topic] [level]`, the person's due cards one after another,
answered by letter (each letter the card's button), explained at once, then Next, until nothing
is due, `q`, or the end of input. Same database as `zeroquiz play`."""

from __future__ import annotations

from typing import TextIO

from adapters.console import render
from adapters.console.surface import TERMINAL, ReadLine, Terminal
from bot.commands import Reply
from bot.i18n import t
from bot.model import Lang
from bot.quiz import Quiz
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
    err: TextIO | None = None,
    command: str = "review",
) -> int:
    """Review `player`'s due cards, or drill their missed questions (`command` "drill"), of the
    topic and level `words` name, if any: 0, or 1 when the registry refused the topic or level."""
    term = Terminal(quiz, player, read_line, out, echo=echo, err=err)
    await quiz.set_channel_lang(TERMINAL, lang)  # the session's, not an admin action to log
    step: Reply | ReviewResult | None = await term.command(command, *words)
    while isinstance(step, ReviewView):
        term.say(render.review_card(step))
        result = await _answer(quiz, term, step)
        if result is None:
            term.say(t(lang, "review_stopped"))
            return 0
        if not isinstance(result, ReviewResult):
            step = result
            break
        term.say(render.review_result(result))
        term.answered = result.question_id
        following = [b.token for b in result.buttons if b.kind == "next"]
        if not following:
            return 0  # the footer said nothing more is due
        step = await quiz.review_click(term.user, following[0])  # the result's Next button
    if isinstance(step, NoticeView):
        if not step.ok:
            term.refuse(render.notice(step))
            return 1
        term.say(render.notice(step))
    return 0


async def _answer(quiz: Quiz, term: Terminal, card: ReviewView) -> Reply | ReviewResult | None:
    """The card's answer: a letter (its button), or the number typed when the answer is one,
    asked again while it is no number; None on `q` or at the end of input."""
    example = card.typed.example if card.typed else None
    prompt = "term_review_prompt" if example is None else "term_review_prompt_typed"
    while True:
        choice = await term.choice(
            card.lang, len(card.options), prompt, quit_word="q", example=example
        )
        if not isinstance(choice, str):
            return (
                None
                if choice is None
                else await quiz.review_click(term.user, card.buttons[choice].token)
            )
        result = await quiz.review_click(term.user, card.buttons[0].token, typed=choice)
        if not isinstance(result, NoticeView) or result.ok:
            return result
        term.say(render.notice(result))  # how to type a number; the card is unchanged
