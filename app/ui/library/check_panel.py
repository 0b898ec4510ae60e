"""The 查重 dock: check this bid against the library and another bidder's file; jump to a hit; export .xlsx."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.outline import Outline
from app.documents.errors import DocumentError
from app.library.checks import (
    Finding,
    compare_with_bid,
    copied_passages,
    expired_certificates_used,
    outline_sections,
    stale_names,
)
from app.library.report import write_findings_xlsx
from app.library.store import LibraryError, LibraryStore
from app.ui.library.background import guarded
from app.ui.widgets.file_dialogs import open_file_dialog


class CheckPanel(QWidget):
    """Runs the checks and lists the findings; double-click jumps to the heading.

    Signals:
        jump_requested(object, str): the outline path of a finding the user double-clicked, and what
            was found there (the window marks it in the section's text).
    """

    jump_requested = Signal(object, str)

    #: Set by the window: told of every library failure (it shows the banner and reconnects).
    on_library_error: Callable[[LibraryError], None] | None = None

    def library_failed(self, error: LibraryError) -> None:
        """Say why the library cannot answer (the window's banner says it too)."""
        self.summary.setText(error.message_zh)
        if self.on_library_error is not None:
            self.on_library_error(error)

    def __init__(self, outline: Callable[[], Outline], store: Callable[[], LibraryStore | None],
                 own_names: Callable[[], list[str]], parent: QWidget | None = None,
                 tender_text: Callable[[], str] | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("checkPanel")
        self._outline, self._store, self._own = outline, store, own_names
        self._tender_text = tender_text
        self.findings: list[Finding] = []
        self.check_button = QPushButton("对照资料库查重")
        self.check_button.setObjectName("checkLibrary")
        self.check_button.clicked.connect(self.check_library)
        self.compare_button = QPushButton("与其他投标文件对比…")
        self.compare_button.clicked.connect(self._on_compare)
        self.export_button = QPushButton("导出 Excel…")
        self.export_button.setObjectName("checkExport")
        self.export_button.clicked.connect(self._on_export)
        self.summary = QLabel("尚未查重")
        self.summary.setWordWrap(True)
        self.table = QTableWidget(0, 5)
        self.table.setObjectName("checkTable")
        self.table.setHorizontalHeaderLabels(["类别", "内容", "位置", "来源", "说明"])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.cellDoubleClicked.connect(self._on_double_clicked)
        row = QHBoxLayout()
        for b in (self.check_button, self.compare_button, self.export_button):
            row.addWidget(b)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 1)

    @guarded([])
    def check_library(self) -> list[Finding]:
        """Names from other projects first (废标 risk), then passages copied from past bids."""
        store = self._store()
        if store is None:
            self.summary.setText("资料库暂时无法使用（原因见上方提示），连接恢复后即可查重")
            return []
        sections = outline_sections(self._outline())
        found = (stale_names(sections, store, self._own()) + expired_certificates_used(sections, store)
                 + copied_passages(sections, store))
        self._show(found, "对照资料库")
        return found

    @guarded([])
    def compare_file(self, path: Path) -> list[Finding]:
        """Compare this bid with another bidder's file (shared sentences, same properties, same people)."""
        from app.documents.outlines.bid_reader import read_bid

        try:
            other = read_bid(path)
        except DocumentError as exc:
            self.summary.setText(f"无法读取对比文件：{exc.message_zh}")
            return []
        found = compare_with_bid(outline_sections(self._outline()), other,
                                 tender=self._tender_text() if self._tender_text is not None else "", store=self._store())
        self._show(found, f"与“{path.name}”对比")
        return found

    def export(self, path: Path) -> Path | None:
        """Write the listed findings as .xlsx; a Chinese message when the file cannot be written."""
        try:
            written = write_findings_xlsx(self.findings, path)
        except OSError as exc:
            self.summary.setText(f"导出失败：{exc.strerror or exc}")
            return None
        self.summary.setText(f"已导出 {len(self.findings)} 条结果到 {written}")
        return written

    def clear(self) -> None:
        """No results (another project is shown)."""
        self.findings = []
        self.table.setRowCount(0)
        self.summary.setText("尚未查重")

    def _show(self, found: list[Finding], what: str) -> None:
        self.findings = found
        self.table.setRowCount(len(found))
        for r, f in enumerate(found):
            for c, v in enumerate((f.label, f.text, f.where, f.source, f.detail)):
                self.table.setItem(r, c, QTableWidgetItem(v))
        stale = sum(1 for f in found if f.kind == "stale_name")
        self.summary.setText(f"{what}：发现 {len(found)} 处" + (f"，其中 {stale} 处为其他项目的名称，请务必修改" if stale else "")
                             if found else f"{what}：未发现问题")

    def _on_double_clicked(self, row: int, _col: int) -> None:
        if 0 <= row < len(self.findings) and self.findings[row].path is not None:
            self.jump_requested.emit(self.findings[row].path, self.findings[row].text)

    def _on_compare(self) -> None:
        open_file_dialog(self, "选择其他投标人的文件", "投标文件 (*.docx *.pdf)",
                         lambda files: self.compare_file(Path(files[0])))

    def _on_export(self) -> None:
        open_file_dialog(self, "导出查重结果", "Excel 文件 (*.xlsx)", lambda files: self.export(Path(files[0])),
                         mode="save", name="查重结果.xlsx")
