"""One round's life below the user actions: open it, post it, record its answers, and what
a just-opened round's clicks need (its fixed facts cached, live-count subscribers told).

Whether an answer counts is decided by the database (storage/answers.py); whether a post reached
the platform by Delivery. Nothing here knows Quiz: runs, reveals, daily questions and live counts
build on this, and Quiz on all of them.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from datetime import datetime, timedelta

from bot import presenter, review
from bot.clock import Clock
from bot.delivery import Delivery, Posted
from bot.i18n import t
from bot.library import Library
from bot.limits import Limiter, Limits, Refusal
from bot.liveness import silent_since
from bot.model import ChannelRef, Lang, Question, UserRef
from bot.periods import to_ms
from bot.ports import Refused, Unavailable
from bot.selection import choose_question
from bot.storage import (
    AnswerOutcome,
    AnswerRequest,
    CardRule,
    CloseReason,
    RoundKind,
    RoundRecord,
    Store,
)
from bot.topics import NO_FILTER, Filter
from bot.views import Feedback, NoticeView, QuestionView

log = logging.getLogger(__name__)

POINTS_PER_CORRECT = 10
ROUND_CACHE_SIZE = 1024
DEFAULT_WINDOW = timedelta(minutes=10)
# How long a replica's claim to post or reveal a round holds: longer than any post with its
# retries takes, short enough that a crashed replica's work is taken over within a minute.
CLAIM_LEASE = timedelta(seconds=60)
# How long the retry pass leaves a round this process just opened to the path that posts it.
FIRST_POST_GRACE = timedelta(seconds=60)


def post_key(row: RoundRecord) -> str:
    """Stable for one round, distinct across rounds and databases: kind, id, opening instant."""
    return f"zq{row.kind[0]}{row.id}t{to_ms(row.opened_at)}"


class Rounds:
    def __init__(
        self,
        store: Store,
        library: Library,
        clock: Clock,
        rng: random.Random,
        delivery: Delivery,
        *,
        holder: str,
        default_window: timedelta = DEFAULT_WINDOW,
        card_rule: CardRule | None = review.next_card,
        limiter: Limiter | None = None,
    ) -> None:
        """`holder` is this replica in the claims other replicas see (see bot/app.py);
        `card_rule` reschedules a person's review card with each recorded answer; `limiter`
        caps the questions open per channel and team (none when not given)."""
        self.store = store
        self.library = library
        self.clock = clock
        self.rng = rng
        self.delivery = delivery
        self.default_window = default_window
        self.holder = holder
        self.card_rule = card_rule
        self.limiter = limiter or Limiter(Limits.none(), clock)
        self._changed: list[Callable[[], None]] = []
        self._answered: list[Callable[[int], None]] = []
        self._message_locks: dict[int, asyncio.Lock] = {}
        self._round_cache: dict[int, RoundRecord] = {}
        self._round_loads: dict[int, asyncio.Future[RoundRecord | None]] = {}
        # Rounds opened here whose first post is still to come (a command posts after its ack).
        self._first_posts: dict[int, datetime] = {}

    def now(self) -> datetime:
        return self.clock.now()

    def on_change(self, callback: Callable[[], None]) -> None:
        """Called when a round opens or waits for a retry, so a sleeping scheduler re-plans."""
        self._changed.append(callback)

    def notify_changed(self) -> None:
        for callback in self._changed:
            callback()

    def on_answer(self, callback: Callable[[int], None]) -> None:
        """Called with the round id after an answer was recorded (for live counts)."""
        self._answered.append(callback)

    def message_lock(self, round_id: int) -> asyncio.Lock:
        """Serialises posts and edits of one round's message, so a late live count never hides a
        reveal and a retry never posts twice."""
        return self._message_locks.setdefault(round_id, asyncio.Lock())

    def forget_message(self, round_id: int) -> None:
        """The round is over: its message is never edited again, and its facts not needed."""
        self._message_locks.pop(round_id, None)
        self._round_cache.pop(round_id, None)
        self.delivery.forget(round_id)

    def forget_facts(self) -> None:
        """Cached facts are stale (a channel's language changed)."""
        self._round_cache.clear()

    async def start_round(
        self,
        channel: ChannelRef,
        *,
        window: timedelta | None = None,
        kind: RoundKind = "single",
        run: tuple[int, int] | None = None,
        flt: Filter = NO_FILTER,
    ) -> QuestionView | None:
        """Open a round and post it through the channel's port.

        Returns None when a run's round at that index already exists (opened elsewhere).
        Raises Refused if the platform refused the post (the round is then closed, unseen), or
        Unavailable if it could not be reached (the round stays open and is posted later): the
        person who asked is told which.
        """
        row = await self.open_round(channel, window=window, kind=kind, run=run, flt=flt)
        if row is None:
            return None
        return await self.deliver_opened(row)

    async def deliver_opened(self, row: RoundRecord) -> QuestionView:
        """Post a round just opened for someone who waits for the outcome: Refused or
        Unavailable as `start_round` says."""
        view, result = await self.post_opened(row)
        if result.outcome == "refused":
            raise Refused(result.reason)
        if result.outcome == "later":
            raise Unavailable(result.reason)
        return view

    async def open_question(
        self, channel: ChannelRef, *, flt: Filter = NO_FILTER
    ) -> RoundRecord | NoticeView:
        """`/zeroquiz question`: open a round (committed, not yet posted) unless a limit says
        no; the limits are counted in the transaction that opens it, so commands arriving at
        once open one question between them."""
        async with self.store.transaction():
            cid = await self.store.teams.channel_id(channel)
            refusal = await self.limit_open(cid)
            if refusal is not None:
                return refusal.notice(await self.store.teams.channel_lang(channel))
            row = await self.open_round(channel, flt=flt)
        assert row is not None  # a single round has no run step to lose to another
        return row

    async def limit_open(self, channel_id: int) -> Refusal | None:
        """Whether one more question may open in the channel (and its team), in the caller's
        transaction (which, on PostgreSQL, then holds the team's row)."""
        counts = await self.store.rounds.open_counts(channel_id)
        closes_in = None
        if counts.channel_closes_at is not None:
            closes_in = (counts.channel_closes_at - self.now()).total_seconds()
        return self.limiter.open_rounds(counts.in_channel, counts.in_team, closes_in)

    async def post_opened(self, row: RoundRecord) -> tuple[QuestionView, Posted]:
        """Post a round just opened; the outcome is decided (and logged) by `post_round`, and
        returned, never raised, for a caller nobody waits on (a run's next question)."""
        self._remember_round(row)  # the first clicks need no read
        self.notify_changed()
        return await self.post_round(row)

    async def open_round(
        self,
        channel: ChannelRef,
        *,
        window: timedelta | None = None,
        kind: RoundKind = "single",
        run: tuple[int, int] | None = None,
        flt: Filter = NO_FILTER,
    ) -> RoundRecord | None:
        """Insert a round, in the caller's transaction if there is one (a daily claim shares it)."""
        now = self.now()
        async with self.store.transaction():
            span = window or await self.channel_window(channel)
            cid = await self.store.teams.channel_id(channel)
            uses = await self.store.rounds.question_use_counts(cid)
            bank = await self.library.for_channel(cid)
            question = choose_question(bank, uses, self.rng, flt)
            row = await self.store.rounds.insert(
                channel_id=cid,
                question_id=question.id,
                seed=self.rng.getrandbits(31),
                kind=kind,
                opened_at=now,
                deadline_at=now + span,
                run_id=run[0] if run else None,
                run_index=run[1] if run else None,
            )
            if row is not None:  # marked before the commit makes it visible to the retry pass
                self._first_posts[row.id] = now
            return row

    async def channel_window(self, channel: ChannelRef) -> timedelta:
        """How long a question opened in the channel stays open: what an admin set there with
        `/zeroquiz window`, else this process's default."""
        return await self.store.windows.get(channel) or self.default_window

    async def post_round(self, row: RoundRecord) -> tuple[QuestionView, Posted]:
        """Post an opened round. Refused: close it unseen, so nobody answers or is shown the
        answer to a question that never appeared. Passing: leave it open to be posted later.

        Every try of one round carries the same dedupe key, so after a crash between the post and
        saving its reference a platform that honours the key (Discord's enforced nonce) or can
        find the message by it (Slack, reading the channel) returns the message already posted
        instead of showing the question twice."""
        question = await self.library.get(row.question_id)
        assert question is not None
        view = presenter.question_view(row, question, 0)
        result = Posted("posted")  # unless this call posts it: done meanwhile, or elsewhere
        async with self.message_lock(row.id):  # one post per round at a time, decided inside
            self._first_posts.pop(row.id, None)  # tried now: from here on retries are the pass's
            current = await self.store.rounds.get(row.id)
            if current is None or current.posted_at is not None or current.closed_at is not None:
                return view, result  # posted meanwhile (a retry that raced this one), or closed
            if not await self.store.rounds.claim(
                row.id, self.holder, self.now(), CLAIM_LEASE, silent_since(self.now())
            ):
                return view, result  # another replica is posting it right now
            try:
                # Claimed before: that try may have reached the platform without our hearing.
                tried_since = current.opened_at if current.post_tried else None
                result = await self.delivery.post_question(row, view, post_key(row), tried_since)
                if result.outcome == "posted":
                    await self.store.rounds.mark_posted(row.id, self.now(), result.ref)
                elif result.outcome == "refused":
                    await self.store.rounds.close_undelivered(row.id, self.now())
            finally:
                await self.store.rounds.release(row.id, self.holder)
        if result.outcome == "refused":
            self.forget_message(row.id)
        elif result.outcome == "later":
            self.notify_changed()  # the scheduler plans the retry
        return view, result

    async def answer(self, round_id: int, user: UserRef, choice: int) -> Feedback:
        """Record a person's first answer (choice = displayed position, 0 for A).

        The hot path: a round's fixed facts come from memory and the answer joins the next group
        commit; it returns once committed, and the INSERT itself decides (open round, first
        answer), so what the caller acknowledges afterwards is recorded.
        """
        found = await self.facts(round_id, user)
        if isinstance(found, Feedback):
            return found
        row, question = found
        if not 0 <= choice < len(question.options):
            return Feedback("unknown", row.lang, t(row.lang, "feedback_unknown"))
        order = presenter.display_order(row, question)
        option = order[choice]
        correct = option == question.answer
        outcome = await self.record(row, question, user, option, correct)
        if outcome.status == "recorded":
            points = POINTS_PER_CORRECT if correct else 0
            return presenter.feedback_view(
                row.lang, question, order, option, "correct" if correct else "wrong", points
            )
        return self.not_recorded(row, question, outcome)

    async def facts(self, round_id: int, user: UserRef) -> tuple[RoundRecord, Question] | Feedback:
        """The round's fixed facts and question, for this person's answer; "no longer exists" for
        an unknown round, and for one of another workspace: a click counts only in its own (one
        signed for another team or platform never reads or changes this round)."""
        row = await self._round_facts(round_id)
        question = await self.library.get(row.question_id) if row else None
        foreign = row is not None and (user.team != row.team or user.platform != row.platform)
        if row is None or foreign or question is None:
            lang: Lang = row.lang if row else "en"
            return Feedback("unknown", lang, t(lang, "feedback_unknown"))
        return row, question

    async def record(
        self,
        row: RoundRecord,
        question: Question,
        user: UserRef,
        option: int,
        correct: bool,
        typed: str | None = None,
    ) -> AnswerOutcome:
        """Record an answer (a click's option in file order, or what was typed and the option it
        is, -1 for none) in the next group commit; returns once committed."""
        outcome = await self.store.answers.record(
            AnswerRequest(
                round_id=row.id,
                team_id=row.team_id,
                user=user.user,
                name=user.display_name,
                option=option,
                correct=correct,
                points=POINTS_PER_CORRECT if correct else 0,
                at=self.now(),
                provisional_name=user.provisional_name,
                question_id=question.id,
                typed=typed,
            ),
            self.card_rule,
        )
        if outcome.status == "recorded":
            for callback in self._answered:
                callback(row.id)
        return outcome

    def not_recorded(
        self, row: RoundRecord, question: Question, outcome: AnswerOutcome
    ) -> Feedback:
        """The reply to an answer that did not count: the person's first answer (clicked or
        typed) is the one that counts, or the round is closed."""
        order = presenter.display_order(row, question)
        if outcome.status == "already" and outcome.typed is not None:
            return presenter.typed_feedback(row.lang, question, order, outcome.typed, "already")
        if outcome.status == "already" and outcome.option is not None:
            return presenter.feedback_view(row.lang, question, order, outcome.option, "already", 0)
        return Feedback("closed", row.lang, t(row.lang, "feedback_closed"))

    async def _round_facts(self, round_id: int) -> RoundRecord | None:
        """A round's fixed facts (question, seed, channel language), cached after first use.

        Only fields that never change after opening are read from it; whether the round is
        still open is always decided by the database.
        """
        cached = self._round_cache.get(round_id)
        if cached is not None:
            return cached
        loading = self._round_loads.get(round_id)
        if loading is None:  # one read however many clicks arrive at once
            loading = asyncio.ensure_future(self.round_row(round_id))
            self._round_loads[round_id] = loading
            loading.add_done_callback(lambda _: self._round_loads.pop(round_id, None))
        row = await asyncio.shield(loading)
        if row is not None:
            self._remember_round(row)
        return row

    def _remember_round(self, row: RoundRecord) -> None:
        if len(self._round_cache) >= ROUND_CACHE_SIZE:
            self._round_cache.pop(next(iter(self._round_cache)))
        self._round_cache[row.id] = row

    async def question_view(self, round_id: int) -> QuestionView | None:
        """The current public view of a round (for live answer counts)."""
        row = await self.store.rounds.get(round_id)
        if row is None:
            return None
        count = await self.store.rounds.total_answers(round_id)
        question = await self.library.get(row.question_id)
        return presenter.question_view(row, question, count) if question else None

    async def round_row(self, round_id: int) -> RoundRecord | None:
        return await self.store.rounds.get(round_id)

    async def close(self, round_id: int, reason: CloseReason) -> bool:
        """Close a round once; True if it closed now and should be revealed. A round whose
        question never reached the platform closes unseen (False): it is never revealed."""
        async with self.message_lock(round_id):  # a post in flight finishes first
            row = await self.store.rounds.get(round_id)
            if row is not None and row.posted_at is None and row.closed_at is None:
                log.warning("round %s closes unseen: its question was never posted", round_id)
                await self.store.rounds.close_undelivered(round_id, self.now())
                self.forget_message(round_id)
                return False
            return await self.store.rounds.close(round_id, self.now(), reason)

    async def post_pending(self, skip: set[int]) -> None:
        """Post again the questions a passing failure or a crash left unposted (with backoff)."""
        since = self.now() - FIRST_POST_GRACE
        for round_id, opened in list(self._first_posts.items()):
            if opened < since:  # its opener never posted it (its transaction rolled back)
                del self._first_posts[round_id]
        for row in await self.store.rounds.unposted(self.delivery.platforms()):
            # Its first post is under way, or still to come from the command that opened it.
            busy = self.message_lock(row.id).locked() or row.id in self._first_posts
            if row.id not in skip and not busy and self.delivery.may_retry("post", row.id):
                await self.post_round(row)  # decided and logged by Delivery
