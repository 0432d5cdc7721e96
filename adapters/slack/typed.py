"""Type it on Slack: the button beside a generated question's letters (a round's, or a review or
drill card's) opens a form with one text field; its submission is graded and recorded by the core
(bot/typed_answers.py; a card's rescheduled by Quiz.review_click) BEFORE it is acknowledged, so a
form Slack closed is an answer in the database.

What is no number (or a round that is over) is refused inside the form (`response_action:
errors`, which only the person sees) and counts nothing; a recorded answer, or a second one that
changes nothing, closes the form and gets its private verdict through the clicked message's
response_url, as a click does; a card's next step replaces the card (or the Home tab), as a
review click's does. The form carries the round (or the card's answer token, and whether it was
on the Home tab) and that response_url in its private_metadata.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncBoltContext
from slack_bolt.response import BoltResponse

from adapters.metrics import Metrics
from adapters.slack.port import PLATFORM
from adapters.slack.render import TYPED_ACTION, SlackMessage, feedback_message
from adapters.slack.shapes import VIEWS, Click, Malformed, Submission, click_of, submission_of
from adapters.slack.users import SlackUsers
from adapters.slack.web import error_code
from bot.bank.numbers import MAX_TYPED
from bot.i18n import t
from bot.model import UserRef
from bot.quiz import Quiz
from bot.views import Feedback, NoticeView, ReviewResult, ReviewView, TypedForm

log = logging.getLogger(__name__)

TYPED_VIEW = VIEWS[3]
FIELD = "number"  # the text field's block_id and action_id
ERROR_TEXT = 150  # a form's inline error: kept short
ReviewStep = ReviewView | ReviewResult | NoticeView | None
ShowReview = Callable[[Click, ReviewStep], Coroutine[Any, Any, None]]


def typed_modal(form: TypedForm, metadata: str) -> dict[str, Any]:
    """One plain-text field of at most MAX_TYPED characters, labelled with the unit."""
    return {
        "type": "modal",
        "callback_id": TYPED_VIEW,
        "title": {"type": "plain_text", "text": form.title[:24]},
        "submit": {"type": "plain_text", "text": form.submit[:24]},
        "private_metadata": metadata,
        "blocks": [
            {
                "type": "input",
                "block_id": FIELD,
                "label": {"type": "plain_text", "text": form.label[:2000]},
                "element": {
                    "type": "plain_text_input",
                    "action_id": FIELD,
                    "max_length": MAX_TYPED,
                    "placeholder": {"type": "plain_text", "text": form.placeholder[:150]},
                },
            }
        ],
    }


def round_of(value: str) -> int | None:
    """The round a Type it button names (ASCII digits, inside SQLite's int64), or None."""
    return int(value) if value.isascii() and value.isdigit() and len(value) <= 18 else None


class SlackTyped:
    """Opens the form and records what it sends; `later` runs a reply after the ack."""

    def __init__(
        self,
        quiz: Quiz,
        users: SlackUsers,
        metrics: Metrics,
        reply: Callable[[str, SlackMessage], Coroutine[Any, Any, None]],
        later: Callable[[Coroutine[Any, Any, None]], None],
        show_review: ShowReview,
    ) -> None:
        """`show_review` shows a card's next step where its Type it was clicked."""
        self.quiz, self.users, self.metrics, self.reply, self.later = (
            quiz, users, metrics, reply, later,
        )  # fmt: skip
        self.show_review = show_review

    async def on_click(
        self, ack: AsyncAck, body: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        """Acknowledge at once (a click on Type it records nothing), then open the form."""
        await ack()
        click = click_of(body)
        if isinstance(click, Malformed) or click.trigger_id is None:
            log.warning("slack: ignored a Type it click without what opens a form")
            return
        team = context.team_id or click.team
        round_id = round_of(click.value)
        form: TypedForm | Feedback | None
        if round_id is not None:
            form = await self.quiz.typed.form(round_id, UserRef(PLATFORM, team, click.user))
        else:  # a review or drill card: its answer token
            form = await self.quiz.typed.card_form(click.value)
        if not isinstance(form, TypedForm):
            said = form or Feedback("unknown", "en", t("en", "button_invalid"))
            if click.response_url:
                await self.reply(click.response_url, feedback_message(said))
            return
        where = {"r": round_id} if round_id is not None else {"t": click.value, "h": click.home}
        metadata = json.dumps({**where, "u": click.response_url})
        try:
            token = await self.users.tokens(team) if self.users.tokens else None
            extra = {"token": token} if token is not None else {}
            view = typed_modal(form, metadata)
            await self.users.client.views_open(trigger_id=click.trigger_id, view=view, **extra)
        except Exception as exc:
            log.warning("slack: opening the Type it form failed: %s", error_code(exc))
            failed = Feedback("unknown", form.lang, t(form.lang, "slack_failed"))
            if click.response_url:
                await self.reply(click.response_url, feedback_message(failed))

    async def on_submit(
        self, ack: AsyncAck, body: dict[str, Any], context: AsyncBoltContext
    ) -> BoltResponse | None:
        """Record, then acknowledge: an inline error for what counted nothing, else the form
        closes and the verdict follows privately. Not recorded (the store failed): HTTP 500."""
        sent = submission_of(body)
        if isinstance(sent, Malformed):
            await ack()
            log.warning("slack: ignored a %s", sent)
            return None
        try:
            meta = json.loads(sent.metadata)
            url, token = str(meta["u"]), str(meta["t"]) if "t" in meta else None
            round_id = int(meta["r"]) if token is None else 0
        except (ValueError, KeyError, TypeError):
            await ack()
            log.warning("slack: a Type it form without its round: ignored")
            return None
        team = context.team_id or sent.team
        name = self.users.known_name(sent.user, team=team)
        who = UserRef(PLATFORM, team, sent.user, name or "", provisional_name=name is None)
        text = sent.values.get(FIELD, "")
        if token is not None:
            home = meta.get("h") is True
            return await self._card(ack, sent, who, token, (url, home), text)
        try:
            feedback = await self.metrics.answer(
                PLATFORM, lambda: self.quiz.typed.answer(round_id, who, text)
            )
        except Exception:
            log.exception("recording the typed answer of %s failed: not acknowledged", sent.user)
            return BoltResponse(status=500, body="")
        if feedback.status in ("invalid", "closed", "unknown"):  # nothing counted: say so here
            await ack(response_action="errors", errors={FIELD: feedback.headline[:ERROR_TEXT]})
            return None
        await ack()  # recorded (or the first answer stands): now Slack may be told
        if name is None and feedback.recorded:
            self.users.learn_name(team, sent.user)
        self.later(self.reply(url, feedback_message(feedback)))
        return None

    async def _card(
        self,
        ack: AsyncAck,
        sent: Submission,
        who: UserRef,
        token: str,
        where: tuple[str, bool],
        text: str,
    ) -> BoltResponse | None:
        """A review or drill card's number: the card rescheduled (committed), then acknowledged;
        its next step replaces the card where it was (`where`: the response_url, the Home tab)."""
        try:
            step = await self.metrics.review(
                PLATFORM, token, lambda: self.quiz.review_click(who, token, typed=text)
            )
        except Exception:
            log.exception("the typed review answer of %s failed: not acknowledged", sent.user)
            return BoltResponse(status=500, body="")
        if step is None or (isinstance(step, NoticeView) and not step.ok):  # the card is unchanged
            said = step.text if step is not None else t("en", "button_invalid")
            await ack(response_action="errors", errors={FIELD: said[:ERROR_TEXT]})
            return None
        await ack()
        url, home = where
        click = Click(who.team, who.user, "", None, url, TYPED_ACTION, token, home=home)
        self.later(self.show_review(click, step))
        return None
