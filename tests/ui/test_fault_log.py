"""A hard crash (segfault) leaves its Python stack in the crash log that the next start offers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

CRASH = """
import faulthandler, sys
from pathlib import Path
from app.ui.shell.errors import ErrorReporter

def generate_the_outline():
    faulthandler._sigsegv()

ErrorReporter(Path(sys.argv[1])).install_faulthandler()
generate_the_outline()
"""

NEXT_START = """
import sys
from pathlib import Path
from app.ui.shell.errors import ErrorReporter

reporter = ErrorReporter(Path(sys.argv[1]))
reporter.install_faulthandler()
print(reporter.take_pending_crash_log() or "")
reporter.uninstall_faulthandler()
"""


def _python(code: str, data: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run([sys.executable, "-c", code, str(data)], capture_output=True, text=True, timeout=60,
                          env=env, cwd=REPO, check=False)


def test_a_segfault_is_in_the_crash_log_offered_at_the_next_start(tmp_path: Path) -> None:
    crashed = _python(CRASH, tmp_path)
    assert crashed.returncode != 0
    offered = _python(NEXT_START, tmp_path)
    assert offered.returncode == 0, offered.stderr
    assert "Segmentation fault" in offered.stdout and "generate_the_outline" in offered.stdout
    again = _python(NEXT_START, tmp_path)
    assert again.stdout.strip() == ""  # offered once; a clean session leaves nothing
