"""The settings dialog: 模型 (provider presets, endpoint, key, limits, connection test) and 资料库
(the local library or the office's server, :mod:`app.ui.library.library_settings`).

The key field is read from and written to :class:`~app.core.api_keys.ApiKeyStore` (the OS
keyring); it never enters :class:`~app.core.settings_model.AppSettings`. Network checks
run in a worker thread (:class:`~app.ui.run.connection_check.BackgroundCoroutine`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)
from typing_extensions import override

from app.core.secrets import split_url_password, with_url_password
from app.core.settings_model import (
    EMBEDDED,
    PRESETS,
    AppSettings,
    ModelSettings,
    preset,
    preset_for_url,
    save_settings,
    url_password_account,
    url_passwords,
)
from app.ui.library.library_settings import LibrarySettingsTab
from app.ui.run.connection_check import BackgroundCoroutine, ConnectionReport, make_endpoint_config
from app.ui.run.connection_check import check_and_probe as run_check_connection
from app.ui.run.connection_check import fetch_models as run_fetch_models
from app.ui.shell.local_models_panel import LocalModelsPanel

if TYPE_CHECKING:
    from PySide6.QtGui import QCloseEvent, QShowEvent

    from app.core.api_keys import ApiKeyStore
    from app.llm.client.llm_client import EndpointConfig



class SettingsDialog(QDialog):
    """Edit the model endpoint settings; OK stores the key in the keyring and the rest in settings.

    Signals:
        settingsSaved(object): the accepted :class:`AppSettings` (already written when
            ``settings_path`` was given).
        checkFinished(object): a :class:`ConnectionReport` from 测试连接 or 获取模型列表.
    """

    settingsSaved = Signal(object)
    checkFinished = Signal(object)

    def __init__(self, settings: AppSettings, key_store: ApiKeyStore, parent: QWidget | None = None,
                 *, settings_path: Path | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("模型设置")
        self.setObjectName("settingsDialog")
        self.setMinimumWidth(600)  # wrapped hints and the keyring note get whole lines
        self._settings = settings.model_copy(deep=True)
        self._store = key_store
        self._settings_path = settings_path
        self._key_edited = False
        self._url_password: tuple[str, str] | None = None  # (address shown, password taken out of it)
        self._runner = BackgroundCoroutine(self)
        self._runner.finished.connect(self._on_check_finished)
        self._build()
        self._load(self._settings.model)

    # ------------------------------------------------------------------ building
    def _build(self) -> None:
        form = QFormLayout()
        self.provider_combo = QComboBox()
        for p in PRESETS:
            self.provider_combo.addItem(p.name, p.key)
        self.hint_label = QLabel()
        self.hint_label.setWordWrap(True)
        self.hint_label.setStyleSheet("color: gray")
        self.base_url_edit = QLineEdit()
        self.base_url_edit.setPlaceholderText("例如 http://127.0.0.1:8080/v1")
        self.url_password_note = QLabel("地址中的密码已从显示中移出，调用时仍会使用；保存后存入系统密钥库，不写入设置文件")
        self.url_password_note.setWordWrap(True)
        self.url_password_note.setStyleSheet("color: gray")
        self.url_password_note.setVisible(False)
        self.key_edit = QLineEdit()
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setPlaceholderText("保存在系统密钥库中，不会写入设置或项目文件")
        self.show_key_check = QCheckBox("显示")
        self.keyring_warning = QLabel(self._store.warning_zh or "")
        self.keyring_warning.setWordWrap(True)
        self.keyring_warning.setStyleSheet("color: #b35c00")
        self.keyring_warning.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)  # never squeezed
        self.keyring_warning.setVisible(bool(self._store.warning_zh))
        self.model_combo = QComboBox()
        self.model_combo.setEditable(True)
        self.model_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.fetch_button = QPushButton("获取模型列表")
        self.temperature_spin = QDoubleSpinBox()
        self.temperature_spin.setRange(0.0, 2.0)
        self.temperature_spin.setSingleStep(0.1)
        self.temperature_spin.setDecimals(2)
        self.max_tokens_spin = self._spin(16, 262_144, 256)
        self.context_spin = self._spin(1024, 4_194_304, 1024)
        self.concurrency_spin = self._spin(1, 32, 1)
        self.timeout_spin = self._spin(0, 3600, 10)
        self.timeout_spin.setSpecialValueText("自动（按输出长度和测得的速度）")
        self.timeout_spin.setToolTip("每次模型调用的总时限；0 表示按最大输出长度和“测试连接”测得的速度自动确定")
        self.system_in_user_check = QCheckBox("把系统提示并入用户消息（兼容部分本地/弱模型）")
        self.test_button = QPushButton("测试连接")
        self.status_label = QLabel()
        self.status_label.setWordWrap(True)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        key_row = QHBoxLayout()
        key_row.addWidget(self.key_edit, 1)
        key_row.addWidget(self.show_key_check)
        model_row = QHBoxLayout()
        model_row.addWidget(self.model_combo, 1)
        model_row.addWidget(self.fetch_button)
        form.addRow("服务商：", self.provider_combo)
        form.addRow("", self.hint_label)
        form.addRow("接口地址：", self.base_url_edit)
        form.addRow("", self.url_password_note)
        form.addRow("API 密钥：", key_row)
        form.addRow("", self.keyring_warning)
        form.addRow("模型：", model_row)
        limits = QGridLayout()  # two a row: the dialog fits a 1366×768 screen with every note shown
        for i, (label, spin) in enumerate((("温度：", self.temperature_spin), ("最大输出 tokens：", self.max_tokens_spin),
                                           ("上下文长度：", self.context_spin), ("并发请求数：", self.concurrency_spin))):
            limits.addWidget(QLabel(label), i // 2, (i % 2) * 2)
            limits.addWidget(spin, i // 2, (i % 2) * 2 + 1)
        limits.setColumnStretch(1, 1)
        limits.setColumnStretch(3, 1)
        form.addRow("", limits)
        form.addRow("每次调用时限（秒）：", self.timeout_spin)
        form.addRow("", self.system_in_user_check)

        test_row = QHBoxLayout()
        test_row.addWidget(self.test_button)
        test_row.addStretch(1)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("保存")
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setText("取消")
        self.local_panel = LocalModelsPanel(self)
        model_page = QWidget()
        page = QVBoxLayout(model_page)
        page.setContentsMargins(0, 0, 0, 0)  # the tab adds its bar: the page and the dialog's top margin give it back
        page.addLayout(form)
        page.addLayout(test_row)
        page.addWidget(self.status_label)  # a whole row: a long report wraps wide and never squeezes the fields
        page.addWidget(self.local_panel)
        self.library_tab = LibrarySettingsTab(self._settings.library, self)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("settingsTabs")
        self.tabs.setDocumentMode(True)  # no frame around the pages
        self.tabs.addTab(model_page, "模型")
        self.tabs.addTab(self.library_tab, "资料库")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(11, 4, 11, 11)  # with the tab bar, the dialog still fits a 1366×768 screen
        layout.addWidget(self.tabs)
        layout.addWidget(self.buttons)

        self.provider_combo.currentIndexChanged.connect(self._on_provider_changed)
        self.show_key_check.toggled.connect(self._on_show_key)
        self.key_edit.textEdited.connect(self._on_key_edited)
        self.base_url_edit.editingFinished.connect(self._on_base_url_edited)
        self.fetch_button.clicked.connect(self.fetch_models)
        self.test_button.clicked.connect(self.test_connection)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.local_panel.chosen.connect(self.use_local_server)
        self.local_panel.search()
        self._keep_field_heights()

    def _keep_field_heights(self) -> None:
        """Fields never get less than their natural height: when the dialog is short of room (a long
        report, a small screen) the list of local servers gives way instead."""
        for w in (self.provider_combo, self.base_url_edit, self.key_edit, self.model_combo, self.temperature_spin,
                  self.max_tokens_spin, self.context_spin, self.concurrency_spin, self.timeout_spin):
            w.setMinimumHeight(w.sizeHint().height())

    @staticmethod
    def _spin(low: int, high: int, step: int) -> QSpinBox:
        spin = QSpinBox()
        spin.setRange(low, high)
        spin.setSingleStep(step)
        return spin

    def _load(self, m: ModelSettings) -> None:
        index = self.provider_combo.findData(preset(m.provider).key)
        self.provider_combo.blockSignals(True)
        self.provider_combo.setCurrentIndex(max(index, 0))
        self.provider_combo.blockSignals(False)
        self.base_url_edit.setText(m.base_url)
        self._take_url_password()
        self._fill_models(list(preset(m.provider).example_models), m.model)
        self.temperature_spin.setValue(m.temperature)
        self.max_tokens_spin.setValue(m.max_tokens)
        self.context_spin.setValue(m.context_size)
        self.concurrency_spin.setValue(m.concurrency)
        self.timeout_spin.setValue(int(m.timeout))
        self.system_in_user_check.setChecked(m.system_in_user)
        self.local_panel.gguf_edit.setText(m.local_model_path)
        self._show_hint()
        self._reload_key()

    def _fill_models(self, models: list[str], current: str) -> None:
        self.model_combo.clear()
        self.model_combo.addItems(models)
        self.model_combo.setEditText(current)

    def _show_hint(self) -> None:
        p = preset(str(self.provider_combo.currentData()))
        self.hint_label.setText(p.hint)
        self.hint_label.setVisible(bool(p.hint))
        self.base_url_edit.setEnabled(p.key != EMBEDDED)  # the app runs that server itself
        self.key_edit.setPlaceholderText("保存在系统密钥库中，不会写入设置或项目文件" if p.needs_key
                                         else "本地服务通常无需密钥，可留空")
        self._fit_height()

    def _fit_height(self) -> None:
        """Grow to the height the wrapped hint lines need at the current width (a longer hint is never clipped)."""
        layout = self.layout()
        if layout is None:
            return
        layout.activate()
        width = self.width()
        need = layout.totalHeightForWidth(width) if layout.hasHeightForWidth() else layout.totalSizeHint().height()
        page = self.tabs.currentWidget()  # a tab page's wrapped lines are not in the tab widget's size hint
        page_layout = page.layout() if page is not None else None
        if page is not None and page_layout is not None and page_layout.hasHeightForWidth():
            short = page_layout.totalHeightForWidth(page.width()) - page.height()  # at the page's real width
            need = max(need, self.height() + short if short > 0 and self.isVisible() else need)
        screen = self.screen()
        if screen is not None:  # never taller than the screen: the list of local servers gives way
            need = min(need, screen.availableGeometry().height() - (self.frameGeometry().height() - self.height()))
        if need > self.height():
            self.resize(width, need)

    def _reload_key(self) -> None:
        if not self._key_edited:
            self.key_edit.setText(self._store.get(self.current_model_settings().key_account()))

    def show_tab(self, name: str) -> None:
        """Show the tab ``name`` ("model" or "library")."""
        self.tabs.setCurrentIndex(self.tabs.indexOf(self.library_tab) if name == "library" else 0)

    # ------------------------------------------------------------------ reading
    def current_model_settings(self) -> ModelSettings:
        """The model settings as currently entered."""
        return self._settings.model.model_copy(update={
            "provider": str(self.provider_combo.currentData()),
            "base_url": self.base_url_edit.text().strip(),
            "model": self.model_combo.currentText().strip(),
            "temperature": self.temperature_spin.value(),
            "max_tokens": self.max_tokens_spin.value(),
            "context_size": self.context_spin.value(),
            "concurrency": self.concurrency_spin.value(),
            "timeout": float(self.timeout_spin.value()),
            "system_in_user": self.system_in_user_check.isChecked(),
            "local_model_path": self.local_panel.gguf_edit.text().strip(),
        })

    def current_settings(self) -> AppSettings:
        """All settings with the dialog's model and library settings applied."""
        return self._settings.model_copy(update={"model": self.current_model_settings(),
                                                 "library": self.library_tab.current()})

    def current_api_key(self) -> str:
        """The key as currently entered (never stored anywhere but the keyring)."""
        return self.key_edit.text().strip()

    def endpoint_config(self) -> EndpointConfig:
        """The client configuration for what is entered now (with a password taken out of the address)."""
        model = self.current_model_settings()
        password = self._pending_url_password()
        if password:
            model = model.model_copy(update={"base_url": with_url_password(model.base_url, password)})
        return make_endpoint_config(model, self.current_api_key())

    def _pending_url_password(self) -> str:
        """The password taken out of the address shown now ("" when none, or the address changed since)."""
        if self._url_password is None:
            return ""
        shown, password = self._url_password
        return password if self.base_url_edit.text().strip() == shown else ""

    def _take_url_password(self) -> None:
        """Move a password typed into the address out of the field (it is kept for calls and saving)."""
        shown, password = split_url_password(self.base_url_edit.text().strip())
        if password:
            self._url_password = (shown, password)
            self.base_url_edit.setText(shown)
        self.url_password_note.setVisible(bool(self._pending_url_password()))

    # ------------------------------------------------------------------ actions
    def fetch_models(self) -> None:
        """Fetch ``/v1/models`` in the background and fill the model list."""
        self._start_check("models")

    def test_connection(self) -> None:
        """Run the connection check in the background; the result shows in the status line."""
        self._start_check("test")

    def use_local_server(self, preset_key: str, base_url: str, model: str) -> None:
        """Take a server found on this machine as the endpoint, then measure it (测试连接)."""
        index = self.provider_combo.findData(preset_key)
        if index >= 0:
            self.provider_combo.setCurrentIndex(index)  # the preset's concurrency and system handling
        self.base_url_edit.setText(base_url)
        self._take_url_password()
        self.model_combo.setEditText(model)
        self._reload_key()
        self.test_connection()

    def _start_check(self, kind: str) -> None:
        if str(self.provider_combo.currentData()) == EMBEDDED:
            ok = self.local_panel.status.ready or bool(self.local_panel.gguf_edit.text().strip())
            text = ("内置本地模型由程序在生成时启动，无需测试连接。" if ok
                    else self.local_panel.status.missing_zh())
            self._show_status(ConnectionReport(ok, text, kind="ok" if ok else "error"))
            return
        if not self.base_url_edit.text().strip().startswith(("http://", "https://")):
            self._show_status(ConnectionReport(False, "请先填写以 http:// 或 https:// 开头的接口地址。", kind="error"))
            return
        cfg = self.endpoint_config()  # read the widgets in the GUI thread; the worker only awaits
        if kind == "models":
            started = self._runner.start(lambda: run_fetch_models(cfg), name="bidstudio-fetch-models")
            busy = "正在获取模型列表……"
        else:
            started = self._runner.start(lambda: run_check_connection(cfg), name="bidstudio-test-connection")
            busy = "正在测试连接……"
        if started:
            self.fetch_button.setEnabled(False)
            self.test_button.setEnabled(False)
            self.status_label.setStyleSheet("")
            self.status_label.setText(busy)

    def _on_check_finished(self, report: object) -> None:
        self.fetch_button.setEnabled(True)
        self.test_button.setEnabled(True)
        if not isinstance(report, ConnectionReport):
            self.status_label.setText("已取消。")
            return
        if report.models:
            current = self.model_combo.currentText().strip()
            if not current or (current not in report.models and len(report.models) == 1):
                current = report.models[0]  # the field empty, or the server serves one model only: that one
            self._fill_models(report.models, current)
        if report.profile is not None:
            self._take_profile(report.profile)
        self._show_status(report)
        self.checkFinished.emit(report)

    def _show_status(self, report: ConnectionReport) -> None:
        self.status_label.setStyleSheet("color: #1a7f37" if report.ok else "color: #c62828")
        self.status_label.setText(("✔ " if report.ok else "✘ ") + report.message_zh)
        self._fit_height()

    def _take_profile(self, profile: dict[str, object]) -> None:
        """Keep what 测试连接 measured for this endpoint and apply it to the fields (still editable)."""
        current = self.current_model_settings()
        profiles = {**self._settings.model.profiles, current.profile_key(): dict(profile)}
        self._settings.model = self._settings.model.model_copy(update={"profiles": profiles})
        if profile.get("drops_system"):
            self.system_in_user_check.setChecked(True)
        context = profile.get("context_size")
        if isinstance(context, int) and 1024 <= context < self.context_spin.value():
            self.context_spin.setValue(context)

    def _on_provider_changed(self, _index: int) -> None:
        p = preset(str(self.provider_combo.currentData()))
        if p.base_url:
            self.base_url_edit.setText(p.base_url)
        elif preset_for_url(self.base_url_edit.text()).base_url:  # another preset's address: not the user's own
            self.base_url_edit.clear()
        if p.concurrency is not None:
            self.concurrency_spin.setValue(p.concurrency)
        if p.system_in_user is not None:
            self.system_in_user_check.setChecked(p.system_in_user)
        self._fill_models(list(p.example_models), p.example_models[0] if p.example_models else "")
        self._show_hint()
        self._reload_key()

    def _on_base_url_edited(self) -> None:
        self._take_url_password()
        self._reload_key()

    def _on_key_edited(self, _text: str) -> None:
        self._key_edited = True

    def _on_show_key(self, shown: bool) -> None:
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password)

    # ------------------------------------------------------------------ closing
    @override
    def accept(self) -> None:
        """Validate, store the key in the keyring, write the settings, emit ``settingsSaved``."""
        self._take_url_password()
        model = self.current_model_settings()
        if model.base_url and not model.base_url.startswith(("http://", "https://")):
            self._show_status(ConnectionReport(False, "接口地址应以 http:// 或 https:// 开头。", kind="error"))
            return
        library_problem = self.library_tab.validate()
        if library_problem:
            self.tabs.setCurrentWidget(self.library_tab)
            self.library_tab.status_label.setStyleSheet("color: #c62828")
            self.library_tab.status_label.setText("✘ " + library_problem)
            return
        self.library_tab.save_password()  # like the API key: the keyring, never the settings file
        password = self._pending_url_password()
        if password:  # like an API key: in the keyring (or this session), never in the settings or the field
            url_passwords().set(url_password_account(model.base_url), password)
        persisted = self._store.set(model.key_account(), self.current_api_key())
        if not persisted and self.current_api_key():
            self.keyring_warning.setText(self._store.warning_zh or "")
            self.keyring_warning.setVisible(True)
            self._fit_height()
        settings = self.current_settings()
        if self._settings_path is not None:
            save_settings(settings, self._settings_path)
        self._settings = settings
        self._runner.shutdown()
        self.local_panel.shutdown()
        self.library_tab.shutdown()
        self.settingsSaved.emit(settings)
        super().accept()

    @override
    def showEvent(self, event: QShowEvent) -> None:
        """Qt override: at the real width, grow to what the wrapped notes need (none is clipped)."""
        super().showEvent(event)
        self._fit_height()

    @override
    def reject(self) -> None:
        """Close without saving; a running check is cancelled."""
        self._runner.shutdown()
        self.local_panel.shutdown()
        self.library_tab.shutdown()
        super().reject()

    @override
    def closeEvent(self, event: QCloseEvent) -> None:
        """Cancel a running check before the dialog goes away."""
        self._runner.shutdown()
        self.local_panel.shutdown()
        self.library_tab.shutdown()
        super().closeEvent(event)
