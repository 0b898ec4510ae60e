"""Recovered work survives a crash right after 恢复 (issue 37 §3 item 1).

The real app is started on a data folder holding an earlier session's recovery file; a driver
clicks 恢复 and kills the process (SIGKILL) as soon as the restore is over — well inside the
autosave period. The next start must still find that work: the old recovery file may go only
once the restored state is written somewhere else.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from app.core.recovery import load_recovery, scan_recoveries
from tests.hostile_files import recovery_envelope

REPO = Path(__file__).resolve().parents[2]


def test_work_restored_then_killed_at_once_is_offered_again_at_the_next_start(tmp_path: Path) -> None:
    data = tmp_path / "data"
    envelope = recovery_envelope(title="崩溃前的工作")
    envelope["project"]["outline"] = {"outline": [{"title": "恢复后的第一章", "children": [{"title": "人员配置"}]}]}
    folder = data / "recovery"
    folder.mkdir(parents=True)
    (folder / "earlier.recovery.json").write_text(json.dumps(envelope, ensure_ascii=False), encoding="utf-8")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", BIDSTUDIO_CONFIG_DIR=str(tmp_path / "config"),
               BIDSTUDIO_DATA_DIR=str(data), XDG_CONFIG_HOME=str(tmp_path / "xdg"))
    proc = subprocess.run([sys.executable, "-m", "tests.ui.recovery_kill_driver"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert "restored" in proc.stdout, proc.stderr
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    offers = scan_recoveries(folder).offers
    assert offers, f"nothing left to recover: {sorted(p.name for p in folder.iterdir())}"
    chapter = load_recovery(offers[0]).outline.outline[0]
    assert (chapter.title, [c.title for c in chapter.children]) == ("恢复后的第一章", ["人员配置"])
