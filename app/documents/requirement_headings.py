"""The headings inside a tender's requirements chapter (采购需求/技术要求/服务要求…).

What the buyer wrote as the structure of its own requirements ("食品配送", "质量的基本检查",
"人员培训") is the best source of level-2/3 headings that speak this tender's language.
The chapter is found among the document's headings: a level 1–2 heading naming the
requirements whose own sub-headings follow it (a table-of-contents line or a sentence that
merely mentions 采购需求 has none). Its sub-headings down to two levels are returned,
without numbering, without sentences, and without the commercial ones (付款方式, 报价…).
"""

from __future__ import annotations

import re

from app.core.analysis import RequirementHeading
from app.documents.model import Heading, TenderDocument

_ROOT = re.compile(
    r"采购需求|用户需求|需求书|技术要求|服务要求|技术规格|招标项目要求|供货要求|项目要求|技术参数|服务内容|"
    r"技术标准|项目需求|采购内容|工作内容|服务范围"
)
_BUSINESS = re.compile(
    r"付款|支付|报价|价格|定价|费用负担|履约担保|保证金|合同|违约|退出机制|围猎|投标要求|投标文件|资格审查|资格要求|资格条件|商务要求|"
    r"验收款|发票|结算|罚则|索赔|其它$|其他$|其他要求|其它要求|附件|附表|格式|说明$|承诺函|响应表|证明材料|偏离表"
)
_NUMBER = re.compile(
    r"^\s*(?:第[一二三四五六七八九十百\d]+(?:章|节|部分|篇)|[一二三四五六七八九十]+[、.．]|[（(][一二三四五六七八九十\d]+[)）]|"
    r"\d+(?:[.．]\d+)*[.、．]?)\s*"
)
_MARKS = re.compile(r"[★▲☆△*]")
MAX_LEN = 24
MAX_DEPTH = 2
MAX_HEADINGS = 80


def clean_heading(text: str) -> str:
    """A tender heading without numbering, marks and surrounding punctuation."""
    t = _MARKS.sub("", text)
    t = _NUMBER.sub("", t).strip()
    t = re.sub(r"[（(][^（）()]*[)）]\s*$", "", t).strip()
    return re.sub(r"\s+", "", t).strip("：:，,。；; ")


def _usable(text: str) -> bool:
    if not 2 <= len(text) <= MAX_LEN or re.search(r"[，,。；;！？?]", text):
        return False
    if re.search(r"[:：]\S", text):  # "项目编号：…" is a field, not a heading
        return False
    return not _BUSINESS.search(text)


def _subtree(headings: list[Heading], index: int) -> list[Heading]:
    root = headings[index]
    out: list[Heading] = []
    for h in headings[index + 1:]:
        if h.level <= root.level:
            break
        if h.level - root.level <= MAX_DEPTH:
            out.append(h)
    return out


def requirement_roots(doc: TenderDocument) -> list[int]:
    """Indexes (into ``doc.headings``) of requirement chapters that have sub-headings of their own."""
    roots = []
    for i, h in enumerate(doc.headings):
        if h.level > 2 or not _ROOT.search(h.text) or len(clean_heading(h.text)) > 30:
            continue
        if len(_subtree(doc.headings, i)) >= 2:
            roots.append(i)
    return roots


def requirement_headings(doc: TenderDocument) -> list[RequirementHeading]:
    """Sub-headings of the tender's requirement chapters, cleaned, in document order (unique)."""
    out: list[RequirementHeading] = []
    seen: set[str] = set()
    covered: set[int] = set()
    for i in requirement_roots(doc):
        if i in covered:
            continue
        root = doc.headings[i]
        for h in _subtree(doc.headings, i):
            covered.add(doc.headings.index(h))
            text = clean_heading(h.text)
            if not _usable(text) or text in seen:
                continue
            seen.add(text)
            out.append(RequirementHeading(text=text, level=h.level - root.level, page=h.page,
                                          chapter=clean_heading(root.text)[:40]))
            if len(out) >= MAX_HEADINGS:
                return out
    return out
