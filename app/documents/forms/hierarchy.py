"""Which title lines open forms and which are parts of the form above them.

A format chapter numbers its forms in one style (``格式6.``, ``附件3``, ``1-2``, ``三、``); lines
numbered in another style inside a form that already has text are its own parts (``9.2 分项报价表``
under ``格式9.开标一览表``, ``5.投标人开户账号资料`` in a 基本情况表), unless the form above has no
text of its own — then it was a heading over them (``附件13 投标人的资格证明文件`` over ``表1…``).
An unnumbered line counts inside such a chapter only when it stands as a heading (a style,
centred, bold, Word's own numbering) or alone between longer lines; a run of short lines is a
table read as text (a PDF's contents list or 自查表), never a list of forms.

A title with nothing of its own is a heading when the titles under it are its children — their
number extends its own (``3、`` over ``3.1``), they stand lower (``八、`` over ``（一）``), or they are
unnumbered — unless the next one is its sibling (``1-1`` then ``1-2``: a copy to attach). An
``附件二：`` whose title line is numbered (``1、法定代表人证明``) holds the forms numbered after it, and
a heading naming two papers (``…身份证明及授权委托书``) is over ``（一）`` and ``（二）``. A number that goes
back (``一、`` after ``五、``) or continues items the form above numbered as headings (``附件1`` …
``附件2`` inside a 资格声明函) is the form's own part; a cover (labels and values only) and a 目录
are never forms with parts.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from app.documents.forms.chapter import is_toc_line
from app.documents.forms.flow import FlowItem, FlowParagraph, FlowTable
from app.documents.forms.numbering import (
    ENUMERATIONS,
    extends,
    number_style,
    ordinal,
    restarts,
    sibling,
    stands_higher,
)
from app.documents.forms.titles import (
    Title,
    clean_name,
    compact,
    form_kind,
    parse_title,
    repeats,
    same_document,
    same_name,
)


def _style_of(flow: list[FlowItem], i: int, t: Title) -> str:
    """A title's numbering style; a line Word numbers itself is ``auto``."""
    style = number_style(t.number)
    it = flow[i]
    if not style and isinstance(it, FlowParagraph) and it.auto_numbered:
        return "auto"
    return style


def _short(it: FlowItem | None) -> bool:
    return isinstance(it, FlowParagraph) and len(compact(it.text)) <= 20 and not re.search(r"[，。；：:]", it.text)


_PLACEHOLDER = re.compile(r"^[（(]?(?:格式自拟|自拟格式|格式自定|格式不限|内容、?格式自拟|略)[)）。.]?$")


def _has_text(flow: list[FlowItem], a: int, b: int, listed: set[int] | frozenset[int] = frozenset()) -> bool:
    """Whether anything of a form's own stands between two lines (a lone 格式自拟 is no content)."""
    return any(k not in listed and (isinstance(flow[k], FlowTable)
                                    or (compact(flow[k].text) and not _PLACEHOLDER.match(compact(flow[k].text))))  # type: ignore[union-attr]
               for k in range(a + 1, b))


_LIST_END = re.compile(r"[；;。.，,\s\t\d…·.]+$")


