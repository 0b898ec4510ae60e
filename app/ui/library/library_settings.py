"""设置 → 资料库: the local file (default) or the office's PostgreSQL server, 测试连接, and copying a library over.

Set up like office software: server address, port, database, user and password; the password
goes to the OS keyring on 保存 (like the API key), never into the settings file. 测试连接 runs
in a worker thread and says in Chinese what is wrong. 复制本机资料库 copies the personal
library's bids (de-duplicated by content hash) and facts into the office library, then shows
the facts that differ for review (:class:`~app.ui.library.fact_review.FactReviewDialog`).
"""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.core.settings_model import LibrarySettings
from app.library.merge import CopyReport, copy_library, take_personal
from app.library.server import ServerCheck, check_server, password_account, passwords
from app.library.store import LibraryError, LibraryStore, ServerConfig, default_library_path
from app.ui.library.background import BlockingCall
from app.ui.library.fact_review import FactReviewDialog


class LibrarySettingsTab(QWidget):
    """Where the library is, with the connection check and the copy into the office library.

    Signals:
        checked(object): the :class:`ServerCheck` of 测试连接.
        copied(object): the :class:`CopyReport` of a copy (after the review, if any), or a LibraryError.
    """

    checked = Signal(object)
    copied = Signal(object)

    def __init__(self, settings: LibrarySettings, parent: QWidget | None = None, *,
                 local_path: Path | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("librarySettingsTab")
        self.local_path = local_path or default_library_path()
        self._password_edited = False
        self.local_radio = QRadioButton("本机资料库（默认）：保存在本电脑上，只供本人使用，无需设置")
        self.office_radio = QRadioButton("办公室资料库：多人共用的 PostgreSQL 数据库服务器（由管理员提供地址和账户）")
        group = QButtonGroup(self)
        group.addButton(self.local_radio)
        group.addButton(self.office_radio)
        self.host_edit = QLineEdit()
        self.host_edit.setPlaceholderText("例如 192.168.1.20 或 db.example.local")
        self.port_spin = QSpinBox()
        self.port_spin.setRange(1, 65535)
        self.database_edit = QLineEdit()
        self.user_edit = QLineEdit()
        self.password_edit = QLineEdit()
        self.password_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.password_edit.setPlaceholderText("保存在系统密钥库中，不会写入设置文件")
        self.test_button = QPushButton("测试连接")
        self.test_button.setObjectName("libraryTestConnection")
        self.status_label = QLabel("")
        self.status_label.setObjectName("libraryConnectionStatus")
        self.status_label.setWordWrap(True)
        self.copy_button = QPushButton("把本机资料库复制到办公室资料库…")
        self.copy_button.setObjectName("libraryCopyToOffice")
        self.copy_button.setToolTip("历史标书按内容去重（办公室资料库已有的不重复复制）；企业资料合并，内容不同的逐条核对")
        self.copy_progress = QProgressBar()
        self.copy_progress.hide()
        self.copy_label = QLabel("")
        self.copy_label.setObjectName("libraryCopyStatus")
        self.copy_label.setWordWrap(True)
        form = QFormLayout()
        form.addRow("服务器地址：", self.host_edit)
        form.addRow("端口：", self.port_spin)
        form.addRow("数据库：", self.database_edit)
        form.addRow("用户名：", self.user_edit)
        form.addRow("密码：", self.password_edit)
        self.office_box = QWidget()
        office = QVBoxLayout(self.office_box)
        office.setContentsMargins(20, 0, 0, 0)
        office.addLayout(form)
        test_row = QHBoxLayout()
        test_row.addWidget(self.test_button)
        test_row.addWidget(self.status_label, 1)
        office.addLayout(test_row)
        office.addWidget(self.copy_button)
        office.addWidget(self.copy_progress)
        office.addWidget(self.copy_label)
        note = QLabel("多人共用时请使用办公室资料库，不要把本机资料库文件放在共享盘上（网络盘的文件锁不可靠，容易损坏）。"
                      "服务器暂时连不上时，目录和正文照常编写，资料库功能在恢复连接后自动可用。")
        note.setWordWrap(True)
        note.setStyleSheet("color: gray")
        layout = QVBoxLayout(self)
        layout.addWidget(self.local_radio)
        layout.addWidget(self.office_radio)
        layout.addWidget(self.office_box)
        layout.addWidget(note)
        layout.addStretch(1)
        self._check = BlockingCall(self)
        self._check.finished.connect(self._on_checked)
        self._copy = BlockingCall(self)
        self._copy.finished.connect(self._on_copied)
        self._copy_state: list[int | str] = [0, 0, ""]  # done, total, name: written by the copy thread, read by the timer
        self._copy_cancel = threading.Event()
        self._copy_timer = QTimer(self)
        self._copy_timer.setInterval(100)
        self._copy_timer.timeout.connect(self._on_copy_progress)
        self.review: FactReviewDialog | None = None
        self.test_button.clicked.connect(self.test_connection)
        self.copy_button.clicked.connect(self.copy_local)
        self.office_radio.toggled.connect(self._on_engine_toggled)
        self.password_edit.textEdited.connect(self._on_password_edited)
        for edit in (self.host_edit, self.database_edit, self.user_edit):
            edit.editingFinished.connect(self._reload_password)
        self.port_spin.valueChanged.connect(lambda _v: self._reload_password())
        self._load(settings)

    # ------------------------------------------------------------------ reading and writing
    def _load(self, s: LibrarySettings) -> None:
        (self.office_radio if s.engine == "postgres" else self.local_radio).setChecked(True)
        self.host_edit.setText(s.host)
        self.port_spin.setValue(s.port)
        self.database_edit.setText(s.database)
        self.user_edit.setText(s.user)
        self._on_engine_toggled(s.engine == "postgres")
        self._reload_password()

    def _reload_password(self) -> None:
        if not self._password_edited:
            self.password_edit.setText(passwords().get(password_account(self.server_config())))

    def current(self) -> LibrarySettings:
        """The library settings as entered (never the password)."""
        return LibrarySettings(engine="postgres" if self.office_radio.isChecked() else "sqlite",
                               host=self.host_edit.text().strip(), port=self.port_spin.value(),
                               database=self.database_edit.text().strip() or "bidstudio",
                               user=self.user_edit.text().strip())

    def server_config(self) -> ServerConfig:
        """The server as entered, with the password typed (in memory only)."""
        s = self.current()
        return ServerConfig(s.host, s.port, s.database, s.user, self.password_edit.text())

    def validate(self) -> str:
        """What is missing for the office library ("" when complete or when the local library is chosen)."""
        if not self.office_radio.isChecked():
            return ""
        missing = [name for name, edit in (("服务器地址", self.host_edit), ("用户名", self.user_edit)) if not edit.text().strip()]
        return f"请填写办公室资料库的{'和'.join(missing)}" if missing else ""

    def save_password(self) -> bool:
        """Store the password in the keyring (保存); False when it is kept for this session only."""
        config = self.server_config()
        if not self.office_radio.isChecked() or not self._password_edited:
            return True
        return passwords().set(password_account(config), config.password)

    # ------------------------------------------------------------------ actions
    def test_connection(self) -> None:
        """Check the server in the background; the answer shows beside the button."""
        problem = self.validate() or ("" if self.office_radio.isChecked() else "请先选择“办公室资料库”")
        if problem:
            self._show_check(ServerCheck(False, "other", problem))
            return
        config = self.server_config()
        if self._check.start(lambda: check_server(config), name="bidstudio-library-check"):
            self.test_button.setEnabled(False)
            self.status_label.setStyleSheet("")
            self.status_label.setText("正在测试连接……")

    def copy_local(self) -> None:
        """Copy the personal library into the office library in the background."""
        problem = self.validate() or ("" if self.office_radio.isChecked() else "请先选择“办公室资料库”并填写服务器")
        if not problem and not self.local_path.exists():
            problem = f"本机没有资料库文件（{self.local_path}），无需复制"
        if problem:
            self.copy_label.setText(problem)
            return
        config, local_path = self.server_config(), self.local_path
        state, cancel = self._copy_state, self._copy_cancel
        cancel.clear()

        def work() -> tuple[CopyReport, ServerConfig]:
            from app.library.engines.postgres import PostgresStore

            source = LibraryStore(local_path)
            try:
                target = PostgresStore(config, application_name="BidStudio copy")
                try:
                    return copy_library(source, target, progress=lambda i, n, name: state.__setitem__(
                        slice(0, 3), [i, n, name]), cancelled=cancel.is_set), config
                finally:
                    target.close()
            finally:
                source.close()

        if self._copy.start(work, name="bidstudio-library-copy"):
            self.copy_button.setEnabled(False)
            self.copy_progress.setRange(0, 0)
            self.copy_progress.show()
            self.copy_label.setText("正在复制本机资料库……")
            self._copy_timer.start()

    def _on_copy_progress(self) -> None:
        done, total, name = (int(self._copy_state[0]), int(self._copy_state[1]), str(self._copy_state[2]))
        if total:
            self.copy_progress.setRange(0, total)
            self.copy_progress.setValue(done)
            self.copy_label.setText(f"正在复制（{done}/{total}）：{name}")

    def _on_copied(self, result: object) -> None:
        self._copy_timer.stop()
        self.copy_progress.hide()
        self.copy_button.setEnabled(True)
        if isinstance(result, LibraryError):
            self.copy_label.setText(f"复制失败：{result.message_zh}（已复制的历史标书完整保留，可再次复制，不会重复）")
            self.copied.emit(result)
            return
        if not isinstance(result, tuple):
            self.copy_label.setText(f"复制失败：{result}")
            self.copied.emit(result)
            return
        report, config = result
        self.copy_label.setText(report.summary())
        if not report.clashes:
            self.copied.emit(report)
            return
        self.review = FactReviewDialog(report.clashes, self)
        self.review.finished.connect(lambda code: self._on_reviewed(code, report, config))
        self.review.open()

    def _on_reviewed(self, code: int, report: CopyReport, config: ServerConfig) -> None:
        review = self.review
        chosen = review.chosen() if review is not None and code == 1 else []
        refused: list[str] = []
        if chosen:
            from app.library.engines.postgres import PostgresStore

            try:
                target = PostgresStore(config, application_name="BidStudio copy")
            except LibraryError as exc:
                refused = [exc.message_zh]
            else:
                try:
                    refused = take_personal(target, chosen)
                finally:
                    target.close()
        taken = len(chosen) - len(refused)
        self.copy_label.setText(f"{report.summary()} 核对完成：{taken} 条采用本机资料库的内容，"
                                f"{len(report.clashes) - taken} 条保留办公室的内容。" +
                                (f" 未能修改：{refused[0]}" if refused else ""))
        self.copied.emit(report)

    def _show_check(self, check: ServerCheck) -> None:
        self.status_label.setStyleSheet("color: #1a7f37" if check.ok else "color: #c62828")
        self.status_label.setText(("✔ " if check.ok else "✘ ") + check.message_zh)

    def _on_checked(self, result: object) -> None:
        self.test_button.setEnabled(True)
        check = result if isinstance(result, ServerCheck) else ServerCheck(False, "other", f"检查时出错：{result}")
        self._show_check(check)
        self.checked.emit(check)

    def _on_engine_toggled(self, office: bool) -> None:
        self.office_box.setEnabled(office)

    def _on_password_edited(self, _text: str) -> None:
        self._password_edited = True

    def shutdown(self) -> None:
        """Stop a copy after the bid being copied and wait for the workers (the dialog is closing)."""
        self._copy_cancel.set()
        self._copy_timer.stop()
        self._check.wait()
        self._copy.wait(60)
