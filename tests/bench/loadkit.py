"""Parts of tests/bench/slack_load.py: a fake Slack Web API, child processes, a load generator.

Self-contained on purpose (only aiohttp and slack_sdk): the bench must keep working while the app
code it measures is being changed, so it imports nothing from bot/ or adapters/. The constants and
request shapes match tests/fake_slack.py.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import json
import math
import os
import re
import signal
import time
from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode

import aiohttp
from aiohttp import web
from slack_sdk.signature import SignatureVerifier

SECRET = "8f742231b10e8888abcd99a1b2c3d4e5"  # as in tests/fake_slack.py
BOT_TOKEN = "xoxb-zeroquiz-test"
TEAM = "T0TEAM"
CHANNEL = "C0QUIZ"
EVENTS_PATH = "/slack/events"

now = time.perf_counter  # one clock for sends, acks and verdict arrivals (all in this process)


# -- requests as Slack signs them ------------------------------------------------------------------
_VERIFIER = SignatureVerifier(SECRET)


def signed_headers(body: str) -> dict[str, str]:
    ts = str(int(time.time()))
    signature = _VERIFIER.generate_signature(timestamp=ts, body=body)
    assert signature is not None  # None only for a missing timestamp
    return {
        "X-Slack-Request-Timestamp": ts,
        "X-Slack-Signature": signature,
        "Content-Type": "application/x-www-form-urlencoded",
    }


def slash_body(text: str, user: str, response_url: str) -> str:
    return urlencode(
        dict(
            token="unused", team_id=TEAM, team_domain="zq", channel_id=CHANNEL,
            channel_name="quiz", user_id=user, user_name=user.lower(), command="/zeroquiz",
            text=text, api_app_id="A0ZEROQUIZ", response_url=response_url, trigger_id="1.2.3",
        )
    )  # fmt: skip


def synthetic_question(round_id: int = 1) -> dict[str, Any]:
    """A question message shaped like ZeroQuiz's (used when no real one was posted)."""
    buttons = [
        {"type": "button", "text": {"type": "plain_text", "text": letter},
         "action_id": f"zq_answer_{letter}", "value": f"{round_id}:{i}",
         "accessibility_label": f"Answer {letter}"}
        for i, letter in enumerate("ABCD")
    ]  # fmt: skip
    text = {"type": "mrkdwn", "text": "Which stage of ZeRO partitions the optimizer states? " * 3}
    return {
        "ts": "1700000000.000001",
        "text": "ZeroQuiz question",
        "blocks": [
            {"type": "header", "text": {"type": "plain_text", "text": "ZeroQuiz"}},
            {"type": "section", "text": text},
            {"type": "section", "text": {"type": "mrkdwn", "text": "*A)* a\n*B)* b\n*C)* c"}},
            {"type": "actions", "block_id": f"zq_round_{round_id}", "elements": buttons},
            {"type": "context", "elements": [{"type": "mrkdwn", "text": "closes soon"}]},
        ],
    }


class ClickMaker:
    """Signed `payload=` block_actions bodies on one question message, one per (user, key)."""

    def __init__(self, message: dict[str, Any], respond_base: str) -> None:
        self.respond_base = respond_base
        actions = next(b for b in message["blocks"] if b["type"] == "actions")
        buttons = [b for b in actions["elements"] if b["type"] == "button"]
        self.buttons = [b for b in buttons if b["action_id"] != "zq_typed"]  # letters only
        self.block_id = actions["block_id"]
        self.template: dict[str, Any] = {
            "type": "block_actions",
            "team": {"id": TEAM, "domain": "zq"},
            "api_app_id": "A0ZEROQUIZ",
            "container": {"type": "message", "message_ts": message["ts"], "channel_id": CHANNEL},
            "channel": {"id": CHANNEL, "name": "quiz"},
            "message": {"ts": message["ts"], "text": message["text"], "blocks": message["blocks"]},
            "trigger_id": "1.2.3",
        }

    def body(self, user: str, key: str, n: int) -> tuple[str, dict[str, str]]:
        button = self.buttons[n % len(self.buttons)]
        payload = dict(self.template)
        payload["user"] = {"id": user, "username": user.lower(), "team_id": TEAM}
        payload["response_url"] = f"{self.respond_base}/{key}"
        payload["actions"] = [
            {"type": "button", "action_id": button["action_id"], "value": button["value"],
             "block_id": self.block_id, "text": button["text"], "action_ts": f"{time.time():.6f}"}
        ]  # fmt: skip
        raw = "payload=" + quote(json.dumps(payload))
        return raw, signed_headers(raw)


