"""The one subprocess helper: absolute paths, no shell, a deadline that kills the whole group."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from app.core.external_command import ExternalCommandError, command_argv, run_command
from app.documents.loader import load_tender
from tests.hostile_files import small_docx_bytes

FAKE_SOFFICE = """#!{python}
# Stands in for LibreOffice: records its argv, then "converts" like soffice would.
import json, shutil, sys
from pathlib import Path
args = sys.argv[1:]
Path({log!r}).write_text(json.dumps(args))
if any(a.startswith("-") and a.endswith(".doc") for a in args):
    print("Usage: soffice [argument...]")  # what LibreOffice does with a name it reads as an option
    sys.exit(1)
outdir = Path(args[args.index("--outdir") + 1])
source = Path(args[-1])
shutil.copy({docx!r}, outdir / (source.stem + ".docx"))
"""


def _fake_soffice(folder: Path) -> Path:
    docx = folder / "converted.docx"
    docx.write_bytes(small_docx_bytes("第一章 招标公告\n项目名称：破折号文件"))
    exe = folder / "bin" / "soffice"
    exe.parent.mkdir()
    exe.write_text(FAKE_SOFFICE.format(python=sys.executable, log=str(folder / "argv.json"), docx=str(docx)),
                   encoding="utf-8")
    exe.chmod(0o755)
    return exe


@pytest.mark.skipif(os.name != "posix", reason="shebang script")
def test_a_file_named_like_an_option_reaches_libreoffice_as_a_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    exe = _fake_soffice(tmp_path)
    monkeypatch.setenv("PATH", str(exe.parent))
    work = tmp_path / "work"
    work.mkdir()
    dash = work / "-dash.doc"
    dash.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600)  # OLE header: a legacy Word file
    monkeypatch.chdir(work)
    doc = load_tender(Path("-dash.doc"))  # relative, as a user types it
    argv = json.loads((tmp_path / "argv.json").read_text())
    assert argv[-1] == str(dash) and all(os.path.isabs(a) for a in (argv[-1], argv[argv.index("--outdir") + 1]))
    assert doc.kind == "doc" and any("破折号文件" in b.text for page in doc.pages for b in page.blocks)


def test_paths_become_absolute_strings_stay_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    argv = command_argv(sys.executable, ("--flag", Path("-x.doc"), Path("sub/../y.doc")))
    assert argv[0] == os.path.abspath(sys.executable)
    assert argv[1:] == ["--flag", str(tmp_path / "-x.doc"), str(tmp_path / "y.doc")]
    with pytest.raises(ExternalCommandError):
        command_argv("no-such-program-bidstudio", ())


@pytest.mark.skipif(os.name != "posix", reason="process groups")
def test_timeout_kills_the_program_and_what_it_started(tmp_path: Path) -> None:
    marker = tmp_path / "child.pid"
    script = ("import subprocess, sys, time\n"
              "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
              f"open({str(marker)!r}, 'w').write(str(child.pid))\n"
              "time.sleep(60)\n")
    started = time.monotonic()
    result = run_command(sys.executable, "-c", script, timeout=2.0)
    assert result.timed_out and not result.ok
    assert time.monotonic() - started < 15
    grandchild = int(marker.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(grandchild, 0)
            state = Path(f"/proc/{grandchild}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (ProcessLookupError, FileNotFoundError):
            break
        if state == "Z":  # killed, waiting for init to reap it
            break
        time.sleep(0.05)
    else:
        pytest.fail("the grandchild outlived the timeout")


def test_output_is_bounded_and_exit_status_reported() -> None:
    result = run_command(sys.executable, "-c", "import sys; sys.stderr.write('e' * 100000); sys.exit(3)", timeout=30)
    assert result.returncode == 3 and not result.ok and len(result.stderr) <= 4000
    assert result.output_tail(10) == "e" * 10
