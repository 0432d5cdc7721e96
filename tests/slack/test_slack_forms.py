"""A form body reads the same through adapters/slack/forms.py as through parse_qsl, whatever it
holds: Slack's percent-encoded clicks (the fast path) and any odd text (the fallback)."""

from __future__ import annotations

import json
from urllib.parse import parse_qsl, quote, urlencode

from hypothesis import example, given, settings
from hypothesis import strategies as st

from adapters.slack.forms import parse_form

# The characters where quoted-printable and percent-encoding part ways, and a few others.
TRICKY = st.sampled_from(
    ["%", "%%", "=", "&", "+", " ", "\n", "\r", "%3D", "%3d", "%2", "%zz", "%E2%98%83", "%FF",
     "%C3", "é", "☃", "a", "0", "D", "3"]
)  # fmt: skip
ODD_TEXT = st.lists(st.one_of(TRICKY, st.text(max_size=4)), max_size=30).map("".join)


@settings(max_examples=3000)
@given(ODD_TEXT)
@example("payload=%7B%22a%22%3A%201%7D")
@example("a=%%3D")
@example("a=b%")
@example("a=%3D%3d%3")
@example("a=%e2%98%83")
def test_any_text_reads_as_parse_qsl_reads_it(text: str) -> None:
    assert parse_form(text) == parse_qsl(text, keep_blank_values=True)


@settings(max_examples=500)
@given(st.dictionaries(st.text(max_size=8), st.text(max_size=40), max_size=5))
def test_percent_encoded_values_read_back(fields: dict[str, str]) -> None:
    for encoded in (urlencode(fields), urlencode(fields, quote_via=quote)):
        assert parse_form(encoded) == parse_qsl(encoded, keep_blank_values=True)
        assert dict(parse_form(encoded)) == fields


def test_a_click_payload_reads_back() -> None:
    payload = {"type": "block_actions", "text": 'Which stage? "ZeRO-3" = 100% = 1+1 ☃\n'}
    body = "payload=" + quote(json.dumps(payload))
    assert json.loads(dict(parse_form(body))["payload"]) == payload
