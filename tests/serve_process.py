"""`zeroquiz serve` as a child process, the way an admin runs it, for end-to-end tests."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ZEROQUIZ = str(Path(sys.executable).parent / "zeroquiz")


class ServeProcess:
    """`zeroquiz serve` as a child process: waits for Slack's HTTP address, keeps its log."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.log = b""

    @classmethod
    async def start(cls, *args: str, env: dict[str, str]) -> tuple[ServeProcess, str]:
        proc = await asyncio.create_subprocess_exec(
            *args, env=env, cwd=ROOT, stderr=asyncio.subprocess.PIPE
        )
        serve = cls(proc)
        assert proc.stderr is not None
        while True:
            line = await asyncio.wait_for(proc.stderr.readline(), 30)
            assert line, serve.log.decode()
            serve.log += line
            if found := re.search(rb"HTTP mode on (http://\S+)", line):
                return serve, found.group(1).decode()

    async def terminate(self) -> int:
        """SIGTERM, then the exit code once the process has finished on its own."""
        assert self.proc.stderr is not None
        self.proc.send_signal(signal.SIGTERM)
        self.log += await asyncio.wait_for(self.proc.stderr.read(), 30)
        return await self.proc.wait()


def clean_env() -> dict[str, str]:
    """This process's environment without any ZeroQuiz or platform settings."""
    prefixes = ("SLACK_", "DISCORD_", "ZEROQUIZ_")
    return {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}
