"""Benchmark: OCR speed, memory and responsiveness, character accuracy, scoring tables from scans.

    python tests/benchmarks/bench_ocr.py [speed] [accuracy] [scoring] [unreadable] [--pages N] [--per-tender K]
        [--degrade all|none|stamp,rotation,shading,blur,noise,jpeg] [--seed S]

Scans are made here: pages of ../shared/tenders PDFs rendered to gray images at ``--dpi``
(default 200, a common scanner setting) with PyMuPDF and put back as image-only pages.

- speed: ``--pages`` pages (default 10) read by the app's OCR worker process
  (:func:`app.ui.tender.ocr_child.serve_ocr`), as the window runs it. Prints wall and CPU
  seconds per page, the projection for 100 pages (target: under 3 minutes), the worker's
  peak memory (target: under 1.5 GB) and the longest stall of a 20 ms ticker in the parent
  process meanwhile (the window's event loop stands in for it: it only polls a pipe).
- accuracy: ``--per-tender`` pages (default 2) of every PDF tender with a text layer;
  character accuracy = 1 − edit distance / native characters, whitespace ignored: over the
  page in reading order (order differences in tables and columns count as errors), line by
  line with OCR characters placed on the native line under them, and as an order-free share
  of characters recovered. Target ≥ 97%.
- scoring: for every labelled PDF tender with a scoring table, a copy whose labelled scoring
  pages (±2) are scans goes through ``ingest_tender(..., ocr=auto)`` and the scoring benchmark's
  unit matching (tests/eval/score_tables.py); printed beside the native result. Target:
  within 5 points. ``--full-scan`` scans every page instead (slow).
- unreadable: what the app now reads from garbled-text-layer.pdf and text-as-outlines.pdf.

``--degrade`` makes the accuracy and scoring scans printed-and-scanned copies instead
(tests/scanned_fixtures.py ``PrintScan``: a red seal over the text, 0.5–2° rotation, uneven
light, blur, sensor noise, JPEG; ``all`` or a comma list of those names, seeded by
``--seed``). Line-aligned accuracy compares boxes with the native page, so it only means
something without rotation; reading order and order-free accuracy do not depend on boxes.

Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import re
import resource
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

import pymupdf  # noqa: E402

from app.documents.ingest import ingest_tender  # noqa: E402
from app.documents.loader import load_tender  # noqa: E402
from app.documents.ocr.apply import OcrMode, OcrSettings  # noqa: E402
from app.documents.ocr.engine import OcrEngine, default_threads  # noqa: E402
from app.documents.ocr.layout import blocks_from_lines  # noqa: E402
from app.documents.ocr.runner import recognize_page  # noqa: E402
from app.ui.tender.ocr_child import serve_ocr  # noqa: E402
from tests.scanned_fixtures import DEGRADATIONS, PrintScan, print_scan_pdf, scan_pdf  # noqa: E402

TENDERS = REPO.parent / "shared" / "tenders"
SPEED_TENDER = "yangjiang-tax-canteen.pdf"
UNREADABLE = ("garbled-text-layer.pdf", "text-as-outlines.pdf")


def _squash(text: str) -> str:
    return "".join(text.split())


def _digits(text: str) -> str:
    return "".join(ch for ch in text if ch.isascii() and ch.isdigit())


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (insert, delete, substitute: 1 each)."""
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def aligned_errors(page: Any, lines: list[Any], digits_only: bool = False) -> tuple[int, int]:
    """(edits, native characters) with OCR characters placed on the native line under them.

    Each OCR line's characters are spread evenly over its box; a character goes to the
    native text line (PyMuPDF ``dict`` lines of the original page) holding its centre.
    Each native line is compared with what landed on it, and characters that landed on no
    line count as insertions, so reading order (table cells, columns) no longer counts.
    ``digits_only`` compares the digits alone (native and OCR characters that are not digits dropped).
    """
    keep = _digits if digits_only else _squash
    native: list[tuple[tuple[float, float, float, float], str]] = []
    for block in page.get_text("dict")["blocks"]:
        for line in block.get("lines", []):
            text = keep(_squash("".join(span["text"] for span in line["spans"])))
            if text:
                native.append((tuple(line["bbox"]), text))
    landed: list[list[tuple[float, str]]] = [[] for _ in native]
    stray = 0
    for ln in lines:
        x0, y0, x1, y1 = ln.bbox
        step = (x1 - x0) / max(len(ln.text), 1)
        for k, ch in enumerate(ln.text):
            if ch.isspace() or not keep(ch):
                continue
            cx, cy = x0 + (k + 0.5) * step, (y0 + y1) / 2
            for i, ((a, b, c, d), _text) in enumerate(native):
                if a - 2 <= cx <= c + 2 and b - 2 <= cy <= d + 2:
                    landed[i].append((cx, ch))
                    break
            else:
                stray += 1
    edits = stray
    for (_box, text), got in zip(native, landed, strict=True):
        edits += edit_distance(text, "".join(ch for _, ch in sorted(got)))
    return edits, sum(len(t) for _, t in native)


