"""What a Slack request must hold before anything reads it: pure checks that never raise.

Shared by the HTTP front door (adapters/slack/inbound.py), which refuses a malformed request
with HTTP 400 before Bolt sees it, and by the handlers, which check again because Socket Mode
bodies don't pass the front door. A problem is named in a few words, fit for one log line.

The rule, on both platforms: a request whose fields are missing or of the wrong type is refused
(it can't be answered: no person, no reply address); a well-formed click whose button value is
unreadable gets a private "that button is no longer valid".
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple
from urllib.parse import parse_qsl, urlsplit

from adapters.slack.forms import parse_form
from adapters.slack.render import (
    ANSWER_ACTION_PREFIX,
    REPORT_ACTION,
    REVIEW_ACTION_PREFIX,
    TYPED_ACTION,
)
from adapters.text import storable

COMMAND = "/zeroquiz"
ANSWER_ACTION = re.compile(rf"^{ANSWER_ACTION_PREFIX}[A-E]$")
REVIEW_ACTION = re.compile(rf"^{REVIEW_ACTION_PREFIX}(?:[A-E]|next|stop|home)$")
# `round_id:option_index` as render.question_message writes it, in ASCII digits: str.isdigit
# accepts "²" (which int() refuses) and int() accepts "٣"; 18 digits stay inside SQLite's int64.
ANSWER_VALUE = re.compile(r"([0-9]{1,18}):([0-9]{1,2})")
MESSAGE_TS = re.compile(r"[0-9]{1,12}\.[0-9]{1,8}", re.ASCII)
SLACK_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")  # team, user and channel IDs: T0123ABCD
MAX_DEPTH = 64  # Slack's payloads nest about ten deep; json itself gives up near 1000
MAX_URL = 2048
MAX_TEXT = 8000  # a slash command's text or a button's value (Slack allows 2000)
MAX_NAME = 256


class Malformed(NamedTuple):
    kind: str  # "block_actions", "slash command", "interactive"...
    reason: str  # "actions is not a list"

    def __str__(self) -> str:
        return f"malformed {self.kind} request ({self.reason})"


class Unhandled(NamedTuple):
    """Well-formed, but nothing ZeroQuiz registered (another command, another action)."""

    kind: str


class Quiet(NamedTuple):
    """Not ZeroQuiz's, in a shape Slack sends anyway (an org-level event without a team, a click
    on something that isn't a ZeroQuiz button, `app_rate_limited`): answered 200 with one log
    line, so Slack neither retries it nor counts it against the app. `loud`: worth a warning
    (Slack dropped events for a minute)."""

    kind: str
    why: str
    loud: bool = False

    def __str__(self) -> str:
        return f"{self.kind} ({self.why})"


class Passed(NamedTuple):
    """A request Bolt answers by itself: url_verification, ssl_check."""

    kind: str


@dataclass(frozen=True)
class SlashCommand:
    kind: ClassVar[str] = "slash command"
    team: str
    channel: str
    user: str
    user_name: str
    text: str
    response_url: str
    trigger_id: str | None = None  # Slack's id of this request: a repeat of it is done once


@dataclass(frozen=True)
class Click:
    kind: ClassVar[str] = "block_actions"
    team: str
    user: str
    handle: str
    channel: str | None
    response_url: str
    action_id: str
    value: str
    message_ts: str | None = None  # the message clicked (a stray copy differs from the round's)
    home: bool = False  # a review button in the Home tab: no response_url, views.publish answers
    trigger_id: str | None = None  # what opens a form (the Report control's)

    @property
    def is_answer(self) -> bool:
        """A click on an answer button (not a review one)."""
        return ANSWER_ACTION.match(self.action_id) is not None


@dataclass(frozen=True)
class Submission:
    """A modal of ours submitted (adapters/slack/packs.py): who, in which workspace, the view's
    callback_id and private_metadata, and each input's text by block id."""

    kind: ClassVar[str] = "view_submission"
    team: str
    user: str
    callback_id: str
    metadata: str
    values: dict[str, str]


