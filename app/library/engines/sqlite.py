"""The SQLite engine: one local file with past bids, their sections, sentence hashes and company facts.

Each imported bid is written in one transaction (a kill mid-import leaves only whole bids;
WAL journal). Sections are indexed for full-text search with FTS5's ``trigram`` tokenizer,
which matches Chinese substrings without a word segmenter; when this SQLite lacks FTS5 or
trigram, :attr:`SqliteStore.fts` is False and searches scan the table instead. Sentences of
every section are stored as hashes, so 查重 looks up a sentence in one index probe. The schema
carries a version (``meta.schema``); older files are migrated when opened.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from app.library.engines.rows import fact_blob, fact_record, stored_section, tables_text
from app.library.store import (
    BidInfo,
    FactConflict,
    FactRecord,
    LibraryError,
    LibrarySpec,
    LibraryStore,
    SectionRow,
    StoredBid,
    StoredSection,
    conflict_message,
    now_text,
    register_engine,
    writer_name,
)

SCHEMA_VERSION = 2
#: How long a write waits for another process's write (an import process, a second window) before failing.
BUSY_TIMEOUT_S = 15.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS bids (
    id INTEGER PRIMARY KEY, hash TEXT NOT NULL UNIQUE, path TEXT NOT NULL, name TEXT NOT NULL,
    project TEXT NOT NULL DEFAULT '', client TEXT NOT NULL DEFAULT '', place TEXT NOT NULL DEFAULT '',
    date TEXT NOT NULL DEFAULT '', imported_at TEXT NOT NULL DEFAULT (datetime('now')),
    section_count INTEGER NOT NULL DEFAULT 0, metadata TEXT NOT NULL DEFAULT '{}');
CREATE TABLE IF NOT EXISTS sections (
    id INTEGER PRIMARY KEY, bid_id INTEGER NOT NULL REFERENCES bids(id) ON DELETE CASCADE,
    ord INTEGER NOT NULL, parent_ord INTEGER, level INTEGER NOT NULL, number TEXT NOT NULL DEFAULT '',
    title TEXT NOT NULL, heading_path TEXT NOT NULL DEFAULT '', body TEXT NOT NULL DEFAULT '',
    tables TEXT NOT NULL DEFAULT '[]');
CREATE INDEX IF NOT EXISTS sections_bid ON sections(bid_id, ord);
CREATE TABLE IF NOT EXISTS names (bid_id INTEGER NOT NULL REFERENCES bids(id) ON DELETE CASCADE,
    kind TEXT NOT NULL, value TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS names_bid ON names(bid_id);
CREATE TABLE IF NOT EXISTS sentences (hash INTEGER NOT NULL, section_id INTEGER NOT NULL
    REFERENCES sections(id) ON DELETE CASCADE, pos INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS sentences_hash ON sentences(hash);
CREATE INDEX IF NOT EXISTS sentences_section ON sentences(section_id);
CREATE TABLE IF NOT EXISTS facts (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, data TEXT NOT NULL,
    source TEXT NOT NULL DEFAULT '');
"""
#: Schema changes after version 1, by the version they bring the file to (applied in order, once).
_MIGRATIONS: dict[int, tuple[str, ...]] = {
    2: ("ALTER TABLE facts ADD COLUMN version INTEGER NOT NULL DEFAULT 1",
        "ALTER TABLE facts ADD COLUMN updated_by TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE facts ADD COLUMN updated_at TEXT NOT NULL DEFAULT ''"),
}


