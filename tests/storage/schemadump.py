"""What a database's schema is, as plain data: tables, columns (type, nullability, default, key
position), keys, unique constraints, foreign keys, checks and indexes, read from the catalogue.

Used by tests/storage/test_schema.py to hold the migrations to the schema releases shipped
(tests/data/schema.json) and SQLite and PostgreSQL to each other. SQLite keeps each table's
CREATE text (ALTERs rewrite it), so that text, whitespace collapsed, is part of its dump: it is
what a file holds. Script (writes the fixture from fresh databases of this checkout's code):

    .venv/bin/python tests/storage/schemadump.py tests/data/schema.json
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

import asyncpg

Json = dict[str, Any]


def squash(sql: str) -> str:
    return re.sub(r"\s+", " ", sql).strip()


def checks_in(sql: str) -> list[str]:
    """Every `CHECK (...)` of a CREATE TABLE text, parentheses balanced."""
    found: list[str] = []
    for match in re.finditer(r"\bCHECK\s*\(", sql, re.IGNORECASE):
        depth, start = 0, match.end() - 1
        for n in range(start, len(sql)):
            depth += {"(": 1, ")": -1}.get(sql[n], 0)
            if depth == 0:
                found.append(squash(sql[start + 1 : n]))
                break
    return found


def sqlite_schema(path: str | Path) -> Json:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables: Json = {}
        names = conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        ).fetchall()
        for name, sql in sorted(names):
            columns = [
                [r[1], r[2], bool(r[3]), r[4], r[5]]
                for r in conn.execute(f"PRAGMA table_info({name})")
            ]
            unique = sorted(
                [r[2] for r in conn.execute(f"PRAGMA index_info('{idx[1]}')")]
                for idx in conn.execute(f"PRAGMA index_list({name})")
                if idx[3] == "u"
            )
            fks = sorted(
                [r[3], r[2], r[4]] for r in conn.execute(f"PRAGMA foreign_key_list({name})")
            )
            tables[name] = {
                "columns": columns,
                "unique": unique,
                "foreign_keys": fks,
                "checks": sorted(checks_in(sql)),
                "without_rowid": bool(re.search(r"WITHOUT\s+ROWID\s*$", sql, re.IGNORECASE)),
                "sql": squash(sql),
            }
        indexes = {
            name: {"table": table, "sql": squash(sql)}
            for name, table, sql in conn.execute(
                "SELECT name, tbl_name, sql FROM sqlite_master"
                " WHERE type = 'index' AND sql IS NOT NULL"
            )
        }
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        return {"tables": tables, "indexes": dict(sorted(indexes.items())), "user_version": version}
    finally:
        conn.close()


async def postgres_schema(url: str) -> Json:
    conn = await asyncpg.connect(url)
    try:
        tables: Json = {}
        rels = await conn.fetch(
            """SELECT c.oid, c.relname FROM pg_class c
               WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace
               ORDER BY c.relname"""
        )
        for rel in rels:
            columns = await conn.fetch(
                """SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
                          pg_get_expr(d.adbin, d.adrelid), a.attidentity::text
                   FROM pg_attribute a LEFT JOIN pg_attrdef d
                     ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                   WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped
                   ORDER BY a.attnum""",
                rel["oid"],
            )
            constraints = await conn.fetch(
                """SELECT conname, contype::text, pg_get_constraintdef(oid) FROM pg_constraint
                   WHERE conrelid = $1 AND contype <> 'n' ORDER BY conname""",
                rel["oid"],
            )
            tables[rel["relname"]] = {
                "columns": [[c[0], c[1], c[2], c[3], c[4]] for c in columns],
                "constraints": [[c[0], c[1], c[2]] for c in constraints],
            }
        indexes = await conn.fetch(
            """SELECT indexname, tablename, indexdef FROM pg_indexes
               WHERE schemaname = current_schema() ORDER BY indexname"""
        )
        return {
            "tables": tables,
            "indexes": {i[0]: {"table": i[1], "sql": i[2]} for i in indexes},
        }
    finally:
        await conn.close()


async def schema_of(target: str) -> Json:
    """The dump of a SQLite file or a PostgreSQL database (its URL)."""
    if target.startswith("postgresql://"):
        return await postgres_schema(target)
    return sqlite_schema(target)


async def _fresh_dumps() -> Json:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from pg_server import start_server

    from bot.storage import Store

    with tempfile.TemporaryDirectory() as work:
        file = Path(work) / "fresh.sqlite3"
        await (await Store.open(file)).close()
        root = Path(work) / "pg"
        root.mkdir()
        os.chmod(work, 0o755)  # the server may run as `nobody` (pg_server.py)
        os.chmod(root, 0o755)
        server = start_server(root)
        try:
            url = server.url(await server.create_database())
            await (await Store.open(url)).close()
            return {"sqlite": sqlite_schema(file), "postgres": await postgres_schema(url)}
        finally:
            server.stop()


if __name__ == "__main__":
    out = Path(sys.argv[1])
    out.write_text(json.dumps(asyncio.run(_fresh_dumps()), indent=1) + "\n")
    print(f"wrote {out}")
