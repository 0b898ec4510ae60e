"""``BIDSTUDIO_SMOKE_TEST=1 python -m app`` starts the real app offscreen, shows the window and quits."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_app_starts_shows_its_window_and_quits(tmp_path: Path) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", BIDSTUDIO_SMOKE_TEST="1",
               BIDSTUDIO_CONFIG_DIR=str(tmp_path / "config"), BIDSTUDIO_DATA_DIR=str(tmp_path / "data"),
               XDG_CONFIG_HOME=str(tmp_path / "xdg"))  # Qt's own settings file: not the user's
    proc = subprocess.run([sys.executable, "-m", "app"], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "visible_at=" in proc.stdout
    assert "Traceback" not in proc.stderr
