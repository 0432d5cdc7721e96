"""Names and admin rights from users.info: cached names, fresh admin checks, safe fallbacks."""

from __future__ import annotations

import asyncio

from fake_slack import BOT_TOKEN, FakeSlack

from adapters.slack.users import SlackUsers
from adapters.slack.web import build_client


def users_for(
    fake: FakeSlack, admins: frozenset[str] = frozenset()
) -> tuple[SlackUsers, list[float]]:
    now = [0.0]
    client = build_client(BOT_TOKEN, fake.api_url + "/")
    return SlackUsers(client, admins, ttl=60.0, now=lambda: now[0]), now


async def test_names_are_looked_up_once_and_refreshed_in_the_background(fake: FakeSlack) -> None:
    users, now = users_for(fake)
    names = await asyncio.gather(*(users.display_name("U1") for _ in range(20)))
    assert set(names) == {"Ada Lovelace"}
    assert len(fake.calls_to("users.info")) == 1  # concurrent clicks share one lookup
    fake.add_user("U1", "Ada King")
    now[0] = 61.0  # expired: the old name is used at once while a fresh one is fetched
    assert await users.display_name("U1") == "Ada Lovelace"
    for _ in range(500):  # poll, with a deadline, until the background refresh has landed
        if await users.display_name("U1") == "Ada King":
            break
        await asyncio.sleep(0.01)
    assert await users.display_name("U1") == "Ada King"
    assert len(fake.calls_to("users.info")) == 2


async def test_unknown_user_falls_back_to_the_handle(fake: FakeSlack) -> None:
    users, _ = users_for(fake)
    assert await users.display_name("UGONE", "gone.person") == "gone.person"


async def test_admin_rights_are_checked_fresh_for_every_admin_action(fake: FakeSlack) -> None:
    users, _ = users_for(fake, admins=frozenset({"U2"}))
    assert await users.is_admin("UADMIN")
    fake.add_user("UADMIN", "Grace Hopper", admin=False)  # demoted
    assert not await users.is_admin("UADMIN")
    assert await users.is_admin("U2")  # listed in ZEROQUIZ_SLACK_ADMINS
    assert not await users.is_admin("U1")
    assert not await users.is_admin("UGONE")  # when Slack can't tell, the answer is no
    fake.errors["users.info"] = ["ratelimited"]
    fake.add_user("U3", "Owner", owner=True)
    assert not await users.is_admin("U3")
    assert await users.is_admin("U3")


async def test_admin_in_one_grid_workspace_is_not_admin_in_another(fake: FakeSlack) -> None:
    """One user id in two workspaces of an Enterprise Grid, admin only in TB: asked for both at
    once (as two admin commands would), each workspace's own answer counts."""
    tokens = {"TA": "xoxb-grid-a", "TB": "xoxb-grid-b"}
    fake.tokens.update({token: team for team, token in tokens.items()})
    fake.add_user("UGRID", "Grid Person")
    fake.admins_in = {"TA": set(), "TB": {"UGRID"}}

    async def token_of(team: str) -> str | None:
        return tokens.get(team)

    client = build_client(BOT_TOKEN, fake.api_url + "/")
    users = SlackUsers(client, frozenset(), tokens=token_of)
    in_b, in_a = await asyncio.gather(
        users.is_admin("UGRID", team="TB"), users.is_admin("UGRID", team="TA")
    )
    assert in_b and not in_a
    assert not await users.is_admin("UGRID", team="TA")
    assert await users.is_admin("UGRID", team="TB")
