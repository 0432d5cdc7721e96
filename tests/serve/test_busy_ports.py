"""A port another program holds stops `zeroquiz serve` with one line naming the setting, and exit
78, instead of a traceback: Slack's HTTP port and the metrics port, each taken before start."""

from __future__ import annotations

import asyncio
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_slack import FakeSlack
from serve_process import ROOT, slack_env

from adapters.exitcodes import EX_CONFIG


@pytest.fixture
def taken() -> Iterator[int]:
    """A port of 127.0.0.1 some other program listens on."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield int(holder.getsockname()[1])


async def serve_until_exit(env: dict[str, str], db: Path, *args: str) -> tuple[int, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "adapters.cli", "serve", "--db", str(db), *args,
        env=env | {"PYTHONPATH": str(ROOT)}, cwd=ROOT,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode is not None
    return proc.returncode, err.decode()


async def test_slacks_http_port_taken_is_one_line_and_78(
    fake: FakeSlack, tmp_path: Path, taken: int
) -> None:
    code, err = await serve_until_exit(
        slack_env(fake), tmp_path / "q.sqlite3", "--host", "127.0.0.1", "--port", str(taken)
    )
    assert code == EX_CONFIG, err
    assert "Traceback" not in err, err
    line = [x for x in err.splitlines() if x.startswith("zeroquiz: ")]
    assert line == [f"zeroquiz: slack: cannot listen on 127.0.0.1:{taken} (ZEROQUIZ_HTTP_PORT, "
                    "--port): address already in use"], err  # fmt: skip


async def test_the_metrics_port_taken_is_one_line_and_78(
    fake: FakeSlack, tmp_path: Path, taken: int
) -> None:
    env = slack_env(fake) | {"ZEROQUIZ_METRICS_PORT": str(taken)}
    code, err = await serve_until_exit(env, tmp_path / "q.sqlite3", "--port", "0")
    assert code == EX_CONFIG, err
    assert "Traceback" not in err, err
    line = [x for x in err.splitlines() if x.startswith("zeroquiz: ")]
    assert line == [
        "zeroquiz: cannot serve metrics on ZEROQUIZ_METRICS_PORT: Address already in use"
    ]
