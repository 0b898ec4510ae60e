"""Size and depth limits for everything the app reads from a file (no Qt).

One place for the numbers that keep a hostile or broken input from exhausting memory,
the stack or the user's patience: tender files, the zip inside a DOCX, project and
recovery files (JSON nesting), outline titles. Readers check against these limits
*before* the expensive step (inflating, parsing, recursing) and turn a breach into the
caller's own "file is damaged / too large" error, so no limit ever surfaces as a
traceback. The figures are generous: the largest real tenders seen use a small
fraction of each (DOCX ``document.xml`` up to ~3 MB at ratios of 10–20).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

MB = 1024 * 1024


@dataclass(frozen=True)
class ZipLimits:
    """What a zip container (DOCX) may hold before it is treated as a zip bomb."""

    max_members: int = 20_000
    #: Uncompressed size of any one member.
    max_member_bytes: int = 256 * MB
    #: Uncompressed size of all XML parts together (they become lxml trees, several times larger).
    max_xml_bytes: int = 160 * MB
    #: Uncompressed size of everything together (images are held as bytes).
    max_total_bytes: int = 768 * MB
    #: Inflation ratio above which a member counts as a bomb, once it is over ``ratio_floor_bytes``.
    max_ratio: float = 100.0
    ratio_floor_bytes: int = 8 * MB


@dataclass(frozen=True)
class InputLimits:
    """Every input limit of the app; :data:`LIMITS` is the one instance code uses."""

    #: Tender files (PDF, DOCX, DOC/WPS, text) on disk.
    tender_max_bytes: int = 200 * MB
    #: Pages of a tender that are read (real tenders have up to a few thousand); a
    #: 200 MB PDF of empty pages would otherwise take over an hour and gigabytes.
    tender_max_pages: int = 10_000
    zip: ZipLimits = ZipLimits()
    #: Project (``.bidproj``) and recovery files on disk.
    project_max_bytes: int = 256 * MB
    #: Nesting depth of a project/recovery JSON document (a 4-level outline needs about 15).
    json_max_depth: int = 64
    #: Nesting depth of an outline in a project file (chapters are level 1).
    outline_max_depth: int = 12
    #: Characters of one outline title kept when a file or a model gives more.
    title_max_chars: int = 500


LIMITS = InputLimits()


def json_depth(value: object, stop_at: int | None = None) -> int:
    """Nesting depth of parsed JSON (a scalar is 0, ``[]`` is 1), computed without recursion.

    Stops counting once ``stop_at`` is exceeded, so a hostile document costs no more
    than the limit it breaks.
    """
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        children: Iterable[object]
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        depth += 1
        if depth > deepest:
            deepest = depth
            if stop_at is not None and deepest > stop_at:
                return deepest
        stack.extend((child, depth) for child in children if isinstance(child, (dict, list)))
    return deepest


def outline_depth(chapters: object, stop_at: int | None = None) -> int:
    """Levels of a JSON outline (``[{"children": [...]}, ...]``), without recursion; 0 when empty."""
    deepest = 0
    stack: list[tuple[object, int]] = [(chapters, 0)]
    while stack:
        nodes, level = stack.pop()
        if not isinstance(nodes, list):
            continue
        for node in nodes:
            if not isinstance(node, dict):
                continue
            deepest = max(deepest, level + 1)
            if stop_at is not None and deepest > stop_at:
                return deepest
            stack.append((node.get("children"), level + 1))
    return deepest


def clip_text(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis when it was longer."""
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


def size_text(n: int) -> str:
    """Bytes as MB (or GB) with one decimal, for Chinese messages."""
    if n >= 1024 * MB:
        return f"{n / (1024 * MB):.1f} GB"
    return f"{n / MB:.1f} MB"


class SpecialFileError(OSError):
    """The path is a folder, a device, a pipe or another special file: it is never read."""


class FileTooLargeForLimit(OSError):
    """A regular file larger than the limit the caller gave."""


def read_regular_file(path: Path | str, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes.

    Raises :class:`SpecialFileError` for anything but a regular file (reading a FIFO would
    block forever, ``/dev/zero`` would never end), :class:`FileTooLargeForLimit` beyond
    ``limit``, and the usual ``OSError`` otherwise. Reads at most ``limit + 1`` bytes even
    when the size on disk lies (``/proc`` files report 0).
    """
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise SpecialFileError(f"not a regular file: {path}")
    if st.st_size > limit:
        raise FileTooLargeForLimit(f"{st.st_size} bytes > {limit}")
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise FileTooLargeForLimit(f"more than {limit} bytes")
    return data
