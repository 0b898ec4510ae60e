"""Every blank of a form and what it asks for.

In a paragraph a blank is a run of underscores (``______``), underlined spaces (a DOCX habit),
wide spaces between words, an empty date (``____年__月__日``, ``日期：年月日`` in a PDF), a bracketed
hint standing alone (``致：（采购人名称）``, ``【  】``) or nothing after a label's colon at the end of
a line or before wide spaces (``地址：``). A bracketed hint right beside a blank names it
(``____（供应商名称）``, ``（大写）____元``); bracketed instructions (``（盖章）``, ``（如有）``) never
count. In a table every empty cell is a blank, asked by its row label or column header, and so
is a cell that ends with a colon. What each asks for comes from :mod:`.fields`.
"""

from __future__ import annotations

import re

from app.core.bid_forms import FormBlank, FormParagraph, FormTable, TenderForm
from app.documents.forms.fields import (
    field_for,
    field_label,
    is_instruction,
    is_person_hint,
    normalize_hint,
    person_field,
)

_UNDERSCORES = re.compile(r"[_＿]{2,}(?:[ \u3000]*[_＿]+)*")
_DATE = re.compile(r"(?<![\d一二三四五六七八九十〇零])(?:(?:20|２０)?[ \u3000_＿]*)年[ \u3000_＿]*月[ \u3000_＿]*日")
_WIDE = re.compile(r"[ \u3000\t]{3,}")
_BRACKET = re.compile(r"[（(]([^（）()\n]{1,24})[)）]|【([^【】\n]{0,24})】|\[([ \u3000_]*)\]")
_HINT = re.compile(r"^(?!或|及|和|含|即|注|如|不|以|按|详见|见|与)[^，。；;：:,]{1,14}$")
_LABEL_COLON = re.compile(r"([^\s：:，。；;、（）()|]{1,16}(?:[（(][^（）()]{1,12}[)）])?[^\s：:，。；;]{0,6})[：:][ \u3000\t_＿]*")
_NOT_LABELS = ("注", "说明", "备注", "附", "特此", "如下", "以下", "承诺如下", "声明如下", "具体情况如下", "内容如下", "事项如下",
               "例如", "包括", "即", "其中")


def _blank(kind: str, start: int, end: int, hint: str, text: str, context: str = "") -> FormBlank:
    fld = field_for(hint, context=context)
    if not fld and is_person_hint(hint):
        fld = person_field(text[max(0, start - 24):start], text[end:end + 60])
    if not fld and kind in ("underline", "spaces"):  # no label: the words around it (…有效期为____个日历日)
        window = field_for(text[max(0, start - 16):start] + text[end:end + 6])
        fld = window if window in ("validity", "period", "price", "unit_price", "warranty") else ""
    return FormBlank(id="", item=-1, kind=kind, field=fld, label=field_label(fld, hint),  # type: ignore[arg-type]
                     placeholder=text[start:end], start=start, end=end)


def _free(spans: list[tuple[int, int]], a: int, b: int) -> bool:
    return all(b <= s or a >= e for s, e in spans)


def _hint_near(text: str, start: int, end: int) -> tuple[str, int, int] | None:
    """A bracketed non-instruction hint right after (or else right before) a blank: (hint, start, end)."""
    after = re.match(r"[ \u3000]{0,2}[（(]([^（）()\n]{1,24})[)）]", text[end:])
    if after and not is_instruction(after.group(1)) and (field_for(after.group(1)) or is_person_hint(after.group(1))):
        return after.group(1), end + after.start(), end + after.end()
    before = re.search(r"[（(]([^（）()\n]{1,24})[)）][ \u3000]{0,2}$", text[:start])
    if before and not is_instruction(before.group(1)) and field_for(before.group(1)):
        return before.group(1), before.start(), before.end()
    return None


_TRAILING_BRACKET = re.compile(r"[（(]([^（）()]{1,16})[)）]\s*$")
_SIGN = re.compile(r"签字|签名|签章|签署")
_LABEL_TAIL = re.compile(r"((?:[^\s，。；;,、：:（）()|]|(?<=\S)[ \u3000]{1,8}(?=\S)){1,16})$|([￥¥])$")


def _label_before(text: str, start: int) -> str:
    """The label or words just before a blank (``项目编号为``, ``地    址：`` → ``地址``).

    A bracketed instruction between the label and its colon (``供应商名称(盖章)：``) is passed over;
    one that asks for a signature (``(签字或盖章)``) makes the label a signature place.
    """
    head = text[:start].rstrip(" \u3000\t").rstrip("：:").rstrip(" \u3000\t")
    signed = False
    while True:
        m = _TRAILING_BRACKET.search(head)
        if not m or m.start() == 0:
            break
        signed = signed or bool(_SIGN.search(m.group(1)))
        head = head[:m.start()].rstrip(" \u3000\t")
    m2 = _LABEL_TAIL.search(head)
    label = (m2.group(1) or m2.group(2) or "") if m2 else ""
    # keep the last words only: a spaced label (地    址) joins up, a sentence's earlier words do not
    parts = re.split(r"[ \u3000]{2,}", label)
    if len(parts) > 1 and all(len(p) == 1 for p in parts[-2:]):
        label = "".join(p for p in parts if len(p) == 1)
    else:
        label = parts[-1]
    label = label.strip()
    return f"{label}（签字）" if signed and label else label


