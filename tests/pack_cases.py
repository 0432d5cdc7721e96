"""Large team packs for the export tests: valid, with what a renderer must not change (`&`, `<`,
`>`, comments, blank lines, indentation, non-ASCII text) and, when asked, one very long line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def big_pack(count: int, *, explanation_words: int = 12, long_line: bool = False) -> str:
    """A one-language pack of `count` questions, as a person would write it by hand."""
    lines = ["# Our cluster: questions & answers (<internal>)", "language: en", "questions:"]
    for n in range(1, count + 1):
        why = " ".join(f"w{n}-{k}" for k in range(explanation_words))
        lines += [
            "",
            f"  # question {n}",
            f"  - id: q{n:03d}",
            f'    prompt: "Node {n}: which <flag> & which rank — ZeRO stage {n % 3 + 1}?"',
            "    options:",
            f'      - "rank {n} & <none>"',
            f'      - text: "stage {n % 3 + 1} ≥ ok"',
            "        correct: true",
            f"    explanation: >-\n      Because {why}\n      (see runbook §{n}).",
        ]
    if long_line:  # a flow-style question on one line, longer than a Slack code block holds
        why = " ".join("&" * 480)  # 959 characters, 2,879 once escaped for Slack
        lines += [
            "",
            f'  - {{id: q-long, prompt: "One long line?", options: ["no", {{text: "yes", '
            f'correct: true}}], explanation: "{why}"}}',
        ]
    return "\n".join(lines) + "\n"


def zeroquiz_pack(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """`zeroquiz pack <args>` as a real child process (the operator's terminal)."""
    script = Path(sys.executable).parent / "zeroquiz"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "adapters.cli"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZEROQUIZ_", "SLACK_"))}
    return subprocess.run(
        [*command, "pack", *args], input=stdin, capture_output=True, text=True, env=env,
        timeout=60,
    )  # fmt: skip
