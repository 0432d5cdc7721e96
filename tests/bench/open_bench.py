"""Benchmark: `Store.open` on a new database and on an existing one, SQLite and PostgreSQL.

A new database is what the load benches (tests/bench/slack_load.py, discord_load.py) and a first
deployment start on: it gets the whole schema first, an existing one only its checks. Each --root
(a checkout, e.g. a `git archive` of main) runs in a child process of its own, in alternating
rounds; each round opens OPENS new databases, closing each and opening it again (the existing
case). SQLite files are on the temporary folder's disk; PostgreSQL is a server of the bench's own
(tests/pg_server.py) that keeps its syncs (`durable`, as a deployment's). Prints medians (ms).
Run: .venv/bin/python tests/bench/open_bench.py [--opens 20 --rounds 3 --root A --root B]
     [--only sqlite,postgres]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

CHILD = """
import asyncio, itertools, json, os, sys, tempfile, time
from pathlib import Path
import asyncpg
from bot.storage import Store

async def main(backend, opens, server):
    new, existing = [], []
    with tempfile.TemporaryDirectory(prefix="zq-open-") as tmp:
        for n in range(opens):
            target = str(Path(tmp) / f"{n}.sqlite3")
            if backend == "postgres":
                name = f"zq_open_{os.getpid()}_{n}"
                admin = await asyncpg.connect(server)
                await admin.execute(f'CREATE DATABASE "{name}" STRATEGY FILE_COPY')
                await admin.close()
                target = server.rsplit("/", 1)[0] + "/" + name
            for times in (new, existing):
                started = time.perf_counter()
                store = await Store.open(target)
                times.append((time.perf_counter() - started) * 1000)
                await store.close()
    print(json.dumps([new, existing]))

asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3]))
"""


def one(root: Path, backend: str, opens: int, server: str) -> list[list[float]]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, backend, str(opens), server],
        cwd=root,
        env=os.environ | {"PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    times: list[list[float]] = json.loads(out)
    return times


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--opens", type=int, default=20, help="databases per round (default 20)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--root", type=Path, action="append", default=None)
    p.add_argument("--only", default="sqlite,postgres")
    args = p.parse_args()
    roots: list[Path] = [r.resolve() for r in args.root or [ROOT]]
    print(f"load average {os.getloadavg()}; {args.opens} databases per round and root")
    for backend in args.only.split(","):
        server = ""
        if backend == "postgres":
            from pg_server import start_server

            work = Path(tempfile.mkdtemp(prefix="zq-open-pg-"))
            os.chmod(work, 0o755)  # the server may run as `nobody` (pg_server.py)
            pg = start_server(work, durable=True)
            server = pg.url("postgres")
        try:
            got: dict[Path, list[list[float]]] = {r: [[], []] for r in roots}
            for i in range(args.rounds):
                for root in roots if i % 2 == 0 else roots[::-1]:
                    new, existing = one(root, backend, args.opens, server)
                    got[root][0] += new
                    got[root][1] += existing
        finally:
            if backend == "postgres":
                pg.stop()
                subprocess.run(["rm", "-rf", "--", str(work)], check=False)
        for root, (new, existing) in got.items():
            print(
                f"{backend} {root}: new {statistics.median(new):.1f} ms "
                f"(p90 {sorted(new)[int(0.9 * (len(new) - 1))]:.1f}), "
                f"existing {statistics.median(existing):.1f} ms "
                f"(p90 {sorted(existing)[int(0.9 * (len(existing) - 1))]:.1f})"
            )
    print(f"load average at the end {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
