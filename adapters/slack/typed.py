"""Type it on Slack: the button beside a generated question's letters opens a form with one text
field; its submission is graded and recorded by the core (bot/typed_answers.py) BEFORE it is
acknowledged, so a form Slack closed is an answer in the database.

What is no number (or a round that is over) is refused inside the form (`response_action:
errors`, which only the person sees) and counts nothing; a recorded answer, or a second one that
changes nothing, closes the form and gets its private verdict through the clicked message's
response_url, as a click does. The form carries the round and that response_url in its
private_metadata.
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
from adapters.slack.render import SlackMessage, feedback_message
from adapters.slack.shapes import VIEWS, Malformed, click_of, submission_of
from adapters.slack.users import SlackUsers
from adapters.slack.web import error_code
from bot.bank.numbers import MAX_TYPED
from bot.i18n import t
from bot.model import UserRef
from bot.quiz import Quiz
from bot.views import Feedback, TypedForm

log = logging.getLogger(__name__)

TYPED_VIEW = VIEWS[3]
FIELD = "number"  # the text field's block_id and action_id
ERROR_TEXT = 150  # a form's inline error: kept short


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
    ) -> None:
        self.quiz, self.users, self.metrics, self.reply, self.later = (
            quiz, users, metrics, reply, later,
        )  # fmt: skip

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
        who = UserRef(PLATFORM, team, click.user)
        form = await self.quiz.typed.form(round_id, who) if round_id is not None else None
        if not isinstance(form, TypedForm):
            said = form or Feedback("unknown", "en", t("en", "button_invalid"))
            await self.reply(click.response_url, feedback_message(said))
            return
        metadata = json.dumps({"r": round_id, "u": click.response_url})
        try:
            token = await self.users.tokens(team) if self.users.tokens else None
            extra = {"token": token} if token is not None else {}
            view = typed_modal(form, metadata)
            await self.users.client.views_open(trigger_id=click.trigger_id, view=view, **extra)
        except Exception as exc:
            log.warning("slack: opening the Type it form failed: %s", error_code(exc))
            failed = Feedback("unknown", form.lang, t(form.lang, "slack_failed"))
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
            round_id, url = int(meta["r"]), str(meta["u"])
        except (ValueError, KeyError, TypeError):
            await ack()
            log.warning("slack: a Type it form without its round: ignored")
            return None
        team = context.team_id or sent.team
        name = self.users.known_name(sent.user, team=team)
        who = UserRef(PLATFORM, team, sent.user, name or "", provisional_name=name is None)
        text = sent.values.get(FIELD, "")
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
