"""Core views -> Discord embeds and buttons. Pure functions, so every limit is unit-testable.

All words come from the views (already localised by the core); this module only lays them out.
Question texts are bounded by bot.bank.limits, which keeps every embed here inside Discord's limits.
"""

from __future__ import annotations

import re
from datetime import datetime

import discord

from adapters.discord.insight_embed import insights_embed
from adapters.text import clip as text_clip
from bot.i18n import t
from bot.model import Lang
from bot.presenter import text_bar
from bot.views import (
    ChartView,
    Feedback,
    InsightsView,
    LeaderboardView,
    Mistake,
    NoticeView,
    QuestionView,
    ReminderView,
    RevealView,
    ReviewResult,
    ReviewView,
    StatsView,
)

OPEN_COLOUR = discord.Colour.blurple()
RIGHT_COLOUR = discord.Colour.green()
WRONG_COLOUR = discord.Colour.red()
INFO_COLOUR = discord.Colour.dark_grey()
BAR_WIDTH = 10
CUSTOM_ID_PREFIX = "zq:a"
FOOTER_MAX = 2048
DESCRIPTION_MAX = 4096
FIELD_NAME_MAX = 256
# Every custom_id under our prefix is ours (clicks.py); answer_choice reads it strictly, so a
# button it can't read is answered "no longer valid" instead of left unanswered.
# ASCII digits only (`\d` matches "٣" too) and at most 18 of them, inside SQLite's int64.
ANSWER_ID = re.compile(r"zq:a:([0-9]{1,18}):([0-9]{1,2})")
# The personal review's buttons: the prefix, then the core's token (bot/reviewing.py reads it
# strictly; at most 79 characters, so the custom_id stays within Discord's 100).
REVIEW_PREFIX = "zqr:"
REPORT_PREFIX = "zqp:"  # the Report control under a verdict: the language, then the question
TYPED_PREFIX = "zqt:"  # Type it, beside a generated question's letters: then the round
CUSTOM_ID_MAX = 100
# A review (and its Report control) in a direct message, which has no server: a reminder's
# "Review now" there. The custom_id is "zqd", the server's id in base 36, "~", then the
# custom_id the button has in a server (the core's token is short enough for both).
DIRECT_PREFIX = "zqd"
DIRECT_ID = re.compile(r"zqd([0-9a-z]{1,13})~(zq[a-z]?:.*)", re.DOTALL)


_HALF_ESCAPE = re.compile(r"\\+$")  # a markdown escape cut from the character it escapes


def clip(text: str, limit: int) -> str:
    """Names come from users, so lines carrying them are cut to the field's limit."""
    return text_clip(text, limit, broken_tail=_HALF_ESCAPE)


def answer_custom_id(round_id: int, option: int) -> str:
    """The button's custom_id: everything a click needs to find its round after a restart."""
    return f"{CUSTOM_ID_PREFIX}:{round_id}:{option}"


def answer_choice(custom_id: str) -> tuple[int, int] | None:
    """(round_id, option) from one of our custom_ids, or None if it isn't one."""
    match = ANSWER_ID.fullmatch(custom_id)
    if match is None:
        return None
    return int(match[1]), int(match[2])


def _stamp(view: QuestionView) -> str:
    # Discord renders <t:...:t> in each reader's own time zone.
    return f"<t:{int(view.closes_at.timestamp())}:t>"


def question_embed(view: QuestionView) -> discord.Embed:
    """The public question with its live answer count."""
    closes_line = t(view.lang, "closes_at", time=_stamp(view))
    count_line = t(view.lang, "answer_count", count=view.answer_count)
    options = "\n".join(f"**{o.letter})** {o.text}" for o in view.options)
    embed = discord.Embed(
        title=view.title,
        description=f"{view.prompt}\n\n{options}\n\n{closes_line}",
        colour=OPEN_COLOUR,
    )
    embed.set_footer(text=f"{count_line}\n{view.hint}")
    return embed


def question_button_specs(view: QuestionView) -> list[tuple[str, str]]:
    """(label, custom_id) for each option, in display order: one row of at most five."""
    return [(o.letter, answer_custom_id(view.round_id, i)) for i, o in enumerate(view.options)]


