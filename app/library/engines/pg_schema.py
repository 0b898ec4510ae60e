"""The office library's schema on PostgreSQL: versioned migrations, checked every time the app connects.

The table ``bidstudio_schema`` lists the migrations applied (version, when, by whom). On
connect the app reads the highest: equal to :data:`LATEST` is ready; lower is migrated, one
step per transaction under an advisory lock (two apps starting at once never both migrate);
higher means a newer BidStudio upgraded the library and this one refuses it rather than
write what it does not understand. A role without the right to change the schema gets a
Chinese message telling the administrator what to do.

A step is SQL, or a function that fills what SQL cannot (the n-gram index of sections stored
before it existed is computed by the app, :mod:`app.library.engines.grams`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.library.engines.grams import tsvector_literal
from app.library.store import LibraryError

if TYPE_CHECKING:
    import psycopg

#: An arbitrary constant that names the migration lock (pg_advisory_xact_lock) of this app.
_LOCK_KEY = 7_426_180_040


@dataclass(frozen=True)
class Migration:
    """One schema step: its version, what it does (for the administrator), SQL and/or a data step."""

    version: int
    summary: str
    sql: tuple[str, ...] = ()
    fill: Callable[[psycopg.Connection[tuple[object, ...]]], None] | None = None


def _fill_grams(con: psycopg.Connection[tuple[object, ...]]) -> None:
    """Index the sections stored before the n-gram column existed (in batches, in the migration's transaction)."""
    while True:
        rows = con.execute("SELECT id, title, body, tables::text FROM sections WHERE grams IS NULL LIMIT 500").fetchall()
        if not rows:
            return
        with con.cursor() as cur:
            cur.executemany("UPDATE sections SET grams = %s::tsvector WHERE id = %s",
                            [(tsvector_literal(str(t), f"{b}\n{tables_flat(str(tb))}"), int(str(i)))
                             for i, t, b, tb in rows])


def tables_flat(tables_json: str) -> str:
    """A section's tables (JSON rows of cells) as tab-separated lines, as indexed with its body."""
    import json

    try:
        tables = json.loads(tables_json or "[]")
    except ValueError:
        return ""
    return "\n".join("\t".join(str(c) for c in row) for t in tables if isinstance(t, list)
                     for row in t if isinstance(row, list))


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "历史标书、章节、句子指纹与企业资料的表", sql=(
        """CREATE TABLE bids (
            id bigserial PRIMARY KEY, hash text NOT NULL UNIQUE, path text NOT NULL, name text NOT NULL,
            project text NOT NULL DEFAULT '', client text NOT NULL DEFAULT '', place text NOT NULL DEFAULT '',
            date text NOT NULL DEFAULT '', imported_at timestamptz NOT NULL DEFAULT now(),
            imported_by text NOT NULL DEFAULT '', section_count integer NOT NULL DEFAULT 0,
            metadata jsonb NOT NULL DEFAULT '{}')""",
        """CREATE TABLE sections (
            id bigserial PRIMARY KEY, bid_id bigint NOT NULL REFERENCES bids(id) ON DELETE CASCADE,
            ord integer NOT NULL, parent_ord integer, level integer NOT NULL, number text NOT NULL DEFAULT '',
            title text NOT NULL, heading_path text NOT NULL DEFAULT '', body text NOT NULL DEFAULT '',
            tables jsonb NOT NULL DEFAULT '[]')""",
        "CREATE INDEX sections_bid ON sections(bid_id, ord)",
        """CREATE TABLE names (bid_id bigint NOT NULL REFERENCES bids(id) ON DELETE CASCADE,
            kind text NOT NULL, value text NOT NULL)""",
        "CREATE INDEX names_bid ON names(bid_id)",
        """CREATE TABLE sentences (hash bigint NOT NULL,
            section_id bigint NOT NULL REFERENCES sections(id) ON DELETE CASCADE, pos integer NOT NULL)""",
        "CREATE INDEX sentences_hash ON sentences(hash)",
        "CREATE INDEX sentences_section ON sentences(section_id)",
        """CREATE TABLE facts (id bigserial PRIMARY KEY, kind text NOT NULL, data jsonb NOT NULL,
            source text NOT NULL DEFAULT '')""",
    )),
    Migration(2, "企业资料的版本号（多人同时修改时发现冲突）与去重", sql=(
        "ALTER TABLE facts ADD COLUMN version integer NOT NULL DEFAULT 1",
        "ALTER TABLE facts ADD COLUMN updated_by text NOT NULL DEFAULT ''",
        "ALTER TABLE facts ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now()",
        "ALTER TABLE facts ADD COLUMN data_key text",
        "UPDATE facts SET data_key = md5(data::text)",
        "DELETE FROM facts a USING facts b WHERE a.kind = b.kind AND a.data_key = b.data_key AND a.id > b.id",
        "ALTER TABLE facts ALTER COLUMN data_key SET NOT NULL",
        "CREATE UNIQUE INDEX facts_unique ON facts(kind, data_key)",
    )),
    Migration(3, "章节全文索引（程序生成的中文三字组，不需要数据库扩展）", sql=(
        "ALTER TABLE sections ADD COLUMN grams tsvector",
    ), fill=_fill_grams),
    # a small pending list (256 kB, not 4 MB): an import's new entries are merged into the index in small steps,
    # so a search right after a big import does not scan megabytes of unmerged entries (measured: p95 256 → 40 ms
    # on 20,000 sections, the import as fast)
    Migration(4, "全文索引的 GIN 索引", sql=(
        "CREATE INDEX sections_grams ON sections USING gin(grams) WITH (gin_pending_list_limit = 256)",
    )),
)
LATEST = MIGRATIONS[-1].version
#: The oldest server the engine supports (older releases are out of support and lack what it uses).
MIN_SERVER_VERSION = 120000


