"""Topic and level on Discord: synced options, a slash with a topic, topic autocomplete."""

from __future__ import annotations

from fake_discord import EPHEMERAL, BotFactory, FakeDiscord, latest_round, text_of

from adapters.discord.tree import filter_words, topic_completer
from bot.bank import Bank
from bot.topics import topics


def test_topic_and_level_become_the_words_every_surface_uses() -> None:
    assert filter_words("offload", "hard") == ("offload", "hard")
    assert filter_words(None, "easy") == ("easy",)
    assert filter_words(None, None) == ()


async def test_topic_autocomplete_returns_matching_tags_prefix_first(bank: Bank) -> None:
    complete = topic_completer(lambda: topics(bank))
    # Autocomplete never reads the interaction, so None stands in for one.
    assert [c.value for c in await complete(None, "zerop")] == ["zeropp"]  # type: ignore[arg-type]
    found = [c.value for c in await complete(None, "m")]  # type: ignore[arg-type]
    assert found[0] == "memory-math"  # the prefix match before "dp-memory"
    assert "dp-memory" in found and "offload" not in found
    assert [c.value for c in await complete(None, "")] == list(topics(bank))  # type: ignore[arg-type]


async def test_synced_options_and_a_slash_with_a_topic_posts_such_a_question(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    bot = await bots.start()
    [group] = [c for c in fake_discord.registered if c["name"] == "zeroquiz"]
    subs = {o["name"]: {p["name"]: p for p in o.get("options", [])} for o in group["options"]}
    for sub in ("question", "start"):
        assert subs[sub]["topic"]["autocomplete"] is True
        choices = [c["value"] for c in subs[sub]["level"]["choices"]]
        assert choices == ["easy", "medium", "hard"]
    reply = await fake_discord.reply_to(
        await fake_discord.slash("question", {"topic": "zeropp", "level": "hard"})
    )
    assert reply["flags"] & EPHEMERAL and text_of(reply) == "Question posted."
    row = await latest_round(bot)
    question = bot.runtime.quiz.bank.get(row.question_id)
    assert question is not None and "zeropp" in question.tags and question.difficulty == 3


async def test_typing_a_topic_gets_the_matching_tags_through_the_gateway(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    await bots.start()
    token = await fake_discord.autocomplete("start", "topic", "zerop", {"level": "hard"})
    [answer] = await fake_discord.wait_for(lambda: fake_discord.responses.get(token))
    assert answer["type"] == 8  # APPLICATION_COMMAND_AUTOCOMPLETE_RESULT
    assert answer["data"]["choices"] == [{"name": "zeropp", "value": "zeropp"}]
    token = await fake_discord.autocomplete("question", "topic", "m")
    [answer] = await fake_discord.wait_for(lambda: fake_discord.responses.get(token))
    values = [c["value"] for c in answer["data"]["choices"]]
    assert values[0] == "memory-math" and "dp-memory" in values and "offload" not in values
    assert not [c for c in fake_discord.calls if c.method == "POST" and "/messages" in c.path]


async def test_in_an_indonesian_channel_the_topic_and_level_work_and_errors_are_indonesian(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    bot = await bots.start()
    await fake_discord.reply_to(
        await fake_discord.slash("lang", {"language": "id"}, permissions=1 << 5)
    )
    reply = await fake_discord.reply_to(
        await fake_discord.slash("start", {"count": 2, "topic": "offload", "level": "medium"})
    )
    assert reply["flags"] & EPHEMERAL and text_of(reply) == "Sesi 2 soal dimulai."
    row = await latest_round(bot)
    question = bot.runtime.quiz.bank.get(row.question_id)
    assert question is not None and "offload" in question.tags and question.difficulty == 2
    unknown = await fake_discord.reply_to(
        await fake_discord.slash("question", {"topic": "tidakada"})
    )
    assert unknown["flags"] & EPHEMERAL
    assert "Tidak ada topik" in text_of(unknown) and "`zeropp`" in text_of(unknown)
