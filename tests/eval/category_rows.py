"""Staff, 制度, 业绩 and 资质 rows of every label beside a criteria-text rule: ``python tests/eval/category_rows.py DIR``.

Which part (技术 or 商务) a row about the bidder's staff, written systems, past projects or
certificates belongs to is where labels most often disagree with a rule about names. This prints
every such row of ``DIR/labels.json`` with the criteria text code read for it, and what a rule
from that text says:

- what the row awards points for is counted objectively (per certificate, per contract, per person
  holding a title: ``每提供一个…得2分``, ``具有…证书的得1分``) → 商务;
- a plan or written measures judged on quality (``综合评审``, ``配置合理``, ``完善``, graded bands
  ``4-5分`` / ``优得3分``) → 技术;
- both in one row → no verdict.

Rows whose category the document itself gives (a group, a caption, a category column, the weights)
are listed but marked: the rule only matters where the category is left to words. The closing
lines count agreement on those rows and list the labels that contradict each other — rows whose
criteria are alike but whose labels differ.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from app.documents.ingest import ingest_tender  # noqa: E402
from app.documents.scoring.model import ScoringResult, ScoringRow  # noqa: E402
from app.documents.scoring.table import select_lot  # noqa: E402
from app.documents.text_patterns import compact  # noqa: E402
from tests.eval.name_match import norm_name, same_name  # noqa: E402

_KINDS = (
    ("人员", re.compile(r"人员|团队|项目经理|负责人|人力|驻场|职称|学历|班组")),
    ("制度", re.compile(r"制度")),
    ("业绩", re.compile(r"业绩|案例|履约经验|运维经验|类似项目|同类项目")),
    ("资质", re.compile(r"资质|认证|证书|荣誉|奖项|实力|资信|资格")),
)
_SUBJECTIVE = re.compile(
    r"综合(?:评审|打分|评分|评价|考虑|考量)|横向比较|酌情|合理|完善|健全|丰富|科学|可行|针对性|周密|胜任"
    r"|[优良差]得|较好|较强|一般的?[,，]?得|欠缺|不足|\d+(?:\.\d+)?\s*[-~～－]\s*\d+(?:\.\d+)?\s*分"
)
_PER_UNIT = re.compile(  # points per certificate, contract or person: counted
    r"每(?:提供|有|具有|满足|增加|多|少|个|一个|份|项|例)|一人多证|[1一]\s*[个份项][^；;。]{0,12}?得\s*\d+(?:\.\d+)?\s*分"
)
_CREDENTIAL = re.compile(  # a title or certificate held earns fixed points
    r"具[有备][^；;。]{0,60}?(?:证书|资质|认证|职称|学历|工程师|架构师|资格)[^；;。]{0,12}?得\s*\d+(?:\.\d+)?分"
    r"|以上学历得|证书的?得\s*\d+(?:\.\d+)?分"
)
_FROM_DOCUMENT = {"group", "caption", "column", "weights", "section"}


@dataclass
class StaffRow:
    """One labelled row of a kind the rule speaks to, with what code read for it."""

    tender: str
    name: str
    points: float
    kind: str
    label: str
    parsed: str
    source: str
    judged: str
    criteria: str

    @property
    def rule(self) -> str:
        """What the criteria-text rule says: 商务, 技术 or "" (no verdict)."""
        return {"客观": "商务", "主观": "技术"}.get(self.judged, "")

    @property
    def by_words(self) -> bool:
        """The category is left to words: no group, caption, column or weights of the document gives it."""
        return self.source not in _FROM_DOCUMENT


def judged(criteria: str) -> str:
    """客观 (counted), 主观 (judged on quality), 混合 (both) or "" (neither) for a row's criteria."""
    text = compact(criteria)
    subj = bool(_SUBJECTIVE.search(text))
    if _PER_UNIT.search(text) or _CREDENTIAL.search(text):
        return "混合" if subj else "客观"
    return "主观" if subj else ""


