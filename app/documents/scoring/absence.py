"""Why a tender has no scoring table, said plainly in Chinese.

A tender without scoring points is not a failure to hide: the lowest-price method has
none, a template leaves its points blank, an announcement carries no 评标办法, and a
file without a text layer cannot be read at all. Each gets its own message so the user
knows whether to import another file, fill in the items by hand or use free mode.
"""

from __future__ import annotations

import re

from app.documents.model import DiagnosticCode, TenderDocument
from app.documents.scoring.cells import is_empty, name_points, points_value
from app.documents.scoring.columns import detect_header
from app.documents.scoring.context import evaluation_method
from app.documents.text_patterns import compact, format_page_ranges

_PLACEHOLDER_CELL = re.compile(r"^[…\.。·]{2,}$|^_{2,}$")
_BLANK_POINTS = re.compile(r"(?:部分|报价|因素)[:：]\s*分|分值[:：]?\s*分|权重[:：]?\s*[%％]")
_SCHEME_WORDS = re.compile(
    r"评标办法|评分办法|评分标准|评审办法|评审标准|评分细则|评审细则|综合评分|综合评估|评标方法|评分因素|评审因素"
)
_ANNOUNCEMENT = re.compile(r"招标公告|采购公告|磋商公告|谈判公告|询价公告|投标邀请|公开招标公告")

MESSAGES = {
    "no_text": "文件没有可提取的文字层（文字是图片或矢量轮廓，需要先做 OCR），无法读取评分表",
    "garbled": "文件的文字层是乱码（字体编码无法解析），无法读取评分表；请换用 Word 版或重新导出的 PDF",
    "lowest_price": "本项目采用经评审的最低投标价法，没有技术评分项：评标只审查是否满足要求，再比较价格；"
                    "可用自由模式依据采购需求编写技术标",
    "lowest_offer": "本项目按满足实质性要求的最低报价确定成交（报价由低到高排序推荐，如竞争性谈判、询价），"
                    "没有评分项；可用自由模式依据采购需求编写技术标",
    "single_source": "本项目为单一来源采购，与供应商协商确定成交，没有评分项；可用自由模式依据采购需求编写技术标",
    "template": "评分表是未填写分值的模板（只有评分因素名称，分值和评分标准是“……”或空白），无法读取分值；"
                "请在分析页手工填写评分项，或用自由模式",
    "announcement": "文件只是招标公告，不含评标办法和评分表；评分办法在招标文件正文或附件中，请导入完整的招标文件",
    "none": "未找到评分表：文件中没有带分值的评分因素表格或条文",
}


def _template_table(doc: TenderDocument) -> bool:
    """A table with a scoring header and factor names whose points/criteria are all placeholders or blank."""
    for table in doc.tables:
        n, _names, hints, _ = detect_header(table.rows)
        if not n or "factor" not in hints or not ({"criteria", "points"} & hints.keys()):
            continue
        body = table.rows[n:]
        f = hints["factor"]
        named = [r for r in body if f < len(r) and r[f] and not is_empty(r[f])]
        if len(named) < 2:
            continue
        cols = [hints[k] for k in ("criteria", "points") if k in hints]
        values = [r[j] for r in named for j in cols if j < len(r) and r[j] is not None]
        if any(points_value(c) is not None or name_points(c) is not None for r in body for c in r if c):
            continue  # numbers that read as points anywhere in it ("8 分" beside "0-8 分"): no blank template
        if all(is_empty(v) or _PLACEHOLDER_CELL.match(compact(v or "")) for v in values):
            return True
    return False


LOWEST_REJECT = "本项目按最低价确定中标/成交，此表没有标明总分、合计也不是 100 分，不作为评分表"
NO_POINTS_METHODS = ("lowest_price", "lowest_offer", "single_source")


def absence_reason(doc: TenderDocument) -> tuple[str, str]:
    """(code, Chinese message) saying why no scoring table was found."""
    codes = {d.code for d in doc.diagnostics}
    if doc.pages and not doc.has_readable_text:
        if DiagnosticCode.GARBLED_TEXT in codes:
            return "garbled", MESSAGES["garbled"]
        return "no_text", MESSAGES["no_text"]
    text = compact(doc.text())
    method = evaluation_method(doc, text)
    if method in ("lowest_price", "lowest_offer", "single_source"):
        return method, MESSAGES[method]
    if _template_table(doc) or ("范本" in text and _BLANK_POINTS.search(text)):
        return "template", MESSAGES["template"]
    if not _SCHEME_WORDS.search(text) and _ANNOUNCEMENT.search(text):
        return "announcement", MESSAGES["announcement"]
    message = MESSAGES["none"]
    if doc.unreadable_pages:
        message += f"（{format_page_ranges(doc.unreadable_pages)}无法读取文字，评分表可能在其中）"
    return "none", message
