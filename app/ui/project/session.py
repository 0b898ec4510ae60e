"""Session wiring for the real app: settings -> model client, settings dialog, autosave,
crash log and recovery offers on start.

Kept out of ``main_window`` so the window can be built in tests without keyring, settings
files or timers; ``main.run`` attaches this to the window.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from app.ui.shell.errors import ErrorDialog
from app.ui.widgets.async_dialog import run_dialog

if TYPE_CHECKING:
    from app.core.api_keys import ApiKeyStore
    from app.core.settings_model import AppSettings
    from app.llm.client.llm_client import LLMClient
    from app.ui.run.local_model import LocalModelService
    from app.ui.shell.errors import ErrorReporter
    from app.ui.shell.main_window import MainWindow

log = logging.getLogger("bidstudio.ui")


class SessionWiring:
    """Connects settings, the key store, autosave and start-up offers to one window."""

    def __init__(self, settings: AppSettings, key_store: ApiKeyStore | None = None) -> None:
        self.settings = settings
        self._key_store = key_store
        self.window: MainWindow | None = None
        self._settings_dialog: object | None = None
        self._local: LocalModelService | None = None

    @property
    def local(self) -> LocalModelService:
        """The built-in local model service, made on first use (it looks for the optional packages)."""
        if self._local is None:
            from app.ui.run.local_model import LocalModelService

            self.use_local_service(LocalModelService(self.window))
        assert self._local is not None
        return self._local

    def use_local_service(self, service: LocalModelService) -> None:
        """Serve the built-in model through ``service`` (its state goes to the status bar)."""
        self._local = service
        service.state_changed.connect(self._on_local_state)

    def _on_window_gone(self, *_args: object) -> None:
        """The window is gone: the built-in model server stops with it."""
        self.window = None
        if self._local is not None:
            self._local.stop()

    def _on_local_state(self, _state: str, message: str) -> None:
        if self.window is not None:
            self.window.statusBar().showMessage(f"内置本地模型：{message}", 20000)

    def _external_configured(self) -> bool:
        """An endpoint other than the built-in model is set up (address, model, key where needed)."""
        from app.core.settings_model import EMBEDDED

        model = self.settings.model
        return model.provider != EMBEDDED and model.is_configured(bool(self.api_key()))

    @property
    def key_store(self) -> ApiKeyStore:
        """The OS keyring wrapper, created on first use (keyring is slow to import and query)."""
        if self._key_store is None:
            from app.core.api_keys import ApiKeyStore

            self._key_store = ApiKeyStore()
        return self._key_store

    def configured_without_key(self) -> bool:
        """A cheap first guess for start-up: address and model set (the key is checked later)."""
        return bool(self.settings.model.base_url.strip() and self.settings.model.model.strip())

    def api_key(self) -> str:
        """The key for the configured endpoint (from the keyring, never from files)."""
        return self.key_store.get(self.settings.model.key_account())

    def configured(self) -> bool:
        """Whether a model can be called: a configured endpoint, or the built-in model where it can run."""
        external = self._external_configured()
        if self.local.wanted(self.settings.model, external):
            return self.local.usable(self.settings.model)
        return external

    def missing_key(self) -> str:
        """Why only the key is missing (address and model saved, the provider needs one), or ""."""
        m = self.settings.model
        if not (m.base_url.strip() and m.model.strip() and m.needs_key) or self.api_key():
            return ""
        if not self.key_store.persistent:
            return "本机没有可用的系统密钥库，API 密钥只在程序运行期间保存，关闭后需要重新填写。"
        return "系统密钥库中没有这个接口地址的 API 密钥。"

    def make_client(self) -> LLMClient | None:
        """A new client for the configured endpoint (or the built-in model), None when there is none."""
        external = self._external_configured()
        if self.local.wanted(self.settings.model, external):
            return self.local.make_client(self.settings.model) if self.local.usable(self.settings.model) else None
        if not external:
            return None
        from app.llm.client.llm_client import EndpointConfig, LLMClient

        return LLMClient(EndpointConfig(**self.settings.model.endpoint_kwargs(self.api_key())))

    def attach(self, window: MainWindow) -> None:
        """Give the window its settings dialog opener and an autosaver."""
        from app.ui.project.autosave import Autosaver

        self.window = window
        window.settings_opener = self.open_settings  # type: ignore[attr-defined]
        window.controller.model_missing.connect(self._on_model_missing)
        window.destroyed.connect(self._on_window_gone)
        session, signals = window.controller.session, window.session_signals
        autosaver = Autosaver(session.snapshot, interval_ms=self.settings.autosave_interval_s * 1000,
                              project_path=session.path, parent=window)
        window.autosaver = autosaver  # type: ignore[attr-defined]
        window.controller.undo_stack.indexChanged.connect(autosaver.notify_changed)
        window.controller.drafting.section_state.connect(autosaver.notify_changed)  # resumable after a crash
        signals.changed.connect(autosaver.notify_changed)
        # The recovery file belongs to the saved project: a save removes it and moves it along.
        signals.saved.connect(lambda path: autosaver.notify_saved(Path(path) if path else None))
        signals.reset.connect(lambda: autosaver.follow(session.path, session.is_dirty))
        autosaver.failed.connect(lambda msg: window.statusBar().showMessage(msg, 10000))

    def _on_model_missing(self) -> None:
        """A run needed a model and none can be called: the settings open (the run's message says how)."""
        from PySide6.QtCore import QTimer

        QTimer.singleShot(0, self.open_settings)

    def offer_local_servers(self) -> None:
        """With no model configured: look for model servers on this machine and say what was found."""
        if self.window is None or self.configured():
            if self.window is not None and not self._external_configured() and self.local.usable(self.settings.model):
                self.window.statusBar().showMessage("未配置模型：生成时将使用内置本地模型（无需联网，小模型效果有限）。", 20000)
            return
        self.window.controller.spawn("local-servers", self._offer_local_servers())

    async def _offer_local_servers(self) -> None:
        from app.llm.local.discovery import find_local_servers

        found = await find_local_servers()
        window = self.window
        if not found or window is None or self.configured():
            return
        names = "；".join(s.summary_zh() for s in found[:3])
        window.guide.setText(f"尚未配置模型。发现本机的模型服务：{names}。请 <a href='settings'>打开模型设置</a>，"
                             "在“本机模型服务”中选用（数据不出本机）；也可以选择云端服务并填写密钥。")

    def open_settings(self, tab: str = "") -> None:
        """Open the settings dialog non-modally (at ``tab``: "library" for 资料库); saving updates the client
        factory, the guide and the library the window uses."""
        from app.core.settings_model import default_settings_path
        from app.ui.shell.settings_dialog import SettingsDialog

        window = self.window
        dialog = SettingsDialog(self.settings, self.key_store, window, settings_path=default_settings_path())
        self._settings_dialog = dialog

        def saved(settings: AppSettings) -> None:
            self.settings = settings
            if window is not None:
                recent, last_dir = window.settings.recent_files, window.settings.last_dir
                window.settings = settings
                settings.recent_files, settings.last_dir = recent, last_dir
                window.status.provider = settings.model.provider
                window.set_model_configured(self.configured(), self.missing_key())
                window.controller.reset_client()
                library = getattr(window, "library", None)
                if library is not None:
                    library.use_settings(settings.library)

        dialog.settingsSaved.connect(saved)
        if tab:
            dialog.show_tab(tab)
        dialog.open()

    def offer_crash_log(self, reporter: ErrorReporter) -> None:
        """Show the previous session's crash log once, so the user can send it."""
        text = reporter.take_pending_crash_log()
        if text and self.window is not None:
            dialog = ErrorDialog("上次运行时程序出错",
                                 "标书工坊上次运行时出现了意外错误，可以点“复制详细信息”把错误日志发给技术支持，帮助我们修复。",
                                 text[-20000:], self.window)
            dialog.setObjectName("crashLogDialog")
            dialog.open()

    def offer_recovery(self) -> None:
        """Ask whether to restore autosaved work left by a session that did not end normally.

        Broken recovery files were set aside by the scan; the user gets a note saying where.
        """
        from app.core.recovery import scan_recoveries

        scan = scan_recoveries()
        for moved in scan.set_aside:
            log.warning("%s", moved.note_zh)
            if self.window is not None:
                self.window.statusBar().showMessage(moved.note_zh, 15000)
        infos = [i for i in scan.offers if i.newer_than_project]
        if infos and self.window is not None:
            self.window.controller.spawn("recovery", self._ask_recovery(infos[0]))

    async def _ask_recovery(self, info: object) -> None:
        from app.core.recovery import RecoveryInfo, discard_recovery, load_recovery, set_aside
        from app.ui.project.autosave import recovery_choice, recovery_message_box

        assert isinstance(info, RecoveryInfo) and self.window is not None
        box = recovery_message_box(info, self.window)
        await run_dialog(box)
        choice = recovery_choice(box)
        if choice == "restore":
            try:
                project = load_recovery(info)
            except Exception as exc:  # a broken recovery file is reported and set aside, never fatal
                moved = set_aside(info.path, str(exc))
                self.window.show_error("无法恢复", getattr(exc, "message_zh", str(exc)) + "\n" + moved.note_zh, "")
                return
            await self.window.apply_project(project, info.project_path, restored=True)
            # The old file goes only once the restored work is in this session's own recovery file
            # (a crash before that must still offer it at the next start).
            autosaver = getattr(self.window, "autosaver", None)
            if autosaver is None or not autosaver.adopt(info.path):
                self.window.statusBar().showMessage(
                    "已恢复，但暂时无法写入新的自动恢复文件；原恢复文件已保留，请尽快保存项目。", 15000)
        elif choice == "discard":
            discard_recovery(info.path)
        await asyncio.sleep(0)



