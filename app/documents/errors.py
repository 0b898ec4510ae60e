"""Errors raised when a tender file cannot be opened at all.

Each class has a stable ``code`` (for the CLI and logs) and a ``message_zh`` that the UI
shows as is. Problems that still leave usable text (scanned pages, garbled layers) are
not errors but :class:`app.documents.model.Diagnostic` entries.
"""

from __future__ import annotations

import os
from pathlib import Path


class DocumentError(Exception):
    """Base class: the file cannot be read into a TenderDocument."""

    code = "document_error"

    def __init__(self, message_zh: str, *, path: str = "", detail: str = "") -> None:
        super().__init__(message_zh)
        self.message_zh = message_zh
        self.path = path
        self.detail = detail

    def __str__(self) -> str:
        return f"{self.message_zh}（{self.detail}）" if self.detail else self.message_zh


class DocumentNotFoundError(DocumentError):
    """The path does not exist or is not a regular file."""

    code = "not_found"


class EmptyFileError(DocumentError):
    """The file has 0 bytes (an interrupted download, usually)."""

    code = "empty_file"


class FileTooLargeError(DocumentError):
    """The file is over the configured size limit."""

    code = "too_large"

    def __init__(self, message_zh: str, *, path: str = "", size: int = 0, limit: int = 0) -> None:
        super().__init__(message_zh, path=path, detail=f"{size} > {limit} bytes")
        self.size = size
        self.limit = limit


class UnsupportedFormatError(DocumentError):
    """Not a PDF, Word, WPS or text file."""

    code = "unsupported_type"


class CorruptedFileError(DocumentError):
    """The file claims a format but its content is broken or is something else."""

    code = "corrupted"


class PasswordRequiredError(DocumentError):
    """The PDF has a user (open) password; ask the user and load again with it."""

    code = "password_required"


class WrongPasswordError(PasswordRequiredError):
    """A password was given but does not open the PDF."""

    code = "wrong_password"


class ConverterMissingError(DocumentError):
    """A .doc/.wps file needs LibreOffice (soffice) to convert it, and none is installed."""

    code = "converter_missing"


class ConversionFailedError(DocumentError):
    """LibreOffice ran but produced no usable .docx."""

    code = "conversion_failed"


class DecompressedTooLargeError(DocumentError):
    """A zip container (DOCX) would inflate beyond the input limits: a zip bomb or a broken file."""

    code = "decompressed_too_large"


class NotRegularFileError(DocumentNotFoundError):
    """The path is a device, a pipe, a folder or a system file (``/proc``) rather than a file on disk."""

    code = "not_regular_file"


class FileVanishedError(DocumentNotFoundError):
    """The file was there when the read began and is gone now (deleted or moved while being read)."""

    code = "vanished"


def vanished_message(path: str | os.PathLike[str]) -> str:
    """What to say when a file disappeared while it was being read."""
    return f"文件“{Path(path).name}”在读取过程中被删除或移走了，未能读完；请确认文件仍在原处后重试"


def corrupted_or_gone(path: str | os.PathLike[str], message_zh: str, exc: BaseException | None = None) -> DocumentError:
    """The error for a read that failed: :class:`FileVanishedError` when the file is no longer there
    (a read cut short by a deletion is not a damaged file), else :class:`CorruptedFileError` with ``message_zh``."""
    detail = str(exc) if exc is not None else ""
    if not os.path.lexists(path):
        return FileVanishedError(vanished_message(path), path=str(path), detail=detail)
    return CorruptedFileError(message_zh, path=str(path), detail=detail)
