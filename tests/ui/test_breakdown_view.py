"""The breakdown panel: rows, ★/▲ highlight, answered-in edits and page links."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from app.core.breakdown import Breakdown, BreakdownItem, RiskItem
from app.ui.tender.breakdown_view import COL_ANSWERED, COL_KIND, COL_TEXT, BreakdownView

BREAKDOWN = Breakdown(
    status="executable",
    background="为食堂提供一年食品配送服务。",
    background_page=10,
    goals=[BreakdownItem(text="每日按时配送合格食材", page=12)],
    tasks=[BreakdownItem(text="提供配送方案", page=13), BreakdownItem(text="提供应急方案", page=None)],
    risks=[
        RiskItem(text="17.★不得转包分包", page=14, mark="★", origin="code", category="rejection"),
        RiskItem(text="23.▲人员须持健康证", page=15, mark="▲", origin="code", category="scoring"),
        RiskItem(text="冷链中断", page=16, category="delivery"),
    ],
)


def test_rows_highlight_and_warning(qtbot: Any, qtmodeltester: Any) -> None:
    view = BreakdownView()
    qtbot.addWidget(view)
    view.set_breakdown(BREAKDOWN)
    qtmodeltester.check(view.model)
    m = view.model
    assert [m.index(r, 0).data() for r in range(3)] == ["目标（1）", "任务（2）", "风险（3）"]
    risks = m.index(2, 0)
    star = m.index(0, COL_TEXT, risks)
    assert star.data() == "17.★不得转包分包"
    assert m.index(0, COL_KIND, risks).data() == "★ 废标风险"
    assert star.data(Qt.ItemDataRole.BackgroundRole) is not None
    assert m.index(2, COL_TEXT, risks).data(Qt.ItemDataRole.BackgroundRole) is None
    assert "状态：可执行" == view.status_label.text() and "第10页" in view.background_label.text()
    assert view.unanswered_count() == 2 and "2 条" in view.warning_label.text()
    # only 已响应章节 of risks is editable
    assert m.itemFromIndex(m.index(0, COL_ANSWERED, risks)).isEditable()
    assert not m.itemFromIndex(m.index(0, COL_ANSWERED, m.index(0, 0))).isEditable()


def test_answered_edit_emits_a_new_breakdown(qtbot: Any) -> None:
    view = BreakdownView()
    qtbot.addWidget(view)
    view.set_breakdown(BREAKDOWN)
    risks = view.model.index(2, 0)
    with qtbot.waitSignal(view.breakdown_edited) as blocker:
        view.model.setData(view.model.index(1, COL_ANSWERED, risks), " 2.3 ")
    new: Breakdown = blocker.args[0]
    assert new.risks[1].answered_in == "2.3" and new.risks[0].answered_in is None
    assert BREAKDOWN.risks[1].answered_in is None  # the caller's value is untouched
    assert view.unanswered_count() == 1 and "1 条" in view.warning_label.text()


def test_clicking_an_item_requests_its_page(qtbot: Any) -> None:
    view = BreakdownView()
    qtbot.addWidget(view)
    view.set_breakdown(BREAKDOWN)
    tasks = view.model.index(1, 0)
    with qtbot.waitSignal(view.page_requested) as blocker:
        view.tree.clicked.emit(view.model.index(0, COL_TEXT, tasks))
    assert blocker.args == [13]
    with qtbot.assertNotEmitted(view.page_requested):
        view.tree.clicked.emit(view.model.index(1, COL_TEXT, tasks))  # no page
