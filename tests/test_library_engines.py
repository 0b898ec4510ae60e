"""The library interface and its SQLite engine: every engine implements it all, files migrate, edits never lost."""

from __future__ import annotations

import inspect
import sqlite3
from pathlib import Path

import pytest

from app.library import engines
from app.library.facts import Fact, load_facts, save_facts, update_fact
from app.library.store import FactConflict, LibraryError, LibrarySpec, LibraryStore, open_library


def _public(cls: type) -> set[str]:
    return {n for n, v in vars(cls).items() if not n.startswith("_") and inspect.isfunction(v)}


def test_every_engine_implements_the_whole_interface() -> None:
    interface = _public(LibraryStore) - {"describe", "subtree"}  # shared implementations
    found = [m.name for m in __import__("pkgutil").iter_modules(engines.__path__)]
    classes = [obj for name in found for obj in vars(__import__(f"app.library.engines.{name}", fromlist=["x"])).values()
               if inspect.isclass(obj) and issubclass(obj, LibraryStore) and obj is not LibraryStore]
    assert {c.engine for c in classes} == {"sqlite", "postgres"}
    for cls in classes:
        missing = sorted(n for n in interface if getattr(cls, n) is getattr(LibraryStore, n))
        assert missing == [], (cls.__name__, missing)


def test_library_store_of_a_path_is_the_sqlite_engine(tmp_path: Path) -> None:
    store = LibraryStore(tmp_path / "lib.sqlite3")
    try:
        assert store.engine == "sqlite" and isinstance(store, LibraryStore)
        again = open_library(store.spec())
        assert again.engine == "sqlite" and again.spec() == store.spec()
        again.close()
        assert "本机资料库" in store.describe()
    finally:
        store.close()
    with pytest.raises(LibraryError, match="服务器地址"):
        open_library(LibrarySpec("postgres"))


def _version_1_file(path: Path) -> None:
    """A library as BidStudio wrote it before facts had versions (schema 1)."""
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO meta VALUES ('schema', '1');
        CREATE TABLE facts (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, data TEXT NOT NULL, source TEXT NOT NULL DEFAULT '');
        INSERT INTO facts(kind, data, source) VALUES ('certificate', '{"name": "ISO9001", "number": "Q-1"}', '旧表');
    """)
    con.commit()
    con.close()


def test_an_older_file_is_migrated_and_a_newer_one_refused(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    _version_1_file(path)
    store = LibraryStore(path)
    try:
        [fact] = load_facts(store)
        assert (fact.data["number"], fact.source, fact.version) == ("Q-1", "旧表", 1)
        assert store.schema_version() == 2  # type: ignore[attr-defined]
        assert store.counts() == (0, 0)
    finally:
        store.close()
    con = sqlite3.connect(path)
    con.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    con.commit()
    con.close()
    with pytest.raises(LibraryError, match="更新版本的标书工坊"):
        LibraryStore(path)


def test_a_fact_edited_by_two_writers_at_once_is_not_silently_lost(tmp_path: Path) -> None:
    path = tmp_path / "lib.sqlite3"
    a, b = LibraryStore(path), LibraryStore(path)
    try:
        save_facts(a, [Fact("staff", {"name": "王建国", "role": "项目经理"}, "手工录入")])
        [mine], [theirs] = load_facts(a), load_facts(b)
        saved = update_fact(b, theirs, {"name": "王建国", "role": "技术负责人"})
        assert saved.version == 2
        with pytest.raises(FactConflict) as caught:
            update_fact(a, mine, {"name": "王建国", "role": "项目总监"})
        assert "已被" in caught.value.message_zh and "未保存" in caught.value.message_zh
        assert caught.value.current is not None and caught.value.current.data["role"] == "技术负责人"
        assert [f.data["role"] for f in load_facts(a)] == ["技术负责人"]  # theirs kept, mine not written over it
        again = update_fact(a, load_facts(a)[0], {"name": "王建国", "role": "项目总监"})  # after a reload it goes in
        assert again.version == 3
    finally:
        a.close()
        b.close()


def test_a_file_another_process_keeps_locked_is_a_chinese_library_error(tmp_path: Path) -> None:
    from tests.pg_workers import add_generated

    path = tmp_path / "lib.sqlite3"
    store = LibraryStore(path)
    store.conn.execute("PRAGMA busy_timeout = 100")  # type: ignore[attr-defined]  # not 15 s in a test
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process writing
    try:
        with pytest.raises(LibraryError, match="正被其他程序写入"):
            add_generated(store, 1, 3)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert add_generated(store, 1, 3) is not None and store.counts() == (1, 3)  # free again: it goes in
    store.close()
