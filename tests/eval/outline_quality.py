"""Heading quality of an outline: who wrote each level-2/3 heading, and is it a heading at all.

    python tests/eval/outline_quality.py OUTLINE.json [--tender TENDER] [--sample]
    python tests/eval/outline_quality.py OUT_DIR --tenders ../shared/tenders [--sample 3]

Every level-2/3 heading is labelled by evidence, not by trust in the outline's own marks:
``generic`` (a template fill-in: one suffix pattern under several parents, or marked as a
template), ``library`` (a heading of resources/headings), ``tender`` (taken from the item's
criteria or the tender's requirements headings), ``model`` (anything else; ``user`` when the
outline says a person wrote it). Fragments (如拣货, 数量大, a criteria clause copied whole…)
and repeated patterns (a heading or a set of children shared by two chapters) are flagged.
Prints the shares per outline and, with ``--sample``, a side-by-side table of chapter,
headings and the source of each. Targets: generic 0, fragments 0, chapters distinct.
Exit code 0 when every outline meets the targets, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from app.core.outline import OutlineNode  # noqa: E402
from app.core.rules.heading_form import evidence_problem, fragment_problem, vague_problem  # noqa: E402
from app.core.rules.outline import check_outline, normalize_title, title_problem  # noqa: E402
from app.pipeline.headings.candidates import grams  # noqa: E402
from app.pipeline.headings.criteria_points import point_headings  # noqa: E402
from app.pipeline.headings.library import default_library  # noqa: E402

LABELS = ("model", "tender", "library", "generic", "user", "history")
TEMPLATE_MARK = "模板补全"
_SPACE = re.compile(r"\s+")


@dataclass
class Heading:
    """One level-2/3 heading with its label and problems."""

    chapter: int
    path: tuple[int, ...]
    title: str
    level: int
    label: str = "model"
    origin: str | None = None
    fragment: str | None = None
    repeated: str | None = None
    misfit: bool = False  # a library heading under a tender heading that no library section about it holds


@dataclass
class Report:
    """The labelled headings of one outline and the figures printed for it."""

    name: str
    chapters: list[OutlineNode]
    headings: list[Heading] = field(default_factory=list)
    shared: list[str] = field(default_factory=list)  # headings found under more than one chapter
    rule_issues: list[str] = field(default_factory=list)  # the outline rules' verdicts on these headings

    def count(self, label: str) -> int:
        """Headings with ``label``."""
        return sum(1 for h in self.headings if h.label == label)

    @property
    def fragments(self) -> int:
        """Headings that are fragments of sentences."""
        return sum(1 for h in self.headings if h.fragment)

    @property
    def repeated(self) -> int:
        """Headings that belong to a repeated pattern."""
        return sum(1 for h in self.headings if h.repeated)

    @property
    def misfits(self) -> int:
        """Library headings placed under a tender heading they are not about."""
        return sum(1 for h in self.headings if h.misfit)

    @property
    def distinct(self) -> bool:
        """Whether every chapter's children are distinct from every other chapter's."""
        return not self.shared

    @property
    def ok(self) -> bool:
        """Targets: no generic fill-in, no fragment, no misplaced library heading, chapters distinct."""
        return (self.count("generic") == 0 and self.fragments == 0 and self.distinct and not self.rule_issues
                and self.misfits == 0)


#: Rule violations about headings (not the chapter count or title length, which one-to-one mode sets).
_HEADING_RULES = frozenset({"bad_title", "duplicate_sibling", "same_as_parent", "same_as_parent_sibling",
                            "repeated_children", "too_few_children", "too_deep"})


def _squash(text: str) -> str:
    return _SPACE.sub("", text or "")


def library_sections_of() -> dict[str, list[tuple[str, ...]]]:
    """For each level-3 heading of the library, the sections holding it (title, then children)."""
    out: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    for e in default_library():
        for v in e.variants:
            for sec in v.sections:
                for child in sec.children:
                    out[normalize_title(child)].append((sec.title, *sec.children))
    return out


def _misfit(parent: OutlineNode, node: OutlineNode, holders: dict[str, list[tuple[str, ...]]]) -> bool:
    """A library heading under a heading of the tender that no library section about that heading holds."""
    if node.origin != "library" or parent.origin != "tender":
        return False
    words = grams(parent.title)
    sections = holders.get(normalize_title(node.title), [])
    return bool(words and sections) and not any(words & grams(t) for sec in sections for t in sec)


def library_titles() -> set[str]:
    """Every heading of the heading library, normalised."""
    return {normalize_title(t) for e in default_library() for t in e.headings()}


def _generic_keys(chapters: list[OutlineNode]) -> set[tuple[int, ...]]:
    """Paths of headings made by prefixing a parent's title to a suffix that recurs under 3+ parents."""
    by_suffix: dict[str, set[tuple[int, ...]]] = defaultdict(set)
    members: dict[str, list[tuple[int, ...]]] = defaultdict(list)
    root = OutlineNode(title="root", children=chapters)
    nodes = dict(root.walk())
    for path, node in nodes.items():
        if len(path) < 2:
            continue
        parent = nodes[path[:-1]]
        base = normalize_title(parent.title)
        key = normalize_title(node.title)
        for cut in range(len(base), max(3, int(len(base) * 0.8)) - 1, -1):  # the parent's title (or nearly) as prefix
            if key.startswith(base[:cut]) and len(key) > cut:
                suffix = key[cut:]
                by_suffix[suffix].add(path[:-1])
                members[suffix].append(path)
                break
    out: set[tuple[int, ...]] = set()
    for suffix, parents in by_suffix.items():
        if len(parents) >= 3:
            out.update(members[suffix])
    return out


