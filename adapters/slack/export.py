"""`/zeroquiz pack export NAME` on Slack: the pack's YAML back whole, as numbered code blocks.

The app has no `files:write` scope (deploy/slack-manifest*.yaml), so the YAML is cut into parts
that each fit a section's code block, cut after a line wherever a line allows (a line longer
than a part is cut inside, and its part says so); the parts, put together in order, are exactly
the YAML. Every part weighs at most PART_MAX once escaped (`&` → `&amp;`), four parts make one
message (well under Slack's ~12,000 characters of blocks), so each message fits by construction
whatever the pack holds.

A response_url takes at most five messages: an export of up to URL_MESSAGES messages goes there
(it reaches the person wherever the command was typed); a longer one goes out as ephemeral
messages with the workspace's bot token (chat.postEphemeral), one after another, and if Slack
refuses one the person is told why, through the response_url.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import NamedTuple

from adapters.slack.mrkdwn import escape
from adapters.slack.render import Block, SlackMessage
from adapters.slack.users import SlackUsers
from adapters.slack.web import error_code, reason_for, with_token
from bot.i18n import t
from bot.model import Lang
from bot.views import NoticeView

log = logging.getLogger(__name__)

PART_MAX = 2600  # escaped characters of YAML in one part: with its label, under a section's 3000
PARTS_PER_MESSAGE = 4  # 4 x ~2,700 + the heading: under 11,200 characters per message
URL_MESSAGES = 4  # of a response_url's 5 uses (one left for a retry of a passing failure)
FENCE = "```"
Reply = Callable[[str, SlackMessage], Awaitable[None]]


class Part(NamedTuple):
    text: str  # a slice of the YAML, as it is in the pack
    joined: bool  # its last line goes on in the next part (a line longer than a part)


def split_yaml(body: str, most: int = PART_MAX) -> list[Part]:
    """Slices of `body`, in order, whose concatenation is `body`; each weighs at most `most`
    escaped and ends after a newline unless a single line is heavier than `most`."""
    parts: list[Part] = []
    current, weight = "", 0
    for line in _lines(body):
        heavy = _weight(line)
        if current and weight + heavy > most:
            parts.append(Part(current, joined=False))
            current, weight = "", 0
        while heavy > most:  # one line heavier than a part (current is empty): cut inside it
            cut = _fit(line, most)
            parts.append(Part(line[:cut], joined=True))
            line = line[cut:]
            heavy = _weight(line)
        current, weight = current + line, weight + heavy
    if current or not parts:
        parts.append(Part(current, joined=False))
    return parts


def _lines(body: str) -> list[str]:
    """The lines of `body`, each with its newline (only "\n" ends a line here)."""
    pieces = body.split("\n")
    lines = [piece + "\n" for piece in pieces[:-1]]
    return [*lines, pieces[-1]] if pieces[-1] else lines


def join_parts(shown: list[tuple[str, bool]]) -> str:
    """What a person gets by putting the parts together as the heading says: each part on the
    line after the previous one, a part marked `joined` without a line break. Each is (the
    text its code block shows, joined)."""
    return "".join(text + ("" if joined else "\n") for text, joined in shown)


def export_messages(view: NoticeView) -> list[SlackMessage]:
    """The notice's pack as messages of numbered parts (the heading on the first)."""
    assert view.file is not None
    lang, file = view.lang, view.file
    parts = split_yaml(file.body)
    total = len(parts)
    sections = [_part_block(lang, n, total, part) for n, part in enumerate(parts, 1)]
    head = escape(view.text)
    if total > 1:
        key = f"{file.kind}_export_parts"  # a pack's, or a teacher's file's (results, insights)
        heading = t(lang, key, name=file.pack, version=file.version, count=total)
        head = escape(heading if file.kind == "pack" else f"{view.text} {heading}")
    if FENCE in file.body:
        head += "\n" + escape(t(lang, "pack_export_backticks"))
    messages: list[SlackMessage] = []
    for start in range(0, total, PARTS_PER_MESSAGE):
        blocks: list[Block] = [] if start else [_section(head)]
        blocks += sections[start : start + PARTS_PER_MESSAGE]
        label = t(lang, "pack_export_part", n=start + 1, total=total)
        messages.append(SlackMessage(f"{file.filename}: {label}", blocks))
    return messages


class SlackExport:
    """Sends an export's messages: through the response_url when they are few, else as
    ephemeral messages with the workspace's token."""

    def __init__(self, users: SlackUsers, reply: Reply) -> None:
        self.users = users
        self.reply = reply

    async def send(
        self, response_url: str, team: str, channel: str, user: str, view: NoticeView
    ) -> None:
        messages = export_messages(view)
        if len(messages) <= URL_MESSAGES:
            for message in messages:  # in order: each waits for the one before
                await self.reply(response_url, message)
            return
        token = await self.users.tokens(team) if self.users.tokens is not None else None
        for sent, message in enumerate(messages):
            try:
                await with_token(
                    team, token, self.users.client.chat_postEphemeral, self.users.rejected,
                    channel=channel, user=user, text=message.text, blocks=message.blocks,
                )  # fmt: skip
            except Exception as exc:
                code = error_code(exc)
                log.warning("slack: a pack export stopped at message %d: %s", sent + 1, code)
                await self.reply(response_url, stopped(view, sent, code))
                return


def stopped(view: NoticeView, sent: int, code: str) -> SlackMessage:
    """Said through the response_url when Slack refused message `sent + 1`."""
    assert view.file is not None
    lang = view.lang
    parts = len(split_yaml(view.file.body))
    done = min(sent * PARTS_PER_MESSAGE, parts)
    text = t(lang, f"{view.file.kind}_export_stopped", name=view.file.pack, sent=done, total=parts,
             reason=reason_for(code, lang))  # fmt: skip
    return SlackMessage(text[:3000], [_section(escape(text))])


def _part_block(lang: Lang, n: int, total: int, part: Part) -> Block:
    key = "pack_export_part_joined" if part.joined else "pack_export_part"
    label = f"*{escape(t(lang, key, n=n, total=total))}*"
    shown = part.text if part.joined else part.text.removesuffix("\n")
    code = escape(shown.replace(FENCE, "'''"))
    return _section(f"{label}\n{FENCE}\n{code}\n{FENCE}")


def _section(text: str) -> Block:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def _weight(text: str) -> int:
    """Characters once escaped for mrkdwn (`&` → `&amp;`, `<` → `&lt;`, `>` → `&gt;`)."""
    return len(text) + 4 * text.count("&") + 3 * (text.count("<") + text.count(">"))


def _fit(line: str, room: int) -> int:
    """How many characters of `line` weigh at most `room` (at least one)."""
    weight = 0
    for i, char in enumerate(line):
        weight += _weight(char)
        if weight > room:
            return max(i, 1)
    return len(line)
