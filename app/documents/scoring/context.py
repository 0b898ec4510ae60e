"""What the rest of the document says about its scoring: chapters, method, weights.

- the chapter and section a table sits in (a table under 评标办法 is more likely the
  scoring table than one under 采购需求 or 投标文件格式);
- the evaluation method (经评审的最低投标价法 has no scoring points at all);
- weights that make one whole table a category ("综合得分=技术标得分×50%+商务标得分×50%"
  with the price scored by its own formula: the one 100-point table is the 技术标).
"""

from __future__ import annotations

import re

from app.documents.model import TenderDocument
from app.documents.text_patterns import compact

SCORING_TITLE = re.compile(r"评标|评分|评审办法|评审标准|评定|磋商办法|评选|评比|详细评审")
OTHER_TITLE = re.compile(r"需求|技术要求|服务要求|技术规格|合同|考核|投标文件格式|响应文件格式|格式|附件|须知")
LOWEST_PRICE = re.compile(r"(?:经评审的)?最低(?:投标|评标|报)价(?:法|中标)|最低价(?:中标|法)|低价中标法")
LOWEST_OFFER = re.compile(r"(?:最后|最终)?报价由低到高(?:的顺序)?(?:排[序列])?(?:推荐|确定)|最后报价最低的?(?:供应商)?(?:为|确定为)?成交")
SINGLE_SOURCE = re.compile(r"单一来源采购|单一来源方式|采用单一来源")
COMPREHENSIVE = re.compile(r"综合评分法|综合评估法|综合评审法|综合评价法|性价比法|评分法")
_TECH_WEIGHT = re.compile(
    r"技术(?:标|部分|分|得分|评分)*(?:得分)?\s*[×xX*＊]\s*\d+(?:\.\d+)?\s*[%％]|技术(?:标|部分)?权重(?:为|占)?\s*\d+\s*[%％]"
)
_OTHER_WEIGHT = re.compile(
    r"(?:商务|价格|报价)(?:标|部分|分|得分|评分)*(?:得分)?\s*[×xX*＊]\s*\d+(?:\.\d+)?\s*[%％]|(?:商务|价格)(?:标|部分)?权重"
)
_PRICE_FORMULA = re.compile(r"(?:价格|报价)(?:分|得分)\s*[=＝]|[×xX*]\s*100(?![\d%％])")


def _position(doc: TenderDocument, table_id: str) -> tuple[int, int]:
    """(page, block index) of a table, comparable with headings' positions."""
    table = doc.table(table_id)
    page = doc.page(table.page) if 1 <= table.page <= doc.page_count else None
    if page is None:
        return table.page, 0
    for i, block in enumerate(page.blocks):
        if block.table_id == table_id:
            return table.page, i
    if table.bbox is not None:
        top = table.bbox[1]
        return table.page, sum(1 for b in page.blocks if b.bbox is not None and b.bbox[3] <= top + 1)
    return table.page, 0


def table_section(doc: TenderDocument, table_id: str) -> tuple[str, str]:
    """(chapter title, nearest section title) before a table; "" when there is none."""
    try:
        where = _position(doc, table_id)
    except KeyError:
        return "", ""
    chapter = section = ""
    for h in doc.headings:
        if (h.page, h.block_index) > where:
            break
        if h.level <= 1:
            chapter, section = h.text, ""
        elif h.level <= 3:
            section = h.text
    return chapter, section


def context_score(doc: TenderDocument, table_id: str, caption: str) -> tuple[float, str]:
    """+1.5 for a table under a scoring heading/caption, -1.5 under a requirements/contract/form chapter."""
    chapter, section = table_section(doc, table_id)
    near = compact(f"{section} {caption[-40:]}")
    if SCORING_TITLE.search(near) or SCORING_TITLE.search(compact(chapter)):
        return 1.5, f"位于“{(section or chapter or caption[-20:]).strip()[:20]}”之下"
    if chapter and OTHER_TITLE.search(compact(chapter)):
        return -1.5, f"位于“{chapter.strip()[:20]}”章，不是评标办法"
    return 0.0, ""


def evaluation_method(doc: TenderDocument, text: str | None = None) -> str:
    """The method that has no points, when the tender names it and no scoring method: "lowest_price",
    "lowest_offer" (negotiation by the final offer) or "single_source"; "" otherwise."""
    text = compact(doc.text()) if text is None else text
    if LOWEST_PRICE.search(text) and not COMPREHENSIVE.search(text):
        return "lowest_price"
    if LOWEST_OFFER.search(text) and not COMPREHENSIVE.search(text):
        return "lowest_offer"
    if SINGLE_SOURCE.search(text) and not COMPREHENSIVE.search(text):
        return "single_source"
    return ""


def technical_part_by_weight(doc: TenderDocument) -> bool:
    """True when a weighted formula names a technical part beside a price-only part scored by formula."""
    text = compact(doc.text())
    return bool(_TECH_WEIGHT.search(text) and _OTHER_WEIGHT.search(text) and _PRICE_FORMULA.search(text))


_CATEGORY_TOTAL = re.compile(r"(技术|商务|资信|价格|报价)[^\d：:，,。；;]{0,6}[：:]?\s*(\d+(?:\.\d+)?)\s*分")


def stated_category_totals(doc: TenderDocument, pages: list[int]) -> dict[str, float]:
    """Category totals the text states near the scoring tables ("商务部分：20 分 技术部分：40 分 …").

    Only lines that state two or more categories count (a points breakdown, not a criterion).
    Keys are the Chinese labels 技术/商务/价格.
    """
    if not pages:
        return {}
    first, last = max(1, min(pages) - 2), min(doc.page_count, max(pages) + 1)
    out: dict[str, float] = {}
    for number in range(first, last + 1):
        page = doc.page(number)
        if not page.readable:
            continue
        for block in page.blocks:
            text = compact(block.text)
            found = _CATEGORY_TOTAL.findall(text)
            if len({w for w, _ in found}) < 2:
                continue
            for word, value in found:
                key = "价格" if word in ("价格", "报价") else "商务" if word in ("商务", "资信") else "技术"
                out.setdefault(key, float(value))
    return out
