"""Where the format chapter is (投标文件格式 / 响应文件格式 / 附件（投标文件格式）…) and where it ends.

Every line that names a format chapter is a candidate; a line of a table of contents (dot
leaders, a page number at its end) is not. A candidate that opens a chapter (``第六章``,
``第三部分``) runs until the next chapter of the same unit; a plain one (``附件``,
``投标文件格式``) until the next chapter of any unit or the end of the document. The finder
reads the forms of each candidate's span and keeps the one with the most forms, so a
mention in the instructions (``按第六章投标文件格式编写``) never wins over the chapter.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from app.documents.forms.flow import FlowItem, FlowParagraph

_SPACES = re.compile(r"[\s\u3000]+")
_TOC_LINE = re.compile(r"(?:\.{4,}|…{2,}|·{4,}|-{6,})\s*\d*\s*$|\t\s*\d{1,3}\s*$|\s\d{1,3}$")
_CHAPTER = re.compile(r"^第[一二三四五六七八九十百零\d]{1,3}(?P<unit>章|部分|卷|篇|册)")
_FORMAT = re.compile(
    r"(?:投标|响应|应答|报价|磋商|谈判|申请|竞标|比选|竞价|询价|采购|资格预审申请)?(?:文件|书)?(?:的)?"
    r"(?:有关|相关|内容|组成)?(?:及|和|与)?(?:格式|组成)(?:附件|附表|范本|文本|要求|及附件)?")
_FORMAT_WORDS = re.compile(r"(投标|响应|应答|报价|磋商|谈判|申请|竞标|比选|竞价|询价)文件(?:的)?(?:有关|相关|内容|编制|通用)?"
                           r"(?:及|和|与)?(?:格式|组成|构成)|有关格式|格式附件|相关格式|附件[（(—\-－]{0,3}(?:投标|响应)?文件格式|"
                           r"内容及格式|文件构成及格式")
_NOT_HEADING_START = re.compile(r"^(?:按|见|详见|应|须|请|如|若|凡|在|由|对|以|将)")


@dataclass(frozen=True)
class ChapterSpan:
    """A candidate format chapter: its heading's flow index, the index after its last item, its title.

    ``rank``: 2 for a chapter heading (第六章 …), 1 for a plain heading, 0 for a numbered clause
    of the instructions (（6）投标文件有关格式); the finder prefers higher ranks.
    """

    start: int
    end: int
    title: str
    rank: float = 1


def heading_rank(text: str) -> float:
    """How much a format heading looks like a chapter: 第N章 2, plain or 一、 1, a numbered clause 0;
    half a point more when it says 格式 (…的组成 is more often the instructions' list)."""
    t = _compact(text)
    bonus = 0.5 if "格式" in t else 0.0
    if _CHAPTER.match(t):
        return 2 + bonus
    if re.match(r"^(?:[（(]?\d+[)）.．、]|\d)", t):
        return 0 + bonus
    return 1 + bonus


def _compact(text: str) -> str:
    return _SPACES.sub("", text or "")


def is_toc_line(text: str) -> bool:
    """A table-of-contents line (dot leaders or a trailing page number)."""
    return bool(_TOC_LINE.search(text.rstrip()))


def is_format_heading(text: str) -> bool:
    """A line that names a format chapter (short, no sentence, not a TOC entry)."""
    if is_toc_line(text):
        return False
    t = _compact(text)
    if not 3 <= len(t) <= 32 or re.search(r"[，,。；;“”《》]", t):
        return False
    body = _CHAPTER.sub("", t)
    if not _FORMAT_WORDS.search(body) or _NOT_HEADING_START.match(body) or t.endswith(("：", ":")):
        return False
    # a numbered clause of the instructions (3.1 投标文件的组成) is not the chapter
    return not re.match(r"^\d+(?:\.\d+)+", body)


#: The title of a buyer's document (招标文件, 采购文件 …): a new document starts, the bidder's formats end.
_TENDER_TITLE = re.compile(r"(?:招标|采购|磋商|谈判|询价|比选|竞价|遴选)文件(?:[（(][^（）()]{0,12}[)）])?$")


def is_tender_title(it: FlowParagraph) -> bool:
    """A short centred or heading line naming a buyer's document (``…公开招标文件（2.0版）``): where a
    format chapter ends when another document (a 专用文件 bound after it) starts."""
    t = _compact(it.text)
    return (bool(it.heading_level) or it.align == "center") and 4 <= len(t) <= 40 and bool(_TENDER_TITLE.search(t)) \
        and not re.search(r"[，,。；;：:]", t) and not _NOT_HEADING_START.match(t)


def _unit(text: str) -> str | None:
    m = _CHAPTER.match(_compact(text))
    return m.group("unit") if m else None


def chapter_spans(flow: list[FlowItem]) -> list[ChapterSpan]:
    """Every candidate format chapter in the flow, with where it ends."""
    heads = [(i, it) for i, it in enumerate(flow) if isinstance(it, FlowParagraph) and is_format_heading(it.text)]
    chapters = [(i, _unit(it.text)) for i, it in enumerate(flow)
                if isinstance(it, FlowParagraph) and _unit(it.text) and len(_compact(it.text)) <= 40
                and not is_toc_line(it.text)]
    seen = Counter(_compact(it.text) for it in flow if isinstance(it, FlowParagraph))
    tender_titles = [i for i, it in enumerate(flow) if isinstance(it, FlowParagraph) and is_tender_title(it)
                     and seen[_compact(it.text)] <= 2]  # a running page header repeats on every page
    spans = []
    for i, it in heads:
        unit = _unit(it.text)
        end = len(flow)
        for j, u in chapters:
            if j > i and (u == unit or unit is None):
                end = j
                break
        end = min([end, *(j for j in tender_titles if j > i)])
        spans.append(ChapterSpan(i, end, _compact(it.text) if len(_compact(it.text)) < 40 else it.text.strip(),
                                 heading_rank(it.text)))
    return spans
