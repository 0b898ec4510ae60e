"""Export into the bid office's own Word template (.docx or .dotx).

The template is the starting document: its styles (标题 1–3, 正文, 表格, 页眉页脚), page
setup, headers and footers stay as the office made them. Its body, when it has any, is the
cover page: kept verbatim with ``{项目名称}``, ``{投标人}``, ``{日期}`` and ``{文件名称}``
(or the 【…】 forms) filled in. The outline's levels map to the template's heading styles
by name — ``Heading 1`` / ``标题 1`` … found automatically, or chosen by the user when the
office named them differently (:func:`detect_heading_styles`, ``TemplateChoice.headings``).
Styles the export needs and the template lacks (编写提示, 表格文字, 题注 …) are added with the
preset's look; the template's own styles are never changed, except that a mapped heading
style gets an outline level when it has none (so the TOC and the navigation pane find it).
"""

from __future__ import annotations

import copy
import io
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

import docx
from docx.enum.style import WD_STYLE_TYPE
from docx.opc.exceptions import PackageNotFoundError
from docx.oxml import OxmlElement
from docx.oxml.ns import qn

from app.core.zip_check import zip_problem
from app.export.options import ExportError

if TYPE_CHECKING:
    from docx.document import Document

    from app.export.options import ExportMeta

_DOCUMENT_TYPE: Final = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
_TEMPLATE_TYPES: Final = (
    "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml",
    "application/vnd.ms-word.template.macroEnabledTemplate.main+xml",
    "application/vnd.ms-word.document.macroEnabled.main+xml",
)
_MAX_TEMPLATE_BYTES: Final = 50 * 1024 * 1024
_CN_DIGITS: Final = "一二三四五六七八九"
LEVELS: Final = 4


@dataclass(frozen=True)
class TemplateChoice:
    """The template file and, per outline level, the template style name to use (None: detect)."""

    path: str
    headings: tuple[str, ...] | None = None


def _heading_candidates(level: int) -> tuple[str, ...]:
    cn = _CN_DIGITS[level - 1]
    return (f"Heading {level}", f"heading {level}", f"标题 {level}", f"标题{level}", f"{cn}级标题",
            f"标题{cn}", f"{cn}级")


def load_template(path: str | Path) -> Document:
    """The template as a python-docx document; a .dotx is read as a document. Chinese errors."""
    p = Path(path)
    if not p.is_file():
        raise ExportError(f"找不到 Word 模板“{p}”")
    if p.stat().st_size > _MAX_TEMPLATE_BYTES:
        raise ExportError(f"Word 模板“{p.name}”超过 50 MB，不像是模板文件")
    # The zip guard tenders and past bids pass through: a styles.xml that inflates to gigabytes is
    # refused from the central directory, before a byte is inflated.
    problem = zip_problem(p)
    if problem is not None and problem.kind == "too_large":
        raise ExportError(f"Word 模板“{p.name}”解压后过大：{problem.what}。这不是正常的模板文件"
                          "（可能已损坏或是恶意构造的压缩包），已拒绝使用")
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise ExportError(f"Word 模板“{p.name}”在读取过程中被删除或移走了，请重新选择") from None
    except OSError as exc:
        raise ExportError(f"无法读取 Word 模板“{p.name}”：{exc.strerror or exc}") from None
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as zin:
            types = zin.read("[Content_Types].xml").decode("utf-8")
            if any(t in types for t in _TEMPLATE_TYPES):
                raw = _as_document(zin, types)
        return docx.Document(io.BytesIO(raw))
    except (zipfile.BadZipFile, KeyError, PackageNotFoundError, ValueError) as exc:
        raise ExportError(f"“{p.name}”不是 Word 模板（.docx/.dotx）或已损坏，无法使用：{exc}") from None
    except Exception as exc:  # lxml on a malformed part (XMLSyntaxError …): the file, not the app, is broken
        raise ExportError(f"Word 模板“{p.name}”的内容结构已损坏，无法使用（{type(exc).__name__}）") from None


def _as_document(zin: zipfile.ZipFile, types: str) -> bytes:
    """The package with its main part re-declared as a document (what python-docx opens)."""
    for t in _TEMPLATE_TYPES:
        types = types.replace(t, _DOCUMENT_TYPE)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            data = types.encode("utf-8") if item.filename == "[Content_Types].xml" else zin.read(item)
            zout.writestr(item, data)
    return out.getvalue()


def paragraph_style_names(doc: Document) -> list[str]:
    """Every paragraph style of the template, by name (what the mapping dialog offers)."""
    return [s.name for s in doc.styles if s.type == WD_STYLE_TYPE.PARAGRAPH and s.name]


def detect_heading_styles(doc: Document, levels: int = LEVELS) -> list[str | None]:
    """Per level, the template's heading style found by its usual names (None: not found)."""
    names = {n.lower(): n for n in paragraph_style_names(doc)}
    out: list[str | None] = []
    for level in range(1, levels + 1):
        out.append(next((names[c.lower()] for c in _heading_candidates(level) if c.lower() in names), None))
    return out


