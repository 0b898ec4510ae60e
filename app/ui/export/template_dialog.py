"""The Word-template row of the export dialog and the heading-style mapping dialog.

Choosing a template reads it once (Qt-free :mod:`app.export.template`), in a worker thread so a
large or hostile file never freezes the window: a file that is not a Word template (or a zip bomb)
is refused in Chinese; when its heading styles are not named as usual (Heading 1 / 标题 1 …), the
mapping dialog opens so the user picks, per outline level, which of the template's paragraph
styles to use.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.export.options import ExportError
from app.export.template import LEVELS, detect_heading_styles, load_template, paragraph_style_names
from app.ui.run.connection_check import BackgroundCoroutine
from app.ui.widgets.file_dialogs import remember_folder, start_folder

_LEVEL_ZH = ("一级标题", "二级标题", "三级标题", "四级标题")


class HeadingMapDialog(QDialog):
    """One combo box per outline level listing the template's paragraph styles."""

    def __init__(self, styles: list[str], current: list[str | None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("标题样式对应")
        self.combos: list[QComboBox] = []
        form = QFormLayout()
        for level in range(LEVELS):
            combo = QComboBox()
            combo.addItem("（未选择）", "")
            for name in styles:
                combo.addItem(name, name)
            pick = current[level] if level < len(current) else None
            combo.setCurrentIndex(max(0, combo.findData(pick or "")))
            form.addRow(f"{_LEVEL_ZH[level]}：", combo)
            self.combos.append(combo)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("确定")
        buttons.button(QDialogButtonBox.StandardButton.Cancel).setText("取消")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.buttons = buttons
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("目录的各级标题使用模板中的哪个样式："))
        layout.addLayout(form)
        layout.addWidget(buttons)

    def mapping(self) -> list[str | None]:
        """The chosen style per level (None where nothing was chosen)."""
        return [str(c.currentData()) or None for c in self.combos]


@dataclass(frozen=True)
class TemplateReading:
    """What reading a template found: its paragraph styles and detected headings, or the error."""

    path: str
    styles: list[str]
    headings: list[str | None]
    error: str = ""


async def read_template(path: str) -> TemplateReading:
    """Read ``path`` (in the worker thread: blocking here is fine) into a :class:`TemplateReading`."""
    try:
        doc = load_template(path)
        return TemplateReading(path, paragraph_style_names(doc), list(detect_heading_styles(doc)))
    except ExportError as exc:
        return TemplateReading(path, [], [], exc.message_zh)
    except Exception as exc:  # a template python-docx trips over: said in Chinese, never a silent nothing
        return TemplateReading(path, [], [], f"无法读取 Word 模板“{Path(path).name}”（{type(exc).__name__}）")


class TemplateRow(QWidget):
    """Path field, 选择…/不用模板/标题样式… buttons and a status line.

    Signals:
        changed(): the template or its heading mapping changed.
        loaded(bool): a template chosen with :meth:`set_template` was read (True) or refused (False).
    """

    changed = Signal()
    loaded = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.path_edit = QLineEdit()
        self.path_edit.setReadOnly(True)
        self.path_edit.setPlaceholderText("不用模板（按上面的样式预设排版）")
        self.choose_button = QPushButton("选择…")
        self.clear_button = QPushButton("不用模板")
        self.map_button = QPushButton("标题样式…")
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.status.setObjectName("templateStatus")
        self.headings: list[str | None] = []
        self._styles: list[str] = []
        self.map_dialog: HeadingMapDialog | None = None
        self._reader = BackgroundCoroutine(self)
        self._reader.finished.connect(self._on_read)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        for w in (self.path_edit, self.choose_button, self.clear_button, self.map_button):
            row.addWidget(w)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.status)
        self.choose_button.clicked.connect(self._on_choose)
        self.clear_button.clicked.connect(lambda: self.set_template(None))
        self.map_button.clicked.connect(self.open_mapping)
        self._update()

    def path(self) -> str | None:
        """The chosen template file, or None."""
        return self.path_edit.text() or None

    def heading_names(self) -> tuple[str, ...] | None:
        """The mapping for :class:`~app.export.options.ExportOptions` (None: detect at export)."""
        if not self.path() or not any(self.headings):
            return None
        return tuple(h or "" for h in self.headings)

    def set_template(self, path: str | None) -> bool:
        """Use ``path`` (None: no template). The file is read in a worker thread; :attr:`loaded` says how
        it went (a Chinese status when it cannot be used). False when a reading is already under way."""
        if not path:
            self._reader.shutdown()
            self.path_edit.clear()
            self.headings, self._styles = [], []
            self._update()
            self.changed.emit()
            return True
        if not self._reader.start(lambda: read_template(str(path)), name="bidstudio-read-template"):
            return False
        self.choose_button.setEnabled(False)
        self.status.setStyleSheet("color:#666;")
        self.status.setText(f"正在读取模板“{Path(path).name}”……")
        self.changed.emit()  # OK waits while the template is read
        return True

    @property
    def busy(self) -> bool:
        """Whether a template is being read."""
        return self._reader.is_running()

    def shutdown(self) -> None:
        """Stop waiting for a reading (the dialog closes); the worker is joined."""
        self._reader.shutdown()

    def _on_read(self, reading: object) -> None:
        self.choose_button.setEnabled(True)
        if not isinstance(reading, TemplateReading):  # cancelled
            self._update()
            return
        if reading.error:
            self.status.setText(reading.error)
            self.status.setStyleSheet("color:#b00020;")
            self.changed.emit()
            self.loaded.emit(False)
            return
        self.path_edit.setText(str(Path(reading.path)))
        self._styles = reading.styles
        self.headings = reading.headings
        self._update()
        self.changed.emit()
        self.loaded.emit(True)
        if not all(self.headings[:3]):
            self.open_mapping()

    def open_mapping(self) -> HeadingMapDialog | None:
        """Open the mapping dialog (non-modal); 确定 stores the choice."""
        if not self.path():
            return None
        dialog = HeadingMapDialog(self._styles, self.headings, self)
        self.map_dialog = dialog

        def done(result: int) -> None:
            if result == QDialog.DialogCode.Accepted:
                self.headings = dialog.mapping()
                self._update()
                self.changed.emit()

        dialog.finished.connect(done)
        dialog.open()
        return dialog

    def missing_levels(self) -> list[int]:
        """Levels 1–3 with no style while a template is chosen."""
        return [i + 1 for i in range(3) if self.path() and not (i < len(self.headings) and self.headings[i])]

    def _on_choose(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "选择 Word 模板", start_folder(self), "Word 模板 (*.dotx *.docx)")
        if path:
            remember_folder(self, path)
            self.set_template(path)

    def _update(self) -> None:
        on = bool(self.path())
        self.clear_button.setEnabled(on)
        self.map_button.setEnabled(on)
        self.status.setStyleSheet("color:#666;")
        if not on:
            self.status.setText("")
            return
        missing = self.missing_levels()
        if missing:
            self.status.setText("请点“标题样式…”为第 " + "、".join(map(str, missing)) + " 级标题选择模板样式")
            self.status.setStyleSheet("color:#b00020;")
        else:
            shown = " / ".join(h or "—" for h in self.headings[:3])
            self.status.setText(f"使用模板的样式、页面设置、页眉页脚和封面；标题：{shown}")
