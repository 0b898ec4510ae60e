"""Benchmark: the 资料库 at office scale (issue 26 item 7).

    python tests/benchmarks/bench_library.py [--bids 200] [--sections 100] [--pdf 40] [--keep DIR] [--skip-gui]

Generates (once, cached in DIR) ``--bids`` past bids as .docx, each ``--sections`` headings
with ~500 characters of text under each (about 100 pages a bid at 200 sections … 20,000 in
all), then prints:

* import: wall seconds for the whole folder into a fresh library (the app's import path);
* import (pdf): the same for ``--pdf`` bids written as .pdf (bookmarks, one ruled staff table
  each), with the pages searched for tables and the tables kept; then a few of them again with
  the table finder forced onto every page (what the grid pre-filter saves);
* query: median / p95 / max milliseconds of 100 heading searches;
* 查重: seconds for stale names + copied passages of a 300-page bid (300 sections × ~1,000
  characters, a few planted copies) against that library, then for comparing it with one
  past bid as another bidder's file (shared sentences, shared typos looked up in the library);
* GUI stall: the longest gap of a 10 ms QTimer on the GUI thread while the import worker
  imports 20 bids in the background (``--skip-gui`` leaves it out).

Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from app.core.outline import Outline, OutlineNode  # noqa: E402
from app.library.bid_import import import_files  # noqa: E402
from app.library.checks import copied_passages, outline_sections, stale_names  # noqa: E402
from app.library.search import search_sections  # noqa: E402
from app.library.store import LibraryStore  # noqa: E402
from tests.library_fixtures import make_bid, outline_texts, write_docx, write_pdf  # noqa: E402

QUERIES = ["应急预案", "质量保证措施", "施工进度计划", "人员配置", "安全文明施工", "售后服务承诺", "设备维护保养",
           "项目组织机构", "培训方案", "环境保护措施", "服务流程", "故障处理", "系统架构设计", "备品备件"]


def big_outline(index: int, sections: int) -> str:
    """An outline text of about ``sections`` headings, built from the real/own outlines."""
    texts = outline_texts()
    lines: list[str] = []
    k = index
    while len(lines) < sections:
        lines += [ln for ln in texts[k % len(texts)].splitlines() if ln.strip()]
        k += 1
    # one outline of numbered chapters: renumber the chunks' top-level lines as chapters
    return "\n".join(lines[:sections])


def make_corpus(folder: Path, bids: int, sections: int) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(bids):
        p = folder / f"bid{i:03d}.docx"
        if not p.exists():
            bid = make_bid(i, big_outline(i, sections), paragraphs=9)
            write_docx(bid, p, table=True)
        paths.append(p)
    return paths


def make_pdf_corpus(folder: Path, bids: int, sections: int) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(bids):
        p = folder / f"bid{i:03d}.pdf"
        if not p.exists():
            write_pdf(make_bid(i, big_outline(i, sections), paragraphs=9), p, table=True)
        paths.append(p)
    return paths


def bench_pdf_import(corpus: Path, db: Path, forced: int = 5) -> None:
    import pymupdf

    from app.documents.outlines import pdf_items

    searched = [0, 0]
    real_items = pdf_items.page_items

    def counting(page: object, budget: pdf_items.TableBudget | None = None) -> list[pdf_items.PageItem]:
        before = (budget.searched, budget.tables) if budget else (0, 0)
        out = real_items(page, budget)
        if budget is not None:
            searched[0] += budget.searched - before[0]
            searched[1] += budget.tables - before[1]
        return out

    files = sorted(corpus.glob("*.pdf"))
    pages = 0
    for f in files:
        with pymupdf.open(str(f)) as d:
            pages += d.page_count
    for label, grid, sample in (("grid pre-filter", None, files), ("finder on every page", True, files[:forced])):
        for f in db.parent.glob(db.name + "*"):
            f.unlink()
        store = LibraryStore(db)
        searched[:] = [0, 0]
        pdf_items.page_items = counting  # type: ignore[assignment]
        real_grid = pdf_items.has_ruled_grid
        if grid:
            pdf_items.has_ruled_grid = lambda page: True  # type: ignore[assignment]
        try:
            t0 = time.perf_counter()
            outcomes = import_files(store, sample)
            wall = time.perf_counter() - t0
        finally:
            pdf_items.page_items = real_items  # type: ignore[assignment]
            pdf_items.has_ruled_grid = real_grid  # type: ignore[assignment]
        n_pages = pages * len(sample) // max(1, len(files))
        added = sum(o.status == "added" for o in outcomes)
        print(f"import (pdf, {label}): {added} bids (~{n_pages} pages) in {wall:.1f} s "
              f"({wall / max(1, added) * 1000:.0f} ms a bid, {wall / max(1, n_pages) * 1000:.1f} ms a page); "
              f"{searched[0]} pages searched for tables, {searched[1]} tables kept")
        store.close()


def bench_import(corpus: Path, db: Path) -> LibraryStore:
    for f in db.parent.glob(db.name + "*"):
        f.unlink()
    store = LibraryStore(db)
    t0 = time.perf_counter()
    outcomes = import_files(store, [corpus])
    wall = time.perf_counter() - t0
    _bids, n_sections = store.counts()
    added = sum(o.status == "added" for o in outcomes)
    print(f"import: {added} bids, {n_sections} sections in {wall:.1f} s "
          f"({wall / max(1, added) * 1000:.0f} ms a bid; fts={store.fts}); db {db.stat().st_size / 1e6:.0f} MB")
    return store


def bench_query(store: LibraryStore) -> None:
    times = []
    for i in range(100):
        q = QUERIES[i % len(QUERIES)]
        t0 = time.perf_counter()
        search_sections(store, q, 10, context="评分标准：措施完善、针对性强得满分" if i % 2 else "")
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    print(f"query: median {statistics.median(times):.1f} ms, p95 {times[94]:.1f} ms, max {times[-1]:.1f} ms (100 searches)")


def bench_check(store: LibraryStore) -> None:
    past = store.sections_of(store.bids()[-1].id)
    planted = [s.body for s in past[:5] if s.body]
    nodes = []
    for i in range(300):
        text = "".join(f"本节第{i}段第{k}句说明我方针对本项目所采取的具体工作方法和保障措施，确保每一项要求都能落实到位。"
                       for k in range(20))
        if i % 60 == 0 and planted:
            text += planted[(i // 60) % len(planted)]
        nodes.append(OutlineNode(title=f"第{i + 1}节", content=text))
    outline = Outline([OutlineNode(title=f"第{c + 1}章", children=nodes[c * 30:(c + 1) * 30]) for c in range(10)])
    chars = sum(len(n.content) for n in nodes)
    t0 = time.perf_counter()
    sections = outline_sections(outline)
    stale = stale_names(sections, store, ["新区智慧停车项目"])
    copied = copied_passages(sections, store)
    wall = time.perf_counter() - t0
    print(f"查重: {chars} characters ({len(nodes)} sections) in {wall:.2f} s — {len(stale)} stale names, "
          f"{len(copied)} copied passages found")
    from app.documents.outlines.bid_reader import read_bid
    from app.library.checks import compare_with_bid

    other = read_bid(Path(store.bids()[0].path))
    t0 = time.perf_counter()
    found = compare_with_bid(sections, other, store=store)
    wall = time.perf_counter() - t0
    kinds = {k: sum(f.kind == k for f in found) for k in ("shared_sentence", "near_sentence", "shared_typo")}
    print(f"围标 compare: the same bid against another bidder's file ({len(other.full_text())} characters) in "
          f"{wall:.2f} s — {kinds['shared_sentence']} shared sentences, {kinds['near_sentence']} near copies, "
          f"{kinds['shared_typo']} shared typos")


def _timer_gaps(app: object, busy: object | None, seconds_cap: float = 300.0) -> list[float]:
    """Gaps (ms) of a 10 ms QTimer on this (GUI) thread until ``busy`` (a QThread) ends, or for 3 s without one."""
    from PySide6.QtCore import QElapsedTimer, QTimer

    clock = QElapsedTimer()
    gaps: list[float] = []
    last = [0.0]

    def tick() -> None:
        now = clock.nsecsElapsed() / 1e6
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(tick)
    clock.start()
    timer.start()
    t0 = time.perf_counter()
    if busy is not None:
        busy.start()  # type: ignore[attr-defined]
    while time.perf_counter() - t0 < seconds_cap:
        app.processEvents()  # type: ignore[attr-defined]
        time.sleep(0.001)
        if busy is None and time.perf_counter() - t0 > 3:
            break
        if busy is not None and busy.isFinished():  # type: ignore[attr-defined]
            break
    timer.stop()
    return sorted(gaps[1:])


def bench_gui(corpus: Path, db: Path, count: int = 20) -> None:
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from app.library.store import LibrarySpec
    from app.ui.library.library_panel import ImportWorker

    app = QApplication.instance() or QApplication([])
    for f in db.parent.glob(db.name + "*"):
        f.unlink()
    idle = _timer_gaps(app, None)
    worker = ImportWorker(LibrarySpec("sqlite", str(db)), sorted(corpus.glob("*.docx"))[:count])
    busy = _timer_gaps(app, worker)
    worker.wait()
    for name, gaps in (("idle (no import, machine load only)", idle), (f"while importing {count} bids", busy)):
        print(f"GUI timer gaps {name}: longest {gaps[-1]:.0f} ms, p99 {gaps[int(len(gaps) * 0.99)]:.0f} ms, "
              f"median {gaps[len(gaps) // 2]:.0f} ms ({len(gaps)} ticks of a 10 ms timer)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bids", type=int, default=200)
    ap.add_argument("--sections", type=int, default=100)
    ap.add_argument("--pdf", type=int, default=40, help="past bids also written as .pdf (0: none)")
    ap.add_argument("--keep", type=Path, default=Path(tempfile.gettempdir()) / "bidstudio-bench-library")
    ap.add_argument("--skip-gui", action="store_true")
    args = ap.parse_args()
    corpus = args.keep / f"bids-{args.bids}x{args.sections}"
    t0 = time.perf_counter()
    make_corpus(corpus, args.bids, args.sections)
    print(f"corpus: {args.bids} .docx in {corpus} (made or reused in {time.perf_counter() - t0:.0f} s)")
    store = bench_import(corpus, args.keep / "library.sqlite3")
    if args.pdf:
        pdf_corpus = args.keep / f"pdf-{args.pdf}x{args.sections}"
        t0 = time.perf_counter()
        make_pdf_corpus(pdf_corpus, args.pdf, args.sections)
        print(f"corpus: {args.pdf} .pdf in {pdf_corpus} (made or reused in {time.perf_counter() - t0:.0f} s)")
        bench_pdf_import(pdf_corpus, args.keep / "library-pdf.sqlite3")
    bench_query(store)
    bench_check(store)
    store.close()
    if not args.skip_gui:
        bench_gui(corpus, args.keep / "gui.sqlite3")


if __name__ == "__main__":
    main()