def paragraph_blanks(text: str, underlined: list[tuple[int, int]] | None = None) -> list[FormBlank]:
    """The blanks of one paragraph's text (``underlined``: its underlined character spans, DOCX only)."""
    found: list[FormBlank] = []
    taken: list[tuple[int, int]] = []

    def add(kind: str, a: int, b: int, hint: str) -> None:
        found.append(_blank(kind, a, b, hint, text, text[max(0, a - 20):a]))
        taken.append((a, b))

    for m in _DATE.finditer(text):
        add("date", m.start(), m.end(), "日期")
    spans = list(underlined or [])
    for m in _UNDERSCORES.finditer(text):
        spans.append((m.start(), m.end()))
    for a, b in sorted(_merge(spans, text)):
        seg = text[a:b]
        if not re.fullmatch(r"[ \u3000\t_＿]+", seg) or not _free(taken, a, b):
            continue
        near = _hint_near(text, a, b)
        hint = near[0] if near else _label_before(text, a)
        add("underline", a, b, hint)
    for m in _WIDE.finditer(text):
        a, b = m.start(), m.end()
        if a == 0 or b >= len(text.rstrip()) or not _free(taken, a, b):
            continue
        prev = text[:a].rstrip()
        near = _hint_near(text, a, b)
        if prev.endswith(("：", ":")) or near:
            hint = near[0] if near else _label_before(text, a)
            add("spaces", a, b, hint)
    for m in _BRACKET.finditer(text):
        inner = next((g for g in m.groups() if g is not None), "")
        a, b = m.start(), m.end()
        if not _free(taken, a, b):
            continue
        if m.group(1) is not None:
            if is_instruction(inner) or not field_for(inner) or not _HINT.match(inner.strip()):
                continue
            if any(abs(a - e) <= 2 or abs(s - b) <= 2 for s, e in taken):
                continue  # it names a blank beside it
            before = field_for(text[max(0, a - 6):a])
            if before and (before == field_for(inner) or re.search(r"负责人|法人", inner)) and text[a - 1:a] not in "：:":
                continue  # 法定代表人（单位负责人）: another name for the words before it, not a blank
        add("bracket", a, b, inner or _label_before(text, a))
    for m in _LABEL_COLON.finditer(text):
        colon_end = m.start(1) + len(m.group(1)) + 1
        label = normalize_hint(_label_before(text, colon_end - 1) or m.group(1))
        if re.search(r"复印件|扫描件|原件|影印件", label) or (len(label) > 10 and not field_for(label)):
            continue
        if label.endswith(("如下", "包括", "以下", "请寄")) or (text[:colon_end - 1].rstrip().endswith((")", "）"))
                                                        and any(abs(e - (colon_end - 1)) <= 12 for _s, e in taken)):
            continue
        rest = text[m.end():].strip()
        ends = not rest or re.fullmatch(r"[（(][^（）()]{1,12}[)）]", rest) is not None
        gap = m.end() - colon_end >= 2 and bool(rest)
        if not (ends or gap) or label in _NOT_LABELS or label.startswith(("注", "说明", "备注", "附")):
            continue
        if any(colon_end - 1 <= s <= m.end() + 1 or s <= colon_end < e for s, e in taken):
            continue  # the blank after this colon was found already (underscores, a date)
        add("colon", colon_end, m.end(), "采购人" if label in ("致", "至") else label)
    found.sort(key=lambda b: b.start)
    return found


def _merge(spans: list[tuple[int, int]], text: str) -> list[tuple[int, int]]:
    """Overlapping or touching spans merged; spaces around underscores joined in."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1] + 1 and not text[out[-1][1]:a].strip(" \u3000_＿"):
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


_SERIAL = re.compile(r"^(?:序号|编号|序|No\.?|NO\.?)$")


def table_blanks(rows: list[list[str | None]]) -> list[FormBlank]:
    """Empty cells (and cells ending in a colon) of a form's table, asked by row label or column header."""
    out: list[FormBlank] = []
    if not rows:
        return out
    width = max(len(r) for r in rows)
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            if cell is None:
                continue
            text = cell.strip()
            if text and (not text.endswith(("：", ":")) or "\n" in text):
                continue  # a cell with words (or several labelled lines) is not one blank
            column = next((normalize_hint(rows[k][c] or "") for k in range(r) if c < len(rows[k]) and (rows[k][c] or "").strip()), "")
            left = next((normalize_hint(row[k] or "") for k in range(c - 1, -1, -1) if (row[k] or "").strip()), "")
            if text:
                hint = text
            elif width <= 4 and left and not re.fullmatch(r"\d+", left):
                hint = left
            else:
                hint = column
            if not hint or _SERIAL.match(hint):
                continue
            fld = field_for(hint)
            out.append(FormBlank(id="", item=-1, kind="cell", field=fld, label=field_label(fld, hint),
                                 placeholder=text, row=r, col=c))
    return out


def find_blanks(form: TenderForm, index: int, flow_underlines: list[list[tuple[int, int]]] | None = None) -> list[FormBlank]:
    """Every blank of a form, numbered ``index.n`` in reading order."""
    blanks: list[FormBlank] = []
    for k, item in enumerate(form.items):
        if isinstance(item, FormParagraph):
            spans = flow_underlines[k] if flow_underlines and k < len(flow_underlines) else []
            found = paragraph_blanks(item.text, spans)
        elif isinstance(item, FormTable):
            found = table_blanks(item.rows)
        else:
            found = []
        for b in found:
            b.item = k
            blanks.append(b)
    for n, b in enumerate(blanks, 1):
        b.id = f"{index}.{n}"
        if not b.field and is_person_hint(b.label) and form.kind == "legal_rep":
            b.field = "legal_rep"
    return blanks
