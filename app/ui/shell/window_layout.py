"""Building and sizing the main window: the outline area, the docks, a layout that fits the screen.

A mixin of :class:`~app.ui.shell.main_window.MainWindow`. On a first start the window takes the
screen's size (a 1366×768 laptop included) and shares the width between the tender and the
outline; afterwards the layout the user left is restored from ``window.ini`` beside
``settings.json``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QRect, QSettings, Qt, QTimer
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.ui.outline.view import OutlineView
from app.ui.project.session_view import EMPTY_HINT
from app.ui.run.log_pane import LogPane, LogTableModel
from app.ui.tender.analysis_view import AnalysisView
from app.ui.tender.document_placeholder import make_document_pane

#: Height left free for a window manager's title bar on a first start on a short screen.
FRAME_ALLOWANCE = 32

if TYPE_CHECKING:
    from app.ui.run.controller import AppController

    _Base = QMainWindow
else:
    _Base = object


class WindowLayoutMixin(_Base):
    """The window's widgets and their sizes (the window provides the attributes declared below)."""

    if TYPE_CHECKING:
        controller: AppController
        qsettings: QSettings
        _layout_restored: bool

        def start_generation(self, mode: str | None = None) -> None: ...
        def open_settings(self) -> None: ...

    def _build_central(self) -> None:
        c = self.controller
        self.outline_view = OutlineView(c.model, c.undo_stack)
        self.outline_view.setObjectName("outlineView")
        self.mode_box = QComboBox()
        self.mode_box.addItem("自由生成", "free")
        self.mode_box.addItem("一一对应评分项", "aligned")
        self.mode_box.setToolTip("一一对应：每个技术评分项成为一个一级章节（章节由程序按评分项建立并锁定）")
        self.guidance = QLineEdit()
        self.guidance.setPlaceholderText("补充要求（可选），如：突出本地化服务团队、重视食品安全")
        self.generate_button = QPushButton("生成目录")
        self.generate_button.setObjectName("generateButton")
        # clicked(bool) must not reach start_generation's mode argument (False -> "free")
        self.generate_button.clicked.connect(lambda _checked=False: self.start_generation(None))
        self.score_label = QLabel()
        self.score_label.setObjectName("scoreSummary")
        self.score_label.setToolTip("评分表中读到的技术评分项、技术部分小计和全部评分项的总分")
        self.score_label.setStyleSheet("color:#34495e;padding:2px;")
        self.score_label.setVisible(False)
        bar = QHBoxLayout()
        bar.addWidget(QLabel("模式："))
        bar.addWidget(self.mode_box)
        bar.addWidget(self.guidance, 1)
        bar.addWidget(self.generate_button)
        self.guide = QLabel()
        self.guide.setObjectName("firstRunGuide")
        self.guide.setWordWrap(True)
        self.guide.setTextFormat(Qt.TextFormat.RichText)
        self.guide.setStyleSheet("QLabel{background:#fff8e1;border:1px solid #f0d58a;border-radius:4px;padding:6px;}")
        self.guide.linkActivated.connect(lambda _link: self.open_settings())
        self.sample_note = QLabel("这是示例项目：技术评分项由程序从示例招标文件的评分表中读取，目录由程序按评分项和标题库建立，"
                                  "没有使用模型。可以直接编辑、撰写和导出 Word；配置模型后点“生成目录”可由模型重新生成。")
        self.sample_note.setObjectName("sampleNote")
        self.sample_note.setWordWrap(True)
        self.sample_note.setStyleSheet("QLabel{background:#e8f4fd;border:1px solid #9cc9ee;border-radius:4px;padding:6px;}")
        self.sample_note.setVisible(False)
        self.empty_hint = QLabel(EMPTY_HINT)
        self.empty_hint.setStyleSheet("color:#666;padding:2px;")
        self.empty_hint.setWordWrap(True)
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(6, 6, 6, 0)
        layout.addWidget(self.guide)
        layout.addWidget(self.sample_note)
        layout.addLayout(bar)
        self.words_label = QLabel()
        self.words_label.setObjectName("wordCount")
        self.words_label.setStyleSheet("color:#34495e;padding:2px;")
        self.words_label.setToolTip("全部小节正文的字数（不含空白）；各章字数见目录中章标题的提示")
        info = QHBoxLayout()
        info.addWidget(self.score_label)
        info.addStretch(1)
        info.addWidget(self.words_label)
        layout.addLayout(info)
        layout.addWidget(self.empty_hint)  # its own line: it never squeezes the score summary
        from app.ui.outline.search_bar import OutlineSearchBar

        self.search_bar = OutlineSearchBar(self.outline_view)
        layout.addWidget(self.search_bar)
        layout.addWidget(self.outline_view, 1)
        self.setCentralWidget(central)

    def _dock(self, title: str, name: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                         | QDockWidget.DockWidgetFeature.DockWidgetClosable)
        self.addDockWidget(area, dock)
        return dock

    def _build_docks(self) -> None:
        self.document_pane = make_document_pane(self)
        self.analysis_view = AnalysisView()
        self.log_model = LogTableModel(parent=self)
        self.log_pane = LogPane(self.log_model)
        self.document_dock = self._dock("招标文件", "documentDock", self.document_pane, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.analysis_dock = self._dock("招标分析", "analysisDock", self.analysis_view, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.tabifyDockWidget(self.document_dock, self.analysis_dock)
        from app.ui.tender.breakdown_view import BreakdownView

        self.breakdown_view = BreakdownView()
        self.breakdown_dock = self._dock("需求拆解", "breakdownDock", self.breakdown_view,
                                         Qt.DockWidgetArea.LeftDockWidgetArea)
        self.tabifyDockWidget(self.analysis_dock, self.breakdown_dock)
        self.document_dock.raise_()
        from app.ui.outline.section_editor import SectionEditor

        self.section_editor = SectionEditor()
        self.section_dock = self._dock("正文", "sectionDock", self.section_editor, Qt.DockWidgetArea.RightDockWidgetArea)
        # on show from the start: the selected section's text is where a writer types (视图 → 正文 hides it)
        from app.ui.outline.heading_library_view import HeadingLibraryPanel

        self.library_panel = HeadingLibraryPanel()
        self.library_dock = self._dock("标题库", "libraryDock", self.library_panel, Qt.DockWidgetArea.RightDockWidgetArea)
        self.library_dock.hide()  # 视图 → 标题库
        self.log_dock = self._dock("生成日志", "logDock", self.log_pane, Qt.DockWidgetArea.BottomDockWidgetArea)

    def _fit_to_screen(self, available: QRect | None = None) -> None:
        """A first-start size that fits ``available`` (the screen's free area; a 1366×768 laptop included).

        The window frame is not known before the window is shown: a title bar's worth is left
        free here, and :meth:`_keep_on_screen` corrects the rest once it is.
        """
        screen = available or (self.screen().availableGeometry() if self.screen() is not None else None)
        self._fit_area = screen
        width, height = 1440, 900
        if screen is not None and screen.width() > 0:
            width = min(width, screen.width())
            height = min(height, screen.height() - (FRAME_ALLOWANCE if screen.height() < height + 60 else 0))
        self.resize(width, height)

    def _keep_on_screen(self) -> None:
        """Shrink and move the shown window so its frame (title bar, status bar) is on the screen."""
        free = getattr(self, "_fit_area", None)
        if not isinstance(free, QRect) or free.isEmpty():
            return
        frame = self.frameGeometry()
        if free.contains(frame):
            return
        extra_w, extra_h = frame.width() - self.width(), frame.height() - self.height()
        self.resize(max(self.minimumWidth(), min(self.width(), free.width() - extra_w)),
                    max(self.minimumHeight(), min(self.height(), free.height() - extra_h)))
        self.move(max(free.left(), min(frame.left(), free.right() - self.frameGeometry().width() + 1)),
                  max(free.top(), min(frame.top(), free.bottom() - self.frameGeometry().height() + 1)))

    def apply_default_sizes(self) -> None:
        """The first-start shares: the tender at two fifths, outline and text side by side, a short log."""
        side = max(320, min(560, self.width() * 2 // 5))
        rest = self.width() - side
        docks, widths = [self.document_dock], [side]
        if self.section_dock.isVisible() and not self.section_dock.isFloating():
            docks.append(self.section_dock)
            widths.append(max(280, min(460, rest * 9 // 20)))
        self.resizeDocks(docks, widths, Qt.Orientation.Horizontal)
        self.resizeDocks([self.log_dock], [max(90, min(170, self.height() // 7))], Qt.Orientation.Vertical)

    def reset_layout(self) -> None:
        """视图 → 重置布局: every dock back where a first start puts it, at the first-start sizes."""
        default = getattr(self, "_default_state", None)
        for dock in (self.document_dock, self.analysis_dock, self.breakdown_dock, self.section_dock, self.log_dock):
            dock.setFloating(False)
            dock.show()
        self.library_dock.hide()
        if isinstance(default, QByteArray):
            self.restoreState(default)
        self.document_dock.raise_()
        self.apply_default_sizes()

    def _restore_layout(self) -> bool:
        """The layout the user left; False on a first start (then :meth:`showEvent` sizes the docks)."""
        geometry = self.qsettings.value("window/geometry")
        state = self.qsettings.value("window/state")
        if isinstance(geometry, QByteArray | bytes):
            self.restoreGeometry(QByteArray(geometry))
        if isinstance(state, QByteArray | bytes):
            return bool(self.restoreState(QByteArray(state)))
        return False

    def showEvent(self, event: QShowEvent) -> None:
        """Qt override: on a first start, share the width between the tender and the outline."""
        super().showEvent(event)
        if not self._layout_restored:
            self._layout_restored = True
            self.apply_default_sizes()
            QTimer.singleShot(0, self._keep_on_screen)


def window_settings() -> QSettings:
    """Window layout and dialog choices, beside settings.json (``BIDSTUDIO_CONFIG_DIR`` moves both)."""
    from app.core.settings_model import config_dir

    return QSettings(str(config_dir() / "window.ini"), QSettings.Format.IniFormat)
