"""Helpers for the pipeline tests: a client on the scripted server, sample analyses, and a
router that answers each request by what its prompt asks for (chapter, review, top level…).

Model behaviour still comes only from tests/openai_server.py; the router just decides
which scripted reply the server plays for a given prompt.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict, deque
from collections.abc import Callable

from app.core.analysis import Analysis, ProjectOverview, ScoringGroup
from app.llm.client.llm_client import EndpointConfig, LLMClient
from app.llm.client.response_format import FormatRegistry
from tests.openai_server import OpenAIServer, RecordedRequest, Reply

GROUPS = [
    ("服务方案", ["项目人员配置方案", "实施进度计划", "设备配置和技术工具方案"]),
    ("质量保障措施", ["工单交付质量保障机制", "质量检查流程"]),
    ("售后服务方案", ["节假日响应保障", "故障处理时限"]),
]


def make_client(server: OpenAIServer, **kw: object) -> LLMClient:
    """A client for the scripted server with fast retries and a private format registry."""
    params: dict[str, object] = {"backoff_base": 0.01, "backoff_max": 0.02, "max_retries": 1, "timeout": 10.0}
    params.update(kw)
    cfg = EndpointConfig(base_url=server.base_url, api_key="k", model="test-model", **params)  # type: ignore[arg-type]
    return LLMClient(cfg, formats=FormatRegistry())


def sample_analysis(groups: list[tuple[str, list[str]]] | None = None) -> Analysis:
    """An analysis with technical scoring groups R1.. (or none when ``groups == []``)."""
    gs = GROUPS if groups is None else groups
    return Analysis(
        overview=ProjectOverview(project_name="某市政务服务中心运维项目", summary="为政务服务中心提供运维服务"),
        groups=[ScoringGroup(id=f"R{i + 1}", title=t, detail_points=pts, points=10.0) for i, (t, pts) in enumerate(gs)],
        technical_requirements="" if gs else "1. 提供 7×24 小时运维服务；2. 建立信息安全管理制度；3. 定期巡检设备。",
        source="table" if gs else "none",
    )


#: Aspects a good model writes about, varied so that no two sections get the same suffix pattern.
ASPECTS = (("总体思路", "实施措施"), ("工作目标", "具体做法"), ("组织分工", "检查考核"), ("计划安排", "保障措施"),
           ("重点内容", "执行标准"))


def chapter_children(title: str, points: list[str] | None = None) -> dict[str, object]:
    """A valid, chapter-specific levels 2–3 answer (titles derived from the chapter and its points).

    Like a good model, it never writes one suffix pattern under every section.
    """
    first = sum(map(ord, title)) % len(ASPECTS)
    a, b = ASPECTS[first]
    seeds = list(points or []) or [f"{title}{a}", f"{title}{b}"]
    if len(seeds) < 2:
        seeds.append(f"{title}保障措施")
    sections = []
    for k, seed in enumerate(seeds[:4]):
        x, y = ASPECTS[(first + k + 1) % len(ASPECTS)]
        sections.append({"title": seed, "description": f"说明{seed}",
                         "children": [{"title": f"{seed}{x}", "description": ""},
                                      {"title": f"{seed}{y}{k + 1}", "description": ""}]})
    return {"children": sections}


def is_stream(req: RecordedRequest) -> bool:
    """Whether the request asks for instruction lines (the stream strategy) rather than one JSON object.

    Both strategies stream their answers; only the instruction prompt explains the ``op`` lines.
    """
    return '{"op":"append"' in req.prompt_text


def as_instructions(nodes: list[dict[str, object]], base: str, thinking: bool = True) -> str:
    """Instruction lines (append ... done) building ``nodes`` under ``base``, with some thinking text."""
    lines = ["我先想一想这一部分应该怎么写。"] if thinking else []

    def emit(items: list[dict[str, object]], path: str) -> None:
        for i, item in enumerate(items):
            value = {k: v for k, v in item.items() if k != "children"}
            lines.append(json.dumps({"op": "append", "path": path, "value": value}, ensure_ascii=False))
            kids = item.get("children")
            if isinstance(kids, list) and kids:
                emit(kids, f"{path}/{i}/children")

    emit(nodes, base)
    lines.append('{"op":"done"}')
    return "\n".join(lines) + "\n"


def chapter_title_of(req: RecordedRequest) -> str | None:
    """The chapter a chapter prompt asks about (``现在只写其中一章“X”``)."""
    m = re.search(r"现在只写其中一章“([^”]+)”", req.prompt_text)
    return m.group(1) if m else None


def kind_of(req: RecordedRequest) -> str:
    """What a request asks for: chapter:<title>, pick, refine, subsections, review, top, full, overview, scoring,
    second_reading, repair."""
    text = req.prompt_text
    title = chapter_title_of(req)
    if title is not None:
        return f"chapter:{title}"
    if '"picks"' in text:
        return "pick"
    if "下级小标题" in text:
        return "subsections"
    if "保留原标题" in text:
        return "refine"
    if "审核" in text and "passed" in text:
        return "review"
    if "只要章标题" in text:
        return "top"
    if "目录，共" in text:
        return "full"
    if "项目概况" in text and "project_name" in text:
        return "overview"
    if "技术部分**的评分项" in text:
        return "scoring"
    if "带分值的评分项" in text and '"rows"' in text:
        return "second_reading"
    return "other"


class Router:
    """Plays queued replies per request kind; ``default`` builds one when the queue is empty."""

    def __init__(self, default: Callable[[str, RecordedRequest], Reply] | None = None) -> None:
        self.queues: dict[str, deque[Reply]] = defaultdict(deque)
        self.default = default or self._default
        self.seen: list[str] = []

    def add(self, kind: str, *replies: Reply | str | dict[str, object]) -> None:
        """Queue replies for a kind; dicts are sent as JSON text."""
        for r in replies:
            if isinstance(r, dict):
                r = json.dumps(r, ensure_ascii=False)
            self.queues[kind].append(Reply.text(r) if isinstance(r, str) else r)

    def __call__(self, req: RecordedRequest) -> Reply:
        kind = kind_of(req)
        self.seen.append(kind)
        if self.queues[kind]:
            return self.queues[kind].popleft()
        return self.default(kind, req)

    def count(self, prefix: str) -> int:
        """How many requests of a kind (prefix) arrived."""
        return sum(1 for k in self.seen if k.startswith(prefix))

    @staticmethod
    def _default(kind: str, req: RecordedRequest) -> Reply:
        if kind.startswith("chapter:"):
            title = kind.split(":", 1)[1]
            answer = chapter_children(title, dict(GROUPS).get(title))
            if is_stream(req):
                return Reply.text(as_instructions(answer["children"], "/outline/0/children"))  # type: ignore[arg-type]
            return Reply.text(json.dumps(answer, ensure_ascii=False))
        if kind == "review":
            return Reply.text('{"passed": true, "suggestions": []}')
        if kind == "subsections":  # a model that names no level-3 heading: the planned ones stay
            return Reply.text('{"titles": []}')
        if kind == "second_reading":  # a model that reads no scoring rows: code's reading stands as it is
            return Reply.text('{"rows": []}')
        return Reply.error(500, f"router: no reply for {kind}")
