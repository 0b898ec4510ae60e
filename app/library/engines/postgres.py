"""The PostgreSQL engine: the office's shared library on a database server (psycopg 3).

One connection per app (autocommit; each write is one explicit transaction), used under a
lock like the SQLite engine's. Many writers at once are the server's job: a bid is inserted
with ``ON CONFLICT (hash) DO NOTHING`` inside its transaction, so two writers importing the
same bid get one copy (the second waits for the first and finds it); readers never wait
for an import (MVCC); a writer killed mid-import leaves nothing of its unfinished bid; a
fact carries a version and an edit names the version it started from.

When the server cannot be reached a call raises :class:`LibraryUnavailable` at once (after
the first failure the engine does not block the caller on connect attempts for
:data:`RETRY_SECONDS`); :meth:`PostgresStore.ping` — run by the app in the background —
reconnects, and every (re)connection checks the schema version first.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from app.library.engines.grams import query_grams, tsquery_all, tsquery_any, tsvector_literal
from app.library.engines.pg_errors import describe_connect_error
from app.library.engines.pg_schema import ensure_schema, server_too_old, tables_flat
from app.library.engines.rows import fact_blob, fact_record, stored_section
from app.library.store import (
    BidInfo,
    FactConflict,
    FactRecord,
    LibraryError,
    LibrarySpec,
    LibraryStore,
    LibraryUnavailable,
    SectionRow,
    StoredBid,
    StoredSection,
    conflict_message,
    register_engine,
    writer_name,
)

if TYPE_CHECKING:
    import psycopg

    from app.library.store import ServerConfig

T = TypeVar("T")
#: After a failed connection, calls fail at once for this long (the background ping reconnects sooner).
RETRY_SECONDS = 3.0
APPLICATION_NAME = "BidStudio"


def connect(config: ServerConfig, application_name: str = APPLICATION_NAME) -> psycopg.Connection[Any]:
    """A new autocommit connection to the configured server (raises psycopg's errors as they come)."""
    import psycopg

    return psycopg.connect(host=config.host, port=config.port, dbname=config.database, user=config.user,
                           password=config.password, connect_timeout=config.connect_timeout,
                           application_name=application_name, autocommit=True)


def explain(exc: BaseException, config: ServerConfig) -> LibraryError:
    """A psycopg error as a :class:`LibraryError` with a Chinese message (unreachable → :class:`LibraryUnavailable`)."""
    import psycopg

    if isinstance(exc, LibraryError):
        return exc
    if isinstance(exc, psycopg.errors.InsufficientPrivilege | psycopg.errors.ReadOnlySqlTransaction):
        return LibraryError(f"数据库用户“{config.user}”只有读取权限：可以查看和搜索办公室资料库，但不能导入、修改或删除。"
                            "如需写入，请联系管理员授予权限")
    if isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError):
        kind, message = describe_connect_error(exc, config)
        return LibraryUnavailable(message) if kind in ("unreachable", "lost") else LibraryError(message)
    return LibraryError(f"办公室资料库出错：{exc}")