def contents_lines(flow: list[FlowItem], lo: int, hi: int) -> set[int]:
    """Lines of a list of contents inside a chapter: three or more titles in a row (``目录`` above them)
    most of which are printed again as titles further on. They are neither forms nor a form's text."""
    entries: dict[int, Title] = {}
    titled: dict[int, Title] = {}
    for i in range(lo + 1, hi):
        it = flow[i]
        if isinstance(it, FlowParagraph):
            text = it.text.strip()
            stripped = _LIST_END.sub("", text) if len(text) <= 60 else ""
            t = parse_title(stripped) if stripped else None
            if t is not None:  # a group's name too: a list of contents lists the parts of the bid as well
                titled[i] = t
                if not (it.page_top or it.heading_level or it.auto_numbered):
                    entries[i] = t
    out: set[int] = set()
    run: list[int] = []

    gaps: list[int] = []

    def flush() -> None:
        if len(run) >= 3:
            later = [t.name for j, t in titled.items() if j > run[-1]]
            again = sum(1 for k in run if any(same_name(entries[k].name, n) for n in later))
            if again * 2 >= len(run):
                out.update(run)
                out.update(g for g in gaps if run[0] < g < run[-1])
                head = run[0] - 1
                first = flow[head] if head > lo else None
                if isinstance(first, FlowParagraph) and compact(first.text) in ("目录", "目次"):
                    out.add(head)
        run.clear()
        gaps.clear()

    gap = 0
    for i in range(lo + 1, hi):
        it = flow[i]
        if i in entries and run and number_style(entries[i].number) != number_style(entries[run[0]].number):
            if entries[i].group and gap < 2:  # a part's name between the entries (2、第二部分 技术部分)
                gap += 1
                gaps.append(i)
                continue
            flush()  # a list numbers its entries one way: another style starts something else
            gap = 0
        if i in entries:
            run.append(i)
            gap = 0
        elif isinstance(it, FlowParagraph) and (is_toc_line(it.text) or (run and gap < 2 and len(compact(it.text)) <= 40)):
            gap += 1
            gaps.append(i)
        else:
            flush()
            gap = 0
    flush()
    return out


_COVER_LABEL = re.compile(r"(项目名称|项目编号|采购编号|招标编号|投标人|供应商|响应人|日期|包号|标段|正本|副本)")


#: A part of the bid (商务部分, 技术标（参考）, 资格证明文件 as a volume): a heading, never a form with parts.
_VOLUME_NAME = re.compile(r"(?:部分|标|卷|篇|册)(?:[（(][^（）()]{0,8}[)）])?$|(?:商务|技术|资格|价格|报价|资信|经济)(?:证明)?(?:响应|投标)?文件")


def _cover_table(table: FlowTable) -> bool:
    """A small table of a cover's labels and values (项目编号 | …, 项目名称 | …), no more than four rows."""
    rows = [r for r in table.rows if any(c for c in r)]
    return 0 < len(rows) <= 4 and all(len([c for c in r if c is not None]) <= 2 for r in rows) and all(
        _COVER_LABEL.search(compact(r[0] or "")) for r in rows)


def _cover_only(flow: list[FlowItem], a: int, b: int, listed: set[int]) -> bool:
    """Only a cover's lines (项目名称：…, 投标人名称：…, 日期) between two titles: the first heads a volume."""
    labels = 0
    for k in range(a + 1, b):
        it = flow[k]
        if k in listed:
            continue
        if isinstance(it, FlowTable):
            if not _cover_table(it):
                return False
            labels += sum(1 for row in it.rows if row and _COVER_LABEL.search(compact(row[0] or "")))
            continue
        t = compact(it.text)
        if len(t) > 40 or re.search(r"[，。；]", t):
            return False
        labels += bool(_COVER_LABEL.search(t))
    return labels >= 2


def _stands_alone(flow: list[FlowItem], i: int, lo: int, hi: int) -> bool:
    """A line not sitting in a run of short lines (a table read as text)."""
    prev = flow[i - 1] if i - 1 > lo else None
    nxt = flow[i + 1] if i + 1 < hi else None
    return not (_short(prev) and _short(nxt))


def _heading_like(it: FlowItem) -> bool:
    return isinstance(it, FlowParagraph) and (bool(it.heading_level) or it.align == "center" or it.bold
                                              or it.auto_numbered or it.page_top)


def _numbered_inside(flow: list[FlowItem], a: int | None, b: int, style: str, n: int | None, *,
                     headed: bool = False) -> bool:
    """Whether the text between two titles numbers its own items in ``style`` up to ``n - 1`` (一、… 二、…):
    a ``n`` right after them goes on that numbering, inside the form. ``headed``: count only items that are
    headings themselves (``附件1：``, ``四、保密责任``), not numbered sentences or labels."""
    if a is None or n is None or n < 2:
        return False
    from app.documents.forms.titles import _NUMBER

    for k in range(a + 1, b):
        it = flow[k]
        if isinstance(it, FlowParagraph):
            t = compact(it.text)
            m = _NUMBER.match(t)
            if m and number_style(m.group("num")) == style and ordinal(m.group("num")) == n - 1 and (
                    not headed or m.end() == len(t) or (t.endswith(("：", ":")) and m.end() + 1 >= len(t))
                    or parse_title(it.text) is not None):
                return True
    return False