def _rss_children_mb() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def bench_speed(pages: int, dpi: int, work: Path) -> None:
    """OCR ``pages`` scanned pages in the worker process; print speed, memory and parent stalls."""
    source = TENDERS / SPEED_TENDER
    with pymupdf.open(source) as d:
        total = d.page_count
    numbers = sorted({1 + round(i * (total - 1) / max(pages - 1, 1)) for i in range(pages)})
    scan = scan_pdf(source, work / "speed-scan.pdf", dpi=dpi, pages=numbers)
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    cancel = ctx.Event()
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    stalls: list[float] = []
    stop = threading.Event()

    def ticker() -> None:
        while not stop.is_set():
            t = time.perf_counter()
            time.sleep(0.02)
            stalls.append(time.perf_counter() - t - 0.02)

    tick = threading.Thread(target=ticker, daemon=True)
    tick.start()
    t0 = time.perf_counter()
    proc = ctx.Process(target=serve_ocr, args=(child, cancel, str(scan), None, list(range(1, len(numbers) + 1)),
                                               str(work / "speed-cache")))
    proc.start()
    child.close()
    stamps: list[float] = []
    while True:
        msg = parent.recv()
        if msg[0] == "page":
            stamps.append(time.perf_counter())
        else:
            break
    proc.join()
    wall = time.perf_counter() - t0
    stop.set()
    tick.join()
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    gaps = [b - a for a, b in zip([t0, *stamps[:-1]], stamps, strict=False)]
    n = len(stamps)
    print(f"speed: {n} scanned pages of {SPEED_TENDER} at {dpi} dpi, OCR worker process, "
          f"{default_threads()} inference thread(s)")
    print(f"  wall {wall:.1f} s in all (model load included), {statistics.median(gaps[1:] or gaps):.2f} s/page median, "
          f"{(stamps[-1] - stamps[0]) / max(n - 1, 1):.2f} s/page after the first")
    print(f"  CPU {cpu / n:.2f} s/page (both cores together)")
    per_page = (stamps[-1] - stamps[0]) / max(n - 1, 1)
    print(f"  projected 100 pages: {100 * per_page / 60:.1f} min (target < 3 min)")
    print(f"  worker peak memory: {_rss_children_mb():.0f} MB (target < 1500 MB)")
    print(f"  parent 20 ms ticker: longest stall {1000 * max(stalls):.0f} ms, "
          f"p99 {1000 * sorted(stalls)[int(0.99 * (len(stalls) - 1))]:.0f} ms over {len(stalls)} ticks")


def _pdf_tenders() -> list[Path]:
    return [p for p in sorted(TENDERS.glob("*.pdf")) if p.name not in UNREADABLE]


def make_scan(source: Path, target: Path, dpi: int, pages: list[int] | None, how: PrintScan | None) -> Path:
    """A clean gray scan of ``pages``, or a printed-and-scanned copy when ``how`` is given."""
    if how is None:
        return scan_pdf(source, target, dpi=dpi, pages=pages)
    return print_scan_pdf(source, target, dpi=dpi, pages=pages, how=how)


def describe(how: PrintScan | None) -> str:
    """The degradations of a scan, for the report."""
    if how is None:
        return "clean gray scan"
    parts = ["seal" if how.stamp else "",
             f"rotation {how.rotation[0]}–{how.rotation[1]}°" if how.rotation else "",
             f"shading {how.shading:.0%}" if how.shading else "", f"blur {how.blur} px" if how.blur else "",
             f"noise σ{how.noise:g}" if how.noise else "", f"JPEG q{how.jpeg_quality}" if how.jpeg_quality else ""]
    return "printed-and-scanned copy: " + (", ".join(p for p in parts if p) or "nothing degraded") + f", seed {how.seed}"


