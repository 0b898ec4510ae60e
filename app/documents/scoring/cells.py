"""What a single scoring-table cell says: points, points inside a name, labels, totals.

Shared by the column-role inference, the row folding and the paragraph-scheme reader so
that "30", "30分", "0~ 10", "（42%）", "报价得分 10 分" and "技术部分（81 分）" are read the
same way everywhere. Everything works on compacted text (no whitespace).
"""

from __future__ import annotations

import re

from app.documents.scoring.model import CategorySource, ScoreCategory
from app.documents.text_patterns import clean_cell_text, compact

_NUM = r"\d+(?:\.\d+)?"
POINTS_CELL = re.compile(
    rf"^(?:最高|满分|上限|不超过|最多|[≤＜<]=?|＝)?(?:{_NUM}\s*(?:分)?\s*[~～\-—–至]\s*)?({_NUM})\s*(?:分|%|％)?"
    rf"(?:[（(](?:[^（()）\d]{{1,8}}|[^（()）]{{0,4}}每[^（()）]{{1,10}})[)）])?$"
)
_NAME_POINTS = re.compile(
    rf"[（(]\s*(?:满分|最高|最高分|共|总分|权重|分值)?\s*[为:：]?\s*({_NUM})\s*(?:分|%|％)\s*[)）]"
    rf"|(?<![\d.得扣加减计])({_NUM})\s*分$"
    rf"|[（(]\s*(?:满分|最高|共|总分|权重|分值)?\s*[为:：]?\s*(?:{_NUM}\s*[~～\-—–至]\s*)?({_NUM})\s*分\s*[)）]"
)
_TRAILING_POINTS = re.compile(
    rf"\s*(?:[（(][^（()）]{{0,8}}?{_NUM}\s*(?:分|%|％)[^（()）]{{0,4}}[)）]|(?<![\d.]){_NUM}\s*分)\s*$"
)
_ALLOWED_WORDS = r"(?:可选分值|分值选择|等次分值选择|等次分值|分值选项|可选得分|得分选项|档次分值|分档)"
# "等次分值选择：0.0;3.0;6.0", "可选分值：0-30": the scores the panel may give; the largest is the item's points
_ALLOWED = re.compile(
    rf"{_ALLOWED_WORDS}[^:：\d]{{0,4}}[:：]?\s*({_NUM}(?:\s*[;；,，、/]\s*{_NUM})+|{_NUM}\s*[~～\-—–至]\s*{_NUM})"
)
_ALLOWED_TAIL = re.compile(rf"\s*[（(]?\s*{_ALLOWED_WORDS}[^:：\d]{{0,4}}[:：]?[\d.\s;；,，、/~～\-—–至]*[)）]?\s*$")
_LIST_CELL = re.compile(rf"^{_NUM}(?:[;；]{_NUM}){{2,}}[;；]?$")
_STATED = re.compile(rf"[（(]?\s*(?:共|满分|总分|合计|计)?\s*[为:：]?\s*({_NUM})\s*分\s*[)）]?")
TOTAL_ROW = re.compile(r"^(合计|总计|小计|总分|合计分值|总分值|分值合计|满分|共计)")
NOTE_START = re.compile(r"^(说明|注|备注|附注|注意)[0-9一-九]*[:：.、]?")
_NUMBERING = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[一二三四五六七八九十]+|[（(]\d+[)）]|\d+(?:\.\d+)*[（(]\d+[)）]|[A-Za-z]\d*)$")
_PLACEHOLDER = re.compile(r"^(?:项目|指标|评分项|评审项|因素|内容|名称)?[\dＸXx一二三四五]?$|^[…\.。·\-—_/]+$")
_PRICE = re.compile(r"价格|报价|投标总价|评标价|商务报价")
_COMMERCIAL = re.compile(
    r"业绩|经验|履约|合同|资质|资信|认证|信誉|信用|财务|注册资本|实力|荣誉|获奖|奖项|规模|纳税|社保|诚信|企业|体系"
)
_TERMS = re.compile(r"交货期|供货期|交付期|质保期|保修期|付款")  # commercial terms of the contract
_PLAN = re.compile(r"方案|措施|计划|设计|流程|思路|组织|制度")
_BID_RESPONSE = re.compile(r"响应程度|响应度|响应性|完整性")  # how completely the bid answers the tender
_CRITERIA_COMMERCIAL = re.compile(r"获奖|奖项|荣誉|表彰")
_LEAD_NAME = re.compile(
    r"^(?:\d{1,2}[.、．]|[（(]\d{1,2}[)）]|[①-⑳])?\s*([^：:，,。；;（(\n\d]{2,16}?)\s*(?:[（(][^（()）]{0,10}[)）])?\s*[：:]"
)
_GROUP_LIKE = re.compile(r"部分|类$|评分$|评审$|得分$")
_EMPTY = {"", "/", "---", "--", "-", "—", "——", "无", "……", "…"}


_STRAY_PUNCT = re.compile(r"^[，。、；;,：:]+|[，。、；;,：:]+$")


def points_value(text: str | None) -> float | None:
    """Points of a bare points cell ("30", "30分", "0~ 10" -> 10, "42%"), None for anything else.

    Punctuation at either end is the neighbour cell's text spilled over the border ("。⏎2 分").
    """
    if text is None:
        return None
    t = _STRAY_PUNCT.sub("", compact(text))
    m = POINTS_CELL.match(t)
    if m:
        return float(m.group(1))
    if _LIST_CELL.match(t) or (len(t) <= 40 and _ALLOWED.fullmatch(t)):
        return allowed_max(t)
    return None


