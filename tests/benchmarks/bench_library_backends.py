"""Benchmark: the library on SQLite and on PostgreSQL, on the same generated bids (issue 40 item 5).

    python tests/benchmarks/bench_library_backends.py [--bids 200] [--sections 100] [--writers 5]
        [--writer-bids 200] [--keep DIR] [--skip-ranking] [--skip-writers]

Starts its own PostgreSQL server (``tests/pg_server.py``, durable commits as an office runs
it; initdb in a temporary folder) and prints, for each engine:

* import: the ``--bids`` generated .docx bids of ``bench_library.py`` (cached in DIR) read once
  (the same for both engines) and stored — the store's seconds, and read + store a bid;
* query: median / p95 ms of 100 heading searches (the app's ``search_sections``), right after the
  import and once more (PostgreSQL's first pass also reads the new index from disk and plans
  without statistics until autovacuum has analysed the new rows);
* 查重: stale names + copied passages of a 300-page bid against that library;
* ranking: the same labelled queries answered by SQLite FTS5, the app's n-gram tsvector and
  ``pg_trgm`` (in a C.UTF-8 database, and in a C one): precision of the top 10, reciprocal
  rank of the first right section, and how many of FTS5's top 10 each finds;
* writers: ``--writers`` processes storing ``--writer-bids`` generated bids each at once (all
  different), then all storing the same ones, with another process searching meanwhile:
  seconds, errors, lost bids, and the searcher's median / p95 ms.

Prints figures; asserts nothing. The machine may be shared: run it on a quiet one for timings.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_library import QUERIES, bench_check, make_corpus  # noqa: E402

from app.core.similarity import normalize_text  # noqa: E402
from app.documents.outlines.bid_reader import read_bid  # noqa: E402
from app.library.bid_import import content_hash, extract_info, extract_people, section_rows  # noqa: E402
from app.library.engines.postgres import PostgresStore  # noqa: E402
from app.library.people import people_in_tables  # noqa: E402
from app.library.search import search_sections  # noqa: E402
from app.library.store import LibrarySpec, LibraryStore, ServerConfig  # noqa: E402
from tests.pg_server import PgServer, start_server  # noqa: E402
from tests.pg_workers import search_until, write_generated  # noqa: E402

#: Queries with the words a right answer's title holds (a heading written another way, a scoring item's name).
LABELLED = {**{q: q for q in QUERIES},
            "应急预案及响应": "应急", "质量控制流程": "质量", "施工进度计划安排": "进度", "备品备件供应": "备品备件",
            "安全管理体系建设": "安全", "人员配置及分工": "人员", "售后服务及承诺": "售后", "培训计划与方案": "培训",
            "项目组织机构设置": "组织机构", "环境保护与文明施工": "环境"}


def parse_corpus(files: list[Path]) -> list[tuple[Any, ...]]:
    """Each bid read once, as ``add_bid`` takes it (what both engines store)."""
    out = []
    for f in files:
        bid = read_bid(f)
        info = extract_info(bid)
        names = [(k, v) for k, v in info.items() if v] + [("person", p) for p in extract_people(bid.full_text())]
        names += [("person", p) for p in people_in_tables(t for r in bid.sections for _, s in r.walk() for t in s.tables)]
        out.append((content_hash(bid), str(f), f.stem, info, section_rows(bid), names, bid.metadata))
    return out


def store_all(store: LibraryStore, parsed: list[tuple[Any, ...]]) -> float:
    t0 = time.perf_counter()
    for bid in parsed:
        store.add_bid(*bid)
    return time.perf_counter() - t0


def bench_queries(store: LibraryStore) -> tuple[float, float]:
    times = []
    for i in range(100):
        t0 = time.perf_counter()
        search_sections(store, QUERIES[i % len(QUERIES)], 10, context="评分标准：措施完善、针对性强得满分" if i % 2 else "")
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return statistics.median(times), times[94]


class TrigramStore(PostgresStore):
    """The PostgreSQL engine with pg_trgm candidates instead of the n-gram tsvector (for the comparison only)."""

    query = ""

    def candidate_ids(self, grams: Any, limit: int) -> list[int]:
        q = self.query
        rows = self._call(lambda con: con.execute(
            "SELECT id FROM sections WHERE title %% %(q)s OR %(q)s <%% body"
            " ORDER BY 8 * similarity(title, %(q)s) + word_similarity(%(q)s, body) DESC LIMIT %(n)s",
            {"q": q, "n": limit}).fetchall())
        return [int(r[0]) for r in rows]


def ranking(store: LibraryStore, reference: dict[str, list[int]] | None = None) -> tuple[dict[str, float], dict[str, list[int]]]:
    """P@10, MRR and top-1 of LABELLED, and overlap@10 with ``reference`` (titles matched by the key words)."""
    p10, rr, top1, overlap = [], [], [], []
    got: dict[str, list[int]] = {}
    for query, key in LABELLED.items():
        if isinstance(store, TrigramStore):
            store.query = query
        hits = search_sections(store, query, 10)
        got[query] = [h.section.id for h in hits]
        right = [key in normalize_text(h.section.title) for h in hits]
        p10.append(sum(right) / 10)
        rr.append(next((1 / (i + 1) for i, ok in enumerate(right) if ok), 0.0))
        top1.append(float(bool(right) and right[0]))
        if reference is not None:
            overlap.append(len(set(got[query]) & set(reference[query])) / max(1, len(reference[query])))
    out = {"P@10": statistics.mean(p10), "MRR": statistics.mean(rr), "top1": statistics.mean(top1)}
    if reference is not None:
        out["overlap@10"] = statistics.mean(overlap)
    return out, got


def trigram_database(server: PgServer, name: str, ctype: str, source: str) -> ServerConfig:
    """A copy of ``source`` (same ids) with pg_trgm indexes, in a database of LC_CTYPE ``ctype``."""
    server.sql(f"CREATE DATABASE {name} OWNER office TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C'"
               f" LC_CTYPE '{ctype}'")
    server.sql("CREATE EXTENSION pg_trgm", name)
    PostgresStore(ServerConfig("127.0.0.1", server.port, name, "office", "office-pw")).close()  # the schema
    dump = server.root / "sections.copy"
    server.sql(f"COPY (SELECT * FROM bids) TO '{dump}.bids'", source)
    server.sql(f"COPY (SELECT * FROM sections) TO '{dump}'", source)
    server.sql(f"COPY bids FROM '{dump}.bids'", name)
    server.sql(f"COPY sections FROM '{dump}'", name)
    server.sql("CREATE INDEX title_trgm ON sections USING gin(title gin_trgm_ops);"
               " CREATE INDEX body_trgm ON sections USING gin(body gin_trgm_ops); ANALYZE", name)
    return ServerConfig("127.0.0.1", server.port, name, "office", "office-pw")


def bench_writers(label: str, targets: list[Any], writers: int, per_writer: int, sections: int,
                  cleanup: list[Path]) -> None:
    """``writers`` processes storing at once (different bids, then the same ones), one more searching."""
    for same in (False, True):
        store = open_target(targets[0])
        before = store.counts()[0]
        store.close()
        stop = Path(tempfile.mkdtemp(prefix="bidstudio-bench-")) / "writers-done"
        cleanup.append(stop.parent)
        with ProcessPoolExecutor(max_workers=writers + 1, mp_context=get_context("spawn")) as pool:
            t0 = time.perf_counter()
            jobs = [pool.submit(write_generated, targets[w], 0 if same else w * per_writer, per_writer, sections,
                                f"{label}-same" if same else f"{label}-w") for w in range(writers)]
            reader = pool.submit(search_until, targets[0], list(QUERIES), 3600.0, 0.05, str(stop))
            try:
                results = [j.result() for j in jobs]
                wall = time.perf_counter() - t0
            finally:
                stop.touch()  # the searcher stops with the writers, whatever happened to them
            searched = reader.result()
        added = sum(int(r["added"]) for r in results)
        dups = sum(int(r["duplicates"]) for r in results)
        errors = [str(e) for r in results for e in r["errors"]]  # type: ignore[attr-defined]
        want = per_writer if same else writers * per_writer
        store = open_target(targets[0])
        new = store.counts()[0] - before
        store.close()
        ms = sorted(searched["ms"])  # type: ignore[arg-type]
        what = "the same" if same else "different"
        first_error = f" ({errors[0][:70]})" if errors else ""
        print(f"  {label}: {writers} writers × {per_writer} {what} bids in {wall:.1f} s — {added} stored, {dups} found"
              f" stored already, {len(errors)} errors{first_error}; {new} of {want} bids in the library, "
              f"{want - new} lost; a searcher meanwhile: {len(ms)} searches, median "
              f"{statistics.median(ms) if ms else 0:.0f} ms, p95 {ms[int(len(ms) * 0.95)] if ms else 0:.0f} ms,"
              f" {len(searched['errors'])} errors")  # type: ignore[arg-type]


def open_target(target: Any) -> LibraryStore:
    from app.library.store import open_library

    return open_library(target if isinstance(target, LibrarySpec) else LibrarySpec("postgres", server=target))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bids", type=int, default=200)
    ap.add_argument("--sections", type=int, default=100)
    ap.add_argument("--writers", type=int, default=5)
    ap.add_argument("--writer-bids", type=int, default=200)
    ap.add_argument("--keep", type=Path, default=Path(tempfile.gettempdir()) / "bidstudio-bench-library")
    ap.add_argument("--skip-ranking", action="store_true")
    ap.add_argument("--skip-writers", action="store_true")
    args = ap.parse_args()
    corpus = args.keep / f"bids-{args.bids}x{args.sections}"
    t0 = time.perf_counter()
    files = make_corpus(corpus, args.bids, args.sections)
    print(f"corpus: {len(files)} .docx in {corpus} (made or reused in {time.perf_counter() - t0:.0f} s)")
    t0 = time.perf_counter()
    parsed = parse_corpus(files)
    read_s = time.perf_counter() - t0
    n_sections = sum(len(p[4]) for p in parsed)
    print(f"read: {len(parsed)} bids, {n_sections} sections in {read_s:.1f} s ({read_s / len(parsed) * 1000:.0f} ms a bid,"
          " the same for both engines)")
    server = start_server(fast=False)
    work = Path(tempfile.mkdtemp(prefix="bidstudio-bench-"))
    cleanup = [work]  # the libraries written here (a GB or two with the writers): removed at the end
    try:
        server.create_database("bench", "office", "office-pw")
        sqlite_path = work / "library.sqlite3"
        stores: dict[str, LibraryStore] = {
            "sqlite": LibraryStore(sqlite_path),
            "postgres": PostgresStore(ServerConfig("127.0.0.1", server.port, "bench", "office", "office-pw")),
        }
        print(f"PostgreSQL {server.sql('SHOW server_version')} (durable commits, locale C) on this machine;"
              f" SQLite {__import__('sqlite3').sqlite_version} (WAL, synchronous=NORMAL)")
        for name, store in stores.items():
            wall = store_all(store, parsed)
            print(f"import {name}: store {wall:.1f} s ({wall / len(parsed) * 1000:.0f} ms a bid); read + store"
                  f" {(read_s + wall) / len(parsed) * 1000:.0f} ms a bid")
        for name, store in stores.items():
            for run in ("right after the import", "again"):
                median, p95 = bench_queries(store)
                print(f"query {name} ({run}): median {median:.1f} ms, p95 {p95:.1f} ms (100 searches)")
        for name, store in stores.items():
            print(f"{name}:")
            bench_check(store)
        if not args.skip_ranking:
            print(f"ranking ({len(LABELLED)} labelled queries, the app's re-ranking on each engine's candidates):")
            fts, reference = ranking(stores["sqlite"])
            print(f"  sqlite FTS5 trigram: P@10 {fts['P@10']:.2f}, MRR {fts['MRR']:.2f}, top-1 {fts['top1']:.2f}")
            ngram, _ = ranking(stores["postgres"], reference)
            print(f"  postgres n-gram tsvector: P@10 {ngram['P@10']:.2f}, MRR {ngram['MRR']:.2f}, top-1 {ngram['top1']:.2f},"
                  f" {ngram['overlap@10']:.2f} of FTS5's top 10")
            for ctype in ("C.UTF-8", "C"):
                db = "trgm_" + ctype.replace(".", "_").replace("-", "").lower()
                trgm = TrigramStore(trigram_database(server, db, ctype, "bench"))
                scores, _ = ranking(trgm, reference)
                median, p95 = bench_queries_trgm(trgm)
                print(f"  postgres pg_trgm (LC_CTYPE {ctype}): P@10 {scores['P@10']:.2f}, MRR {scores['MRR']:.2f},"
                      f" top-1 {scores['top1']:.2f}, {scores['overlap@10']:.2f} of FTS5's top 10;"
                      f" query median {median:.1f} ms, p95 {p95:.1f} ms")
                trgm.close()
        for store in stores.values():
            store.close()
        if not args.skip_writers:
            print(f"writers ({args.writers} processes at once, generated bids of {args.sections} sections):")
            server.create_database("writers", "office", "office-pw")
            pg = ServerConfig("127.0.0.1", server.port, "writers", "office", "office-pw")
            PostgresStore(pg).close()
            bench_writers("postgres", [pg] * args.writers, args.writers, args.writer_bids, args.sections, cleanup)
            spec = LibrarySpec("sqlite", str(work / "writers.sqlite3"))
            LibraryStore(Path(spec.path)).close()
            bench_writers("sqlite (one file)", [spec] * args.writers, args.writers, args.writer_bids, args.sections,
                          cleanup)
    finally:
        server.destroy()
        for folder in cleanup:
            shutil.rmtree(folder, ignore_errors=True)


def bench_queries_trgm(store: TrigramStore) -> tuple[float, float]:
    times = []
    for i in range(100):
        store.query = QUERIES[i % len(QUERIES)]
        t0 = time.perf_counter()
        search_sections(store, store.query, 10)
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return statistics.median(times), times[94]


if __name__ == "__main__":
    main()
