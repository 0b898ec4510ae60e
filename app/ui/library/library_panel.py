"""The 资料库 dock: what the library holds, search, remove, and import with a progress bar and cancel.

Imports run in a worker thread with its own database connection (each bid is one
transaction, so cancelling or a crash leaves only whole bids); the panel refreshes when
the worker reports it is done.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Callable
from pathlib import Path
from queue import Empty
from typing import Any

from PySide6.QtCore import QThread, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.library.bid_import import ImportOutcome, run_import_process
from app.library.search import search_sections, snippet
from app.library.store import LibraryError, LibrarySpec, LibraryStore
from app.ui.library.background import guarded
from app.ui.widgets.file_dialogs import open_file_dialog


class ImportWorker(QThread):
    """Imports files into the library ``spec`` names in a separate process, relaying its progress.

    The import runs in its own interpreter (``multiprocessing`` spawn): parsing Word files and
    collecting their garbage never holds the GUI's interpreter lock, and it uses another core.

    Signals:
        progress(int, int, str): files done, files in all, the file being read.
        outcomes(object): the list of :class:`ImportOutcome` when the worker stops.
    """

    progress = Signal(int, int, str)
    outcomes = Signal(object)

    def __init__(self, spec: LibrarySpec, paths: list[Path]) -> None:
        super().__init__()
        self.spec = spec
        self.paths = paths
        self.cancel_event = threading.Event()

    def run(self) -> None:
        """QThread override: start the import process and relay its messages until it ends."""
        ctx = multiprocessing.get_context("spawn")
        queue = ctx.Queue()
        cancel = ctx.Event()
        proc = ctx.Process(target=run_import_process, daemon=True,
                           args=(self.spec, [str(p) for p in self.paths], queue, cancel))
        result: list[ImportOutcome] = []
        proc.start()
        try:
            while True:
                if self.cancel_event.is_set():
                    cancel.set()
                try:
                    msg = queue.get(timeout=0.1)
                except Empty:
                    if not proc.is_alive():
                        break
                    continue
                if msg[0] == "progress":
                    self.progress.emit(int(msg[1]), int(msg[2]), str(msg[3]))
                elif msg[0] == "done":
                    result = list(msg[1])
                    break
        finally:
            proc.join(10)
            if proc.is_alive():
                proc.kill()
                proc.join()
            queue.close()
            queue.join_thread()
            self.outcomes.emit(result)


class LibraryPanel(QWidget):
    """List, search, remove and import past bids.

    Signals:
        changed(): the library's content changed (import or removal).
    """

    changed = Signal()

    #: Set by the window: told of every library failure (it shows the banner and reconnects).
    on_library_error: Callable[[LibraryError], None] | None = None

    def library_failed(self, error: LibraryError) -> None:
        """Say why the library cannot answer (the window's banner says it too)."""
        self.status.setText(error.message_zh)
        if self.on_library_error is not None:
            self.on_library_error(error)

    def __init__(self, store_provider: Callable[[], LibraryStore | None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("libraryPanel")
        self._store = store_provider
        self.worker: ImportWorker | None = None
        self.last_outcomes: list[ImportOutcome] = []
        self.search_box = QLineEdit()
        self.search_box.setObjectName("librarySearch")
        self.search_box.setPlaceholderText("搜索历史标书中的章节（标题或正文）")
        self.search_box.returnPressed.connect(self._on_search)
        self.import_button = QPushButton("导入标书…")
        self.import_button.clicked.connect(self.choose_files)
        self.folder_button = QPushButton("导入文件夹…")
        self.folder_button.clicked.connect(self._on_import_folder)
        self.remove_button = QPushButton("删除所选")
        self.remove_button.setObjectName("libraryRemove")
        self.remove_button.clicked.connect(self._on_remove)
        self.cancel_button = QPushButton("取消导入")
        self.cancel_button.setObjectName("libraryCancel")
        self.cancel_button.clicked.connect(self.cancel_import)
        self.cancel_button.hide()
        self.progress = QProgressBar()
        self.progress.hide()
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.bids = QTableWidget(0, 5)
        self.bids.setObjectName("libraryBids")
        self.bids.setHorizontalHeaderLabels(["标书", "项目名称", "招标人/采购人", "日期", "章节数"])
        self.bids.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.bids.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.bids.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.results = QTableWidget(0, 3)
        self.results.setObjectName("libraryResults")
        self.results.setHorizontalHeaderLabels(["章节", "来源", "内容"])
        self.results.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        buttons = QHBoxLayout()
        for b in (self.import_button, self.folder_button, self.remove_button, self.cancel_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(buttons)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(self.bids, 2)
        layout.addWidget(self.search_box)
        layout.addWidget(self.results, 3)

    # ------------------------------------------------------------------ listing
    @guarded(None)
    def refresh(self) -> None:
        """Reload the list of stored bids."""
        store = self._store()
        rows = store.bids() if store is not None else []
        self.bids.setRowCount(len(rows))
        for r, b in enumerate(rows):
            for c, value in enumerate((b.name, b.project, b.client, b.date, str(b.section_count))):
                item = QTableWidgetItem(value)
                item.setData(256, b.id)
                item.setToolTip(b.path)
                self.bids.setItem(r, c, item)
        if store is not None and not self.cancel_button.isVisible():
            n_bids, n_sections = store.counts()
            where = "办公室资料库" if store.engine == "postgres" else "资料库"
            self.status.setText(f"{where}：{n_bids} 份历史标书，{n_sections} 个章节" +
                                ("" if store.fts else "（本机 SQLite 不支持全文索引，搜索较慢）"))

    @guarded(0)
    def search(self, text: str) -> int:
        """Show the sections that best match ``text``; returns how many."""
        store = self._store()
        hits = search_sections(store, text, 20) if store is not None and text.strip() else []
        self.results.setRowCount(len(hits))
        for r, h in enumerate(hits):
            values = (h.section.title, h.source, snippet(h.section.body))
            for c, v in enumerate(values):
                self.results.setItem(r, c, QTableWidgetItem(v))
        return len(hits)

    def _on_search(self) -> None:
        self.search(self.search_box.text())

    @guarded(0)
    def remove_selected(self) -> int:
        """Delete the selected bids from the library; returns how many."""
        store = self._store()
        if store is None:
            return 0
        items = [self.bids.item(i.row(), 0) for i in self.bids.selectedIndexes()]
        ids = sorted({int(item.data(256)) for item in items if item is not None})
        for bid_id in ids:
            store.remove_bid(bid_id)
        if ids:
            self.refresh()
            self.changed.emit()
        return len(ids)

    def _on_remove(self) -> None:
        self.remove_selected()

    # ------------------------------------------------------------------ importing
    def import_paths(self, paths: list[Path]) -> bool:
        """Start importing ``paths`` (files or folders) in a worker; False when one is running."""
        store = self._store()
        if store is None or (self.worker is not None and self.worker.isRunning()):
            return False
        self.worker = ImportWorker(store.spec(), paths)
        self.worker.progress.connect(self._on_progress)
        self.worker.outcomes.connect(self._on_done)
        self.progress.setRange(0, 0)
        self.progress.show()
        self.cancel_button.show()
        self.status.setText("正在导入……")
        self.worker.start()
        return True

    def cancel_import(self) -> None:
        """Stop after the file being read (it is stored whole or not at all)."""
        if self.worker is not None:
            self.worker.cancel_event.set()
            self.status.setText("正在取消导入……")

    def _on_progress(self, done: int, total: int, name: str) -> None:
        self.progress.setRange(0, max(1, total))
        self.progress.setValue(done)
        if name:
            self.status.setText(f"正在导入（{done + 1}/{total}）：{name}")

    def _on_done(self, outcomes: Any) -> None:
        self.last_outcomes = list(outcomes)
        if self.worker is not None:
            self.worker.wait()
            self.worker.deleteLater()
            self.worker = None
        self.progress.hide()
        self.cancel_button.hide()
        self.refresh()
        added = sum(1 for o in self.last_outcomes if o.status == "added")
        dup = sum(1 for o in self.last_outcomes if o.status == "duplicate")
        bad = [o for o in self.last_outcomes if o.status in ("failed", "empty")]
        msg = f"导入完成：新增 {added} 份"
        if dup:
            msg += f"，{dup} 份已在资料库中"
        if bad:
            msg += f"，{len(bad)} 份未能导入（" + "；".join(f"{o.path.name}：{o.message}" for o in bad[:3]) + "）"
        self.status.setText(msg)
        self.changed.emit()

    def choose_files(self) -> None:
        """Ask for past bids (.docx/.pdf) and import them."""
        open_file_dialog(self, "选择历史标书", "标书 (*.docx *.pdf)",
                         lambda files: self.import_paths([Path(f) for f in files]), mode="open_many")

    def _on_import_folder(self) -> None:
        open_file_dialog(self, "选择存放历史标书的文件夹", "", lambda files: self.import_paths([Path(files[0])]),
                         mode="folder")

    def shutdown(self) -> None:
        """Cancel and wait for a running import (the window is closing)."""
        if self.worker is not None:
            self.worker.cancel_event.set()
            self.worker.wait(10000)
