"""Every draw a memory chart can show: for each bundled template with a chart, one seed per
combination of its params (all of them: the grids are small), and the bars the fact sheet gives
for the Ψ and Nd the prompt shows, computed here again, not by bot/bank/memchart.py.

shared/reference/zero-facts.md, "Memory model" (ZeRO paper §5.1-5.3, K = 12): plain DP (2+2+K)Ψ,
stage 1 4Ψ + KΨ/Nd, stage 2 2Ψ + 14Ψ/Nd, stage 3 16Ψ/Nd.
"""

from __future__ import annotations

import itertools
import re

from bot.bank import Bank
from bot.bank.limits import MAX_EXPLANATION, MAX_OPTION, MAX_OPTIONS, MAX_PROMPT
from bot.bank.memchart import chart
from bot.model import Question, Text

CHARTED = {"gen-mem-dp": 0, "gen-mem-stage1": 1, "gen-mem-stage2": 2, "gen-mem-stage3": 3}
MAX_SEED = 20_000  # far more than the coupon collector needs for 64 combinations


def memory_draws(bank: Bank) -> list[Question]:
    """One draw per (Ψ, Nd) of every charted template."""
    found: list[Question] = []
    for template in bank.templates:
        if template.chart is None:
            continue
        wanted = set(itertools.product(*(values for _, values in template.params)))
        for seed in range(MAX_SEED):
            if not wanted:
                break
            params, _ = template.drawn(seed)
            key = tuple(params[name] for name, _ in template.params)
            if key in wanted:
                wanted.discard(key)
                question = bank.get(f"{template.id}@{seed}")
                assert question is not None
                found.append(question)
        assert not wanted, (template.id, wanted)
    return found


def shown_psi_nd(question: Question) -> tuple[float, float]:
    """Ψ (billions) and Nd as the English prompt shows them."""
    psi = re.search(r"\b([\d,.]+)-billion-parameter", question.prompt.en)
    nd = re.search(r"\b([\d,]+) GPUs", question.prompt.en)
    assert psi and nd, question.prompt.en
    return float(psi[1].replace(",", "")), float(nd[1].replace(",", ""))


def fact_sheet_bars(question: Question) -> tuple[float, float, float, float]:
    psi, nd = shown_psi_nd(question)
    return (16 * psi, 4 * psi + 12 * psi / nd, 2 * psi + 14 * psi / nd, 16 * psi / nd)


def longest_charted() -> Question:
    """A question at the bank's maximum lengths carrying the widest chart a draw could have
    (the largest Ψ and Nd any bundled template draws: the longest figures and title)."""
    return Question(
        id="x" * 40,
        prompt=Text("W" * MAX_PROMPT, "W" * MAX_PROMPT),
        options=(Text("O" * MAX_OPTION, "O" * MAX_OPTION),) * MAX_OPTIONS,
        answer=MAX_OPTIONS - 1,
        explanation=Text("E" * MAX_EXPLANATION, "E" * MAX_EXPLANATION),
        tags=("t" * 40,),
        difficulty=3,
        chart=chart(1000, 1024, 3),
    )