@dataclass(frozen=True)
class Event:
    """An Events API callback ZeroQuiz handles: the app removed from a workspace, or its tokens
    revoked (`bot_revoked`: the bot token among them, which ends the app's use of it too), or
    someone opening the app's Home (`user`, and the `tab` they opened: "home" or "messages")."""

    kind: ClassVar[str] = "event_callback"
    team: str
    type: str
    bot_revoked: bool = False
    user: str | None = None
    tab: str | None = None


Body = dict[str, Any]
Request = SlashCommand | Click | Event | Passed | Submission
# The callback_ids of our modals: the pack forms, the Report control's (reporting.py) and the
# typed number's (typed.py).
VIEWS = ("zeroquiz_pack_add", "zeroquiz_pack_question", "zeroquiz_report", "zeroquiz_typed")
FORM_ACTIONS = (REPORT_ACTION, TYPED_ACTION)  # buttons that open a modal
HOME_EVENT = "app_home_opened"
REMOVED_EVENTS = ("app_uninstalled", "tokens_revoked")
EVENTS = (HOME_EVENT, *REMOVED_EVENTS)  # the manifest's bot_events, in this order


def read_body(text: str, content_type: str | None) -> Body | Malformed:
    """The body as Bolt reads it: JSON, an interactive `payload=` form field, or a plain form.

    Unlike slack-bolt 1.30, a plain form that merely contains the word "payload" (a channel
    named #payload-team, a command typed with that word) stays the form it is: Bolt took it for
    an interactive post and dropped the command with a 404.
    """
    if content_type == "application/json" or text.startswith("{"):
        return json_object(text, "JSON", "the body")
    form = dict(parse_form(text))
    if "payload" in form:
        return json_object(form["payload"], "interactive", "payload")
    if "command" not in form and form.get("ssl_check") != "1":
        return Malformed("slash command", "command is missing")  # Slack's only other form
    return form


def ssl_check(text: str, content_type: str | None) -> Body | None:
    """Slack's ssl_check form, which Bolt answers before checking signatures; read the way Bolt
    reads it (a JSON body, or a form with a payload field, is never one)."""
    if content_type == "application/json" or text.startswith("{"):
        return None
    form = dict(parse_qsl(text, keep_blank_values=True))
    return form if form.get("ssl_check") == "1" and "payload" not in text else None


def json_object(text: str, kind: str, what: str) -> Body | Malformed:
    """A JSON object at most MAX_DEPTH deep, or what is wrong with `what`."""
    try:
        value = json.loads(text)
    except RecursionError:  # json's C decoder, nesting past the interpreter's recursion limit
        return Malformed(kind, f"{what} is nested too deeply")
    except ValueError:  # not JSON, or an integer longer than Python converts (4300 digits)
        return Malformed(kind, f"{what} is not JSON")
    if not isinstance(value, dict):
        return Malformed(kind, f"{what} is a JSON {_json_type(value)}, not an object")
    if _deeper_than(value, MAX_DEPTH):
        return Malformed(kind, f"{what} is nested too deeply")
    return value


