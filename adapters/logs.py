"""Logging for `zeroquiz serve`: human-readable lines by default, JSON lines with
ZEROQUIZ_LOG_FORMAT=json (python-json-logger), and in either form no secret.

Secrets are redacted from the formatted line itself, tracebacks included: the values of the
token variables, a database URL's password, and anything shaped like a Slack token.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Mapping
from datetime import UTC, datetime

from pythonjsonlogger.json import JsonFormatter

from bot.storage.urls import redact_urls

SECRET_VARIABLES = (
    "SLACK_BOT_TOKEN",
    "SLACK_APP_TOKEN",
    "SLACK_SIGNING_SECRET",
    "DISCORD_TOKEN",
)
SLACK_TOKEN = re.compile(r"\bx(?:ox[abposr]|app)-[A-Za-z0-9-]+")
REDACTED = "[redacted]"
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
FORMATS = ("text", "json")


class Redactor:
    def __init__(self, env: Mapping[str, str]) -> None:
        # Longest first, so a secret containing another is hidden whole; very short values are
        # not secrets anyone would use, and hiding them would garble ordinary words.
        found = {env.get(name, "") for name in SECRET_VARIABLES}
        self.secrets = sorted((s for s in found if len(s) >= 8), key=len, reverse=True)

    def __call__(self, line: str) -> str:
        for secret in self.secrets:
            line = line.replace(secret, REDACTED)
        line = SLACK_TOKEN.sub(REDACTED, line)
        return redact_urls(line, REDACTED)


# Characters that would end or rewrite a text line: a newline in an outsider's value (an OAuth
# `code`, a display name) must not forge a second log line.
CONTROL = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]")


BRIEF = 200


def brief(exc: BaseException | None) -> str:
    """An error as a log line can carry it: its kind and the first line of its message, cut
    short (`repr` would dump the object: a platform error's whole response, nested reprs)."""
    if exc is None:
        return "no error given"
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
    line = f"{type(exc).__name__}: {first}" if first else type(exc).__name__
    return line if len(line) <= BRIEF else line[: BRIEF - 1] + "…"


def escape_controls(text: str) -> str:
    return CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


class TextFormatter(logging.Formatter):
    """One line a record: the message's control characters escaped (`\\n`); a traceback, which
    only our code writes, keeps its lines."""

    def __init__(self, redact: Redactor) -> None:
        super().__init__(TEXT_FORMAT)
        self.redact = redact

    def formatMessage(self, record: logging.LogRecord) -> str:  # logging.Formatter's name
        return escape_controls(super().formatMessage(record))

    def format(self, record: logging.LogRecord) -> str:
        return self.redact(super().format(record))


class JsonLineFormatter(JsonFormatter):
    def __init__(self, redact: Redactor) -> None:
        super().__init__(
            "%(asctime)s %(levelname)s %(name)s %(message)s",
            rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
        )
        self.redact = redact

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        """ISO 8601 in UTC with milliseconds (2026-12-02T00:04:56.123+00:00), which log
        collectors parse as is; logging's default has a comma and no zone."""
        return datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")

    def format(self, record: logging.LogRecord) -> str:
        return self.redact(super().format(record))


def log_format(env: Mapping[str, str]) -> str:
    """ "text" or "json"; ValueError naming ZEROQUIZ_LOG_FORMAT for anything else."""
    chosen = env.get("ZEROQUIZ_LOG_FORMAT", "").strip().lower() or "text"
    if chosen not in FORMATS:
        raise ValueError("ZEROQUIZ_LOG_FORMAT must be text or json")
    return chosen


def setup_logging(level: str, env: Mapping[str, str]) -> None:
    """One handler on stderr for the root logger, in the chosen format."""
    redact = Redactor(env)
    handler = logging.StreamHandler(sys.stderr)
    formatter = JsonLineFormatter(redact) if log_format(env) == "json" else TextFormatter(redact)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
