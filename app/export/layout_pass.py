"""The layout pass: let LibreOffice lay the document out once and read where every heading landed.

A Word file carries page numbers only as field results; Word shows the cached result until
the fields are updated, LibreOffice shows cached TOC lines as they are, and nobody should
have to press F9 before handing in a bid. When LibreOffice is installed, the export saves
the document once to a private folder, converts it headless to PDF with bookmarks exported
as named destinations (and as the PDF outline, for versions that ignore the filter
options), and reads with PyMuPDF the page of every bookmark. The page *number* is the PDF
page index counted from the page of :data:`~app.export.fields.BODY_START_BOOKMARK`, which
is what the footer prints after the unnumbered cover.

soffice runs with an absolute path to the input (a file named ``-x.docx`` is never read as
an option), a fresh user profile (a running LibreOffice neither blocks nor receives the
job), its own process group (killed whole on timeout) and a deadline.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from app.core.external_command import ExternalCommandError, run_command

#: PDF export options: bookmarks as named destinations, skip LibreOffice's automatic blank pages.
PDF_FILTER: Final = (
    'pdf:writer_pdf_Export:{"ExportBookmarksToPDFDestination":{"type":"boolean","value":"true"},'
    '"IsSkipEmptyPages":{"type":"boolean","value":"true"},'
    '"ExportNotes":{"type":"boolean","value":"false"},'
    '"UseTaggedPDF":{"type":"boolean","value":"false"}}'
)
#: Seconds for start-up plus per 100 KB of .docx (a 1,000-heading bid is about 400 KB).
BASE_TIMEOUT_S: Final = 90.0
TIMEOUT_PER_100KB_S: Final = 10.0
#: A profile lock older than this is left over from a crash.
STALE_LOCK_S: Final = 900.0


class LayoutError(Exception):
    """The layout pass could not run or gave no usable result; ``message_zh`` says why."""

    def __init__(self, message_zh: str) -> None:
        super().__init__(message_zh)
        self.message_zh = message_zh


@dataclass(frozen=True)
class HeadingMark:
    """A bookmarked heading in document order, for matching the PDF outline when names are missing."""

    bookmark: str
    level: int
    text: str


@dataclass(frozen=True)
class Layout:
    """Where things landed: page numbers as printed (body counted from 1) and the body's page count."""

    pages: dict[str, int]
    body_pages: int
    total_pages: int
    seconds: float


def find_soffice() -> str | None:
    """The LibreOffice executable (``soffice``/``libreoffice`` on PATH, or the usual install folders)."""
    for name in ("soffice", "libreoffice"):
        found = shutil.which(name)
        if found:
            return str(Path(found).resolve())
    candidates: list[Path] = []
    if sys.platform == "win32":
        for env in ("ProgramFiles", "ProgramFiles(x86)"):
            base = os.environ.get(env)
            if base:
                candidates.append(Path(base) / "LibreOffice" / "program" / "soffice.exe")
    elif sys.platform == "darwin":
        candidates.append(Path("/Applications/LibreOffice.app/Contents/MacOS/soffice"))
    return next((str(c) for c in candidates if c.is_file()), None)


def _timeout_for(docx_path: Path) -> float:
    return BASE_TIMEOUT_S + TIMEOUT_PER_100KB_S * docx_path.stat().st_size / 100_000


def convert_to_pdf(docx_path: Path, out_dir: Path, soffice: str, timeout: float | None = None,
                   profile: Path | None = None) -> Path:
    """Convert ``docx_path`` to PDF in ``out_dir`` with a private profile; the PDF's path.

    ``profile`` is the LibreOffice user profile to use (a fresh one in ``out_dir`` when None).
    Raises :class:`LayoutError` on a timeout, a crash or a missing result.
    """
    source = docx_path.resolve()
    out = out_dir.resolve()
    profile = (profile or out / "lo-profile").resolve()
    env = dict(os.environ, SAL_USE_VCLPLUGIN="svp")
    limit = timeout if timeout is not None else _timeout_for(source)
    try:  # files as Path objects: the helper passes them absolute, never as options
        result = run_command(soffice, f"-env:UserInstallation={profile.as_uri()}", "--headless", "--invisible",
                             "--norestore", "--nologo", "--nolockcheck", "--convert-to", PDF_FILTER,
                             "--outdir", out, source, timeout=limit, env=env, cwd=out)
    except ExternalCommandError as exc:
        raise LayoutError(f"无法启动 LibreOffice：{exc}") from None
    if result.timed_out:
        raise LayoutError(f"LibreOffice 排版超过 {limit:.0f} 秒未完成，已停止")
    pdf = out / (source.stem + ".pdf")
    if result.returncode != 0 or not pdf.is_file() or pdf.stat().st_size == 0:
        detail = result.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        raise LayoutError(f"LibreOffice 未能排版该文档（退出码 {result.returncode}）{detail[0][:200]}")
    return pdf


