"""Refuse zip bombs before python-docx inflates anything.

A DOCX is a zip; python-docx reads every part it references into memory and parses
the XML parts with lxml. The central directory declares each member's compressed and
uncompressed size, and :mod:`zipfile` never inflates a member beyond its declared
size (a lying header ends in a CRC error instead), so checking the declared sizes
and ratios bounds memory before the first byte is inflated.
"""

from __future__ import annotations

from pathlib import Path

from app.core.input_limits import LIMITS, ZipLimits
from app.core.zip_check import declared_entries, zip_problem
from app.documents.errors import DecompressedTooLargeError, corrupted_or_gone

__all__ = ["check_zip_container", "declared_entries"]


def _refuse(path: Path, what: str) -> DecompressedTooLargeError:
    return DecompressedTooLargeError(
        f"文件解压后过大：{what}。这不是正常的 Word 文件（可能已损坏或是恶意构造的压缩包），已拒绝读取",
        path=str(path),
        detail=what,
    )


def check_zip_container(path: Path, limits: ZipLimits = LIMITS.zip) -> None:
    """Raise ``DecompressedTooLargeError`` when ``path``'s members would inflate past ``limits``.

    Reads only the central directory (:func:`app.core.zip_check.zip_problem`). ``CorruptedFileError``
    when that cannot be read (:class:`FileVanishedError` when the file is gone).
    """
    problem = zip_problem(path, limits)
    if problem is None:
        return
    if problem.kind == "unreadable":
        raise corrupted_or_gone(path, "文件已损坏：压缩包结构无法读取", OSError(problem.detail))
    raise _refuse(path, problem.what)
