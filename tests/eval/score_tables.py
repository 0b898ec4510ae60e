"""Score the scoring-table parser against hand-made labels: ``python tests/eval/score_tables.py DIR``.

``DIR`` holds tenders and a ``labels.json`` (schema in its README). For every labelled
tender the deterministic analysis (``ingest_tender``, no model) is run and compared:

- units: a first-level factor where the label has ``factors``, else a row; a unit counts
  as found when a parsed row (or one of its point-bearing sub-rows, or a parsed group of
  rows) has the same name, the same points and the same category;
- the technical subtotal found vs labelled;
- tables claimed that are not the labelled scoring table (a "wrong table");
- for tenders without a table: whether a table was claimed, and the Chinese reason given.

Prints one block per tender, the totals over all of them and the totals of each set the
README lists under "Added YYYY-MM-DD" (tenders the reader had not seen when they came).
Also importable: the tests assert on :func:`evaluate` for every labelled tender.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from app.documents.ingest import IngestResult, ingest_tender  # noqa: E402
from app.documents.scoring.cells import fmt_points as fmt  # noqa: E402
from app.documents.scoring.model import ScoringResult  # noqa: E402
from app.documents.scoring.table import select_lot  # noqa: E402
from tests.eval.name_match import norm_name, same_name  # noqa: E402

_CATEGORY = {"技术": "技术", "商务": "商务", "价格": "价格", "其他": "other", "other": "other"}


@dataclass
class Unit:
    """One labelled unit with what was found for it."""

    name: str
    points: float
    category: str
    found: str = ""  # "" (not found), "ok", or what was wrong ("points 12", "category 商务")
    parsed: str = ""


@dataclass
class Verdict:
    """Everything the benchmark knows about one tender."""

    tender: str
    has_table: bool
    units: list[Unit] = field(default_factory=list)
    tech_label: float = 0.0
    tech_found: float = 0.0
    wrong_tables: list[str] = field(default_factory=list)
    claimed: bool = False
    message: str = ""
    why_not: str = ""
    reason_fits: bool | None = None
    seconds: float = 0.0
    error: str = ""
    confirmed: bool = False
    doubt: str = ""
    lots: list[str] = field(default_factory=list)  # the lots the reader found, with their totals

    @property
    def right(self) -> bool:
        """The whole reading is right: every unit and the technical subtotal, no wrong table; or a fitting absence."""
        if self.error:
            return False
        if not self.units:
            return bool(self.reason_fits) if self.reason_fits is not None else not self.claimed
        return self.units_ok == len(self.units) and self.tech_ok and not self.wrong_tables

    @property
    def units_ok(self) -> int:
        """Units found with the right name, points and category."""
        return sum(1 for u in self.units if u.found == "ok")

    @property
    def tech_ok(self) -> bool:
        """Technical subtotal matches the label."""
        return abs(self.tech_label - self.tech_found) < 0.01


def label_units(label: dict[str, Any]) -> list[Unit]:
    """The units of a label: its first-level factors when it has them, else its rows."""
    src = label.get("factors") or label.get("rows") or []
    return [Unit(name=u.get("name_core") or u["name"], points=float(u["points"]),
                 category=_CATEGORY.get(u["category"], u["category"])) for u in src]


def label_location(label: dict[str, Any], kind: str) -> set[int]:
    """0-based DOCX table indices or 1-based PDF pages the label names as the scoring table."""
    loc = label.get("location")
    if not loc or not label.get("has_table"):
        return set()
    text = re.sub(r"\([^)]*\)", "", str(loc)).split(":")[0]
    if kind == "docx" and "table" not in text:
        return set()
    out: set[int] = set()
    for a, b in re.findall(r"(\d+)\s*(?:-\s*(\d+))?", text):
        out.update(range(int(a), int(b or a) + 1))
    return out


def _category(value: Any) -> str:
    v = getattr(value, "value", value)
    return _CATEGORY.get(str(v), str(v))


def parsed_candidates(scoring: ScoringResult) -> list[tuple[str, float, str, str]]:
    """(name, points, category, where) for every parsed row and every labelled group of rows."""
    out: list[tuple[str, float, str, str]] = []
    groups: dict[str, list[Any]] = {}
    for row in scoring.rows:
        out.append((row.factor, float(row.points or 0.0), _category(row.category), f"p{row.page}"))
        for item in row.scored_items:  # a factor's point-bearing sub-rows (60KVA UPS 主机 2 + 2 + 1)
            out.append((item.name or row.factor, float(item.points or 0.0), _category(row.category), f"p{item.page}"))
        group = getattr(row, "group", "") or row.category_label
        if group:
            groups.setdefault(group, []).append(row)
    for name, rows in groups.items():
        cats = {_category(r.category) for r in rows}
        out.append((name, round(sum(float(r.points or 0) for r in rows), 4), cats.pop() if len(cats) == 1 else "?",
                    "group"))
    return out


def match_units(units: list[Unit], found: list[tuple[str, float, str, str]]) -> None:
    """Mark each unit with the best parsed candidate: exact name first, then containment, then a
    paraphrase sharing a run of characters with the same points."""
    used: set[int] = set()
    for how in ("exact", "contains", "shared"):
        for u in units:
            if u.found:
                continue
            key = norm_name(u.name)
            best: int | None = None
            for i, (name, points, cat, _) in enumerate(found):
                if i in used:
                    continue
                other = norm_name(name)
                if not same_name(key, other, how, abs(points - u.points) < 0.01):
                    continue
                if best is None or (abs(points - u.points) < 0.01 and cat == u.category):
                    best = i
                    if abs(points - u.points) < 0.01 and cat == u.category:
                        break
            if best is None:
                continue
            used.add(best)
            name, points, cat, where = found[best]
            u.parsed = f"{name} {points:g} {cat} ({where})"
            wrong = []
            if abs(points - u.points) >= 0.01:
                wrong.append(f"分值 {points:g}")
            if cat != u.category:
                wrong.append(f"类别 {cat}")
            u.found = "；".join(wrong) or "ok"


def _reason_fits(label: dict[str, Any], message: str) -> bool:
    """Whether the Chinese reason names the kind of absence the label describes."""
    why = f"{label.get('why_not', '')} {label.get('method', '')}"
    if "最低" in why:
        return "最低" in message
    if "no text layer" in why.lower() or "image-only" in why.lower():
        return bool(re.search(r"OCR|文字层|无法提取文字|没有可提取的文字", message))
    if "template" in why.lower() or "模板" in why:
        return bool(re.search(r"模板|范本|没有填写分值|分值空白|未填分值", message))
    if "announcement" in why.lower() or "公告" in why:
        return bool(re.search(r"公告|不含评标办法|没有评标办法|没有评分办法", message)) and "可能" not in message
    return bool(message)


def _lot_key(name: str) -> str:
    return re.sub(r"[第包标段号\s:：/]", "", name)


def _match_lots(label: dict[str, Any], units: list[Unit], doc: Any, scoring: ScoringResult) -> list[ScoringResult]:
    """Each labelled lot's rows against the reading of the same lot (by name, else by order); the readings."""
    readings = [select_lot(doc, scoring, i) for i in range(len(scoring.lots))]
    rows = label.get("rows") or []
    for k, lot in enumerate(label["lots"]):
        mine = [u for u, r in zip(units, rows, strict=True) if str(r.get("group", "")).startswith(lot)]
        same = [x for x in readings if _lot_key(x.lot_name) == _lot_key(lot)]
        reading = same[0] if same else readings[k] if k < len(readings) else None
        if reading is not None:
            match_units(mine, parsed_candidates(reading))
    return readings


