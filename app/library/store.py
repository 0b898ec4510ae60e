"""The library database: one local SQLite file with past bids, their sections, and company facts.

Each imported bid is written in one transaction (a kill mid-import leaves only whole bids;
WAL journal). Sections are indexed for full-text search with FTS5's ``trigram`` tokenizer,
which matches Chinese substrings without a word segmenter; when this SQLite lacks FTS5 or
trigram, :attr:`LibraryStore.fts` is False and searches scan the table instead. Sentences of
every section are stored as hashes, so 查重 looks up a sentence in one index probe.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

SCHEMA_VERSION = 1

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


@dataclass
class SectionRow:
    """A section to store: position in its bid, level, number, verbatim title, body, tables."""

    ord: int
    parent_ord: int | None
    level: int
    title: str
    number: str = ""
    heading_path: str = ""
    body: str = ""
    tables: list[list[list[str]]] = field(default_factory=list)
    sentence_hashes: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class BidInfo:
    """One stored past bid as listed in the library view."""

    id: int
    name: str
    path: str
    project: str
    client: str
    place: str
    date: str
    imported_at: str
    section_count: int


@dataclass(frozen=True)
class StoredSection:
    """A stored section with where it came from (its bid's name, project and client)."""

    id: int
    bid_id: int
    ord: int
    level: int
    number: str
    title: str
    heading_path: str
    body: str
    tables: list[list[list[str]]]
    bid_name: str
    project: str
    client: str


class LibraryError(Exception):
    """The library file cannot be opened or written (Chinese ``message_zh``)."""

    def __init__(self, message_zh: str) -> None:
        super().__init__(message_zh)
        self.message_zh = message_zh


def fts_trigram_available() -> bool:
    """Whether this Python's SQLite has FTS5 with the trigram tokenizer."""
    try:
        con = sqlite3.connect(":memory:")
        try:
            con.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='trigram')")
        finally:
            con.close()
    except sqlite3.Error:
        return False
    return True


class LibraryStore:
    """The library database at ``path`` (created when missing). One connection; a lock serialises use."""

    def __init__(self, path: Path, *, use_fts: bool = True) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.execute("PRAGMA foreign_keys=ON")
            self.conn.executescript(_SCHEMA)
            self.fts = use_fts and self._ensure_fts()
            self.conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            self.lock = threading.RLock()
            self._record_table_people()
        except (sqlite3.Error, OSError) as exc:
            raise LibraryError(f"无法打开资料库文件“{path}”：{exc}") from exc

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

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE … COMMIT, rolled back on any error)."""
        with self.lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    # ------------------------------------------------------------------ bids
    def has_hash(self, content_hash: str) -> int | None:
        """The id of a stored bid with this content hash (the same bid imported before), or None."""
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
                                (sid, s.title, s.body + "\n" + _tables_text(s.tables)))
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
        by_id = {r[0]: _section(r) for r in rows}
        return [by_id[i] for i in ids if i in by_id]

    def sections_of(self, bid_id: int) -> list[StoredSection]:
        """A bid's sections in document order."""
        with self.lock:
            rows = self.conn.execute(f"{self._SECTION_SQL} WHERE s.bid_id = ? ORDER BY s.ord", (bid_id,)).fetchall()
        return [_section(r) for r in rows]

    def subtree(self, section_id: int) -> list[StoredSection]:
        """A section and the sections below it (until the next one at its level or higher)."""
        found = self.sections([section_id])
        if not found:
            return []
        head = found[0]
        out = [head]
        for s in self.sections_of(head.bid_id):
            if s.ord <= head.ord:
                continue
            if s.level <= head.level:
                break
            out.append(s)
        return out

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

    def counts(self) -> tuple[int, int]:
        """(bids, sections) stored."""
        with self.lock:
            b = self.conn.execute("SELECT count(*) FROM bids").fetchone()[0]
            s = self.conn.execute("SELECT count(*) FROM sections").fetchone()[0]
        return int(b), int(s)


def _tables_text(tables: list[list[list[str]]]) -> str:
    return "\n".join("\t".join(row) for t in tables for row in t)


def _section(r: Sequence[object]) -> StoredSection:
    return StoredSection(id=int(r[0]), bid_id=int(r[1]), ord=int(r[2]), level=int(r[3]),  # type: ignore[call-overload]
                         number=str(r[4]), title=str(r[5]), heading_path=str(r[6]), body=str(r[7]),
                         tables=json.loads(str(r[8]) or "[]"), bid_name=str(r[9]), project=str(r[10]),
                         client=str(r[11]))


def default_library_path() -> Path:
    """The user's library file in the app's data folder (``BIDSTUDIO_DATA_DIR`` moves it)."""
    from app.core.settings_model import data_dir

    return data_dir() / "library" / "library.sqlite3"
