"""What the model is told when it drafts or rewrites one outline leaf.

:func:`section_requests` walks the outline and gathers, per leaf: the project overview,
the chapter path, the sibling titles (so sections do not repeat each other), the scoring
group the chapter maps to with its detail points, the breakdown tasks and risks most
related to the section, the user's guidance and a target length. The prompt builders
turn a :class:`SectionRequest` into chat messages from ``resources/prompts/draft_*.md``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from app.core.analysis import Analysis, ProjectOverview, ScoringGroup
from app.core.breakdown import Breakdown
from app.core.outline import Outline, OutlineNode, Path
from app.core.resources import load_prompt
from app.core.similarity import char_ngrams

if TYPE_CHECKING:
    from app.library.store import LibraryStore

DEFAULT_TARGET_CHARS = 800
MAX_REQUIREMENTS = 6

RewriteMode = Literal["expand", "condense", "specific", "scoring"]
#: The rewrite instructions offered by the section editor (扩写/精简/更具体/结合评分点).
REWRITE_INSTRUCTIONS: dict[str, str] = {
    "expand": "扩写：在保持原有结构和观点的基础上补充具体措施、流程和保障，篇幅扩充到约 {target} 字。",
    "condense": "精简：删去空话和重复内容，保留关键措施和承诺，篇幅压缩到约 {target} 字。",
    "specific": "更具体：把笼统的说法改为可执行的具体做法，写明责任人、时间节点、频次、数量和标准。",
    "scoring": "结合评分点：逐条对照评分项和评分细则改写，让每个得分点在正文中都有明确、可核查的响应。",
}
REWRITE_LABELS: dict[str, str] = {"expand": "扩写", "condense": "精简", "specific": "更具体", "scoring": "结合评分点"}


@dataclass
class SectionRequest:
    """Everything needed to draft one leaf; ``key`` identifies it (the outline id)."""

    key: str
    title: str
    path_titles: list[str] = field(default_factory=list)
    description: str = ""
    siblings: list[str] = field(default_factory=list)
    group: ScoringGroup | None = None
    requirements: list[str] = field(default_factory=list)
    overview: str = ""
    guidance: str = ""
    target_chars: int = DEFAULT_TARGET_CHARS
    existing: str = ""  # the section's text before this run: what stays when drafting fails
    references: list[str] = field(default_factory=list)  # past bids' sections offered as reference material
    reference_sources: list[str] = field(default_factory=list)  # where each reference came from (recorded on the draft)

    @property
    def path_text(self) -> str:
        """The chapter path, e.g. "3 服务方案 > 3.2 配送方案 > 3.2.1 配送时间"."""
        return " > ".join([*self.path_titles, self.title])


def overview_text(overview: ProjectOverview | None) -> str:
    """The overview as a few labelled lines (empty fields left out)."""
    if overview is None:
        return "（未提供）"
    rows = [("项目名称", overview.project_name), ("采购人", overview.buyer), ("项目概况", overview.summary),
            ("采购内容", overview.scope), ("服务期", overview.service_period)]
    text = "\n".join(f"{k}：{v}" for k, v in rows if v.strip())
    return text or "（未提供）"


def scoring_text(group: ScoringGroup | None) -> str:
    """The mapped scoring group with points and detail points, or a placeholder."""
    if group is None:
        return "（本章未对应具体评分项）"
    head = f"{group.id} {group.title}" + (f"（{group.points:g} 分）" if group.points is not None else "")
    lines = [head]
    if group.description.strip():
        lines.append(f"评分标准：{group.description.strip()[:600]}")
    lines += [f"- {p}" for p in group.detail_points[:12]]
    return "\n".join(lines)


def related_requirements(breakdown: Breakdown | None, query: str, limit: int = MAX_REQUIREMENTS) -> list[str]:
    """Breakdown tasks and risks most related to the section (3-gram overlap), ★/▲ first."""
    if breakdown is None:
        return []
    grams = char_ngrams(query, 2)  # bigrams: short Chinese terms (冷链, 配送) must match
    scored: list[tuple[float, int, str]] = []
    candidates = [(t.text, None) for t in breakdown.tasks] + [(r.text, r.mark) for r in breakdown.risks]
    for i, (text, mark) in enumerate(candidates):
        overlap = len(grams & char_ngrams(text, 2))
        if overlap < 2:
            continue
        shown = text[:160] if not mark or mark in text[:8] else f"{mark}{text[:160]}"
        scored.append((overlap + (2 if mark else 0), -i, shown))
    scored.sort(reverse=True)
    return [text for _, _, text in scored[:limit]]


def _label(node: OutlineNode) -> str:
    return f"{node.id} {node.title}".strip()


def section_requests(outline: Outline, analysis: Analysis | None = None, breakdown: Breakdown | None = None, *,
                     paths: Iterable[Path] | None = None, guidance: str = "",
                     target_chars: int = DEFAULT_TARGET_CHARS,
                     library: LibraryStore | None = None,
                     targets: Mapping[Path, int] | None = None) -> list[SectionRequest]:
    """Requests for the given leaves (all leaves when ``paths`` is None), in outline order.

    With the user's ``library``, the past sections that best match each heading go into the
    request as reference material, with their sources. ``targets`` gives a leaf its own length
    (the length budget's share); others get ``target_chars``.
    """
    groups = {g.id: g for g in (analysis.groups if analysis else [])}
    overview = overview_text(analysis.overview if analysis else None)
    wanted = None if paths is None else set(paths)
    out: list[SectionRequest] = []
    for path, node in outline.walk():
        if node.children or (wanted is not None and path not in wanted):
            continue
        ancestors = [outline.node(path[:i]) for i in range(1, len(path))]
        parent_children = outline.node(path[:-1]).children
        chapter = ancestors[0] if ancestors else node
        group = groups.get(node.source_requirement_id or "") or groups.get(chapter.source_requirement_id or "")
        query = " ".join([node.title, node.description, *(a.title for a in ancestors), group.title if group else ""])
        out.append(SectionRequest(
            key=node.id or ".".join(str(i + 1) for i in path),
            title=node.title,
            path_titles=[_label(a) for a in ancestors],
            description=node.description,
            siblings=[f"{s.title}：{s.description}" if s.description else s.title
                      for s in parent_children if s is not node],
            group=group,
            requirements=related_requirements(breakdown, query),
            overview=overview,
            guidance=guidance,
            target_chars=targets.get(path, target_chars) if targets else target_chars,
            existing=node.content,
        ))
        if library is not None:
            from app.pipeline.drafting.references import library_references

            out[-1].references, out[-1].reference_sources = library_references(library, node.title, group)
    return out


def _bullets(items: Sequence[str], empty: str) -> str:
    return "\n".join(f"- {x}" for x in items) if items else empty


def draft_messages(req: SectionRequest) -> list[dict[str, str]]:
    """The chat messages that ask for one section's text."""
    prompt = load_prompt("draft_section").format_map({
        "overview": req.overview or "（未提供）",
        "path": req.path_text,
        "title": req.title,
        "description": req.description or "（无）",
        "siblings": _bullets(req.siblings, "（无）"),
        "scoring": scoring_text(req.group),
        "requirements": _bullets(req.requirements, "（无）"),
        "guidance": req.guidance.strip() or "（无）",
        "target_chars": req.target_chars,
        "references": "\n\n".join(req.references) if req.references else "（无）",
    })
    return [{"role": "user", "content": prompt}]


def continue_messages(base: Sequence[dict[str, str]], written: str) -> list[dict[str, str]]:
    """Ask to continue after a truncated or cut answer, showing what was written."""
    tail = written.strip()[-200:]
    ask = load_prompt("draft_continue").format_map({"tail": tail})
    return [*base, {"role": "assistant", "content": written}, {"role": "user", "content": ask}]


def rewrite_messages(req: SectionRequest, text: str, mode: RewriteMode, guidance: str = "") -> list[dict[str, str]]:
    """Ask to rewrite a section's text in one of the four modes, with optional extra guidance."""
    length = len(text.strip())
    target = max(200, int(length * 1.6)) if mode == "expand" else max(150, int(length * 0.6))
    prompt = load_prompt("draft_rewrite").format_map({
        "title": req.title,
        "path": req.path_text,
        "scoring": scoring_text(req.group),
        "requirements": _bullets(req.requirements, "（无）"),
        "instruction": REWRITE_INSTRUCTIONS[mode].format(target=target),
        "guidance": f"补充要求：{guidance.strip()}" if guidance.strip() else "",
        "text": text.strip() or "（空）",
    })
    return [{"role": "user", "content": prompt}]


def path_for_key(outline: Outline, key: str) -> Path | None:
    """The tree path of the leaf a section key names (its outline id), or None when it is gone.

    Keys are outline ids ("1.2.3"); after the user moved or renumbered nodes the caller
    should map results by this function, never by a remembered path.
    """
    for path, node in outline.walk():
        if (node.id or ".".join(str(i + 1) for i in path)) == key:
            return path
    return None