def classify(body: Mapping[str, Any]) -> Request | Malformed | Unhandled | Quiet:
    """Which of ZeroQuiz's requests this is, checked; in Bolt's order of looking."""
    if "ssl_check" in body and body["ssl_check"] == "1":
        return Passed("ssl_check")
    if "event" in body and not isinstance(body["event"], dict):
        return Malformed(_kind(body), "event is not an object")  # Bolt reads event.type
    # Bolt reads these of every request while building it, before any middleware can look.
    auths = body.get("authorizations")
    if auths is not None and not (isinstance(auths, list) and all(type(a) is dict for a in auths)):
        return Malformed(_kind(body), "authorizations is not a list of objects")
    if not isinstance(body.get("enterprise"), str | dict | None):
        return Malformed(_kind(body), "enterprise is not an object")
    if body.get("type") == "url_verification":
        if not isinstance(body.get("challenge"), str):
            return Malformed("url_verification", "challenge is not a string")
        return Passed("url_verification")
    if body.get("type") == "app_rate_limited":
        minute = body.get("minute_rate_limited")
        when = f"minute {minute}" if type(minute) is int else "no minute given"
        team = _slack_id(body.get("team_id")) or "an unnamed workspace"
        return Quiet("app_rate_limited", f"Slack held back events of {team}, {when}", loud=True)
    if "command" in body:
        if "type" in body:  # Bolt would also read it as the view, step... that type names
            return Malformed("slash command", "a slash command has no type")
        command = slash_command(body)
        if isinstance(command, SlashCommand) and body["command"] != COMMAND:
            return Unhandled("slash command")
        return command
    if body.get("type") == "event_callback":
        if body.get("team_id") is None and isinstance(body.get("event"), dict):
            return Quiet("event_callback", "an organisation-level event without a team_id")
        event = event_of(body)
        if isinstance(event, Event) and event.type not in EVENTS:
            return Unhandled(f"{event.type} event")
        return event
    if body.get("type") == "view_submission":
        view = body.get("view")
        if not isinstance(view, dict) or view.get("callback_id") not in VIEWS:
            return Unhandled("view_submission")  # not one of our modals: Bolt has no listener
        return submission_of(body)
    if body.get("type") == "block_actions":
        foreign = _foreign_click(body)
        if foreign is not None:
            return foreign
        click_ = click_of(body)
        ours = (ANSWER_ACTION, REVIEW_ACTION)
        known = isinstance(click_, Click) and click_.action_id in FORM_ACTIONS
        if (
            isinstance(click_, Click)
            and not known
            and not any(a.match(click_.action_id) for a in ours)
        ):
            return Unhandled("block_actions")
        return click_
    return Unhandled(_kind(body))


def slash_command(body: Mapping[str, Any]) -> SlashCommand | Malformed:
    kind = "slash command"
    command = body.get("command")
    if not isinstance(command, str) or not command:
        return Malformed(kind, "command is missing")
    ids = {}
    for field in ("team_id", "channel_id", "user_id"):
        value = _slack_id(body.get(field))
        if value is None:
            return Malformed(kind, f"{field} is missing or not an ID")
        ids[field] = value
    url = _url(body.get("response_url"))
    if url is None:
        return Malformed(kind, "response_url is missing or not a URL")
    text = _text(body.get("text", ""), MAX_TEXT)
    if text is None:
        return Malformed(kind, "text is not a string")
    return SlashCommand(
        team=ids["team_id"],
        channel=ids["channel_id"],
        user=ids["user_id"],
        user_name=_text(body.get("user_name"), MAX_NAME) or "",
        text=text,
        response_url=url,
        trigger_id=_text(body.get("trigger_id"), MAX_NAME) or None,
    )


