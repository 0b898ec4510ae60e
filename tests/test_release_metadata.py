"""Version, licence and the source offer agree everywhere a user meets them (issue 41).

``pyproject.toml``, ``app.__version__``, the About text (the dialog itself: ``tests/ui/test_about_dialog.py``), the
Windows installer script (compiled with makensis where it is installed) and the Linux menu entry
and install script; and where the packaged app keeps the user's work: settings, recovery files,
the library and the OCR cache are in the user's folders, never in the program folder an update
replaces — checked for a packaged layout and by installing one version over another.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import tomllib

import app
from app.core import about

ROOT = Path(__file__).resolve().parent.parent
INSTALLER = ROOT / "build_spec" / "installer"
NSI = INSTALLER / "windows" / "bidstudio.nsi"


def _pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_version_and_licence_are_the_same_everywhere() -> None:
    project = _pyproject()
    assert project["version"] == app.__version__ == about.VERSION
    assert project["license"] == about.LICENCE_ID == "AGPL-3.0-or-later"
    licence = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert licence.lstrip().startswith("GNU AFFERO GENERAL PUBLIC LICENSE") and "Version 3" in licence[:200]
    nsi = NSI.read_text(encoding="utf-8")
    assert re.search(r'!define VERSION "([^"]+)"', nsi).group(1) == app.__version__  # type: ignore[union-attr]
    assert 'MUI_PAGE_LICENSE "..\\..\\..\\LICENSE"' in nsi and about.LICENCE_ID in nsi
    assert "source" in nsi  # the installer names where the source is
    assert "@VERSION@" in (INSTALLER / "linux" / "bidstudio.desktop.in").read_text(encoding="utf-8")
    assert "@VERSION@" in (INSTALLER / "linux" / "install.sh").read_text(encoding="utf-8")
    text = about.about_html()
    for needed in (about.VERSION, about.LICENCE_ID, "不提供任何担保", "源代码", about.source_archive_name(),
                   "LICENSE"):
        assert needed in text


@pytest.mark.skipif(shutil.which("makensis") is None, reason="makensis (NSIS) not installed")
@pytest.mark.parametrize("with_model", [False, True])
def test_the_windows_installer_script_compiles(tmp_path: Path, with_model: bool) -> None:
    """makensis builds the installer from a bundle laid out as PyInstaller and package.py lay it out."""
    dist = tmp_path / "dist"
    (dist / "bidstudio" / "_internal").mkdir(parents=True)
    (dist / "bidstudio" / "bidstudio.exe").write_bytes(b"MZ")
    (dist / "bidstudio" / "_internal" / "base_library.zip").write_bytes(b"PK")
    (dist / "bidstudio" / "source").mkdir()
    (dist / "bidstudio" / "source" / about.source_archive_name()).write_bytes(b"")
    shutil.copy2(ROOT / "LICENSE", dist / "bidstudio" / "LICENSE")
    if with_model:
        (dist / "bidstudio-model").mkdir()
        (dist / "bidstudio-model" / "component.json").write_text("{}", encoding="utf-8")
        (dist / "bidstudio-model" / "llama-server.exe").write_bytes(b"MZ")
    proc = subprocess.run(["makensis", "-V4", f"-DVERSION={app.__version__}", f"-DDIST={dist}", f"-DOUTDIR={dist}",
                           str(NSI)], capture_output=True, text=True, cwd=NSI.parent, check=False, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    setup = dist / f"bidstudio-{app.__version__}-windows-x64-setup.exe"
    assert setup.is_file() and setup.read_bytes()[:2] == b"MZ"
    assert ("llama-server.exe" in proc.stdout) == with_model  # the model is an option only when it was built


def _frozen_layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Pretend to be the packaged program in ``tmp_path/app`` with a home of its own."""
    program_dir = tmp_path / "app"
    (program_dir / "_internal").mkdir(parents=True)
    home = tmp_path / "home"
    for name in ("BIDSTUDIO_CONFIG_DIR", "BIDSTUDIO_DATA_DIR", "BIDSTUDIO_CACHE_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    for var, sub in (("XDG_CONFIG_HOME", ".config"), ("XDG_DATA_HOME", ".local/share"), ("XDG_CACHE_HOME", ".cache"),
                     ("APPDATA", "AppData/Roaming"), ("LOCALAPPDATA", "AppData/Local")):
        monkeypatch.setenv(var, str(home / sub))
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(program_dir / "bidstudio"))
    monkeypatch.setattr(sys, "_MEIPASS", str(program_dir / "_internal"), raising=False)
    return program_dir


def test_the_users_work_lives_outside_the_program_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.core.recovery import default_recovery_dir
    from app.core.settings_model import config_dir, data_dir
    from app.documents.ocr.cache import default_cache_dir
    from app.library.store import default_library_path

    program_dir = _frozen_layout(tmp_path, monkeypatch)
    places = {"settings": config_dir(), "data": data_dir(), "recovery": default_recovery_dir(),
              "library": default_library_path(), "ocr cache": default_cache_dir()}
    for what, place in places.items():
        assert not place.resolve().is_relative_to(program_dir.resolve()), (what, place)
        assert place.resolve().is_relative_to((tmp_path / "home").resolve()), (what, place)