def resolve_headings(doc: Document, chosen: tuple[str, ...] | None) -> list[str]:
    """The heading style names to use for levels 1…4: the user's choice, else the detected ones.

    Raises :class:`ExportError` naming the levels without a style (the UI then asks).
    """
    detected = detect_heading_styles(doc)
    names = set(paragraph_style_names(doc))
    out: list[str] = []
    missing: list[int] = []
    for level in range(1, LEVELS + 1):
        pick = chosen[level - 1] if chosen and level <= len(chosen) and chosen[level - 1] else detected[level - 1]
        if pick is not None and pick not in names:
            raise ExportError(f"Word 模板中没有名为“{pick}”的段落样式（第 {level} 级标题）")
        if pick is None:
            if level <= 3:
                missing.append(level)
            pick = out[-1] if out else "Normal"
        out.append(pick)
    if missing:
        shown = "、".join(f"{m} 级" for m in missing)
        raise ExportError(f"Word 模板中找不到第 {shown}标题的样式，请在导出对话框中为各级标题选择模板样式")
    return out


def has_cover(doc: Document) -> bool:
    """Whether the template's body holds anything (text, a table, a picture): that is its cover."""
    body = doc.element.body
    for child in body:
        if child.tag == qn("w:tbl"):
            return True
        if child.tag == qn("w:p") and ("".join(child.itertext()).strip() or child.find(".//" + qn("w:drawing")) is not None):
            return True
    return False


def clear_body(doc: Document) -> None:
    """Remove the template's body content, keeping its last section's settings."""
    body = doc.element.body
    for child in list(body):
        if child.tag != qn("w:sectPr"):
            body.remove(child)


_FIELDS: Final = re.compile(r"[{｛【]\s*(项目名称|投标人名称|投标人|日期|文件名称)\s*[}｝】]")


def fill_cover(doc: Document, meta: ExportMeta, anonymous: bool) -> int:
    """Replace the cover's placeholders in every run; returns how many were filled.

    A placeholder split across runs (Word does that after editing) is joined into the first run.
    """
    values = {"项目名称": meta.project_name, "投标人名称": "" if anonymous else meta.bidder_name,
              "投标人": "" if anonymous else meta.bidder_name, "日期": "" if anonymous else meta.date_text(),
              "文件名称": meta.document_title}
    count = 0
    for p in doc.element.body.iter(qn("w:p")):
        runs = [t for t in p.iter(qn("w:t"))]
        text = "".join(t.text or "" for t in runs)
        if not _FIELDS.search(text):
            continue
        new, n = _FIELDS.subn(lambda m: values[m.group(1)], text)
        count += n
        runs[0].text = new
        for t in runs[1:]:
            t.text = ""
    return count


def heading_style_ids(doc: Document, names: list[str]) -> list[str]:
    """Style ids for the heading names; each gets an outline level when the template set none."""
    ids = []
    for level, name in enumerate(names, start=1):
        style = doc.styles[name]
        ppr = style.element.get_or_add_pPr()
        if ppr.find(qn("w:outlineLvl")) is None and name != "Normal":
            lvl = OxmlElement("w:outlineLvl")
            lvl.set(qn("w:val"), str(level - 1))
            ppr.append(lvl)
        ids.append(style.style_id)
    return ids


def numbered_by_style(doc: Document, names: list[str]) -> bool:
    """Whether the template's level-1 heading style numbers itself (then the export writes no numbers)."""
    style = doc.styles[names[0]]
    ppr = style.element.pPr
    return ppr is not None and ppr.find(qn("w:numPr")) is not None


def snapshot_styles(doc: Document) -> tuple[dict[str, object], object | None]:
    """Copies of the template's style elements by id and of its doc defaults, to restore after presets."""
    root = doc.styles.element
    styles = {s.get(qn("w:styleId")): copy.deepcopy(s) for s in root.findall(qn("w:style"))}
    defaults = root.find(qn("w:docDefaults"))
    return styles, copy.deepcopy(defaults) if defaults is not None else None


def restore_styles(doc: Document, snapshot: tuple[dict[str, object], object | None]) -> None:
    """Put the template's own styles and defaults back; styles the preset added stay."""
    styles, defaults = snapshot
    root = doc.styles.element
    for element in root.findall(qn("w:style")):
        original = styles.get(element.get(qn("w:styleId")))
        if original is not None:
            element.addprevious(original)
            root.remove(element)
    current = root.find(qn("w:docDefaults"))
    if defaults is not None and current is not None:
        current.addprevious(defaults)
        root.remove(current)


def section_has_content(part_paragraphs: list[object]) -> bool:
    """Whether a header/footer holds text or a field (the template's own, to keep)."""
    for p in part_paragraphs:
        element = getattr(p, "_p", None)
        if element is None:
            continue
        if "".join(element.itertext()).strip() or element.find(".//" + qn("w:fldChar")) is not None \
                or element.find(".//" + qn("w:fldSimple")) is not None:
            return True
    return False
