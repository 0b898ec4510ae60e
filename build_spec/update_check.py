"""Install a newer version over an older one on the clean root: the user's work must survive.

Usage (as root, from the repository root)::

    python build_spec/update_check.py --old-commit COMMIT [--new-commit HEAD]

Builds the Linux tarball of each commit (a git worktree per commit under ``build/update``, built
with this checkout's virtual environment: ``build_and_check.py`` then ``package.py``; about five
minutes each on two cores), then, in the clean root of ``clean_machine_check.py`` without network:
installs the old version and lets it walk a first session (sample, Word, a scanned page read by
OCR — which fills the OCR cache — quit), records every file the old version left in the user's
folders (settings, window layout, recovery, library, OCR cache), installs the new version over it
with its ``install.sh`` and walks the same session with the new version. Passes when every one of
those files is still there unchanged or updated by the new version — none deleted by the install —
the program folder holds nothing of the old version, and the new version read the scanned page
from the old version's OCR cache (no new cache entry under the old key; a version whose OCR models
differ reads the page again under its own key and leaves the old entries alone). Slow; not part of the test suite (the suite
checks the install script and the data paths quickly in ``tests/test_release_metadata.py``).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "build_spec"))

WORK = ROOT / "build" / "update"
USER_FOLDERS = (".config/BidStudio", ".local/share/BidStudio", ".cache/BidStudio")


def build_commit(commit: str) -> Path:
    """The Linux tarball of ``commit`` (a worktree built with this venv's Python)."""
    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", commit], capture_output=True, text=True,
                         check=True).stdout.strip()
    tree = WORK / sha
    if not tree.exists():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), sha], check=True)
    tarballs = sorted((tree / "dist").glob("bidstudio-*-linux-x86_64.tar.gz"))
    if not tarballs:
        nice = ["nice", "-n", "10"]
        subprocess.run([*nice, sys.executable, "build_spec/build_and_check.py"], cwd=tree, check=False)
        subprocess.run([*nice, sys.executable, "build_spec/package.py"], cwd=tree, check=True)
        tarballs = sorted((tree / "dist").glob("bidstudio-*-linux-x86_64.tar.gz"))
    return tarballs[0]


def user_files(home: Path) -> dict[str, str]:
    """Relative path → SHA-256 of every file in the user's BidStudio folders."""
    found = {}
    for folder in USER_FOLDERS:
        for path in sorted((home / folder).rglob("*")):
            if path.is_file():
                found[str(path.relative_to(home))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


#: The unsaved edit the old version leaves behind in its recovery file (the first chapter's description).
MARKER = "升级前未保存的修改：请保留"


def walk(root: Path, label: str, extra: dict[str, str] | None = None, last: str = "ocr_page",
         exit_code: int = 0) -> list[str]:
    """Run the installed program's walk in the root (no network, Xvfb); its step lines.

    ``extra``: more walk settings (``clean_walk``'s environment); the walk must reach step ``last`` and the
    program end with ``exit_code`` (128 + 15 after the SIGTERM that leaves a recovery file).
    """
    from clean_machine_check import HOME, in_root

    from tests.tools.xvfb_walkthrough import start_xvfb

    xvfb, display = start_xvfb((1366, 768))
    try:
        env = {"BIDSTUDIO_CLEAN_WALK": f"{HOME}/walk-{label}", **(extra if extra is not None else
                                                                 {"BIDSTUDIO_CLEAN_WALK_SCAN": f"{HOME}/scan.pdf"})}
        proc = subprocess.run(in_root(root, f"{HOME}/.local/bin/bidstudio", display=display, env=env),
                              capture_output=True, text=True, timeout=1800, check=False)
    finally:
        xvfb.terminate()
        xvfb.wait(10)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("clean_walk ")]
    for line in lines:
        print(f"  {label}: {line}")
    failed = [line for line in lines if " ok=0" in line]
    if proc.returncode != exit_code or failed or not any(f"step={last} " in line and "ok=1" in line for line in lines):
        print(proc.stdout[-4000:] + proc.stderr[-2000:])
        raise SystemExit(f"the {label} version's walk failed (exit code {proc.returncode})")
    return lines


def recovery_files(home: Path) -> dict[str, str]:
    """The user's recovery files (relative path → text) that hold the old version's unsaved edit."""
    return {str(p.relative_to(home)): p.read_text(encoding="utf-8")
            for p in sorted((home / ".local/share/BidStudio/recovery").glob("*.recovery.json"))
            if MARKER in p.read_text(encoding="utf-8")}


