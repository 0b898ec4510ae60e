"""Certificates and licences put where a form asks for their copy (复印件).

A form that asks for ``营业执照副本复印件`` (in its title or its text) or is itself a copy to attach
gets the matching certificates of 企业资料 that have a file: an image is inserted as it is, a
PDF's first pages are drawn as images (PyMuPDF). A certificate past its 有效期 is never inserted;
the report says which form asked for it. Matching is by name: the certificate's name inside
what the form asks for, or most of its characters.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.core.bid_forms import TenderForm

if TYPE_CHECKING:
    from docx.document import Document

#: Width of an inserted copy (cm) and the pages of a PDF drawn at most.
COPY_WIDTH_CM = 14.0
MAX_PDF_PAGES = 3
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff"})
_NOISE = re.compile(r"[\s（）()《》“”\"、，,]|复印件|扫描件|影印件|副本|正本|原件|加盖公章|证书|证明|的")


@dataclass(frozen=True)
class CertificateCopy:
    """A certificate of 企业资料 as the export sees it: name, number, validity, its file, expired or not."""

    name: str
    number: str = ""
    valid_until: str = ""
    file: str = ""
    expired: bool = False

    @property
    def caption(self) -> str:
        """``营业执照（编号 …，有效期至 …）`` under the inserted copy."""
        extra = "，".join(x for x in (f"编号 {self.number}" if self.number else "",
                                      f"有效期至 {self.valid_until}" if self.valid_until else "") if x)
        return f"{self.name}（{extra}）" if extra else self.name


def _core(text: str) -> str:
    return _NOISE.sub("", text or "")


def _matches(asked: str, cert: CertificateCopy) -> bool:
    a, c = _core(asked), _core(cert.name)
    if not a or not c:
        return False
    if c in a or (len(a) >= 2 and a in c):
        return True
    ga = {a[i:i + 2] for i in range(len(a) - 1)}
    gc = {c[i:i + 2] for i in range(len(c) - 1)}
    return bool(ga and gc) and 2 * len(ga & gc) / (len(ga) + len(gc)) >= 0.6


def copies_for(form: TenderForm, certificates: Sequence[CertificateCopy]) -> tuple[list[CertificateCopy], list[str]]:
    """The certificates to insert in ``form`` and notes on the ones that cannot be (expired, no file)."""
    asked = list(form.copies)
    if form.kind in ("qualification", "attachment") and form.name not in asked:
        asked.append(form.name)
    chosen: list[CertificateCopy] = []
    notes: list[str] = []
    for what in asked:
        for cert in certificates:
            if cert in chosen or not _matches(what, cert):
                continue
            if cert.expired:
                notes.append(f"“{form.name}”要求的{cert.name}已过有效期（{cert.valid_until}），未插入")
            elif not cert.file or not Path(cert.file).is_file():
                notes.append(f"“{form.name}”要求的{cert.name}在企业资料中没有扫描件，需另行附上")
            else:
                chosen.append(cert)
    return chosen, notes


def _pdf_pages(path: Path) -> list[bytes]:
    """The first pages of a PDF as PNG images."""
    import pymupdf

    out = []
    opened: Any = pymupdf.open(str(path))  # type: ignore[no-untyped-call]
    with opened as pdf:
        for page in list(pdf)[:MAX_PDF_PAGES]:
            out.append(page.get_pixmap(dpi=110).tobytes("png"))
    return out


def insert_copies(doc: Document, certs: Sequence[CertificateCopy]) -> list[str]:
    """Insert each certificate's file (a caption line, then its image or pages); returns notes on failures."""
    from docx.enum.text import WD_ALIGN_PARAGRAPH
    from docx.shared import Cm

    notes: list[str] = []
    for cert in certs:
        path = Path(cert.file)
        try:
            images = _pdf_pages(path) if path.suffix.lower() == ".pdf" else [path.read_bytes()]
        except Exception as exc:  # an unreadable or damaged file: say so, the volume is still written
            notes.append(f"{cert.name}的扫描件“{path.name}”无法读取（{type(exc).__name__}），需另行附上")
            continue
        for blob in images:
            p = doc.add_paragraph()
            p.alignment = WD_ALIGN_PARAGRAPH.CENTER
            try:
                p.add_run().add_picture(io.BytesIO(blob), width=Cm(COPY_WIDTH_CM))
            except Exception as exc:  # not an image python-docx can place
                p._p.getparent().remove(p._p)
                notes.append(f"{cert.name}的扫描件“{path.name}”不是可插入的图片（{type(exc).__name__}），需另行附上")
                break
        caption = doc.add_paragraph(cert.caption)
        caption.alignment = WD_ALIGN_PARAGRAPH.CENTER
    return notes