def evaluate(name: str, label: dict[str, Any], result: IngestResult) -> Verdict:
    """Compare one tender's parse with its label.

    A label with ``lots`` (one scheme per lot, rows grouped "A包 / …") is compared lot by lot with
    the reader's lot readings (``ScoringResult.lots``); its category totals are the first lot's, as
    is the reading the reader shows first. Without lots, a reading split into lots shows the first.
    """
    doc, scoring = result.document, result.scoring
    verdict = Verdict(tender=name, has_table=bool(label.get("has_table")), why_not=str(label.get("why_not", "")))
    verdict.units = label_units(label)
    verdict.lots = [f"{lot.name}（{fmt(lot.total)} 分）" for lot in scoring.lots]
    readings = [scoring]
    if label.get("lots") and scoring.lots and not label.get("factors"):
        readings = _match_lots(label, verdict.units, doc, scoring)
    else:
        match_units(verdict.units, parsed_candidates(scoring))
    by_cat = (label.get("check") or {}).get("by_category") or label.get("category_totals") or {}
    verdict.tech_label = float(by_cat.get("技术", 0.0) or 0.0)
    verdict.tech_found = round(sum(float(r.points or 0) for r in scoring.rows if _category(r.category) == "技术"), 4)
    verdict.message = scoring.message_zh
    tables = [t for r in readings for t in r.tables if getattr(t, "kind", "table") == "table"]
    verdict.claimed = bool(scoring.found and tables)
    expected = label_location(label, doc.kind)
    index = {t.id: i for i, t in enumerate(doc.tables)}
    for t in tables if expected or not label.get("has_table") else []:  # a label without a location: unchecked
        if doc.kind == "docx":  # labels number DOCX tables from 0 (the first sets) or from 1 (2026-12-02)
            hits = [tid for tid in t.table_ids if index.get(tid, -2) in expected or index.get(tid, -2) + 1 in expected]
        else:
            hits = [p for p in t.pages if p in expected]
        if not hits:
            verdict.wrong_tables.append(f"{'+'.join(t.table_ids)}（第{'、'.join(map(str, t.pages))}页）")
    if not verdict.has_table and not verdict.units:
        verdict.reason_fits = _reason_fits(label, scoring.message_zh) and not verdict.claimed
    verdict.confirmed = bool(getattr(scoring, "confirmed", False))
    verdict.doubt = str(getattr(scoring, "doubt_zh", ""))
    return verdict


