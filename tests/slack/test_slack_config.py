"""Start-up settings: Slack is optional, and a bad variable is named without showing its value."""

from __future__ import annotations

import logging
import random
from pathlib import Path

import pytest
from fake_slack import BOT_TOKEN, SECRET, FakeSlack

from adapters.runtime import ConfigError, Runtime
from adapters.slack.config import SlackConfig, load_config
from adapters.slack.surface import SlackSurface, surface_from_env
from bot.bank import Bank
from bot.clock import FakeClock

APP = "xapp-1-A0ZQ-123-abcdef"
BOT = "xoxb-123-456-abcdef"


def config_error(env: dict[str, str]) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(env)
    message = str(info.value)
    for value in env.values():
        if len(value) > 6:
            assert value not in message  # a secret never reaches a log or a terminal
    return message


def test_slack_is_optional() -> None:
    assert load_config({}) is None
    assert load_config({"DISCORD_TOKEN": "x", "SLACK_API_URL": "https://slack.com/api/"}) is None


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"SLACK_SIGNING_SECRET": SECRET}, "SLACK_BOT_TOKEN"),
        ({"SLACK_APP_TOKEN": APP}, "SLACK_BOT_TOKEN"),
        ({"SLACK_BOT_TOKEN": "xoxp-user-token-123", "SLACK_APP_TOKEN": APP}, "SLACK_BOT_TOKEN"),
        ({"SLACK_BOT_TOKEN": BOT, "SLACK_APP_TOKEN": "xoxb-not-an-app-token"}, "SLACK_APP_TOKEN"),
        ({"SLACK_BOT_TOKEN": BOT, "SLACK_SIGNING_SECRET": "short"}, "SLACK_SIGNING_SECRET"),
        ({"SLACK_BOT_TOKEN": BOT}, "SLACK_APP_TOKEN"),
        (
            {
                "SLACK_BOT_TOKEN": BOT,
                "SLACK_APP_TOKEN": APP,
                "SLACK_CLIENT_ID": "1234.5678",
                "SLACK_CLIENT_SECRET": "client-secret-value",
            },
            "SLACK_CLIENT_SECRET",
        ),
        (
            {"SLACK_BOT_TOKEN": BOT, "SLACK_APP_TOKEN": APP, "SLACK_API_URL": "ftp://x"},
            "SLACK_API_URL",
        ),
        (
            {"SLACK_BOT_TOKEN": BOT, "SLACK_APP_TOKEN": APP, "ZEROQUIZ_SLACK_ADMINS": "U1,bob"},
            "ZEROQUIZ_SLACK_ADMINS",
        ),
    ],
)
def test_missing_or_malformed_variable_is_named(env: dict[str, str], named: str) -> None:
    assert named in config_error(env)


@pytest.mark.parametrize(
    ("given", "used"),
    [
        (None, "https://slack.com/api/"),
        ("https://slack.com/api", "https://slack.com/api/"),
        ("https://slack-gov.com/api/", "https://slack-gov.com/api/"),
        ("http://127.0.0.1:8080/api//", "http://127.0.0.1:8080/api/"),
    ],
)
def test_api_url_is_accepted_with_or_without_trailing_slash(given: str | None, used: str) -> None:
    env = {"SLACK_BOT_TOKEN": BOT, "SLACK_APP_TOKEN": APP}
    if given is not None:
        env["SLACK_API_URL"] = given
    config = load_config(env)
    assert config is not None and config.api_url == used


def test_mode_and_admins_come_from_the_environment() -> None:
    both = load_config(
        {
            "SLACK_BOT_TOKEN": BOT,
            "SLACK_APP_TOKEN": APP,
            "SLACK_SIGNING_SECRET": SECRET,
            "ZEROQUIZ_SLACK_ADMINS": " U0ADMIN1, W0ADMIN2 ,",
        }
    )
    assert both is not None and both.socket_mode  # Socket Mode wins: no public URL needed
    assert both.admins == frozenset({"U0ADMIN1", "W0ADMIN2"})
    http = load_config({"SLACK_BOT_TOKEN": BOT, "SLACK_SIGNING_SECRET": SECRET})
    assert http is not None and not http.socket_mode
    assert BOT not in repr(both) and SECRET not in repr(both) and APP not in repr(both)


