"""Importing the user's own outline: numbering styles, .docx headings, the tender's prescribed order, locks in a run."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.analysis import ScoringGroup
from app.core.outline import Outline, OutlineNode
from app.documents.errors import DocumentError
from app.documents.outlines.chapter_mapping import propose_mapping
from app.documents.outlines.importer import import_outline_file, import_outline_text
from app.documents.outlines.numbering import nest_levels, parse_numbering
from app.documents.outlines.prescribed import find_prescribed, prescribed_outline
from app.documents.outlines.sections import iter_sections, parse_outline_text
from app.pipeline.outline.job import OutlineSettings
from app.pipeline.outline.run import generate_outline
from tests.openai_server import OpenAIServer
from tests.pipeline_support import Router, make_client, sample_analysis

OUTLINES = Path(__file__).resolve().parents[2] / "shared" / "outlines"


def _shape(text: str) -> list[tuple[int, str]]:
    return [(d, s.title) for d, s in iter_sections(parse_outline_text(text))]


@pytest.mark.parametrize(("text", "want"), [
    ("第一章 总体方案\n第一节 服务目标\n第二节 服务内容\n第二章 质量保证",
     [(1, "总体方案"), (2, "服务目标"), (2, "服务内容"), (1, "质量保证")]),
    ("一、项目理解\n（一）项目背景\n（二）需求分析\n1、业务需求\n二、实施方案",
     [(1, "项目理解"), (2, "项目背景"), (2, "需求分析"), (3, "业务需求"), (1, "实施方案")]),
    ("1 总体设计\n1.1 设计原则\n1.1.1 安全性\n1.2 技术路线\n2 实施计划",
     [(1, "总体设计"), (2, "设计原则"), (3, "安全性"), (2, "技术路线"), (1, "实施计划")]),
    ("1、人员配置\n(1) 项目经理\n(2) 技术负责人\n1) 职责\n2、设备配置",
     [(1, "人员配置"), (2, "项目经理"), (2, "技术负责人"), (3, "职责"), (1, "设备配置")]),
    ("第一章施工组织综合说明\n一、编制说明……3\n二、工程概况\t4\n第二章 专项施工方案",
     [(1, "施工组织综合说明"), (2, "编制说明"), (2, "工程概况"), (1, "专项施工方案")]),
])
def test_each_numbering_style_nests_and_keeps_titles_verbatim(text: str, want: list[tuple[int, str]]) -> None:
    assert _shape(text) == want


def test_uneven_depth_and_unnumbered_lines() -> None:
    text = "第一章 概述\n第二章 服务方案\n一、服务内容\n（一）日常巡检\n1、每日巡检\n第三章 培训方案\n培训计划"
    assert _shape(text) == [(1, "概述"), (1, "服务方案"), (2, "服务内容"), (3, "日常巡检"), (4, "每日巡检"),
                            (1, "培训方案"), (2, "培训计划")]


def test_numbers_that_are_not_headings() -> None:
    assert parse_numbering("2024年3月1日") is None
    assert parse_numbering("3.5%以上的增长") is None
    assert parse_numbering("1.") is None
    assert parse_numbering("2.4 10KV 配电工程交接试验").title == "10KV 配电工程交接试验"  # type: ignore[union-attr]
    assert nest_levels(["dec1", "dec2", "num_paren", "dec3", "dec1"]) == [1, 2, 3, 3, 1]


def test_import_maps_chapters_to_scoring_items_and_locks() -> None:
    groups = [ScoringGroup(id="R1", title="质量保证措施"), ScoringGroup(id="R2", title="应急预案"),
              ScoringGroup(id="R3", title="培训方案")]
    res = import_outline_text("一、总体服务方案\n二、质量保证措施\n（一）质量目标\n三、应急预案及处置", groups, lock=True)
    assert [c.title for c in res.chapters] == ["总体服务方案", "质量保证措施", "应急预案及处置"]
    assert [c.source_requirement_id for c in res.chapters] == [None, "R1", "R2"] and res.mapped == 2
    assert all(n.locked and n.origin == "user" for c in res.chapters for _, n in [((), c), *c.walk()])
    assert import_outline_text("一、甲\n二、乙", lock=False).chapters[0].locked is False


def _proposed(chapters: list[str], items: list[str]) -> list[str | None]:
    groups = [ScoringGroup(id=f"R{i}", title=t) for i, t in enumerate(items)]
    return [items[j] if j is not None else None for j in propose_mapping(chapters, groups)]


def test_a_chapter_maps_to_the_item_of_the_same_subject_or_to_none() -> None:
    # the walkthrough's tender: 售后 is not 项目; 保证 and 保障 are one word in a heading
    assert _proposed(["项目理解", "质量保证措施", "售后服务方案", "应急预案"],
                     ["项目服务方案", "质量保障措施", "应急处置预案", "培训方案"]) == [
        None, "质量保障措施", None, "应急处置预案"]
    assert _proposed(["售后服务体系", "整体经营服务方案"], ["售后服务方案", "配送服务方案"]) == ["售后服务方案", None]
    assert _proposed(["服务方案、服务计划"], ["服务方案"]) == ["服务方案"]  # one part of a compound chapter
    assert _proposed(["保证措施"], ["服务期、质量管理保证体系及保证措施"]) == [None]  # its subject is 质量
    assert _proposed(["技术承诺", "公司情况介绍"], ["服务承诺", "工作内容介绍"]) == [None, None]
    res = import_outline_text("第三章 质量保证措施\n第四章 售后服务方案", [ScoringGroup(id="R1", title="项目服务方案"),
                                                                   ScoringGroup(id="R2", title="质量保障措施")])
    assert [c.source_requirement_id for c in res.chapters] == ["R2", None] and res.mapped == 1


def test_an_ambiguous_chapter_is_left_for_the_user() -> None:
    assert _proposed(["服务方案"], ["服务方案（30分）", "服务方案（10分）"]) == [None]
    assert _proposed(["培训方案", "培训计划"], ["培训方案"]) == ["培训方案", None]  # the same words win
    assert _proposed(["应急预案", "应急方案"], ["应急处置预案"]) == [None, None]  # two as good: neither


def test_too_many_children_are_said_not_dropped_silently() -> None:
    text = "第一章 设备清单\n" + "\n".join(f"{i}、设备{i}" for i in range(1, 46))
    res = import_outline_text(text)
    assert len(res.chapters[0].children) == 40
    assert any("45 个子标题" in n and "设备41" in n for n in res.notes)


def test_empty_text_is_a_clear_error() -> None:
    with pytest.raises(DocumentError, match="没有找到目录标题"):
        import_outline_text("   \n\n")


def test_docx_by_heading_style_and_by_numbering(tmp_path: Path) -> None:
    from docx import Document

    doc = Document()
    doc.add_heading("总体方案", level=1)
    doc.add_heading("服务目标", level=2)
    doc.add_paragraph("本项目的服务目标是保障系统稳定运行，全年可用率不低于百分之九十九。")
    doc.add_heading("人员安排", level=2)
    table = doc.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "姓名", "岗位"
    doc.add_heading("应急预案", level=1)
    styled = tmp_path / "styled.docx"
    doc.save(str(styled))
    res = import_outline_file(styled)
    assert [(c.title, [k.title for k in c.children]) for c in res.chapters] == [
        ("总体方案", ["服务目标", "人员安排"]), ("应急预案", [])]
    assert "可用率" in res.chapters[0].children[0].description

    plain = Document()
    for line in ("第一章 项目理解", "一、项目背景", "本项目位于某市，服务期三年，需要提供全面的运维保障服务。",
                 "二、需求分析", "第二章 实施方案", "一、实施步骤"):
        plain.add_paragraph(line)
    numbered = tmp_path / "numbered.docx"
    plain.save(str(numbered))
    res = import_outline_file(numbered)
    assert [(c.title, [k.title for k in c.children]) for c in res.chapters] == [
        ("项目理解", ["项目背景", "需求分析"]), ("实施方案", ["实施步骤"])]


def test_bad_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "x.docx"
    bad.write_bytes(b"not a zip")
    with pytest.raises(DocumentError):
        import_outline_file(bad)
    with pytest.raises(DocumentError, match="不支持"):
        import_outline_file(tmp_path / "x.xls")


def test_tender_prescribed_outline() -> None:
    text = ("第六章 投标文件格式\n三、技术部分\n投标人须按以下顺序编写技术部分：\n一、项目理解与需求分析\n"
            "二、总体服务方案\n（一）服务内容\n（二）服务流程\n三、质量保证措施\n以上内容须装订成册，并加盖公章。\n附件：报价表\n")
    got = [(d, s.title) for d, s in iter_sections(prescribed_outline(text))]
    assert got == [(1, "项目理解与需求分析"), (1, "总体服务方案"), (2, "服务内容"), (2, "服务流程"), (1, "质量保证措施")]
    assert prescribed_outline("投标人应按以下顺序递交商务文件：\n一、报价表\n二、资格证明") == []


#: 投标人须知 text the earlier finder took for a technical outline ("技术" near "按下列顺序").
INSTRUCTIONS = ("第二章 投标人须知\n26. 评标结果\n综合得分相同的，按技术部分得分高低排序；仍相同的，按下列顺序处理：\n"
                "一、质疑及投诉\n二、采购人在收到评标报告后5个工作日内确定中标人\n三、中标通知书\n")


def test_instructions_to_bidders_are_no_technical_outline() -> None:
    assert prescribed_outline(INSTRUCTIONS) == []
    # the commercial volume, the bid's paperwork, a scoring list and contract clauses are none either
    assert prescribed_outline("2、商务技术文件\n（1）投标函\n（2）法定代表人授权委托书\n（3）服务方案\n（4）售后服务方案") == []
    assert prescribed_outline("技术资信标的组成：\n1、技术资信标封面\n2、资格审查相关证明材料\n3、法定代表人身份证明\n"
                              "4、授权委托书\n5、项目技术方案") == []
    assert prescribed_outline("二、技术方案（35分）\n1.深化设计能力（10分）\n2.材质工艺（10分）\n3.安装方案（15分）") == []
    assert prescribed_outline("（二）技术文件\n1、中标方在签订合同前向用户提供一般性资料，如鉴定证书、典型说明书、总装图和主要技术参数。\n"
                              "2、在合同签订14天内，中标方向用户提供下列文件3份，向设计院提供下列文件1份。") == []


def test_a_technical_part_heading_with_forms_between_its_items() -> None:
    text = (INSTRUCTIONS + "第六章 投标文件格式\n一、报价文件\n1.1报价一览表\n三、技术文件\n3.1配送车辆情况\n"
            "说明：根据评分细则编写方案，格式自拟。\n3.2拟投入本项目服务团队（食品安全管理保障）\n序号\n投入人员姓名\n拟担任职务\n1\n"
            "项目负责人\n说明：根据评分细则的要求提交相应资料。\n- 104 -\n3.3应急方案（格式自拟）\n"
            "3.4售后服务方案，包括但不限于：售后服务计划、增值服务、投诉处理\n四、资格证明文件\n4.1营业执照\n")
    found = find_prescribed(text)
    assert found is not None and found.anchor == "三、技术文件"
    assert [(s.title, s.paragraphs) for s in found.sections] == [
        ("配送车辆情况", []), ("拟投入本项目服务团队（食品安全管理保障）", []), ("应急方案", []),
        ("售后服务方案", ["售后服务计划、增值服务、投诉处理"])]
    listed = ("15.2.2技术响应文件\n（ 1）2024 年物业服务方案策划及实施方案（服务定位和目标、重点难点的应对措施）；\n"
              "（2）物业管理机构运作方法及管理制度；\n（3）管理人员、服务人员配备（需报出物业经理、管理人员的组成及\n"
              "资历）；\n（4）物业管理应急措施。\n15.3 投标文件的签署\n（1）投标文件须加盖公章")
    assert [(s.title, s.paragraphs) for s in prescribed_outline(listed)] == [
        ("2024 年物业服务方案策划及实施方案", ["服务定位和目标、重点难点的应对措施"]),
        ("物业管理机构运作方法及管理制度", []),
        ("管理人员、服务人员配备", ["需报出物业经理、管理人员的组成及资历"]), ("物业管理应急措施", [])]


@pytest.mark.skipif(not OUTLINES.is_dir(), reason="../shared/outlines not present")
def test_real_outlines_keep_the_writers_depth() -> None:
    """Each real outline, indentation removed, nests back to the depth its writer gave it (numbering alone)."""
    checked = exact = 0
    for path in sorted(OUTLINES.glob("*.txt")):
        lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip() and not ln.startswith("#")]
        truth = [(len(ln) - len(ln.lstrip(" "))) // 2 + 1 for ln in lines]
        got = [d for d, _ in iter_sections(parse_outline_text("\n".join(ln.strip() for ln in lines)))]
        checked += 1
        exact += got == truth
        assert [d for d, _ in iter_sections(parse_outline_text("\n".join(lines)))] == truth, path.name
    assert exact >= checked - 1  # one source lost its punctuation (一 vs 一、 at two levels): ambiguous flat


async def test_locked_user_outline_survives_a_model_run(llm_server: OpenAIServer) -> None:
    """Locked chapters with children are not sent to the model; open ones are filled; locks stay."""
    text = ("第一章 项目理解\n一、项目背景\n二、需求分析\n第二章 总体服务方案\n第三章 质量保证措施")
    imported = import_outline_text(text, lock=True).chapters
    # the third chapter is open with one locked heading the model does not know about
    third = imported[2].model_copy(update={"locked": False, "children": [
        OutlineNode(title="用户保留的质量目标", origin="user", locked=True)]})
    base = [imported[0], imported[1], third]
    router = Router()
    llm_server.handler = router
    draft = Outline([c.model_copy(deep=True) for c in base])
    async with make_client(llm_server) as client:
        res = await generate_outline(client, sample_analysis(), OutlineSettings(mode="free", review=False),
                                     draft=draft, base=base)
    assert res.ok, res.failure
    assert router.count("chapter:项目理解") == 0
    assert router.count("chapter:总体服务方案") == 1 and router.count("chapter:质量保证措施") == 1
    first, second, third_out = res.chapters
    assert [c.title for c in first.children] == ["项目背景", "需求分析"] and first.locked
    assert second.title == "总体服务方案" and second.locked and len(second.children) >= 2
    assert "用户保留的质量目标" in [c.title for c in third_out.children]
    assert any(c.origin != "user" for c in third_out.children)
    assert draft.to_document() == res.document()