# -- the fake Slack Web API + response_url receiver ---------------------------------------------
@dataclass
class Verdict:
    at: float
    text: str


@dataclass
class FakeApi:
    """Answers the Web API calls ZeroQuiz and Bolt make; records response_url POSTs by key."""

    verdicts: dict[str, Verdict] = field(default_factory=dict)  # key -> first arrival
    extra_replies: int = 0  # a second POST on the same key
    calls: Counter[str] = field(default_factory=Counter)
    posted: list[dict[str, Any]] = field(default_factory=list)  # chat.postMessage args
    base: str = ""
    _runner: web.AppRunner | None = None
    _ts: int = 0

    async def start(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/api/{method}", self._api)  # users.info is a GET
        app.router.add_post("/respond/{key}", self._respond)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        # Every respond() opens a new connection: a deep backlog keeps the fake from dropping SYNs.
        await web.TCPSite(self._runner, "127.0.0.1", 0, backlog=4096).start()
        host, port = self._runner.addresses[0][:2]
        self.base = f"http://{host}:{port}"

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def api_url(self) -> str:
        return f"{self.base}/api"

    @property
    def respond_base(self) -> str:
        return f"{self.base}/respond"

    async def _respond(self, request: web.Request) -> web.Response:
        at = now()
        key = request.match_info["key"]
        try:
            data = await request.json()
            text = str(data.get("text", "")) if isinstance(data, dict) else ""
        except ValueError:
            text = "<not JSON>"
        if key in self.verdicts:
            self.extra_replies += 1
        else:
            self.verdicts[key] = Verdict(at, text)
        return web.Response(text="ok")

    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        self.calls[method] += 1
        raw = await request.text()
        args: dict[str, Any] = dict(request.query)
        if raw:
            if request.content_type == "application/json":
                args.update(json.loads(raw))
            else:
                args.update(dict(parse_qsl(raw)))
        if isinstance(args.get("blocks"), str):
            args["blocks"] = json.loads(args["blocks"])
        return web.json_response(self._answer(method, args))

    def _answer(self, method: str, args: dict[str, Any]) -> dict[str, Any]:
        if method == "auth.test":
            return {"ok": True, "team_id": TEAM, "user_id": "UBOT", "bot_id": "BBOT", "team": "ZQ"}
        if method == "users.info":
            uid = str(args.get("user", ""))
            name = f"Player {uid}"
            return {"ok": True, "user": {
                "id": uid, "team_id": TEAM, "name": uid.lower(), "real_name": name,
                "profile": {"display_name": name, "real_name": name},
                "is_admin": False, "is_owner": False, "tz": "Asia/Jakarta",
            }}  # fmt: skip
        if method == "chat.postMessage":
            self._ts += 1
            ts = f"1700000000.{self._ts:06d}"
            self.posted.append({**args, "ts": ts})
            return {"ok": True, "channel": args.get("channel"), "ts": ts, "message": args}
        if method == "chat.update":
            return {"ok": True, "channel": args.get("channel"), "ts": args.get("ts")}
        if method == "chat.postEphemeral":
            return {"ok": True, "message_ts": "1700000000.999999"}
        return {"ok": True}

    def question(self) -> dict[str, Any] | None:
        """The latest posted message that has answer buttons."""
        for args in reversed(self.posted):
            if any(b.get("type") == "actions" for b in args.get("blocks") or []):
                return {"ts": args["ts"], "text": args.get("text", ""), "blocks": args["blocks"]}
        return None


# -- child processes -------------------------------------------------------------------------------
_LEVEL = re.compile(r"\b(WARNING|ERROR|CRITICAL)\b")
# A log line's timestamp and ids (U123..., 1700000000.000001), so that alike lines group together.
_NOISE = re.compile(r"^\d{4}-\d\d-\d\d \S+ |\b[A-Z0-9.]*\d{3,}[A-Z0-9.]*\b")


class Child:
    """A child process whose stdout and stderr are drained all along; finds its HTTP address."""

    def __init__(self, name: str, proc: asyncio.subprocess.Process) -> None:
        self.name = name
        self.proc = proc
        self.lines = 0
        self.levels: Counter[str] = Counter()
        self.messages: Counter[str] = Counter()  # WARNING+ lines and tracebacks, grouped
        self.head: list[str] = []
        self.tail: deque[str] = deque(maxlen=40)
        self.url: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._drains: list[asyncio.Task[None]] = []

    @classmethod
    async def start(
        cls, name: str, args: list[str], env: dict[str, str], cwd: str, timeout: float = 60
    ) -> Child:
        proc = await asyncio.create_subprocess_exec(
            *args,
            env=env,
            cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        child = cls(name, proc)
        assert proc.stdout is not None and proc.stderr is not None
        child._drains = [
            asyncio.create_task(child._drain(proc.stderr)),
            asyncio.create_task(child._drain(proc.stdout)),
        ]
        try:
            await asyncio.wait_for(asyncio.shield(child.url), timeout)
        except (Exception, asyncio.CancelledError) as exc:
            await child.stop(5)
            if isinstance(exc, asyncio.CancelledError):
                raise
            log = "\n".join(f"    {line}" for line in list(child.tail)[-12:])
            raise RuntimeError(f"{name} did not start ({exc}); its log ends:\n{log}") from None
        return child

    async def _drain(self, stream: asyncio.StreamReader) -> None:
        pending = b""
        while chunk := await stream.read(65536):
            pending += chunk
            *complete, pending = pending.split(b"\n")
            for line in complete:
                self._line(line.decode(errors="replace"))
        if pending:
            self._line(pending.decode(errors="replace"))
        if not self.url.done():
            self.url.set_exception(RuntimeError(f"{self.name} exited before listening"))

    def _line(self, line: str) -> None:
        self.lines += 1
        if len(self.head) < 40:
            self.head.append(line)
        self.tail.append(line)
        if not self.url.done() and (found := re.search(r"HTTP mode on (http://\S+)", line)):
            self.url.set_result(found.group(1))
        level = _LEVEL.search(line)
        if level or line.startswith("Traceback"):
            self.levels[level.group(1) if level else "Traceback"] += 1
            if len(self.messages) < 200:
                self.messages[_NOISE.sub("#", line)[:160]] += 1

    def memory_kb(self) -> tuple[int, int]:
        """(VmRSS, VmHWM) in kB from /proc/PID/status."""
        found = {"VmRSS": 0, "VmHWM": 0}
        with contextlib.suppress(OSError), open(f"/proc/{self.proc.pid}/status") as status:
            for line in status:
                name, _, value = line.partition(":")
                if name in found:
                    found[name] = int(value.split()[0])
        return found["VmRSS"], found["VmHWM"]

    def cpu_seconds(self) -> float:
        """User + system CPU time the child has used so far (from /proc/PID/stat)."""
        try:
            with open(f"/proc/{self.proc.pid}/stat") as stat:
                fields = stat.read().rpartition(")")[2].split()
        except OSError:
            return math.nan
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    async def stop(self, timeout: float = 30) -> tuple[int | None, float]:
        """SIGTERM, then SIGKILL after `timeout`; returns (exit code, seconds it took)."""
        start = now()
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), timeout)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    self.proc.kill()
                await self.proc.wait()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*self._drains), 5)
        return self.proc.returncode, now() - start


