"""The registration digest (adapters/discord/sync.py): read from the tree's documented attributes,
it changes whenever what discord.py would register changes, and only then."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Sequence

import discord
import pytest
from discord import app_commands

from adapters.discord.sync import command_hash
from adapters.discord.translator import CatalogueTranslator
from adapters.discord.tree import build_group
from bot.commands import REGISTRY, Command, Spec
from bot.i18n import CATALOGUES


async def never(interaction: object, command: Command) -> None:
    raise AssertionError


def tree_of(specs: Sequence[Spec] = REGISTRY) -> app_commands.CommandTree:
    client = discord.Client(intents=discord.Intents.none())
    tree = app_commands.CommandTree(client)
    asyncio.run(tree.set_translator(CatalogueTranslator()))
    tree.add_command(build_group(never, specs=specs))
    return tree


def payload(tree: app_commands.CommandTree) -> str:
    """What discord.py itself would send (its undocumented builders: fine in a test, as the
    reference the digest is held to)."""
    translator = tree.translator
    assert translator is not None
    built = [asyncio.run(c.get_translated_payload(tree, translator)) for c in tree.get_commands()]
    return json.dumps(built, sort_keys=True)


@pytest.fixture
def catalogues() -> Iterator[dict[str, dict[str, str]]]:
    saved = {lang: dict(texts) for lang, texts in CATALOGUES.items()}
    yield CATALOGUES  # type: ignore[misc]
    for lang, texts in saved.items():
        CATALOGUES[lang].clear()
        CATALOGUES[lang].update(texts)


def test_the_same_commands_give_the_same_digest() -> None:
    assert command_hash(tree_of(), None) == command_hash(tree_of(), None)


def test_every_change_of_the_registration_changes_the_digest(
    catalogues: dict[str, dict[str, str]],
) -> None:
    base = tree_of()
    seen = {command_hash(base, None)}
    payloads = {payload(base)}

    def changed(tree: app_commands.CommandTree) -> None:
        assert payload(tree) not in payloads  # discord.py would register something else...
        digest = command_hash(tree, None)
        assert digest not in seen  # ...and the digest says so
        seen.add(digest)
        payloads.add(payload(tree))

    changed(tree_of([s for s in REGISTRY if s.name != "stats"]))  # a command less
    catalogues["en"]["discord_opt_topic"] += " (changed)"  # an option's description
    changed(tree_of())
    catalogues["id"]["discord_opt_topic"] += " (diubah)"  # its Indonesian localisation
    changed(tree_of())
    catalogues["en"]["discord_cmd_stats"] += " (changed)"  # a command's description
    changed(tree_of())


def test_a_guild_scope_digests_the_commands_copied_to_it() -> None:
    tree = tree_of()
    guild = discord.Object(id=42)
    assert command_hash(tree, guild) != command_hash(tree, None)  # nothing there yet
    tree.copy_global_to(guild=guild)
    assert command_hash(tree, guild) == command_hash(tree, None)