def bar(share: float) -> str:
    return text_bar(share, BAR_WIDTH)


def reveal_embed(view: RevealView) -> discord.Embed:
    """The closed question: correct option marked, explanation, spread bars, number right."""
    options = "\n".join(
        f"{'✅' if row.correct else '▫️'} **{row.letter})** {row.text}" for row in view.spread
    )
    embed = discord.Embed(
        title=view.title,
        description=f"{view.prompt}\n\n{options}\n\n**{view.answer_line}**",
        colour=RIGHT_COLOUR,
    )
    embed.add_field(name=view.why_label, value=view.explanation, inline=False)
    add_chart(embed, view.chart)
    spread = "\n".join(
        f"{row.letter}) `{bar(row.share)}` {row.count} · {row.share:.0%}" for row in view.spread
    )
    embed.add_field(name=view.spread_label, value=spread, inline=False)
    add_mistake(embed, view.mistake)
    lines = (view.summary, view.typed, view.fastest, view.streaks)
    footer = "\n".join(line for line in lines if line)
    embed.set_footer(text=clip(footer, FOOTER_MAX))
    return embed


def feedback_embed(feedback: Feedback) -> discord.Embed:
    """The private reply to a click: right or wrong, the correct option and why."""
    colour = {"correct": RIGHT_COLOUR, "wrong": WRONG_COLOUR}.get(feedback.status, INFO_COLOUR)
    text = feedback.headline
    if feedback.points:
        text += "\n" + t(feedback.lang, "feedback_points", points=feedback.points)
    embed = discord.Embed(description=text, colour=colour)
    add_mistake(embed, feedback.mistake)
    if feedback.explanation:
        embed.add_field(name=feedback.why_label, value=feedback.explanation, inline=False)
        add_chart(embed, feedback.chart)
    return embed


def add_mistake(embed: discord.Embed, mistake: Mistake | None) -> None:
    """Why an option is wrong, as a field: a heading of a few words and a reason of at most
    300 characters (bot/bank/limits.py), inside a field's 256 and 1024."""
    if mistake is not None:
        embed.add_field(name=clip(mistake.label, FIELD_NAME_MAX), value=mistake.text, inline=False)


def add_chart(embed: discord.Embed, chart: ChartView | None) -> None:
    """A memory chart as a field: its title as the name, its lines in a code block (monospace,
    so the bars line up); a few hundred characters, inside a field's 256 and 1024."""
    if chart is not None:
        value = f"```\n{chart.body}\n```"
        embed.add_field(name=clip(chart.title, FIELD_NAME_MAX), value=value, inline=False)


def names(text: str) -> str:
    """A line that carries people's names, with Discord markdown in those names made literal
    (discord.py's own escaping), so a name like `**x**` or `a_b_c` shows as typed."""
    return discord.utils.escape_markdown(text)


def next_due_line(lang: Lang, when: datetime) -> str:
    """The review's next due time, which Discord shows in each reader's own zone (`:f`, date
    and time). Not for a footer: footers show such a token as typed."""
    return t(lang, "review_next_due", when=f"<t:{int(when.timestamp())}:f>")


def reminder_embed(view: ReminderView) -> discord.Embed:
    """A review reminder's direct message (its button: buttons.reminder_buttons)."""
    return discord.Embed(title=view.title, description=view.text, colour=INFO_COLOUR)


def notice_embed(view: NoticeView) -> discord.Embed:
    parts = [view.text] if view.text != view.title else []
    if parts and view.next_due is not None:
        parts[0] += " " + next_due_line(view.lang, view.next_due)
    parts += [names(line) for line in view.lines]  # a run's standings
    embed = discord.Embed(
        title=view.title or None,
        description="\n".join(parts) or None,
        colour=INFO_COLOUR if view.ok else WRONG_COLOUR,
    )
    return embed