def tender_texts(chapter: OutlineNode, criteria: str, requirements: list[str]) -> tuple[set[str], str]:
    """Headings the tender offers for a chapter (points, requirement headings) and its raw text."""
    offered = {normalize_title(h) for h, subs in point_headings(criteria) for h in (h, *subs)}
    offered |= {normalize_title(r) for r in requirements}
    raw = _squash(criteria + "\n" + "\n".join(requirements) + "\n" + chapter.title)
    return offered, raw


def evaluate(chapters: list[OutlineNode], name: str = "", criteria: dict[int, str] | None = None,
             requirements: list[str] | None = None) -> Report:
    """Label every level-2/3 heading of ``chapters`` and find fragments and repeated patterns.

    ``criteria`` maps a chapter index to its scoring text (the chapter's own description
    when absent); ``requirements`` are the tender's requirements headings.
    """
    report = Report(name=name, chapters=chapters)
    lib = library_titles()
    holders = library_sections_of()
    generic = _generic_keys(chapters)
    reqs = list(requirements or [])
    owners: dict[str, set[int]] = defaultdict(set)
    child_sets: Counter[frozenset[str]] = Counter()
    for ci, chapter in enumerate(chapters):
        crit = (criteria or {}).get(ci) or chapter.description
        offered, raw = tender_texts(chapter, crit, reqs)
        nodes = dict(chapter.walk())
        for path, node in nodes.items():
            full = (ci, *path)
            key = normalize_title(node.title)
            h = Heading(chapter=ci, path=full, title=node.title, level=len(full), origin=node.origin)
            if TEMPLATE_MARK in node.description or node.origin == "template" or (
                    full in generic and node.origin in (None, "tender", "library")):
                h.label = "generic"  # code's template fill-in (a pattern the model wrote stays the model's, flagged)
            elif node.origin in ("user", "history"):
                h.label = node.origin  # the user's own outline, or their past bids (历史标书)
            elif key in offered or (len(key) >= 4 and key in raw):
                h.label = "tender"
            elif key in lib:
                h.label = "library"
            elif node.origin in ("tender", "library"):
                h.label = node.origin  # code built it from the tender's words (e.g. a point with a suffix)
            h.fragment = (title_problem(node.title) or fragment_problem(node.title, crit) or vague_problem(node.title)
                          or evidence_problem(node.title))  # every heading, whoever wrote it
            h.misfit = len(path) > 1 and _misfit(nodes[path[:-1]], node, holders)
            owners[key].add(ci)
            if node.children:
                child_sets[frozenset(normalize_title(c.title) for c in node.children)] += 1
            report.headings.append(h)
    report.shared = sorted(k for k, cs in owners.items() if len(cs) > 1)
    report.rule_issues = [str(i) for i in check_outline(chapters) if i.code in _HEADING_RULES]
    shared = set(report.shared)
    for h in report.headings:
        key = normalize_title(h.title)
        if key in shared:
            h.repeated = "与其他章重复"
        elif h.label == "generic" or h.path in generic:
            h.repeated = "通用模板"
    root = OutlineNode(title="root", children=chapters)
    for path, node in root.walk():
        if node.children and child_sets[frozenset(normalize_title(c.title) for c in node.children)] > 1:
            for h in report.headings:
                if h.path[:-1] == path and not h.repeated:
                    h.repeated = "子标题组与他处相同"
    return report


