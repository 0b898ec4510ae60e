"""Cover lines that read well: a long project name wraps at natural breaks, in balanced lines.

Word, WPS and LibreOffice break CJK text wherever the line is full, so a long name ends up
split inside a word (税/务局) or a bracket (（盖/章）). The cover therefore breaks its lines
itself, with explicit line breaks, choosing among the places a reader would pause:

- never inside a bracket group (（…）《…》“…”), a Latin word or a number, never before
  closing punctuation or after opening punctuation;
- best after punctuation, after a closing bracket or before an opening one;
- good after an organisation or place suffix (局、院、中心、公司、市、区 …) unless it starts
  a word (市场、院校), and before a project word (项目、采购、服务、建设 …);
- anywhere else between two CJK characters only as a last resort.

Among the line counts that fit, the fewest lines win; among the breaks, the most natural and
the most even. Widths are counted in em: a CJK character is 1, a Latin letter or digit 1/2.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Final

from docx.enum.text import WD_BREAK
from docx.shared import Cm, Pt

from app.export.styles import COVER_LINE, COVER_SUBTITLE, COVER_TITLE

if TYPE_CHECKING:
    from docx.document import Document
    from docx.text.paragraph import Paragraph

    from app.export.options import ExportMeta
    from app.export.presets import ExportPreset

_OPEN: Final = "（(《〈「『【〔“‘[{"
_CLOSE: Final = "）)》〉」』】〕”’]}"
_PAIRS: Final = dict(zip(_OPEN, _CLOSE, strict=True))
#: Punctuation that must not start a line (it closes or follows what precedes it).
_NO_LINE_START: Final = _CLOSE + "，。、；：！？,.;:!?%％·…—-～~"
#: Suffixes after which a name may break (longest first), unless the next character
#: continues a word (市场、局部、院校、所有、处理、区域 …).
_SUFFIXES: Final = (
    "委员会", "管理局", "管理处", "事务所", "研究院", "研究所", "办公室", "服务中心", "有限公司", "集团",
    "总局", "中心", "公司", "大学", "学院", "学校", "医院", "政府", "分局", "支队", "大队",
    "局", "院", "所", "厅", "处", "委", "办", "站", "馆", "部", "省", "市", "区", "县", "镇", "乡", "村",
)
_WORD_AFTER: Final[dict[str, str]] = {
    "市": "场政民区级容辖直属",
    "局": "部面势",
    "院": "校区内外落",
    "所": "有属在需以述",
    "处": "理置罚于",
    "区": "域间别块",
    "县": "城级域",
    "部": "分门署件",
    "站": "点",
    "馆": "藏",
    "办": "理法公",
    "委": "托",
    "镇": "街",
    "村": "级民",
}
#: Words a line may start with (project words follow the buyer's name).
_STARTS: Final = (
    "项目", "采购", "服务", "建设", "工程", "系统", "平台", "改造", "升级", "购置", "运维", "维护",
    "技术", "设备", "食堂", "物业", "信息化", "智慧", "数字化", "第",
)
#: Points per centimetre, for cover line widths.
_PT_PER_CM: Final = 72 / 2.54
#: The bidder and date lines' left indent, and the width of their "投标人：" label in characters.
_COVER_INDENT_CM: Final = 3.5
_COVER_LABEL_CHARS: Final = 4
#: Break penalties: lower reads better.
_BEST, _GOOD, _POOR = 0.0, 1.0, 6.0


def text_width(text: str) -> float:
    """Width of ``text`` in em: CJK and other wide characters 1, the rest 1/2."""
    return sum(1.0 if unicodedata.east_asian_width(ch) in "WFA" and ord(ch) > 0x2000 else 0.5 for ch in text)


def _is_cjk(ch: str) -> bool:
    return "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff"


def _protected(text: str) -> list[bool]:
    """``protected[i]``: a break before ``text[i]`` would split a bracket group or a Latin run."""
    out = [False] * (len(text) + 1)
    stack: list[str] = []
    for i, ch in enumerate(text):
        if stack and i > 0:
            out[i] = True
        if ch in _PAIRS and not (ch in "“‘" and stack and stack[-1] == _PAIRS[ch]):
            stack.append(_PAIRS[ch])
        elif stack and ch == stack[-1]:
            stack.pop()
    for i in range(1, len(text)):
        a, b = text[i - 1], text[i]
        if a.isascii() and b.isascii() and (a.isalnum() or b.isalnum()) and not (a == " " or b == " "):
            out[i] = True
        if b in _NO_LINE_START or a in _OPEN:
            out[i] = True
    return out


def _penalty(text: str, i: int) -> float | None:
    """The cost of a break before ``text[i]``; None where a break is not allowed."""
    a, b = text[i - 1], text[i]
    if a in "，。、；：！？,;:!? " or a in _CLOSE or b in _OPEN or b == " ":
        return _BEST
    head = text[:i]
    for suffix in _SUFFIXES:
        if head.endswith(suffix):
            if b in _WORD_AFTER.get(suffix[-1], "") and len(suffix) == 1:
                break
            return _GOOD
    if text.startswith(_STARTS, i):
        return _GOOD
    if _is_cjk(a) and _is_cjk(b):
        return _POOR
    return _POOR


def _shape(width: float, ideal: float, max_width: float) -> float:
    """How far a line is from the ideal width (squared), plus a large cost for overflowing."""
    cost = ((width - ideal) / max(ideal, 1.0)) ** 2 * 10
    return cost + (100.0 + width - max_width if width > max_width else 0.0)


@dataclass(frozen=True)
class _Plan:
    cost: float
    breaks: tuple[int, ...]


def wrap_balanced(text: str, max_width: float, keep_tail: int = 0) -> list[str]:
    """Split ``text`` into the fewest lines of at most ``max_width`` em, at natural breaks, evenly.

    The last ``keep_tail`` characters stay on one line with the character before them.
    Text that fits stays one line; text with no allowed break stays whole (the word
    processor then wraps it as it can).
    """
    text = text.strip()
    if not text or text_width(text) <= max_width:
        return [text] if text else []
    protected = _protected(text)
    cuts = [i for i in range(1, len(text) - keep_tail) if not protected[i] and _penalty(text, i) is not None]
    if not cuts:
        return [text]
    widths = [0.0]
    for ch in text:
        widths.append(widths[-1] + text_width(ch))
    total = widths[-1]
    for lines in range(2, len(cuts) + 2):
        plan = _best_plan(text, tuple(cuts), tuple(widths), lines, max_width, total / lines)
        if plan is not None:
            bounds = (0, *plan.breaks, len(text))
            return [text[s:e].strip() for s, e in itertools.pairwise(bounds)]
    return [text]


def _best_plan(text: str, cuts: tuple[int, ...], widths: tuple[float, ...], lines: int, max_width: float,
               ideal: float) -> _Plan | None:
    """The cheapest way to make ``lines`` lines: break penalties plus squared distance from ``ideal``."""

    @cache
    def solve(start: int, remaining: int) -> _Plan | None:
        if remaining == 1:
            width = widths[len(text)] - widths[start]
            if width > max_width and any(start < c for c in cuts):
                return None
            return _Plan(_shape(width, ideal, max_width), ())
        best: _Plan | None = None
        for cut in cuts:
            if cut <= start:
                continue
            width = widths[cut] - widths[start]
            first = not any(start < c < cut for c in cuts)
            if width > max_width and not first:
                break  # only an unbreakable piece may overflow (the word processor wraps it)
            rest = solve(cut, remaining - 1)
            if rest is None:
                continue
            cost = rest.cost + (_penalty(text, cut) or 0.0) + _shape(width, ideal, max_width)
            if best is None or cost < best.cost:
                best = _Plan(cost, (cut, *rest.breaks))
        return best

    return solve(0, lines)


def bidder_lines(name: str, max_width: float, suffix: str = "（盖章）") -> list[str]:
    """The bidder's name followed by ``suffix``, wrapped so the suffix stays whole and attached."""
    name = re.sub(r"\s+", " ", name.strip())
    return wrap_balanced(f"{name}{suffix}", max_width, keep_tail=len(suffix))


