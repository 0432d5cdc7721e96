"""`/zeroquiz drill [topic] [level]`: a person's missed questions in this team, privately, most
recently missed first, one at a time, up to DRILL_MAX.

A question is missed while its card's last answer was wrong (in a round, a review or a drill:
storage keeps when, bot/storage/cards.py), so one answered right leaves the list. An answer
reschedules the card as a review does and never touches answers, totals or leaderboards. The
buttons carry where the drill is (the missed time of the question shown: the next is the newest
older one; a question missed again meanwhile moves to the front and is not asked twice) and how
many it asked, so no state lives in memory and a click after a restart goes on.
"""

from __future__ import annotations

from bot.clock import Clock
from bot.i18n import t
from bot.library import Library
from bot.model import Lang, Question, UserRef
from bot.periods import to_ms
from bot.reviewing import Click, card_view, decode, reschedule, result_view
from bot.storage import Store
from bot.topics import Filter
from bot.views import NoticeView, ReviewResult, ReviewView

DRILL_MAX = 10  # questions one drill asks

Missed = tuple[Question, int, int]  # the question, when it was missed, its card's due stamp (ms)


class Drills:
    def __init__(self, store: Store, library: Library, clock: Clock) -> None:
        self._store = store
        self._library = library
        self._clock = clock

    async def start(self, user: UserRef, flt: Filter, lang: Lang) -> ReviewView | NoticeView:
        """The most recently missed question, or a notice that nothing is missed."""
        missed = await self._missed(user, flt)
        if not missed:
            return NoticeView(lang, t(lang, "drill_none"))
        return self._show(user, missed[0], 1, min(len(missed), DRILL_MAX), flt, lang)

    async def click(
        self, user: UserRef, token: str, typed: str | None = None
    ) -> ReviewView | ReviewResult | NoticeView | None:
        """A drill's answer (a letter, or the number `typed`) or Next; None for any other token
        (a review's, a foreign one)."""
        click = decode(token)
        kinds = ("b", "m") if typed is None else ("b",)  # a number answers a card
        if click is None or click.kind not in kinds:
            return None
        if click.kind == "m":
            return await self._next(user, click)
        return await self._answer(user, click, typed)

    async def _answer(
        self, user: UserRef, click: Click, typed: str | None
    ) -> ReviewResult | NoticeView:
        lang = click.lang
        done = await reschedule(
            self._store, self._library, self._clock, user, click, early=True, typed=typed
        )
        if isinstance(done, NoticeView):
            return done
        question, rescheduled, graded = done
        missed = await self._missed(user, click.flt)  # one read for both counts
        ahead = min(len(_older(missed, click)), max(DRILL_MAX - click.count, 0))
        left = len(missed)
        footer = t(lang, "drill_ahead", count=ahead) if ahead else t(lang, "drill_done", left=left)
        return result_view(user, question, click, rescheduled, ahead, footer, typed=graded)

    async def _next(self, user: UserRef, click: Click) -> ReviewView | NoticeView:
        missed = await self._missed(user, click.flt)
        older = _older(missed, click)
        if not older or click.count >= DRILL_MAX:
            return NoticeView(click.lang, t(click.lang, "drill_done", left=len(missed)))
        total = click.count + min(len(older), DRILL_MAX - click.count)
        return self._show(user, older[0], click.count + 1, total, click.flt, click.lang)

    def _show(
        self, user: UserRef, missed: Missed, n: int, total: int, flt: Filter, lang: Lang
    ) -> ReviewView:
        question, at, stamp = missed
        line = t(lang, "drill_line", n=n, total=total)
        return card_view(user, question, stamp, total, flt, lang, drill=(at, n, line))

    async def _missed(self, user: UserRef, flt: Filter) -> list[Missed]:
        """The person's missed questions that match the filter, most recently missed first."""
        found: list[Missed] = []
        for question_id, missed_at, due_at in await self._store.cards.missed(user):
            question = await self._library.get(question_id)
            if question is not None and flt.matches(question):
                found.append((question, to_ms(missed_at), to_ms(due_at)))
        return found


def _older(missed: list[Missed], click: Click) -> list[Missed]:
    """Those after the one shown in the drill's order (missed earlier; at the same instant, a
    later id)."""
    shown = (-click.cursor, click.question_id)
    return [m for m in missed if (-m[1], m[0].id) > shown]
