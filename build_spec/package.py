"""Turn the built bundle (and the model component) into what a bid writer downloads.

Usage (from the repository root, after ``python build_spec/build_and_check.py``)::

    python build_spec/package.py            # Linux tarballs in dist/
    python build_spec/package.py --nsis     # also compile the Windows installer script with makensis

Linux: ``dist/bidstudio-VERSION-linux-x86_64.tar.gz`` (the program, ``install.sh`` that puts it
into ``~/.local/lib/bidstudio`` with a menu entry and icon, ``uninstall.sh``) and, when
``dist/bidstudio-model`` exists, ``dist/bidstudio-model-VERSION-linux-x86_64.tar.gz`` (``model/``
and the same ``install.sh``). Windows: ``build_spec/installer/windows/bidstudio.nsi`` (NSIS) with
the model as an optional component; ``--nsis`` compiles it — on Windows into the real installer,
here against the Linux bundle as a check that every path it names exists.

:func:`add_release_files` (called by ``build_and_check.py`` after PyInstaller) puts into the
bundle what the licence asks for and the installers need: ``LICENSE``, the source of this very
version (``source/bidstudio-VERSION-source.tar.gz``, from ``git archive``) and ``share/`` (icon
and menu entry template).
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "dist"
BUNDLE = DIST / "bidstudio"
MODEL = DIST / "bidstudio-model"
INSTALLER = ROOT / "build_spec" / "installer"
#: What the source archive holds: everything needed to rebuild the program.
SOURCE_PATHS = ["app", "resources", "build_spec", "pyproject.toml", "LICENSE", "README.md"]


def version() -> str:
    """The program's version (``app.core.about``: one place for the app, the About dialog and installers)."""
    return str(_about().VERSION)


def _about():
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from app.core import about

    return about


def source_archive(target: Path) -> Path:
    """``git archive`` of HEAD (the committed source of this build) as a .tar.gz at ``target``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    prefix = f"bidstudio-{version()}/"
    proc = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar.gz", f"--prefix={prefix}", "HEAD",
                           "--", *SOURCE_PATHS], capture_output=True, check=False)
    if proc.returncode != 0:  # not a git checkout (a source archive itself): pack the files as they are
        with tarfile.open(target, "w:gz") as archive:
            for name in SOURCE_PATHS:
                archive.add(ROOT / name, arcname=prefix + name,
                            filter=lambda info: None if "__pycache__" in info.name else info)
        return target
    target.write_bytes(proc.stdout)
    return target


def add_release_files(bundle: Path = BUNDLE) -> list[str]:
    """LICENSE, the source archive and ``share/`` (icon, menu entry) into the bundle; what was added."""
    archive_name = _about().source_archive_name()
    shutil.copy2(ROOT / "LICENSE", bundle / "LICENSE")
    source_dir = bundle / _about().SOURCE_FOLDER
    if source_dir.exists():
        shutil.rmtree(source_dir)
    source_archive(source_dir / archive_name)
    share = bundle / "share"
    share.mkdir(exist_ok=True)
    shutil.copy2(ROOT / "resources" / "icons" / "bidstudio-256.png", share / "bidstudio-256.png")
    desktop = (INSTALLER / "linux" / "bidstudio.desktop.in").read_text(encoding="utf-8")
    (share / "bidstudio.desktop").write_text(desktop.replace("@VERSION@", version()), encoding="utf-8")
    return ["LICENSE", f"{source_dir.name}/{archive_name}", "share/bidstudio-256.png", "share/bidstudio.desktop"]


def _script(name: str) -> bytes:
    return (INSTALLER / "linux" / name).read_text(encoding="utf-8").replace("@VERSION@", version()).encode()


def _add_bytes(archive: tarfile.TarFile, arcname: str, data: bytes, mode: int = 0o755) -> None:
    info = tarfile.TarInfo(arcname)
    info.size = len(data)
    info.mode = mode
    archive.addfile(info, io.BytesIO(data))


def linux_tarballs() -> list[Path]:
    """The program's tarball and, when the component is built, the model's; their paths."""
    made = []
    top = f"bidstudio-{version()}"
    app_tar = DIST / f"bidstudio-{version()}-linux-x86_64.tar.gz"
    with tarfile.open(app_tar, "w:gz", compresslevel=6) as archive:
        archive.add(BUNDLE, arcname=top)
        _add_bytes(archive, f"{top}/install.sh", _script("install.sh"))
        _add_bytes(archive, f"{top}/uninstall.sh", _script("uninstall.sh"))
    made.append(app_tar)
    if (MODEL / "component.json").is_file():
        model_tar = DIST / f"bidstudio-model-{version()}-linux-x86_64.tar.gz"
        with tarfile.open(model_tar, "w:gz", compresslevel=6) as archive:
            archive.add(MODEL, arcname=f"bidstudio-model-{version()}/model")
            _add_bytes(archive, f"bidstudio-model-{version()}/install.sh", _script("install.sh"))
        made.append(model_tar)
    return made


def nsis(out_dir: Path = DIST) -> tuple[int, str]:
    """Compile the NSIS script (makensis) with this version; (exit code, output)."""
    makensis = shutil.which("makensis")
    if makensis is None:
        return 127, "makensis not found (apt-get install nsis / choco install nsis)"
    exe = "bidstudio.exe" if (BUNDLE / "bidstudio.exe").is_file() else "bidstudio"
    script = INSTALLER / "windows" / "bidstudio.nsi"
    cmd = [makensis, "-V2", f"-DVERSION={version()}", f"-DDIST={DIST}", f"-DOUTDIR={out_dir}", f"-DEXE={exe}",
           str(script)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=script.parent, check=False)
    return proc.returncode, (proc.stdout + proc.stderr).strip()


def mib(path: Path) -> str:
    """A file's size in MiB, formatted."""
    return f"{path.stat().st_size / 2**20:.1f} MiB"


def main() -> int:
    """Pack the tarballs (and the NSIS installer when asked); print what was made."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nsis", action="store_true", help="compile the Windows installer script with makensis")
    args = parser.parse_args()
    if not (BUNDLE / "_internal").is_dir():
        print(f"no bundle at {BUNDLE}: run python build_spec/build_and_check.py first", file=sys.stderr)
        return 2
    if not (BUNDLE / "LICENSE").is_file():
        add_release_files()
    code = 0
    if sys.platform.startswith("linux"):
        for path in linux_tarballs():
            print(f"{path.name}: {mib(path)}")
    if args.nsis:
        code, output = nsis()
        print(f"makensis: exit code {code}")
        if code:
            print(output[-3000:])
        else:
            made = sorted(DIST.glob(f"bidstudio-{version()}-windows-x64-setup.exe"))
            for path in made:
                print(f"{path.name}: {mib(path)} (built from the {'Windows' if os.name == 'nt' else 'Linux'} bundle)")
    return code


if __name__ == "__main__":
    sys.exit(main())