def _lines_paragraph(doc: Document, lines: list[str], style: str) -> Paragraph:
    """One paragraph whose lines are separated by explicit line breaks."""
    paragraph = doc.add_paragraph(style=style)
    for i, line in enumerate(lines):
        run = paragraph.add_run(line)
        if i < len(lines) - 1:
            run.add_break(WD_BREAK.LINE)
    return paragraph


def write_cover(doc: Document, meta: ExportMeta, preset: ExportPreset, placeholder: str) -> None:
    """The cover: project name and document title in balanced lines, then bidder and date (not in 暗标)."""
    project = meta.project_name.strip() or placeholder
    width_pt = preset.page.text_width_cm * _PT_PER_CM
    # Half an em of slack: word processors justify and kern slightly differently.
    title_lines = wrap_balanced(project, width_pt / preset.cover_title.size_pt - 0.5)
    title = _lines_paragraph(doc, title_lines, COVER_TITLE)
    title.paragraph_format.space_before = Pt(150 if len(title_lines) <= 2 else 120)
    subtitle = doc.add_paragraph(meta.document_title, style=COVER_SUBTITLE)
    subtitle.paragraph_format.space_before = Pt(36)
    if preset.anonymous:
        return
    size = preset.cover_line.size_pt
    label = Pt(size * _COVER_LABEL_CHARS)
    room = (width_pt - _COVER_INDENT_CM * _PT_PER_CM) / size - _COVER_LABEL_CHARS - 0.5
    name = meta.bidder_name.strip() or "【投标人名称】"
    lines = bidder_lines(name, room)
    bidder = _lines_paragraph(doc, ["投标人：" + lines[0], *lines[1:]], COVER_LINE)
    date = doc.add_paragraph(f"日　期：{meta.date_text()}", style=COVER_LINE)
    for i, paragraph in enumerate((bidder, date)):
        # A hanging indent: wrapped lines of a long name align after "投标人：".
        paragraph.paragraph_format.left_indent = Cm(_COVER_INDENT_CM) + label
        paragraph.paragraph_format.first_line_indent = -label
        if i == 0:
            paragraph.paragraph_format.space_before = Pt(200 if len(title_lines) <= 2 else 160)
