"""The real app in its own process: ``--sample`` without a model, then a normal quit that is never a crash."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_sample_project_then_ctrl_q_after_saving_ends_cleanly_and_saves_in_place(tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", BIDSTUDIO_CONFIG_DIR=str(tmp_path / "config"),
               BIDSTUDIO_DATA_DIR=str(data))
    target = tmp_path / "项目.bidproj"
    proc = subprocess.run([sys.executable, "-m", "tests.ui.quit_driver", str(target)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not (data / "crash.log").exists(), (data / "crash.log").read_text(encoding="utf-8")
    assert "Traceback" not in proc.stderr
    saved = json.loads(target.read_text(encoding="utf-8"))
    chapters = saved["outline"]["outline"]
    technical = [g for g in saved["analysis"]["groups"] if g["category"] == "technical"]
    assert len(chapters) == len(technical) >= 3  # the sample: scoring items read, one chapter each, no model
    assert all(ch["source_requirement_id"] for ch in chapters) and saved["generation_mode"] == "one_to_one"
    assert [s["title"] for s in chapters[0]["children"]][-2:] == ["第一章补充", "再补一节"]  # 保存 wrote in place
    assert not saved["runs"]  # no model was called
    assert not list((data / "recovery").glob("*.json")) if (data / "recovery").exists() else True