@register_engine
class SqliteStore(LibraryStore):
    """The library file at ``path`` (created when missing). One connection; a lock serialises use."""

    engine = "sqlite"

    def __init__(self, path: Path, *, use_fts: bool = True) -> None:
        self.path = path
        self.lock = threading.RLock()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None,
                                        timeout=BUSY_TIMEOUT_S)
        except (sqlite3.Error, OSError) as exc:
            raise LibraryError(f"无法打开资料库文件“{path}”：{exc}") from exc
        try:
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.execute("PRAGMA foreign_keys=ON")
            self._migrate()
            self.fts = use_fts and self._ensure_fts()
            self._record_table_people()
        except sqlite3.Error as exc:
            self.conn.close()
            raise LibraryError(f"无法打开资料库文件“{path}”：{exc}") from exc
        except LibraryError:
            self.conn.close()
            raise

    def _migrate(self) -> None:
        """Create the tables, then bring an older file to :data:`SCHEMA_VERSION` (refusing a newer one)."""
        self.conn.executescript(_SCHEMA)
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if row is None:  # a new file: the base tables are version 1
            self.conn.execute("INSERT INTO meta VALUES ('schema', '1')")
            version = 1
        else:
            version = int(row[0])
        if version > SCHEMA_VERSION:
            raise LibraryError(f"资料库文件“{self.path}”由更新版本的标书工坊创建（结构版本 {version}，"
                               f"本程序支持到 {SCHEMA_VERSION}），请升级本程序后再打开")
        with self.transaction() as con:
            for target in range(version + 1, SCHEMA_VERSION + 1):
                for statement in _MIGRATIONS[target]:
                    con.execute(statement)
            con.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (str(SCHEMA_VERSION),))

    def schema_version(self) -> int:
        """The file's schema version."""
        with self.lock:
            return int(self.conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0])

    def _record_table_people(self) -> None:
        """Once per library: the people of stored staff tables, for bids imported before tables were read
        for names (a scan of the sections that have tables, ~60 ms for 200 bids)."""
        from app.library.people import people_in_tables

        if self.conn.execute("SELECT 1 FROM meta WHERE key = 'table_people'").fetchone():
            return
        with self.transaction() as con:
            have = set(con.execute("SELECT bid_id, value FROM names WHERE kind = 'person'").fetchall())
            new: list[tuple[int, str, str]] = []
            for bid_id, blob in con.execute("SELECT bid_id, tables FROM sections WHERE tables <> '[]'").fetchall():
                try:
                    tables = json.loads(str(blob))
                except ValueError:
                    continue
                for name in people_in_tables(tables if isinstance(tables, list) else []):
                    if (bid_id, name) not in have:
                        have.add((bid_id, name))
                        new.append((int(bid_id), "person", name))
            con.executemany("INSERT INTO names(bid_id, kind, value) VALUES (?,?,?)", new)
            con.execute("INSERT OR REPLACE INTO meta VALUES ('table_people', '1')")

    def _ensure_fts(self) -> bool:
        try:
            self.conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS section_fts USING fts5(title, body, tokenize='trigram')")
        except sqlite3.Error:
            return False
        return True

    def spec(self) -> LibrarySpec:
        """This file, with the same full-text choice."""
        return LibrarySpec("sqlite", str(self.path), self.fts)

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def ping(self) -> bool:
        """A local file always answers while open."""
        return True

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE … COMMIT, rolled back on any error); a file another process
        keeps locked past the busy timeout is a :class:`LibraryError`, like any SQLite failure inside."""
        with self.lock:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise LibraryError(f"资料库文件正被其他程序写入，等待 {BUSY_TIMEOUT_S:.0f} 秒后仍未释放（{exc}），请稍后再试。"
                                   "多人同时使用请改用办公室资料库（设置 → 资料库）") from exc
            try:
                yield self.conn
            except BaseException as exc:
                self.conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise LibraryError(f"写入资料库文件失败（{exc}），本次写入已撤销") from exc
                raise
            try:
                self.conn.execute("COMMIT")
            except sqlite3.Error as exc:
                self.conn.execute("ROLLBACK")
                raise LibraryError(f"写入资料库文件失败（{exc}），本次写入已撤销") from exc

    # ------------------------------------------------------------------ bids
    def has_hash(self, content_hash: str) -> int | None:
        """The id of a stored bid with this content hash, or None."""
        with self.lock:
            row = self.conn.execute("SELECT id FROM bids WHERE hash = ?", (content_hash,)).fetchone()
        return int(row[0]) if row else None

    def add_bid(self, content_hash: str, path: str, name: str, info: dict[str, str], sections: Sequence[SectionRow],
                names: Iterable[tuple[str, str]] = (), metadata: dict[str, str] | None = None) -> int | None:
        """Store one bid and its sections in one transaction; None when the same content is stored already."""
        with self.transaction() as con:
            if con.execute("SELECT 1 FROM bids WHERE hash = ?", (content_hash,)).fetchone():
                return None
            cur = con.execute(
                "INSERT INTO bids(hash, path, name, project, client, place, date, section_count, metadata)"
                " VALUES (?,?,?,?,?,?,?,?,?)",
                (content_hash, path, name, info.get("project", ""), info.get("client", ""), info.get("place", ""),
                 info.get("date", ""), len(sections), json.dumps(metadata or {}, ensure_ascii=False)))
            bid_id = int(cur.lastrowid or 0)
            for s in sections:
                c = con.execute(
                    "INSERT INTO sections(bid_id, ord, parent_ord, level, number, title, heading_path, body, tables)"
                    " VALUES (?,?,?,?,?,?,?,?,?)",
                    (bid_id, s.ord, s.parent_ord, s.level, s.number, s.title, s.heading_path, s.body,
                     json.dumps(s.tables, ensure_ascii=False) if s.tables else "[]"))
                sid = int(c.lastrowid or 0)
                if self.fts:
                    con.execute("INSERT INTO section_fts(rowid, title, body) VALUES (?,?,?)",
                                (sid, s.title, s.body + "\n" + tables_text(s.tables)))
                if s.sentence_hashes:
                    con.executemany("INSERT INTO sentences(hash, section_id, pos) VALUES (?,?,?)",
                                    [(h, sid, i) for i, h in enumerate(s.sentence_hashes)])
            con.executemany("INSERT INTO names(bid_id, kind, value) VALUES (?,?,?)",
                            [(bid_id, k, v) for k, v in dict.fromkeys(names)])
        return bid_id

    def bids(self) -> list[BidInfo]:
        """Every stored bid, newest import first."""
        with self.lock:
            rows = self.conn.execute("SELECT id, name, path, project, client, place, date, imported_at, section_count"
                                     " FROM bids ORDER BY id DESC").fetchall()
        return [BidInfo(*r) for r in rows]

    def bid_copy(self, bid_id: int) -> StoredBid | None:
        """Everything stored of one bid (sections with their sentence hashes, names, metadata)."""
        with self.lock:
            head = self.conn.execute("SELECT hash, path, name, project, client, place, date, metadata FROM bids"
                                     " WHERE id = ?", (bid_id,)).fetchone()
            if head is None:
                return None
            rows = self.conn.execute("SELECT id, ord, parent_ord, level, number, title, heading_path, body, tables"
                                     " FROM sections WHERE bid_id = ? ORDER BY ord", (bid_id,)).fetchall()
            hashes: dict[int, list[int]] = {}
            for h, sid in self.conn.execute("SELECT s.hash, s.section_id FROM sentences s JOIN sections x"
                                            " ON x.id = s.section_id WHERE x.bid_id = ? ORDER BY s.section_id, s.pos",
                                            (bid_id,)):
                hashes.setdefault(int(sid), []).append(int(h))
            names = [(str(k), str(v)) for k, v in
                     self.conn.execute("SELECT kind, value FROM names WHERE bid_id = ?", (bid_id,))]
        sections = [SectionRow(ord=int(r[1]), parent_ord=None if r[2] is None else int(r[2]), level=int(r[3]),
                               number=str(r[4]), title=str(r[5]), heading_path=str(r[6]), body=str(r[7]),
                               tables=json.loads(str(r[8]) or "[]"), sentence_hashes=hashes.get(int(r[0]), []))
                    for r in rows]
        info = {"project": str(head[3]), "client": str(head[4]), "place": str(head[5]), "date": str(head[6])}
        return StoredBid(str(head[0]), str(head[1]), str(head[2]), info, json.loads(str(head[7]) or "{}"), sections,
                         names)

    def remove_bid(self, bid_id: int) -> None:
        """Delete a bid, its sections, names and sentence hashes."""
        with self.transaction() as con:
            if self.fts:
                con.execute("DELETE FROM section_fts WHERE rowid IN (SELECT id FROM sections WHERE bid_id = ?)", (bid_id,))
            con.execute("DELETE FROM bids WHERE id = ?", (bid_id,))

    def names(self) -> list[tuple[int, str, str]]:
        """Every recorded name of every bid: ``(bid_id, kind, value)``."""
        with self.lock:
            return [(int(a), str(b), str(c)) for a, b, c in
                    self.conn.execute("SELECT bid_id, kind, value FROM names").fetchall()]

    def contains_text(self, text: str) -> bool:
        """Whether any stored section's title or body contains ``text`` (FTS for 3+ characters)."""
        with self.lock:
            if self.fts and len(text) >= 3:
                phrase = '"' + text.replace('"', '""') + '"'
                row = self.conn.execute("SELECT 1 FROM section_fts WHERE section_fts MATCH ? LIMIT 1", (phrase,)).fetchone()
            else:
                row = self.conn.execute("SELECT 1 FROM sections WHERE instr(body, ?) > 0 OR instr(title, ?) > 0 LIMIT 1",
                                        (text, text)).fetchone()
        return row is not None

    def counts(self) -> tuple[int, int]:
        """(bids, sections) stored."""
        with self.lock:
            b = self.conn.execute("SELECT count(*) FROM bids").fetchone()[0]
            s = self.conn.execute("SELECT count(*) FROM sections").fetchone()[0]
        return int(b), int(s)

    # ------------------------------------------------------------------ sections
    _SECTION_SQL = ("SELECT s.id, s.bid_id, s.ord, s.level, s.number, s.title, s.heading_path, s.body, s.tables,"
                    " b.name, b.project, b.client FROM sections s JOIN bids b ON b.id = s.bid_id")

    def sections(self, ids: Sequence[int]) -> list[StoredSection]:
        """Stored sections by id, in the order asked."""
        if not ids:
            return []
        with self.lock:
            rows = self.conn.execute(f"{self._SECTION_SQL} WHERE s.id IN ({','.join('?' * len(ids))})",
                                     list(ids)).fetchall()
        by_id = {r[0]: stored_section(r) for r in rows}
        return [by_id[i] for i in ids if i in by_id]

    def sections_of(self, bid_id: int) -> list[StoredSection]:
        """A bid's sections in document order."""
        with self.lock:
            rows = self.conn.execute(f"{self._SECTION_SQL} WHERE s.bid_id = ? ORDER BY s.ord", (bid_id,)).fetchall()
        return [stored_section(r) for r in rows]

    def sentence_sources(self, hashes: Sequence[int]) -> dict[int, list[int]]:
        """For each hash found in the library, the section ids holding that sentence."""
        out: dict[int, list[int]] = {}
        with self.lock:
            for start in range(0, len(hashes), 500):
                chunk = list(hashes[start:start + 500])
                q = f"SELECT hash, section_id FROM sentences WHERE hash IN ({','.join('?' * len(chunk))})"
                for h, sid in self.conn.execute(q, chunk):
                    out.setdefault(int(h), []).append(int(sid))
        return out

    def candidate_ids(self, grams: Sequence[str], limit: int) -> list[int]:
        """FTS5 trigram candidates ranked by bm25 (title weighted 8:1); without FTS5, a LIKE scan."""
        if not grams:
            return []
        with self.lock:
            if self.fts and any(len(g) >= 3 for g in grams):
                query = " OR ".join('"' + g.replace('"', '""') + '"' for g in grams if len(g) >= 3)
                rows = self.conn.execute(
                    "SELECT rowid FROM section_fts WHERE section_fts MATCH ? ORDER BY bm25(section_fts, 8.0, 1.0) LIMIT ?",
                    (query, limit)).fetchall()
                return [int(r[0]) for r in rows]
            like = [f"%{g}%" for g in grams[:8]]
            where = " OR ".join(["title LIKE ?"] * len(like) + ["body LIKE ?"] * len(like))
            rows = self.conn.execute(f"SELECT id FROM sections WHERE {where} LIMIT ?",
                                     (*like, *like, limit * 4)).fetchall()
            return [int(r[0]) for r in rows]

    def section_previews(self, ids: Sequence[int], body_chars: int) -> list[tuple[int, str, str, bool]]:
        """``(id, title, body start, has tables)`` of the given sections."""
        if not ids:
            return []
        with self.lock:
            rows = self.conn.execute(
                f"SELECT id, title, substr(body, 1, {int(body_chars)}), tables != '[]' FROM sections"
                f" WHERE id IN ({','.join('?' * len(ids))})", list(ids)).fetchall()
        return [(int(a), str(b), str(c), bool(d)) for a, b, c, d in rows]

    # ------------------------------------------------------------------ company facts
    _FACT_SQL = "SELECT id, kind, data, source, version, updated_by, updated_at FROM facts"

    def add_facts(self, facts: Sequence[tuple[str, dict[str, str], str]]) -> list[int | None]:
        """Store facts in one transaction; a fact equal to a stored one of the same kind gets None."""
        out: list[int | None] = []
        with self.transaction() as con:
            existing = {(k, d) for k, d in con.execute("SELECT kind, data FROM facts")}
            for kind, data, source in facts:
                blob = fact_blob(data)
                if (kind, blob) in existing:
                    out.append(None)
                    continue
                cur = con.execute("INSERT INTO facts(kind, data, source, updated_by, updated_at) VALUES (?,?,?,?,?)",
                                  (kind, blob, source, writer_name(), now_text()))
                out.append(int(cur.lastrowid or 0))
                existing.add((kind, blob))
        return out

    def facts(self, kind: str | None = None) -> list[FactRecord]:
        """Stored facts (of one kind), in the order they were added."""
        with self.lock:
            rows = self.conn.execute(self._FACT_SQL + (" WHERE kind = ?" if kind else "") + " ORDER BY id",
                                     (kind,) if kind else ()).fetchall()
        return [fact_record(r) for r in rows]

    def update_fact(self, fact_id: int, data: dict[str, str], expected_version: int) -> FactRecord:
        """Change a fact if it is still at ``expected_version``; :class:`FactConflict` otherwise."""
        with self.transaction() as con:
            cur = con.execute("UPDATE facts SET data = ?, version = version + 1, updated_by = ?, updated_at = ?"
                              " WHERE id = ? AND version = ?",
                              (fact_blob(data), writer_name(), now_text(), fact_id, expected_version))
            row = con.execute(self._FACT_SQL + " WHERE id = ?", (fact_id,)).fetchone()
        current = fact_record(row) if row is not None else None
        if cur.rowcount != 1 or current is None:
            raise FactConflict(conflict_message(current), current)
        return current

    def remove_fact(self, fact_id: int) -> None:
        """Delete one stored fact."""
        with self.transaction() as con:
            con.execute("DELETE FROM facts WHERE id = ?", (fact_id,))
