"""Durable state in SQLite. Invariants (one answer per round and player) live in the schema."""

from bot.storage.db import Database, DatabaseTooNewError

__all__ = ["Database", "DatabaseTooNewError"]
