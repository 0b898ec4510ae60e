"""Choosing a Word template in the export dialog: a bad file is refused, odd heading names are mapped."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import docx
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QFileDialog, QLineEdit

from app.ui.export.dialog import ExportDialog
from tests.test_export_template import HEADER, make_template
from tests.ui.test_export_dialog import _visible, window  # noqa: F401  (the fixture)

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")


async def test_template_with_odd_heading_names_is_mapped_then_used(window: Any, qtbot: Any,  # noqa: F811
                                                                   tmp_path: Path) -> None:
    template = make_template(tmp_path / "office.docx", ("章标题", "节标题", "条标题"), cover=False)
    bare = docx.Document(str(template))
    for name in ("Heading 1", "Heading 2", "Heading 3"):
        bare.styles[name].element.getparent().remove(bare.styles[name].element)
    bare.save(str(template))
    broken = tmp_path / "broken.docx"
    broken.write_bytes(b"PK not really")

    task = window.controller.spawn("dialog", window.choose_and_export())
    dialog: ExportDialog = await _visible(window, ExportDialog, "exportDialog")
    dialog.layout_check.setChecked(False)
    row = dialog.template_row
    with qtbot.waitSignal(row.loaded, timeout=10_000) as read:
        assert row.set_template(str(broken))
    assert read.args == [False]
    assert "不是 Word 模板" in row.status.text() and row.path() is None

    with qtbot.waitSignal(row.loaded, timeout=10_000) as read:
        assert row.set_template(str(template))
    assert read.args == [True]
    mapping = row.map_dialog
    assert mapping is not None and mapping.isVisible()  # the usual names are missing: the user is asked
    assert not dialog.ok_button.isEnabled()
    for combo, name in zip(mapping.combos, ("章标题", "节标题", "条标题", "条标题"), strict=True):
        combo.setCurrentIndex(combo.findData(name))
    qt_ok = mapping.buttons.button(QDialogButtonBox.StandardButton.Ok)
    qtbot.mouseClick(qt_ok, Qt.MouseButton.LeftButton)
    assert row.heading_names() == ("章标题", "节标题", "条标题", "条标题")
    assert dialog.ok_button.isEnabled() and "章标题" in row.status.text()
    dialog.ok_button.click()

    target = tmp_path / "模板导出.docx"
    chooser: QFileDialog = await _visible(window, QFileDialog)
    name_edit = chooser.findChild(QLineEdit, "fileNameEdit")
    assert name_edit is not None
    name_edit.setText(str(target))
    chooser.accept()
    await asyncio.wait_for(task, timeout=20)
    assert target.is_file() and not window.error_dialogs
    doc = docx.Document(str(target))
    assert doc.sections[-1].header.paragraphs[0].text == HEADER
    styles = {p.style.name for p in doc.paragraphs if p.text.startswith("第一章")}
    assert "章标题" in styles


async def test_a_template_bomb_is_refused_in_the_dialog_while_the_window_keeps_working(
        window: Any, qtbot: Any, tmp_path: Path) -> None:  # noqa: F811
    """Issue 37 §3.7: the template is read in a worker — a zip bomb is refused in Chinese, and while a large
    template is read the window goes on handling events (a timer keeps ticking)."""
    from PySide6.QtCore import QTimer

    from tests.hostile_templates import rewrite_zip, template_bomb

    bomb = template_bomb(tmp_path / "bomb.docx", inflated_mb=200)
    big = make_template(tmp_path / "big.docx")
    styles = "".join(f'<w:style w:type="paragraph" w:customStyle="1" w:styleId="office{i}">'
                     f'<w:name w:val="办公室样式{i:05d}"/><w:basedOn w:val="Normal"/></w:style>' for i in range(10_000))
    rewrite_zip(big, {"word/styles.xml": lambda d: d.replace(b"</w:styles>", styles.encode() + b"</w:styles>")})

    task = window.controller.spawn("dialog", window.choose_and_export())
    dialog: ExportDialog = await _visible(window, ExportDialog, "exportDialog")
    row = dialog.template_row
    with qtbot.waitSignal(row.loaded, timeout=20_000) as read:
        row.set_template(str(bomb))
    assert read.args == [False] and "解压后过大" in row.status.text() and row.path() is None

    ticks: list[float] = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(0.0))
    timer.start(5)
    with qtbot.waitSignal(row.loaded, timeout=30_000) as read:
        row.set_template(str(big))
        assert row.busy and not dialog.ok_button.isEnabled()  # OK waits for the reading
        assert "正在读取模板" in row.status.text()
    timer.stop()
    assert read.args == [True] and row.path() == str(big)
    assert len(ticks) >= 3, ticks  # the GUI thread ran while the template was read
    assert dialog.ok_button.isEnabled()
    dialog.reject()
    await asyncio.wait_for(task, timeout=20)
