"""Per-GPU model-state memory for plain DP and ZeRO stages 1-3, for a template's chart.

The ZeRO paper's mixed-precision Adam accounting (arXiv 1910.02054 §3.1, and the team's fact
sheet shared/reference/zero-facts.md, "Memory model"): fp16 params 2Ψ + fp16 grads 2Ψ + optimizer
states KΨ with K = 12 (fp32 master params, momentum, variance). Per GPU over Nd data-parallel ranks
(§5.1-5.3, Fig. 1): plain DP (2 + 2 + K)Ψ; stage 1 (P_os) 4Ψ + KΨ/Nd; stage 2 (P_os+g)
2Ψ + (2 + K)Ψ/Nd; stage 3 (P_os+g+p) (2 + 2 + K)Ψ/Nd. Ψ in billions gives decimal GB. Fig. 1's
worked example, Ψ = 7.5, Nd = 64: 120, 31.4, 16.6 and 1.88 GB.
"""

from __future__ import annotations

from bot.model import MemoryChart

K = 12  # bytes of optimizer states per parameter: fp32 master copy, momentum, variance
STAGES = ("dp", "stage1", "stage2", "stage3")  # a template's `chart:` names the marked one
PARAMS = ("psi", "nd")  # the template params the chart is drawn from


def per_gpu(psi: float, nd: float) -> tuple[float, float, float, float]:
    """GB of model states on each GPU: plain DP, stage 1, stage 2, stage 3."""
    return (
        (2 + 2 + K) * psi,
        4 * psi + K * psi / nd,
        2 * psi + (2 + K) * psi / nd,
        (2 + 2 + K) * psi / nd,
    )


def chart(psi: float, nd: float, marked: int) -> MemoryChart:
    return MemoryChart(psi=psi, nd=nd, bars=per_gpu(psi, nd), marked=marked)