def _fake_release(folder: Path, version: str, with_model: bool = False) -> Path:
    """An unpacked release as package.py makes it (the program is a script printing its version)."""
    top = folder / f"bidstudio-{version}"
    (top / "_internal").mkdir(parents=True)
    (top / "share").mkdir()
    (top / "bidstudio").write_text(f"#!/bin/sh\necho {version}\n", encoding="utf-8")
    (top / "bidstudio").chmod(0o755)
    (top / "_internal" / f"only-in-{version}.txt").write_text(version, encoding="utf-8")
    shutil.copy2(ROOT / "resources" / "icons" / "bidstudio-256.png", top / "share" / "bidstudio-256.png")
    desktop = (INSTALLER / "linux" / "bidstudio.desktop.in").read_text(encoding="utf-8")
    (top / "share" / "bidstudio.desktop").write_text(desktop.replace("@VERSION@", version), encoding="utf-8")
    for script in ("install.sh", "uninstall.sh"):
        text = (INSTALLER / "linux" / script).read_text(encoding="utf-8").replace("@VERSION@", version)
        (top / script).write_text(text, encoding="utf-8")
    if with_model:
        model = folder / f"bidstudio-model-{version}"
        (model / "model").mkdir(parents=True)
        (model / "model" / "llama-server").write_bytes(b"")
        shutil.copy2(top / "install.sh", model / "install.sh")
        return model
    return top


@pytest.mark.skipif(sys.platform == "win32", reason="the Linux install script")
def test_installing_a_newer_version_keeps_the_model_and_the_users_work(tmp_path: Path) -> None:
    prefix, home = tmp_path / "prefix", tmp_path / "home"
    user_data = home / ".local" / "share" / "BidStudio"
    user_data.mkdir(parents=True)
    (user_data / "library.sqlite3").write_text("my past bids", encoding="utf-8")
    env = dict(os.environ, PREFIX=str(prefix), HOME=str(home))

    def install(folder: Path) -> str:
        proc = subprocess.run(["sh", str(folder / "install.sh")], env=env, capture_output=True, text=True,
                              check=False, timeout=60)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    install(_fake_release(tmp_path / "r1", "0.1.0"))
    install(_fake_release(tmp_path / "m1", "0.1.0", with_model=True))
    app_dir = prefix / "lib" / "bidstudio"
    assert (app_dir / "model" / "llama-server").is_file()
    out = install(_fake_release(tmp_path / "r2", "0.2.0"))
    assert "0.2.0" in out
    assert subprocess.run([str(prefix / "bin" / "bidstudio")], capture_output=True, text=True,
                          check=True).stdout.strip() == "0.2.0"
    assert (app_dir / "_internal" / "only-in-0.2.0.txt").is_file()
    assert not (app_dir / "_internal" / "only-in-0.1.0.txt").exists()  # nothing of the old version lingers
    assert (app_dir / "model" / "llama-server").is_file()  # the model component stays
    assert (user_data / "library.sqlite3").read_text(encoding="utf-8") == "my past bids"
    desktop = (prefix / "share" / "applications" / "bidstudio.desktop").read_text(encoding="utf-8")
    assert f'Exec="{app_dir}/bidstudio" %f' in desktop and "X-BidStudio-Version=0.2.0" in desktop
    assert (prefix / "share" / "icons" / "hicolor" / "256x256" / "apps" / "bidstudio.png").is_file()
    subprocess.run(["sh", str(app_dir / "uninstall.sh")], env=env, capture_output=True, check=True, timeout=60)
    assert not app_dir.exists() and (user_data / "library.sqlite3").is_file()


def test_an_older_versions_settings_recovery_file_and_library_are_found_after_an_update(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What one version wrote is what the next finds once the program folder was replaced (the data paths
    depend on the user's folders, never on the program's): its settings, its crashed session's recovery
    file — offered, and restored with the unsaved edit — and its library with the facts stored in it."""
    import json

    import app.library.engines  # noqa: F401  (registers the SQLite engine)
    from app.core.project import Project
    from app.core.recovery import (
        default_recovery_dir,
        load_recovery,
        recovery_file_for,
        scan_recoveries,
        write_recovery,
    )
    from app.core.settings_model import EMBEDDED, AppSettings, ModelSettings, load_settings, save_settings
    from app.library.store import LibraryStore, default_library_path

    program_dir = _frozen_layout(tmp_path, monkeypatch)
    (program_dir / "_internal" / "only-in-old.txt").write_text("old", encoding="utf-8")
    save_settings(AppSettings(model=ModelSettings(provider=EMBEDDED)))
    file = recovery_file_for(None, "oldsession01", default_recovery_dir())
    write_recovery(Project(title="升级前未保存的项目"), None, file)
    envelope = json.loads(file.read_text(encoding="utf-8"))
    envelope.update(pid=2**22 + 7, process="")  # the old version's process is gone (it crashed or was stopped)
    file.write_text(json.dumps(envelope, ensure_ascii=False), encoding="utf-8")
    store = LibraryStore(default_library_path())
    try:
        assert store.add_facts([("staff", {"name": "张工", "title": "高级工程师"}, "升级前")])[0] is not None
    finally:
        store.close()

    shutil.rmtree(program_dir)  # the update: a new program folder in the same place
    (program_dir / "_internal").mkdir(parents=True)
    (program_dir / "_internal" / "only-in-new.txt").write_text("new", encoding="utf-8")

    assert load_settings().model.provider == EMBEDDED
    offers = scan_recoveries().offers
    assert [info.path for info in offers] == [file] and offers[0].newer_than_project
    assert load_recovery(offers[0]).title == "升级前未保存的项目"
    store = LibraryStore(default_library_path())
    try:
        assert [(f.kind, f.data.get("name")) for f in store.facts()] == [("staff", "张工")]
    finally:
        store.close()
