"""The library interface: past bids, their sections, sentence hashes and company facts, on one of two engines.

:class:`LibraryStore` is what every caller uses (import, search, 查重, reuse, facts, drafting).
Two engines implement it (:mod:`app.library.engines`): a local SQLite file, the default that
needs nothing set up, and a PostgreSQL server an office shares. ``LibraryStore(path)`` opens
the SQLite engine, as ``pathlib.Path(...)`` opens the platform's path class;
:func:`open_library` opens whichever a :class:`LibrarySpec` names (the app's settings, or a
worker process that must reopen the same library).

Engines raise :class:`LibraryError` (Chinese ``message_zh``); a server that cannot be reached
raises its subclass :class:`LibraryUnavailable`, and a fact changed by someone else since it
was read raises :class:`FactConflict`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


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


@dataclass(frozen=True)
class StoredBid:
    """A whole stored bid as another library needs it to store a copy (:mod:`app.library.merge`)."""

    hash: str
    path: str
    name: str
    info: dict[str, str]
    metadata: dict[str, str]
    sections: list[SectionRow]
    names: list[tuple[str, str]]


@dataclass(frozen=True)
class FactRecord:
    """A stored company fact: its fields (whatever columns :mod:`app.library.facts` defines) and its version.

    ``version`` grows by one with every change; an edit names the version it started from,
    so a change someone else made in between is detected (:class:`FactConflict`).
    """

    id: int
    kind: str
    data: dict[str, str]
    source: str
    version: int = 1
    updated_by: str = ""
    updated_at: str = ""


class LibraryError(Exception):
    """The library cannot be opened or written (Chinese ``message_zh``)."""

    def __init__(self, message_zh: str) -> None:
        super().__init__(message_zh)
        self.message_zh = message_zh


class LibraryUnavailable(LibraryError):
    """The library's server cannot be reached now; the app retries by itself."""


class FactConflict(LibraryError):
    """A fact was changed or deleted by someone else after it was read; ``current`` is what is stored now."""

    def __init__(self, message_zh: str, current: FactRecord | None) -> None:
        super().__init__(message_zh)
        self.current = current


def conflict_message(current: FactRecord | None) -> str:
    """The Chinese message for an edit that lost a race (names who changed the fact, and when)."""
    if current is None:
        return "这条企业资料已被其他用户删除，您的修改未保存。"
    who = current.updated_by or "其他用户"
    when = f"于 {current.updated_at} " if current.updated_at else ""
    return (f"这条企业资料已被 {who} {when}修改（您打开后已有新版本），您的修改未保存，以免覆盖对方的内容。"
            "已显示最新内容，请核对后重新修改。")


@dataclass(frozen=True)
class ServerConfig:
    """A PostgreSQL server and database to hold the office library (``password`` in memory only)."""

    host: str
    port: int = 5432
    database: str = "bidstudio"
    user: str = ""
    password: str = ""
    connect_timeout: int = 5

    def describe(self) -> str:
        """``user@host:port/database`` (never the password)."""
        who = f"{self.user}@" if self.user else ""
        return f"{who}{self.host}:{self.port}/{self.database}"

    def __repr__(self) -> str:
        return f"ServerConfig({self.describe()!r})"


@dataclass(frozen=True)
class LibrarySpec:
    """Which library to open: the SQLite file at ``path``, or the PostgreSQL server of ``server``.

    Picklable, so an import process reopens the library the window uses.
    """

    engine: str = "sqlite"  # "sqlite" | "postgres"
    path: str = ""
    use_fts: bool = True
    server: ServerConfig | None = None

    def describe(self) -> str:
        """Where the library is, for the user."""
        if self.engine == "postgres" and self.server is not None:
            return f"办公室资料库 {self.server.describe()}"
        return f"本机资料库 {self.path}"


