"""Convert legacy .doc/.wps files to .docx with LibreOffice, when it is installed.

python-docx reads only .docx; old Word (.doc) and WPS (.wps) files are converted in a
temporary folder with ``soffice --headless --convert-to docx``. Without LibreOffice the
user gets a clear message to save the file as .docx or PDF.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from app.core.external_command import ExternalCommandError, run_command, which
from app.documents.errors import ConversionFailedError, ConverterMissingError
from app.documents.model import TenderDocument

CONVERT_TIMEOUT_S = 120.0


def find_soffice() -> str | None:
    """Absolute path of the LibreOffice executable (``soffice`` or ``libreoffice``), or None."""
    found = which("soffice", "libreoffice")
    return str(found) if found is not None else None


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
        try:
            # files as Path objects: passed absolute, so "-name.doc" is never read as an option
            result = run_command(soffice, "--headless", "--norestore", "--convert-to", "docx",
                                 "--outdir", Path(tmp), Path(path), timeout=CONVERT_TIMEOUT_S, env=env)
        except ExternalCommandError as exc:
            raise ConversionFailedError(
                "用 LibreOffice 转换文件失败（无法启动 LibreOffice）", path=str(path), detail=str(exc)
            ) from exc
        if result.timed_out:
            raise ConversionFailedError(
                f"用 LibreOffice 转换文件超时（超过 {CONVERT_TIMEOUT_S:.0f} 秒），文件可能已损坏或过大", path=str(path)
            )
        out = Path(tmp) / (path.stem + ".docx")
        if result.returncode != 0 or not out.is_file() or out.stat().st_size == 0:
            raise ConversionFailedError(
                "LibreOffice 无法转换该文件，文件可能已损坏", path=str(path), detail=result.output_tail()
            )
        doc = read_docx(out)
    return doc.model_copy(update={"source_path": str(path), "kind": "doc"})
