"""Writer and reader processes for the PostgreSQL library tests and benchmark (importable by spawned processes).

Each opens its own connection to the office library, as another writer's BidStudio would.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from pathlib import Path

from app.library.bid_import import import_bid, sentence_hash
from app.library.search import search_sections
from app.library.store import LibraryError, LibrarySpec, LibraryStore, SectionRow, ServerConfig, open_library

WORDS = ["应急预案", "质量保证措施", "施工进度计划", "人员配置", "安全文明施工", "售后服务承诺", "设备维护保养",
         "项目组织机构", "培训方案", "环境保护措施", "服务流程", "故障处理", "系统架构设计", "备品备件"]


def synthetic_rows(index: int, sections: int, chars: int = 300) -> list[SectionRow]:
    """``sections`` generated sections of a bid (~``chars`` characters each), with sentence hashes."""
    rows = []
    for k in range(sections):
        topic = WORDS[(index + k) % len(WORDS)]
        sentences = [f"第{index}号标书第{k}节关于{topic}的第{j}项措施，我方将制定细则并每周检查落实情况"
                     for j in range(max(1, chars // 40))]
        rows.append(SectionRow(ord=k, parent_ord=None if k % 10 == 0 else k - k % 10, level=1 if k % 10 == 0 else 2,
                               title=f"{topic}（{k}）", body="。".join(sentences) + "。",
                               sentence_hashes=[sentence_hash(s) for s in sentences]))
    return rows


def bid_hash(index: int, salt: str = "") -> str:
    """The content hash of generated bid ``index``."""
    return hashlib.sha256(f"{salt}bid-{index}".encode()).hexdigest()


def add_generated(store: LibraryStore, index: int, sections: int, salt: str = "") -> int | None:
    """Store generated bid ``index`` (None when it is stored already)."""
    rows = synthetic_rows(index, sections)
    info = {"project": f"第{index}号项目", "client": f"第{index}号采购人", "place": "", "date": ""}
    return store.add_bid(bid_hash(index, salt), f"gen/{index}.docx", f"bid{index}", info, rows,
                         [("project", info["project"]), ("client", info["client"])])


def _open(target: ServerConfig | LibrarySpec) -> LibraryStore:
    """The library of a spec, or the office library on a server."""
    return open_library(target if isinstance(target, LibrarySpec) else LibrarySpec("postgres", server=target))


def all_ready(ready: str, count: int, timeout: float = 120.0) -> None:
    """A barrier across processes: mark this one ready in the folder ``ready`` and wait until ``count`` are
    (nothing when ``ready`` is empty), so that on a busy machine no process starts its work after another
    has finished."""
    if not ready:
        return
    folder = Path(ready)
    (folder / f"{os.getpid()}.ready").touch()
    deadline = time.monotonic() + timeout
    while len(list(folder.glob("*.ready"))) < count and time.monotonic() < deadline:
        time.sleep(0.02)


def import_and_search(config: ServerConfig | LibrarySpec, files: list[str], queries: list[str],
                      ready: str = "", count: int = 0) -> dict[str, object]:
    """Import ``files`` one by one, searching ``queries`` after each; what happened, with the time window
    (``ready``/``count``: start once ``count`` processes are connected, see :func:`all_ready`)."""
    store = _open(config)
    all_ready(ready, count)
    start = time.time()
    statuses, hits, errors = [], 0, []
    try:
        for f in files:
            try:
                statuses.append(import_bid(store, Path(f)).status)
                for q in queries:
                    hits += bool(search_sections(store, q, 5))
            except LibraryError as exc:
                errors.append(exc.message_zh)
    finally:
        store.close()
    return {"statuses": statuses, "hits": hits, "errors": errors, "start": start, "end": time.time()}


def search_until(config: ServerConfig | LibrarySpec, queries: list[str], seconds: float,
                 pause: float = 0.0, stop_file: str = "", ready: str = "", count: int = 0) -> dict[str, object]:
    """Search over and over for ``seconds``, or until ``stop_file`` exists (another office member looking for
    a section while others import); each search's ms (``ready``/``count``: see :func:`all_ready`)."""
    store = _open(config)
    all_ready(ready, count)
    done, found, errors, times = 0, 0, [], []
    start = time.time()
    try:
        while time.time() - start < seconds and not (stop_file and Path(stop_file).exists()):
            for q in queries:
                t0 = time.perf_counter()
                try:
                    found += bool(search_sections(store, q, 5))
                except LibraryError as exc:
                    errors.append(exc.message_zh)
                times.append((time.perf_counter() - t0) * 1000)
                done += 1
                time.sleep(pause)
    finally:
        store.close()
    return {"searches": done, "found": found, "errors": errors, "start": start, "end": time.time(), "ms": times}


def write_generated(config: ServerConfig | LibrarySpec, first: int, count: int, sections: int,
                    salt: str = "") -> dict[str, object]:
    """Store generated bids ``first .. first+count-1``; how many were added, found stored already, or failed."""
    try:
        store = _open(config)
    except LibraryError as exc:
        return {"added": 0, "duplicates": 0, "errors": [exc.message_zh], "start": time.time(), "end": time.time()}
    added, duplicates, errors = 0, 0, []
    start = time.time()
    try:
        for i in range(first, first + count):
            try:
                if add_generated(store, i, sections, salt) is None:
                    duplicates += 1
                else:
                    added += 1
            except LibraryError as exc:
                errors.append(exc.message_zh)
    finally:
        store.close()
    return {"added": added, "duplicates": duplicates, "errors": errors, "start": start, "end": time.time()}


def big_writer(host: str, port: int, database: str, user: str, password: str, sections: int) -> None:
    """Store large generated bids forever, printing ``committed N`` after each (a test kills it with -9)."""
    from app.library.engines.postgres import PostgresStore

    store = PostgresStore(ServerConfig(host, port, database, user, password), application_name="bidstudio-killed")
    i = 0
    while True:
        add_generated(store, i, sections, salt="kill")
        i += 1
        print(f"committed {i}", flush=True)
        sys.stdout.flush()