def allowed_max(text: str) -> float | None:
    """The largest of the allowed scores a cell or name lists ("可选分值：0;5;10" -> 10), or None."""
    m = _ALLOWED.search(text)
    body = m.group(1) if m else text if _LIST_CELL.match(text) else ""
    nums = [float(n) for n in re.findall(_NUM, body)]
    return max(nums) if nums else None


def name_points(text: str | None, max_len: int = 48) -> float | None:
    """Points stated inside a short name: "服务方案（42%）", "（25分）", "报价得分10分", "业绩部分（8 分）"."""
    if not text:
        return None
    t = compact(text)
    if len(t) > max_len:
        return None
    if _ALLOWED.search(t):
        return allowed_max(t)
    m = _NAME_POINTS.search(t)
    if not m:
        return None
    return float(next(g for g in m.groups() if g is not None))


def stated_points(text: str) -> float | None:
    """A stated total in a caption, label or header: "技术评分细则表（50分）", "评审要求（100分）"."""
    m = _STATED.search(compact(text))
    return float(m.group(1)) if m else None


def strip_points(name: str) -> str:
    """A name without its trailing points: "服务方案（42%）" -> "服务方案", "报价得分10分" -> "报价得分"."""
    text = clean_cell_text(name, keep_breaks=False)
    out = _TRAILING_POINTS.sub("", _ALLOWED_TAIL.sub("", text)).strip()
    return out or text


def is_numbering(text: str | None) -> bool:
    """A 序号/条款号 cell: "1", "2.1", "一", "（3）", "2.2.4（1）"."""
    return bool(text) and bool(_NUMBERING.match(compact(text or "")))


_SCORE_TYPE = re.compile(r"^(?:客观|主观|定量|定性|客观/主观|主观/客观)(?:分|评分|评审|打分|项)?$")


def is_score_type(text: str | None) -> bool:
    """A cell saying how an item is scored ("客观分", "主观 分", "定性"), not what it is."""
    return bool(_SCORE_TYPE.match(compact(text or "")))


_PART_NUMBER = re.compile(r"^(?:[（(][一二三四五六七八九十]+[)）]|[一二三四五六七八九十]+[、.．]?)$")


def is_part_number(text: str | None) -> bool:
    """A part's own numbering in a number cell: "（一）", "二、", "三"."""
    return bool(_PART_NUMBER.match(compact(text or "")))


def is_placeholder(text: str | None) -> bool:
    """A template placeholder name: "项目1", "指标2", "……", "XX"."""
    return bool(_PLACEHOLDER.match(compact(text or "")))


_POINTS_ONLY = re.compile(r"[（(]\d+(?:\.\d+)?分[)）]")


def points_only(text: str | None) -> bool:
    """A cell holding nothing but bracketed points ("(50 分)"): the end of a part or name cut by a page break."""
    return bool(_POINTS_ONLY.fullmatch(compact(text or "")))


def is_empty(text: str | None) -> bool:
    """No content: None, blank, "/", "---", "……"."""
    return text is None or compact(text) in _EMPTY


def explicit_category(text: str) -> ScoreCategory | None:
    """A category a label names outright: 技术…, 商务/资信…, 价格/报价…; None otherwise."""
    t = compact(text)
    if _PRICE.search(t) and "技术" not in t:
        return ScoreCategory.PRICE
    if "技术" in t and ("商务" in t or "资信" in t):
        return None  # names both parts ("商务和技术评分标准")
    if "技术" in t:
        return ScoreCategory.TECHNICAL
    if "商务" in t or "资信" in t:
        return ScoreCategory.COMMERCIAL
    return None


def default_category(name: str, criteria: str = "") -> tuple[ScoreCategory, CategorySource]:
    """The category a generic rule gives a factor by its words (and "factor_name"/"guess")."""
    t = compact(name)
    if _PRICE.search(t) and not _PLAN.search(t):
        return ScoreCategory.PRICE, "factor_name"
    if _COMMERCIAL.search(t) and not _PLAN.search(t):
        return ScoreCategory.COMMERCIAL, "guess"
    if (_BID_RESPONSE.search(t) or _TERMS.search(t)) and not _PLAN.search(t) and "技术" not in t:
        return ScoreCategory.COMMERCIAL, "guess"
    if not _PLAN.search(t) and _CRITERIA_COMMERCIAL.search(compact(criteria)[:200]):
        return ScoreCategory.COMMERCIAL, "guess"
    return ScoreCategory.TECHNICAL, "guess"


def is_commercial_label(text: str) -> bool:
    """A group label about the bidder itself (企业实力及业绩, 资信业绩) rather than the work."""
    t = compact(text)
    return bool(_COMMERCIAL.search(t)) and not _PLAN.search(t)


def fmt_points(x: float | None) -> str:
    """Points without a useless ".0"; "?" for None."""
    if x is None:
        return "?"
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def lead_name(text: str | None) -> str:
    """The name a criteria cell starts with ("运维方案：…" -> "运维方案"), or ""."""
    m = _LEAD_NAME.match(compact(text or ""))
    return m.group(1) if m else ""


def is_group_label(text: str) -> bool:
    """A category/group label such as "技术部分（60分）", "商务评分" rather than a factor name."""
    t = compact(text)
    bare = re.sub(r"[（(][^（()）]*[)）]", "", t)
    return len(bare) <= 16 and (explicit_category(bare) is not None or bool(_GROUP_LIKE.search(bare)))
