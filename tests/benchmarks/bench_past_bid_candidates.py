"""Benchmark: past-bid candidates for outline chapters, leave one out over real outlines.

    python tests/benchmarks/bench_past_bid_candidates.py [--show N]

Every outline of ``../shared/outlines`` (plus the generated ones) becomes a past bid in a
fresh library, except the one whose chapters are the queries: each of its chapter titles is
asked as a scoring item (no criteria) and the past sections taken for it are printed, so a
reader can judge whether each is about the item. Figures: chapters asked, chapters given a
past structure, past sections offered, and milliseconds per chapter (search + checks).
Chapters of two or more words shared with nothing fall back to the heading library, as before.

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

from app.core.rules.outline import strip_numbering  # noqa: E402
from app.documents.outlines.sections import parse_outline_text  # noqa: E402
from app.library.bid_import import import_bid  # noqa: E402
from app.library.store import LibraryStore  # noqa: E402
from app.pipeline.headings.candidates import history_candidates  # noqa: E402
from tests.library_fixtures import make_bid, outline_texts, write_docx  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--show", type=int, default=40, help="matched chapters to print")
    args = ap.parse_args()
    texts = outline_texts()
    asked = given = offered = 0
    times: list[float] = []
    shown = 0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files = [write_docx(make_bid(i, t), folder / f"bid{i:02d}.docx") for i, t in enumerate(texts)]
        for held_out, text in enumerate(texts):
            store = LibraryStore(folder / f"lib{held_out}.sqlite3")
            for i, f in enumerate(files):
                if i != held_out:
                    import_bid(store, f)
            for chapter in parse_outline_text(text):
                title = strip_numbering(chapter.title)
                t0 = time.perf_counter()
                cands = history_candidates(store, title, "", title)
                times.append((time.perf_counter() - t0) * 1000)
                asked += 1
                if cands:
                    given += 1
                    offered += len(cands)
                    if shown < args.show:
                        shown += 1
                        print(f"{title}  ←  {cands[0].note}: {'、'.join(c.title for c in cands[:5])}")
            store.close()
    print(f"\nchapters asked {asked}; given a past structure {given} ({100 * given / max(asked, 1):.0f}%); "
          f"past sections offered {offered}")
    print(f"ms per chapter: median {statistics.median(times):.1f}, max {max(times):.1f}")


if __name__ == "__main__":
    main()