def shares(report: Report) -> dict[str, object]:
    """The printed figures of one outline."""
    n = len(report.headings) or 1
    row: dict[str, object] = {"outline": report.name, "headings": len(report.headings)}
    for label in LABELS:
        row[label] = f"{report.count(label)} ({100 * report.count(label) / n:.0f}%)"
    row.update(fragments=report.fragments, repeated=report.repeated, rules=len(report.rule_issues),
               misfits=report.misfits,
               distinct="yes" if report.distinct else "no",
               targets="met" if report.ok else "MISSED")
    return row


def print_table(rows: list[dict[str, object]]) -> None:
    """Rows as a plain-text table."""
    cols = list(rows[0])
    widths = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in cols}
    print("  ".join(c.ljust(widths[c]) for c in cols))
    print("  ".join("-" * widths[c] for c in cols))
    for r in rows:
        print("  ".join(str(r[c]).ljust(widths[c]) for c in cols))


def print_sample(report: Report, chapters: int = 4) -> None:
    """Chapter, its headings and the source of each, side by side."""
    names = {"model": "模型", "tender": "招标文件", "library": "标题库", "generic": "通用模板", "user": "用户",
             "history": "历史标书"}
    print(f"\n== {report.name}")
    for ci, chapter in enumerate(report.chapters[:chapters]):
        print(f"{ci + 1} {chapter.title}")
        for h in (x for x in report.headings if x.chapter == ci):
            indent = "    " * (h.level - 1)
            flags = "".join(f"  ⚠{x}" for x in (h.fragment, h.repeated) if x)
            print(f"  {indent}{h.title:<24}\t[{names[h.label]}]{flags}")


def _tender_context(tender: Path, chapters: list[OutlineNode]) -> tuple[dict[int, str], list[str]]:
    """Criteria per chapter (matched by title) and the requirements headings of a tender."""
    from app.documents.loader import load_tender
    from app.documents.requirement_headings import requirement_headings
    from app.documents.scoring.table import parse_scoring
    from app.pipeline.analysis.tender import table_groups

    doc = load_tender(tender)
    scoring = parse_scoring(doc)
    groups = table_groups(scoring) if scoring.found else []
    criteria: dict[int, str] = {}
    for i, ch in enumerate(chapters):
        key = normalize_title(ch.source_requirement_title or ch.title)
        for g in groups:
            if normalize_title(g.title) == key:
                criteria[i] = "\n".join([g.description, *g.detail_points])
                break
    return criteria, [h.text for h in requirement_headings(doc)]


def load_outline(path: Path) -> list[OutlineNode]:
    """The chapters of an ``outline.json`` ({"outline": [...]}, or a bare list)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    items = data.get("outline", data) if isinstance(data, dict) else data
    return [OutlineNode.model_validate(x) for x in items]


def _outlines(target: Path) -> list[Path]:
    return sorted(target.glob("*.outline.json")) if target.is_dir() else [target]


def _tender_for(outline: Path, tenders: Path | None) -> Path | None:
    if tenders is None:
        return None
    stem = outline.name.split(".")[0]
    for f in sorted(tenders.iterdir()):
        if f.stem == stem:
            return f
    return None


def main(argv: list[str] | None = None) -> int:
    """Evaluate one outline (or a folder of ``*.outline.json``); print shares and samples."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("outline", type=Path, help="outline.json, or a folder of *.outline.json (run_eval output)")
    p.add_argument("--tender", type=Path, help="the tender of a single outline (criteria, requirements headings)")
    p.add_argument("--tenders", type=Path, help="folder of tenders, matched to outlines by file stem")
    p.add_argument("--sample", type=int, nargs="?", const=1, default=0,
                   help="print a side-by-side sample for this many outlines")
    p.add_argument("--json", action="store_true", help="print the figures as JSON lines")
    args = p.parse_args(argv)
    rows: list[dict[str, object]] = []
    reports: list[Report] = []
    for path in _outlines(args.outline):
        chapters = load_outline(path)
        tender = args.tender if args.tender and not args.outline.is_dir() else _tender_for(path, args.tenders)
        criteria, reqs = _tender_context(tender, chapters) if tender else ({}, [])
        report = evaluate(chapters, path.name.split(".")[0], criteria, reqs)
        reports.append(report)
        rows.append(shares(report))
    if not rows:
        print("没有找到 outline.json", file=sys.stderr)
        return 2
    if args.json:
        for r in rows:
            print(json.dumps(r, ensure_ascii=False))
    else:
        print_table(rows)
    for report in reports[: args.sample]:
        print_sample(report)
    return 0 if all(r.ok for r in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
