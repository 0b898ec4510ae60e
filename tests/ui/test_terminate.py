"""SIGTERM or SIGINT a few seconds after an edit (issue 30, item 8): the app writes the edit to its
recovery file, keeps that file, and exits — the next start offers the work back."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_terminated_app_keeps_the_unsaved_edit_in_a_recovery_file(tmp_path: Path, sig: signal.Signals) -> None:
    data = tmp_path / "data"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", BIDSTUDIO_CONFIG_DIR=str(tmp_path / "config"),
               BIDSTUDIO_DATA_DIR=str(data), XDG_CONFIG_HOME=str(tmp_path / "xdg"))
    proc = subprocess.Popen([sys.executable, "-m", "tests.ui.term_driver"], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()  # blocks until the edit is made (the driver exits on a hang)
    assert line.strip() == "edited", proc.communicate(timeout=30)
    time.sleep(1.0)  # well inside the 60 s autosave period: only the signal can write it
    proc.send_signal(sig)
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + sig, err
    files = list((data / "recovery").glob("*.recovery.json"))
    assert len(files) == 1, err
    saved = json.loads(files[0].read_text(encoding="utf-8"))
    assert "终止前的修改" in json.dumps(saved, ensure_ascii=False)
    assert not (data / "crash.log").exists()
