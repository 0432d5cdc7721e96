"""Command and option descriptions: English source text, Indonesian from the same catalogue.

Every locale_str built by `text()` carries its catalogue key, so Discord gets the Indonesian
localisation of exactly the string the English side shows.
"""

from __future__ import annotations

import discord
from discord import app_commands

from bot.i18n import CATALOGUES, t
from bot.model import Lang

LOCALES: dict[discord.Locale, Lang] = {discord.Locale.indonesian: "id"}


def text(key: str) -> app_commands.locale_str:
    return app_commands.locale_str(t("en", key), key=key)


class CatalogueTranslator(app_commands.Translator):
    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        key = string.extras.get("key")
        lang = LOCALES.get(locale)
        if key is None or lang is None:
            return None
        return CATALOGUES[lang].get(key)
