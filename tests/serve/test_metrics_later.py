"""The metrics registry is made after start-up, and nothing counted before it is lost."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from adapters import metrics as metrics_module
from adapters.metrics import Metrics
from bot.views import Feedback

ROOT = Path(__file__).resolve().parents[2]


def samples(m: Metrics) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    body, content_type = m.render()
    assert content_type.startswith("text/plain")
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(body.decode())
        for s in family.samples
    }


async def test_counts_before_the_registry_are_replayed_into_it() -> None:
    m = Metrics()
    m.observe_db("write", 0.002)
    m.count_limited("person_commands")
    m.observe_lag(0.03)

    async def verdict() -> Feedback:
        return Feedback(status="correct", lang="en", headline="Correct")

    await m.answer("slack", verdict)
    assert not m.loaded
    got = samples(m)  # a scrape makes the registry
    assert m.loaded
    assert got[("zeroquiz_clicks_total", (("platform", "slack"),))] == 1
    key = ("zeroquiz_answers_recorded_total", (("platform", "slack"), ("verdict", "correct")))
    assert got[key] == 1
    assert got[("zeroquiz_db_seconds_count", (("kind", "write"),))] == 1
    assert got[("zeroquiz_limited_total", (("limit", "person_commands"),))] == 1
    assert got[("zeroquiz_scheduler_lag_seconds_count", ())] == 1
    await m.answer("slack", verdict)  # and after it, straight into the registry
    assert samples(m)[("zeroquiz_clicks_total", (("platform", "slack"),))] == 2


def test_a_long_wait_makes_the_registry() -> None:
    m = Metrics()
    for _ in range(metrics_module.PENDING_MAX):
        m.observe_lag(0.01)
    assert m.loaded  # the kept counts stay bounded
    assert samples(m)[("zeroquiz_scheduler_lag_seconds_count", ())] == metrics_module.PENDING_MAX


def test_serve_path_imports_no_prometheus_client() -> None:
    code = (
        "import sys\n"
        "import adapters.cli, adapters.serve, adapters.slack.surface, adapters.discord.surface\n"
        "sys.exit('prometheus_client' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
