"""The 导出 Word dialog: preset, numbering, cover fields, chapters, response tables and layout.

The dialog only collects choices (:class:`ExportChoices`, the export layer's own
``ExportMeta`` and ``ExportOptions``); the window awaits it through
:func:`app.ui.widgets.async_dialog.run_dialog` and then writes the file. The last choices are kept
in ``QSettings`` (group ``export/``) so the next export starts from them; the date and the
chapter selection are not remembered (a stale date on a bid, or a chapter silently left
out, is worse than choosing again). The 评分索引表 is on by default in one-to-one mode,
the 技术偏离表 whenever ★/▲ clauses were found. ★/▲ clauses no section answers and
technical scoring items no section answers (未响应) are listed in red. The layout pass is
offered when LibreOffice is installed; otherwise the dialog says page numbers appear once
fields are updated in Word/WPS.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QDate, QSettings, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDateEdit,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)
from typing_extensions import override

from app.core.analysis import points_label
from app.export import BIDDER_PLACEHOLDER, PRESETS, ExportMeta, ExportOptions, NumberingScheme
from app.ui.export.template_dialog import TemplateRow

if TYPE_CHECKING:
    from app.core.analysis import ScoringGroup
    from app.core.breakdown import RiskItem
    from app.core.outline import OutlineNode

#: Numbering schemes as the combo box lists them.
NUMBERING_LABELS: dict[str, str] = {
    "chapter": "第一章 / 1.1 / 1.1.1",
    "chinese": "一、/（一）/ 1.",
    "none": "不编号",
}
SETTINGS_GROUP = "export"
#: How many unanswered clauses the warning lists before "……等 N 条".
SHOWN_CLAUSES = 5


@dataclass(frozen=True)
class ExportChoices:
    """What the user chose: the cover/header metadata and the writer options."""

    meta: ExportMeta
    options: ExportOptions


def _setting(qs: QSettings, key: str, default: Any) -> Any:
    """A value of the ``export/`` group, converted to the type of ``default``."""
    value = qs.value(f"{SETTINGS_GROUP}/{key}", default)
    if isinstance(default, bool):
        if isinstance(value, str):
            return value.strip().lower() in ("true", "1", "yes")
        return bool(value)
    return str(value) if value is not None else default


def unanswered_items_text(items: Sequence[ScoringGroup]) -> str:
    """The Chinese warning for technical scoring items no section answers ("" when none)."""
    if not items:
        return ""
    lines = [f"有 {len(items)} 个技术评分项未响应（没有对应章节，可在“评分索引与偏离表”中选择响应章节）："]
    for g in items[:SHOWN_CLAUSES]:
        points = f"（{points_label(g)}{'' if g.weighted else '分'}）" if g.points is not None else ""
        lines.append(f"· {g.id} {g.title}{points}")
    if len(items) > SHOWN_CLAUSES:
        lines.append(f"……等共 {len(items)} 项")
    return "\n".join(lines)


def split_aliases(text: str) -> tuple[str, ...]:
    """Short names typed as "恒信、HX；恒信配送" -> ("恒信", "HX", "恒信配送")."""
    parts = [p.strip() for p in re.split(r"[、，,；;\s]+", text) if p.strip()]
    return tuple(dict.fromkeys(parts))


def unanswered_text(clauses: Sequence[RiskItem]) -> str:
    """The Chinese warning for ★/▲ clauses nobody answers ("" when there are none)."""
    if not clauses:
        return ""
    lines = [f"有 {len(clauses)} 条 ★/▲ 实质性条款尚未标注由哪一节响应（可在“需求拆解”中填写“已响应章节”）："]
    for r in clauses[:SHOWN_CLAUSES]:
        page = f"（第{r.page}页）" if r.page else ""
        text = r.text if len(r.text) <= 60 else r.text[:60] + "……"
        lines.append(f"· {r.mark or ''} {text}{page}")
    if len(clauses) > SHOWN_CLAUSES:
        lines.append(f"……等共 {len(clauses)} 条")
    return "\n".join(lines)


class ExportDialog(QDialog):
    """Choices for one Word export; ``choices()`` after it was accepted.

    Signals: none besides QDialog's ``finished``/``accepted``.
    """

    def __init__(self, chapters: Sequence[OutlineNode], project_name: str, qsettings: QSettings, *,
                 unanswered: Sequence[RiskItem] = (), unanswered_items: Sequence[ScoringGroup] = (),
                 index_items: int = 0, clause_count: int = 0, one_to_one: bool = False,
                 layout_available: bool | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("exportDialog")
        self.setWindowTitle("导出 Word")
        self.qsettings = qsettings
        self.unanswered = list(unanswered)
        self.unanswered_items = list(unanswered_items)
        self.index_items = index_items
        self.clause_count = clause_count
        self.one_to_one = one_to_one
        if layout_available is None:
            from app.export.layout_pass import find_soffice

            layout_available = find_soffice() is not None
        self.layout_available = layout_available
        self._build(chapters, project_name)
        self._load()
        self._on_preset_changed()
        self._update_ok()
        self._update_warning()
        self._fit_size()

    # ------------------------------------------------------------------ building
    def _build(self, chapters: Sequence[OutlineNode], project_name: str) -> None:
        self.preset_box = QComboBox()
        for name, preset in PRESETS.items():
            self.preset_box.addItem(name, name)
            self.preset_box.setItemData(self.preset_box.count() - 1, "；".join(preset.notes) or name,
                                        Qt.ItemDataRole.ToolTipRole)
        self.preset_note = QLabel()
        self.preset_note.setWordWrap(True)
        self.preset_note.setStyleSheet("color:#666;")
        self.template_row = TemplateRow()
        self.template_row.setObjectName("templateRow")
        self.template_row.changed.connect(self._update_ok)
        self.numbering_box = QComboBox()
        for scheme, label in NUMBERING_LABELS.items():
            self.numbering_box.addItem(label, scheme)
        self.project_edit = QLineEdit(project_name)
        self.project_edit.setPlaceholderText("封面和页眉上的项目名称")
        self.bidder_edit = QLineEdit()
        self.bidder_edit.setPlaceholderText("投标人名称（留空则封面显示“【投标人名称】”）")
        self.date_edit = QDateEdit(QDate.currentDate())
        self.date_edit.setCalendarPopup(True)
        self.date_edit.setDisplayFormat("yyyy年M月d日")
        self.descriptions_check = QCheckBox("包含各节的写作说明（灰色提示文字）")
        self.page_break_check = QCheckBox("每个一级章节从新页开始")
        self.cover_check = QCheckBox("封面")
        self.toc_check = QCheckBox("目录页")
        self.index_check = QCheckBox("评分索引表")
        self.index_check.setObjectName("indexTableCheck")
        self.index_check.setToolTip("每个评分项对应的章节和页码，方便评委逐项打分")
        self.deviation_check = QCheckBox("技术偏离表")
        self.deviation_check.setObjectName("deviationTableCheck")
        self.deviation_check.setToolTip("逐条列出 ★/▲ 条款、投标响应和偏离情况")
        self.review_check = QCheckBox("自评表")
        self.review_check.setObjectName("reviewTableCheck")
        self.review_check.setToolTip("评审模拟的自评表（各评分要点的响应情况和预计得分）附在正文之后；供内部核对，正式递交前请确认是否需要")
        self.layout_check = QCheckBox("用 LibreOffice 排版，写入目录和索引表的页码")
        self.layout_check.setObjectName("layoutCheck")
        self.layout_note = QLabel()
        self.layout_note.setWordWrap(True)
        self.layout_note.setStyleSheet("color:#666;")
        self.aliases_edit = QLineEdit()
        self.aliases_edit.setObjectName("aliasesEdit")
        self.aliases_edit.setPlaceholderText("投标人的简称或其他称呼，用“、”分隔（暗标检查时一并查找）")
        self.chapter_list = QListWidget()
        self.chapter_list.setObjectName("exportChapters")
        for i, chapter in enumerate(chapters):
            item = QListWidgetItem(f"{i + 1}. {chapter.title}")
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked)
            self.chapter_list.addItem(item)
        self.chapter_list.itemChanged.connect(lambda _item: self._update_ok())
        all_button = QPushButton("全选")
        none_button = QPushButton("全不选")
        all_button.clicked.connect(lambda: self.set_all_chapters(True))
        none_button.clicked.connect(lambda: self.set_all_chapters(False))
        self.warning_label = QLabel()
        self.warning_label.setObjectName("exportWarning")
        self.warning_label.setWordWrap(True)
        self.warning_label.setStyleSheet("color:#b00020;")
        self.selection_hint = QLabel("请至少选择一章。")
        self.selection_hint.setStyleSheet("color:#b00020;")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText("导出…")
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setText("取消")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.preset_box.currentIndexChanged.connect(self._on_preset_changed)
        self.index_check.toggled.connect(lambda _on: self._update_warning())
        self.deviation_check.toggled.connect(lambda _on: self._update_warning())

        form = QFormLayout()
        form.addRow("样式：", self.preset_box)
        form.addRow("", self.preset_note)
        form.addRow("Word 模板：", self.template_row)
        form.addRow("标题编号：", self.numbering_box)
        form.addRow("项目名称：", self.project_edit)
        form.addRow("投标人：", self.bidder_edit)
        form.addRow("简称：", self.aliases_edit)
        form.addRow("日期：", self.date_edit)
        parts = QHBoxLayout()
        for w in (self.cover_check, self.toc_check, self.index_check, self.deviation_check, self.review_check):
            parts.addWidget(w)
        parts.addStretch(1)
        form.addRow("包含：", parts)
        form.addRow("", self.descriptions_check)
        form.addRow("", self.page_break_check)
        form.addRow("页码：", self.layout_check)
        form.addRow("", self.layout_note)
        chooser = QHBoxLayout()
        chooser.addWidget(all_button)
        chooser.addWidget(none_button)
        chooser.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(QLabel("导出的章节："))
        layout.addWidget(self.chapter_list, 1)
        layout.addLayout(chooser)
        layout.addWidget(self.selection_hint)
        layout.addWidget(self.warning_label)
        layout.addWidget(self.buttons)

    def _fit_size(self) -> None:
        """At least six chapters on show and the whole warning, within the screen (a 768-pixel laptop too)."""
        rows = min(6, max(3, self.chapter_list.count()))
        row = max(self.chapter_list.sizeHintForRow(0), self.fontMetrics().height() + 2)
        self.chapter_list.setMinimumHeight(rows * row + 2 * self.chapter_list.frameWidth() + 4)
        parent = self.parentWidget()
        screen = parent.screen() if parent is not None else self.screen()
        available = screen.availableGeometry().height() if screen is not None else 900
        hint = self.sizeHint()
        self.resize(max(520, hint.width()), max(min(600, available - 40), min(hint.height(), available - 40)))

    # ------------------------------------------------------------------ remembered choices
    def _load(self) -> None:
        qs = self.qsettings
        self.preset_box.setCurrentIndex(max(0, self.preset_box.findData(_setting(qs, "preset", "标准投标版"))))
        self.numbering_box.setCurrentIndex(max(0, self.numbering_box.findData(_setting(qs, "numbering", "chapter"))))
        self.bidder_edit.setText(_setting(qs, "bidder", ""))
        self.descriptions_check.setChecked(_setting(qs, "include_descriptions", False))
        self.page_break_check.setChecked(_setting(qs, "page_break", True))
        self.cover_check.setChecked(_setting(qs, "include_cover", True))
        self.toc_check.setChecked(_setting(qs, "include_toc", True))
        self.aliases_edit.setText(_setting(qs, "aliases", ""))
        template = _setting(qs, "template", "")
        if template and Path(template).is_file():
            self.template_row.set_template(template)
        # On by default where they help: the index in one-to-one mode, the deviations when ★/▲ exist.
        self.index_check.setChecked(self.index_items > 0 and _setting(qs, self._index_key(), self.one_to_one))
        self.index_check.setEnabled(self.index_items > 0)
        if not self.index_items:
            self.index_check.setToolTip("没有评分项：请先分析招标文件")
        self.deviation_check.setChecked(self.clause_count > 0 and _setting(qs, "deviation_table", True))
        self.deviation_check.setEnabled(self.clause_count > 0)
        self.review_check.setEnabled(self.index_items > 0)
        self.review_check.setChecked(self.index_items > 0 and _setting(qs, "review_table", False))
        if not self.clause_count:
            self.deviation_check.setToolTip("没有 ★/▲ 条款：请先运行需求拆解")
        self.layout_check.setEnabled(self.layout_available)
        self.layout_check.setChecked(self.layout_available and _setting(qs, "layout_pass", True))
        self.layout_note.setText(
            "导出时排版一次（约数秒），目录、评分索引表和偏离表的页码在 Word、WPS、LibreOffice 中打开即正确。"
            if self.layout_available else
            "未检测到 LibreOffice：页码以域保存，在 Word/WPS 中打开时选择更新域即可显示。安装 LibreOffice 后可自动写入页码。")

    def remember(self) -> None:
        """Store the current choices for the next export."""
        qs = self.qsettings
        for key, value in (("preset", self.preset_box.currentData()), ("numbering", self.numbering_box.currentData()),
                           ("bidder", self.bidder_edit.text().strip()),
                           ("include_descriptions", self.descriptions_check.isChecked()),
                           ("page_break", self.page_break_check.isChecked()),
                           ("include_cover", self.cover_check.isChecked()), ("include_toc", self.toc_check.isChecked()),
                           ("aliases", self.aliases_edit.text().strip()),
                           ("template", self.template_row.path() or "")):
            qs.setValue(f"{SETTINGS_GROUP}/{key}", value)
        # Table and layout choices are remembered only where the user could make them.
        if self.index_check.isEnabled():
            qs.setValue(f"{SETTINGS_GROUP}/{self._index_key()}", self.index_check.isChecked())
        if self.deviation_check.isEnabled():
            qs.setValue(f"{SETTINGS_GROUP}/deviation_table", self.deviation_check.isChecked())
        if self.review_check.isEnabled():
            qs.setValue(f"{SETTINGS_GROUP}/review_table", self.review_check.isChecked())
        if self.layout_check.isEnabled():
            qs.setValue(f"{SETTINGS_GROUP}/layout_pass", self.layout_check.isChecked())
        qs.sync()

    def _index_key(self) -> str:
        """The index choice is remembered per generation mode (on by default in one-to-one)."""
        return "index_table_aligned" if self.one_to_one else "index_table_free"

    # ------------------------------------------------------------------ state
    def warned_items(self) -> list[ScoringGroup]:
        """Unanswered technical items, when the index table is exported."""
        return self.unanswered_items if self.index_check.isChecked() else []

    def _update_warning(self) -> None:
        parts = [t for t in (unanswered_text(self.unanswered), unanswered_items_text(self.warned_items())) if t]
        self.warning_label.setText("\n".join(parts))
        self.warning_label.setVisible(bool(parts))

    def set_all_chapters(self, checked: bool) -> None:
        """Check or uncheck every chapter."""
        state = Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked
        for i in range(self.chapter_list.count()):
            self.chapter_list.item(i).setCheckState(state)

    def checked_chapters(self) -> tuple[int, ...]:
        """0-based indexes of the checked chapters."""
        return tuple(i for i in range(self.chapter_list.count())
                     if self.chapter_list.item(i).checkState() == Qt.CheckState.Checked)

    def _update_ok(self) -> None:
        any_checked = bool(self.checked_chapters())
        self.ok_button.setEnabled(any_checked and not self.template_row.busy and not self.template_row.missing_levels())
        self.selection_hint.setVisible(not any_checked)

    def _on_preset_changed(self, *_args: object) -> None:
        preset = PRESETS[str(self.preset_box.currentData())]
        note = "；".join(preset.notes)
        if preset.anonymous:
            note += "。封面不显示投标人和日期；填写投标人名称（和简称）后，导出前会检查正文、封面、表格和文档属性中是否出现该名称或简称。"
        self.preset_note.setText(note)
        self.preset_note.setVisible(bool(note))
        self.date_edit.setEnabled(not preset.anonymous)
        self.aliases_edit.setEnabled(preset.anonymous)

    def choices(self) -> ExportChoices:
        """The choices as the export layer's values (all chapters: ``chapters=None``)."""
        checked = self.checked_chapters()
        chapters = None if len(checked) == self.chapter_list.count() else checked
        bidder = self.bidder_edit.text().strip()
        qdate = self.date_edit.date()
        anonymous = PRESETS[str(self.preset_box.currentData())].anonymous
        meta = ExportMeta(project_name=self.project_edit.text().strip(),
                          date=dt.date(qdate.year(), qdate.month(), qdate.day()),
                          bidder_name=bidder or BIDDER_PLACEHOLDER,
                          bidder_aliases=split_aliases(self.aliases_edit.text()) if anonymous else ())
        numbering: NumberingScheme = self.numbering_box.currentData()
        options = ExportOptions(preset=str(self.preset_box.currentData()), numbering=numbering,
                                include_descriptions=self.descriptions_check.isChecked(), chapters=chapters,
                                page_break_before_chapters=self.page_break_check.isChecked(),
                                include_cover=self.cover_check.isChecked(), include_toc=self.toc_check.isChecked(),
                                index_table=self.index_check.isChecked(),
                                deviation_table=self.deviation_check.isChecked(),
                                layout_pass=self.layout_check.isChecked(),
                                template=self.template_row.path(),
                                template_headings=self.template_row.heading_names(),
                                review_table=self.review_check.isEnabled() and self.review_check.isChecked())
        return ExportChoices(meta, options)

    @override
    def accept(self) -> None:
        """Qt override: remember the choices, then close as accepted."""
        if not self.checked_chapters() or self.template_row.busy:
            return
        self.remember()
        super().accept()

    @override
    def done(self, result: int) -> None:
        """Qt override: a template still being read is let go (its worker joined) before the dialog closes."""
        self.template_row.shutdown()
        super().done(result)
