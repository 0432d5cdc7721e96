"""Large team packs for the export tests: valid, with what a renderer must not change (`&`, `<`,
`>`, comments, blank lines, indentation, non-ASCII text) and, when asked, one very long line."""

from __future__ import annotations


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
            "      - text: \"stage {0} ≥ ok\"".format(n % 3 + 1),
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
