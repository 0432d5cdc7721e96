"""Run as a separate process by test_restart: opens rounds, answers, then waits to be SIGKILLed."""

from __future__ import annotations

import asyncio
import random
import sys
from datetime import datetime, timedelta

from helpers import RecordingPort

from bot.app import build_quiz
from bot.bank import load_bank
from bot.clock import FakeClock
from bot.model import ChannelRef, UserRef
from bot.storage import Store


async def main(db_path: str, start: str) -> None:
    db = await Store.open(db_path)
    quiz = build_quiz(db, load_bank(), FakeClock(datetime.fromisoformat(start)), random.Random(1))
    quiz.add_port(RecordingPort())  # as a running bot has: its questions are posted
    short = await quiz.rounds.start_round(
        ChannelRef("test", "T1", "C1"), window=timedelta(minutes=1)
    )
    long = await quiz.rounds.start_round(ChannelRef("test", "T1", "C2"), window=timedelta(hours=2))
    assert short and long
    for n in range(3):
        await quiz.rounds.answer(short.round_id, UserRef("test", "T1", f"U{n}"), n % 2)
    print(short.round_id, long.round_id, flush=True)
    await asyncio.Event().wait()  # killed here, mid-round, with the connection still open


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
