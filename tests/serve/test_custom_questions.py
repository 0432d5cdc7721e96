"""The team's own questions in `zeroquiz serve`: --questions / ZEROQUIZ_QUESTIONS, --no-bundled.

A real child process against both fakes: with --no-bundled, the questions posted in Slack and in
Discord are the team's; a bad file stops the start with the lines `zeroquiz validate` prints.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path
from urllib.parse import urlencode

import aiohttp
import pytest
from fake_discord import FakeDiscord
from fake_slack import BOT_TOKEN, SECRET, FakeSlack, shown, signed_headers, slash_payload
from serve_process import ZEROQUIZ, ServeProcess, clean_env

from adapters.exitcodes import EX_CONFIG
from adapters.questions import serve_bank
from adapters.runtime import ConfigError
from bot.bank import BankError, load_bank

TEAM_FILE = """\
questions:
  - id: {qid}
    prompt:
      en: "{prompt}"
      id: "Di kanal mana jadwal piket tim berada?"
    options:
      - en: "#oncall-rota"
        id: "#oncall-rota"
        correct: true
      - en: "#random"
        id: "#random"
    explanation:
      en: "The rota is pinned in #oncall-rota."
      id: "Jadwal disematkan di #oncall-rota."
"""
PROMPT = "Which channel holds the team's on-call rota?"
CONFIG_ERROR = EX_CONFIG  # the exit code of serve's other start-up configuration errors


def team_file(folder: Path, name: str = "team.yaml", qid: str = "team-oncall") -> Path:
    path = folder / name
    path.write_text(TEAM_FILE.format(qid=qid, prompt=PROMPT), encoding="utf-8")
    return path


def test_custom_questions_are_added_to_the_bundled_bank(tmp_path: Path) -> None:
    bundled = len(load_bank())
    path = str(team_file(tmp_path))
    assert len(serve_bank([path], False, {})) == bundled + 1
    by_env = serve_bank(None, False, {"ZEROQUIZ_QUESTIONS": path})
    assert by_env.get("team-oncall") is not None and len(by_env) == bundled + 1


def test_no_bundled_serves_only_the_custom_ones(tmp_path: Path) -> None:
    one = team_file(tmp_path)
    (tmp_path / "b").mkdir()
    two = team_file(tmp_path / "b", qid="team-second")
    env = {"ZEROQUIZ_QUESTIONS": f"{one}{os.pathsep}{two.parent}", "ZEROQUIZ_NO_BUNDLED": "1"}
    assert sorted(q.id for q in serve_bank(None, False, env).questions) == [
        "team-oncall",
        "team-second",
    ]
    assert [q.id for q in serve_bank([str(one)], True, {}).questions] == ["team-oncall"]
    with pytest.raises(ConfigError, match="--questions"):
        serve_bank(None, True, {})


def test_an_id_already_bundled_is_reported_with_both_places(tmp_path: Path) -> None:
    path = team_file(tmp_path, qid="orig-01")
    with pytest.raises(BankError) as raised:
        serve_bank([str(path)], False, {})
    [problem] = raised.value.problems
    assert str(problem).startswith(f"{path}:2: duplicate id 'orig-01'")
    assert "00_original.yaml:3" in str(problem)


async def test_a_bad_custom_file_stops_serve_with_the_validate_lines(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        TEAM_FILE.format(qid="Bad Id", prompt=PROMPT).replace("correct: true", "correct: maybe")
    )
    env = clean_env() | {
        "ZEROQUIZ_DB": str(tmp_path / "q.sqlite3"),
        "SLACK_BOT_TOKEN": BOT_TOKEN,  # configured, but never reached: the bank comes first
        "SLACK_SIGNING_SECRET": SECRET,
        "SLACK_API_URL": "http://127.0.0.1:9/api",
    }
    proc = await asyncio.create_subprocess_exec(
        ZEROQUIZ, "serve", "--port", "0", "--questions", str(bad),
        env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == CONFIG_ERROR
    text = err.decode()
    assert "Traceback" not in text
    validated = subprocess.run(
        [ZEROQUIZ, "validate", str(bad)], capture_output=True, text=True, env=env, timeout=30
    )
    assert validated.returncode == 1
    problems = [line for line in validated.stderr.splitlines() if line.startswith(str(bad))]
    assert len(problems) >= 2  # the id and the `correct` value
    for line in problems:
        assert line.startswith(f"{bad}:") and line.split(":")[1].isdigit()
    assert [line for line in text.splitlines() if line.startswith(str(bad))] == problems
    # The environment variable is read the same way.
    proc = await asyncio.create_subprocess_exec(
        ZEROQUIZ, "serve", "--port", "0",
        env=env | {"ZEROQUIZ_QUESTIONS": str(bad)}, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == CONFIG_ERROR and problems[0] in err.decode()


async def test_only_the_teams_questions_are_asked_on_both_platforms(
    fake: FakeSlack, fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    path = team_file(tmp_path)
    env = clean_env() | fake_discord.env
    env |= {
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_SIGNING_SECRET": SECRET,
        "SLACK_API_URL": fake.api_url,
        "ZEROQUIZ_DB": str(tmp_path / "custom.sqlite3"),
        "ZEROQUIZ_QUESTIONS": str(path),
        "ZEROQUIZ_NO_BUNDLED": "1",
    }
    serve, url = await ServeProcess.start(ZEROQUIZ, "serve", "--port", "0", env=env)
    try:
        await fake_discord.wait_for(lambda: fake_discord.identifies == 1, timeout=30)
        body = urlencode(slash_payload("question", "U1", fake.response_url("custom")))
        async with (
            aiohttp.ClientSession() as http,
            http.post(url, data=body.encode(), headers=signed_headers(body)) as response,
        ):
            assert response.status == 200
        await fake.reply("custom")
        reply = await fake_discord.reply_to(await fake_discord.slash("question"), timeout=10)
        assert "Question posted." in reply["embeds"][0]["description"], serve.log.decode()
        [slack_post] = fake.calls_to("chat.postMessage")
        assert PROMPT in shown(slack_post.args["blocks"])
        [discord_post] = fake_discord.posted
        assert PROMPT in str(fake_discord.messages[discord_post]["embeds"])
    finally:
        code = await serve.terminate()
    assert code == 0, serve.log.decode()
