"""A tender with more scoring items than chapters used to be stored (issue 30, item 1).

One-to-one mode makes one chapter per technical scoring item; 45 items once ended the run
with an internal ValidationError (the storage model held at most 40 chapters) and the GUI
could neither save nor autosave. The run's result must be storable, and anything a project
file cannot hold is a validation failure, never an exception.
"""

from __future__ import annotations

from pathlib import Path

from app.core.limits import STORED
from app.core.outline import Outline, OutlineNode
from app.core.project import load_project
from app.core.session import ProjectSession
from app.pipeline.outline.job import OutlineSettings
from app.pipeline.outline.run import generate_outline, storage_issues
from tests.openai_server import OpenAIServer
from tests.pipeline_support import Router, make_client, sample_analysis

AREAS = ["机房", "网络", "终端", "安全", "数据", "应用", "接口", "备份", "监控"]
FACETS = ["巡检方案", "运维保障", "应急处置", "质量控制", "人员配置"]


def _groups(count: int) -> list[tuple[str, list[str]]]:
    titles = [f"{a}{f}" for f in FACETS for a in AREAS][:count]
    return [(t, [f"{t}的组织安排", f"{t}的检查要求"]) for t in titles]


async def test_45_scoring_items_give_45_chapters_that_save_and_load(llm_server: OpenAIServer,
                                                                    tmp_path: Path) -> None:
    llm_server.handler = Router()
    analysis = sample_analysis(_groups(45))
    async with make_client(llm_server) as client:
        res = await generate_outline(client, analysis, OutlineSettings(mode="aligned", review=False))
    assert len(res.chapters) == 45
    assert res.document().outline[-1].title == res.chapters[-1].title  # storable as it is
    session = ProjectSession(Outline())
    session.outline.set_children((), res.chapters)
    path = session.save(tmp_path / "big.bidproj")
    assert len(load_project(path).outline.outline) == 45


def test_an_outline_past_the_storage_bound_is_a_validation_issue_not_an_exception() -> None:
    too_many = [OutlineNode(title=f"第{i}章") for i in range(STORED.max_chapters + 1)]
    issues = storage_issues(too_many)
    assert issues and "outline" in issues[0]
    assert storage_issues(too_many[:45]) == []
