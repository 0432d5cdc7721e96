"""Adaptive daily questions (opt-in per schedule): which topic the next daily question is of.

Topics the team answers worst come up more often, none is starved: each topic's weight is a
floor shared evenly (`FLOOR` of all picks) plus the rest in proportion to its squared error rate
(wrong answers, smoothed with one right and one wrong so a topic never answered counts as
half wrong). The topic picked is the one furthest behind its share so far (deficit round-robin
over the schedule's past questions), so over any month each topic gets its share give or take
one, and a topic whose share is a tenth comes up at least every ten days. Ties go to the
injected generator: the same history and seed pick the same topic.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence

FLOOR = 0.3  # of all picks, spread evenly over the topics


def weights(pool: Sequence[str], totals: Mapping[str, tuple[int, int]]) -> dict[str, float]:
    """topic -> its share of the picks (they add up to 1). `totals`: (answers, right)."""
    errors = {}
    for topic in pool:
        answered, right = totals.get(topic, (0, 0))
        errors[topic] = ((answered - right + 1) / (answered + 2)) ** 2
    total = sum(errors.values())
    even = 1 / len(pool)
    return {t: FLOOR * even + (1 - FLOOR) * errors[t] / total for t in pool}


def asked_counts(pool: Sequence[str], asked_tags: Iterable[Sequence[str]]) -> dict[str, float]:
    """How often each topic was asked: a question of several of the pool's topics counts
    a part for each."""
    counts = dict.fromkeys(pool, 0.0)
    for tags in asked_tags:
        mine = [tag for tag in tags if tag in counts]
        for tag in mine:
            counts[tag] += 1 / len(mine)
    return counts


def next_topic(
    pool: Sequence[str],
    totals: Mapping[str, tuple[int, int]],
    asked_tags: Iterable[Sequence[str]],
    rng: random.Random,
) -> str:
    """The topic furthest behind its share, counting the pick about to be made."""
    share = weights(pool, totals)
    asked = asked_counts(pool, asked_tags)
    n = sum(asked.values()) + 1
    deficit = {t: share[t] * n - asked[t] for t in pool}
    most = max(deficit.values())
    behind = sorted(t for t in pool if most - deficit[t] < 1e-9)
    return behind[rng.randrange(len(behind))]