def _dest_pages(pdf: Any) -> dict[str, int]:
    """Named destinations -> 0-based page index; LibreOffice writes ``_`` as ``5F`` (the # dropped)."""
    resolve = getattr(pdf, "resolve_names", None)
    if resolve is None:
        return {}
    out: dict[str, int] = {}
    for name, target in resolve().items():
        page = target.get("page") if isinstance(target, dict) else None
        if not isinstance(page, int) or page < 0:
            continue
        key = str(name)
        for variant in (key, key.replace("#5F", "_"), "_" + key[2:] if key.startswith("5F") else key):
            out.setdefault(variant, page)
    return out


def _normal(text: str) -> str:
    return "".join(text.split())


def _outline_pages(pdf: Any, headings: Sequence[HeadingMark]) -> dict[str, int]:
    """Match the PDF outline (heading levels and texts, in order) to ``headings``: 0-based pages."""
    toc = pdf.get_toc(simple=True)
    out: dict[str, int] = {}
    i = 0
    for level, title, page in toc:
        if i >= len(headings):
            break
        want = headings[i]
        if level == want.level and _normal(str(title)) == _normal(want.text) and page >= 1:
            out[want.bookmark] = int(page) - 1
            i += 1
    return out


def _first_page_with(pdf: Any, text: str) -> int | None:
    needle = _normal(text)
    if not needle:
        return None
    for index, page in enumerate(pdf):
        if needle in _normal(page.get_text()):
            return index
    return None


def read_layout(pdf_path: Path, headings: Sequence[HeadingMark], body_start: str, body_first_text: str,
                seconds: float = 0.0) -> Layout:
    """Page numbers of the bookmarks in a PDF made by :func:`convert_to_pdf`.

    ``body_start`` is the bookmark where numbering starts; ``body_first_text`` finds that page
    when the PDF has no named destinations (LibreOffice before 7.4).
    """
    import pymupdf

    opened: Any = pymupdf.open(pdf_path)  # type: ignore[no-untyped-call]
    with opened as pdf:
        total = pdf.page_count
        found = _dest_pages(pdf)
        start = found.get(body_start)
        if not any(h.bookmark in found for h in headings):
            found.update(_outline_pages(pdf, headings))
        if start is None:
            start = _first_page_with(pdf, body_first_text) if body_first_text else 0
    if start is None:
        raise LayoutError("未能在排版结果中找到正文起始页")
    pages = {name: index - start + 1 for name, index in found.items() if index >= start}
    return Layout(pages=pages, body_pages=max(total - start, 0), total_pages=total, seconds=seconds)


@contextmanager
def _claimed(profile: Path | None) -> Iterator[Path | None]:
    """``profile`` if no other export is using it (a lock file beside it), else None.

    A lock older than :data:`STALE_LOCK_S` is left over from a crash and taken over.
    """
    if profile is None:
        yield None
        return
    lock = profile.with_name(profile.name + ".lock")
    try:
        profile.parent.mkdir(parents=True, exist_ok=True)
        if lock.exists() and time.time() - lock.stat().st_mtime > STALE_LOCK_S:
            lock.unlink(missing_ok=True)
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except OSError:
        yield None
        return
    os.close(fd)
    try:
        yield profile
    finally:
        lock.unlink(missing_ok=True)


def lay_out(save: Callable[[Path], None], headings: Sequence[HeadingMark], body_start: str,
            body_first_text: str, soffice: str | None = None, timeout: float | None = None,
            profile: Path | None = None) -> Layout:
    """Save the document (``save(path)``) to a private folder, convert it once, and return
    where each bookmarked heading landed. Raises :class:`LayoutError`.

    ``profile`` is a LibreOffice profile kept between exports (start-up is about a second
    faster once it exists); when another export holds it, or it fails, a fresh one is used.
    """
    exe = soffice or find_soffice()
    if exe is None:
        raise LayoutError("未安装 LibreOffice")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bidstudio-layout-") as tmp, _claimed(profile) as kept:
        work = Path(tmp)
        source = work / "layout.docx"
        save(source)
        try:
            pdf = convert_to_pdf(source, work, exe, timeout, kept)
        except LayoutError:
            if kept is None:
                raise
            shutil.rmtree(kept, ignore_errors=True)  # a damaged kept profile: start afresh, once
            pdf = convert_to_pdf(source, work, exe, timeout)
        return read_layout(pdf, headings, body_start, body_first_text, time.perf_counter() - started)
