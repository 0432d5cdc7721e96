"""One command registry: the surfaces, the admin check and the help texts agree with it."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from conftest import CHANNEL
from discord import app_commands

from adapters.discord.tree import BINDERS, build_group
from bot.commands import (
    BY_NAME,
    REGISTRY,
    Command,
    Context,
    dispatch,
    help_view,
    parse_text,
)
from bot.i18n import en, id
from bot.model import Lang, UserRef
from bot.quiz import Quiz
from bot.storage import Store


def test_the_discord_tree_has_exactly_the_registry_commands() -> None:
    async def run(interaction: object, command: Command) -> None:  # never called here
        raise AssertionError

    group = build_group(run)
    assert [c.name for c in group.commands] == [spec.name for spec in REGISTRY]


def test_a_command_without_words_needs_nothing_on_discord_and_one_with_words_a_binder() -> None:
    async def run(interaction: object, command: Command) -> None:  # never called here
        raise AssertionError

    plain = {spec.name for spec in REGISTRY if not spec.usage}
    assert plain and not plain & set(BINDERS)  # bound from the registry alone
    for command in build_group(run).commands:
        assert isinstance(command, app_commands.Command)
        assert (command.parameters == []) == (command.name in plain), command.name
    # Give one of them words: it now needs its Discord options, and start-up says which.
    worded = [s._replace(usage="[x]") if s.name == "stats" else s for s in REGISTRY]
    with pytest.raises(LookupError, match="/zeroquiz stats has no Discord options declared"):
        build_group(run, specs=worded)


@pytest.mark.parametrize("catalogue", [en.MESSAGES, id.MESSAGES], ids=["en", "id"])
def test_every_command_is_described_in_both_languages(catalogue: dict[str, str]) -> None:
    for spec in REGISTRY:
        assert catalogue[f"help_cmd_{spec.name}"], spec.name
        assert catalogue[f"discord_cmd_{spec.name}"], spec.name  # Discord's own description


@pytest.mark.parametrize("lang", ["en", "id"])
def test_help_lists_every_command_with_its_usage_and_marks_admin_ones(lang: Lang) -> None:
    lines = help_view(lang).text.splitlines()
    for spec in REGISTRY:
        usage = f"`/zeroquiz {spec.name} {spec.usage}`".replace(" `", "`")
        [line] = [x for x in lines if x.startswith(usage + ":")]
        admins = (en if lang == "en" else id).MESSAGES["help_admins"]
        assert line.endswith(admins) == spec.admin, line


def test_slack_words_reach_the_same_registry() -> None:
    for spec in REGISTRY:
        assert parse_text(f"{spec.name.upper()} x y") == Command(spec.name, ("x", "y"))
    assert parse_text("") == Command("help")


async def test_admin_rights_are_asked_for_exactly_the_admin_commands(
    db: Store, make_quiz: Callable[..., Quiz]
) -> None:
    quiz = make_quiz(db)
    asked: list[str] = []
    for spec in REGISTRY:

        async def no(name: str = spec.name) -> bool:
            asked.append(name)
            return False

        reply = await dispatch(
            quiz, Command(spec.name), Context(CHANNEL, UserRef("test", "T1", "U"), no)
        )
        refused = getattr(reply, "text", None) == "Only admins can do that."
        assert refused == spec.admin, spec.name
    assert asked == [s.name for s in REGISTRY if s.admin]
    assert set(BY_NAME) == {s.name for s in REGISTRY}  # no name twice
