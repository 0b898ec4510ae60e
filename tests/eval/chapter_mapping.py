"""How well 导入目录 finds a tender's prescribed technical structure and maps chapters to scoring items.

Measured on ../shared (skipped when absent), against the hand labels in
``tests/data/chapter_mapping_labels.json``:

* prescribed structures: every tender of ../shared/tenders is read; the tenders the labels list
  must give exactly their prescribed chapters, every other tender none;
* mapping, prescribed chapters: each tender's prescribed chapters mapped to its labelled technical
  items (labels.json) — a proposal is right when the labels allow it; a chapter the labels say
  must be mapped and is not counts as missed;
* mapping, human outlines: the chapters of every ../shared/outlines file mapped to every labelled
  tender's technical items — each proposal is looked up in the judged pairs (right / wrong /
  not yet judged).

Run: ``python tests/eval/chapter_mapping.py`` (prints the figures).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from app.core.analysis import ScoringGroup  # noqa: E402
from app.core.outline import OutlineNode  # noqa: E402
from app.documents.outlines.importer import map_to_groups  # noqa: E402
from app.documents.outlines.prescribed import find_prescribed  # noqa: E402
from app.documents.outlines.sections import parse_outline_text  # noqa: E402

SHARED = REPO.parent / "shared"
TENDERS = SHARED / "tenders"
OUTLINES = SHARED / "outlines"
LABELS = REPO / "tests" / "data" / "chapter_mapping_labels.json"


def labels() -> dict:
    """The hand labels (see the module docstring)."""
    return json.loads(LABELS.read_text(encoding="utf-8"))


@cache
def tender_text(name: str) -> str:
    """The text of a ../shared tender as the app reads it."""
    from app.documents.loader import load_tender

    return load_tender(TENDERS / name).text()


def tender_files() -> list[str]:
    """Every tender document in ../shared/tenders."""
    return sorted(p.name for p in TENDERS.iterdir() if p.suffix.lower() in (".pdf", ".docx"))


def technical_groups(name: str) -> list[ScoringGroup]:
    """The labelled technical scoring items of a tender (labels.json), as scoring groups."""
    rows = json.loads((TENDERS / "labels.json").read_text(encoding="utf-8")).get(name, {}).get("rows", [])
    titles = dict.fromkeys(r["name"][:60] for r in rows if r.get("category") == "技术")
    return [ScoringGroup(id=f"G{i}", title=t) for i, t in enumerate(titles)]


def _proposals(titles: list[str], groups: list[ScoringGroup]) -> list[str | None]:
    chapters = [OutlineNode(title=t[:60]) for t in titles]
    map_to_groups(chapters, groups)
    return [c.source_requirement_title or None for c in chapters]


@dataclass
class Figures:
    """Counts of one evaluation."""

    proposed: int = 0
    right: int = 0
    wrong: list[tuple[str, str]] = field(default_factory=list)
    unjudged: list[tuple[str, str]] = field(default_factory=list)
    must: int = 0
    missed: list[str] = field(default_factory=list)


def prescribed_found() -> dict[str, list[str]]:
    """For every ../shared tender, the top-level titles of the structure it is found to prescribe ([] for none)."""
    out = {}
    for name in tender_files():
        found = find_prescribed(tender_text(name))
        out[name] = [s.title for s in found.sections] if found is not None else []
    return out


def mapping_on_prescribed() -> Figures:
    """Map each labelled prescribed outline to its tender's items; judge each chapter."""
    fig = Figures()
    for name, chapters in labels()["prescribed"].items():
        titles = [c[0] for c in chapters]
        for (title, allowed), got in zip(chapters, _proposals(titles, technical_groups(name)), strict=True):
            if None not in allowed:
                fig.must += 1
            if got is None:
                if None not in allowed:
                    fig.missed.append(f"{name}: {title} → {allowed[0]}")
                continue
            fig.proposed += 1
            if got in allowed:
                fig.right += 1
            else:
                fig.wrong.append((title, got))
    return fig


def mapping_on_human_outlines() -> Figures:
    """Map every human outline's chapters to every labelled tender's items; judge each proposal."""
    judged = labels()["human"]
    right = {tuple(p) for p in judged["right"]}
    wrong = {tuple(p) for p in judged["wrong"]}
    tender_labels = json.loads((TENDERS / "labels.json").read_text(encoding="utf-8"))
    fig = Figures()
    for path in sorted(OUTLINES.glob("*.txt")):
        text = "\n".join(ln for ln in path.read_text(encoding="utf-8").splitlines() if not ln.startswith("#"))
        titles = [s.title for s in parse_outline_text(text)]
        for name in tender_labels:
            groups = technical_groups(name)
            if not groups:
                continue
            for title, got in zip(titles, _proposals(titles, groups), strict=True):
                if got is None:
                    continue
                fig.proposed += 1
                pair = (title, got)
                if pair in right:
                    fig.right += 1
                elif pair in wrong:
                    fig.wrong.append(pair)
                else:
                    fig.unjudged.append(pair)
    fig.must = len(right)
    return fig


def main() -> None:
    """Print the figures."""
    if not TENDERS.is_dir():
        print("../shared/tenders not present")
        return
    expected = {k: [c[0] for c in v] for k, v in labels()["prescribed"].items()}
    found = prescribed_found()
    offered = [n for n, t in found.items() if t]
    right = [n for n in offered if found[n] == expected.get(n)]
    print(f"prescribed structures: {len(found)} tenders, {len(expected)} labelled as prescribing one; "
          f"offered {len(offered)}, exactly right {len(right)}; "
          f"offered where none is prescribed: {[n for n in offered if n not in expected]}; "
          f"missed: {[n for n in expected if not found.get(n)]}")
    a = mapping_on_prescribed()
    print(f"mapping, prescribed chapters: {a.proposed} proposed, {a.right} right, {len(a.wrong)} wrong {a.wrong}; "
          f"{a.must - len(a.missed)}/{a.must} chapters that must map are mapped; missed: {a.missed}")
    b = mapping_on_human_outlines()
    print(f"mapping, human outlines × labelled tenders: {b.proposed} proposed, {b.right} judged right, "
          f"{len(b.wrong)} judged wrong {b.wrong}, {len(b.unjudged)} not judged {b.unjudged}")


if __name__ == "__main__":
    main()