class LibraryStore:
    """The library interface every caller uses; ``LibraryStore(path)`` opens the default SQLite engine.

    Each engine overrides every method below (``tests/test_library_engines.py`` checks it).
    Writes of one bid or one batch of facts are one transaction: a crash leaves whole bids.
    """

    #: Which engine this is ("sqlite" or "postgres").
    engine = ""
    #: Whether sections have a full-text index (else searches scan).
    fts = True

    def __new__(cls, *args: Any, **kwargs: Any) -> LibraryStore:
        """``LibraryStore(path)`` is the default (SQLite) engine; an engine class constructs itself."""
        target = _ENGINES["sqlite"] if cls is LibraryStore else cls
        made: LibraryStore = super().__new__(target)
        return made

    def __init__(self, path: Path, *, use_fts: bool = True) -> None:
        """Open (or create) the SQLite library at ``path`` (the engine's constructor runs instead)."""

    @classmethod
    def open_server(cls, server: ServerConfig, *, lazy: bool = False) -> LibraryStore:
        """Open a server engine's library (engines with a server override this)."""
        raise LibraryError(f"资料库引擎“{cls.engine}”不连接服务器")

    # ------------------------------------------------------------------ the library itself
    def spec(self) -> LibrarySpec:
        """How to open this same library again (in another process)."""
        raise NotImplementedError

    def describe(self) -> str:
        """Where the library is, for the user (本机资料库 path / 办公室资料库 server)."""
        return self.spec().describe()

    def close(self) -> None:
        """Close the connection."""
        raise NotImplementedError

    def ping(self) -> bool:
        """Whether the library answers now (reconnecting a server library when it can)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ bids
    def has_hash(self, content_hash: str) -> int | None:
        """The id of a stored bid with this content hash (the same bid imported before), or None."""
        raise NotImplementedError

    def add_bid(self, content_hash: str, path: str, name: str, info: dict[str, str], sections: Sequence[SectionRow],
                names: Iterable[tuple[str, str]] = (), metadata: dict[str, str] | None = None) -> int | None:
        """Store one bid and its sections in one transaction; None when the same content is stored already
        (also when another writer stored it at the same moment)."""
        raise NotImplementedError

    def bids(self) -> list[BidInfo]:
        """Every stored bid, newest import first."""
        raise NotImplementedError

    def bid_copy(self, bid_id: int) -> StoredBid | None:
        """Everything stored of one bid, to store it in another library; None when it is gone."""
        raise NotImplementedError

    def remove_bid(self, bid_id: int) -> None:
        """Delete a bid, its sections, names and sentence hashes."""
        raise NotImplementedError

    def names(self) -> list[tuple[int, str, str]]:
        """Every recorded name of every bid: ``(bid_id, kind, value)``."""
        raise NotImplementedError

    def contains_text(self, text: str) -> bool:
        """Whether any stored section's title or body contains ``text``."""
        raise NotImplementedError

    def counts(self) -> tuple[int, int]:
        """(bids, sections) stored."""
        raise NotImplementedError

    # ------------------------------------------------------------------ sections
    def sections(self, ids: Sequence[int]) -> list[StoredSection]:
        """Stored sections by id, in the order asked."""
        raise NotImplementedError

    def sections_of(self, bid_id: int) -> list[StoredSection]:
        """A bid's sections in document order."""
        raise NotImplementedError

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
        raise NotImplementedError

    def candidate_ids(self, grams: Sequence[str], limit: int) -> list[int]:
        """Ids of sections sharing the most of ``grams`` (a query's character 3-grams, most telling first).

        Titles weigh more than bodies; :func:`app.library.search.search_sections` re-ranks them.
        """
        raise NotImplementedError

    def section_previews(self, ids: Sequence[int], body_chars: int) -> list[tuple[int, str, str, bool]]:
        """``(id, title, first body_chars of the body, has tables)`` of sections, for ranking."""
        raise NotImplementedError

    # ------------------------------------------------------------------ company facts
    def add_facts(self, facts: Sequence[tuple[str, dict[str, str], str]]) -> list[int | None]:
        """Store ``(kind, data, source)`` facts in one transaction; for each its new id, or None when the same
        fact (kind and fields) is stored already."""
        raise NotImplementedError

    def facts(self, kind: str | None = None) -> list[FactRecord]:
        """Stored facts (of one kind), in the order they were added."""
        raise NotImplementedError

    def update_fact(self, fact_id: int, data: dict[str, str], expected_version: int) -> FactRecord:
        """Change a fact's fields if it is still at ``expected_version``; raises :class:`FactConflict` otherwise."""
        raise NotImplementedError

    def remove_fact(self, fact_id: int) -> None:
        """Delete one stored fact."""
        raise NotImplementedError


#: The engine classes by name, registered by :mod:`app.library.engines` when the package is imported
#: (the interface never imports an engine: they import it).
_ENGINES: dict[str, type[LibraryStore]] = {}


def register_engine(cls: type[LibraryStore]) -> type[LibraryStore]:
    """Make an engine class known by its ``engine`` name (``sqlite`` is what ``LibraryStore(path)`` opens)."""
    _ENGINES[cls.engine] = cls
    return cls


def open_library(spec: LibrarySpec, *, lazy: bool = False) -> LibraryStore:
    """Open the library ``spec`` names; ``lazy`` makes a server library object without connecting yet
    (it connects on first use or :meth:`LibraryStore.ping`, and its calls raise :class:`LibraryUnavailable`
    while the server does not answer)."""
    if spec.engine == "postgres":
        if spec.server is None or not spec.server.host:
            raise LibraryError("资料库设置不完整：未填写服务器地址")
        engine = _ENGINES.get("postgres")
        if engine is None:
            raise LibraryError("本程序未安装连接 PostgreSQL 所需的组件（psycopg），无法使用办公室资料库")
        return engine.open_server(spec.server, lazy=lazy)
    return LibraryStore(Path(spec.path) if spec.path else default_library_path(), use_fts=spec.use_fts)


def now_text() -> str:
    """The local time as written on a fact's change (``2025-06-30 14:05``)."""
    return dt.datetime.now().strftime("%Y-%m-%d %H:%M")


def writer_name() -> str:
    """Who is writing (the OS login), recorded on a changed fact so a conflict can name them."""
    import getpass

    try:
        return getpass.getuser()
    except Exception:  # no login name on this system (some containers)
        return ""


def fts_trigram_available() -> bool:
    """Whether this Python's SQLite has FTS5 with the trigram tokenizer."""
    import sqlite3

    try:
        con = sqlite3.connect(":memory:")
        try:
            con.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='trigram')")
        finally:
            con.close()
    except sqlite3.Error:
        return False
    return True


def default_library_path() -> Path:
    """The user's library file in the app's data folder (``BIDSTUDIO_DATA_DIR`` moves it)."""
    from app.core.settings_model import data_dir

    return data_dir() / "library" / "library.sqlite3"
