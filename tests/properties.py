"""Property tests against one running app, and the log checks they share.

Hypothesis runs its examples synchronously, while the app under test lives on the test's event
loop. So the @given function runs in a worker thread and hands each example to the test's loop
(`run_coroutine_threadsafe`), which goes on serving the app meanwhile: one app for all examples,
and Hypothesis still shrinks a failing one and prints it.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

T = TypeVar("T")
EXAMPLE_SECONDS = 30.0  # one example's bound, far above what one takes (a few milliseconds)

# Any JSON value, nested a few levels.
JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
JSON_VALUES: st.SearchStrategy[Any] = st.recursive(
    JSON_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)
# Digits that str.isdigit or \d accept and int() may or may not: "²", "٣", "５"...
UNICODE_DIGITS = st.text(st.characters(categories=["Nd", "No"]), min_size=1, max_size=6)
HUGE_NUMBERS = st.text("0123456789", min_size=19, max_size=5000)
NUMBER_LIKE = st.one_of(
    st.integers(0, 10**18).map(str), UNICODE_DIGITS, HUGE_NUMBERS, st.text(max_size=8)
)
ODD_STRINGS = st.one_of(
    st.tuples(NUMBER_LIKE, NUMBER_LIKE).map(":".join),
    NUMBER_LIKE,
    st.text(max_size=30),
)


async def run_examples(
    strategy: st.SearchStrategy[T],
    check: Callable[[T], Coroutine[Any, Any, None]],
    *,
    max_examples: int,
) -> None:
    """Check every example Hypothesis draws with `check`, on this loop."""
    loop = asyncio.get_running_loop()

    @settings(max_examples=max_examples)  # the rest from the loaded profile (tests/conftest.py)
    @given(strategy)
    def prop(example: T) -> None:
        asyncio.run_coroutine_threadsafe(check(example), loop).result(EXAMPLE_SECONDS)

    await asyncio.to_thread(prop)


def key_paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place inside a JSON value: dict keys and list indexes, outermost first."""
    found: list[tuple[Any, ...]] = []
    children = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, child in children:
        found.append((*prefix, key))
        found.extend(key_paths(child, (*prefix, key)))
    return found


@st.composite
def mutations(draw: st.DrawFn, base: dict[str, Any], odd: st.SearchStrategy[Any]) -> Any:
    """`base` with one to three changes: a key dropped, a value replaced by another JSON value
    or by an odd string (`odd`)."""
    value: Any = json.loads(json.dumps(base))
    for _ in range(draw(st.integers(1, 3))):
        paths = key_paths(value)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = value
        for key in path[:-1]:
            parent = parent[key]
        change = draw(st.sampled_from(["drop", "json", "odd"]))
        if change == "drop":
            del parent[path[-1]]
        else:
            parent[path[-1]] = draw(JSON_VALUES if change == "json" else odd)
    return value


def tracebacks(records: list[logging.LogRecord]) -> list[str]:
    """Log lines that carry a traceback or say ERROR: none may come from bad input."""
    return [
        f"{r.levelname} {r.name}: {r.getMessage()[:200]}"
        for r in records
        if r.exc_info or r.exc_text or r.levelno >= logging.ERROR
    ]


def assert_no_tracebacks(caplog: pytest.LogCaptureFixture) -> None:
    found = tracebacks(caplog.records)
    assert found == [], found
