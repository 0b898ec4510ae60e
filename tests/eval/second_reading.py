"""How the second reader's check and comparison behave on labelled tenders: ``python tests/eval/second_reading.py DIR``.

``DIR`` holds tenders and a ``labels.json`` (schema in its README). No model is called: each
label's rows play a model that reads *right* (names as printed, points, category, group), and
two perturbed copies play a model that reads *wrong* (one row's points changed; the summary
rows of a part taken for its items). For every tender with a labelled table it prints:

- whether code's check of the right reading passes (``verified``), and if not, why — a
  right reading that fails is a confirmation lost, never a wrong one shown;
- whether code's own reading agrees with it (then the reading is confirmed by two readings),
  and whether code's reading is right (agrees with the label) — the calibration table
  (right/wrong × confirmed/unconfirmed) must have nothing in wrong × confirmed;
- whether each wrong reading is caught (fails the check, or disagrees with code).

``--only NAME...`` limits the run to some files.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from app.core.analysis import ScoringGroup, SecondReading  # noqa: E402
from app.documents.loader import load_tender  # noqa: E402
from app.documents.locate import locate_sections  # noqa: E402
from app.documents.model import TenderDocument  # noqa: E402
from app.documents.scoring.model import ScoringResult  # noqa: E402
from app.documents.scoring.table import parse_scoring, select_lot  # noqa: E402
from app.pipeline.analysis.reading_compare import second_reading  # noqa: E402
from app.pipeline.analysis.scoring_groups import scoring_items, scoring_tables  # noqa: E402
from app.pipeline.analysis.second_reader import ModelReading, ReadItem, reading_pages  # noqa: E402

_CATEGORY = {"技术": "技术", "商务": "商务", "价格": "价格"}


def label_reading(label: dict[str, object], pages: list[int], lot: str = "") -> ModelReading:
    """The label's rows (those of ``lot`` when given) as a model's reading of ``pages``: names, the points the
    page prints (a weighted scheme's ``raw_points``), categories and groups."""
    rows = []
    for r in label.get("rows", []):  # type: ignore[union-attr]
        assert isinstance(r, dict)
        group = str(r.get("group") or "")
        if lot and not group.startswith(lot):
            continue
        if lot:
            group = group.removeprefix(lot).lstrip(" /")
        loc = r.get("loc")
        page = loc if isinstance(loc, int) and loc in pages else (pages[0] if pages else 0)
        points = r.get("raw_points") if r.get("raw_points") is not None else r["points"]
        rows.append(ReadItem(str(r["name"]), float(points), _CATEGORY.get(str(r["category"]), "其他"), group, page))
    return ModelReading(rows=rows, pages=pages)


def wrong_points(reading: ModelReading) -> ModelReading:
    """The same reading with its largest row's points changed."""
    rows = list(reading.rows)
    k = max(range(len(rows)), key=lambda i: rows[i].points or 0)
    r = rows[k]
    rows[k] = ReadItem(r.name, (r.points or 0) + 3, r.category, r.group, r.page)
    return ModelReading(rows=rows, pages=reading.pages)


def summary_rows(reading: ModelReading) -> ModelReading:
    """A reading that took each part's subtotal for one item (the summary table read as the scheme)."""
    parts: dict[str, float] = {}
    for r in reading.rows:
        parts[r.category] = parts.get(r.category, 0.0) + (r.points or 0)
    rows = [ReadItem(f"{cat}部分", pts, cat, "", reading.pages[0] if reading.pages else 0) for cat, pts in parts.items()]
    return ModelReading(rows=rows, pages=reading.pages)


def _verdict(doc: TenderDocument, reading: ModelReading, code: list[ScoringGroup]) -> SecondReading:
    return second_reading(doc, reading, code)


def main(argv: list[str] | None = None) -> int:
    """Print one block per labelled tender and the totals."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args(argv)
    labels = json.loads((args.dir / "labels.json").read_text(encoding="utf-8"))
    table = {("right", True): 0, ("right", False): 0, ("wrong", True): 0, ("wrong", False): 0}
    verified = tried = caught = wrongs = 0
    for name, label in sorted(labels.items()):
        if (args.only and name not in args.only) or not label.get("has_table") or not label.get("rows"):
            continue
        path = args.dir / name
        if not path.exists():
            continue
        doc = load_tender(path)
        first = parse_scoring(doc)
        section = locate_sections(doc, first).scoring
        lots = list(label.get("lots") or {}) if first.lots else []
        readings = [(lot, select_lot(doc, first.model_copy(deep=True), k)) for k, lot in enumerate(lots)
                    if k < len(first.lots)] or [("", first)]
        for lot, scoring in readings:
            tried, verified, caught, wrongs = _one(doc, f"{name} {lot}".strip(), label, lot, scoring, section, table,
                                                   (tried, verified, caught, wrongs))
    print(f"\nright readings verified: {verified}/{tried}; wrong readings caught: {caught}/{wrongs}")
    print("calibration after two readings (code right/wrong × confirmed/unconfirmed):")
    for (kind, conf), n in table.items():
        print(f"  {kind:5} {'confirmed' if conf else 'unconfirmed':11} {n}")
    return 0


def _one(doc: TenderDocument, name: str, label: dict[str, Any], lot: str, scoring: ScoringResult, section: Any,
         table: dict[tuple[str, bool], int], counts: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """One reading (a tender, or one lot of it) checked and compared; the counts so far, updated."""
    tried, verified, caught, wrongs = counts
    pages = reading_pages(doc, scoring, section)
    if doc.kind == "pdf" and not lot:
        pages = sorted(set(pages) | {int(r["loc"]) for r in label["rows"] if isinstance(r.get("loc"), int)})
    code = scoring_items(scoring_tables(scoring)) if scoring.found else []
    right = label_reading(label, pages, lot)
    seen = _verdict(doc, right, code)
    ok, agrees, problems = seen.verified, seen.agrees, seen.problems
    tried += 1
    verified += ok
    code_right = agrees  # the label is right by definition
    confirmed = agrees if ok else False if seen.to_compare else scoring.confirmed
    table[("right" if code_right else "wrong", confirmed)] += 1
    print(f"{name}: pages {pages}; right reading {'verified' if ok else 'NOT verified'}; "
          f"code {'agrees' if agrees else 'differs'}; code confirmed alone {scoring.confirmed}; "
          f"after two readings {'confirmed' if confirmed else 'unconfirmed'}"
          f"{'  [WRONG CONFIRMED]' if confirmed and not code_right else ''}")
    for p in problems[:4]:
        print(f"    {p}")
    for label_name, bad in (("points+3", wrong_points(right)), ("summary", summary_rows(right))):
        w = _verdict(doc, bad, code)
        wrongs += 1
        hit = not w.verified or not w.agrees or not code_right
        caught += hit
        if not hit:
            print(f"    wrong reading ({label_name}) passed and agreed with code")
    return tried, verified, caught, wrongs


if __name__ == "__main__":
    sys.exit(main())
