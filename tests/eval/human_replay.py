"""Replay human outlines through the app's real outline path as a scripted strong model's answer.

The model is the project's loopback server (``tests/openai_server.py``): asked for a whole
outline it answers with the human outline (numbering and all, as the writer typed it); asked
for one chapter it answers with that chapter's part; asked to review it passes. The app runs
``generate_outline`` exactly as the GUI does. Two runs per outline:

- free mode, on a shared tender of the same kind (its technical items from
  ``../shared/tenders/labels.json`` when one fits, else the outline's own name and kind);
- one-to-one mode, where the tender's items are the outline's own chapters.

Each run asks for the depth the writer wrote (three levels, four for a four-level outline): the
depth a user chooses is a limit, and a model's answer deeper than it is folded into descriptions.

Each human heading is then counted as kept verbatim (same title under the same parents),
repaired (its title found elsewhere or nearly the same at its place), replaced (its place holds
another heading) or lost (its place is gone).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.core.analysis import Analysis, ProjectOverview, ScoringGroup
from app.core.limits import OutlineLimits
from app.core.outline import OutlineNode
from app.core.rules.heading_checks import similar
from app.core.rules.outline import clean_title, normalize_title
from app.pipeline.outline.job import OutlineSettings
from app.pipeline.outline.result import OutlineResult
from app.pipeline.outline.run import generate_outline
from tests.eval.human_outline_files import HumanOutline, cleaned
from tests.openai_server import OpenAIServer, RecordedRequest, Reply
from tests.pipeline_support import as_instructions, is_stream, kind_of, make_client

TENDERS = Path(__file__).resolve().parents[3] / "shared" / "tenders"
#: Share of human headings a replay must keep verbatim, in each mode (issue 38).
KEEP_TARGET = 0.99
#: Which kind of shared tender a human outline's ``#kind`` is replayed on (words of the kind → tender kinds).
_KINDS = (("保洁", "cleaning"), ("物业", "property"), ("食堂", "canteen"), ("运维", "it"), ("售后", "it"),
          ("档案", "it"), ("物流", "logistics"), ("监控", "goods"), ("机房", "goods"))
_LABEL_WORDS = {"cleaning": ("cleaning", "cleaners"), "property": ("property",), "canteen": ("canteen",),
                "it": ("rpa", "iptv"), "logistics": ("retail",), "goods": ("zhejiang",)}


@dataclass
class ReplayFigures:
    """What became of one outline's headings in one run."""

    outline: str
    mode: str
    headings: int
    counts: Counter[str] = field(default_factory=Counter)
    valid: bool = False
    note: str = ""

    def share(self, key: str) -> float:
        """Share of the human headings counted as ``key``."""
        return self.counts[key] / max(1, self.headings)


def _answer_nodes(nodes: list[OutlineNode]) -> list[dict[str, Any]]:
    return [{"title": n.title, "description": "", **({"children": _answer_nodes(n.children)} if n.children else {})}
            for n in nodes]


def _find(nodes: list[OutlineNode], title: str) -> OutlineNode | None:
    key = normalize_title(title)
    for top in nodes:
        for _, n in [((), top), *top.walk()]:
            if normalize_title(clean_title(n.title, 60)) == key:
                return n
    return None


