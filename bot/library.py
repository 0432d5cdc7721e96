"""Every question the bot can show: the bundled bank and the teams' packs (bot/bank/packs.py).

A pack version's text never changes once stored, so its parsed bank is cached without any
invalidation, by every replica alike; what changes (a channel's source, which packs are live) is
read from the database when a round opens. A question id names its pack version, so a round,
a reveal or a review card of a removed pack still finds what it showed.
"""

from __future__ import annotations

import logging
from collections import OrderedDict

from bot.bank import Bank, BankError
from bot.bank.packs import check_pack, parse_scoped, scoped
from bot.model import ChannelRef, Question
from bot.storage import ChannelPacks, Store

log = logging.getLogger(__name__)

CACHE_SIZE = 256  # parsed pack versions; a merged channel bank per distinct set of packs


class Library:
    def __init__(self, store: Store, bundled: Bank, *, cache_size: int = CACHE_SIZE) -> None:
        self._store = store
        self.bundled = bundled
        self._size = cache_size
        self._versions: OrderedDict[tuple[int, int], Bank | None] = OrderedDict()
        self._merged: OrderedDict[tuple[str, tuple[tuple[int, int], ...]], Bank] = OrderedDict()

    async def get(self, question_id: str) -> Question | None:
        """The question behind a stored id (a round's, a card's), bundled or of a pack version."""
        parsed = parse_scoped(question_id.partition("@")[0])
        if parsed is None:
            return self.bundled.get(question_id)
        bank = await self._version(parsed[0], parsed[1])
        return bank.get(question_id) if bank is not None else None

    async def for_channel(self, channel_id: int) -> Bank:
        """What a channel draws from now: the bundled bank, its team's live packs, or both. A
        channel set to its team's packs while the team has none draws from the bundled bank."""
        return await self._bank(await self._store.packs.for_channel(channel_id))

    async def for_channel_ref(self, channel: ChannelRef) -> Bank:
        """The same for a channel maybe never seen (topics and filters in a command)."""
        return await self._bank(await self._store.packs.for_channel_ref(channel))

    async def _bank(self, found: ChannelPacks) -> Bank:
        if found.source == "bundled" or not found.packs:
            return self.bundled
        key = (found.source, found.packs)
        merged = self._merged.get(key)
        if merged is not None:
            self._merged.move_to_end(key)
            return merged
        questions = list(self.bundled.questions) if found.source == "both" else []
        templates = list(self.bundled.templates) if found.source == "both" else []
        for pack_id, version in found.packs:
            bank = await self._version(pack_id, version)
            if bank is not None:
                questions.extend(bank.questions)
                templates.extend(bank.templates)
        merged = Bank(questions, templates) if questions or templates else self.bundled
        self._merged[key] = merged
        if len(self._merged) > self._size:
            self._merged.popitem(last=False)
        return merged

    async def _version(self, pack_id: int, version: int) -> Bank | None:
        key = (pack_id, version)
        if key in self._versions:
            self._versions.move_to_end(key)
            return self._versions[key]
        body = await self._store.packs.body(pack_id, version)
        bank: Bank | None = None
        if body is not None:
            try:
                bank = scoped(check_pack(body, f"pack {pack_id}").bank, pack_id, version)
            except BankError as exc:  # stored as valid: only a stricter newer check can do this
                log.warning("pack %s version %s no longer loads: %s", pack_id, version, exc)
        self._versions[key] = bank
        if len(self._versions) > self._size:
            self._versions.popitem(last=False)
        return bank