def export_embed(view: NoticeView) -> discord.Embed:
    """`pack export`: the heading, the YAML as a code block when the core gave one (shown as
    written: no markdown escaping inside it), and where the attached file is."""
    assert view.file is not None
    said = t(view.lang, f"{view.file.kind}_export_attached", file=view.file.filename)
    parts = [view.text, *view.lines, said]  # lines: at most one code block of ~2,400
    return discord.Embed(description="\n".join(parts), colour=INFO_COLOUR)


def leaderboard_embed(view: LeaderboardView) -> discord.Embed:
    lines = [names(line) for line in view.lines] or [view.empty_text]
    if view.me_line:
        lines += ["", f"**{names(view.me_line)}**"]
    description = clip("\n".join(lines), DESCRIPTION_MAX)
    return discord.Embed(title=view.title, description=description, colour=OPEN_COLOUR)


def stats_embed(view: StatsView) -> discord.Embed:
    embed = discord.Embed(title=view.title, description=names(view.name), colour=OPEN_COLOUR)
    for label, value in view.lines:
        embed.add_field(name=label, value=value, inline=True)
    return embed


def review_embed(view: ReviewView | ReviewResult | NoticeView) -> discord.Embed:
    """A step of the private review: a due card, or its verdict with the explanation at once."""
    if isinstance(view, NoticeView):
        return notice_embed(view)
    if isinstance(view, ReviewView):
        options = "\n".join(f"**{o.letter})** {o.text}" for o in view.options)
        embed = discord.Embed(
            title=view.title, description=f"{view.prompt}\n\n{options}", colour=OPEN_COLOUR
        )
        embed.set_footer(text=clip(view.due_line, FOOTER_MAX))
        return embed
    colour = RIGHT_COLOUR if view.correct else WRONG_COLOUR
    description = f"{view.prompt}\n\n{view.headline}"
    if view.next_due is not None:  # in the description: a footer can't show the time token
        description += "\n\n" + next_due_line(view.lang, view.next_due)
    embed = discord.Embed(title=view.title, description=description, colour=colour)
    add_mistake(embed, view.mistake)
    embed.add_field(name=view.why_label, value=view.explanation, inline=False)
    add_chart(embed, view.chart)
    embed.set_footer(text=clip(view.footer, FOOTER_MAX))
    return embed


def review_button_specs(view: ReviewView | ReviewResult | NoticeView) -> list[tuple[str, str]]:
    """(label, custom_id) of the review's buttons: the letters, or Next and Stop (one row)."""
    if isinstance(view, NoticeView):
        return []
    return [(b.label, f"{REVIEW_PREFIX}{b.token}"[:CUSTOM_ID_MAX]) for b in view.buttons]


def direct_custom_id(guild: str | None, custom_id: str) -> str:
    """A button's custom_id for a direct message about server `guild` (None: in the server)."""
    if guild is None or not guild.isdigit():
        return custom_id
    return f"{DIRECT_PREFIX}{_b36(int(guild))}~{custom_id}"[:CUSTOM_ID_MAX]


def direct_parts(custom_id: str) -> tuple[str, str] | None:
    """(server id, the custom_id inside) of a direct message's button, or None."""
    found = DIRECT_ID.fullmatch(custom_id)
    return None if found is None else (str(int(found.group(1), 36)), found.group(2))


def _b36(value: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    text = ""
    while True:
        value, rest = divmod(value, 36)
        text = digits[rest] + text
        if not value:
            return text


def review_token(custom_id: str) -> str | None:
    """The core's token from one of our review custom_ids."""
    return custom_id[len(REVIEW_PREFIX) :] if custom_id.startswith(REVIEW_PREFIX) else None


def reply_embed(
    view: NoticeView | LeaderboardView | StatsView | ReviewView | InsightsView,
) -> discord.Embed:
    """Any command reply (dispatch's Reply union) as one embed."""
    if isinstance(view, InsightsView):
        return insights_embed(view)
    if isinstance(view, ReviewView):
        return review_embed(view)
    if isinstance(view, LeaderboardView):
        return leaderboard_embed(view)
    if isinstance(view, StatsView):
        return stats_embed(view)
    if view.file is not None:
        return export_embed(view)
    return notice_embed(view)