def calibration(verdicts: list[Verdict]) -> dict[tuple[bool, bool], int]:
    """Counts of readings by (right, confirmed)."""
    out = {(r, c): 0 for r in (True, False) for c in (True, False)}
    for v in verdicts:
        out[(v.right, v.confirmed)] += 1
    return out


def print_calibration(verdicts: list[Verdict]) -> None:
    """The calibration table: readings right/wrong × confirmed/unconfirmed, and the wrong-but-confirmed ones."""
    table = calibration(verdicts)
    print("CALIBRATION            confirmed  unconfirmed")
    for right in (True, False):
        print(f"  reading {'right' if right else 'wrong'}      {table[(right, True)]:>9}  {table[(right, False)]:>11}")
    bad = [v.tender for v in verdicts if v.confirmed and not v.right]
    print(f"  wrong shown as confirmed: {len(bad)}{' — ' + ', '.join(bad) if bad else ''}")


def run(folder: Path, only: list[str] | None = None) -> list[Verdict]:
    """Evaluate every labelled tender of ``folder`` (or the ``only`` ones)."""
    labels: dict[str, Any] = json.loads((folder / "labels.json").read_text(encoding="utf-8"))
    verdicts = []
    for name, label in labels.items():
        if only and name not in only:
            continue
        path = folder / name
        t0 = time.perf_counter()
        try:
            result = ingest_tender(path)
        except Exception as exc:  # a document error is a verdict too (text-as-outlines raises none)
            v = Verdict(tender=name, has_table=bool(label.get("has_table")), units=label_units(label),
                        error=f"{type(exc).__name__}: {getattr(exc, 'message_zh', exc)}")
            v.message = v.error
            verdicts.append(v)
            continue
        v = evaluate(name, label, result)
        v.seconds = time.perf_counter() - t0
        verdicts.append(v)
    return verdicts