def _notes_only(flow: list[FlowItem], a: int, b: int) -> bool:
    """Only notes between two lines (说明：, 1）… sentences): no table and no blank to fill."""
    from app.documents.forms.blanks import paragraph_blanks

    for k in range(a + 1, b):
        it = flow[k]
        if isinstance(it, FlowTable) or paragraph_blanks(it.text):
            return False
    return True


def _in_order(short: str, long: str) -> bool:
    """Whether every character of ``short`` stands in ``long`` in the same order (授权书 in 法定代表人授权委托书)."""
    it = iter(long)
    return len(short) >= 2 and all(ch in it for ch in short)


def _names_first_of_two(name: str, part: str) -> bool:
    """Whether a title names two papers (``法定代表人身份证明及授权委托书``) and ``part`` is the first of them."""
    pieces = re.split(r"及|和|与|、|/", clean_name(name), maxsplit=1)
    return len(pieces) == 2 and all(len(x) >= 2 for x in pieces) and repeats(pieces[0], part) and len(clean_name(part)) < len(
        clean_name(name))


def _fills_gap(flow: list[FlowItem], titles: list[tuple[int, Title]], k: int, out: list[tuple[int, Title]],
               dominant: str) -> bool:
    """Whether title ``k`` stands, set as a heading like its neighbours, where the chapter's numbering skips
    exactly one number (4、 … 6、): its own number is the one lost."""
    before = next((x for _j, x in reversed(out) if not x.group and number_style(x.number) == dominant), None)
    after = next((x for _j, x in titles[k + 1:] if number_style(x.number) == dominant), None)
    if before is None or after is None:
        return False
    a, b = ordinal(before.number), ordinal(after.number)
    return a is not None and b == a + 2 and _heading_like(flow[titles[k][0]])


