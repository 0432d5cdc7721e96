"""Benchmark: instructions from spawn to ready, under valgrind's callgrind, against the bare apps.

Wall-clock start-up swings by 2x when other work loads the machine; instruction counts barely
move, so they tell whether a change made a start cheaper. Each target runs under `valgrind
--tool=callgrind`; at its moment (Slack: `HTTP mode on` logged, its port accepting; Discord: the
first `/zeroquiz help` answered) `callgrind_control -d` dumps the counts so far, and the first
dump's total is its figure. Targets as in tests/bench/startup_bench.py: `zeroquiz serve` in
Slack's HTTP mode on the fake Web API against tests/bench/bare_bolt.py, and on the fake Discord
against tests/bench/bare_discord.py. Each serve runs once first (its database, its caches: what a
restart meets), then is counted. Needs valgrind; not a test: prints figures, exits 0.

Run: .venv/bin/python tests/bench/startup_instructions.py [--root A --root B] [--only slack,discord]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(HERE)]

import discord_load  # noqa: E402
from loadkit import BOT_TOKEN, SECRET, Child, FakeApi, child_env  # noqa: E402

SLOW = 600.0  # seconds: valgrind runs Python ~50x slower


def valgrind(out: Path) -> list[str]:
    return ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}.%p", "-q"]


def dumped(out: Path, pid: int) -> int:
    """Dump the counts of `pid` so far; the total of that first dump."""
    subprocess.run(["callgrind_control", "-d", str(pid)], check=True, capture_output=True)
    first = Path(f"{out}.{pid}.1")
    for line in first.read_text(errors="replace").splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise RuntimeError(f"no total in {first}")


def valgrind_pid(child: Child) -> int:
    return child.proc.pid  # valgrind execs the target in place: same pid


async def slack(label: str, cmd: list[str], root: Path, tmp: Path, fake: FakeApi) -> int:
    env = child_env(
        SLACK_BOT_TOKEN=BOT_TOKEN, SLACK_SIGNING_SECRET=SECRET, SLACK_API_URL=fake.api_url,
        HOME=str(tmp), XDG_CACHE_HOME=str(tmp / "cache"), PYTHONPATH=str(root),
    )  # fmt: skip
    out = tmp / f"cg-slack-{label}"
    child = await Child.start(label, [*valgrind(out), *cmd], env, str(root), SLOW)
    try:
        return dumped(out, valgrind_pid(child))
    finally:
        await child.stop(SLOW)


async def discord(label: str, root: Path, tmp: Path, fake: discord_load.BenchDiscord) -> int:
    out = tmp / f"cg-discord-{label}"
    name = "bare" if label == "bare" else "serve"
    real = asyncio.create_subprocess_exec

    async def under_valgrind(*args: str, **kw: object) -> asyncio.subprocess.Process:
        return await real(*valgrind(out), *args, **kw)  # type: ignore[arg-type]

    asyncio.create_subprocess_exec = under_valgrind  # type: ignore[assignment]  # as discord_load.start
    try:
        identified = fake.identifies
        child = await discord_load.start(name, fake, tmp / f"{label}.sqlite3", None, root)
    finally:
        asyncio.create_subprocess_exec = real
    try:
        await discord_load.first_answer(fake, child, identified, discord_load.mono())
        return dumped(out, child.proc.pid)
    finally:
        await child.stop(SLOW)


async def run(args: argparse.Namespace) -> None:
    roots = [r.resolve() for r in args.root] or [ROOT]
    only = set(args.only.split(","))
    discord_load.STARTUP_SECONDS = SLOW
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
    for root in roots:  # byte-compiled as an installed copy is
        folders = [str(root / name) for name in ("bot", "adapters", "questions")]
        subprocess.run([sys.executable, "-m", "compileall", "-q", *folders], check=True)
    print(f"load average before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="zq-instr-") as name:
        tmp = Path(name)
        if "slack" in only:
            fake = FakeApi()
            await fake.start()
            try:
                bare = await slack("bare", [sys.executable, str(HERE / "bare_bolt.py")], ROOT,
                                   tmp, fake)  # fmt: skip
                print(f"slack bare Bolt: {bare / 1e6:,.0f} M instructions to port accepting")
                for n, root in enumerate(roots):
                    db = str(tmp / f"slack{n}.sqlite3")
                    cmd = [sys.executable, "-m", "adapters.cli", "serve", "--db", db, "--port", "0"]
                    await slack(f"warm{n}", cmd, root, tmp, fake)
                    got = await slack(f"serve{n}", cmd, root, tmp, fake)
                    print(f"slack serve, {root.name}: {got / 1e6:,.0f} M, {got / bare:.2f}x")
            finally:
                await fake.stop()
        if "discord" in only:
            os.environ["HOME"] = str(tmp)
            os.environ["XDG_CACHE_HOME"] = str(tmp / "cache")
            dfake = discord_load.BenchDiscord()
            await dfake.start()
            try:
                results: list[tuple[str, int]] = []
                for n, root in enumerate(roots):
                    await discord(f"dwarm{n}", root, tmp, dfake)
                    results.append((root.name, await discord(f"d{n}", root, tmp, dfake)))
                bare = await discord("bare", ROOT, tmp, dfake)
                print(f"discord bare discord.py: {bare / 1e6:,.0f} M instructions to first answer")
                for where, got in results:
                    print(f"discord serve, {where}: {got / 1e6:,.0f} M, {got / bare:.2f}x")
            finally:
                await dfake.stop()
    print(f"load average after: {os.getloadavg()}")


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument(
        "--root",
        type=Path,
        action="append",
        default=[],
        help="a ZeroQuiz checkout to start (repeat to compare; default: this one)",
    )
    p.add_argument("--only", default="slack,discord", help="slack,discord (default)")
    asyncio.run(run(p.parse_args(argv)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