def main() -> int:
    """Build both, install old, walk, install new over it, walk, compare."""
    from build_and_check import scanned_scoring_pdf
    from clean_machine_check import DEFAULT_ROOT, HOME, in_root, make_root, unpack

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old-commit", required=True)
    parser.add_argument("--new-commit", default="HEAD")
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    args = parser.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("run as root (unshare, chroot, mount)")
    old_tar, new_tar = build_commit(args.old_commit), build_commit(args.new_commit)
    print(f"old: {old_tar.name} ({args.old_commit}); new: {new_tar.name} ({args.new_commit})")
    root = args.root.resolve()
    if not (root / "bin" / "sh").exists():
        make_root(root)
    home = root / HOME.lstrip("/")
    shutil.rmtree(home, ignore_errors=True)
    shutil.rmtree(root / "opt" / "release", ignore_errors=True)
    home.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy2(scanned_scoring_pdf(Path(tmp)), home / "scan.pdf")

    program = home / ".local" / "lib" / "bidstudio"

    def install(tarball: Path, label: str) -> bool:
        """Install ``tarball``; whether the program folder then holds exactly its files (by their hashes)."""
        target = root / "opt" / "release" / label
        target.mkdir(parents=True)
        top = unpack(tarball, target)
        proc = subprocess.run(in_root(root, f"cd /opt/release/{label}/{top.name} && sh install.sh"),
                              capture_output=True, text=True, check=False)
        if proc.returncode:
            raise SystemExit(f"install of {label} failed: {proc.stdout}{proc.stderr}")
        shipped = {str(p.relative_to(top)): hashlib.sha256(p.read_bytes()).hexdigest()
                   for p in top.rglob("*") if p.is_file() and not p.is_symlink()}
        installed = {str(p.relative_to(program)): hashlib.sha256(p.read_bytes()).hexdigest()
                     for p in program.rglob("*") if p.is_file() and not p.is_symlink()}
        same = installed == shipped
        print(f"installed {label}: {len(installed)} files in the program folder, "
              f"{'exactly' if same else 'NOT exactly'} the {len(shipped)} files of {tarball.name}")
        return same

    old_exact = install(old_tar, "old")
    walk(root, "old")
    # A second session of the old version ends with unsaved work and a SIGTERM (the machine shut down for the
    # update, a killed session): its recovery file must survive the update and be offered by the new version.
    walk(root, "old-unsaved", {"BIDSTUDIO_CLEAN_WALK_LEAVE_WORK": MARKER}, last="leave_work", exit_code=128 + 15)
    left = recovery_files(home)
    print(f"the old version's unsaved work is in {len(left)} recovery file(s): {sorted(left)}")
    before = user_files(home)
    print(f"the old version left {len(before)} files in the user's folders: {sorted(before)}")
    new_exact = install(new_tar, "new")
    after_install = user_files(home)
    gone = sorted(set(before) - set(after_install))
    changed = sorted(k for k in before if k in after_install and after_install[k] != before[k])
    version_files = sorted(p.name for p in (program / "source").glob("*.tar.gz"))
    walk(root, "new", {"BIDSTUDIO_CLEAN_WALK_RECOVER": MARKER, "BIDSTUDIO_CLEAN_WALK_SCAN": f"{HOME}/scan.pdf"})
    after = user_files(home)
    new_cache = sorted(k for k in set(after) - set(before) if "/ocr/" in k)
    print(f"after installing the new version: {len(gone)} files gone, {len(changed)} changed by the install; "
          f"program folder's source archive: {version_files}")
    print(f"after the new version's session: {len(after)} files; new OCR cache entries: {new_cache or 'none'}")
    problems = []
    if gone or changed:
        problems.append(f"the install touched the user's files: gone {gone}, changed {changed}")
    if not before:
        problems.append("the old version wrote nothing to the user's folders (nothing was tested)")
    if not left:
        problems.append("the old version left no recovery file with its unsaved edit (recovery not tested)")
    kinds = {k: any(f"/{part}" in k for k in before) for k, part in
             (("settings", "BidStudio/settings.json"), ("recovery", "BidStudio/recovery/"),
              ("library", "BidStudio/library/"))}
    print(f"kinds of user files the old version left: {kinds}")
    if not all(kinds.values()):
        problems.append(f"missing among the old version's files: {[k for k, v in kinds.items() if not v]}")
    # An entry is named by its page and the OCR engine's key (engine version, models, their weights' storage);
    # a new version with other models reads the page again under its own key and leaves the old entries alone.
    old_keys = {ocr_key(k) for k in before if "/ocr/" in k}
    reread = [k for k in new_cache if ocr_key(k) in old_keys]
    if reread:
        problems.append(f"the new version did not use the old version's OCR cache: {reread}")
    elif new_cache:
        print(f"the OCR models changed ({sorted(old_keys)} -> {sorted({ocr_key(k) for k in new_cache})}): "
              "the page was read again under the new key; the old entries are kept")
    if not old_keys:
        problems.append("the old version left no OCR cache entry (the cache was not tested)")
    if not (old_exact and new_exact):
        problems.append("a program folder did not hold exactly the files of the version installed")
    if len(version_files) != 1:
        problems.append(f"the program folder holds more than one version's files: {version_files}")
    print("update check: " + ("OK" if not problems else "FAILED: " + "; ".join(problems)))
    return 1 if problems else 0


def ocr_key(path: str) -> str:
    """The engine key of an OCR cache entry ("…/p00001-rapidocr3.10-ppocrv6s-8-f16w.json" -> "rapidocr3.10-ppocrv6s-8-f16w")."""
    name = path.rsplit("/", 1)[-1].removesuffix(".json")
    return name.split("-", 1)[1] if "-" in name else name


if __name__ == "__main__":
    sys.exit(main())
