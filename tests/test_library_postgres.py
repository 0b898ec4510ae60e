"""The office library on a real PostgreSQL server (started by ``tests/pg_server.py``; skipped saying why without one).

Schema migrations (empty, older, newer, two apps at once), the same results as the SQLite
engine, many writers at once (processes), a writer killed with -9 mid-import, the server
restarted mid-session, a wrong password and the other 测试连接 answers, a read-only role.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import pytest

from app.library.bid_import import import_bid, import_files
from app.library.checks import copied_passages, outline_sections, stale_names
from app.library.engines.pg_schema import LATEST, ensure_schema, server_too_old
from app.library.engines.postgres import PostgresStore, connect
from app.library.facts import Fact, load_facts, save_facts, update_fact
from app.library.search import search_sections
from app.library.server import check_server
from app.library.store import (
    FactConflict,
    LibraryError,
    LibrarySpec,
    LibraryStore,
    LibraryUnavailable,
    ServerConfig,
    open_library,
)
from tests.library_fixtures import make_bid, write_docx
from tests.pg_server import PgServer
from tests.pg_workers import add_generated, import_and_search, search_until

REPO = Path(__file__).resolve().parent.parent
QUERIES = {"应急预案及响应": "应急预案", "质量控制流程": "质量控制流程", "施工进度计划安排": "施工进度计划",
           "备品备件供应": "备品备件", "安全管理体系建设": "安全管理体系"}


@pytest.fixture
def office(pg_config: ServerConfig) -> PostgresStore:
    store = open_library(LibrarySpec("postgres", server=pg_config))
    assert isinstance(store, PostgresStore)
    yield store  # type: ignore[misc]
    store.close()


@pytest.fixture(scope="module")
def past_bids(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("past")
    for i in range(8):
        write_docx(make_bid(i), folder / f"b{i}.docx")
    return folder


# ---------------------------------------------------------------------------- schema


def test_an_empty_database_gets_every_migration_once(office: PostgresStore, pg_server: PgServer,
                                                      pg_config: ServerConfig) -> None:
    assert office.schema_version() == LATEST
    versions = pg_server.sql("SELECT string_agg(version::text, ',' ORDER BY version) FROM bidstudio_schema",
                             pg_config.database)
    assert versions == ",".join(str(v) for v in range(1, LATEST + 1))
    again = PostgresStore(pg_config)  # a second app connecting finds it current and changes nothing
    assert again.schema_version() == LATEST
    again.close()
    assert pg_server.sql("SELECT count(*) FROM bidstudio_schema", pg_config.database) == str(LATEST)


def test_an_older_schema_is_migrated_keeping_its_data(pg_server: PgServer, pg_config: ServerConfig) -> None:
    con = connect(pg_config)
    ensure_schema(con, pg_config.user, target=1)  # as the first office release left it
    con.execute("INSERT INTO bids(id, hash, path, name, project, section_count) VALUES (1, 'h1', 'old.docx', '旧标书',"
                " '东湖市物业管理项目', 1)")
    con.execute("INSERT INTO sections(bid_id, ord, level, title, body) VALUES (1, 0, 1, '应急预案',"
                " '针对突发停电我方制定应急预案并定期演练')")
    for _ in range(2):  # the same certificate twice: version 1 had no uniqueness
        con.execute("INSERT INTO facts(kind, data, source) VALUES ('certificate', '{\"number\": \"Q-1\"}', '旧表')")
    con.close()
    store = PostgresStore(pg_config)
    try:
        assert store.schema_version() == LATEST
        assert [h.section.title for h in search_sections(store, "应急预案及响应", 3)] == ["应急预案"]  # indexed now
        assert store.contains_text("突发停电")
        [fact] = load_facts(store)
        assert (fact.data, fact.version) == ({"number": "Q-1"}, 1)
    finally:
        store.close()


def test_two_apps_opening_an_empty_database_at_once_migrate_it_once(pg_server: PgServer,
                                                                     pg_config: ServerConfig) -> None:
    opened: list[PostgresStore] = []
    errors: list[BaseException] = []

    def open_one() -> None:
        try:
            opened.append(PostgresStore(pg_config))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(opened) == 3
    for s in opened:
        s.close()
    assert pg_server.sql("SELECT count(*) FROM bidstudio_schema", pg_config.database) == str(LATEST)


def test_a_newer_schema_is_refused_in_chinese(pg_server: PgServer, pg_config: ServerConfig) -> None:
    PostgresStore(pg_config).close()
    pg_server.sql(f"INSERT INTO bidstudio_schema(version, summary) VALUES ({LATEST + 1}, 'future')", pg_config.database)
    with pytest.raises(LibraryError, match="更新版本的标书工坊"):
        PostgresStore(pg_config)
    assert "更新版本" in check_server(pg_config).message_zh


# ---------------------------------------------------------------------------- same results as SQLite


def test_the_office_library_answers_as_the_local_one(office: PostgresStore, past_bids: Path, tmp_path: Path) -> None:
    local = LibraryStore(tmp_path / "lib.sqlite3")
    try:
        for store in (local, office):
            assert sorted(o.status for o in import_files(store, [past_bids])) == ["added"] * 8
            assert import_bid(store, past_bids / "b3.docx").status == "duplicate"
        assert office.counts() == local.counts()
        for query, title in QUERIES.items():
            hits = search_sections(office, query, 5)
            assert hits and hits[0].section.title == title, (query, [h.section.title for h in hits])
            assert hits[0].source.startswith("历史标书：")
        assert search_sections(office, "量子计算芯片") == []
        assert search_sections(office, "预案", 3)  # a two-character query scans, as in SQLite
        past = make_bid(1)
        from app.core.outline import Outline, OutlineNode

        text = "我方将提供全天候运维服务。" + "".join(past.sections[0].children[0].paragraphs[:2])
        sections = outline_sections(Outline([OutlineNode(title="服务方案", content=text)]))
        got = {s.engine: ([(f.text, f.source) for f in copied_passages(sections, s)],
                          sorted(f.text for f in stale_names(sections, s, ["新区智慧停车项目"]))) for s in (local, office)}
        assert got["postgres"] == got["sqlite"] and got["postgres"][0] and got["postgres"][1]
        for text in (past.project, past.manager, "质量控制流程", "量子计算"):
            assert office.contains_text(text) == local.contains_text(text)
        bid = office.bids()[-1]
        assert [s.title for s in office.sections_of(bid.id)] == [s.title for s in local.sections_of(local.bids()[-1].id)]
        copy = office.bid_copy(bid.id)
        assert copy is not None and copy.sections[0].tables and any(r.sentence_hashes for r in copy.sections)
        office.remove_bid(bid.id)
        assert office.counts()[0] == 7 and office.sections_of(bid.id) == []
    finally:
        local.close()


def test_a_fact_edited_by_two_writers_at_once_is_not_silently_lost(pg_config: ServerConfig) -> None:
    a, b = PostgresStore(pg_config), PostgresStore(pg_config)
    try:
        assert save_facts(a, [Fact("staff", {"name": "王建国", "role": "项目经理"}, "手工录入")] * 2) == 1
        assert save_facts(b, [Fact("staff", {"name": "王建国", "role": "项目经理"}, "另一人")]) == 0  # one copy
        [mine], [theirs] = load_facts(a), load_facts(b)
        update_fact(b, theirs, {"name": "王建国", "role": "技术负责人"})
        with pytest.raises(FactConflict) as caught:
            update_fact(a, mine, {"name": "王建国", "role": "项目总监"})
        assert "已被" in caught.value.message_zh and caught.value.current is not None
        assert caught.value.current.data["role"] == "技术负责人"
        b.remove_fact(theirs.id or 0)
        with pytest.raises(FactConflict, match="删除"):
            update_fact(a, Fact("staff", {}, "", theirs.id, 2), {"name": "x"})
    finally:
        a.close()
        b.close()


# ---------------------------------------------------------------------------- many writers


def test_five_processes_importing_and_searching_at_once(pg_config: ServerConfig, tmp_path: Path) -> None:
    shared = [str(write_docx(make_bid(i), tmp_path / f"shared{i}.docx")) for i in range(2)]
    jobs = []
    for w in range(5):
        own = [str(write_docx(make_bid(10 + w * 3 + k), tmp_path / f"w{w}_{k}.docx")) for k in range(3)]
        jobs.append(shared + own)  # every writer also imports the two shared bids: one copy each must remain
    PostgresStore(pg_config).close()  # schema first, so the writers' window is about importing
    ready = tmp_path / "ready"  # all six connected before any starts: a busy machine spawns them slowly
    ready.mkdir()
    with ProcessPoolExecutor(max_workers=6, mp_context=get_context("spawn")) as pool:
        writers = [pool.submit(import_and_search, pg_config, files, list(QUERIES)[:2], str(ready), 6) for files in jobs]
        reader = pool.submit(search_until, pg_config, list(QUERIES), 3.0, 0.0, "", str(ready), 6)
        results = [f.result(timeout=240) for f in writers]
        searched = reader.result(timeout=240)
    assert all(r["errors"] == [] for r in results) and searched["errors"] == []
    statuses = [s for r in results for s in r["statuses"]]  # type: ignore[attr-defined]
    assert statuses.count("added") == 2 + 15 and statuses.count("duplicate") == 4 * 2
    assert max(float(r["start"]) for r in results) < min(float(r["end"]) for r in results)  # they overlapped
    # the reader searched all along the imports, never failing, and found what was stored meanwhile
    assert float(searched["start"]) < min(float(r["end"]) for r in results)
    assert int(searched["searches"]) > 0 and int(searched["found"]) > 0
    store = PostgresStore(pg_config)
    try:
        bids = store.bids()
        assert len(bids) == 17 and len({b.name for b in bids}) == 17
        assert sum(1 for b in bids if b.name.startswith("shared")) == 2
        for b in bids:
            assert len(store.sections_of(b.id)) == b.section_count
    finally:
        store.close()


def test_a_writer_killed_mid_import_leaves_only_whole_bids(pg_server: PgServer, pg_config: ServerConfig) -> None:
    PostgresStore(pg_config).close()
    code = ("import sys; from tests.pg_workers import big_writer; "
            f"big_writer('127.0.0.1', {pg_config.port}, '{pg_config.database}', 'office', 'office-pw', 3000)")
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("committed 1")
        deadline, mid_import = time.monotonic() + 30, False
        while not mid_import and time.monotonic() < deadline:  # kill it while its next bid's transaction is open
            mid_import = pg_server.sql("SELECT count(*) FROM pg_stat_activity WHERE application_name ="
                                       " 'bidstudio-killed' AND xact_start IS NOT NULL", pg_config.database) == "1"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(30)
        if proc.stdout is not None:
            proc.stdout.close()
    assert mid_import and proc.returncode == -signal.SIGKILL
    store = PostgresStore(pg_config)
    try:
        deadline = time.monotonic() + 10
        while pg_server.sql("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'bidstudio-killed'",
                            pg_config.database) != "0" and time.monotonic() < deadline:
            time.sleep(0.05)  # the server notices the dead client and rolls its transaction back
        bids = store.bids()
        assert bids and all(b.section_count == 3000 for b in bids)
        per_bid = pg_server.sql("SELECT count(*) FROM sections GROUP BY bid_id HAVING count(*) <> 3000",
                                pg_config.database)
        assert per_bid == ""
        orphans = pg_server.sql("SELECT count(*) FROM sections WHERE bid_id NOT IN (SELECT id FROM bids)",
                                pg_config.database)
        assert orphans == "0"
        assert add_generated(store, 10_000, 5) is not None  # the library takes new bids afterwards
    finally:
        store.close()


# ---------------------------------------------------------------------------- the server comes and goes


def test_the_server_restarted_mid_session_is_reconnected(pg_server: PgServer, pg_config: ServerConfig) -> None:
    store = PostgresStore(pg_config)
    try:
        add_generated(store, 1, 5)
        pg_server.restart()
        assert store.counts() == (1, 5)  # the broken connection is replaced on the next call
        pg_server.stop()
        with pytest.raises(LibraryUnavailable) as down:
            store.counts()
        assert "无法连接" in down.value.message_zh or "中断" in down.value.message_zh
        t0 = time.monotonic()
        with pytest.raises(LibraryUnavailable):
            store.bids()  # while down, callers are told at once instead of waiting on a connect
        assert time.monotonic() - t0 < 1.0
        assert store.ping() is False and store.last_error
        pg_server.start()
        assert store.ping() is True and store.last_error == ""
        assert store.counts() == (1, 5)
    finally:
        store.close()


def test_a_lazy_office_library_waits_for_its_server(pg_server: PgServer, pg_config: ServerConfig) -> None:
    PostgresStore(pg_config).close()
    down = ServerConfig("127.0.0.1", pg_server.port + 1 if pg_server.port < 65535 else 1, pg_config.database,
                        "office", "office-pw")
    store = open_library(LibrarySpec("postgres", server=down), lazy=True)
    try:
        assert isinstance(store, PostgresStore) and "正在连接" in store.last_error  # nothing tried yet
        with pytest.raises(LibraryUnavailable, match="连接被拒绝"):
            store.bids()
        assert store.ping() is False and "连接被拒绝" in store.last_error
        store.config = pg_config  # the server is where the settings say once it answers
        assert store.ping() is True and store.bids() == []
    finally:
        store.close()


def test_connection_checks_say_what_is_wrong_in_chinese(pg_server: PgServer, pg_config: ServerConfig) -> None:
    ok = check_server(pg_config)
    assert ok.ok and "数据库为空" in ok.message_zh and ok.writable
    PostgresStore(pg_config).close()
    assert "0 份历史标书" in check_server(pg_config).message_zh
    wrong = ServerConfig("127.0.0.1", pg_config.port, pg_config.database, "office", "not-the-password")
    got = check_server(wrong)
    assert (got.ok, got.kind) == (False, "password") and "密码不正确" in got.message_zh
    with pytest.raises(LibraryError) as refused:
        PostgresStore(wrong)
    assert not isinstance(refused.value, LibraryUnavailable) and "密码不正确" in refused.value.message_zh
    missing = check_server(ServerConfig("127.0.0.1", pg_config.port, "no_such_db", "office", "office-pw"))
    assert missing.kind == "database" and "没有名为“no_such_db”的数据库" in missing.message_zh
    closed = check_server(ServerConfig("127.0.0.1", 1, pg_config.database, "office", "office-pw"))
    assert closed.kind == "unreachable" and "连接被拒绝" in closed.message_zh
    unknown = check_server(ServerConfig("no-such-host.invalid", 5432, "x", "office", "pw", connect_timeout=2))
    assert unknown.kind == "unreachable" and "找不到服务器" in unknown.message_zh
    assert "过旧" in server_too_old(110000) and server_too_old(pg_server_version(pg_config)) == ""


def pg_server_version(config: ServerConfig) -> int:
    con = connect(config)
    try:
        return int(con.info.server_version)
    finally:
        con.close()


def test_a_read_only_role_can_search_but_not_write(pg_server: PgServer, pg_config: ServerConfig,
                                                    past_bids: Path) -> None:
    store = PostgresStore(pg_config)
    import_files(store, [past_bids / "b0.docx"])
    store.close()
    if not pg_server.sql("SELECT 1 FROM pg_roles WHERE rolname = 'reader'"):
        pg_server.sql("CREATE ROLE reader LOGIN PASSWORD 'reader-pw'")
    pg_server.sql("GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader", pg_config.database)
    reader = ServerConfig("127.0.0.1", pg_config.port, pg_config.database, "reader", "reader-pw")
    check = check_server(reader)
    assert check.ok and not check.writable and "只读" in check.message_zh
    ro = PostgresStore(reader)
    try:
        assert search_sections(ro, "应急预案及响应", 3) and ro.counts()[0] == 1
        with pytest.raises(LibraryError) as denied:
            add_generated(ro, 1, 3)
        assert "只有读取权限" in denied.value.message_zh and not isinstance(denied.value, LibraryUnavailable)
        with pytest.raises(LibraryError, match="只有读取权限"):
            save_facts(ro, [Fact("certificate", {"number": "X"}, "")])
        assert ro.counts()[0] == 1  # still usable after a refused write
    finally:
        ro.close()
    pg_server.sql("DELETE FROM bidstudio_schema WHERE version = (SELECT max(version) FROM bidstudio_schema)",
                  pg_config.database)  # the library now needs an upgrade the reader may not make
    with pytest.raises(LibraryError, match="没有权限"):
        PostgresStore(reader)
