"""企业资料 in the 资料库 dock: certificates, staff, references, equipment — from Excel or typed in.

A certificate past its 有效期 is shown in red and marked 已过期. New rows are typed into the
table and stored with 保存, as are changes typed over stored rows — unless someone else changed
that row since it was shown (an office library has many writers): then the change is refused
with a Chinese message and the latest content is shown. An .xlsx is read sheet by sheet
(sheets it does not understand are named, not silently dropped).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.library.facts import (
    COLUMNS,
    KIND_LABELS,
    KINDS,
    Fact,
    FactsImport,
    load_facts,
    read_facts_xlsx,
    remove_fact,
    save_facts,
    update_fact,
)
from app.library.store import FactConflict, LibraryError, LibraryStore
from app.ui.library.background import guarded
from app.ui.run.background import BackgroundCoroutine
from app.ui.widgets.file_dialogs import open_file_dialog, remember_folder, start_folder

_HEADERS = {kind: [aliases[0] for aliases in fields.values()] for kind, fields in COLUMNS.items()}
_EXPIRED = QBrush(QColor("#c0392b"))
_ID_ROLE = 256


async def _read_workbook(path: Path) -> FactsImport | str:
    """Read ``path`` (in the worker thread): the facts, or the Chinese reason it cannot be used."""
    try:
        return read_facts_xlsx(path)
    except ValueError as exc:
        return str(exc)
    except Exception as exc:  # a workbook openpyxl trips over: said in Chinese, never a silent nothing
        return f"无法读取 Excel 文件“{path.name}”（{type(exc).__name__}）"


class FactsPanel(QWidget):
    """One kind of company facts at a time, editable for new rows.

    Signals:
        imported(int): a workbook chosen with :meth:`import_xlsx` was read and stored (how many facts were added).
    """

    imported = Signal(int)

    #: Set by the window: told of every library failure (it shows the banner and reconnects).
    on_library_error: Callable[[LibraryError], None] | None = None

    def library_failed(self, error: LibraryError) -> None:
        """Say why the library cannot answer (the window's banner says it too)."""
        self.status.setText(error.message_zh)
        if self.on_library_error is not None:
            self.on_library_error(error)

    def __init__(self, store: Callable[[], LibraryStore | None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("factsPanel")
        self._store = store
        self._shown: dict[int, Fact] = {}  # the stored facts on show, as read (their versions)
        self.last_refused: list[str] = []  # the Chinese messages of edits refused by the last 保存
        self._reader = BackgroundCoroutine(self)
        self._reader.finished.connect(self._on_read)
        self._reading: Path | None = None
        self.kind_box = QComboBox()
        for kind in KINDS:
            self.kind_box.addItem(KIND_LABELS[kind], kind)
        self.kind_box.currentIndexChanged.connect(lambda _i: self.refresh())
        self.import_button = QPushButton("从 Excel 导入…")
        self.import_button.clicked.connect(self._on_import)
        self.add_button = QPushButton("添加一行")
        self.add_button.setObjectName("factsAdd")
        self.add_button.clicked.connect(self.add_row)
        self.save_button = QPushButton("保存")
        self.save_button.setObjectName("factsSave")
        self.save_button.clicked.connect(self.save_new_rows)
        self.template_button = QPushButton("下载模板…")
        self.template_button.setObjectName("factsTemplate")
        self.template_button.setToolTip("一个 Excel 模板：每类企业资料一张表，表头列出本程序读取的全部列（企业基本信息、证书、人员、业绩、设备、财务）")
        self.template_button.clicked.connect(self._on_template)
        self.remove_button = QPushButton("删除所选")
        self.remove_button.clicked.connect(self.remove_selected)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.table = QTableWidget(0, 0)
        self.table.setObjectName("factsTable")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        row = QHBoxLayout()
        for w in (self.kind_box, self.import_button, self.template_button, self.add_button, self.save_button,
                  self.remove_button):
            row.addWidget(w)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.status)
        layout.addWidget(self.table, 1)

    @property
    def kind(self) -> str:
        """The kind shown (certificate, staff, reference, equipment)."""
        return str(self.kind_box.currentData())

    @guarded(None)
    def refresh(self) -> None:
        """Show the stored facts of the current kind; expired certificates in red."""
        store = self._store()
        facts = load_facts(store, self.kind) if store is not None else []
        self._shown = {f.id: f for f in facts if f.id is not None}
        fields = list(COLUMNS[self.kind])
        headers = _HEADERS[self.kind] + (["状态"] if self.kind == "certificate" else [])
        self.table.setColumnCount(len(headers))
        self.table.setHorizontalHeaderLabels(headers)
        self.table.setRowCount(len(facts))
        expired = 0
        for r, f in enumerate(facts):
            late = f.expired()
            expired += late
            values = [f.data.get(k, "") for k in fields] + (["已过期" if late else "有效"] if self.kind == "certificate" else [])
            for c, v in enumerate(values):
                item = QTableWidgetItem(v)
                item.setData(_ID_ROLE, f.id)
                if late:
                    item.setForeground(_EXPIRED)
                    item.setToolTip("该证书已过有效期：投标时不能使用")
                self.table.setItem(r, c, item)
        label = KIND_LABELS[self.kind]
        self.status.setStyleSheet("")
        self.status.setText(f"{label}：{len(facts)} 条" + (f"，其中 {expired} 本已过有效期（红色）" if expired else ""))

    def add_row(self) -> None:
        """Append an empty row to type a new fact into (stored by 保存)."""
        r = self.table.rowCount()
        self.table.insertRow(r)
        for c in range(self.table.columnCount()):
            self.table.setItem(r, c, QTableWidgetItem(""))
        self.table.setCurrentCell(r, 0)

    @guarded(0)
    def save_new_rows(self) -> int:
        """Store the rows typed in (those without an id) and the changes made to stored rows; returns how many
        rows were added. A stored row someone else changed since it was shown is not written over: the
        status says so in Chinese and the table shows the latest content."""
        store = self._store()
        if store is None:
            return 0
        fields = list(COLUMNS[self.kind])
        new: list[Fact] = []
        edited: list[tuple[Fact, dict[str, str]]] = []
        for r in range(self.table.rowCount()):
            first = self.table.item(r, 0)
            if first is None:
                continue
            data = {k: (it.text().strip() if (it := self.table.item(r, c)) is not None else "") for c, k in enumerate(fields)}
            stored = self._shown.get(first.data(_ID_ROLE)) if first.data(_ID_ROLE) is not None else None
            if stored is not None:
                changed = {k: v for k, v in data.items() if stored.data.get(k, "") != v}
                if changed:
                    edited.append((stored, {**stored.data, **changed}))  # fields this table does not show are kept
            elif any(data.values()):
                new.append(Fact(self.kind, data, "手工录入"))
        added = save_facts(store, new)
        refused: list[str] = []
        for fact, data in edited:
            try:
                update_fact(store, fact, data)
            except FactConflict as exc:
                refused.append(exc.message_zh)
        self.refresh()
        if refused:
            self.status.setStyleSheet("color: #c62828")
            self.status.setText(f"{len(refused)} 条修改未保存：{refused[0]}")
        else:
            self.status.setStyleSheet("")
            if edited:
                self.status.setText(f"{self.status.text()}；已保存 {len(edited)} 条修改")
        self.last_refused = refused
        return added

    @guarded(0)
    def remove_selected(self) -> int:
        """Delete the selected stored facts."""
        store = self._store()
        if store is None:
            return 0
        ids = {int(i.data(_ID_ROLE)) for i in self.table.selectedItems() if i.data(_ID_ROLE) is not None}
        for fid in ids:
            remove_fact(store, fid)
        self.refresh()
        return len(ids)

    def import_xlsx(self, path: Path) -> bool:
        """Read an .xlsx into the library: the file is read in a worker thread (at most
        :data:`~app.library.xlsx_rows.MAX_SHEET_ROWS` rows a sheet, as a stream) and the facts are stored
        when it is done; :attr:`imported` then says how many were added. False when an import is running."""
        if self._store() is None:
            return False
        if not self._reader.start(lambda: _read_workbook(path), name="bidstudio-read-facts"):
            return False
        self.import_button.setEnabled(False)
        self.status.setStyleSheet("")
        self.status.setText(f"正在读取“{path.name}”……")
        self._reading = path
        return True

    @property
    def importing(self) -> bool:
        """Whether a workbook is being read."""
        return self._reader.is_running()

    def shutdown(self) -> None:
        """Stop waiting for a workbook being read (the window closes); the worker is joined."""
        self._reader.shutdown()

    def _on_read(self, result: object) -> None:
        self.import_button.setEnabled(True)
        path, self._reading = self._reading, None
        if isinstance(result, str):  # the Chinese reason the file cannot be used
            self.status.setStyleSheet("color: #c62828")
            self.status.setText(result)
            self.imported.emit(0)
            return
        if not isinstance(result, FactsImport) or path is None:  # cancelled
            self.status.setText("已取消导入")
            return
        self.imported.emit(self._store_read(path, result))

    @guarded(0)
    def _store_read(self, path: Path, got: FactsImport) -> int:
        store = self._store()
        if store is None:
            return 0
        added = save_facts(store, got.facts)
        kinds = sorted({f.kind for f in got.facts})
        if kinds:
            self.kind_box.setCurrentIndex(self.kind_box.findData(kinds[0]))
        self.refresh()
        shown = self.status.text()
        msg = f"已从“{path.name}”导入 {added} 条企业资料"
        if got.skipped:
            msg += f"；未识别的工作表：{'、'.join(got.skipped)}（需要含“证书名称/姓名/项目名称/设备名称”等列）"
        for note in got.notes:
            msg += f"；{note}"
        if got.notes:
            self.status.setStyleSheet("color: #b26a00")
        self.status.setText(f"{msg}。当前显示 {shown}")
        return added

    def write_template(self, path: Path) -> Path | None:
        """Write the .xlsx template naming every column; says where in the status line (or why not)."""
        from app.library.facts import write_facts_template

        target = path if path.suffix.lower() == ".xlsx" else path.with_suffix(".xlsx")
        try:
            written = write_facts_template(target)
        except OSError as exc:
            self.status.setText(f"无法写入模板“{target}”：{exc.strerror or exc}")
            return None
        self.status.setText(f"已保存企业资料模板“{written.name}”：按表头填写后用“从 Excel 导入…”读入。")
        return written

    def _on_template(self) -> None:
        """下载模板…: a save dialog (non-blocking) in the folder the user last chose a file in."""
        dialog = open_file_dialog(self, "保存企业资料模板", "Excel 文件 (*.xlsx)",
                                  lambda paths: self.write_template(Path(paths[0])), mode="save", name="企业资料模板.xlsx")
        dialog.setObjectName("factsTemplateDialog")

    def _on_import(self) -> None:
        """从 Excel 导入…: a file dialog (non-blocking) whose choice is read in the worker."""
        dialog = QFileDialog(self, "选择企业资料表格", start_folder(self), "Excel 文件 (*.xlsx)")
        dialog.setObjectName("factsImportDialog")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def chosen(path: str) -> None:
            remember_folder(self, path)
            self.import_xlsx(Path(path))

        dialog.fileSelected.connect(chosen)
        dialog.open()
