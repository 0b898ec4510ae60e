"""The one entry point for reading a tender: ``load_tender(path)``.

The format is decided from the file's first bytes (a ".pdf" that is really a Word file
is read as Word; a ".pdf" that is something else is reported as such), after the size
checks. Every failure is a :class:`app.documents.errors.DocumentError` with a Chinese
message; problems that leave some text usable become diagnostics on the document.
"""

from __future__ import annotations

import errno
import os
import stat
import time
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

from app.core.input_limits import LIMITS, size_text
from app.documents.errors import (
    CorruptedFileError,
    DocumentNotFoundError,
    EmptyFileError,
    FileTooLargeError,
    NotRegularFileError,
    UnsupportedFormatError,
    corrupted_or_gone,
    vanished_message,
)
from app.documents.model import Diagnostic, DiagnosticCode, Severity, TenderDocument
from app.documents.zip_guard import check_zip_container

if TYPE_CHECKING:
    from app.documents.ocr.apply import OcrSettings

DEFAULT_MAX_BYTES = LIMITS.tender_max_bytes
TEXT_SUFFIXES = frozenset({".txt", ".md", ".markdown", ".text"})
LEGACY_SUFFIXES = frozenset({".doc", ".wps", ".wpt", ".dot", ".rtf"})
SUPPORTED_SUFFIXES = frozenset({".pdf", ".docx", *TEXT_SUFFIXES, *LEGACY_SUFFIXES})
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def _size_text(n: int) -> str:
    """Bytes as MB with one decimal, for messages."""
    return size_text(n)


def sniff_kind(path: Path, head: bytes) -> str:
    """"pdf", "docx", "legacy" or "text" from the first bytes and the suffix (raises when neither fits)."""
    suffix = path.suffix.lower()
    if b"%PDF-" in head[:1024]:
        return "pdf"
    if head.startswith(b"PK\x03\x04"):
        check_zip_container(path)  # a zip bomb is refused before anything is inflated
        try:
            with zipfile.ZipFile(path) as zf:
                names = set(zf.namelist())
        except (zipfile.BadZipFile, OSError) as exc:
            raise corrupted_or_gone(path, "文件已损坏：压缩包结构无法读取", exc) from exc
        if "word/document.xml" in names:
            return "docx"
        if suffix == ".docx":
            raise CorruptedFileError("该文件扩展名为 .docx，但不是有效的 Word 文档", path=str(path))
        raise UnsupportedFormatError(_unsupported_message(path), path=str(path))
    if head.startswith(_OLE_MAGIC) or (suffix == ".rtf" and head.startswith(b"{\\rtf")):
        return "legacy"
    if suffix == ".pdf":
        raise CorruptedFileError("该文件扩展名为 .pdf，但内容不是 PDF（可能已损坏或被改了扩展名）", path=str(path))
    if suffix == ".docx":
        raise CorruptedFileError("该文件扩展名为 .docx，但内容不是 Word 文档（可能已损坏或被改了扩展名）", path=str(path))
    if suffix in LEGACY_SUFFIXES:
        raise CorruptedFileError(f"该文件扩展名为 {suffix}，但内容不是 Word/WPS 文档，文件可能已损坏", path=str(path))
    if suffix in TEXT_SUFFIXES:
        return "text"
    raise UnsupportedFormatError(_unsupported_message(path), path=str(path))


def _unsupported_message(path: Path) -> str:
    """Chinese message for a file type the app cannot read."""
    kind = path.suffix or "无扩展名"
    return f"不支持的文件类型（{kind}）。请打开 PDF、Word（.docx/.doc）、WPS（.wps）或文本（.txt/.md）格式的招标文件"


