"""Per-round option order derived from a stored seed.

Written as an explicit Fisher-Yates over `Random.random()`, whose output for a given seed Python
guarantees across versions, so a round's letters stay the same after an upgrade or a restart.
"""

import functools
import random


@functools.lru_cache(maxsize=4096)  # pure, and asked once per click: a burst shares one result
def permutation(seed: int, n: int) -> tuple[int, ...]:
    """display position -> index of the option in file order."""
    rng = random.Random(seed)
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        j = int(rng.random() * (i + 1))
        order[i], order[j] = order[j], order[i]
    return tuple(order)
