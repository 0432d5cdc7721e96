"""Benchmark: how long a thread's SQLite transaction takes while the main thread runs Python,
by the GIL's switch interval.

The database's writer thread gives the GIL up around each SQLite call of a commit (BEGIN, ~10
statements, COMMIT) and must win it back each time from the event loop's thread; a thread that
holds the GIL keeps it until it blocks or the switch interval has passed (CPython's default:
5 ms). This runs such a transaction (a real file, WAL, synchronous=FULL, as ZeroQuiz's writer)
on a thread while the main thread runs Python without pause, TRIALS times per interval, in
alternating rounds, and prints the transaction's wall time (median, p90) for CPython's default
and for `zeroquiz serve`'s adapters.serve.SWITCH_INTERVAL. The event loop is seldom busy without
pause for long, so these are the worst case the interval bounds, not a click's latency (see
tests/bench/discord_load.py for those).
Run: .venv/bin/python tests/bench/gil_wait.py [--trials 20 --rounds 4 --statements 10]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT)]

from adapters.serve import SWITCH_INTERVAL  # noqa: E402

DEFAULT = 0.005  # CPython's
BUSY = 0.05  # seconds the main thread runs Python per trial


def transaction(conn: sqlite3.Connection, statements: int, out: list[float]) -> None:
    began = time.perf_counter()
    conn.execute("BEGIN IMMEDIATE").close()
    for n in range(statements):
        conn.execute("INSERT INTO t (v) VALUES (?)", (n,)).close()
    conn.execute("COMMIT").close()
    out.append(time.perf_counter() - began)


def trial(conn: sqlite3.Connection, statements: int, out: list[float]) -> None:
    writer = threading.Thread(target=transaction, args=(conn, statements, out))
    end = time.perf_counter() + BUSY
    writer.start()
    while time.perf_counter() < end:  # the loop's thread, busy
        pass
    writer.join()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--trials", type=int, default=20)
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--statements", type=int, default=10)
    args = p.parse_args()
    intervals = [DEFAULT, SWITCH_INTERVAL]
    got: dict[float, list[float]] = {s: [] for s in intervals}
    with tempfile.TemporaryDirectory(prefix="zq-gil-") as tmp:
        conn = sqlite3.connect(Path(tmp) / "t.sqlite3", isolation_level=None,
                               check_same_thread=False)  # fmt: skip
        conn.execute("PRAGMA journal_mode = WAL").close()
        conn.execute("PRAGMA synchronous = FULL").close()
        conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER)").close()
        for r in range(args.rounds):
            for s in intervals if r % 2 == 0 else intervals[::-1]:
                sys.setswitchinterval(s)
                for _ in range(args.trials):
                    trial(conn, args.statements, got[s])
        sys.setswitchinterval(DEFAULT)
        conn.close()
    load = os.getloadavg()[0]
    print(f"load average {load:.2f}; a transaction of {args.statements} INSERTs on a thread while "
          f"the main thread runs Python; {args.rounds * args.trials} per interval")  # fmt: skip
    for s, times in got.items():
        ordered = sorted(times)
        p90 = ordered[int(0.9 * (len(ordered) - 1))]
        print(f"switch interval {s * 1000:g} ms: transaction median "
              f"{statistics.median(times) * 1000:.2f} ms, p90 {p90 * 1000:.2f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
