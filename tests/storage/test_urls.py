"""A database URL as it is printed: every form of its password hidden, the rest as given."""

from __future__ import annotations

import pytest

from bot.storage.urls import display_url, redact_urls

SECRET = "hunter2-secret"
FORMS = {
    "user and password": (f"postgresql://zq:{SECRET}@db:5432/zq", "postgresql://zq:***@db:5432/zq"),
    "password, no user": (f"postgresql://:{SECRET}@db/zq", "postgresql://:***@db/zq"),
    "query": (
        f"postgresql://zq@db/zq?sslmode=require&password={SECRET}",
        "postgresql://zq@db/zq?sslmode=require&password=***",
    ),
    "query, upper case": (
        f"postgresql://db/zq?PASSWORD={SECRET}",
        "postgresql://db/zq?PASSWORD=***",
    ),
    "client key": (
        f"postgresql:///zq?host=/run/pg&sslpassword={SECRET}",
        "postgresql:///zq?host=/run/pg&sslpassword=***",
    ),
    "an @ in the password": (f"postgres://zq:{SECRET}@x@db/zq", "postgres://zq:***@db/zq"),
    "IPv6 and a bad port": (
        f"postgresql://zq:{SECRET}@[::1]:port/zq",
        "postgresql://zq:***@[::1]:port/zq",
    ),
    "malformed": (f"postgresql://zq:{SECRET}@[::1/zq", "postgresql://***"),
}


@pytest.mark.parametrize("url,shown", FORMS.values(), ids=FORMS.keys())
def test_every_password_form_is_hidden_and_the_rest_kept(url: str, shown: str) -> None:
    assert display_url(url) == shown


@pytest.mark.parametrize("url", [u for u, _ in FORMS.values()], ids=FORMS.keys())
def test_a_url_inside_a_log_line_loses_its_password(url: str) -> None:
    line = redact_urls(f"could not open {url}: refused", "[redacted]")
    # Up to the next space: a password may hold any character but white space.
    assert SECRET not in line and "[redacted]" in line and line.endswith(" refused")


@pytest.mark.parametrize("text", ["sqlite:///srv/quiz.sqlite3", "/srv/quiz.sqlite3", "a:b c@d"])
def test_urls_without_a_password_are_left_as_they_are(text: str) -> None:
    assert display_url(text) == text and redact_urls(text) == text