def click_of(body: Mapping[str, Any]) -> Click | Malformed:
    """A block_actions payload as the answer handler reads it; only actions[0] is used."""
    kind = "block_actions"
    actions = body.get("actions")
    if not isinstance(actions, list):
        return Malformed(kind, "actions is missing" if actions is None else "actions is not a list")
    if not actions or not all(isinstance(a, dict) for a in actions):
        return Malformed(kind, "actions is not a non-empty list of objects")
    action = actions[0]
    action_id = _text(action.get("action_id"), MAX_NAME)
    if not action_id:
        return Malformed(kind, "action_id is missing or not a string")
    value = _text(action.get("value"), MAX_TEXT)
    if value is None:
        return Malformed(kind, "the action's value is missing or not a string")
    who = _user_and_team(body, kind)
    if isinstance(who, Malformed):
        return who
    user, team_id = who
    channel = body.get("channel")
    if channel is not None and (not isinstance(channel, dict) or not _slack_id(channel.get("id"))):
        return Malformed(kind, "channel is not an object with an ID")
    url = _url(body.get("response_url"))
    # Review buttons, and a review card's Type it, live in the Home tab too.
    home = (
        _home_view(body) if REVIEW_ACTION.match(action_id) or action_id == TYPED_ACTION else False
    )
    if url is None and not home:
        return Malformed(kind, "response_url is missing or not a URL")
    handles = (_text(user.get(key), MAX_NAME) for key in ("name", "username"))
    return Click(
        team=team_id,
        user=user["id"],
        handle=next((h for h in handles if h), ""),
        channel=channel["id"] if channel else None,
        response_url=url or "",
        action_id=action_id,
        value=value,
        message_ts=_message_ts(body),
        home=home,
        trigger_id=_text(body.get("trigger_id"), MAX_NAME) or None,
    )


def _user_and_team(body: Mapping[str, Any], kind: str) -> tuple[dict[str, Any], str] | Malformed:
    """The person who clicked or submitted, and their team. With org-wide installs `team` can be
    null: the user's team_id then says."""
    user = body.get("user")
    if not isinstance(user, dict) or _slack_id(user.get("id")) is None:
        return Malformed(kind, "user.id is missing or not an ID")
    team = body.get("team")
    if team is not None and not isinstance(team, dict):
        return Malformed(kind, "team is not an object")
    team_id = _slack_id((team or {}).get("id")) or _slack_id(user.get("team_id"))
    if team_id is None:
        return Malformed(kind, "no team ID")
    return user, team_id


def submission_of(body: Mapping[str, Any]) -> Submission | Malformed:
    """A view_submission as the modal handlers read it: plain-text inputs only."""
    kind = "view_submission"
    view = body.get("view")
    if not isinstance(view, dict):
        return Malformed(kind, "view is not an object")
    callback = _text(view.get("callback_id"), MAX_NAME)
    if not callback:
        return Malformed(kind, "view.callback_id is missing or not a string")
    who = _user_and_team(body, kind)
    if isinstance(who, Malformed):
        return who
    user, team_id = who
    metadata = _text(view.get("private_metadata", ""), MAX_TEXT)
    if metadata is None:
        return Malformed(kind, "view.private_metadata is not a string")
    state = view.get("state", {})
    blocks = state.get("values", {}) if isinstance(state, dict) else None
    if not isinstance(blocks, dict):
        return Malformed(kind, "view.state.values is not an object")
    values: dict[str, str] = {}
    for block_id, actions in blocks.items():
        if not isinstance(actions, dict):
            return Malformed(kind, "a view.state value is not an object")
        for action in actions.values():
            if not isinstance(action, dict):
                return Malformed(kind, "a view.state input is not an object")
            chosen = action.get("selected_option")  # a select's choice, else a text input's
            raw = chosen.get("value") if isinstance(chosen, dict) else action.get("value")
            text = _text(raw or "", MAX_TEXT)
            if text is None:
                return Malformed(kind, "an input's value is not a string")
            values[str(block_id)] = text
    return Submission(team_id, user["id"], callback, metadata, values)


