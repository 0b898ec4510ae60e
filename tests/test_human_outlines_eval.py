"""The human-outline benchmark's parts work: reading the files, counting what a replay kept, the replay itself.

The benchmark (``tests/eval/human_outlines.py``) runs on ``../shared/outlines``; the last test
runs its rule half there and skips cleanly when the folder is absent.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from app.core.outline import OutlineNode
from tests.conftest import REPO
from tests.eval.human_outline_files import cleaned, parse_outline, read_all
from tests.eval.human_outlines import heading_contexts
from tests.eval.human_replay import compare, replay_one

OUTLINES = REPO.parent / "shared" / "outlines"
TEXT = """#id: T1
#name: 某道路改造工程施工组织设计
#kind: 施工组织设计
#levels: 3
第一章 施工组织综合说明
  一、编制说明
  二、工程概况
    1、地理位置
第二章 专项施工方案
  一、各施工工序专项施工方案
    1、施工前准备
    2、平整场地
    3、测量放样
    4、人员、材料、机械计划表
  二、总体施工工艺
第三章 附件
"""


def _titles(nodes: list[OutlineNode]) -> list[str]:
    return [n.title for c in nodes for n in (c, *(x for _, x in c.walk()))]


def test_an_outline_file_is_read_and_its_numbering_stripped_by_the_app() -> None:
    o = parse_outline(TEXT)
    assert (o.id, o.kind, o.levels, len(o.chapters)) == ("T1", "施工组织设计", 3, 3)
    assert o.chapters[1].children[0].children[3].title == "4、人员、材料、机械计划表"
    titles = _titles(cleaned(o.chapters))
    assert titles[:4] == ["施工组织综合说明", "编制说明", "工程概况", "地理位置"]
    assert "人员、材料、机械计划表" in titles and o.headings() == len(titles) == 12


def test_no_rule_refuses_these_human_headings() -> None:
    from app.core.rules.registry import problems

    refused = [(c.title, problems(c)) for c in heading_contexts(parse_outline(TEXT)) if problems(c)]
    assert refused == []


def test_compare_counts_kept_repaired_replaced_and_lost() -> None:
    human = [OutlineNode(title="甲章", children=[OutlineNode(title="甲一"), OutlineNode(title="甲二"),
                                                OutlineNode(title="甲三")]), OutlineNode(title="乙章")]
    result = [OutlineNode(title="甲章", children=[OutlineNode(title="甲一"), OutlineNode(title="别的")]),
              OutlineNode(title="乙章", children=[OutlineNode(title="甲二")])]
    # 甲二 moved under 乙章 (repaired: found elsewhere), 甲三's place is gone (lost)
    assert compare(human, result) == Counter({"verbatim": 3, "repaired": 1, "lost": 1})
    result[0].children[1] = OutlineNode(title="完全不同的标题")
    result[1].children = []
    assert compare(human, result) == Counter({"verbatim": 3, "replaced": 1, "lost": 1})


@pytest.mark.parametrize("mode", ["free", "aligned"])
async def test_a_human_outline_replayed_as_a_model_answer_is_kept_verbatim(mode: str) -> None:
    o = parse_outline(TEXT)
    if mode == "aligned":  # each chapter is asked for alone; the one left whole stays out of this check
        o.chapters = [c for c in o.chapters if c.children]
    figures, res = await replay_one(o, mode)
    assert res.valid, res.report()
    assert figures.counts["verbatim"] == figures.headings, figures


@pytest.mark.parametrize("mode", ["free", "aligned"])
@pytest.mark.parametrize("shape", ["one_chapter", "chapter_list"])
async def test_a_persons_one_chapter_outline_and_chapter_list_are_kept_as_written(mode: str, shape: str) -> None:
    """Issue 38: a single top chapter with everything below it, and a list of chapters only, replayed as a
    strong model's answer: every heading kept verbatim, the run valid, the odd shape said (free mode)."""
    o = parse_outline(TEXT)
    if shape == "one_chapter":
        o.chapters = [OutlineNode(title="技术标", children=o.chapters)]
    else:
        o.chapters = [OutlineNode(title=c.title) for c in o.chapters]
    figures, res = await replay_one(o, mode)
    assert res.valid, res.report()
    assert figures.counts["verbatim"] == figures.headings, figures
    if mode == "free" and shape == "one_chapter":
        assert any("只有一个一级章节" in w for w in res.warnings), res.warnings
        assert figures.headings == len([n for c in res.chapters for n in (c, *(x for _, x in c.walk()))])  # as written


def test_the_shared_human_outlines_pass_the_rules_as_a_strong_models_answer() -> None:
    if not OUTLINES.is_dir():
        pytest.skip("../shared/outlines is not present")
    from app.core.rules.registry import problems

    per_level: Counter[int] = Counter()
    refused: Counter[int] = Counter()
    for o in read_all(Path(OUTLINES)):
        for ctx in heading_contexts(o, small_question=False):
            per_level[ctx.level] += 1
            refused[ctx.level] += bool(problems(ctx))
    assert per_level and all(refused[k] <= 0.02 * n for k, n in per_level.items()), (refused, per_level)
