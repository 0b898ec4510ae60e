"""What the user reads is Chinese: the log pane's lines, Qt's own dialogs and the error dialog."""

from __future__ import annotations

import ast
import logging
import re
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QFileDialog, QLabel, QPushButton

from app.ui.run.log_pane import HEADERS, QtLogHandler
from app.ui.run.log_text import ZH_TEMPLATES, has_chinese
from app.ui.shell.errors import BUG_MESSAGE, ErrorDialog, ErrorReporter
from app.ui.shell.translations import install_qt_translations, remove_qt_translations

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")

APP = Path(__file__).resolve().parents[2] / "app"
_FORMAT = re.compile(r"%[-#0 +]*\d*(?:\.\d+)?[sdrfi]")
_LEVELS = {"info", "warning", "error", "exception", "critical"}


def _english_templates() -> list[tuple[str, str]]:
    """Every INFO+ log template under app/ that is English text (not only ``%`` arguments)."""
    found = []
    for file in sorted(APP.rglob("*.py")):
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in _LEVELS and isinstance(node.func.value, ast.Name)
                    and node.func.value.id in ("log", "logger")):
                continue
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                text = first.value
                if not has_chinese(text) and re.search(r"[A-Za-z]", _FORMAT.sub("", text)):
                    found.append((f"{file.relative_to(APP.parent)}:{node.lineno}", text))
    return found


def test_every_english_log_template_has_a_chinese_rendering() -> None:
    templates = _english_templates()
    assert len(templates) > 20  # the scan really finds the app's log calls
    missing = [f"{where}: {text!r}" for where, text in templates if text not in ZH_TEMPLATES]
    assert not missing, "add these to app/ui/log_text.ZH_TEMPLATES:\n" + "\n".join(missing)
    for zh in ZH_TEMPLATES.values():
        assert has_chinese(zh)
    for en, zh in ZH_TEMPLATES.items():
        assert _FORMAT.findall(en) == _FORMAT.findall(zh), en  # same arguments, same order


def test_log_pane_shows_chinese_and_says_token() -> None:
    handler = QtLogHandler()
    logger = logging.getLogger("bidstudio.test_log_text")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        logger.info("opening %s", "/tmp/招标.pdf")
        logger.info("strategy %s failed %d times; switching to %s", "json", 2, "stream")
        logger.info("已写入 %d 条目录指令", 26)
        logger.info("sentence", extra={"zh": "自带的中文说明"})
    finally:
        logger.removeHandler(handler)
    messages = [e.message for e in handler.drain()]
    assert messages == ["正在打开 /tmp/招标.pdf", "“整体 JSON”方式已失败 2 次，改用“逐条指令”方式",
                        "已写入 26 条目录指令", "自带的中文说明"]
    assert HEADERS[-1] == "Token 数"


def test_qt_standard_dialogs_are_chinese(qapp: Any, qtbot: Any) -> None:
    translators = install_qt_translations(qapp)
    try:
        assert translators
        box = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
                               | QDialogButtonBox.StandardButton.Close)
        qtbot.addWidget(box)
        texts = {b.text().replace("&", "") for b in box.buttons()}
        assert {"确定", "取消", "关闭"} <= {re.sub(r"\(.*\)", "", t) for t in texts}, texts
        dialog = QFileDialog(None, "打开招标文件")
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog)
        qtbot.addWidget(dialog)
        labels = " ".join(w.text() for w in dialog.findChildren(QLabel))
        assert "文件名" in labels and "Look in" not in labels and "File name" not in labels
    finally:
        remove_qt_translations(qapp, translators)


def test_a_bug_is_one_chinese_sentence_with_details_folded(qapp: Any, qtbot: Any, tmp_path: Path) -> None:
    reporter = ErrorReporter(tmp_path / "data")
    got: list[tuple[str, str, str]] = []
    reporter.error_reported.connect(lambda *a: got.append(a))
    try:
        raise KeyError("internal-state")
    except KeyError as exc:
        reporter.report(exc)
    title, message, details = got[0]
    assert message == BUG_MESSAGE and "KeyError" not in message and "Traceback" in details
    dialog = ErrorDialog(title, message, details)
    qtbot.addWidget(dialog)
    dialog.show()
    assert not dialog.details_box.isVisible()  # folded away
    buttons = [b.text() for b in dialog.findChildren(QPushButton)]
    assert "关闭" in buttons and "Close" not in buttons
    qtbot.mouseClick(dialog.details_button, Qt.MouseButton.LeftButton)
    assert dialog.details_box.isVisible() and "internal-state" in dialog.details_box.toPlainText()
    qtbot.mouseClick(dialog.close_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()


async def test_a_dead_endpoint_is_logged_in_chinese(qapp: Any) -> None:
    """Issue 30: the retry lines of a call to a closed port read in Chinese in the log pane."""
    import socket

    from app.llm.client.errors import LLMConnectionError
    from app.llm.client.llm_client import EndpointConfig, LLMClient

    with socket.socket() as s:  # a port that nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    handler = QtLogHandler()
    root = logging.getLogger("app")
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    client = LLMClient(EndpointConfig(base_url=f"http://127.0.0.1:{port}/v1", api_key="k", model="m",
                                      max_retries=1, backoff_base=0.01, timeout=5.0))
    try:
        with pytest.raises(LLMConnectionError):
            await client.complete([{"role": "user", "content": "你好"}], max_tokens=4, stage="test")
    finally:
        await client.aclose()
        root.removeHandler(handler)
        root.setLevel(old_level)
    messages = [e.message for e in handler.drain()]
    assert messages, "the retry was not logged"
    joined = "\n".join(messages)
    assert "connection error" not in joined.lower() and "All connection attempts failed" not in joined
    assert "连接失败" in joined or "连接被拒绝" in joined
