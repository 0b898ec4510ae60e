"""The built-in local model in the window: one managed llama.cpp server and its state.

:class:`LocalModelService` owns the :class:`~app.llm.local.embedded.ManagedServer` of this app
instance. It builds clients whose every call first makes sure the server runs (started when a run
needs it, restarted once if it died), reports the server's state for the status bar, and stops it
when the window goes (the guard process stops it if the app itself dies).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from app.core.settings_model import EMBEDDED, data_dir
from app.llm.local.embedded import (
    BUNDLED_ALIAS,
    BUNDLED_CHAT_FORMAT,
    EmbeddedStatus,
    ManagedServer,
    ServerSpec,
    bundled_model_file,
    embedded_status,
    machine_choice,
)

if TYPE_CHECKING:
    from app.core.settings_model import ModelSettings
    from app.llm.client.llm_client import LLMClient

log = logging.getLogger("bidstudio.ui")


class LocalModelService(QObject):
    """The app's own model server, made when first needed and kept for the session.

    Signals:
        state_changed(str, str): the server's state (``starting``/``ready``/``restarting``/
            ``stopped``/``failed``) and a Chinese line for the status bar.
    """

    state_changed = Signal(str, str)

    def __init__(self, parent: QObject | None = None, *, status: EmbeddedStatus | None = None,
                 command: list[str] | None = None) -> None:
        super().__init__(parent)
        self.status = status if status is not None else embedded_status()
        self._command = command or []  # a stand-in server (tests)
        self.server: ManagedServer | None = None
        self._key: tuple[str, int, int] | None = None

    def usable(self, settings: ModelSettings) -> bool:
        """Whether the built-in model can run with these settings (a chosen GGUF file, or the bundled one)."""
        if self._command:
            return True
        if not self.status.server:
            return False
        path = settings.local_model_path.strip()
        return Path(path).is_file() if path else self.status.bundled_model

    def wanted(self, settings: ModelSettings, configured: bool) -> bool:
        """The built-in model serves when it is chosen, or when nothing else is configured and it can run."""
        return settings.provider == EMBEDDED or (not configured and self.usable(settings))

    def _spec(self, settings: ModelSettings) -> ServerSpec:
        choice = machine_choice()
        context = min(settings.context_size, choice.context) if settings.provider == EMBEDDED else choice.context
        path_text = settings.local_model_path.strip()
        if self._command:
            return ServerSpec(Path(path_text or "standin.gguf"), BUNDLED_ALIAS, context, choice.threads,
                              command=list(self._command))
        if path_text:
            path = Path(path_text)
            return ServerSpec(path, path.stem[:60] or "local", context, choice.threads)
        return ServerSpec(bundled_model_file(data_dir() / "models"), BUNDLED_ALIAS, context, choice.threads,
                          BUNDLED_CHAT_FORMAT)

    def ensure_server(self, settings: ModelSettings) -> ManagedServer:
        """The managed server for these settings (a new one when the model file or sizes changed)."""
        spec = self._spec(settings)
        key = (str(spec.model_path), spec.context, spec.threads)
        if self.server is None or key != self._key:
            self.stop()
            self.server = ManagedServer(spec, log_file=data_dir() / "embedded-server.log",
                                        on_state=lambda state, message: self.state_changed.emit(state, message))
            self._key = key
        return self.server

    def make_client(self, settings: ModelSettings) -> LLMClient:
        """A client for the built-in server; its first call starts the server."""
        from app.llm.client.llm_client import EndpointConfig, LLMClient

        server = self.ensure_server(settings)
        spec = server.spec
        cfg = EndpointConfig(base_url=server.base_url, api_key="not-needed", model=spec.alias,
                             temperature=settings.temperature, max_tokens=min(settings.max_tokens, spec.context // 2),
                             timeout=settings.timeout, max_retries=settings.max_retries, context_size=spec.context,
                             concurrency=1, system_in_user=bool(spec.chat_format) or settings.system_in_user)
        client = LLMClient(cfg)
        client.transport.lifecycle = server
        return client

    def stop(self) -> None:
        """Stop the server if one runs."""
        if self.server is not None:
            self.server.stop()
