"""The pieces of `/zeroquiz` on Discord that need no server: invite URL, option mapping, locales."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import discord
import pytest

from adapters.cli import main
from adapters.discord.handlers import NEEDED, NEEDED_IN_THREAD
from adapters.discord.translator import CatalogueTranslator, text
from adapters.discord.tree import daily_words, timezone_choices


def test_invite_url_has_exactly_the_scopes_and_permissions_needed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["discord-invite", "--app-id", "123456789012345678"]) == 0
    url = urlparse(capsys.readouterr().out.strip())
    query = parse_qs(url.query)
    assert url.netloc == "discord.com" and query["client_id"] == ["123456789012345678"]
    assert query["scope"][0].split() == ["bot", "applications.commands"]
    granted = discord.Permissions(int(query["permissions"][0]))
    expected = discord.Permissions(
        view_channel=True, send_messages=True, send_messages_in_threads=True, embed_links=True
    )
    assert granted == expected and not granted.administrator and not granted.mention_everyone
    # Everything the pre-check asks for, in a channel or in a thread, is in the invite.
    for name in (*NEEDED, *NEEDED_IN_THREAD):
        assert getattr(granted, name), name


def test_invite_without_an_application_id_says_which_variable(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DISCORD_APPLICATION_ID", raising=False)
    assert main(["discord-invite"]) == 2
    assert "DISCORD_APPLICATION_ID" in capsys.readouterr().err
    monkeypatch.setenv("DISCORD_APPLICATION_ID", "42")
    assert main(["discord-invite"]) == 0
    assert "client_id=42&" in capsys.readouterr().out


def test_daily_options_become_the_words_every_surface_uses() -> None:
    assert daily_words("09:00", "Asia/Jakarta", "mon-fri", 8, False) == (
        "09:00",
        "Asia/Jakarta",
        "mon-fri",
        "8h",
    )
    assert daily_words("07:30", None, None, None, False) == ("07:30",)
    assert daily_words("09:00", None, None, None, True) == ("off",)
    assert daily_words(None, None, None, None, False) == ()


async def test_timezone_autocomplete_prefers_prefix_matches() -> None:
    # Autocomplete never reads the interaction, so None stands in for one.
    found = await timezone_choices(None, "asia/jak")  # type: ignore[arg-type]
    assert [c.value for c in found] == ["Asia/Jakarta"]
    assert len(await timezone_choices(None, "")) == 25  # type: ignore[arg-type]


async def test_descriptions_translate_to_indonesian_from_the_catalogue() -> None:
    translator = CatalogueTranslator()
    source = text("discord_cmd_question")
    assert source.message == "Post a question in this channel now"
    # The translator reads only the string's key, so no real Command is built for `data`.
    context = discord.app_commands.TranslationContext(  # type: ignore[call-overload]
        discord.app_commands.TranslationContextLocation.command_description, None
    )
    indonesian = await translator.translate(source, discord.Locale.indonesian, context)
    assert indonesian == "Kirim satu soal di channel ini sekarang"
    assert await translator.translate(source, discord.Locale.japanese, context) is None
