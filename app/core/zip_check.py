"""Whether a zip container (DOCX, DOTX, XLSX) would inflate past the limits, from its central directory.

A DOCX is a zip that python-docx reads whole into memory and lxml parses part by part. The
central directory declares each member's compressed and uncompressed size, and :mod:`zipfile`
never inflates a member beyond its declared size (a lying header ends in a CRC error instead),
so checking the declared sizes and ratios bounds memory before the first byte is inflated.
:func:`zip_problem` says what is wrong in Chinese (or nothing); the tender reader
(``app.documents.zip_guard``) and the Word-template reader (``app.export.template``) turn that
into their own errors.
"""

from __future__ import annotations

import struct
import zipfile
from dataclasses import dataclass
from pathlib import Path

from app.core.input_limits import LIMITS, ZipLimits, size_text

_XML_SUFFIXES = (".xml", ".rels", ".vml")


@dataclass(frozen=True)
class ZipProblem:
    """What is wrong with a container: ``too_large`` (a bomb) or ``unreadable`` (no central directory)."""

    kind: str
    what: str
    detail: str = ""


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


def zip_problem(path: Path, limits: ZipLimits = LIMITS.zip) -> ZipProblem | None:
    """What would make ``path``'s members inflate past ``limits`` (or its directory unreadable); None if fine.

    Reads only the central directory.
    """
    declared = declared_entries(path)
    if declared is not None and declared > limits.max_members:
        return ZipProblem("too_large", f"压缩包声明有 {declared} 个部件，超过 {limits.max_members} 个的上限")
    try:
        with zipfile.ZipFile(path) as zf:
            infos = zf.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as exc:
        return ZipProblem("unreadable", "压缩包结构无法读取", str(exc))
    if len(infos) > limits.max_members:
        return ZipProblem("too_large", f"压缩包内有 {len(infos)} 个部件，超过 {limits.max_members} 个的上限")
    total = xml = 0
    for info in infos:
        size = info.file_size
        if size > limits.max_member_bytes:
            return ZipProblem("too_large", f"部件 {info.filename} 解压后 {size_text(size)}，"
                                           f"超过 {size_text(limits.max_member_bytes)}")
        ratio = size / max(1, info.compress_size)
        if size > limits.ratio_floor_bytes and ratio > limits.max_ratio:
            return ZipProblem("too_large", f"部件 {info.filename} 解压后 {size_text(size)}，压缩比 {ratio:.0f} 倍")
        total += size
        if info.filename.lower().endswith(_XML_SUFFIXES):
            xml += size
    if xml > limits.max_xml_bytes:
        return ZipProblem("too_large", f"XML 部件合计解压后 {size_text(xml)}，超过 {size_text(limits.max_xml_bytes)}")
    if total > limits.max_total_bytes:
        return ZipProblem("too_large", f"全部部件合计解压后 {size_text(total)}，超过 {size_text(limits.max_total_bytes)}")
    return None
