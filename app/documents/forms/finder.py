"""Read a tender's format chapter into its ordered list of forms: ``find_forms(path)``.

The flow (:mod:`.flow`) is searched for format chapters (:mod:`.chapter`); inside each, title
lines (:mod:`.titles`) open forms, and what follows up to the next title is the form's fixed
text and tables. A title repeated right below itself (``格式6.投标函`` then ``投标函``) stays one
form; a title listed first and given its own page later (a list at the chapter's start) counts
once, where its content is. Blanks are read by :mod:`.blanks`. The chapter with the most forms
wins; a tender with none says why in ``message``.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from app.core.bid_forms import FormParagraph, FormsReading, FormTable, TenderForm
from app.documents.forms.blanks import find_blanks
from app.documents.forms.chapter import ChapterSpan, chapter_spans, is_toc_line
from app.documents.forms.flow import FlowItem, FlowParagraph, FlowTable, docx_flow
from app.documents.forms.flow_pages import document_flow
from app.documents.forms.hierarchy import contents_lines, keep_forms
from app.documents.forms.numbering import style_rank
from app.documents.forms.titles import (
    _NUMBER,
    FORM_END,
    Title,
    clean_name,
    compact,
    form_kind,
    parse_title,
    repeats,
    same_name,
)

if TYPE_CHECKING:
    from app.documents.model import TenderDocument

_COPIES = re.compile(r"([^，。；：:、（）()\s]{2,24}?(?:复印件|扫描件|影印件))")
_PLACEHOLDER_ONLY = re.compile(r"^[（(]?\s*(?:格式自拟|自拟格式|格式自定|格式不限|略|无格式|自行编制)\s*[)）]?$")


def _styled(p: FlowParagraph) -> bool:
    return bool(p.heading_level) or p.align == "center" or p.bold


_BARE_NUMBER = re.compile(r"(?P<num>(?:附件|格式|附表)\s*[-－]?\s*(?:\d+(?:[-－.．]\d+)*|[一二三四五六七八九十]{1,3})\s*[:：]?)"
                          r"(?:[（(](?P<note>[^（）()]{1,30})[)）])?")


def _line(flow: list[FlowItem], i: int, hi: int) -> FlowParagraph | None:
    it = flow[i] if i < hi else None
    return it if isinstance(it, FlowParagraph) else None


def _split_title(flow: list[FlowItem], i: int, hi: int, number: str = "") -> Title | None:
    """A title printed over two lines (``财务状况及税收、社会保障资金`` / ``缴纳情况声明函``): two short lines
    set the same way (centred, bold or a heading), neither a sentence nor a label, that make a title only together."""
    a, b = _line(flow, i, hi), _line(flow, i + 1, hi)
    if a is None or b is None or not _styled(a) or (a.align, a.bold, a.heading_level) != (b.align, b.bold, b.heading_level):
        return None
    if len(compact(a.text)) > 36 or len(compact(b.text)) > 24 or any(re.search(r"[，,。；;：:]", x.text) for x in (a, b)):
        return None
    if re.match(r"[（(【\[]", compact(a.text)) or _NUMBER.match(compact(b.text)):
        return None  # a note, or a line that starts something of its own
    if any(len(re.findall(r"[\u4e00-\u9fff]", re.sub(r"[年月日]", "", compact(x.text)))) < 2 for x in (a, b)):
        return None  # a date line (年  月  日) or a lone word is no half of a title
    if compact(b.text) in ("目录", "目次"):
        return None
    if re.search(r"(?:项目|工程|采购|标段|包\s*[\d一二三四五六七八九十]*)$|编号", compact(a.text)):
        return None  # a project's name over the form's title, not its first half
    joined = parse_title(number + a.text.strip() + b.text.strip(), styled=True)  # ``number``: the 附件 line above
    if joined is None or joined.group or joined.weak:
        return None
    return Title(f"{a.text.strip()} {b.text.strip()}", "" if number else joined.number, joined.name, joined.condition,
                 joined.self_drafted)


_LABEL_TAIL = re.compile(r"^(?P<head>.+?)[\s\u3000]+(?P<label>[\u4e00-\u9fff（）()]{2,10}[：:][\s_＿\u3000]*)$")


def _copy_note(it: FlowParagraph | None) -> bool:
    """A line that is only a bracketed note asking for a copy (``（复印件加盖单位公章）``)."""
    t = compact(it.text) if it is not None else ""
    return bool(re.fullmatch(r"[（(][^（）()]*(?:复印件|扫描件|影印件)[^（）()]*[)）]", t))


def _title_before_label(text: str) -> Title | None:
    """A numbered title run together with the form's first label line (``1、项目负责人情况表 项目名称：``, as a
    PDF→DOCX conversion leaves it): the title before the label."""
    m = _LABEL_TAIL.match(text.strip())
    if m is None:
        return None
    title = parse_title(m.group("head"))
    return title if title is not None and title.number and not title.weak and not title.group else None


def _titles(flow: list[FlowItem], span: ChapterSpan) -> list[tuple[int, Title]]:
    """The title lines inside a chapter span (the chapter heading itself excluded)."""
    out: list[tuple[int, Title]] = []
    listed = contents_lines(flow, span.start, span.end)
    skip = -1
    for i in range(span.start + 1, span.end):
        it = flow[i]
        if i == skip or not isinstance(it, FlowParagraph) or is_toc_line(it.text) or it.list_item or i in listed:
            continue
        title = parse_title(it.text, styled=_styled(it))
        if title is None:
            bare = _BARE_NUMBER.fullmatch(compact(it.text))
            if bare:  # "附件1：" alone (or with a note), its title on the next line (or two)
                nxt = _line(flow, i + 1, span.end)
                inner = parse_title(nxt.text, styled=True) if nxt is not None else None
                if inner is None and nxt is not None:
                    inner = _split_title(flow, i + 1, span.end, bare.group("num"))
                    if inner is not None:
                        nxt = FlowParagraph(nxt.index, inner.text)
                if nxt is not None and inner is not None and not inner.group:
                    out.append((i, Title(f"{it.text.strip()} {nxt.text.strip()}", bare.group("num").rstrip("：:"),
                                         inner.name, inner.condition or (bare.group("note") or ""), inner.self_drafted,
                                         inner=inner.number)))
                continue
            title = _title_before_label(it.text)
            if title is None:
                title = _split_title(flow, i, span.end)
                if title is None:
                    continue
                skip = i + 1
        if title.weak and _copy_note(_line(flow, i + 1, span.end)):
            title = replace(title, weak=False)  # "表2 法定代表人身份证" over "（复印件加盖单位公章）": a copy to attach
        prev = flow[i - 1] if i - 1 > span.start else None
        if not title.number and isinstance(prev, FlowParagraph) and not (out and out[-1][0] == i - 1) and i - 1 not in listed:
            lead = _numbered_lead(prev.text)
            if lead is not None:  # "十、…不得具有行贿犯罪记录的" above "承诺函": one title on two lines
                title = Title(f"{prev.text.strip()} {it.text.strip()}", lead[0], lead[1] + title.name, title.condition,
                              title.self_drafted)
                out.append((i - 1, title))
                continue
        out.append((i, title))
    return keep_forms(flow, _fold(flow, out), span.start, span.end, listed)


def _numbered_lead(text: str) -> tuple[str, str] | None:
    """A short numbered line without a sentence end that may carry on into a title below: (number, words)."""
    t = compact(text)
    m = _NUMBER.match(t)
    if not m or m.end() >= len(t) or len(t) > 40 or re.search(r"[。；;！!？?：:]", t):
        return None
    whole = parse_title(text)
    if whole is not None and not whole.weak and not whole.group:
        return None  # a whole title of its own ("三、合同用款估算表"), not the first half of the one below
    return m.group("num"), t[m.end():]


def _has_content(flow: list[FlowItem], a: int, b: int) -> bool:
    """Whether anything but blank lines lies strictly between flow items ``a`` and ``b``."""
    return any(isinstance(flow[k], FlowTable) or compact(flow[k].text) for k in range(a + 1, b)  # type: ignore[union-attr]
               )


def _fold(flow: list[FlowItem], titles: list[tuple[int, Title]]) -> list[tuple[int, Title]]:
    """Drop titles that repeat the title just above (the form's own heading under its numbered entry)."""
    out: list[tuple[int, Title]] = []
    for i, t in titles:
        if out and not t.group:
            j, prev = out[-1]
            near = i - j <= 3 and not any(isinstance(flow[k], FlowTable) for k in range(j + 1, i))
            both = bool(prev.number and t.number)  # two numbers: a part or the next form, never a repetition
            same_page = flow[i].page == flow[j].page
            if near and not prev.group and i - j <= 2 and (
                    clean_name(prev.name) == clean_name(t.name) if both
                    else repeats(prev.name, t.name) or (same_page and same_name(prev.name, t.name))):
                if not prev.number and t.number:
                    out[-1] = (j, t)
                elif _styled(flow[i]) and not both:  # type: ignore[arg-type]
                    out[-1] = (j, replace(prev, echoed=True))
                continue
            if near and not prev.group and not both:
                if repeats(prev.name, t.name):
                    if not prev.number and t.number:
                        out[-1] = (j, t)
                    continue
                if (prev.number and not t.number and i - j == 1 and not FORM_END.search(prev.name)
                        and not prev.text.rstrip().endswith(("）", ")"))):  # a closed note ends a title
                    out[-1] = (j, Title(f"{prev.text} {t.text}", prev.number, prev.name + t.name, prev.condition or t.condition,
                                        prev.self_drafted or t.self_drafted))
                    continue
        out.append((i, t))
    return out


def _form(flow: list[FlowItem], start: int, end: int, title: Title, group: str, index: int) -> TenderForm:
    """One form from its title line to the item before ``end``."""
    head = flow[start]
    items: list[FormParagraph | FormTable] = []
    pages = [head.page]
    for it in flow[start + 1:end]:
        pages.append(it.page)
        if isinstance(it, FlowTable):
            items.append(FormTable(rows=it.rows, page=it.page, source=it.source))
        else:
            items.append(FormParagraph(text=it.text.strip("\r"), page=it.page, source=it.source,
                                       align=it.align if it.align in ("left", "center", "right") else "",  # type: ignore[arg-type]
                                       bold=it.bold))
    texts = [it.text for it in items if isinstance(it, FormParagraph)]
    drafted = title.self_drafted or any(_PLACEHOLDER_ONLY.match(compact(t)) for t in texts[:3])
    copies = []
    for t in [title.text, *texts]:
        for m in _COPIES.finditer(compact(t)):
            c = re.sub(r"^(?:附[:：]?|提供|附上|须附|并附|应附|粘贴|在此粘贴)", "", m.group(1))
            if c not in copies and len(c) >= 4:
                copies.append(c)
    form = TenderForm(key="", title=title.text, name=title.name, number=title.number, kind=form_kind(title.name),  # type: ignore[arg-type]
                      group=group, page=head.page, last_page=max(pages), items=items,
                      requirement="conditional" if title.condition else "required", condition=title.condition,
                      self_drafted=drafted, copies=copies[:8])
    if form.kind == "other" and copies and not texts[1:]:
        form.kind = "attachment"
    form.blanks = find_blanks(form, index, flow_underlines=_underlines(flow, start + 1, end))
    return form


def _underlines(flow: list[FlowItem], a: int, b: int) -> list[list[tuple[int, int]]]:
    """Underlined spans of each paragraph item between ``a`` and ``b`` (empty lists for tables)."""
    out: list[list[tuple[int, int]]] = []
    for it in flow[a:b]:
        out.append(list(it.underlined) if isinstance(it, FlowParagraph) else [])
    return out


def forms_in_span(flow: list[FlowItem], span: ChapterSpan) -> list[TenderForm]:
    """The forms of one chapter span, in order, with keys that stay the same between readings."""
    titles = _titles(flow, span)
    forms: list[TenderForm] = []
    structural: list[bool] = []  # the title is a heading by Word's own numbering or outline level
    group = ""
    group_rank = -1
    for k, (i, title) in enumerate(titles):
        end = titles[k + 1][0] if k + 1 < len(titles) else span.end
        empty = not _has_content(flow, i, end)
        rank = style_rank(title.number)
        if title.group:
            group, group_rank = title.name, (rank if rank is not None else -1)
            continue
        if rank is not None and rank <= group_rank:
            group, group_rank = "", -1  # "三、联合体协议书" after the forms under "二、…": out of that group
        if empty and any(same_name(title.name, later.name) and _has_content(flow, j, titles[m + 1][0] if m + 1 < len(titles)
                                                                             else span.end)
                         for m, (j, later) in enumerate(titles) if m > k):
            continue  # an entry of a list at the chapter's start: the form comes later, with its content
        if _to_all_bidders(flow, i, end):
            continue  # "各供应商：…" — the buyer's notice to every bidder printed among the formats, nothing to fill
        forms.append(_form(flow, i, end, title, group, len(forms) + 1))
        it = flow[i]
        structural.append(isinstance(it, FlowParagraph) and (it.auto_numbered or bool(it.heading_level)))
    forms = _without_duplicates(forms, structural)
    counts: Counter[str] = Counter()
    for f in forms:
        base = clean_name(f.name) or f.name
        counts[base] += 1
        f.key = f"{base}@{counts[base]}"
    return forms


_TO_ALL = re.compile(r"^(?:致)?[:：]?各(?:位|潜在)?(?:供应商|投标人|投标单位|响应人|申请人|参与人|竞买人)[:：,，]")


def _to_all_bidders(flow: list[FlowItem], a: int, b: int) -> bool:
    """Whether the first words under a title (its own second line aside) address every bidder (``各供应商：``):
    a notice from the buyer."""
    return any(isinstance(flow[k], FlowParagraph) and _TO_ALL.match(compact(flow[k].text))  # type: ignore[union-attr]
               for k in range(a + 1, min(b, a + 3)))


def _thin(form: TenderForm) -> bool:
    """A form with next to nothing of its own: no table, no blank, at most two short paragraphs."""
    paragraphs = [it for it in form.items if isinstance(it, FormParagraph)]
    return (not form.blanks and not any(isinstance(it, FormTable) for it in form.items)
            and len(paragraphs) <= 2 and sum(len(p.text) for p in paragraphs) <= 80)


def _without_duplicates(forms: list[TenderForm], structural: list[bool]) -> list[TenderForm]:
    """A thin form printed again with content later is an entry of a list (that form counts once,
    where it is printed); a 目录 is the list itself (the export writes the volume's own)."""
    thin = [_thin(f) and not structural[k] for k, f in enumerate(forms)]
    bare = [not f.blanks and not any(isinstance(it, FormTable) for it in f.items) and not structural[k]
            for k, f in enumerate(forms)]
    in_list: set[int] = set()
    k = 0
    while k < len(forms):  # three or more thin forms in a row on one page: a list of contents
        j = k
        while j < len(forms) and thin[j] and bare[j] and forms[j].page == forms[k].page:
            j += 1
        again = sum(1 for f in forms[k:j] if any(
            same_name(f.name, g.name) or (f.number and compact(f.number).rstrip("：:、.．") == compact(g.number).rstrip("：:、.．"))
            for g in forms[j:]))
        if j - k >= 3 and again * 2 >= j - k:
            in_list.update(range(k, j))
        k = max(j, k + 1)
    out = []
    for k, f in enumerate(forms):
        if k in in_list or (thin[k] and any(same_name(f.name, g.name) and not _thin(g) for g in forms[k + 1:])):
            continue
        if _cover_of_later_forms(f, forms[k + 1:]):
            continue
        if compact(f.name).endswith(("目录", "目次")):
            continue
        out.append(f)
    return out


_LIST_ENTRY = re.compile(r"^(?:\d{1,2}|[一二三四五六七八九十]{1,3})[.．、]\s*(?P<name>\S.{1,40})$")


def _cover_of_later_forms(form: TenderForm, later: list[TenderForm]) -> bool:
    """A title over instructions and a numbered list of the forms printed after it (``资格审查资料`` over
    ``一、须知 … 二、表格式 1.申请表 2.…表``): the cover of a part, not a form — it has no table, next to no
    blank (a 投标函 listing its attachments has many) and two or more of its numbered lines name forms that
    follow with their own content."""
    if any(isinstance(it, FormTable) for it in form.items) or len(form.blanks) > 2 or not later:
        return False
    named = 0
    for it in form.items:
        m = _LIST_ENTRY.match(it.text.strip()) if isinstance(it, FormParagraph) else None
        if m and any(same_name(m.group("name"), g.name) for g in later[:12]):
            named += 1
    return named >= 2


def _weight(forms: list[TenderForm]) -> float:
    """How much a chapter looks like the forms: forms that name a kind of form and have blanks or tables
    (the instructions' clauses — 投标有效期, 开标程序 — mostly name none)."""
    return sum((1.0 if f.kind != "other" else 0.2) for f in forms
               if f.blanks or any(isinstance(it, FormTable) for it in f.items))


def read_forms(flow: list[FlowItem], source_path: str = "", source_kind: str = "") -> FormsReading:
    """The forms of the best format chapter in a flow (the one with the most forms)."""
    best: tuple[ChapterSpan, list[TenderForm]] | None = None
    for span in chapter_spans(flow):
        forms = forms_in_span(flow, span)
        if forms and (best is None or (span.rank, _weight(forms)) >= (best[0].rank, _weight(best[1]))):  # later wins ties
            best = (span, forms)
    reading = FormsReading(source_path=source_path, source_kind=source_kind)
    if best is None:
        reading.message = ("招标文件中没有找到“投标文件格式”（响应文件格式、附件）章节，或该章节没有规定格式；"
                           "投标文件的组成请按招标文件须知自行整理。")
        return reading
    span, forms = best
    reading.chapter_title = span.title
    reading.chapter_pages = (flow[span.start].page, flow[span.end - 1].page)
    reading.forms = forms
    blanks = sum(len(f.blanks) for f in forms)
    conditional = sum(1 for f in forms if f.requirement == "conditional")
    reading.message = (f"“{span.title}”（第 {reading.chapter_pages[0]}–{reading.chapter_pages[1]} 页）规定了 {len(forms)} 份格式，"
                       f"其中 {conditional} 份视情况提供；共 {blanks} 处待填写。")
    return reading


def find_forms(path: Path | str, doc: TenderDocument | None = None) -> FormsReading:
    """Read the format chapter of a DOCX or PDF tender (``doc``: the already read document, if any).

    A PDF is read twice: the tender's text finds the chapter, then the chapter's pages are read
    again line by line (gaps, drawn rules, ruled tables: :mod:`.pdf_lines`) and the forms come
    from that closer reading.
    """
    p = Path(path)
    is_docx = p.suffix.lower() == ".docx" and (doc is None or doc.kind == "docx")
    if is_docx:
        return read_forms(docx_flow(p), str(p), "docx")
    if doc is None:
        from app.documents.loader import load_tender

        doc = load_tender(p)
    reading = read_forms(document_flow(doc), str(p), doc.kind)
    if doc.kind != "pdf" or reading.chapter_pages is None:
        return reading
    from app.documents.forms.pdf_lines import read_chapter_pages

    first, last = reading.chapter_pages
    try:
        closer = read_chapter_pages(p, first, last)
    except Exception:  # a PDF MuPDF opens only with a password, or one it fails on: keep the plain reading
        return reading
    again = read_forms(document_flow(doc, closer), str(p), doc.kind)
    if closer.skipped:
        again.message += f"（第 {closer.skipped[0]}–{closer.skipped[-1]} 页超出逐行读取的上限，按普通文字读取）"
    return again if again.forms else reading
