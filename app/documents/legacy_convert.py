"""Convert legacy .doc/.wps files to .docx with LibreOffice, when it is installed.

python-docx reads only .docx; old Word (.doc) and WPS (.wps) files are converted in a
temporary folder with ``soffice --headless --convert-to docx``. Without LibreOffice the
user gets a clear message to save the file as .docx or PDF.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from app.documents.errors import ConversionFailedError, ConverterMissingError
from app.documents.model import TenderDocument

CONVERT_TIMEOUT_S = 120.0


def find_soffice() -> str | None:
    """Path of the LibreOffice executable (``soffice`` or ``libreoffice``), or None."""
    for name in ("soffice", "libreoffice"):
        found = shutil.which(name)
        if found:
            return found
    return None


def convert_and_read(path: Path, read_docx: Callable[[Path], TenderDocument]) -> TenderDocument:
    """Convert ``path`` to .docx in a temp folder and read it with ``read_docx``."""
    soffice = find_soffice()
    if soffice is None:
        raise ConverterMissingError(
            f"{path.suffix or '该'}格式的文件需要安装 LibreOffice 才能读取；请安装 LibreOffice，"
            "或在 Word/WPS 中另存为 .docx 或 PDF 后再打开",
            path=str(path),
        )
    with tempfile.TemporaryDirectory(prefix="bidstudio-convert-") as tmp:
        env = dict(os.environ, HOME=tmp)  # a private profile: a running LibreOffice does not block us
        cmd = [soffice, "--headless", "--norestore", "--convert-to", "docx", "--outdir", tmp, str(path)]
        try:
            proc = subprocess.run(cmd, capture_output=True, timeout=CONVERT_TIMEOUT_S, env=env, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ConversionFailedError(
                "用 LibreOffice 转换文件失败（超时或无法启动）", path=str(path), detail=str(exc)
            ) from exc
        out = Path(tmp) / (path.stem + ".docx")
        if proc.returncode != 0 or not out.is_file() or out.stat().st_size == 0:
            detail = (proc.stderr or proc.stdout or b"").decode("utf-8", "replace")[-300:]
            raise ConversionFailedError(
                "LibreOffice 无法转换该文件，文件可能已损坏", path=str(path), detail=detail
            )
        doc = read_docx(out)
    return doc.model_copy(update={"source_path": str(path), "kind": "doc"})
