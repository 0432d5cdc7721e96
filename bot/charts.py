"""A generated memory question's stages as a text bar chart, for the explanation and the reveal.

Block characters with eighth blocks, so any text surface can draw it; every line is short (under
40 characters) so a phone's code block does not wrap it, and the figures are the question's own
(bot/bank/memchart.py), written as the options are, so the marked bar shows the answer as offered.
"""

from __future__ import annotations

import functools

from bot.bank.numbers import format_amount, format_number
from bot.i18n import t
from bot.model import Lang, MemoryChart
from bot.views import ChartView

WIDTH = 12  # cells for the largest bar (plain DP); each cell has eight steps
MARK = "◀"
_EIGHTHS = " ▏▎▍▌▋▊▉"


def bar(value: float, largest: float, width: int = WIDTH) -> str:
    """`value` against `largest` as `width` cells; a non-zero value shows at least one step."""
    steps = round(max(0.0, min(1.0, value / largest)) * width * 8) if largest > 0 else 0
    if value > 0 and steps == 0:
        steps = 1
    full, part = divmod(steps, 8)
    text = "█" * full + (_EIGHTHS[part] if part else "")
    return text.ljust(width)


def chart_view(chart: MemoryChart, lang: Lang, unit: str = "GB") -> ChartView:
    """The title and one line per stage: label, bar, figure, and the mark on the question's.
    Remembered: a question's chart is drawn again for every click on it and for its reveal."""
    return _chart_view(chart, lang, unit)


@functools.lru_cache(maxsize=1024)
def _chart_view(chart: MemoryChart, lang: Lang, unit: str) -> ChartView:
    labels = [t(lang, "chart_dp"), *(t(lang, "chart_stage", n=n) for n in (1, 2, 3))]
    pad = max(len(label) for label in labels)
    largest = max(chart.bars)
    figures = [format_amount(value, unit, lang) for value in chart.bars]
    wide = max(len(figure) for figure in figures)
    lines = tuple(
        f"{label.ljust(pad)} {bar(value, largest)} {figure.rjust(wide)}"
        + (f" {MARK}" if i == chart.marked else "")
        for i, (label, value, figure) in enumerate(zip(labels, chart.bars, figures, strict=True))
    )
    title = t(
        lang, "chart_title", psi=format_number(chart.psi, lang), nd=format_number(chart.nd, lang)
    )
    return ChartView(title=title, lines=lines)


def question_chart(chart: MemoryChart | None, lang: Lang) -> ChartView | None:
    return chart_view(chart, lang) if chart is not None else None
