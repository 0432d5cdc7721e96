"""Benchmark: start-up of `zeroquiz play` and `zeroquiz serve`, against baselines in the same run.

Every figure is a real child process timed from spawn, in interleaved rounds (each round runs
every command once, in turn), reported as median and p90 over the rounds:

- play: the console script (`ROOT/.venv/bin/zeroquiz` when ROOT has one, else `python -m
  adapters.cli` on ROOT) `play --count 1` with stdin a pipe, timed until its first question has
  been printed (the answer prompt after the options); then it is answered and left to finish.
  Once on a database and cache that earlier runs made ("warm": what a returning player meets) and
  once on a new database with an empty cache directory ("cold": the first start), against
  `python -c pass` and `python -c 'import asyncio, sqlite3'` (the least a player on SQLite pays).
- slack: `zeroquiz serve` in Slack's HTTP mode on the bench's fake Slack Web API
  (tests/bench/loadkit.py), spawn to `HTTP mode on` logged (its port is accepting then), against
  the bare Bolt app (tests/bench/bare_bolt.py) the same way.
- discord: `zeroquiz serve` on the test fake Discord, spawn to the first `/zeroquiz help`
  answered, against the bare discord.py client (tests/bench/bare_discord.py), with
  tests/bench/discord_load.py's own start-up measure.

With --new-db, each serve above is also started on a new database every time ("new db": what
tests/bench/discord_load.py and slack_load.py do each round, and a first deployment), beside the
one on a database earlier starts made, in the same rounds and against the same baselines.

Several --root checkouts can be compared in one run (e.g. the branch and a `git worktree` of
main), each with its own ratios to the same baselines. HOME and XDG_CACHE_HOME point into a
temporary folder so no cache of the user's is read; each checkout is byte-compiled first, as an
installed copy is. Not a test: prints figures, exits 0.

Run: .venv/bin/python tests/bench/startup_bench.py [--runs 15] [--root A --root B]
     [--only play,slack,discord] [--new-db]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(HERE)]

import discord_load  # noqa: E402
from loadkit import BOT_TOKEN, SECRET, Child, FakeApi, child_env  # noqa: E402

PROMPT = b"Your answer ("  # printed after the question and its options (en)
TIMEOUT = 60.0
now = time.perf_counter


@dataclass
class Target:
    """One thing to start: `run` spawns it once and returns seconds to the moment that counts."""

    label: str
    run: Callable[[], Awaitable[float]]
    baseline: str | None = None  # the label this one is divided by


async def spawn_until(cmd: list[str], env: dict[str, str], cwd: str, marker: bytes | None) -> float:
    """Seconds from spawn until `marker` is on stdout (None: until it exits 0)."""
    started = now()
    proc = await asyncio.create_subprocess_exec(
        *cmd, env=env, cwd=cwd, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stdin is not None
    seen = b""
    took = float("nan")
    try:
        if marker is None:
            await asyncio.wait_for(proc.wait(), TIMEOUT)
            took = now() - started
        else:
            while marker not in seen:
                chunk = await asyncio.wait_for(proc.stdout.read(65536), TIMEOUT)
                if not chunk:
                    break
                seen += chunk
            took = now() - started
            proc.stdin.write(b"a\n")  # answer it, so the run ends as a player's would
            proc.stdin.close()
        out, err = await asyncio.wait_for(proc.communicate(), TIMEOUT)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    if proc.returncode != 0 or (marker is not None and marker not in seen + out):
        raise RuntimeError(f"{cmd[:3]} exited {proc.returncode}: {err.decode()[-500:]}")
    return took


def console_script(root: Path) -> list[str]:
    script = root / ".venv" / "bin" / "zeroquiz"
    return [str(script)] if script.exists() else [sys.executable, "-m", "adapters.cli"]


def play_targets(roots: list[Path], tmp: Path) -> list[Target]:
    base_env = child_env()
    targets = [
        Target("python -c pass", lambda: spawn_until(
            [sys.executable, "-c", "pass"], base_env, str(tmp), None)),
        Target("python -c 'import asyncio, sqlite3'", lambda: spawn_until(
            [sys.executable, "-c", "import asyncio, sqlite3"], base_env, str(tmp), None)),
    ]  # fmt: skip
    for n, root in enumerate(roots):
        home = tmp / f"home{n}"
        home.mkdir()
        warm_env = child_env(
            HOME=str(home), XDG_CACHE_HOME=str(home / "cache"), PYTHONPATH=str(root)
        )
        db = str(home / "play.sqlite3")
        cmd = [*console_script(root), "play", "--count", "1"]

        async def warm(cmd: list[str] = cmd, env: dict[str, str] = warm_env, db: str = db) -> float:
            return await spawn_until([*cmd, "--db", db], env, str(tmp), PROMPT)

        async def fresh(cmd: list[str] = cmd, home: Path = home, root: Path = root) -> float:
            where = Path(tempfile.mkdtemp(dir=home, prefix="cold"))
            env = child_env(
                HOME=str(where), XDG_CACHE_HOME=str(where / "cache"), PYTHONPATH=str(root)
            )
            return await spawn_until(
                [*cmd, "--db", str(where / "new.sqlite3")], env, str(tmp), PROMPT
            )

        targets.append(Target(f"play warm, {label(root)}", warm, "python -c pass"))
        targets.append(Target(f"play cold, {label(root)}", fresh, "python -c pass"))
    return targets


def label(root: Path) -> str:
    return root.name


def databases(tmp: Path, name: str, new_db: bool) -> list[tuple[str, Callable[[], Path]]]:
    """(label suffix, the database a start gets): the same file every time, and with `new_db`
    also a new file every time."""
    same = tmp / f"{name}.sqlite3"
    fresh = (tmp / f"{name}-new{k}.sqlite3" for k in itertools.count())
    return [("", lambda: same)] + ([(" new db", lambda: next(fresh))] if new_db else [])


async def slack_targets(
    roots: list[Path], tmp: Path, fake: FakeApi, new_db: bool = False
) -> list[Target]:
    env = child_env(
        SLACK_BOT_TOKEN=BOT_TOKEN, SLACK_SIGNING_SECRET=SECRET, SLACK_API_URL=fake.api_url,
        HOME=str(tmp), XDG_CACHE_HOME=str(tmp / "cache"),
    )  # fmt: skip

    async def until_listening(name: str, cmd: list[str], root: Path) -> float:
        started = now()
        child = await Child.start(name, cmd, env | {"PYTHONPATH": str(root)}, str(root), TIMEOUT)
        took = now() - started
        code, _ = await child.stop(30)
        if code not in (0, -15):  # bare_bolt.py may take SIGTERM before its handler is set
            raise RuntimeError(f"{name} exited {code}: {list(child.tail)[-5:]}")
        return took

    targets = [
        Target("slack bare Bolt", lambda: until_listening(
            "bare", [sys.executable, str(HERE / "bare_bolt.py")], ROOT)),
    ]  # fmt: skip
    for n, root in enumerate(roots):
        for suffix, db in databases(tmp, f"slack{n}", new_db):
            cmd = [sys.executable, "-m", "adapters.cli", "serve", "--port", "0", "--db"]
            targets.append(Target(
                f"slack serve{suffix}, {label(root)}",
                lambda cmd=cmd, root=root, db=db: until_listening(  # type: ignore[misc]
                    "serve", [*cmd, str(db())], root),
                "slack bare Bolt",
            ))  # fmt: skip
    return targets


def discord_targets(
    roots: list[Path], tmp: Path, fake: discord_load.BenchDiscord, new_db: bool = False
) -> list[Target]:
    os.environ["HOME"] = str(tmp)  # discord_load's children take this process's environment
    os.environ["XDG_CACHE_HOME"] = str(tmp / "cache")

    async def until_answered(name: str, root: Path, db: Path) -> float:
        spawned = discord_load.mono()
        identified = fake.identifies
        child = await discord_load.start(name, fake, db, None, root)
        try:
            return await discord_load.first_answer(fake, child, identified, spawned)
        finally:
            await child.stop(30)

    targets: list[Target] = []
    for n, root in enumerate(roots):
        for suffix, db in databases(tmp, f"discord{n}", new_db):
            targets.append(Target(
                f"discord serve{suffix}, {label(root)}",
                lambda root=root, db=db: until_answered("serve", root, db()),  # type: ignore[misc]
                "discord bare discord.py",
            ))  # fmt: skip
    # After a serve: the fake only knows the commands once a serve synced them.
    targets.append(Target(
        "discord bare discord.py", lambda: until_answered("bare", ROOT, tmp / "bare.sqlite3")
    ))  # fmt: skip
    return targets


async def measure(targets: list[Target], runs: int) -> dict[str, list[float]]:
    """One warm-up start each (it makes the database and cache), then `runs` interleaved rounds,
    the order reversed every other round."""
    times: dict[str, list[float]] = {t.label: [] for t in targets}
    for target in targets:
        if not target.label.startswith("play cold"):
            await target.run()
    for i in range(runs):
        for target in targets if i % 2 == 0 else targets[::-1]:
            times[target.label].append(await target.run())
        print(f"  round {i + 1}/{runs}", file=sys.stderr, flush=True)
    return times


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


def report(title: str, targets: list[Target], times: dict[str, list[float]]) -> None:
    print(f"\n{title}")
    print(f"  {'':48} {'median':>9} {'p90':>9}  ratio of medians")
    for target in targets:
        got = times[target.label]
        med = statistics.median(got)
        ratio = ""
        if target.baseline is not None:
            ratio = f"{med / statistics.median(times[target.baseline]):.2f}x {target.baseline}"
        print(f"  {target.label:48} {med * 1000:7.0f}ms {p90(got) * 1000:7.0f}ms  {ratio}")


def compile_roots(roots: list[Path]) -> None:
    """Byte-compile each checkout's code as pip does for an installed copy: the children import it
    from the checkout (PYTHONPATH), and this environment may say not to write bytecode."""
    for root in roots:
        folders = [str(root / name) for name in ("bot", "adapters", "questions")]
        subprocess.run([sys.executable, "-m", "compileall", "-q", *folders], check=True)


async def run(args: argparse.Namespace) -> None:
    roots = [r.resolve() for r in args.root] or [ROOT]
    compile_roots(roots)
    only = set(args.only.split(","))
    print(f"load average before: {os.getloadavg()}; {os.cpu_count()} CPUs, shared")
    with tempfile.TemporaryDirectory(prefix="zq-startup-") as name:
        tmp = Path(name)
        if "play" in only:
            targets = play_targets(roots, tmp)
            report("play: spawn to first question", targets, await measure(targets, args.runs))
        if "slack" in only:
            fake = FakeApi()
            await fake.start()
            try:
                targets = await slack_targets(roots, tmp, fake, args.new_db)
                times = await measure(targets, args.runs)
            finally:
                await fake.stop()
            report("slack: spawn to port accepting", targets, times)
        if "discord" in only:
            dfake = discord_load.BenchDiscord()
            await dfake.start()
            try:
                targets = discord_targets(roots, tmp, dfake, args.new_db)
                times = await measure(targets, args.runs)
            finally:
                await dfake.stop()
            report("discord: spawn to first command answered", targets, times)
    print(f"\nload average after: {os.getloadavg()}")


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=15, help="interleaved rounds (default 15)")
    p.add_argument(
        "--root", type=Path, action="append", default=[],
        help="a ZeroQuiz checkout to start (repeat to compare; default: this one)",
    )  # fmt: skip
    p.add_argument("--only", default="play,slack,discord", help="play,slack,discord (default)")
    p.add_argument(
        "--new-db", action="store_true",
        help="also start each serve on a new database every time (as the load benches do)",
    )  # fmt: skip
    asyncio.run(run(p.parse_args(argv)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