def event_of(body: Mapping[str, Any]) -> Event | Malformed:
    """An event_callback as the event handlers read it: the workspace and the event's type."""
    kind = "event_callback"
    team = _slack_id(body.get("team_id"))
    if team is None:
        return Malformed(kind, "team_id is missing or not an ID")
    event = body.get("event")
    if not isinstance(event, dict):
        return Malformed(kind, "event is missing or not an object")
    event_type = event.get("type")
    if not isinstance(event_type, str) or not event_type or len(event_type) > 64:
        return Malformed(kind, "event.type is missing or not a string")
    if not event_type.isascii() or not event_type.isprintable():
        return Malformed(kind, "event.type is not a name")
    tokens = event.get("tokens")
    if event_type == "tokens_revoked":
        if not isinstance(tokens, dict):
            return Malformed(kind, "tokens is not an object")
        bot = tokens.get("bot", [])
        if not isinstance(bot, list):
            return Malformed(kind, "tokens.bot is not a list")
        return Event(team, event_type, bot_revoked=bool(bot))
    if event_type == HOME_EVENT:
        user = _slack_id(event.get("user"))
        if user is None:
            return Malformed(kind, "event.user is missing or not an ID")
        tab = _text(event.get("tab", ""), MAX_NAME)
        if tab is None:
            return Malformed(kind, "event.tab is not a string")
        return Event(team, event_type, user=user, tab=tab)
    return Event(team, event_type)


def _foreign_click(body: Mapping[str, Any]) -> Quiet | None:
    """A click on something ZeroQuiz never draws, in a shape a ZeroQuiz click never has: an
    element without a `value` (a select, a link button) or one in a view (another app's Home
    tab, a modal). A well-formed click on another action keeps Bolt's 404 (`classify`)."""
    actions = body.get("actions")
    if not isinstance(actions, list) or not actions or not isinstance(actions[0], dict):
        return None
    action = actions[0]
    action_id = action.get("action_id")
    if not isinstance(action_id, str) or not action_id:
        return None
    if (
        ANSWER_ACTION.match(action_id)
        or REVIEW_ACTION.match(action_id)
        or action_id in FORM_ACTIONS
    ):
        return None
    if "value" not in action:
        return Quiet("block_actions", "a click on an element without a value")
    if isinstance(body.get("view"), dict):
        return Quiet("block_actions", "a click in a view ZeroQuiz didn't draw")
    return None


def _home_view(body: Mapping[str, Any]) -> bool:
    """Whether the click came from the app's Home tab (a view of type home, which carries no
    response_url): only review buttons live there."""
    view = body.get("view")
    return isinstance(view, dict) and view.get("type") == "home"


def _message_ts(body: Mapping[str, Any]) -> str | None:
    """The clicked message's ts, if the payload says it plainly (it is only used to edit it)."""
    for holder, key in ((body.get("container"), "message_ts"), (body.get("message"), "ts")):
        ts = holder.get(key) if isinstance(holder, dict) else None
        if isinstance(ts, str) and MESSAGE_TS.fullmatch(ts):
            return ts
    return None


def answer_choice(value: str) -> tuple[int, int] | None:
    """(round_id, option_index) from a button's value, or None if it isn't one of ours."""
    match = ANSWER_VALUE.fullmatch(value)
    if match is None:
        return None
    return int(match[1]), int(match[2])


def _slack_id(value: object) -> str | None:
    return value if isinstance(value, str) and SLACK_ID.fullmatch(value) else None


def _text(value: object, limit: int) -> str | None:
    """A string that fits, made storable (see adapters.text.storable)."""
    if not isinstance(value, str) or len(value) > limit:
        return None
    return storable(value)


def _url(value: object) -> str | None:
    """An absolute http(s) URL in plain ASCII, as Slack's response_url always is."""
    if not isinstance(value, str) or len(value) > MAX_URL or not value.isascii():
        return None
    if any(c.isspace() or not c.isprintable() for c in value):
        return None
    try:
        parts = urlsplit(value)
    except ValueError:  # an unclosed IPv6 bracket
        return None
    return value if parts.scheme in ("http", "https") and parts.hostname else None


def _kind(body: Mapping[str, Any]) -> str:
    kind = body.get("type")
    return kind[:40] if isinstance(kind, str) and kind.isprintable() and kind else "untyped"


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "string" if isinstance(value, str) else "array"


def _deeper_than(value: object, limit: int) -> bool:
    """Iterative, so a deep value can't exhaust the stack that checks it."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False