def print_report(verdicts: list[Verdict]) -> None:
    """One block per tender, then the totals."""
    for v in verdicts:
        head = f"{v.tender}  ({v.seconds:.1f} s)"
        print(head)
        if v.units:
            print(f"  units {v.units_ok}/{len(v.units)}; 技术 subtotal found {v.tech_found:g} / labelled "
                  f"{v.tech_label:g} {'✓' if v.tech_ok else '✗'}")
            for u in v.units:
                mark = "✓" if u.found == "ok" else "✗"
                why = "" if u.found == "ok" else f" — {u.found or '未找到'}"
                got = f" ← {u.parsed}" if u.parsed and u.found != "ok" else ""
                print(f"    {mark} {u.name} {u.points:g} {u.category}{why}{got}")
        if v.lots:
            print(f"  lots: {'、'.join(v.lots)}")
        if v.wrong_tables:
            print(f"  wrong tables claimed: {', '.join(v.wrong_tables)}")
        if not v.has_table:
            print(f"  label: no table ({v.why_not[:70]}…)")
            if v.reason_fits is not None:
                print(f"  reason given {'✓' if v.reason_fits else '✗'}: {v.message}")
            else:
                print(f"  said: {v.message}")
        if v.error:
            print(f"  error: {v.error}")
        print(f"  {'confirmed' if v.confirmed else 'unconfirmed: ' + v.doubt}  [{'right' if v.right else 'WRONG'}]")
    print_totals(verdicts, "all labelled tenders")


def print_totals(verdicts: list[Verdict], title: str) -> None:
    """Units, technical subtotals, wrong tables, absences and the calibration table of ``verdicts``."""
    units = sum(len(v.units) for v in verdicts)
    ok = sum(v.units_ok for v in verdicts)
    labelled = [v for v in verdicts if v.units]
    tech_ok = sum(1 for v in labelled if v.tech_ok)
    wrong = [v for v in verdicts if v.wrong_tables]
    no_table = [v for v in verdicts if not v.has_table and not v.units]
    reasons = sum(1 for v in no_table if v.reason_fits)
    print()
    print(f"== {title}: {len(verdicts)} tenders ==")
    print(f"TOTAL units found right: {ok}/{units} ({100 * ok / max(1, units):.1f}%)")
    print(f"TOTAL technical subtotal right: {tech_ok}/{len(labelled)} labelled tenders")
    print(f"TOTAL tenders with a wrong table claimed: {len(wrong)} ({sum(len(v.wrong_tables) for v in wrong)} tables)")
    print(f"TOTAL tenders without a table: {len(no_table)}; none claimed and reason fits: {reasons}/{len(no_table)}")
    print(f"TOTAL crashes: {sum(1 for v in verdicts if v.error)}")
    print(f"TOTAL seconds: {sum(v.seconds for v in verdicts):.1f}")
    print()
    print_calibration(verdicts)


_ADDED = re.compile(r"^#+\s*(Added\s+\d{4}-\d{2}-\d{2})")


def added_sections(folder: Path) -> dict[str, list[str]]:
    """The README's "Added YYYY-MM-DD" sections: the tender files each lists (for totals per set)."""
    readme = folder / "README.md"
    if not readme.is_file():
        return {}
    out: dict[str, list[str]] = {}
    current = ""
    for line in readme.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            m = _ADDED.match(line)
            current = m.group(1) if m else ""
            continue
        if current and line.startswith("|") and (m2 := re.match(r"\|\s*`([^`]+)`", line)):
            out.setdefault(current, []).append(m2.group(1))
    return out


