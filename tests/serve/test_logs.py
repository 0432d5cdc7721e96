"""Both log formats hide secrets: token variables' values, Slack-shaped tokens, URL passwords."""

from __future__ import annotations

import io
import json
import logging

import pytest

from adapters.logs import REDACTED, setup_logging

DISCORD = "MTIzNDU2Nzg5.discord-token-value"
ENV = {"DISCORD_TOKEN": DISCORD, "SLACK_SIGNING_SECRET": "s3cr3t-signing-value"}


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_no_secret_reaches_a_log_line(fmt: str, monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    monkeypatch.setattr("sys.stderr", out)
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        setup_logging("INFO", ENV | {"ZEROQUIZ_LOG_FORMAT": fmt})
        log = logging.getLogger("zeroquiz.test")
        log.info("token %s and xoxb-1-2-abc", DISCORD)
        log.info("db postgresql://zq:hunter2pass@db:5432/zq")
        log.info("db postgresql://db/zq?password=query-pass-1 and postgresql://:no-user-pass@db/zq")
        try:
            raise RuntimeError("signed with s3cr3t-signing-value")
        except RuntimeError:
            log.exception("failed")
    finally:
        root.handlers[:], level = saved
        root.setLevel(level)
    text = out.getvalue()
    for secret in (DISCORD, "xoxb-1-2-abc", "hunter2pass", "s3cr3t-signing-value", "query-pass-1",
                   "no-user-pass"):  # fmt: skip
        assert secret not in text
    assert REDACTED in text and "postgresql://zq:" in text
    if fmt == "json":
        records = [json.loads(line) for line in text.splitlines()]
        assert records[0]["message"] == f"token {REDACTED} and {REDACTED}"
        assert "exc_info" in records[3]
    else:
        assert text.splitlines()[0].endswith(f"zeroquiz.test: token {REDACTED} and {REDACTED}")


def test_a_newline_in_a_value_cannot_forge_a_text_log_line(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    monkeypatch.setattr("sys.stderr", out)
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    forged = "abc\n2026-12-01 12:00:00,000 ERROR adapters.slack: admin granted\r\u2028"
    try:
        setup_logging("INFO", ENV)
        logging.getLogger("zeroquiz.test").warning("OAuth code %s refused", forged)
        try:
            raise RuntimeError("boom")
        except RuntimeError:
            logging.getLogger("zeroquiz.test").exception("failed")
    finally:
        root.handlers[:], level = saved
        root.setLevel(level)
    lines = out.getvalue().splitlines()
    assert lines[0].endswith("OAuth code abc\\n2026-12-01 12:00:00,000 ERROR adapters.slack: "
                             "admin granted\\r\\u2028 refused")  # fmt: skip
    assert (
        lines[1].endswith("zeroquiz.test: failed")
        and lines[2] == "Traceback (most recent call last):"
    )