def bench_accuracy(per_tender: int, dpi: int, work: Path, how: PrintScan | None = None) -> None:
    """Character accuracy of OCR on scans of native pages."""
    engine = OcrEngine()
    total_chars = total_edits = total_found = aligned_edits = aligned_chars = 0
    digit_chars = digit_edits = digit_found = aligned_digit_edits = aligned_digits = 0  # the digits alone
    secs: list[float] = []
    print(f"accuracy: {per_tender} page(s) per PDF tender, scanned at {dpi} dpi ({describe(how)})")
    for path in _pdf_tenders():
        native = load_tender(path)
        usable = [p for p in native.pages if p.readable and p.char_count >= 200]
        if not usable:
            continue
        picks = [usable[round((k + 1) * len(usable) / (per_tender + 1)) - 1] for k in range(per_tender)]
        numbers = sorted({p.number for p in picks})
        scan = make_scan(path, work / f"acc-{path.stem}.pdf", dpi, numbers, how)
        with pymupdf.open(scan) as sdoc, pymupdf.open(path) as ndoc:
            for index, number in enumerate(numbers):
                result = recognize_page(sdoc[index], number, engine)
                secs.append(result.seconds)
                got = _squash("".join(b.text for b in blocks_from_lines(result.lines, number)))
                want = _squash(native.page(number).text)
                edits = edit_distance(want, got)
                found = sum((Counter(want) & Counter(got)).values())
                total_chars += len(want)
                total_edits += edits
                total_found += found
                want_digits, got_digits = _digits(want), _digits(got)
                digit_chars += len(want_digits)
                digit_edits += edit_distance(want_digits, got_digits)
                digit_found += sum((Counter(want_digits) & Counter(got_digits)).values())
                d_edits, d_chars = aligned_errors(ndoc[number - 1], result.lines, digits_only=True)
                aligned_digit_edits += d_edits
                aligned_digits += d_chars
                a_edits, a_chars = aligned_errors(ndoc[number - 1], result.lines)
                aligned_edits += a_edits
                aligned_chars += a_chars
                print(f"  {path.name} p{number}: {len(want)} chars, accuracy {100 * (1 - edits / len(want)):.1f}%, "
                      f"line-aligned {100 * (1 - a_edits / max(a_chars, 1)):.1f}%, "
                      f"order-free {100 * found / len(want):.1f}%, {result.seconds:.1f} s")
    print(f"  TOTAL character accuracy {100 * (1 - total_edits / max(total_chars, 1)):.2f}% over {total_chars} chars "
          f"in reading order; line-aligned {100 * (1 - aligned_edits / max(aligned_chars, 1)):.2f}%; "
          f"order-free {100 * total_found / max(total_chars, 1):.2f}%; {statistics.mean(secs):.2f} s/page in-process")
    print(f"  TOTAL digit accuracy {100 * (1 - digit_edits / max(digit_chars, 1)):.2f}% over {digit_chars} digits "
          f"in reading order; line-aligned {100 * (1 - aligned_digit_edits / max(aligned_digits, 1)):.2f}%; "
          f"order-free {100 * digit_found / max(digit_chars, 1):.2f}% (the pages' digits alone)")


_LOCATION = re.compile(r"pp?\s*(\d+)(?:\s*-\s*(\d+))?")


def _scan_window(label: dict[str, Any]) -> list[int]:
    m = _LOCATION.search(str(label.get("location") or ""))
    if not m:
        return []
    first, last = int(m.group(1)), int(m.group(2) or m.group(1))
    return list(range(max(1, first - 2), last + 3))


def _partly_scanned(path: Path, numbers: list[int], target: Path, dpi: int, how: PrintScan | None = None) -> Path:
    """``path`` with pages ``numbers`` replaced by their scans."""
    with pymupdf.open(path) as src, pymupdf.open() as out:
        wanted = {n for n in numbers if n <= src.page_count}
        scans = make_scan(path, target.with_suffix(".pages.pdf"), dpi, sorted(wanted), how)
        with pymupdf.open(scans) as sc:
            k = 0
            for n in range(1, src.page_count + 1):
                if n in wanted:
                    out.insert_pdf(sc, from_page=k, to_page=k)
                    k += 1
                else:
                    out.insert_pdf(src, from_page=n - 1, to_page=n - 1)
        out.save(target, garbage=3, deflate=True)
    return target


