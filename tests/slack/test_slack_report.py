"""The Report control on Slack, over signed HTTP: the private verdict carries a Report button;
it opens a form with the reasons and a note; the submission is stored once and answered
privately; admins see it in `/zeroquiz reports` and the insights; a report never shows the key."""

from __future__ import annotations

import json
from urllib.parse import quote

from fake_slack import (
    TEAM,
    FakeSlack,
    SlackHarness,
    block_problems,
    click_payload,
    shown,
    signed_headers,
)
from test_slack_review import buttons

from bot.bank import Bank


async def submit_report(
    slack: SlackHarness, modal: dict[str, object], reason: str, note: str
) -> int:
    payload = {
        "type": "view_submission",
        "team": {"id": TEAM, "domain": "zq"},
        "user": {"id": "U1", "username": "u1", "team_id": TEAM},
        "api_app_id": "A0ZEROQUIZ",
        "trigger_id": "1.2.5",
        "view": {
            "id": "V1", "type": "modal", "callback_id": modal["callback_id"],
            "private_metadata": modal["private_metadata"],
            "state": {"values": {
                "reason": {"reason": {"type": "static_select", "selected_option": {
                    "text": {"type": "plain_text", "text": reason}, "value": reason}}},
                "note": {"note": {"type": "plain_text_input", "value": note}},
            }},
        },
    }  # fmt: skip
    body = "payload=" + quote(json.dumps(payload))
    assert slack.surface.url is not None
    async with slack.http.post(
        slack.surface.url, data=body.encode(), headers=signed_headers(body)
    ) as response:
        await response.read()
        return response.status


async def test_report_from_the_verdict_reaches_the_admins_once(
    slack: SlackHarness, fake: FakeSlack, bank: Bank
) -> None:
    await slack.ask("question")
    ts, _ = slack.question()
    fake.add_user("U1", "Ada")
    verdict = await fake.reply((await slack.click("A", user="U1"))[1])
    assert block_problems(verdict["blocks"]) == []
    report = buttons(verdict)["Report"]
    key = fake.new_key()
    click = click_payload(ts, {"text": "", **verdict}, report, "U1", fake.response_url(key))
    assert await slack.post("payload=" + quote(json.dumps(click))) == 200
    await fake.wait_until(lambda: len(fake.modals) == 1, "the report form")
    [modal] = fake.modals
    assert modal["callback_id"] == "zeroquiz_report"
    choices = [o["value"] for o in modal["blocks"][0]["element"]["options"]]
    assert choices == ["key", "unclear", "typo", "outdated", "other"]
    assert await submit_report(slack, modal, "key", "<!channel> the key is stage 2") == 200
    thanks = shown((await fake.reply(key))["blocks"])
    assert "Thanks: your report (the key is wrong) is with the admins." in thanks
    question = report["value"].split("|", 1)[1]
    right = bank.get(question)
    assert right is not None and right.options[right.answer].en not in thanks  # never the key
    assert await submit_report(slack, modal, "typo", "") == 200  # the same form sent again
    await fake.wait_until(lambda: len(fake.replies[key]) == 2, "the second answer")
    assert "already" in shown(fake.replies[key][1]["blocks"])

    listed = shown((await slack.ask("reports", user="UADMIN"))["blocks"])
    assert "1 open" in listed and f"`{question}`" in listed
    assert "&lt;!channel&gt; the key is stage 2" in listed  # the note is text, never a ping
    refused = shown((await slack.ask("reports", user="U1"))["blocks"])
    assert "Only admins" in refused
    insights = shown((await slack.ask("insights all", user="UADMIN"))["blocks"])
    assert "Reported by players" in insights and "the key is wrong ×1" in insights
