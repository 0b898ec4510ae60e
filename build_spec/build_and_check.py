"""Build the one-folder bundle with PyInstaller, check the frozen app starts, report the size.

Usage (from the repository root)::

    python build_spec/build_and_check.py            # build + check
    python build_spec/build_and_check.py --no-build # only check an existing dist/bidstudio

The check starts ``dist/bidstudio/bidstudio`` with ``QT_QPA_PLATFORM=offscreen`` and
``BIDSTUDIO_SMOKE_TEST=1`` (the app shows its main window, prints ``visible_at=...`` and
quits) in throw-away config/data folders, runs it once more with
``BIDSTUDIO_SELF_CHECK=1`` (sample tender read, a page rendered in a spawned PDF child
process, a Word document created) and verifies the bundled resources. Prints the
build time, the start-up time and the bundle size with its largest parts. Exit code 0
only when everything passed.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "build_spec" / "bidstudio.spec"
DIST = ROOT / "dist"
WORK = ROOT / "build" / "pyinstaller"
BUNDLE = DIST / "bidstudio"


def build() -> float:
    """Run PyInstaller on the spec; returns the wall time in seconds."""
    cmd = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--clean", "--log-level", "WARN",
           "--distpath", str(DIST), "--workpath", str(WORK), str(SPEC)]
    print("building:", " ".join(cmd), flush=True)
    t0 = time.monotonic()
    subprocess.run(cmd, cwd=ROOT, check=True)
    return time.monotonic() - t0


def executable() -> Path:
    """The frozen program inside the bundle."""
    name = "bidstudio.exe" if os.name == "nt" else "bidstudio"
    return BUNDLE / name


def folder_size(path: Path) -> int:
    """Bytes of all files below ``path`` (symlinks not followed)."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def largest_parts(root: Path, count: int = 12) -> list[tuple[int, str]]:
    """The biggest files and top-level folders inside the bundle's ``_internal``."""
    internal = root / "_internal"
    parts = []
    for child in (internal if internal.is_dir() else root).iterdir():
        if child.is_symlink():  # PyInstaller links top-level libraries into package folders
            continue
        size = folder_size(child) if child.is_dir() else child.stat().st_size
        parts.append((size, child.name + ("/" if child.is_dir() else "")))
    return sorted(parts, reverse=True)[:count]


def check_resources() -> list[str]:
    """Problems with the bundled resources (empty when fine)."""
    problems = []
    internal = BUNDLE / "_internal"
    prompts = internal / "resources" / "prompts"
    if not prompts.is_dir() or not any(prompts.glob("*.md")):
        problems.append(f"prompts missing in {prompts}")
    if not (internal / "resources" / "samples" / "sample_tender.pdf").is_file():
        problems.append("sample tender missing from the bundle")
    if not (internal / "docx" / "templates").is_dir():
        problems.append("python-docx templates missing (Word export would fail)")
    excluded = [m for m in ("QtQml", "QtQuick", "QtNetwork", "QtSql") if list(internal.glob(f"PySide6/{m}.*"))]
    if excluded:
        problems.append(f"excluded Qt modules were bundled anyway: {excluded}")
    return problems


def smoke_test(timeout: float = 120.0, extra_env: dict[str, str] | None = None,
               expect: str = "visible_at=") -> tuple[bool, str, float]:
    """Run the frozen app offscreen (by default until its window is visible); (ok, output, wall seconds)."""
    exe = executable()
    if not exe.is_file():
        return False, f"no executable at {exe}", 0.0
    with tempfile.TemporaryDirectory(prefix="bidstudio-smoke-") as tmp:
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", BIDSTUDIO_SMOKE_TEST="1",
                   BIDSTUDIO_CONFIG_DIR=str(Path(tmp) / "config"), BIDSTUDIO_DATA_DIR=str(Path(tmp) / "data"))
        env.update(extra_env or {})
        t0 = time.monotonic()
        try:
            proc = subprocess.run([str(exe)], env=env, capture_output=True, text=True, timeout=timeout,
                                  cwd=tmp, check=False)
        except subprocess.TimeoutExpired as exc:
            out = (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            return False, f"timed out after {timeout:.0f} s\n{out}", timeout
        wall = time.monotonic() - t0
    output = proc.stdout + proc.stderr
    ok = proc.returncode == 0 and expect in proc.stdout
    return ok, f"exit code {proc.returncode}\n{output.strip()}", wall


def main() -> int:
    """Build (unless ``--no-build``), check, print figures; 0 when all passed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-build", action="store_true", help="check an existing dist/bidstudio only")
    args = parser.parse_args()

    build_s = None if args.no_build else build()
    problems = check_resources()
    ok, output, wall = smoke_test()
    self_ok, self_output, self_wall = smoke_test(extra_env={"BIDSTUDIO_SELF_CHECK": "1"}, expect="selfcheck_ok")
    size = folder_size(BUNDLE) if BUNDLE.is_dir() else 0
    files = sum(1 for p in BUNDLE.rglob("*") if p.is_file()) if BUNDLE.is_dir() else 0

    print("\n=== BidStudio frozen build ===")
    if build_s is not None:
        print(f"build time:       {build_s:.0f} s")
    print(f"bundle:           {BUNDLE}")
    print(f"bundle size:      {size / 1024 / 1024:.1f} MiB in {files} files")
    for part_size, name in largest_parts(BUNDLE) if BUNDLE.is_dir() else []:
        print(f"  {part_size / 1024 / 1024:8.1f} MiB  {name}")
    m = re.search(r"visible_at=([\d.]+) started_at=([\d.]+)", output)
    if m:
        print(f"start to visible: {float(m.group(1)) - float(m.group(2)):.2f} s (inside the app); "
              f"process wall time {wall:.2f} s")
    print(f"smoke test:       {'OK' if ok else 'FAILED'} (GUI start, window shown, quit)")
    if not ok:
        print(output)
    print(f"self check:       {'OK' if self_ok else 'FAILED'} (sample tender read, PDF child process render, "
          f"Word template) in {self_wall:.1f} s")
    if not self_ok:
        print(self_output)
    for p in problems:
        print(f"resource check:   FAILED: {p}")
    if not problems:
        print("resource check:   OK")
    return 0 if ok and self_ok and not problems else 1


if __name__ == "__main__":
    sys.exit(main())
