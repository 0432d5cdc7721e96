"""Durable state. Only this package holds SQL; the core calls `Store`'s named methods.

Invariants live in the schema: one answer per round and player, inserted only while the round is
open; one daily posting per schedule and local date; one round per run step.
"""

from bot.storage.engine import DbTimeouts
from bot.storage.errors import (
    DatabaseTimeout,
    DatabaseTooNewError,
    DatabaseUnreachable,
    DatabaseUnusable,
    StorageError,
)
from bot.storage.migrations import SCHEMA_VERSION
from bot.storage.packs import SOURCES, ChannelPacks, PackLimitReached, PackRecord, Source
from bot.storage.records import (
    AnswerOutcome,
    AnswerRequest,
    AuditRecord,
    CardRule,
    CardState,
    CloseReason,
    Forgotten,
    PostingRecord,
    PostingStatus,
    RoundKind,
    RoundRecord,
    RunRecord,
    ScheduleRecord,
    StaleClaim,
)
from bot.storage.results import ResultRecord
from bot.storage.shards import ShardLease
from bot.storage.store import Store

__all__ = [
    "SCHEMA_VERSION",
    "SOURCES",
    "AnswerOutcome",
    "AnswerRequest",
    "AuditRecord",
    "CardRule",
    "CardState",
    "ChannelPacks",
    "CloseReason",
    "DatabaseTimeout",
    "DatabaseTooNewError",
    "DatabaseUnreachable",
    "DatabaseUnusable",
    "DbTimeouts",
    "Forgotten",
    "PackLimitReached",
    "PackRecord",
    "PostingRecord",
    "PostingStatus",
    "ResultRecord",
    "RoundKind",
    "RoundRecord",
    "RunRecord",
    "ScheduleRecord",
    "ShardLease",
    "Source",
    "StaleClaim",
    "StorageError",
    "Store",
]