@register_engine
class PostgresStore(LibraryStore):
    """The office library on ``config``'s server; ``lazy`` connects on first use instead of now."""

    engine = "postgres"
    fts = True

    def __init__(self, config: ServerConfig, *, lazy: bool = False,
                 application_name: str = APPLICATION_NAME) -> None:
        self.config = config
        self.application_name = application_name
        self.lock = threading.RLock()
        self._conn: psycopg.Connection[Any] | None = None
        self._closed = False
        self._retry_at = 0.0
        self.last_error = ""
        #: Whether a call reconnects by itself (a worker, a script); the app sets False so a call in the GUI
        #: thread never waits on a connect attempt, and reconnects by :meth:`ping` in the background.
        self.reconnect_on_call = True
        if lazy:
            self.last_error = "正在连接办公室资料库……"
        else:
            self._conn = self._open()

    @classmethod
    def open_server(cls, server: ServerConfig, *, lazy: bool = False) -> LibraryStore:
        """The office library on ``server``."""
        return cls(server, lazy=lazy)

    # ------------------------------------------------------------------ connection
    def _open(self) -> psycopg.Connection[Any]:
        """Connect, check the server's version, bring the schema up to date (raises :class:`LibraryError`)."""
        try:
            import psycopg
        except ImportError as exc:
            raise LibraryError("本程序未安装连接 PostgreSQL 所需的组件 psycopg（pip install \"bidstudio[office]\"），"
                               "无法使用办公室资料库") from exc
        try:
            con = connect(self.config, self.application_name)
        except psycopg.Error as exc:
            raise explain(exc, self.config) from exc
        try:
            too_old = server_too_old(con.info.server_version)
            if too_old:
                raise LibraryError(too_old)
            ensure_schema(con, self.config.user)
        except psycopg.Error as exc:
            con.close()
            raise explain(exc, self.config) from exc
        except LibraryError:
            con.close()
            raise
        return con

    def _failed(self, exc: LibraryError) -> None:
        self.last_error = exc.message_zh
        self._retry_at = time.monotonic() + RETRY_SECONDS
        if self._conn is not None:
            try:
                self._conn.close()
            except Exception:  # a broken connection may fail to close; it is dropped either way
                pass
            self._conn = None

    def _connection(self) -> psycopg.Connection[Any]:
        if self._closed:
            raise LibraryError("办公室资料库已关闭")
        if self._conn is not None and not self._conn.closed and not self._conn.broken:
            return self._conn
        if not self.reconnect_on_call or time.monotonic() < self._retry_at:
            raise LibraryUnavailable(self.last_error or "办公室资料库服务器暂时无法连接，正在自动重试")
        try:
            self._conn = self._open()
        except LibraryError as exc:
            self._failed(exc)
            raise
        self.last_error = ""
        return self._conn

    def _call(self, work: Callable[[psycopg.Connection[Any]], T]) -> T:
        """Run ``work`` on the connection; a connection lost on the way is reopened and ``work`` run once more
        (each write is one transaction, rolled back by the server when the connection broke)."""
        import psycopg

        with self.lock:
            for attempt in (1, 2):
                con = self._connection()
                try:
                    return work(con)
                except psycopg.Error as exc:
                    error = explain(exc, self.config)
                    if not isinstance(error, LibraryUnavailable) or not (con.closed or con.broken):
                        raise error from exc
                    self._failed(error)
                    if attempt == 2:
                        raise error from exc
                    self._retry_at = 0.0  # the server may be back already (a restart): try once now
        raise AssertionError("unreachable")

    def spec(self) -> LibrarySpec:
        """This server (the password travels in memory only)."""
        return LibrarySpec("postgres", server=self.config)

    def close(self) -> None:
        """Close the connection; the object is unusable afterwards."""
        with self.lock:
            self._closed = True
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def ping(self) -> bool:
        """Whether the server answers now; reconnects (without making other callers wait on the attempt)."""
        if self._closed:
            return False
        with self.lock:
            con = self._conn
        if con is not None and not con.closed and not con.broken:
            try:
                with self.lock:
                    con.execute("SELECT 1")
                return True
            except Exception as exc:  # the connection died since: fall through to reconnecting
                with self.lock:
                    self._failed(explain(exc, self.config))
        try:
            fresh = self._open()
        except LibraryError as exc:
            with self.lock:
                self.last_error = exc.message_zh
                self._retry_at = time.monotonic() + RETRY_SECONDS
            return False
        with self.lock:
            if self._closed:
                fresh.close()
                return False
            old, self._conn = self._conn, fresh
            self.last_error = ""
            self._retry_at = 0.0
        if old is not None and old is not fresh:
            old.close()
        return True

    def server_version(self) -> int:
        """The server's version number (150004 for 15.4)."""
        return self._call(lambda con: int(con.info.server_version))

    def schema_version(self) -> int:
        """The database's schema version."""
        from app.library.engines.pg_schema import schema_version

        return self._call(schema_version)

    # ------------------------------------------------------------------ bids
    def has_hash(self, content_hash: str) -> int | None:
        """The id of a stored bid with this content hash, or None."""
        row = self._call(lambda con: con.execute("SELECT id FROM bids WHERE hash = %s", (content_hash,)).fetchone())
        return int(row[0]) if row else None

    def add_bid(self, content_hash: str, path: str, name: str, info: dict[str, str], sections: Sequence[SectionRow],
                names: Iterable[tuple[str, str]] = (), metadata: dict[str, str] | None = None) -> int | None:
        """Store one bid in one transaction; None when it is stored already (or another writer just stored it)."""
        unique_names = list(dict.fromkeys(names))

        def write(con: psycopg.Connection[Any]) -> int | None:
            with con.transaction(), con.cursor() as cur:
                # as SQLite's WAL with synchronous=NORMAL: a server crash may lose the last moment's imports (each
                # whole or absent, and a re-import recognises what is stored), never consistency; no wait on a disk flush
                cur.execute("SET LOCAL synchronous_commit = off")
                cur.execute(
                    "INSERT INTO bids(hash, path, name, project, client, place, date, section_count, metadata,"
                    " imported_by) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s) ON CONFLICT (hash) DO NOTHING RETURNING id",
                    (content_hash, path, name, info.get("project", ""), info.get("client", ""),
                     info.get("place", ""), info.get("date", ""), len(sections),
                     json.dumps(metadata or {}, ensure_ascii=False), writer_name()))
                row = cur.fetchone()
                if row is None:
                    return None
                bid_id = int(row[0])
                ids = [int(r[0]) for r in cur.execute(
                    "SELECT nextval('sections_id_seq') FROM generate_series(1, %s)", (len(sections),)).fetchall()]
                with cur.copy("COPY sections (id, bid_id, ord, parent_ord, level, number, title, heading_path, body,"
                              " tables, grams) FROM STDIN") as copy:
                    for sid, s in zip(ids, sections, strict=True):
                        tables = json.dumps(s.tables, ensure_ascii=False) if s.tables else "[]"
                        copy.write_row((sid, bid_id, s.ord, s.parent_ord, s.level, s.number, s.title, s.heading_path,
                                        s.body, tables, tsvector_literal(s.title, s.body + "\n" + tables_flat(tables))))
                with cur.copy("COPY sentences (hash, section_id, pos) FROM STDIN") as copy:
                    for sid, s in zip(ids, sections, strict=True):
                        for i, h in enumerate(s.sentence_hashes):
                            copy.write_row((h, sid, i))
                if unique_names:
                    with cur.copy("COPY names (bid_id, kind, value) FROM STDIN") as copy:
                        for k, v in unique_names:
                            copy.write_row((bid_id, k, v))
                return bid_id

        return self._call(write)

    def bids(self) -> list[BidInfo]:
        """Every stored bid, newest import first."""
        rows = self._call(lambda con: con.execute(
            "SELECT id, name, path, project, client, place, date, to_char(imported_at, 'YYYY-MM-DD HH24:MI:SS'),"
            " section_count FROM bids ORDER BY id DESC").fetchall())
        return [BidInfo(int(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4]), str(r[5]), str(r[6]), str(r[7]),
                        int(r[8])) for r in rows]

    def bid_copy(self, bid_id: int) -> StoredBid | None:
        """Everything stored of one bid."""
        def read(con: psycopg.Connection[Any]) -> StoredBid | None:
            with con.transaction():  # one snapshot
                head = con.execute("SELECT hash, path, name, project, client, place, date, metadata FROM bids"
                                   " WHERE id = %s", (bid_id,)).fetchone()
                if head is None:
                    return None
                rows = con.execute("SELECT id, ord, parent_ord, level, number, title, heading_path, body, tables"
                                   " FROM sections WHERE bid_id = %s ORDER BY ord", (bid_id,)).fetchall()
                hashes: dict[int, list[int]] = {}
                for h, sid in con.execute("SELECT s.hash, s.section_id FROM sentences s JOIN sections x ON"
                                          " x.id = s.section_id WHERE x.bid_id = %s ORDER BY s.section_id, s.pos",
                                          (bid_id,)):
                    hashes.setdefault(int(sid), []).append(int(h))
                names = [(str(k), str(v)) for k, v in
                         con.execute("SELECT kind, value FROM names WHERE bid_id = %s", (bid_id,))]
            sections = [SectionRow(ord=int(r[1]), parent_ord=None if r[2] is None else int(r[2]), level=int(r[3]),
                                   number=str(r[4]), title=str(r[5]), heading_path=str(r[6]), body=str(r[7]),
                                   tables=list(r[8]), sentence_hashes=hashes.get(int(r[0]), [])) for r in rows]
            info = {"project": str(head[3]), "client": str(head[4]), "place": str(head[5]), "date": str(head[6])}
            return StoredBid(str(head[0]), str(head[1]), str(head[2]), info, dict(head[7]), sections, names)

        return self._call(read)

    def remove_bid(self, bid_id: int) -> None:
        """Delete a bid (its sections, names and sentence hashes go with it)."""
        self._call(lambda con: con.execute("DELETE FROM bids WHERE id = %s", (bid_id,)))

    def names(self) -> list[tuple[int, str, str]]:
        """Every recorded name of every bid."""
        rows = self._call(lambda con: con.execute("SELECT bid_id, kind, value FROM names").fetchall())
        return [(int(a), str(b), str(c)) for a, b, c in rows]

    def contains_text(self, text: str) -> bool:
        """Whether a section's title, body or tables contain ``text`` (the n-gram index narrows, strpos decides)."""
        query = tsquery_all(text)
        if query and len(text.strip()) >= 3:
            sql = ("SELECT 1 FROM sections WHERE grams @@ %s::tsquery AND (strpos(title, %s) > 0 OR strpos(body, %s) > 0"
                   " OR strpos(tables::text, %s) > 0) LIMIT 1")
            args: tuple[str, ...] = (query, text, text, text)
        else:
            sql = "SELECT 1 FROM sections WHERE strpos(title, %s) > 0 OR strpos(body, %s) > 0 LIMIT 1"
            args = (text, text)
        return self._call(lambda con: con.execute(sql, args).fetchone()) is not None

    def counts(self) -> tuple[int, int]:
        """(bids, sections) stored."""
        row = self._call(lambda con: con.execute(
            "SELECT (SELECT count(*) FROM bids), (SELECT count(*) FROM sections)").fetchone())
        return (int(row[0]), int(row[1])) if row else (0, 0)

    # ------------------------------------------------------------------ sections
    _SECTION_SQL = ("SELECT s.id, s.bid_id, s.ord, s.level, s.number, s.title, s.heading_path, s.body, s.tables,"
                    " b.name, b.project, b.client FROM sections s JOIN bids b ON b.id = s.bid_id")

    def sections(self, ids: Sequence[int]) -> list[StoredSection]:
        """Stored sections by id, in the order asked."""
        if not ids:
            return []
        rows = self._call(lambda con: con.execute(self._SECTION_SQL + " WHERE s.id = ANY(%s)", (list(ids),)).fetchall())
        by_id = {int(r[0]): stored_section(r) for r in rows}
        return [by_id[i] for i in ids if i in by_id]

    def sections_of(self, bid_id: int) -> list[StoredSection]:
        """A bid's sections in document order."""
        rows = self._call(lambda con: con.execute(self._SECTION_SQL + " WHERE s.bid_id = %s ORDER BY s.ord",
                                                  (bid_id,)).fetchall())
        return [stored_section(r) for r in rows]

    def sentence_sources(self, hashes: Sequence[int]) -> dict[int, list[int]]:
        """For each hash found, the section ids holding that sentence (one query for all)."""
        if not hashes:
            return {}
        rows = self._call(lambda con: con.execute("SELECT hash, section_id FROM sentences WHERE hash = ANY(%s)",
                                                  (list(hashes),)).fetchall())
        out: dict[int, list[int]] = {}
        for h, sid in rows:
            out.setdefault(int(h), []).append(int(sid))
        return out

    def candidate_ids(self, grams: Sequence[str], limit: int) -> list[int]:
        """Sections matching any of the query's 3-grams, ranked by ``ts_rank`` (title grams weigh 10:1)."""
        kept = query_grams(grams)
        if not kept:
            return []
        if all(len(g) < 3 for g in kept):  # a one- or two-character query: scan, as the SQLite engine does
            rows = self._call(lambda con: con.execute(
                "SELECT id FROM sections WHERE strpos(title, %s) > 0 OR strpos(body, %s) > 0 LIMIT %s",
                (kept[0], kept[0], limit * 4)).fetchall())
        else:
            query = tsquery_any(kept)
            rows = self._call(lambda con: con.execute(
                "SELECT id FROM sections, CAST(%s AS tsquery) q WHERE grams @@ q ORDER BY ts_rank(grams, q) DESC, id"
                " LIMIT %s", (query, limit)).fetchall())
        return [int(r[0]) for r in rows]

    def section_previews(self, ids: Sequence[int], body_chars: int) -> list[tuple[int, str, str, bool]]:
        """``(id, title, body start, has tables)`` of the given sections."""
        if not ids:
            return []
        rows = self._call(lambda con: con.execute(
            "SELECT id, title, substr(body, 1, %s), tables <> '[]'::jsonb FROM sections WHERE id = ANY(%s)",
            (int(body_chars), list(ids))).fetchall())
        return [(int(a), str(b), str(c), bool(d)) for a, b, c, d in rows]

    # ------------------------------------------------------------------ company facts
    _FACT_SQL = ("SELECT id, kind, data, source, version, updated_by, to_char(updated_at, 'YYYY-MM-DD HH24:MI')"
                 " FROM facts")

    def add_facts(self, facts: Sequence[tuple[str, dict[str, str], str]]) -> list[int | None]:
        """Store facts in one transaction; one equal to a stored fact (same kind and fields) gets None."""
        def write(con: psycopg.Connection[Any]) -> list[int | None]:
            out: list[int | None] = []
            with con.transaction():
                for kind, data, source in facts:
                    blob = fact_blob(data)
                    row = con.execute("INSERT INTO facts(kind, data, data_key, source, updated_by)"
                                      " VALUES (%s, %s::jsonb, md5(%s::jsonb::text), %s, %s)"
                                      " ON CONFLICT (kind, data_key) DO NOTHING RETURNING id",
                                      (kind, blob, blob, source, writer_name())).fetchone()
                    out.append(int(row[0]) if row else None)
            return out

        return self._call(write)

    def facts(self, kind: str | None = None) -> list[FactRecord]:
        """Stored facts (of one kind), in the order they were added."""
        if kind:
            rows = self._call(lambda con: con.execute(self._FACT_SQL + " WHERE kind = %s ORDER BY id",
                                                      (kind,)).fetchall())
        else:
            rows = self._call(lambda con: con.execute(self._FACT_SQL + " ORDER BY id").fetchall())
        return [fact_record(r) for r in rows]

    def update_fact(self, fact_id: int, data: dict[str, str], expected_version: int) -> FactRecord:
        """Change a fact if it is still at ``expected_version``; :class:`FactConflict` (Chinese) otherwise."""
        import psycopg

        blob = fact_blob(data)

        def write(con: psycopg.Connection[Any]) -> tuple[bool, tuple[Any, ...] | None]:
            with con.transaction():
                changed = con.execute(
                    "UPDATE facts SET data = %s::jsonb, data_key = md5(%s::jsonb::text), version = version + 1,"
                    " updated_by = %s, updated_at = now() WHERE id = %s AND version = %s RETURNING id",
                    (blob, blob, writer_name(), fact_id, expected_version)).fetchone()
                row = con.execute(self._FACT_SQL + " WHERE id = %s", (fact_id,)).fetchone()
            return changed is not None, row

        try:
            ok, row = self._call(write)
        except LibraryError as exc:
            if isinstance(exc.__cause__, psycopg.errors.UniqueViolation):
                raise LibraryError("企业资料中已有一条内容完全相同的记录，未保存此修改") from exc
            raise
        current = fact_record(row) if row is not None else None
        if not ok or current is None:
            raise FactConflict(conflict_message(current), current)
        return current

    def remove_fact(self, fact_id: int) -> None:
        """Delete one stored fact."""
        self._call(lambda con: con.execute("DELETE FROM facts WHERE id = %s", (fact_id,)))
