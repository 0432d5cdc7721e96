"""Memory pictures: every draw of every charted memory template shows plain DP and stages 1-3 per
GPU as bars with the fact sheet's figures (computed here again from the prompt's Ψ and Nd), the
asked stage marked with the question's own answer, in both languages; the checker refuses a chart
that disagrees with the answer; the terminal shows the chart under the explanation."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from chart_cases import CHARTED, fact_sheet_bars, memory_draws, shown_psi_nd
from helpers import round_row

from bot import presenter
from bot.bank import Bank, BankError, load_bank
from bot.bank.numbers import format_amount, format_number
from bot.charts import MARK, WIDTH, bar, chart_view
from bot.export import bank_to_yaml
from bot.model import LANGS, Lang, Question

ROOT = Path(__file__).resolve().parents[2]
LINE = re.compile(r"(?P<label>.+?) +(?P<bar>[█▏▎▍▌▋▊▉]+) *(?P<figure>[\d.,]+ GB)(?P<mark> ◀)?")
EIGHTHS = {"█": 8, "▉": 7, "▊": 6, "▋": 5, "▌": 4, "▍": 3, "▎": 2, "▏": 1}
MOBILE = 40  # characters a phone's code block shows without wrapping (roughly)


def _parsed(q: Question, lang: Lang) -> list[re.Match[str]]:
    assert q.chart is not None, q.id
    view = chart_view(q.chart, lang)
    matches = [LINE.fullmatch(line) for line in view.lines]
    assert all(matches), view.lines
    return [m for m in matches if m is not None]


@pytest.fixture(scope="module")
def draws(bank: Bank) -> list[Question]:
    return memory_draws(bank)


def test_exactly_the_zero_memory_templates_have_charts(bank: Bank) -> None:
    charted = {t.id: t.chart for t in bank.templates if t.chart is not None}
    assert charted == CHARTED
    assert all(q.chart is None for q in bank.questions)
    others = [t for t in bank.templates if t.id not in CHARTED]
    assert others and all(t.draw(seed).chart is None for t in others for seed in range(20))  # type: ignore[union-attr]


def test_every_draw_shows_the_fact_sheets_four_bars_with_the_answer_marked(
    draws: list[Question],
) -> None:
    assert len(draws) == 64 + 40 + 40 + 56  # every (Ψ, Nd) of the four templates
    for q in draws:
        tid = q.id.split("@")[0]
        expected = fact_sheet_bars(q)
        for lang in LANGS:
            lines = _parsed(q, lang)
            assert len(lines) == 4
            figures = [m["figure"] for m in lines]
            assert figures == [format_amount(v, "GB", lang) for v in expected], (q.id, lang)
            marked = [i for i, m in enumerate(lines) if m["mark"]]
            assert marked == [CHARTED[tid]], (q.id, lang)
            # The marked figure is the option the question keys as right, as people see it.
            assert figures[marked[0]] == q.options[q.answer].get(lang), (q.id, lang)
            # Longer bars for more memory: plain DP is full, the order of the figures holds.
            cells = [sum(EIGHTHS[c] for c in m["bar"]) for m in lines]
            assert cells[0] == WIDTH * 8 and all(c >= 1 for c in cells)
            for i in range(3):
                step = expected[0] / (WIDTH * 8)  # one eighth of a cell
                same = abs(expected[i] - expected[i + 1]) < step
                assert same or (cells[i] >= cells[i + 1]) == (expected[i] >= expected[i + 1])
            assert all(len(line) <= MOBILE for line in chart_view(q.chart, lang).lines)  # type: ignore[arg-type]
        psi, nd = shown_psi_nd(q)
        view_en = chart_view(q.chart, "en")  # type: ignore[arg-type]
        en_psi, en_nd = format_number(psi, "en"), format_number(nd, "en")
        assert f"{en_psi}B parameters on {en_nd} GPUs" in view_en.title
        view_id = chart_view(q.chart, "id")  # type: ignore[arg-type]
        id_psi, id_nd = format_number(psi, "id"), format_number(nd, "id")
        assert f"{id_psi} miliar parameter di {id_nd} GPU" in view_id.title
        assert _parsed(q, "id")[0]["label"] == "DP biasa"
        assert _parsed(q, "en")[0]["label"] == "Plain DP"


def test_the_papers_worked_example_is_drawn_as_figure_1_prints_it(draws: list[Question]) -> None:
    """Ψ = 7.5B, Nd = 64: 120 GB, 31.4 GB, 16.6 GB, 1.88 GB (ZeRO paper Fig. 1, fact sheet)."""
    found = [q for q in draws if shown_psi_nd(q) == (7.5, 64)]
    assert {q.id.split("@")[0] for q in found} == set(CHARTED)
    for q in found:
        en = ["120 GB", "31.4 GB", "16.6 GB", "1.88 GB"]
        assert [m["figure"] for m in _parsed(q, "en")] == en
        assert [m["figure"] for m in _parsed(q, "id")] == [f.replace(".", ",") for f in en]


@pytest.mark.parametrize(
    ("value", "largest", "shown"),
    [(0.0, 10.0, " " * WIDTH), (10.0, 10.0, "█" * WIDTH), (5.0, 10.0, "█" * 6 + " " * 6),
     (0.001, 10.0, "▏" + " " * 11), (1.0, 8.0, "█▌" + " " * 10)],
)  # fmt: skip
def test_bars_are_drawn_in_eighths_and_a_small_value_still_shows(
    value: float, largest: float, shown: str
) -> None:
    assert bar(value, largest) == shown


def test_feedback_reveal_and_review_carry_the_chart_in_the_readers_language(
    draws: list[Question],
) -> None:
    q = draws[0]
    for lang in LANGS:
        r = round_row(q, lang, platform="test", opened_at=1_767_603_600_000)
        order = presenter.display_order(r, q)
        feedback = presenter.feedback_view(lang, q, order, q.answer, "correct", 10)
        reveal = presenter.reveal_view(r, q, {q.answer: 2}, None)
        assert feedback.chart == reveal.chart == chart_view(q.chart, lang)  # type: ignore[arg-type]
        assert feedback.chart is not None and MARK in feedback.chart.body


def _with_chart(stage: str) -> str:
    """The bundled stage-1 template and one hand-written question (a bank of templates alone
    does not play in the terminal), exported, with the template's `chart:` set to `stage`."""
    bank = load_bank()
    (template,) = [t for t in bank.templates if t.id == "gen-mem-stage1"]
    text = bank_to_yaml(Bank(bank.questions[:1], [template]))
    assert "chart: stage1" in text  # the export keeps the chart
    return text.replace("chart: stage1", f"chart: {stage}")


