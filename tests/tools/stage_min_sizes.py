"""Each stage's minimum window size at a given system font size (issue 37 §1: fonts must not decide the fit).

    QT_QPA_PLATFORM=offscreen python tests/tools/stage_min_sizes.py [POINT_SIZE]

Builds the main window on a 1366×768 screen (empty config and data folders) with the system font at
POINT_SIZE (none or 0: the platform's default), switches to every stage and prints the window's minimum
size hint — once plain and once with the first-run guide, the sample note and the score summary on show
(the tallest the outline area gets). A 1366×768 laptop leaves about 1366×696 to a window.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))


def main(point: float) -> None:
    """Print the minimum size of every stage with the system font at ``point`` (0: as it is)."""
    tmp = tempfile.mkdtemp(prefix="bidstudio-minsizes-")
    os.environ["BIDSTUDIO_DATA_DIR"] = f"{tmp}/data"
    os.environ["BIDSTUDIO_CONFIG_DIR"] = f"{tmp}/config"
    from PySide6.QtCore import QRect, QSettings
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    from app.ui.run.controller import AppController
    from app.ui.shell.main_window import MainWindow
    from app.ui.shell.stages import STAGE_KEYS

    if point:
        font = app.font()
        font.setPointSizeF(point)
        app.setFont(font)
    win = MainWindow(AppController(), qsettings=QSettings(f"{tmp}/ui.ini", QSettings.Format.IniFormat))
    win._fit_to_screen(QRect(0, 0, 1366, 768))
    win.show()
    for _ in range(20):
        app.processEvents()
    print(f"font {app.font().family()} {app.font().pointSizeF():g} pt")
    for extra in (False, True):
        if extra:
            win.set_model_configured(False)
            win.sample_note.setVisible(True)
            win.score_label.setText("技术评分 12 项，小计 60 分 / 总分 100 分")
            win.score_label.setVisible(True)
        for key in STAGE_KEYS:
            win.workspace.switch(key)
            for _ in range(10):
                app.processEvents()
            hint = win.minimumSizeHint()
            label = "banners" if extra else "plain  "
            print(f"  {label} {key:<9} minimum {hint.width()}×{hint.height()}  window {win.width()}×{win.height()}")
    sys.stdout.flush()
    os._exit(0)  # closing would save a layout and a session nobody needs


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 0.0)