def _kind(name: str) -> str:
    for kind, pattern in _KINDS:
        if pattern.search(name):
            return kind
    return ""


def _readings(scoring: ScoringResult, doc: Any) -> list[ScoringResult]:
    return [scoring] + [select_lot(doc, scoring, i) for i in range(1, len(scoring.lots))]


def _match(name: str, points: float, rows: list[ScoringRow], used: set[int]) -> tuple[ScoringRow | None, str]:
    """The parsed row (or sub-row's criteria) a labelled row is: exact, contained, then shared name;
    each sub-row is taken once (``used`` holds their ids)."""
    key = norm_name(name)
    for how in ("exact", "contains", "shared"):
        for row in rows:
            for item in row.scored_items:  # a labelled row that is one of a factor's point-bearing sub-rows
                if id(item) not in used and abs((item.points or 0) - points) < 0.01 \
                        and same_name(key, norm_name(item.name or row.factor), how, True):
                    used.add(id(item))
                    return row, item.criteria
            if same_name(key, norm_name(row.factor), how, abs((row.points or 0) - points) < 0.01):
                return row, row.criteria + " " + " ".join(i.criteria for i in row.items if i.criteria != row.criteria)
    return None, ""


def collect(folder: Path) -> list[StaffRow]:
    """Every staff-, 制度-, 业绩- and 资质-like labelled row of ``folder`` with its criteria and the rule's verdict."""
    labels: dict[str, Any] = json.loads((folder / "labels.json").read_text(encoding="utf-8"))
    out: list[StaffRow] = []
    for tender, label in labels.items():
        rows = [r for r in label.get("rows") or [] if _kind(r["name"])]
        if not rows:
            continue
        result = ingest_tender(folder / tender)
        parsed = [r for x in _readings(result.scoring, result.document) for r in x.rows]
        used: set[int] = set()
        for r in rows:
            row, criteria = _match(r["name"], float(r["points"]), parsed, used)
            out.append(StaffRow(
                tender=tender, name=r["name"], points=float(r["points"]), kind=_kind(r["name"]),
                label=str(r["category"]), parsed=row.category.value if row else "",
                source=row.category_source if row else "", judged=judged(criteria),
                criteria=compact(criteria)))
    return out


def print_table(rows: list[StaffRow], width: int = 70) -> None:
    """The table, then agreement on rows left to words and the rows where labels contradict each other."""
    print("tender | row | points | kind | judged | rule | label | code (source) | criteria")
    for r in rows:
        mark = "" if not r.rule or r.rule == r.label else " ≠"
        where = r.source if not r.by_words else f"{r.source}, by words"
        print(f"{r.tender} | {r.name} | {r.points:g} | {r.kind} | {r.judged or '—'} | {r.rule or '—'}{mark} | "
              f"{r.label} | {r.parsed or '未读到'} ({where}) | {r.criteria[:width]}")
    words = [r for r in rows if r.by_words and r.rule and r.parsed]
    agree = sum(1 for r in words if r.rule == r.label)
    code = sum(1 for r in words if r.parsed == r.label)
    print()
    print(f"rows left to words with a verdict: {len(words)}; the rule agrees with the label on {agree}, "
          f"code as it stands on {code}")
    for kind in ("人员", "制度", "业绩", "资质"):
        for how in ("客观", "主观"):
            same = [r for r in words if r.kind == kind and r.judged == how]
            labels = {r.label for r in same}
            if len(labels) > 1:
                print(f"labels contradict each other: {kind} rows judged {how}:")
                for r in same:
                    print(f"    {r.label}  {r.tender} | {r.name} {r.points:g} | {r.criteria[:width]}")


def main(argv: list[str] | None = None) -> int:
    """Print the table for the labelled tenders of a folder."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("folder", type=Path, help="a folder of tenders with labels.json (../shared/tenders)")
    ap.add_argument("--width", type=int, default=70, help="characters of criteria text to show")
    args = ap.parse_args(argv)
    print_table(collect(args.folder), args.width)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
