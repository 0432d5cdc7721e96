"""OAuth without a write per anonymous GET: `/slack/install` issues signed, expiring states
(nothing stored), the redirect records a state once, and the visitor's `team=` is URL-encoded
into Slack's authorize link."""

from __future__ import annotations

import html
import re
import sqlite3
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from fake_slack import (
    FakeSlack,
    SlackHarness,
    begin_install,
    finish_install,
    install,
    open_oauth_harness,
)
from test_slack_oauth import A, B

from adapters.slack.installs import StoreStates
from bot.bank import Bank
from bot.clock import FakeClock


def stored_states(db_path: Path) -> int:
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM oauth_states").fetchone()[0])
    finally:
        conn.close()


async def install_page(h: SlackHarness, query: str = "") -> str:
    assert h.surface.base_url is not None
    async with h.http.get(h.surface.base_url + "/slack/install" + query) as response:
        assert response.status == 200
        return await response.text()


async def test_opening_the_install_page_writes_nothing_and_a_state_is_good_once(
    fake: FakeSlack, db_path: Path, clock: FakeClock, bank: Bank
) -> None:
    h = await open_oauth_harness(fake, db_path, clock, bank)
    try:
        size = db_path.stat().st_size
        for _ in range(30):  # within the install pages' burst (40, then 20 a second)
            await install_page(h)
        assert stored_states(db_path) == 0
        assert db_path.stat().st_size == size
        assert await install(h, A) == 200
        assert stored_states(db_path) == 1  # the state the redirect used, to refuse it again
        state, cookie = await begin_install(h)
        tampered = state[:-2] + ("AA" if not state.endswith("AA") else "BB")
        assert await finish_install(h, fake.approve(B), tampered, cookie) >= 400
        assert await h.runtime.store.installations.find(None, B) is None
        # Signed under another app's client secret: refused the same way.
        other = StoreStates(h.runtime.store.installations, "another-secret", clock.now)
        foreign = await other.async_issue()
        foreign_cookie = f"slack-app-oauth-state={foreign}"
        assert await finish_install(h, fake.approve(B), foreign, foreign_cookie) >= 400
        assert await h.runtime.store.installations.find(None, B) is None
        assert stored_states(db_path) == 1
    finally:
        await h.close()


async def test_the_team_a_visitor_passes_is_url_encoded_into_slacks_link(
    fake: FakeSlack, db_path: Path, clock: FakeClock, bank: Bank
) -> None:
    h = await open_oauth_harness(fake, db_path, clock, bank)
    try:
        page = await install_page(h, "?team=T0ALPHA%26scope%3Dadmin%22%3E")
    finally:
        await h.close()
    found = re.search(r'<a href="([^"]+)"', page)
    assert found is not None, page
    link = html.unescape(found.group(1))
    query = parse_qs(urlsplit(link).query)
    assert query["team"] == ['T0ALPHA&scope=admin">']  # one value, as the visitor typed it
    assert query["scope"] == [
        "commands,chat:write,chat:write.public,users:read,channels:history,groups:history,"
        "im:write,im:history"
    ]
    assert "&scope=admin" not in link
