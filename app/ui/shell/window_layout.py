"""Building and sizing the main window: the outline area, the core panels and their stages, the screen.

A mixin of :class:`~app.ui.shell.main_window.MainWindow`. On a first start the window takes the
screen's size (a 1366×768 laptop included) and shows the first stage's layout; afterwards the
window's place, the stage on show and each stage's layout are restored from ``window.ini``
beside ``settings.json`` — never larger than the screen the window is on.
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
from app.ui.shell.stages import Area, register_panel
from app.ui.shell.workspace import StageWorkspace
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

    def _dock(self, title: str, name: str, widget: QWidget) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                         | QDockWidget.DockWidgetFeature.DockWidgetClosable)
        return dock

    def _build_docks(self) -> None:
        """The core panels, each registered with the stages that show it (see :mod:`app.ui.shell.stages`)."""
        self.workspace = StageWorkspace(self)
        self.workspace.screen_area = getattr(self, "_fit_area", None)
        self.workspace.keep_scrolled = self.outline_view
        self.document_pane = make_document_pane(self)
        self.analysis_view = AnalysisView()
        self.log_model = LogTableModel(parent=self)
        self.log_pane = LogPane(self.log_model)
        self.document_dock = self._dock("招标文件", "documentDock", self.document_pane)
        self.analysis_dock = self._dock("招标分析", "analysisDock", self.analysis_view)
        from app.ui.tender.breakdown_view import BreakdownView

        self.breakdown_view = BreakdownView()
        self.breakdown_dock = self._dock("需求拆解", "breakdownDock", self.breakdown_view)
        from app.ui.outline.section_editor import SectionEditor

        self.section_editor = SectionEditor()
        self.section_dock = self._dock("正文", "sectionDock", self.section_editor)
        from app.ui.outline.heading_library_view import HeadingLibraryPanel

        self.library_panel = HeadingLibraryPanel()
        self.library_dock = self._dock("标题库", "libraryDock", self.library_panel)
        self.log_dock = self._dock("生成日志", "logDock", self.log_pane)
        left, right, bottom = Area.LeftDockWidgetArea, Area.RightDockWidgetArea, Area.BottomDockWidgetArea
        # 招标分析: the tender beside its reading (scoring items, requirements), the outline between them
        register_panel(self, self.document_dock, "analysis", area=left, share=0.40, front=True)
        register_panel(self, self.analysis_dock, "analysis", area=right, share=0.36, front=True)
        register_panel(self, self.breakdown_dock, "analysis", area=right, tab_with="analysisDock")
        # 目录: the outline wide, the scoring items (and the tender behind them) left, the log under it
        register_panel(self, self.analysis_dock, "outline", area=left, share=0.30, front=True)
        register_panel(self, self.document_dock, "outline", area=left, tab_with="analysisDock")
        register_panel(self, self.library_dock, "outline", area=right, share=0.22)
        register_panel(self, self.log_dock, "outline", area=bottom, share=0.17)
        # 正文: the selected section's text beside the outline (past sections join it under 正文)
        register_panel(self, self.section_dock, "text", area=right, share=0.52)
        register_panel(self, self.log_dock, "text", area=bottom, share=0.14, shown=False)

    def _fit_to_screen(self, available: QRect | None = None) -> None:
        """A first-start size that fits ``available`` (the screen's free area; a 1366×768 laptop included).

        The window frame is not known before the window is shown: a title bar's worth is left
        free here, and :meth:`StageWorkspace.keep_on_screen` corrects the rest once it is.
        """
        screen = available or (self.screen().availableGeometry() if self.screen() is not None else None)
        self._fit_area = available
        workspace = getattr(self, "workspace", None)
        if workspace is not None:
            workspace.screen_area = available
        width, height = 1440, 900
        if screen is not None and screen.width() > 0:
            width = min(width, screen.width())
            height = min(height, screen.height() - (FRAME_ALLOWANCE if screen.height() < height + 60 else 0))
        self.resize(width, height)

    def _keep_on_screen(self) -> None:
        """Shrink and move the shown window so its frame (title bar, status bar) is on the screen."""
        self.workspace.keep_on_screen()

    def reset_layout(self) -> None:
        """视图 → 重置布局: the stage on show goes back to its first-start layout and sizes."""
        self.workspace.reset()

    def _restore_layout(self) -> bool:
        """The window's place and the stage the user left (each stage's layout); False on a first start."""
        geometry = self.qsettings.value("window/geometry")
        restored = isinstance(geometry, QByteArray | bytes) and self.restoreGeometry(QByteArray(geometry))
        if restored:
            self._clamp_to_screen()
        self.workspace.start(self.qsettings)
        return bool(restored)

    def _clamp_to_screen(self) -> None:
        """A restored geometry never exceeds the free area of the screen it is on (a smaller screen now)."""
        screen = self.screen()
        free = self.workspace.screen_area or (screen.availableGeometry() if screen is not None else QRect())
        if free.isEmpty():
            return
        rect = self.geometry()
        width = min(rect.width(), free.width())
        height = min(rect.height(), free.height() - (FRAME_ALLOWANCE if rect.height() + FRAME_ALLOWANCE > free.height()
                                                     else 0))
        x = max(free.left(), min(rect.left(), free.right() - width + 1))
        y = max(free.top(), min(rect.top(), free.bottom() - height + 1))
        self.setGeometry(x, y, width, height)

    def save_layout(self) -> None:
        """Remember the window's place and every stage's layout (on close)."""
        self.qsettings.setValue("window/geometry", self.saveGeometry())
        self.workspace.save(self.qsettings)
        self.qsettings.sync()

    def showEvent(self, event: QShowEvent) -> None:
        """Qt override: size the first-start layout of the stage on show, keep the window on the screen."""
        super().showEvent(event)
        self.workspace.window_shown()
        QTimer.singleShot(0, self._keep_on_screen)


def window_settings() -> QSettings:
    """Window layout and dialog choices, beside settings.json (``BIDSTUDIO_CONFIG_DIR`` moves both)."""
    from app.core.settings_model import config_dir

    return QSettings(str(config_dir() / "window.ini"), QSettings.Format.IniFormat)