def child_env(**extra: str) -> dict[str, str]:
    """This environment without platform settings or proxies (only loopback traffic), plus extra."""
    drop = ("SLACK_", "DISCORD_", "ZEROQUIZ_")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(drop) and not k.lower().endswith("_proxy")
    }
    return env | {"NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"} | extra


# -- the load generator ----------------------------------------------------------------------------
@dataclass
class Click:
    key: str
    due: float  # when the schedule wanted it sent (open loop) or when it was made (closed loop)
    sent: float = math.nan
    acked: float = math.nan
    status: int | str = "pending"  # the HTTP status, or what went wrong

    @property
    def ok(self) -> bool:
        return self.status == 200


async def send(
    http: aiohttp.ClientSession, url: str, body: str, headers: dict[str, str], click: Click
) -> None:
    click.sent = now()
    try:
        async with http.post(url, data=body.encode(), headers=headers) as response:
            await response.read()
            click.acked = now()
            click.status = response.status
    except TimeoutError:
        click.status = "timeout"
    except aiohttp.ClientError as exc:
        click.status = type(exc).__name__


async def open_loop(
    http: aiohttp.ClientSession,
    url: str,
    prepared: list[tuple[str, str, dict[str, str]]],
    rate: float,
) -> tuple[list[Click], list[asyncio.Task[None]], float, float]:
    """Send prepared (key, body, headers) at a fixed rate, never waiting for answers.

    Returns the clicks, their (maybe unfinished) tasks, the start time and the scheduled end.
    """
    start = now() + 0.1
    clicks: list[Click] = []
    tasks: list[asyncio.Task[None]] = []
    for i, (key, body, headers) in enumerate(prepared):
        due = start + i / rate
        delay = due - now()
        if delay > 0:
            await asyncio.sleep(delay)
        click = Click(key, due)
        clicks.append(click)
        tasks.append(asyncio.create_task(send(http, url, body, headers, click)))
    return clicks, tasks, start, start + len(prepared) / rate


