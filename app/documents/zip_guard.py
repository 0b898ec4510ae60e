"""Refuse zip bombs before python-docx inflates anything.

A DOCX is a zip; python-docx reads every part it references into memory and parses
the XML parts with lxml. The central directory declares each member's compressed and
uncompressed size, and :mod:`zipfile` never inflates a member beyond its declared
size (a lying header ends in a CRC error instead), so checking the declared sizes
and ratios bounds memory before the first byte is inflated.
"""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

from app.core.input_limits import LIMITS, ZipLimits, size_text
from app.documents.errors import DecompressedTooLargeError, corrupted_or_gone

_XML_SUFFIXES = (".xml", ".rels", ".vml")


def _refuse(path: Path, what: str) -> DecompressedTooLargeError:
    return DecompressedTooLargeError(
        f"文件解压后过大：{what}。这不是正常的 Word 文件（可能已损坏或是恶意构造的压缩包），已拒绝读取",
        path=str(path),
        detail=what,
    )


def declared_entries(path: Path) -> int | None:
    """The member count the end-of-central-directory record declares (read from the tail only).

    Lets a directory of millions of entries be refused before :mod:`zipfile` builds an
    object for each. None when the record is not found (zipfile then reports the damage).
    """
    try:
        with path.open("rb") as fh:
            fh.seek(0, 2)
            size = fh.tell()
            fh.seek(max(0, size - (22 + 65535)))
            tail = fh.read()
    except OSError:
        return None
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < 22:
        return None
    entries = int(struct.unpack_from("<H", tail, at + 10)[0])
    if entries == 0xFFFF:  # ZIP64: the real count is in the ZIP64 record before it
        at64 = tail.rfind(b"PK\x06\x06", 0, at)
        if at64 >= 0 and len(tail) - at64 >= 56:
            return int(struct.unpack_from("<Q", tail, at64 + 32)[0])
    return entries


def check_zip_container(path: Path, limits: ZipLimits = LIMITS.zip) -> None:
    """Raise ``DecompressedTooLargeError`` when ``path``'s members would inflate past ``limits``.

    Reads only the central directory. ``CorruptedFileError`` when that cannot be read.
    """
    declared = declared_entries(path)
    if declared is not None and declared > limits.max_members:
        raise _refuse(path, f"压缩包声明有 {declared} 个部件，超过 {limits.max_members} 个的上限")
    try:
        with zipfile.ZipFile(path) as zf:
            infos = zf.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as exc:
        raise corrupted_or_gone(path, "文件已损坏：压缩包结构无法读取", exc) from exc
    if len(infos) > limits.max_members:
        raise _refuse(path, f"压缩包内有 {len(infos)} 个部件，超过 {limits.max_members} 个的上限")
    total = xml = 0
    for info in infos:
        size = info.file_size
        if size > limits.max_member_bytes:
            raise _refuse(path, f"部件 {info.filename} 解压后 {size_text(size)}，超过 {size_text(limits.max_member_bytes)}")
        ratio = size / max(1, info.compress_size)
        if size > limits.ratio_floor_bytes and ratio > limits.max_ratio:
            raise _refuse(path, f"部件 {info.filename} 解压后 {size_text(size)}，压缩比 {ratio:.0f} 倍")
        total += size
        if info.filename.lower().endswith(_XML_SUFFIXES):
            xml += size
    if xml > limits.max_xml_bytes:
        raise _refuse(path, f"XML 部件合计解压后 {size_text(xml)}，超过 {size_text(limits.max_xml_bytes)}")
    if total > limits.max_total_bytes:
        raise _refuse(path, f"全部部件合计解压后 {size_text(total)}，超过 {size_text(limits.max_total_bytes)}")