async def test_surface_from_env_and_a_rejected_token(
    fake: FakeSlack,
    db_path: Path,
    clock: FakeClock,
    bank: Bank,
    caplog: pytest.LogCaptureFixture,
) -> None:
    runtime = await Runtime.open(db_path, bank, clock, random.Random(1))
    try:
        assert surface_from_env({}, runtime, host="127.0.0.1", port=0) is None
        env = {"SLACK_BOT_TOKEN": BOT, "SLACK_SIGNING_SECRET": SECRET}
        surface = surface_from_env(env, runtime, host="127.0.0.1", port=0)
        assert isinstance(surface, SlackSurface)

        caplog.set_level(logging.DEBUG)
        wrong = SlackConfig(
            bot_token="xoxb-revoked-999", signing_secret=SECRET, api_url=fake.base + "/api/"
        )
        rejected = SlackSurface(wrong, runtime, host="127.0.0.1", port=0)
        with pytest.raises(ConfigError, match="SLACK_BOT_TOKEN was rejected by Slack"):
            await rejected.start()
        assert rejected.url is None  # nothing was left listening
        elsewhere = SlackConfig(
            bot_token=BOT_TOKEN, signing_secret=SECRET, api_url=fake.base + "/x/"
        )
        with pytest.raises(ConfigError, match="SLACK_API_URL"):
            await SlackSurface(elsewhere, runtime, host="127.0.0.1", port=0).start()
        bad_app = SlackConfig(bot_token=BOT_TOKEN, app_token="xapp-revoked-1", api_url=fake.api_url)
        with pytest.raises(ConfigError, match="SLACK_APP_TOKEN was rejected by Slack"):
            await SlackSurface(bad_app, runtime, host="127.0.0.1", port=0).start()
        assert fake.sockets == []  # no websocket was opened with a rejected token
        logged = "\n".join(r.getMessage() for r in caplog.records)
        for secret in ("xoxb-revoked-999", "xapp-revoked-1", SECRET, BOT_TOKEN):
            assert secret not in logged
    finally:
        await runtime.close()


def test_admins_are_scoped_to_their_workspace_and_must_be_with_many_workspaces() -> None:
    from fake_slack import CLIENT_ID, CLIENT_SECRET, TOKEN_KEY

    single = load_config(
        {"SLACK_BOT_TOKEN": BOT, "SLACK_SIGNING_SECRET": SECRET,
         "ZEROQUIZ_SLACK_ADMINS": "U0ADMIN1,T0TEAM:U0ADMIN2"}
    )  # fmt: skip
    assert single is not None and single.admins == frozenset({"U0ADMIN1", "T0TEAM:U0ADMIN2"})
    oauth = {
        "SLACK_CLIENT_ID": CLIENT_ID, "SLACK_CLIENT_SECRET": CLIENT_SECRET,
        "SLACK_SIGNING_SECRET": SECRET, "ZEROQUIZ_TOKEN_KEY": TOKEN_KEY,
    }  # fmt: skip
    many = load_config(oauth | {"ZEROQUIZ_SLACK_ADMINS": "T0ALPHA:U0ADMIN1, T0BRAVO:W0ADMIN2"})
    assert many is not None and many.admins == frozenset({"T0ALPHA:U0ADMIN1", "T0BRAVO:W0ADMIN2"})
    # A bare user ID would be an admin in every workspace that installs the app: refused.
    message = config_error(oauth | {"ZEROQUIZ_SLACK_ADMINS": "T0ALPHA:U0ADMIN1,U0ADMIN2"})
    assert message.startswith("ZEROQUIZ_SLACK_ADMINS") and "workspace:user" in message
    assert "\n" not in message and "U0ADMIN2" not in message
    assert "ZEROQUIZ_SLACK_ADMINS" in config_error(oauth | {"ZEROQUIZ_SLACK_ADMINS": "T0A:bob"})
