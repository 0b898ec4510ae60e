"""The project name, buyer and budget read by code, with generated tenders for each pattern.

Each fixture is a small tender in the shape real ones take (a cover, an announcement), with
made-up names; the real-tender checks at the end run only where ``../shared/tenders`` exists.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.analysis import ProjectOverview
from app.documents.model import Page, TenderDocument, TextBlock
from app.documents.project_facts import cover_title, read_project_facts
from app.pipeline.analysis.overview_facts import apply_facts


def _doc(*pages: str) -> TenderDocument:
    return TenderDocument(source_path="generated.txt", kind="text", pages=[Page(number=i + 1, blocks=[TextBlock(page=i + 1, text=t)])
                                 for i, t in enumerate(pages)])


ANNOUNCEMENT = "第一章 招标公告\n{sentence}\n项目名称：{name}\n采购人：某市某区城市管理局\n预算金额：人民币 128.5 万元\n"


def test_a_name_wrapped_on_the_cover_is_read_whole_and_confirmed_by_the_announcement() -> None:
    name = "某市某区城市管理局2025-2026年度环卫作业车辆维修服务采购项目"
    cover = "公开招标文件\n项目编号：AB-2025-001\n项目名称：某市某区城市管理局2025-2026\n年度环卫作业车辆维修服务采购项目\n采购人：某市某区城市管理局\n日期：二〇二五年"
    facts = read_project_facts(_doc(cover, "目录", ANNOUNCEMENT.format(sentence="", name=name)))
    assert facts.project_name.value == name
    assert facts.project_name.confirmed and facts.project_name.pages == [1, 3]
    assert facts.buyer.value == "某市某区城市管理局" and facts.buyer.confirmed
    assert facts.budget.value == "128.5万元" and not facts.budget.confirmed  # one page only


def test_table_cells_leave_no_separator_and_a_repeated_label_inside_a_cell_is_dropped() -> None:
    name = "某康复医院2025年-2028年劳务派遣服务项目"
    cover = f"招标文件\n项目编号： | XY-2025-032\n项目名称： | {name}\n（投标人盖章）"
    invitation = (f"投标邀请书\n项目名称 | {name}\n招标人 | 招标人：某康复医院 地址：某市某路99弄 邮编：200120\n"
                  "采购预算 | 人民币贰拾万元整")
    facts = read_project_facts(_doc(cover, invitation))
    assert facts.project_name.value == name and facts.project_name.confirmed
    assert not facts.project_name.value.startswith("|")
    assert facts.buyer.value == "某康复医院"
    assert facts.budget.value == "贰拾万元整"


def test_a_colon_then_a_cell_bar_is_not_part_of_the_name() -> None:
    facts = read_project_facts(_doc("服 务 采 购\n招标文件\n项目名称: | 某钢厂在线监测设备点检\n招 标 人: | 某检测技术有限公司"))
    assert facts.project_name.value == "某钢厂在线监测设备点检"
    assert facts.buyer.value == "某检测技术有限公司"
    assert not facts.project_name.confirmed  # one place only: the UI asks to check it


def test_a_cover_title_without_label_over_two_lines_and_the_invitation_sentence() -> None:
    cover = "项目编号：310000-0001\n某大学附属中学食堂劳务\n派遣服务\n竞\n争\n性\n磋\n商\n文\n件\n采购单位：某大学附属中学"
    assert cover_title(cover) == "某大学附属中学食堂劳务派遣服务"
    sentence = "现就某大学附属中学食堂劳务派遣服务（310000-0001）进行竞争性磋商采购，欢迎参加："
    facts = read_project_facts(_doc(cover, "目录", "第一章 磋商公告\n" + sentence))
    assert facts.project_name.value == "某大学附属中学食堂劳务派遣服务"
    assert facts.project_name.confirmed
    assert facts.buyer.value == "某大学附属中学"


def test_definitions_blanks_and_sentences_about_other_things_are_not_values() -> None:
    facts = read_project_facts(_doc("采购人：是指依法进行政府采购的国家机关、事业单位和团体组织。\n项目名称：______\n"
                                    "现就下列项目进行公开招标：\n"))
    assert facts.project_name.value == "" and facts.buyer.value == ""


def test_two_different_names_are_not_confirmed_and_the_check_says_where() -> None:
    facts = read_project_facts(_doc("项目名称：某商场外墙标识制作安装项目", "目录",
                                    "项目名称：2026年某商场外墙标识字制作安装项目"))
    assert not facts.project_name.confirmed and facts.project_name.others
    overview, checks = apply_facts(ProjectOverview(project_name="模型读的名称"), facts, from_model=True)
    assert checks["project_name"].startswith("待确认") and "别处写作" in checks["project_name"]
    assert overview.project_name in ("某商场外墙标识制作安装项目", "2026年某商场外墙标识字制作安装项目")


def test_code_reading_wins_over_a_shortened_model_name_and_says_so() -> None:
    name = "某市某区城市管理局2025-2026年度环卫作业车辆维修服务采购项目"
    facts = read_project_facts(_doc(f"项目名称：{name}", ANNOUNCEMENT.format(sentence="", name=name)))
    overview, checks = apply_facts(ProjectOverview(project_name="某市某区城市管理局2025-2026"), facts, from_model=True)
    assert overview.project_name == name and checks["project_name"].startswith("✓")
    assert "模型读作" in checks["project_name"]
    assert overview.buyer == "某市某区城市管理局" and overview.budget == "128.5万元"


@pytest.mark.parametrize(("file", "name"), [
    ("yangjiang-tax-canteen.pdf", "国家税务总局阳江高新技术产业开发区税务局2024-2025年度食堂配送服务采购项目"),
    ("taiping-hospital-staffing.docx", "上海太平康复医院2025年-2028年劳务派遣服务项目"),
    ("lowest-price-tender.docx", "武钢有限、钢电、焦化、日铁（武汉）在线监测设备点检"),
])
def test_real_tenders_give_the_whole_name(tenders_dir: Path, file: str, name: str) -> None:
    from app.documents.loader import load_tender

    facts = read_project_facts(load_tender(tenders_dir / file))
    assert facts.project_name.value == name


def test_real_tender_buyer_and_budget_from_the_cover(tenders_dir: Path) -> None:
    from app.documents.loader import load_tender

    facts = read_project_facts(load_tender(tenders_dir / "yangjiang-tax-canteen.pdf"))
    assert facts.buyer.value == "国家税务总局阳江高新技术产业开发区税务局"
    assert facts.budget.value.endswith("万元")