def relaid(folder: Path, names: list[str], page: str, into: Path) -> Path:
    """Copies of ``names`` whose every section is laid on another page: ``page`` is "W,H,TOP,BOTTOM,LEFT,RIGHT"
    in centimetres (A4 with larger margins "21,29.7,4.2,4,3.2,3.2", landscape "29.7,21,2.5,2.5,2.5,2.5"), so
    LibreOffice breaks the same tables at other places. Page sizes narrower than a table cut it off the page."""
    import docx
    from docx.shared import Cm

    w, h, top, bottom, left, right = (float(x) for x in page.split(","))
    into.mkdir(parents=True, exist_ok=True)
    for name in names:
        d = docx.Document(str(folder / name))
        for s in d.sections:
            s.page_width, s.page_height = Cm(w), Cm(h)
            s.top_margin, s.bottom_margin, s.left_margin, s.right_margin = Cm(top), Cm(bottom), Cm(left), Cm(right)
        d.save(str(into / name))
    return into


def as_pdf(folder: Path, cache: Path, page: str = "") -> Path:
    """``cache`` holding each labelled DOCX tender of ``folder`` rendered to PDF by LibreOffice (done once per
    file; on another page when ``page`` says so, see :func:`relaid`) and a labels.json for them; labels there
    carry no location, so no table counts as a wrong one."""
    import shutil
    import subprocess

    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        raise SystemExit("--as-pdf needs LibreOffice (soffice) on PATH")
    cache.mkdir(parents=True, exist_ok=True)
    labels = json.loads((folder / "labels.json").read_text(encoding="utf-8"))
    names = [n for n in labels if n.endswith(".docx") and (folder / n).is_file()]
    missing = [n for n in names if not (cache / (n.removesuffix(".docx") + ".pdf")).is_file()]
    source = relaid(folder, missing, page, cache / ".docx") if page and missing else folder
    todo = [str(source / n) for n in missing]
    if todo:  # one LibreOffice run for all, with a profile of its own (another instance may be running)
        profile = (cache / ".profile").resolve().as_uri()
        subprocess.run([soffice, f"-env:UserInstallation={profile}", "--headless", "--convert-to", "pdf",
                        "--outdir", str(cache), *todo], check=True, capture_output=True, timeout=1200)
    out: dict[str, Any] = {}
    for name in names:
        target = cache / (name.removesuffix(".docx") + ".pdf")
        if target.is_file():
            out[target.name] = {k: v for k, v in labels[name].items() if k != "location"}
    (cache / "labels.json").write_text(json.dumps(out, ensure_ascii=False, indent=1), encoding="utf-8")
    if (folder / "README.md").is_file():
        shutil.copyfile(folder / "README.md", cache / "README.md")
    return cache


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("folder", type=Path, help="folder with tenders and labels.json")
    ap.add_argument("--only", nargs="*", help="tender file names to evaluate")
    ap.add_argument("--as-pdf", type=Path, metavar="CACHE",
                    help="read the DOCX tenders as PDFs that LibreOffice renders into CACHE (another layout of the "
                         "same tables: Word's own PDF export, as many tenders are published), against the same labels")
    ap.add_argument("--page", default="", metavar="W,H,TOP,BOTTOM,LEFT,RIGHT",
                    help="with --as-pdf: lay every DOCX section on this page first (centimetres), so the tables break "
                         "at other places; use a CACHE of its own per page")
    args = ap.parse_args(argv)
    folder = as_pdf(args.folder, args.as_pdf, args.page) if args.as_pdf else args.folder
    verdicts = run(folder, [n.removesuffix(".docx") + ".pdf" for n in args.only] if args.as_pdf and args.only
                   else args.only)
    print_report(verdicts)
    for title, names in added_sections(args.folder).items():
        names = [n.removesuffix(".docx") + ".pdf" for n in names] if args.as_pdf else names
        subset = [v for v in verdicts if v.tender in names]
        if subset and len(subset) < len(verdicts):
            print_totals(subset, f"the tenders added {title.split()[-1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