async def closed_loop(
    http: aiohttp.ClientSession,
    url: str,
    clients: int,
    seconds: float,
    make: Callable[[int, int], tuple[str, str, dict[str, str]]],
) -> tuple[list[Click], float, float]:
    """`clients` loops, each sending its next click once the previous answer came back.

    Returns the clicks, the start time and the time the last client finished (the load's end).
    """
    start = now()
    end = start + seconds
    clicks: list[Click] = []

    async def client(c: int) -> None:
        n = 0
        while now() < end:
            key, body, headers = make(c, n)
            click = Click(key, now())
            clicks.append(click)
            await send(http, url, body, headers, click)
            n += 1

    await asyncio.gather(*(client(c) for c in range(clients)))
    return clicks, start, now()


async def settle(
    fake: FakeApi, clicks: list[Click], deadline: float, tasks: Sequence[asyncio.Task[None]] = ()
) -> None:
    """Wait until every acknowledged click has its verdict, or until the deadline; then cancel
    requests still unanswered (their clicks count as "no answer")."""
    while now() < deadline:
        if all(t.done() for t in tasks) and all(c.key in fake.verdicts for c in clicks if c.ok):
            break
        await asyncio.sleep(0.05)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for click in clicks:
        if click.status == "pending":
            click.status = "no answer"


async def poll(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = now() + timeout
    while not check():
        if now() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


# -- figures ---------------------------------------------------------------------------------------
def pct(values: list[float], p: float) -> float:
    """Nearest-rank percentile; inf values (never answered) sort last; nan when empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def overtaken_fraction(pairs: list[tuple[float, float]], gap: float = 1.0) -> float:
    """Of (sent, arrival) pairs, the share whose arrival came after the arrival of some click
    sent at least `gap` seconds later (arrival inf = never answered)."""
    if not pairs:
        return math.nan
    ordered = sorted(pairs)
    sends = [s for s, _ in ordered]
    suffix_min = [math.inf] * (len(ordered) + 1)
    for i in range(len(ordered) - 1, -1, -1):
        suffix_min[i] = min(ordered[i][1], suffix_min[i + 1])
    late = 0
    for sent, arrival in ordered:
        j = bisect.bisect_left(sends, sent + gap)
        if suffix_min[j] < arrival:
            late += 1
    return late / len(ordered)


# -- rounds (added for the alternating-rounds benches) ---------------------------------------------
def median(values: Sequence[float]) -> float:
    """The median of the values that are not nan (inf counts: a round never answered); nan if
    none."""
    real = sorted(v for v in values if not math.isnan(v))
    if not real:
        return math.nan
    mid = len(real) // 2
    if len(real) % 2:
        return real[mid]
    low, high = real[mid - 1], real[mid]
    return low if low == high else (low + high) / 2  # inf + inf stays inf, never inf - inf


def ratio(a: float, b: float) -> float:
    """a / b, nan when either is missing or b is 0."""
    if math.isnan(a) or math.isnan(b) or b == 0:
        return math.nan
    return a / b


def stored_values(db: str) -> set[str]:
    """Every value of every player row that has an answer in the SQLite file `db` (the user id
    is among them): what "acknowledged means recorded" is checked against after a child stops."""
    import sqlite3

    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT players.* FROM answers JOIN players ON players.id = answers.player_id"
        ).fetchall()
    finally:
        conn.close()
    return {str(value) for row in rows for value in row}


class Sampler:
    """py-spy sampling a child (all its threads, idle frames left out) into a collapsed-stacks
    file until stopped: where its CPU goes, without changing how it runs (cProfile slows the
    profiled code 2-3x, and sees only the thread it started in)."""

    def __init__(self, pid: int, out: str, rate: int = 250) -> None:
        self.cmd = [
            "py-spy", "record", "--pid", str(pid), "--format", "raw", "--output", out,
            "--rate", str(rate), "--threads", "--nonblocking",
        ]  # fmt: skip
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        import shutil
        import sys

        exe = shutil.which("py-spy") or os.path.join(os.path.dirname(sys.executable), "py-spy")
        self.proc = await asyncio.create_subprocess_exec(
            exe, *self.cmd[1:], stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE
        )
        await asyncio.sleep(0.5)  # it attaches

    async def stop(self) -> None:
        if self.proc is None or self.proc.returncode is not None:
            return
        self.proc.send_signal(signal.SIGINT)  # py-spy writes its file on Ctrl-C
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.proc.wait(), 30)
