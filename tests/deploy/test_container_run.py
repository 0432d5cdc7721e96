"""The image's own command, run with the image's own environment, reached where compose maps it.

No container engine runs here, so the next best thing: `ENTRYPOINT` + `CMD` from deploy/Dockerfile
as a real child process, with exactly the final stage's `ENV` (only the paths moved: the
virtualenv's bin for /opt/zeroquiz/bin, a temporary directory for the /data volume, and a free
port for 9100 so parallel runs don't collide), against the fake Discord. The health and metrics
must then answer on the host address compose publishes, the server must listen on every interface
(inside a container 127.0.0.1 is reached by nothing outside it), and the image's HEALTHCHECK
command must pass against it. As root, where the interpreter is reachable by others, the child
runs as the image's uid and gid too.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import aiohttp
import yaml
from fake_discord import FakeDiscord
from test_container import COMPOSE, DOCKERFILE, Instruction, env_of, final_stage, instructions

BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def image() -> tuple[list[str], dict[str, str], str]:
    """(entrypoint + cmd, ENV, USER) of the final stage."""
    stage = final_stage(instructions(DOCKERFILE.read_text()))
    (entry,) = [i for i in stage if i.keyword == "ENTRYPOINT"]
    (cmd,) = [i for i in stage if i.keyword == "CMD"]
    user = [i.args for i in stage if i.keyword == "USER"][-1]
    return [*entry.exec_form(), *cmd.exec_form()], env_of(stage), user


def metrics_mapping() -> tuple[str, int]:
    """(host address, container port) of compose's mapping for the metrics port."""
    _, env, _ = image()
    service = yaml.safe_load(COMPOSE.read_text())["services"]["zeroquiz"]
    for entry in service["ports"]:
        parts = str(entry).split(":")
        if parts[-1] == env["ZEROQUIZ_METRICS_PORT"]:
            host = parts[0] if len(parts) == 3 else "0.0.0.0"
            return host, int(parts[-1])
    raise AssertionError("compose publishes no port for ZEROQUIZ_METRICS_PORT")


def test_compose_publishes_the_ports_the_image_listens_on_everywhere() -> None:
    _, env, _ = image()
    assert env["ZEROQUIZ_METRICS_HOST"] == "0.0.0.0"  # else the mapping reaches nothing
    assert env["ZEROQUIZ_HTTP_HOST"] == "0.0.0.0"
    service = yaml.safe_load(COMPOSE.read_text())["services"]["zeroquiz"]
    published = {str(p).split(":")[-1] for p in service["ports"]}
    assert published == {env["ZEROQUIZ_HTTP_PORT"], env["ZEROQUIZ_METRICS_PORT"]}
    host, port = metrics_mapping()
    assert host == "127.0.0.1" and port == int(env["ZEROQUIZ_METRICS_PORT"])


def _reachable_by(uid: int) -> bool:
    """Whether uid `uid` could run this interpreter (every directory up to it open to others)."""
    real = Path(os.path.realpath(sys.executable))
    return all(os.stat(p).st_mode & 0o005 == 0o005 for p in (real.parent, *real.parents)) and all(
        os.stat(p).st_mode & 0o005 == 0o005 for p in (BIN, *BIN.parents)
    )


def child_env(env: dict[str, str], data: Path, port: int) -> dict[str, str]:
    out = dict(env)
    out["PATH"] = (
        env["PATH"].replace("/opt/zeroquiz/bin", str(BIN)).replace("$PATH", "/usr/bin:/bin")
    )
    out["ZEROQUIZ_DB"] = env["ZEROQUIZ_DB"].replace("/data", str(data), 1)
    out["ZEROQUIZ_METRICS_PORT"] = str(port)
    out["HOME"] = str(data)  # the image's user has /data as its home
    return out


async def _get(url: str) -> tuple[int, str]:
    async with (
        aiohttp.ClientSession() as http,
        http.get(url, timeout=aiohttp.ClientTimeout(5)) as r,
    ):
        return r.status, await r.text()


async def _wait_for_line(proc: asyncio.subprocess.Process, pattern: bytes, log: bytearray) -> bytes:
    assert proc.stderr is not None
    while True:
        line = await asyncio.wait_for(proc.stderr.readline(), 60)
        assert line, log.decode(errors="replace")
        log += line
        if found := re.search(pattern, line):
            return found.group(1)


async def test_the_image_command_serves_health_and_metrics_where_compose_maps_them(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    command, env, user = image()
    data = tmp_path / "data"
    data.mkdir()
    port = free_port()
    run_env = child_env(env, data, port) | fake_discord.env  # the --env-file's secrets
    uid, _, gid = user.partition(":")
    as_image_user: dict[str, Any] = {}
    if os.geteuid() == 0 and _reachable_by(int(uid)):
        os.chown(data, int(uid), int(gid or uid))
        as_image_user = {"user": int(uid), "group": int(gid or uid), "extra_groups": []}
    proc = await asyncio.create_subprocess_exec(
        *command, env=run_env, cwd=data, stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE, **as_image_user,
    )  # fmt: skip
    log = bytearray()
    try:
        bound = await _wait_for_line(proc, rb"health and metrics on http://(\S+)", log)
        assert bound.decode() == f"0.0.0.0:{port}", bound  # every interface, as in a container
        await _wait_for_line(proc, rb"(discord) adapter running", log)
        host, _ = metrics_mapping()
        status, body = await _get(f"http://{host}:{port}/healthz")
        assert (status, body) == (200, "ok\n")
        status, body = await _get(f"http://{host}:{port}/metrics")
        assert status == 200 and "zeroquiz_clicks_total" in body
        check = [
            i
            for i in final_stage(instructions(DOCKERFILE.read_text()))
            if i.keyword == "HEALTHCHECK"
        ]
        probe = Instruction("CMD", check[0].args.partition(" CMD ")[2]).exec_form()
        assert probe[0] == "python"
        done = await asyncio.to_thread(
            subprocess.run, [sys.executable, *probe[1:]], env=run_env, capture_output=True,
            timeout=30,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert (data / "zeroquiz.sqlite3").exists()  # the database on the volume
        if as_image_user:
            assert (data / "zeroquiz.sqlite3").stat().st_uid == int(uid)
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
        assert proc.stderr is not None
        log += await asyncio.wait_for(proc.stderr.read(), 30)
        code = await asyncio.wait_for(proc.wait(), 30)
    assert code == 0, log.decode(errors="replace")  # SIGTERM, the image's STOPSIGNAL: a clean stop
    assert b"Traceback" not in log
