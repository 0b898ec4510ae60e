"""Qt's own Chinese translations, so standard dialogs and buttons speak the app's language.

File dialogs (查找范围、文件名), message-box buttons (确定、取消、关闭) and context menus
(复制、粘贴) come from Qt, which ships ``qtbase_zh_CN.qm`` next to its libraries. The UI is
Chinese throughout, so the Chinese catalogue is loaded whatever the system locale.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QLibraryInfo, QLocale, QTranslator
from PySide6.QtWidgets import QApplication
from typing_extensions import override

log = logging.getLogger(__name__)

#: Qt catalogues loaded, most specific last (qtbase covers every widget the app uses).
CATALOGUES = ("qtbase",)
LOCALE = "zh_CN"


#: Strings Qt's zh_CN catalogue leaves in English (context, source) -> Chinese.
GAPS: dict[tuple[str, str], str] = {
    ("QFileDialog", "&Look in:"): "查找范围(&L)：",
    ("QFileDialog", "Files of &type:"): "文件类型(&T)：",
}


class GapTranslator(QTranslator):
    """Fills the few file-dialog labels the shipped catalogue does not translate."""

    @override
    def translate(self, context: str, sourceText: str, disambiguation: str | None = None,
                  n: int = -1) -> str | None:
        return GAPS.get((context, sourceText))  # None is a null QString: Qt asks the next translator

    @override
    def isEmpty(self) -> bool:
        return False


def install_qt_translations(app: QApplication) -> list[QTranslator]:
    """Load Qt's zh_CN catalogues into ``app``; returns the installed translators (kept alive by the caller)."""
    folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    installed: list[QTranslator] = []
    for name in CATALOGUES:
        translator = QTranslator(app)
        if translator.load(QLocale(LOCALE), name, "_", folder) and app.installTranslator(translator):
            installed.append(translator)
        else:
            log.warning("Qt translation %s_%s not found in %s", name, LOCALE, folder)
    gaps = GapTranslator(app)
    if app.installTranslator(gaps):
        installed.append(gaps)
    QLocale.setDefault(QLocale(QLocale.Language.Chinese, QLocale.Country.China))
    return installed


def remove_qt_translations(app: QApplication, translators: list[QTranslator]) -> None:
    """Undo :func:`install_qt_translations` (tests)."""
    for translator in translators:
        app.removeTranslator(translator)
    QLocale.setDefault(QLocale.system())