def bench_scoring(dpi: int, work: Path, full: bool, how: PrintScan | None = None) -> None:
    """The scoring benchmark's units, native vs scanned scoring pages."""
    sys.path.insert(0, str(REPO / "tests" / "eval"))
    from score_tables import evaluate  # type: ignore[import-not-found]

    labels: dict[str, Any] = json.loads((TENDERS / "labels.json").read_text(encoding="utf-8"))
    n_ok = n_units = s_ok = 0
    print(f"scoring: labelled PDF tenders, {'every page' if full else 'the labelled scoring pages ±2'} scanned at {dpi} dpi "
          f"({describe(how)})")
    for name, label in labels.items():
        path = TENDERS / name
        if not name.endswith(".pdf") or name in UNREADABLE or not label.get("has_table"):
            continue
        window = _scan_window(label)
        if not window and not full:
            continue
        native = evaluate(name, label, ingest_tender(path))
        with pymupdf.open(path) as d:
            numbers = list(range(1, d.page_count + 1)) if full else window
        copy = _partly_scanned(path, numbers, work / f"score-{path.stem}.pdf", dpi, how)
        t0 = time.perf_counter()
        result = ingest_tender(copy, ocr=OcrSettings(mode=OcrMode.AUTO, cache_dir=work / "score-cache"))
        seconds = time.perf_counter() - t0
        scanned = evaluate(name, label, result)
        ocr_pages = [p.number for p in result.document.pages if p.source == "ocr"]
        uncertain = [t.id for t in result.document.tables if t.source == "ocr" and t.uncertain]
        units = len(native.units)
        n_units += units
        n_ok += native.units_ok
        s_ok += scanned.units_ok
        print(f"  {name}: native {native.units_ok}/{units}, scanned {scanned.units_ok}/{units} "
              f"(OCR pages {ocr_pages[0] if ocr_pages else '-'}–{ocr_pages[-1] if ocr_pages else '-'}, "
              f"{seconds:.0f} s; tables in doubt: {len(uncertain)})")
    if n_units:
        native_pct, scanned_pct = 100 * n_ok / n_units, 100 * s_ok / n_units
        print(f"  TOTAL units found right: native {n_ok}/{n_units} ({native_pct:.1f}%), "
              f"scanned {s_ok}/{n_units} ({scanned_pct:.1f}%), difference {native_pct - scanned_pct:.1f} points "
              "(target ≤ 5)")


def bench_unreadable(work: Path) -> None:
    """What the app reads from the two shared tenders it could not read before."""
    for name in UNREADABLE:
        path = TENDERS / name
        t0 = time.perf_counter()
        result = ingest_tender(path, ocr=OcrSettings(mode=OcrMode.AUTO, cache_dir=work / "unreadable-cache"))
        doc = result.document
        print(f"unreadable: {name} ({time.perf_counter() - t0:.1f} s)")
        for p in doc.pages:
            low = sum(1 for ln in p.ocr_lines if ln.confidence < 0.8)
            first = " / ".join(b.text.split("\n")[0] for b in p.blocks[:3])
            print(f"  p{p.number}: {p.source}, {p.char_count} chars, {len(p.ocr_lines)} lines ({low} low confidence): "
                  f"{first[:80]}")
        for t in doc.tables:
            print(f"  table {t.id}: {len(t.rows)}×{t.col_count}{'（' + t.uncertain + '）' if t.uncertain else ''}")
        print(f"  headings: {[h.text for h in doc.headings][:8]}")
        print(f"  sections: {[(s.kind, s.first_page, s.last_page) for s in result.sections.all()]}")
        print(f"  scoring: {result.scoring.message_zh}")
        print(f"  unreadable pages left: {doc.unreadable_pages}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("parts", nargs="*", default=["speed", "accuracy", "scoring", "unreadable"])
    parser.add_argument("--pages", type=int, default=10)
    parser.add_argument("--per-tender", type=int, default=2)
    parser.add_argument("--dpi", type=int, default=200)
    parser.add_argument("--full-scan", action="store_true")
    parser.add_argument("--degrade", default="none",
                        help=f"printed-and-scanned copies: all, none, or a comma list of {','.join(DEGRADATIONS)}")
    parser.add_argument("--seed", type=int, default=0, help="seed of the degradations (rotation sign, seal place, …)")
    args = parser.parse_args()
    names = DEGRADATIONS if args.degrade == "all" else [n for n in args.degrade.split(",") if n and n != "none"]
    how = PrintScan.only(names, seed=args.seed) if names else None
    if not TENDERS.is_dir():
        print("../shared/tenders is not present: nothing to measure")
        return
    with tempfile.TemporaryDirectory(prefix="bench-ocr-") as tmp:
        work = Path(tmp)
        for part in args.parts:
            if part == "speed":
                bench_speed(args.pages, args.dpi, work)
            elif part == "accuracy":
                bench_accuracy(args.per_tender, args.dpi, work, how)
            elif part == "scoring":
                bench_scoring(args.dpi, work, args.full_scan, how)
            elif part == "unreadable":
                bench_unreadable(work)
            sys.stdout.flush()


if __name__ == "__main__":
    main()