class HumanModel:
    """A scripted strong model whose every answer is the human outline (or the part asked for)."""

    def __init__(self, outline: HumanOutline) -> None:
        self.raw = outline.chapters
        self.seen: Counter[str] = Counter()

    def __call__(self, req: RecordedRequest) -> Reply:
        kind = kind_of(req)
        self.seen[kind.split(":", 1)[0]] += 1
        if kind == "full":
            return self._json({"outline": _answer_nodes(self.raw)}, req, "/outline")
        if kind == "top":
            return Reply.text(json.dumps({"chapters": [{"title": c.title, "description": ""} for c in self.raw]},
                                         ensure_ascii=False))
        if kind.startswith("chapter:"):
            node = _find(self.raw, kind.split(":", 1)[1])
            return self._json({"children": _answer_nodes(node.children if node else [])}, req, "/outline/0/children")
        if kind == "review":
            return Reply.text('{"passed": true, "suggestions": []}')
        if kind == "subsections":
            return Reply.text('{"titles": []}')
        if kind == "pick":
            n = len(re.findall(r"(?m)^\d+\. ", req.prompt_text))
            return Reply.text(json.dumps({"picks": list(range(1, n + 1))}))
        if kind == "refine":  # code filled a chapter: keep its headings as they are
            titles = re.findall(r"(?m)^\d+\. (.+)$", req.prompt_text)
            return Reply.text(json.dumps({"items": [{"title": t, "description": ""} for t in titles]}, ensure_ascii=False))
        return Reply.error(500, f"replay: no answer for {kind}")

    @staticmethod
    def _json(value: dict[str, Any], req: RecordedRequest, base: str) -> Reply:
        if is_stream(req):
            items = next(iter(value.values()))
            return Reply.text(as_instructions(items, base, thinking=False))
        return Reply.text(json.dumps(value, ensure_ascii=False))


def _tender_groups(kind: str) -> tuple[str, list[ScoringGroup]]:
    """The technical items of a shared tender of the outline's kind (hand labels), or none."""
    labels_path = TENDERS / "labels.json"
    tag = next((t for word, t in _KINDS if word in kind), "")
    if not tag or not labels_path.exists():
        return "", []
    labels = json.loads(labels_path.read_text(encoding="utf-8"))
    for name, label in labels.items():
        if not any(w in name for w in _LABEL_WORDS[tag]) or not isinstance(label, dict):
            continue
        rows = [r for r in label.get("rows", []) if isinstance(r, dict) and r.get("category") == "技术"]
        if rows:
            return name, [ScoringGroup(id=f"R{i + 1}", title=str(r.get("name_core") or r["name"])[:60],
                                       points=float(r.get("points") or 0)) for i, r in enumerate(rows)]
    return "", []


def free_analysis(outline: HumanOutline) -> tuple[Analysis, str]:
    """A free-mode analysis on a shared tender of the outline's kind (its items only feed code's fill)."""
    tender, groups = _tender_groups(outline.kind)
    overview = ProjectOverview(project_name=outline.name[:80], summary=outline.kind)
    analysis = Analysis(overview=overview, groups=groups, source="table" if groups else "none",
                        technical_requirements=f"{outline.kind}：按招标文件要求编写技术方案。")
    return analysis, tender or "(none of this kind: the outline's own name and kind)"


def aligned_analysis(outline: HumanOutline) -> Analysis:
    """A one-to-one analysis whose technical items are the outline's own chapters."""
    groups = [ScoringGroup(id=f"R{i + 1}", title=clean_title(c.title, 60), points=5.0)
              for i, c in enumerate(outline.chapters)]
    return Analysis(overview=ProjectOverview(project_name=outline.name[:80], summary=outline.kind), groups=groups,
                    source="table")


def _same(title: str) -> str:
    return re.sub(r"\s+", "", title)


def compare(human: list[OutlineNode], result: list[OutlineNode]) -> Counter[str]:
    """Each human heading (titles cleaned) counted as verbatim / repaired / replaced / lost in ``result``.

    Titles compare without white space (a space inside a Chinese title is a copy artefact: "施工 组织设计")."""
    chains: set[tuple[str, ...]] = set()
    titles: set[str] = set()
    at: dict[tuple[int, ...], str] = {}

    def index(nodes: list[OutlineNode], chain: tuple[str, ...], path: tuple[int, ...]) -> None:
        for i, n in enumerate(nodes):
            c = (*chain, _same(n.title))
            chains.add(c)
            titles.add(_same(n.title))
            at[(*path, i)] = n.title
            index(n.children, c, (*path, i))

    index(result, (), ())
    counts: Counter[str] = Counter()

    def visit(nodes: list[OutlineNode], chain: tuple[str, ...], path: tuple[int, ...]) -> None:
        for i, n in enumerate(nodes):
            c, p = (*chain, _same(n.title)), (*path, i)
            if c in chains:
                counts["verbatim"] += 1
            elif _same(n.title) in titles or (p in at and similar(at[p], n.title, 0.6)):
                counts["repaired"] += 1
            elif p in at:
                counts["replaced"] += 1
            else:
                counts["lost"] += 1
            visit(n.children, c, p)

    visit(human, (), ())
    return counts


