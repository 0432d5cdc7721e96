"""The command set last registered with a platform, so that only a changed one is registered again.

Discord rate-limits command registration; its adapter keeps here the hash of the exact payload it
sent, per application and scope (global, or one guild id). In the database rather than beside
it, so replicas on one PostgreSQL share it: the first to start with new commands registers them,
the others find the same hash and make no call.
"""

from __future__ import annotations

from bot.storage.engine import Engine


class CommandSyncTable:
    def __init__(self, engine: Engine) -> None:
        self._e = engine

    async def last_digest(self, platform: str, application: str, scope: str) -> str | None:
        """The hash last recorded for this application and scope; None if never synced."""
        async with self._e.reader() as c:
            value = await c.fetchval(
                """SELECT digest FROM command_syncs
                   WHERE platform = $1 AND application = $2 AND scope = $3""",
                platform,
                application,
                scope,
            )
        return None if value is None else str(value)

    async def record(self, platform: str, application: str, scope: str, digest: str) -> None:
        """The commands with this hash are registered now (replacing what was recorded)."""
        async with self._e.transaction() as tx:
            await tx.execute(
                """INSERT INTO command_syncs (platform, application, scope, digest)
                   VALUES ($1, $2, $3, $4)
                   ON CONFLICT (platform, application, scope) DO UPDATE
                   SET digest = excluded.digest""",
                platform,
                application,
                scope,
                digest,
            )
