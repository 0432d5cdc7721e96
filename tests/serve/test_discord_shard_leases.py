"""Real `zeroquiz serve` processes with one bot token on one database: a second one on the same
shards refuses to start, in one line, before it touches the gateway; a clean stop or a crash
(the holder gone, on this machine) frees the shards for the next."""

from __future__ import annotations

import signal
from pathlib import Path

from fake_discord import FakeDiscord
from serve_process import Serve, discord_env, discord_ready, start_serve

from adapters.exitcodes import EX_TEMPFAIL


def problem_lines(serve: Serve) -> list[str]:
    return [line for line in serve.text.splitlines() if line.startswith("zeroquiz:")]


async def test_a_second_serve_on_the_same_shards_refuses_until_the_first_stops(
    fake_discord: FakeDiscord, tmp_path: Path, serves: list[Serve]
) -> None:
    fake = fake_discord
    db = tmp_path / "shards.sqlite3"
    first = await start_serve(serves, db, discord_env(fake))
    await discord_ready(fake, first, identifies=1)

    second = await start_serve(serves, db, discord_env(fake))
    # 75, "restart me": the shards are free again once the first stops (a replica takes over).
    assert await second.exited() == EX_TEMPFAIL
    [line] = problem_lines(second)
    assert line.startswith("zeroquiz: discord: the Discord shards this process would run"), line
    taken = "(all shards) are taken by another process with the same bot token: all shards by"
    assert taken in line, line
    assert f"pid {first.proc.pid} " in line
    assert "DISCORD_SHARD_COUNT" in line and "DISCORD_SHARD_IDS" in line
    assert "Traceback" not in second.text and fake.token not in second.text
    assert fake.identifies == 1  # it never identified
    reply = await fake.reply_to(await fake.slash("help"), timeout=10)  # the first still answers
    assert "/zeroquiz question" in reply["embeds"][0]["description"]

    assert await first.terminate() == 0
    third = await start_serve(serves, db, discord_env(fake))
    await discord_ready(fake, third, identifies=2)
    assert "took over" not in third.text  # the first had given its shards up
    assert await third.terminate() == 0


async def test_after_a_crash_the_next_serve_takes_the_shards_over_at_once(
    fake_discord: FakeDiscord, tmp_path: Path, serves: list[Serve]
) -> None:
    fake = fake_discord
    db = tmp_path / "shards.sqlite3"
    env = discord_env(fake) | {"DISCORD_SHARD_COUNT": "1"}
    first = await start_serve(serves, db, env)
    await discord_ready(fake, first, identifies=1)
    assert await first.kill() == -signal.SIGKILL  # its lease stays behind, unexpired

    second = await start_serve(serves, db, env)
    await discord_ready(fake, second, identifies=2)
    assert "took over the shards of " in second.text
    assert f"pid {first.proc.pid}, which has ended" in second.text
    reply = await fake.reply_to(await fake.slash("help"), timeout=10)
    assert "/zeroquiz question" in reply["embeds"][0]["description"]
    assert await second.terminate() == 0