@pytest.mark.parametrize(
    ("stage", "message"),
    [
        ("stage2", "the chart's stage2 bar is"),  # a chart that does not show the answer
        ("stage4", "chart must be one of dp, stage1, stage2, stage3"),
    ],
)
def test_a_chart_that_disagrees_with_the_answer_is_refused_at_its_line(
    tmp_path: Path, stage: str, message: str
) -> None:
    text = _with_chart(stage)
    path = tmp_path / "t.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(BankError) as err:
        load_bank([path])
    [problem] = err.value.problems
    assert message in problem.message
    assert text.splitlines()[problem.line - 1].strip() == f"chart: {stage}"


def test_a_chart_needs_psi_and_nd(tmp_path: Path) -> None:
    text = _with_chart("stage1").replace("  nd:", "  gpus:").replace("nd)", "gpus)")
    text = text.replace("{nd}", "{gpus}").replace("/ nd", "/ gpus")
    path = tmp_path / "t.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(BankError) as err:
        load_bank([path])
    assert [p.message for p in err.value.problems] == ["chart needs the params psi and nd"]


def test_the_terminal_shows_the_chart_under_the_explanation(tmp_path: Path) -> None:
    path = tmp_path / "mem.yaml"
    path.write_text(_with_chart("stage1"), encoding="utf-8")
    script = Path(sys.executable).parent / "zeroquiz"
    for lang, title in (("en", "B parameters on "), ("id", " miliar parameter di ")):
        result = subprocess.run(
            [str(script), "play", "--no-bundled", "--questions", str(path), "--count", "2",
             "--lang", lang, "--db", str(tmp_path / f"{lang}.db")],
            input="a\nb\n", capture_output=True, text=True, timeout=60, cwd=tmp_path,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        out = result.stdout.splitlines()
        titles = [i for i, line in enumerate(out) if line.startswith("Model states per GPU, ")]
        assert len(titles) == 1, result.stdout  # the template's draw only
        start = titles[0]
        assert title in out[start] and out[start].endswith(")"), out[start]
        bars = out[start + 1 : start + 5]  # right under the title, indented like the options
        assert all(line.startswith("  ") and LINE.fullmatch(line.strip()) for line in bars), bars
        assert [line.endswith(f" {MARK}") for line in bars] == [False, True, False, False]
        why = "Why: " if lang == "en" else "Penjelasan: "
        assert out.index(next(x for x in out[:start] if x.startswith(why))) < start
