"""本机模型 in the settings dialog: model servers found on this machine, and the built-in model.

The panel asks the usual loopback ports (:func:`~app.llm.local.discovery.find_local_servers`) when
the dialog opens and on 重新查找, lists each server's models, and hands the chosen one to the dialog
as a preset (``chosen``), which then measures it (测试连接). It also says whether the built-in model
is installed and lets the user pick another GGUF file for it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.llm.local.discovery import LocalServer, find_local_servers
from app.llm.local.embedded import EmbeddedStatus, embedded_status
from app.ui.run.connection_check import BackgroundCoroutine
from app.ui.widgets.file_dialogs import start_folder


class LocalModelsPanel(QGroupBox):
    """Found local servers (one row per model) and the built-in model's status.

    Signals:
        chosen(str, str, str): preset key, base URL and model of the row the user picked.
        searched(int): a search ended with this many rows.
    """

    chosen = Signal(str, str, str)
    searched = Signal(int)

    def __init__(self, parent: QWidget | None = None, *, status: EmbeddedStatus | None = None) -> None:
        super().__init__("本机模型服务（数据不出本机）", parent)
        self.setObjectName("localModelsPanel")
        self.status = status if status is not None else embedded_status()
        self._runner = BackgroundCoroutine(self)
        self._runner.finished.connect(self._on_found)
        self.list = QListWidget()
        self.list.setObjectName("localServerList")
        self.list.setMaximumHeight(96)
        self.search_button = QPushButton("重新查找")
        self.use_button = QPushButton("使用所选")
        self.use_button.setEnabled(False)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: gray")
        self.embedded_label = QLabel(self._embedded_text())
        self.embedded_label.setWordWrap(True)
        self.embedded_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.gguf_edit = QLineEdit()
        self.gguf_edit.setPlaceholderText("空：使用内置的小模型")
        self.gguf_button = QPushButton("选择 GGUF 文件…")
        buttons = QHBoxLayout()
        buttons.addWidget(self.search_button)
        buttons.addWidget(self.use_button)
        buttons.addStretch(1)
        gguf = QHBoxLayout()
        gguf.addWidget(QLabel("内置本地模型文件："))
        gguf.addWidget(self.gguf_edit, 1)
        gguf.addWidget(self.gguf_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.list)
        layout.addLayout(buttons)
        layout.addWidget(self.note)
        layout.addWidget(self.embedded_label)
        layout.addLayout(gguf)
        self.search_button.clicked.connect(self.search)
        self.use_button.clicked.connect(self._use_selected)
        self.list.itemDoubleClicked.connect(lambda _item: self._use_selected())
        self.list.currentItemChanged.connect(lambda item, _old: self.use_button.setEnabled(item is not None))
        self.gguf_button.clicked.connect(self._choose_gguf)

    def _embedded_text(self) -> str:
        if self.status.ready:
            return "内置本地模型：已安装（服务商选“内置本地模型”即可使用；运行时由程序启动，退出时停止）。"
        return self.status.missing_zh()

    def search(self) -> None:
        """Ask the usual loopback ports again (in the background; under a second)."""
        if self._runner.start(find_local_servers, name="bidstudio-find-local"):
            self.search_button.setEnabled(False)
            self.note.setText("正在查找本机的模型服务……")

    def _on_found(self, result: object) -> None:
        self.search_button.setEnabled(True)
        self.list.clear()
        servers = [s for s in result if isinstance(s, LocalServer)] if isinstance(result, list) else []
        for server in servers:
            for model in server.models or ("",):
                item = QListWidgetItem(f"{server.label} · {model or '（未列出模型）'}（{server.base_url}）")
                item.setData(Qt.ItemDataRole.UserRole, (server.preset, server.base_url, model))
                self.list.addItem(item)
            if server.more_models:
                self.list.addItem(QListWidgetItem(f"{server.label}：另有 {server.more_models} 个模型未列出"))
        self.note.setText(f"找到 {len(servers)} 个本机模型服务；选中一行后点“使用所选”，再点“测试连接”测速度和上下文。"
                          if servers else "本机常用端口（11434 Ollama、1234 LM Studio、8080/8000 llama.cpp）上没有找到模型服务。")
        self.searched.emit(self.list.count())

    def _use_selected(self) -> None:
        item = self.list.currentItem()
        data = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        if isinstance(data, tuple) and len(data) == 3:
            self.chosen.emit(*data)

    def _choose_gguf(self) -> None:
        """A file dialog opened, not exec'd (rule 5): the choice lands in the field when it is accepted."""
        dialog = QFileDialog(self, "选择 GGUF 模型文件", self.gguf_edit.text() or start_folder(self),
                             "GGUF 模型 (*.gguf);;所有文件 (*)")
        dialog.setObjectName("ggufFileDialog")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(self.gguf_edit.setText)
        dialog.finished.connect(lambda _result: dialog.deleteLater())
        dialog.open()

    def shutdown(self) -> None:
        """Cancel a running search (the dialog closes)."""
        self._runner.shutdown()
