"""The baseline for tests/bench/slack_load.py: a bare slack-bolt AsyncApp over HTTP, as a child.

Its answer-button handler does only `await ack()` then one ephemeral `respond()`: no database, no
users.info, no core. It is served like ZeroQuiz's HTTP mode (Bolt's aiohttp app at /slack/events,
an AppRunner and a TCPSite on 127.0.0.1, port 0), reads SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET and
SLACK_API_URL, logs `HTTP mode on http://...` on stderr once it listens, and stops on SIGTERM.
With BARE_RECORD=PATH it is the floor of "acknowledged means recorded" instead (floor.py): it
commits one row per click (the action's time and the user) before it acks.
Run by the bench: .venv/bin/python tests/bench/bare_bolt.py
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from typing import Any

from aiohttp import web
from floor import Recorder
from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

ANSWER_ACTION = re.compile(r"^zq_answer_[A-E]$")  # the same regex as ZeroQuiz's answer buttons


async def main() -> int:
    api_url = os.environ["SLACK_API_URL"].rstrip("/") + "/"
    client = AsyncWebClient(token=os.environ["SLACK_BOT_TOKEN"], base_url=api_url)
    app = AsyncApp(client=client, signing_secret=os.environ["SLACK_SIGNING_SECRET"], name="bare")
    recorder = Recorder(os.environ["BARE_RECORD"]) if os.environ.get("BARE_RECORD") else None

    @app.action(ANSWER_ACTION)
    async def on_answer(ack: AsyncAck, respond: AsyncRespond, body: dict[str, Any]) -> None:
        if recorder is not None:
            await recorder.record(str(body["actions"][0]["action_ts"]), str(body["user"]["id"]))
        await ack()
        await respond(text="Recorded.", response_type="ephemeral", replace_original=False)

    runner = web.AppRunner(app.web_app(path="/slack/events"), handle_signals=False, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    host, port = runner.addresses[0][:2]
    print(f"bare bolt: HTTP mode on http://{host}:{port}/slack/events", file=sys.stderr, flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await runner.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
