"""The clean-up of temporary files removes only what an atomic write of this app left (issue 30, item 9).

An output named ``*`` once turned the clean-up's glob into "every hidden .tmp file" and
removed unrelated files in the folder.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from app.core.atomic_file import atomic_write_text, clean_stale_temp_files

DEAD_PID = 2**22 + 12345  # above the default pid_max: no such process


def _old(path: Path) -> Path:
    path.write_text("keep me", encoding="utf-8")
    past = time.time() - 3600
    os.utime(path, (past, past))
    return path


@pytest.mark.parametrize("target", ["*", "?", "[ab]", "report.json"])
def test_a_write_never_removes_other_programs_tmp_files(tmp_path: Path, target: str) -> None:
    others = [_old(tmp_path / n) for n in (".a.b.tmp", ".notes.123-abcdefgh.tmp", ".x.tmp",
                                           ".other.json.1-zzzzzzzz.tmp", ".report.json.tmp")]
    atomic_write_text(tmp_path / target, "new")
    assert (tmp_path / target).read_text(encoding="utf-8") == "new"
    assert all(p.exists() for p in others), [p.name for p in others if not p.exists()]


def test_a_leftover_of_this_target_whose_writer_is_gone_is_removed(tmp_path: Path) -> None:
    leftover = tmp_path / f".*.{DEAD_PID}-abcd_123.tmp"
    leftover.write_text("half", encoding="utf-8")
    unrelated = _old(tmp_path / f".a.{DEAD_PID}-abcd_123.tmp")
    atomic_write_text(tmp_path / "*", "new")
    assert not leftover.exists() and unrelated.exists()


def test_the_start_up_sweep_keeps_names_this_app_never_writes(tmp_path: Path) -> None:
    mine = tmp_path / f".proj.bidproj.{DEAD_PID}-q1w2e3r4.tmp"
    mine.write_text("half", encoding="utf-8")
    foreign = [_old(tmp_path / n) for n in (".cache.tmp", ".a.b.tmp", ".vim.swp.tmp")]
    assert clean_stale_temp_files(tmp_path) == 1
    assert not mine.exists() and all(p.exists() for p in foreign)
