"""The /zeroquiz command and the answer buttons, registered on a Bolt AsyncApp.

A click is recorded (committed, through the core's group commit) before it is acknowledged, so
an "OK" Slack has seen is always an answer in the database; only then is it acknowledged, and the
private reply goes out through the response_url afterwards. The app runs with
`process_before_response`, so the HTTP response leaves the moment `ack()` is called and the
reply work is a tracked background task that a shutdown lets finish. A command is accepted
the same way before its ack (bot/commands.py `accept`: its receipt, its rates, and for `question`
and `start` its round, committed); the posting and the private reply follow the ack.

Bounded: at most CLICK_SLOTS clicks are between arrival and their reply at once. A click that
finds no slot within ADMIT_SECONDS is refused with HTTP 503 and not recorded (Slack shows its own
error; the person can click again), so overload slows acknowledgements instead of piling up
accepted work.

Every body is read through shapes.py, which checks each field it hands on; a malformed one was
refused before Bolt called a handler (inbound.py: the HTTP front door, and ShapeCheck inside
Bolt for Socket Mode). A click on a button whose value isn't one of ours gets a private "no
longer valid".

Each request acts on the workspace Bolt authorised it for (`context.team_id`: for events that is
`authorizations[0]`, which can differ from the body's `team_id`), never on a team named elsewhere
in the body, so a body can't point the work at another workspace than the one it was checked for.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable, Coroutine
from datetime import UTC, datetime
from typing import Any, TypeVar

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncBoltContext
from slack_bolt.response import BoltResponse

from adapters.guard import apologise_on_error
from adapters.inflight import InFlight
from adapters.metrics import Metrics
from adapters.slack.export import SlackExport
from adapters.slack.packs import PACK_VIEW, QUESTION_VIEW, SlackPacks
from adapters.slack.port import PLATFORM
from adapters.slack.render import (
    REPORT_ACTION,
    TYPED_ACTION,
    SlackMessage,
    feedback_message,
    home_after_review,
    home_view,
    notice_message,
    reply_message,
    review_message,
)
from adapters.slack.replies import Replies
from adapters.slack.reporting import REPORT_VIEW, SlackReports
from adapters.slack.shapes import (
    ANSWER_ACTION,
    HOME_EVENT,
    REMOVED_EVENTS,
    REVIEW_ACTION,
    Click,
    Event,
    Malformed,
    SlashCommand,
    answer_choice,
    click_of,
    event_of,
    slash_command,
)
from adapters.slack.shapes import COMMAND as COMMAND  # where tests and tools look for it
from adapters.slack.typed import TYPED_VIEW, SlackTyped
from adapters.slack.users import QUIET, SlackUsers
from adapters.slack.web import error_code, with_token
from bot.commands import BY_NAME, Accepted, Context, accept, parse_text
from bot.i18n import t
from bot.model import ChannelRef, Lang, TeamRef, UserRef
from bot.quiz import Quiz
from bot.views import Feedback, NoticeView, ReviewResult, ReviewView

log = logging.getLogger(__name__)

CLICK_SLOTS = 256
# Multi-workspace: drop the workspace's installation for a removal event (team, event_id, sent
# at); False when the event is a repeat or older than the installation, and nothing is done.
Uninstalled = Callable[[str, str | None, datetime | None], Awaitable[bool]]
_Team = TypeVar("_Team", SlashCommand, Click, Event)
ADMIT_SECONDS = 2.0  # Slack waits 3 s for the acknowledgement


class SlackHandlers:
    def __init__(
        self,
        quiz: Quiz,
        users: SlackUsers,
        inflight: InFlight,
        replies: Replies,
        *,
        metrics: Metrics,
        uninstalled: Uninstalled | None = None,
    ) -> None:
        self.quiz = quiz
        self.uninstalled = uninstalled  # multi-workspace: drops the workspace's installation
        self.metrics = metrics
        self.users = users
        self.inflight = inflight
        self.replies = replies
        self._slots = asyncio.Semaphore(CLICK_SLOTS)
        self._tasks: set[asyncio.Task[None]] = set()
        self.packs = SlackPacks(quiz, users, self._reply)  # the pack forms (modals)
        self.reports = SlackReports(quiz, users, self._reply)  # the Report control's form
        self.typed = SlackTyped(  # Type it's form
            quiz, users, metrics, self._reply, self._later, self.show_review
        )
        self.export = SlackExport(users, self._reply)  # `pack export`: the YAML in parts
        users.store_names(self._store_names, lambda: inflight.below(QUIET))

    def register(self, app: AsyncApp) -> None:
        app.command(COMMAND)(self.on_command)
        app.action(ANSWER_ACTION)(self.on_answer)
        app.action(REVIEW_ACTION)(self.on_review)
        app.event(HOME_EVENT)(self.on_home)
        app.view(PACK_VIEW)(self.packs.on_submit)
        app.view(QUESTION_VIEW)(self.packs.on_submit)
        app.action(REPORT_ACTION)(self.reports.on_click)
        app.view(REPORT_VIEW)(self.reports.on_submit)
        app.action(TYPED_ACTION)(self.typed.on_click)
        app.view(TYPED_VIEW)(self.typed.on_submit)
        for event in REMOVED_EVENTS:  # app_uninstalled, tokens_revoked
            app.event(event)(self.on_removed)

    def _later(self, work: Coroutine[Any, Any, None]) -> None:
        """Run after the acknowledgement, counted so a shutdown waits for it."""

        async def tracked() -> None:
            async with self.inflight:
                await work

        task = asyncio.create_task(tracked())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def on_command(
        self, ack: AsyncAck, command: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        """Accepted before the acknowledgement: the receipt of its trigger_id (a replay is done
        once), its rates and, for `question` and `start`, its round are committed first, so a
        command Slack saw acknowledged is carried out even if the process dies right after (the
        next start posts the round). Posting and the private reply follow the ack."""
        parsed = slash_command(command)
        if isinstance(parsed, Malformed):
            await ack()
            log.warning("slack: ignored a %s", parsed)  # ShapeCheck refuses these first
            return
        parsed = authorised(parsed, context)
        user_id, team = parsed.user, parsed.team
        name = self.users.known_name(user_id, team=team) or parsed.user_name
        ctx = Context(
            channel=ChannelRef(PLATFORM, team, parsed.channel),
            user=UserRef(PLATFORM, team, user_id, name),
            is_admin=_once(lambda: self.users.is_admin(user_id, team=team)),
        )
        try:
            accepted: Accepted | None = await accept(
                self.quiz, parse_text(parsed.text), ctx, receipt=parsed.trigger_id
            )
        except Exception:  # nothing was done: acknowledged, and the person is told it failed
            log.exception("/zeroquiz in channel %s failed", parsed.channel)
            accepted = None
        await ack()
        self._later(self._command(parsed, ctx, accepted))

    async def _command(
        self, command: SlashCommand, ctx: Context, accepted: Accepted | None
    ) -> None:
        channel = ctx.channel
        url = command.response_url

        async def apologise() -> None:
            lang = await self._lang(channel)
            failed = notice_message(NoticeView(lang, t(lang, "slack_failed"), ok=False))
            await self._reply(url, failed)

        if accepted is None:
            async with apologise_on_error("apologising for a failed /zeroquiz", apologise):
                await apologise()
            return
        async with apologise_on_error(f"/zeroquiz in channel {channel.channel}", apologise):
            if accepted.rest is not None:  # the rest may show the person's name: learn it now
                parsed = parse_text(command.text)
                form = self.packs.wants_form((parsed.name, *parsed.args))
                if form is not None and command.trigger_id:  # a modal: `pack add`, `pack question`
                    await self.packs.open(command, form, await self._lang(channel))
                    return
                spec = BY_NAME.get(parsed.name)
                if spec is not None and spec.admin:  # its fresh users.info brings the name too
                    await ctx.is_admin()
                name = await self.users.display_name(
                    command.user, command.user_name, team=command.team
                )
                ctx.user = UserRef(PLATFORM, command.team, command.user, name)
            reply = await accepted.finish()
            if isinstance(reply, NoticeView) and reply.file is not None:
                await self.export.send(url, command.team, command.channel, command.user, reply)
                return
            await self._reply(url, reply_message(reply))

    async def on_answer(
        self, ack: AsyncAck, body: dict[str, Any], context: AsyncBoltContext
    ) -> BoltResponse | None:
        click = click_of(body)
        if isinstance(click, Malformed):
            await ack()
            log.warning("slack: ignored a %s", click)  # ShapeCheck refuses these first
            return None
        status = await self.answer(authorised(click, context), ack)
        return None if status == 200 else BoltResponse(status=status, body="")

    async def answer_click(self, click: Click) -> int:
        """HTTP mode's direct route for answer clicks (inbound.py): what on_answer does, on a
        click the front door has already checked, without Bolt's dispatch, on the workspace
        Bolt would name (one workspace: the click's own). Returns the HTTP status: 200 once
        recorded (or for a button that is no longer valid), else 503 or 500."""
        return await self.answer(click, _nothing)

    async def answer(self, click: Click, ack: Callable[[], Awaitable[Any]]) -> int:
        """Record the click, then `ack()` and return 200; the verdict follows as a tracked task.
        Not recorded: 503 (no slot within ADMIT_SECONDS) or 500 (the store failed)."""
        parsed = answer_choice(click.value)
        if parsed is None:
            await ack()
            self._later(self._invalid_button(click))
            return 200
        if self._slots.locked():  # only then wait (wait_for costs a task per click)
            try:
                await asyncio.wait_for(self._slots.acquire(), ADMIT_SECONDS)
            except TimeoutError:
                log.warning("too many clicks at once: refused one (nothing recorded)")
                return 503
        else:
            await self._slots.acquire()
        user_id = click.user
        try:
            name = self.users.known_name(user_id, team=click.team)
            who = UserRef(
                PLATFORM, click.team, user_id, name or click.handle, provisional_name=name is None
            )
            feedback = await self.metrics.answer(
                PLATFORM, lambda: self.quiz.rounds.answer(parsed[0], who, parsed[1])
            )
        except Exception:
            self._slots.release()
            log.exception("recording the answer of %s failed: not acknowledged", user_id)
            return 500
        await ack()  # recorded: now Slack may be told
        if name is None and feedback.recorded:
            self.users.learn_name(click.team, user_id)
        self._later(self._answered(click.response_url, feedback))
        if feedback.status == "closed" and click.message_ts is not None:
            self._later(self._stray(parsed[0], click.message_ts))
        return 200

    async def on_review(
        self, ack: AsyncAck, body: dict[str, Any], context: AsyncBoltContext
    ) -> BoltResponse | None:
        """A button of the private review. As with answers, the card is rescheduled (committed)
        before the acknowledgement; the next step replaces the private message clicked (its
        response_url, replace_original), or, from the Home tab, is published there."""
        click = click_of(body)
        if isinstance(click, Malformed):
            await ack()
            log.warning("slack: ignored a %s", click)  # ShapeCheck refuses these first
            return None
        click = authorised(click, context)
        try:  # bounded like answer clicks: overload slows acknowledgements
            await asyncio.wait_for(self._slots.acquire(), ADMIT_SECONDS)
        except TimeoutError:
            log.warning("too many clicks at once: refused a review click (nothing recorded)")
            return BoltResponse(status=503, body="")
        name = self.users.known_name(click.user, team=click.team)
        who = UserRef(PLATFORM, click.team, click.user, name or click.handle)
        try:
            step = await self.metrics.review(
                PLATFORM, click.value, lambda: self.quiz.review_click(who, click.value)
            )
        except Exception:
            self._slots.release()
            log.exception("the review click of %s failed: not acknowledged", click.user)
            return BoltResponse(status=500, body="")
        await ack()  # recorded: now Slack may be told
        self._later(self._reviewed(click, step))
        return None

    async def _reviewed(
        self, click: Click, step: ReviewView | ReviewResult | NoticeView | None
    ) -> None:
        """The review's next step, where the click came from; then the click's slot is free."""
        try:
            await self.show_review(click, step)
        finally:
            self._slots.release()

    async def show_review(
        self, click: Click, step: ReviewView | ReviewResult | NoticeView | None
    ) -> None:
        """A review's next step where its click (or its typed number's form) came from: in
        place of the private message, or on the Home tab."""
        if step is None:
            if not click.home:
                await self._invalid_button(click)
        elif not click.home:
            await self.replies.send(click.response_url, review_message(step), replace=True)
        elif isinstance(step, NoticeView):  # stopped, or nothing due: the usual page again
            await self._home(click.team, click.user)
        elif isinstance(step, ReviewResult) and not step.buttons:  # the last card due
            await self._home(click.team, click.user, after=step)
        else:
            page = {"type": "home", "blocks": review_message(step).blocks}
            await self._publish(click.team, click.user, page)

    async def on_home(self, ack: AsyncAck, body: dict[str, Any], context: AsyncBoltContext) -> None:
        """Someone opened the app's Home tab: publish their page, fresh (it is drawn only when
        opened, never on a timer). The Messages tab opening needs nothing."""
        await ack()
        event = event_of(body)
        if isinstance(event, Malformed) or event.user is None:
            log.warning("slack: ignored a %s", event)  # ShapeCheck refuses these first
            return
        if event.tab == "home":
            self._later(self._home(authorised(event, context).team, event.user))

    async def _home(self, team: str, user_id: str, *, after: ReviewResult | None = None) -> None:
        """Publish the person's page; `after`: the verdict on their last due card, above it."""
        try:
            # One users.info call serves both (SlackUsers shares a lookup in flight).
            name, admin = await asyncio.gather(
                self.users.display_name(user_id, user_id, team=team),
                self.users.is_admin(user_id, team=team),
            )
            view = await self.quiz.home(UserRef(PLATFORM, team, user_id, name), is_admin=admin)
        except Exception as exc:  # nothing to apologise in: the next opening draws it again
            log.warning("slack: drawing the Home tab of %s failed: %s", user_id, error_code(exc))
            return
        page = home_view(view) if after is None else home_after_review(after, view)
        await self._publish(team, user_id, page)

    async def _publish(self, team: str, user_id: str, view: dict[str, Any]) -> None:
        """views.publish of a person's Home tab, with the workspace's own token."""
        try:
            token = await self.users.tokens(team) if self.users.tokens is not None else None
            if self.users.tokens is not None and token is None:
                log.warning("slack: Home tab of %s: workspace %s is not installed", user_id, team)
                return
            # This workspace's own token (None: the client's), read again if Slack rejects it.
            publish = self.users.client.views_publish
            await with_token(team, token, publish, self.users.rejected, user_id=user_id, view=view)
        except Exception as exc:  # nothing to apologise in: the next opening draws it again
            log.warning("slack: publishing the Home tab of %s failed: %s", user_id, error_code(exc))

    async def on_removed(
        self, ack: AsyncAck, body: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        """app_uninstalled, or tokens_revoked with the bot token: the workspace's names go and
        its daily schedules stop (Quiz.forget_team); everything else keeps serving."""
        await ack()
        event = event_of(body)
        if isinstance(event, Malformed):
            log.warning("slack: ignored a %s", event)  # ShapeCheck refuses these first
            return
        event = authorised(event, context)
        if event.type == "tokens_revoked" and not event.bot_revoked:
            log.info("slack: workspace %s revoked user tokens only: nothing to do", event.team)
            return
        self._later(self._forget(event, *delivery_of(body)))

    async def _forget(self, event: Event, event_id: str | None, sent_at: datetime | None) -> None:
        try:
            drop = self.uninstalled
            if drop is not None and not await drop(event.team, event_id, sent_at):
                return  # a repeat, or sent before the workspace installed again
            names, stopped = await self.quiz.forget_team(TeamRef(PLATFORM, event.team))
        except Exception:
            log.exception(
                "slack: cleaning up after %s in workspace %s failed", event.type, event.team
            )
            return
        self.users.forget()
        log.info(
            "slack: %s in workspace %s: %d stored names cleared, %d daily schedules stopped",
            event.type, event.team, names, stopped,
        )  # fmt: skip

    async def _stray(self, round_id: int, ts: str) -> None:
        """A late click may come from a stray copy a crash left (see Reveals.stray)."""
        try:
            await self.quiz.reveals.stray(round_id, ts)
        except Exception as exc:
            log.warning("checking message %s of round %s failed: %s", ts, round_id, error_code(exc))

    async def _invalid_button(self, click: Click) -> None:
        lang: Lang = "en"
        if click.channel is not None:
            lang = await self._lang(ChannelRef(PLATFORM, click.team, click.channel))
        invalid = Feedback("unknown", lang, t(lang, "button_invalid"))
        await self._reply(click.response_url, feedback_message(invalid))

    async def _answered(self, response_url: str, feedback: Feedback) -> None:
        try:
            await self._reply(response_url, feedback_message(feedback))
        finally:
            self._slots.release()

    async def _store_names(self, found: list[tuple[str, str, str]]) -> None:
        await self.quiz.rename_players([UserRef(PLATFORM, t, u, n) for t, u, n in found])

    async def _reply(self, response_url: str, message: SlackMessage) -> None:
        await self.replies.send(response_url, message)

    async def _lang(self, channel: ChannelRef) -> Lang:
        try:
            return await self.quiz.channel_lang(channel)
        except Exception:
            return "en"


def _once(check: Callable[[], Awaitable[bool]]) -> Callable[[], Awaitable[bool]]:
    """A command's admin check, asked of Slack once however often the command consults it."""
    answer: list[bool] = []

    async def once() -> bool:
        if not answer:
            answer.append(await check())
        return answer[0]

    return once


async def _nothing() -> None:
    """The direct route's ack: its HTTP response is the handler's return."""


def authorised(request: _Team, context: AsyncBoltContext) -> _Team:
    """The request with the workspace Bolt authorised it for (the body's own where Bolt names
    none, as for a request it needs no authorisation for)."""
    team = context.team_id
    if isinstance(team, str) and team and team != request.team:
        return dataclasses.replace(request, team=team)
    return request


def delivery_of(body: dict[str, Any]) -> tuple[str | None, datetime | None]:
    """An event's id and when Slack sent it, if the body says so plainly."""
    event_id = body.get("event_id")
    sent = body.get("event_time")
    ok_id = isinstance(event_id, str) and 0 < len(event_id) <= 64 and event_id.isascii()
    when = None
    if isinstance(sent, int) and not isinstance(sent, bool) and 0 < sent < 2**33:
        when = datetime.fromtimestamp(sent, UTC)
    return (event_id if ok_id else None), when