def schema_version(con: psycopg.Connection[tuple[object, ...]]) -> int:
    """The highest migration applied (0 for an empty database)."""
    exists = con.execute("SELECT to_regclass('bidstudio_schema') IS NOT NULL").fetchone()
    if not exists or not exists[0]:
        return 0
    row = con.execute("SELECT coalesce(max(version), 0) FROM bidstudio_schema").fetchone()
    return int(str(row[0])) if row else 0


def server_too_old(version_num: int) -> str:
    """The Chinese message for a server older than :data:`MIN_SERVER_VERSION` ("" when it is new enough)."""
    if version_num >= MIN_SERVER_VERSION:
        return ""
    major = version_num // 10000 if version_num >= 100000 else version_num / 10000
    return (f"服务器的 PostgreSQL 版本过旧（{major}），办公室资料库需要 PostgreSQL "
            f"{MIN_SERVER_VERSION // 10000} 或更新版本，请联系管理员升级服务器")


def ensure_schema(con: psycopg.Connection[tuple[object, ...]], user: str, *, target: int = LATEST) -> int:
    """Bring the database to ``target`` (default :data:`LATEST`); returns the version found before.

    Raises :class:`LibraryError` for a library newer than this app, or when the schema must
    change and this role may not change it.
    """
    import psycopg

    found = schema_version(con)
    if found > LATEST:
        raise LibraryError(f"办公室资料库已由更新版本的标书工坊升级（结构版本 {found}，本程序支持到 {LATEST}），"
                           "请先升级本程序")
    if found >= target:
        return found
    try:
        for step in MIGRATIONS:
            if step.version > target:
                break
            with con.transaction():
                con.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
                con.execute("CREATE TABLE IF NOT EXISTS bidstudio_schema (version integer PRIMARY KEY,"
                            " summary text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(),"
                            " applied_by text NOT NULL DEFAULT '')")
                if schema_version(con) >= step.version:  # another app did it while we waited for the lock
                    continue
                for statement in step.sql:
                    con.execute(statement)  # constant SQL of this module
                if step.fill is not None:
                    step.fill(con)
                con.execute("INSERT INTO bidstudio_schema(version, summary, applied_by) VALUES (%s, %s, %s)",
                            (step.version, step.summary, user))
    except psycopg.errors.InsufficientPrivilege as exc:
        what = "创建" if found == 0 else f"升级（结构版本 {found} → {target}）"
        raise LibraryError(f"数据库用户“{user}”没有权限{what}办公室资料库的表。请管理员用该数据库的所有者账户"
                           "打开一次标书工坊（会自动建表/升级），或授予此用户建表权限") from exc
    return found
