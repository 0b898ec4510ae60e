"""Project files, recovery files and temp files that a crash, a bug or a hostile hand left behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest

from app.core import atomic_file
from app.core.atomic_file import AtomicWriteError, atomic_write_text, clean_stale_temp_files
from app.core.process_identity import is_live_bidstudio, process_identity
from app.core.project import (
    Project,
    ProjectCorruptError,
    ProjectError,
    ProjectNotFoundError,
    load_project,
    save_project,
)
from app.core.recovery import load_recovery, pending_recoveries, read_recovery_info, scan_recoveries
from tests.hostile_files import (
    V0_CHILDREN_NOT_A_LIST,
    deep_outline_project,
    nested_json,
    private_device,
    private_stdout_link,
    recovery_envelope,
    write_recovery_file,
)

REPO = Path(__file__).resolve().parent.parent

# ----------------------------------------------------------------------------- project files


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (nested_json(100_000), "嵌套"),  # RecursionError inside json
        (nested_json(200), "嵌套超过"),  # parses, but deeper than any project
        (deep_outline_project(20), "目录超过"),
        (V0_CHILDREN_NOT_A_LIST, "内容结构不符合项目格式"),
    ],
    ids=["json-100k-deep", "json-200-deep", "outline-20-levels", "v0-children-5"],
)
def test_any_failure_inside_a_project_file_is_damage(tmp_path: Path, content: str, words: str) -> None:
    path = tmp_path / "bad.bidproj"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ProjectCorruptError) as info:
        load_project(path)
    assert "文件已损坏" in info.value.message_zh and words in info.value.message_zh
    assert path.read_text(encoding="utf-8") == content


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_special_and_oversized_project_files_are_never_read(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.bidproj"
    os.mkfifo(fifo)
    with pytest.raises(ProjectNotFoundError, match="不是普通文件"):
        load_project(fifo)  # reading a FIFO would block forever
    with pytest.raises(ProjectNotFoundError, match="不是普通文件"):
        load_project("/dev/zero")  # reading it would never end
    huge = tmp_path / "huge.bidproj"
    with huge.open("wb") as handle:
        handle.truncate(300 * 1024 * 1024)  # sparse: no disk used
    with pytest.raises(ProjectCorruptError, match="上限"):
        load_project(huge)


def test_saving_never_replaces_a_device_and_writes_through_links(tmp_path: Path) -> None:
    device = private_device(tmp_path, "null", minor=3)  # our own /dev/null
    with pytest.raises(AtomicWriteError) as info:
        atomic_write_text(device, "x")
    assert "不是普通文件" in info.value.message_zh
    assert device.is_char_device()
    link = private_stdout_link(tmp_path)  # to /proc/self/fd/1, whatever standard output is now
    with pytest.raises(AtomicWriteError):
        atomic_write_text(link, "x")
    assert link.is_symlink()
    real = tmp_path / "real.bidproj"
    save_project(Project(title="甲"), real)
    project_link = tmp_path / "link.bidproj"
    project_link.symlink_to(real)
    save_project(Project(title="乙"), project_link)
    assert project_link.is_symlink() and load_project(real).title == "乙"


# ----------------------------------------------------------------------------- temp files


def test_stale_temp_files_of_killed_saves_are_cleaned_on_the_next_save(tmp_path: Path) -> None:
    target = tmp_path / "标书.bidproj"
    save_project(Project(title="甲"), target)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    leftovers = [tmp_path / f".标书.bidproj.{dead}-abc12345.tmp", tmp_path / ".标书.bidproj.oldstyle1.tmp"]
    for leftover in leftovers:
        leftover.write_bytes(b"x" * 1000)
    old = time.time() - 3600
    os.utime(leftovers[1], (old, old))  # an old-style name: only its age says it is stale
    live = tmp_path / f".标书.bidproj.{os.getpid()}-live0000.tmp"  # this process: maybe in use
    live.write_bytes(b"y")
    other = tmp_path / f".other.bidproj.{dead}-abc12345.tmp"  # another target: not this save's business
    other.write_bytes(b"z")
    save_project(Project(title="乙"), target)
    assert not any(p.exists() for p in leftovers)
    assert live.exists() and other.exists()
    assert clean_stale_temp_files(tmp_path) == 1  # the start-up sweep of a whole folder
    assert not other.exists() and live.exists()
    assert load_project(target).title == "乙"


def test_a_killed_save_leaves_the_old_file_and_the_next_start_cleans_up(tmp_path: Path) -> None:
    folder = tmp_path / "recovery"
    folder.mkdir()
    script = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from app.core import atomic_file\n"
        "def die(fd):\n"
        "    os._exit(9)\n"  # killed between writing the temp file and the rename
        "atomic_file.os.fsync = die\n"
        "atomic_file.atomic_write_text(Path(sys.argv[1]), 'new' * 1000)\n"
    )
    target = folder / "x.recovery.json"
    target.write_text("old", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-c", script, str(target)], cwd=REPO, check=False)
    assert proc.returncode == 9
    assert target.read_text(encoding="utf-8") == "old"
    assert len(list(folder.glob(".*.tmp"))) == 1
    scan_recoveries(folder)  # what the app does at start
    assert list(folder.glob(".*.tmp")) == []


# ----------------------------------------------------------------------------- recovery files


@pytest.mark.parametrize(
    "fields",
    [
        {"saved_at": datetime(2024, 5, 1, 12, 0).isoformat()},  # naive time
        {"pid": 10**30},
        {"pid": -5},
        {"pid": "12"},
        {"saved_at": "yesterday"},
        {"project_path": 7},
    ],
    ids=["naive-time", "pid-1e30", "pid-negative", "pid-string", "time-garbage", "path-int"],
)
def test_bad_recovery_headers_are_set_aside_with_a_note(tmp_path: Path, fields: dict[str, object]) -> None:
    folder = tmp_path / "recovery"
    good = write_recovery_file(folder, "good")
    bad = write_recovery_file(folder, "bad", **fields)
    scan = scan_recoveries(folder)
    assert [i.path for i in scan.offers] == [good]
    [moved] = scan.set_aside
    assert moved.original == bad and not bad.exists() and moved.moved_to.exists()
    assert "已损坏" in moved.note_zh and moved.moved_to.name in moved.note_zh
    with pytest.raises(ValueError):
        read_recovery_info(moved.moved_to)


def test_a_recovery_file_whose_payload_is_broken_fails_as_a_project_error(tmp_path: Path) -> None:
    folder = tmp_path / "recovery"
    path = write_recovery_file(folder, "deep")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["project"]["outline"] = json.loads("[" * 500 + "]" * 500)
    path.write_text(json.dumps(data), encoding="utf-8")
    [info] = pending_recoveries(folder)
    with pytest.raises(ProjectError, match="文件已损坏"):
        load_recovery(info)


def test_a_pid_now_owned_by_another_program_does_not_hide_the_work(tmp_path: Path) -> None:
    folder = tmp_path / "recovery"
    with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"]) as other:
        try:
            # the crashed BidStudio had this pid; the process using it now is something else
            write_recovery_file(folder, "reused", pid=other.pid, process="linux:some-old-boot:12345")
            write_recovery_file(folder, "reused-old-format", pid=other.pid)
            offered = {i.path.name for i in pending_recoveries(folder)}
            assert offered == {"reused.recovery.json", "reused-old-format.recovery.json"}
        finally:
            other.kill()


@pytest.mark.skipif(not process_identity(os.getpid()), reason="needs /proc to tell processes apart")
def test_a_running_bidstudio_keeps_its_recovery_file_until_it_ends(tmp_path: Path) -> None:
    folder = tmp_path / "recovery"
    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from app.core.project import Project\n"
        "from app.core.recovery import write_recovery\n"
        "write_recovery(Project(title='运行中'), None, Path(sys.argv[1]))\n"
        "print('written', flush=True)\n"
        "sys.stdin.read()\n"
    )
    with subprocess.Popen([sys.executable, "-c", script, str(folder / "live.recovery.json")], cwd=REPO,
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as child:
        assert child.stdout is not None and child.stdout.readline().strip() == "written"
        [info] = [read_recovery_info(p) for p in folder.glob("*.recovery.json")]
        assert info.pid == child.pid and info.process == process_identity(child.pid)
        assert is_live_bidstudio(child.pid, info.process)
        assert pending_recoveries(folder) == []  # in use by a live instance
        child.communicate("", timeout=10)  # the instance ends
    assert [i.title for i in pending_recoveries(folder)] == ["运行中"]


def test_recovery_envelope_round_trip_stays_readable(tmp_path: Path) -> None:
    envelope = recovery_envelope(pid=os.getpid())
    assert envelope["format"] == "bidstudio-recovery"
    path = write_recovery_file(tmp_path, "own", pid=os.getpid())
    info = read_recovery_info(path)
    assert info.pid == os.getpid() and info.saved_at.tzinfo is not None
    assert [i.path for i in pending_recoveries(tmp_path)] == [path]  # our own pid is never "in use"
    assert atomic_file.STALE_AFTER_S > 0


# ----------------------------------------------------------------------------- settings, crash log, session


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_any_broken_settings_file_gives_defaults_and_never_blocks(tmp_path: Path) -> None:
    from app.core.settings_model import AppSettings, load_settings

    cases = {
        "binary.json": b"\xff\xfe\x00garbage",
        "deep.json": b"[" * 100_000 + b"]" * 100_000,
        "wrong-type.json": b'{"model": 5}',
    }
    for name, content in cases.items():
        (tmp_path / name).write_bytes(content)
        assert load_settings(tmp_path / name) == AppSettings(), name
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    assert load_settings(fifo) == AppSettings()  # reading it would wait for a writer forever
    assert load_settings(tmp_path) == AppSettings()  # a folder


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_old_crash_log_is_read_by_its_tail_and_a_fifo_is_skipped(tmp_path: Path) -> None:
    pytest.importorskip("PySide6")
    from app.ui.shell.errors import CRASH_LOG_TAIL_BYTES, ErrorReporter

    reporter = ErrorReporter(tmp_path)
    tmp_path.mkdir(exist_ok=True)
    with reporter.crash_log_path.open("wb") as handle:
        handle.truncate(512 * 1024 * 1024)  # a sparse 512 MB log
        handle.seek(0, os.SEEK_END)
        handle.write(b"Traceback: the last error\n")
    text = reporter.take_pending_crash_log()
    assert text is not None and text.endswith("the last error") and len(text) <= CRASH_LOG_TAIL_BYTES
    os.mkfifo(reporter.crash_log_path)
    assert reporter.take_pending_crash_log() is None


def test_a_tender_renamed_while_open_keeps_its_reference_in_the_saved_project(tmp_path: Path) -> None:
    from app.core.session import ProjectSession

    tender = tmp_path / "招标文件.pdf"
    tender.write_bytes(b"%PDF-1.4 placeholder")
    session = ProjectSession()
    session.set_tender(tender, None)
    tender.rename(tmp_path / "改名了.pdf")  # while the app has it open
    saved = tmp_path / "p.bidproj"
    session.save(saved)
    project = load_project(saved)
    assert project.tender is not None and Path(project.tender.path) == tender.resolve()