def _regular_file_size(p: Path) -> int:
    """The size of ``p`` when it is a regular file; a DocumentError saying why not otherwise."""
    try:
        st = os.stat(p)
    except FileNotFoundError as exc:
        raise DocumentNotFoundError(f"找不到文件：{p}", path=str(p)) from exc
    except (OSError, ValueError) as exc:
        code = getattr(exc, "errno", None)
        if code in (errno.EACCES, errno.EPERM):
            reason = "没有读取权限"
        elif code == errno.ENAMETOOLONG:
            reason = "路径太长"
        elif code in (errno.ENOTDIR, errno.ELOOP):
            reason = "路径无效"
        else:
            reason = "路径无效或无法访问"
        raise DocumentNotFoundError(f"无法读取文件（{reason}）：{p}", path=str(p), detail=str(exc)) from exc
    if stat.S_ISDIR(st.st_mode):
        raise NotRegularFileError(f"这是一个文件夹，不是文件：{p}", path=str(p))
    if not stat.S_ISREG(st.st_mode):
        kind = "管道" if stat.S_ISFIFO(st.st_mode) else "设备" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) \
            else "套接字" if stat.S_ISSOCK(st.st_mode) else "特殊文件"
        raise NotRegularFileError(f"这不是普通文件（{kind}），不能作为招标文件读取：{p}", path=str(p))
    if not os.access(p, os.R_OK):
        raise DocumentNotFoundError(f"无法读取文件（没有读取权限）：{p}", path=str(p))
    return st.st_size


def load_tender(
    path: str | Path, password: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES,
    ocr: OcrSettings | None = None,
) -> TenderDocument:
    """Read a tender file of any supported type into a TenderDocument.

    ``password`` opens PDFs with a user password. ``ocr`` says whether PDF pages without
    usable text are read by OCR (default: not). Raises a DocumentError subclass with
    ``code`` and ``message_zh`` when the file cannot be read at all.
    """
    t0 = time.perf_counter()
    p = Path(path).expanduser()
    size = _regular_file_size(p)
    try:
        with p.open("rb") as fh:
            head = fh.read(2048)
    except FileNotFoundError as exc:  # there a moment ago (its size was read): deleted or moved since
        raise DocumentNotFoundError(vanished_message(p), path=str(p), detail=str(exc)) from exc
    except OSError as exc:
        raise DocumentNotFoundError(f"无法读取文件（权限不足或被占用）：{p}", path=str(p), detail=str(exc)) from exc
    if size == 0:
        if head:  # /proc and similar: a "regular" file that reports 0 bytes but has content
            raise NotRegularFileError(
                f"这不是磁盘上的普通文件（系统或虚拟文件，大小未知），不能作为招标文件读取：{p}", path=str(p)
            )
        raise EmptyFileError("文件是空的（0 字节），可能下载未完成，请重新下载招标文件", path=str(p))
    if size > max_bytes:
        raise FileTooLargeError(
            f"文件太大（{_size_text(size)}），超过 {_size_text(max_bytes)} 的上限；请只导入招标文件的正文部分",
            path=str(p),
            size=size,
            limit=max_bytes,
        )
    kind = sniff_kind(p, head)
    # Each reader is imported when its kind is read: PyMuPDF alone costs ~0.4 s to import.
    if kind == "pdf":
        from app.documents.pdf_reader import read_pdf

        doc = read_pdf(p, password)
        if ocr is not None:
            from app.documents.ocr.apply import ocr_document

            ocr_document(doc, p, password, ocr)
    elif kind == "docx":
        from app.documents.docx_reader import read_docx

        doc = read_docx(p)
    elif kind == "legacy":
        from app.documents.docx_reader import read_docx
        from app.documents.legacy_convert import convert_and_read

        doc = convert_and_read(p, read_docx)
        doc.diagnostics.insert(
            0,
            Diagnostic(
                code=DiagnosticCode.CONVERTED,
                severity=Severity.INFO,
                message_zh=f"{p.suffix} 文件已用 LibreOffice 转换为 .docx 后读取，版式和页码可能略有出入",
            ),
        )
    else:
        from app.documents.text_reader import read_text

        doc = read_text(p)
    doc.timings["load_total"] = time.perf_counter() - t0
    return doc