async def replay_one(outline: HumanOutline, mode: str) -> tuple[ReplayFigures, OutlineResult]:
    """One run of ``outline`` through ``generate_outline`` in ``mode`` ("free" or "aligned")."""
    human = cleaned(outline.chapters)
    figures = ReplayFigures(outline.id, mode, sum(1 for c in human for _ in [c, *c.walk()]))
    if mode == "free":
        analysis, figures.note = free_analysis(outline)
    else:
        analysis = aligned_analysis(outline)
    model = HumanModel(outline)
    # The user asks for the depth the writer wrote (3 unless deeper): a depth chosen is a limit (issue 38).
    depth = max(3, min(4, max((c.depth() for c in human), default=1)))
    settings = OutlineSettings(mode=mode, limits=OutlineLimits(depth=depth))  # type: ignore[arg-type]
    with OpenAIServer() as server:
        server.handler = model
        async with make_client(server) as client:
            res = await generate_outline(client, analysis, settings)
    figures.counts = compare(human, res.chapters)
    figures.valid = res.valid
    if not res.valid:
        figures.note = "; ".join([*(res.issues[:3]), res.failure.message_zh if res.failure else ""]).strip("; ")
    asked = ", ".join(f"{k} {v}" for k, v in sorted(model.seen.items()))
    figures.note = f"{figures.note} [asked: {asked}]".strip()
    return figures, res


def replay_report(outlines: list[HumanOutline], show: int = 10) -> bool:
    """Part 2 of the benchmark: replay every outline in both modes; True when the replay targets are met."""
    rows: list[ReplayFigures] = []
    for o in outlines:
        for mode in ("free", "aligned"):
            figures, _ = asyncio.run(replay_one(o, mode))
            rows.append(figures)
    print(f"\n== replay: {len(rows)} runs through generate_outline (scripted strong model on the loopback server)")
    print(f"{'outline':<8}{'mode':<9}{'headings':>9}{'verbatim':>10}{'repaired':>10}{'replaced':>10}{'lost':>6}"
          f"{'valid':>7}")
    for r in rows:
        print(f"{r.outline:<8}{r.mode:<9}{r.headings:>9}{r.counts['verbatim']:>10}{r.counts['repaired']:>10}"
              f"{r.counts['replaced']:>10}{r.counts['lost']:>6}{'yes' if r.valid else 'NO':>7}")
        if r.note and (not r.valid or r.share("verbatim") < 1):
            print(f"        {r.note[:300]}")
    total = sum(r.headings for r in rows)
    kept = sum(r.counts["verbatim"] for r in rows)
    valid = sum(r.valid for r in rows)
    ok = True
    for mode in ("free", "aligned"):
        t = sum(r.headings for r in rows if r.mode == mode)
        k = sum(r.counts["verbatim"] for r in rows if r.mode == mode)
        ok &= t > 0 and k / t >= KEEP_TARGET
        print(f"{mode}: kept verbatim {k}/{t} ({k / max(1, t):.1%}), target ≥ {KEEP_TARGET:.0%}")
    ok &= total > 0 and valid == len(rows)
    print(f"kept verbatim: {kept}/{total} ({kept / max(1, total):.1%}); valid runs: {valid}/{len(rows)}; "
          f"targets {'met' if ok else 'NOT met'}")
    return ok
