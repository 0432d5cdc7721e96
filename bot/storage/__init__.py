"""Durable state. Only this package holds SQL; the core calls `Store`'s named methods.

Invariants live in the schema: one answer per round and player, inserted only while the round is
open; one daily posting per schedule and local date; one round per run step.
"""

from bot.storage.errors import (
    DatabaseTooNewError,
    DatabaseUnreachable,
    DatabaseUnusable,
    StorageError,
)
from bot.storage.migrations import SCHEMA_VERSION
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
from bot.storage.shards import ShardLease
from bot.storage.store import Store

__all__ = [
    "SCHEMA_VERSION",
    "AnswerOutcome",
    "AnswerRequest",
    "AuditRecord",
    "CardRule",
    "CardState",
    "CloseReason",
    "DatabaseTooNewError",
    "DatabaseUnreachable",
    "DatabaseUnusable",
    "Forgotten",
    "PostingRecord",
    "PostingStatus",
    "RoundKind",
    "RoundRecord",
    "RunRecord",
    "ScheduleRecord",
    "ShardLease",
    "StaleClaim",
    "StorageError",
    "Store",
]