def keep_forms(flow: list[FlowItem], titles: list[tuple[int, Title]], lo: int, hi: int,
               listed: set[int] | None = None) -> list[tuple[int, Title]]:
    """The titles that open forms (or groups, marked ``group``), dropping the parts of a form and table
    cells read as lines. ``listed``: lines of a list of contents (:func:`contents_lines`)."""
    listed = listed or set()
    styles = Counter(_style_of(flow, i, t) for i, t in titles if not t.group and not t.weak)
    styles.pop("第N", None)
    plain = styles.pop("", 0)
    top = styles.most_common(1)[0] if styles else ("", 0)
    dominant = top[0] if top[1] >= 3 and top[1] * 2 >= plain else ""
    out: list[tuple[int, Title]] = []
    current: int | None = None  # flow index of the open form
    current_style = ""
    last_group: dict[str, int | None] = {}
    inner: tuple[str, int] | None = None  # an 附件 holding numbered forms: their style and the next number
    for k, (i, t) in enumerate(titles):
        if k and out and out[-1][0] == current == titles[k - 1][0]:  # the title above opened a form
            opened = out[-1][1]
            first = ordinal(opened.inner) if opened.inner else None
            if first is not None:
                inner = (number_style(opened.inner), first + 1)
            elif inner is not None and _style_of(flow, current, opened) != inner[0]:
                inner = None
        style = _style_of(flow, i, t)
        nxt = titles[k + 1][0] if k + 1 < len(titles) else hi
        last = k + 1 == len(titles)
        next_style = _style_of(flow, nxt, titles[k + 1][1]) if not last else ""
        # a proof heading (业绩证明文件) with （1）… right under it: those are its own parts, it is the form
        parts_below = (next_style in ENUMERATIONS and next_style != dominant and not _VOLUME_NAME.search(t.name)
                       and not last and ordinal(titles[k + 1][1].number) == 1)
        # a numbered proof title (1-1 营业执照等证明文件) followed by its next sibling (1-2 …) or by another volume's
        # cover has nothing under it because its content is the copy to attach: a form, not a heading
        leaf = not last and bool(t.number) and (
            sibling(t.number, titles[k + 1][1].number)
            or (form_kind(titles[k + 1][1].name) == "cover" and clean_name(t.name) not in compact(titles[k + 1][1].name)))
        next_group = last_group.get(style) is not None and ordinal(t.number) == (last_group.get(style) or 0) + 1
        if (t.group or t.weak) and style not in (dominant, "auto", "第N") and current is not None and not next_group \
                and not _heading_like(flow[i]) and flow[i].page == flow[current].page and _has_text(flow, current, i, listed):
            continue  # "2、商务文件" in a list inside a letter's text: the letter's words, no heading
        if style == "第N" or (t.group and ((not last and not _has_text(flow, i, nxt, listed) and not parts_below
                                           and not (leaf and not _VOLUME_NAME.search(t.name)))
                                          or _cover_only(flow, i, nxt, listed))):
            out.append((i, t if t.group else Title(t.text, t.number, t.name, t.condition, t.self_drafted, group=True)))
            current = None
            if style and style != "第N" and (not out[:-1] or last_group.get(style) is not None or
                                             all(x.group for _j, x in out[:-1])):
                last_group[style] = ordinal(t.number)
            continue
        if current is not None and any(isinstance(flow[x], FlowParagraph) and _PLACEHOLDER.match(compact(flow[x].text))  # type: ignore[union-attr]
                                       for x in range(current + 1, i)):
            current = None  # "投标文件目录" / "格式自拟。": a self-drafted form has no printed parts to follow
        inside = current is not None and _has_text(flow, current, i, listed)
        if t.group:  # words of a group with text under them: a form
            t = Title(t.text, t.number, t.name, t.condition, t.self_drafted)
        if inside and style and style == current_style != dominant and out and out[-1][0] == current and restarts(out[-1][1], t):
            continue  # 一、… again inside "五、…": the numbering restarts, these are the form's own items
        if current is not None and not inside and out and out[-1][0] == current and extends(out[-1][1].number, t.number):
            if same_document(out[-1][1].name, t.name):
                continue  # "6.招标代理服务费承诺书" over "6.1招标代理服务费承诺函": the form's own heading
            # "3、…表格与文件格式" with nothing of its own over "3.1 …", "3.2 …": a heading over them
            out[-1] = (current, replace(out[-1][1], group=True))
            out.append((i, t))
            current, current_style = i, style
            continue
        if (inner and style == inner[0] and ordinal(t.number) == inner[1] and not t.weak and _heading_like(flow[i])
                and current is not None):
            # "附件二：" over "1、法定代表人证明", then "2、法定代表人授权委托书" on its own page: the 附件's next form
            inner = (inner[0], inner[1] + 1)
            out.append((i, t))
            current, current_style = i, style
            continue
        if style == "A" and dominant and dominant != "A" and _fills_gap(flow, titles, k, out, dominant):
            out.append((i, t))  # "s 、报价分类明细表" between 4、 and 6、: a number a conversion garbled
            current, current_style = i, dominant
            continue
        if style == "auto" or (dominant and style == dominant):
            if (current is not None and not inside and out and out[-1][0] == current and current_style
                    and stands_higher(current_style, dominant) and not out[-1][1].group):
                out[-1] = (current, replace(out[-1][1], group=True))  # "八、其他资料" right over "（一）…": a heading
            out.append((i, t))
            current, current_style = i, dominant
            continue
        prev_group = last_group.get(style)
        if (style and style != dominant and prev_group is not None and ordinal(t.number) == prev_group + 1
                and not _numbered_inside(flow, current, i, style, ordinal(t.number))):
            # the next heading after the groups (三、… after 一、商务… 二、技术…)
            last_group[style] = prev_group + 1
            out.append((i, t))
            current, current_style = i, style
            continue
        if style:
            page_top = isinstance(flow[i], FlowParagraph) and flow[i].page_top  # type: ignore[union-attr]
            n = ordinal(t.number)
            chapter_level = n is not None and any(number_style(x.number) == style and (ordinal(x.number) or n) < n
                                                  for _j, x in out)  # 二、… 三、… were forms or headings already
            if (inside and style != current_style and style not in ENUMERATIONS and page_top
                    and (not t.weak or (chapter_level and _heading_like(flow[i])))
                    and (chapter_level or not _numbered_inside(flow, current, i, style, n))):
                # 附件1 on a page of its own after the numbered forms: a form too — unless the form above
                # numbers its own items that way (附件1 … 附件2 of a 资格声明函, 四、… 五、 of an agreement)
                out.append((i, t))
                current, current_style = i, style
                continue
            if t.echoed and page_top and not t.weak and not _numbered_inside(flow, current, i, style, ordinal(t.number),
                                                                              headed=True):
                out.append((i, t))  # "（4）联合协议" on a new page, "联合协议" set as a heading below it: a form
                current, current_style = i, style
                continue
            if (t.weak and not (chapter_level and page_top and _heading_like(flow[i]))) or (inside and style != current_style):
                continue  # a numbered part of the form above, or a numbered line naming no document
            if current is not None and not inside and style != current_style and (
                    style in ENUMERATIONS or (dominant and current_style == dominant)):
                above = out[-1][1] if out and out[-1][0] == current else None
                if above is not None and _names_first_of_two(above.name, t.name) and _heading_like(flow[i]) \
                        and ordinal(t.number) == 1:
                    # "七、法定代表人身份证明及授权委托书" over "（一）法定代表人身份证明" … "（二）授权委托书": two forms
                    out[-1] = (current, replace(above, group=True))
                    out.append((i, t))
                    current, current_style = i, style
                    inner = (style, 2)
                    continue
                continue  # （1）… or 一、… right under a form's title: the form's first part
            out.append((i, t))
            current, current_style = i, style
            continue
        # unnumbered
        it = flow[i]
        strong = isinstance(it, FlowParagraph) and (it.page_top or bool(it.heading_level))
        first_under_group = bool(out) and out[-1][1].group and not _has_text(flow, out[-1][0], i, listed)
        before = flow[i - 1] if i - 1 > lo else None
        if isinstance(before, FlowParagraph) and before.text.rstrip().endswith(("：", ":")) and \
                clean_name(t.name) in compact(before.text):
            continue  # "…资格条件的承诺函：" introducing "承诺函": the item's template inside the form above
        if current is not None and out and out[-1][0] == current and clean_name(t.name) != clean_name(out[-1][1].name) \
                and clean_name(t.name) in clean_name(out[-1][1].name):
            continue  # "分包意向协议" under "拟分包情况说明及分包意向协议": the open form names it as its own part
        if dominant and inside and current_style in (dominant, "auto") and not (
                strong and isinstance(it, FlowParagraph) and (it.align == "center" or it.bold)) and not (
                strong and _notes_only(flow, current, i)) and not (  # type: ignore[arg-type]
                form_kind(t.name) in ("cover", "envelope") and _stands_alone(flow, i, lo, hi)):
            # (a title on its own page under a form that has only notes so far — 7 中小企业证明文件, 说明：… —
            # is a form of its own: the notes were a heading's)
            continue
        cover = form_kind(t.name) in ("cover", "envelope")  # never a part of another form
        if not (first_under_group or strong or ((_heading_like(it) or cover) and _stands_alone(flow, i, lo, hi))):
            continue
        if current is not None and out and out[-1][0] == current:
            opened = out[-1][1]
            if re.search(r"说明$", t.name) and repeats(opened.name, t.name[:-2]):
                continue  # "中小企业声明函说明" after "中小企业声明函": that form's notes on a page of their own
            if not inside and opened.number and not opened.group and form_kind(t.name) != "cover":
                if _in_order(clean_name(opened.name), clean_name(t.name)):
                    continue  # "2.授权书格式" over "法定代表人授权委托书": the form's own heading in other words
                out[-1] = (current, replace(opened, group=True))  # "（十）…其他资料" right over "中小企业声明函": a heading
        out.append((i, t))
        # an unnumbered form is open now; a 目录 or a cover is never one whose parts follow
        closed = compact(t.name) in ("目录", "目次") or form_kind(t.name) in ("cover", "envelope")
        current, current_style = (None, "") if closed else (i, "")
    return out
