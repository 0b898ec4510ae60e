"""Company facts (企业资料): the company itself, certificates, staff, references (业绩), equipment, finance.

Bid offices keep these in spreadsheets; :func:`read_facts_xlsx` reads every sheet whose
header row names known columns (证书名称/证书编号/有效期至, 姓名/岗位/证书/工作年限, 项目名称/
采购人/合同金额/日期, 设备名称/型号/数量, 单位名称/法定代表人/地址 …) and tells which kind each
sheet holds; the company's own sheet may also be written as two columns (项目 | 内容, one row a
field). :func:`write_facts_template` writes an .xlsx naming every column of every kind. Facts are
stored in the library; a certificate whose date has passed is flagged, and staff and
references can be written as the tables a bid needs (人员配置表, 业绩表). The response forms
(``app.library.forms_facts``) are filled from them.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.library.store import LibraryStore

KINDS = ("company", "certificate", "staff", "reference", "equipment", "finance")
KIND_LABELS = {"company": "企业基本信息", "certificate": "资质证书", "staff": "人员", "reference": "业绩", "equipment": "设备",
               "finance": "财务"}
#: Column names a sheet may use for each field (first match wins), per kind.
COLUMNS: dict[str, dict[str, tuple[str, ...]]] = {
    "company": {
        "name": ("单位名称", "公司名称", "企业名称", "投标人名称", "供应商名称"),
        "credit_code": ("统一社会信用代码", "社会信用代码", "营业执照号码"), "address": ("注册地址", "地址", "住所", "通讯地址"),
        "postcode": ("邮政编码", "邮编"), "phone": ("联系电话", "电话"), "fax": ("传真",), "email": ("电子邮箱", "邮箱"),
        "legal_rep": ("法定代表人", "法人代表"), "legal_rep_title": ("法定代表人职务",),
        "legal_rep_id": ("法定代表人身份证号", "法定代表人身份证号码"), "legal_rep_gender": ("法定代表人性别",),
        "legal_rep_age": ("法定代表人年龄",), "authorized_rep": ("授权代表", "被授权人", "委托代理人"),
        "authorized_rep_title": ("授权代表职务",), "authorized_rep_id": ("授权代表身份证号", "授权代表身份证号码"),
        "authorized_rep_phone": ("授权代表电话", "授权代表手机"), "bank": ("开户银行", "开户行"),
        "account": ("银行账号", "账号"), "established": ("成立日期", "成立时间", "注册日期"),
        "registered_capital": ("注册资本", "注册资金"), "company_type": ("企业类型", "单位性质", "企业性质"),
        "industry": ("所属行业", "行业"), "employees": ("从业人员", "从业人数", "职工人数"),
        "revenue": ("营业收入", "上年度营业收入"), "total_assets": ("资产总额", "上年度资产总额"),
        "enterprise_size": ("企业规模", "企业划型")},
    "certificate": {"name": ("证书名称", "资质名称", "资质证书", "名称"), "number": ("证书编号", "编号", "证号"),
                    "valid_until": ("有效期至", "有效期", "到期日期", "截止日期", "有效截止"),
                    "issuer": ("发证机关", "发证单位", "签发机构"), "file": ("证书文件", "扫描件", "附件", "文件路径")},
    "staff": {"name": ("姓名", "人员姓名", "成员姓名"), "role": ("岗位", "拟任岗位", "职务", "拟任职务", "角色"),
              "certificates": ("证书", "持证情况", "资格证书", "执业资格"), "years": ("工作年限", "从业年限", "年限"),
              "title": ("职称", "技术职称"), "education": ("学历", "文化程度"), "age": ("年龄",),
              "phone": ("联系电话", "联系方式", "电话"), "id_number": ("身份证号", "身份证号码")},
    "reference": {"project": ("项目名称", "工程名称"), "client": ("采购人", "招标人", "业主", "建设单位", "委托单位", "客户", "用户名称", "用户单位",
                             "项目业主", "采购单位"),
                  "amount": ("合同金额", "金额", "中标金额", "成交金额"),
                  "date": ("日期", "签订日期", "完成时间", "合同日期", "时间", "年份", "签订时间"),
                  "manager": ("项目负责人", "项目经理", "负责人"), "content": ("项目内容", "服务内容", "主要内容"),
                  "period": ("服务期", "服务时间", "服务期限", "合同期限"), "contact": ("联系人", "经办人"),
                  "contact_phone": ("联系人电话", "经办人电话")},
    "equipment": {"name": ("设备名称", "名称"), "model": ("型号", "规格型号", "规格"), "quantity": ("数量", "台数"),
                  "status": ("状态", "性能", "备注")},
    "finance": {"year": ("年度", "年份"), "revenue": ("营业收入", "营业额"), "profit": ("利润总额",), "net_profit": ("净利润",),
                "total_assets": ("资产总额", "总资产"), "liabilities": ("负债总额", "总负债"), "net_assets": ("净资产",)},
}
_KEY_FIELD = {"company": "name", "certificate": "number", "staff": "name", "reference": "project", "equipment": "model",
              "finance": "year"}
_DATE = re.compile(r"(\d{4})\s*[年./-]\s*(\d{1,2})\s*[月./-]\s*(\d{1,2})")


@dataclass
class Fact:
    """One row of company facts: its kind, its fields, where it came from, and its id once stored."""

    kind: str
    data: dict[str, str]
    source: str = ""
    id: int | None = None
    version: int = 0  # the stored version this was read at (0: not stored); an edit names it
    updated_by: str = ""
    updated_at: str = ""

    def expired(self, today: dt.date | None = None) -> bool:
        """A certificate whose 有效期 has passed."""
        if self.kind != "certificate":
            return False
        until = parse_date(self.data.get("valid_until", ""))
        return until is not None and until < (today or dt.date.today())


@dataclass
class FactsImport:
    """What a spreadsheet held: facts by kind, and sheets that were not understood."""

    facts: list[Fact] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    #: What was not read (a sheet past the row limit, sheets past the sheet limit), in Chinese.
    notes: list[str] = field(default_factory=list)


def fact_identity(kind: str, data: dict[str, str]) -> str:
    """What names one fact among its kind — a certificate's number, a person's name, a reference's project,
    a machine's model — without spaces; "" when that field is empty (two facts with one identity are one thing)."""
    return re.sub(r"\s+", "", data.get(_KEY_FIELD.get(kind, ""), ""))


def parse_date(text: str) -> dt.date | None:
    """A date written as 2025年6月30日, 2025-06-30 or 2025/6/30; None when there is none."""
    m = _DATE.search(text)
    if not m:
        return None
    try:
        return dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, dt.datetime | dt.date):
        return value.strftime("%Y-%m-%d")
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def classify_header(header: Sequence[str]) -> tuple[str, dict[str, int]] | None:
    """Which kind a header row describes and the column of each field, or None."""
    cells = [re.sub(r"\s+", "", h) for h in header]
    best: tuple[int, str, dict[str, int]] | None = None
    for kind, fields in COLUMNS.items():
        found: dict[str, int] = {}
        for name, aliases in fields.items():
            for alias in aliases:
                col = next((i for i, c in enumerate(cells) if c == alias or (len(alias) > 2 and alias in c)), None)
                if col is not None and col not in found.values():
                    found[name] = col
                    break
        if _KEY_FIELD[kind] in found or (kind == "equipment" and "name" in found and "quantity" in found):
            score = len(found)
            if best is None or score > best[0]:
                best = (score, kind, found)
    return (best[1], best[2]) if best is not None and best[0] >= 2 else None


def facts_from_rows(rows: Iterable[Sequence[Any]], source: str) -> tuple[str, list[Fact]] | None:
    """Facts from a table whose header row is among its first five rows; None when none is recognised."""
    rows = [list(r) for r in rows]
    for h in range(min(5, len(rows))):
        found = classify_header([_cell(c) for c in rows[h]])
        if found is None:
            continue
        kind, cols = found
        facts = []
        for r in rows[h + 1:]:
            data = {name: _cell(r[col]) if col < len(r) else "" for name, col in cols.items()}
            if any(data.values()):
                facts.append(Fact(kind, data, source))
        return kind, facts
    return None


def read_facts_xlsx(path: Path) -> FactsImport:
    """Every recognised sheet of an .xlsx, at most :data:`~app.library.xlsx_rows.MAX_SHEET_ROWS` rows a sheet
    (read as a stream; ``notes`` say what was left out); raises ValueError with a Chinese message for a bad file."""
    from app.library.xlsx_rows import read_sheets

    sheets, notes = read_sheets(path)
    out = FactsImport(notes=list(notes))
    for sheet in sheets:
        source = f"{path.name} › {sheet.title}"
        got = facts_from_rows(sheet.rows, source)
        if got is None:
            company = company_from_pairs(sheet.rows, source)
            if company is None:
                out.skipped.append(sheet.title)
                continue
            out.facts.append(company)
        else:
            out.facts.extend(got[1])
        if sheet.cut:
            out.notes.append(sheet.cut_note_zh())
    return out


def company_from_pairs(rows: Iterable[Sequence[Any]], source: str) -> Fact | None:
    """The company's facts from a two-column sheet (项目 | 内容, a field a row); None when fewer than three rows fit."""
    data: dict[str, str] = {}
    fields = COLUMNS["company"]
    for row in rows:
        cells = [_cell(c) for c in row if _cell(c)]
        if len(cells) < 2:
            continue
        label = re.sub(r"\s+", "", cells[0]).rstrip("：:")
        for name, aliases in fields.items():
            if name not in data and label in aliases:
                data[name] = cells[1]
                break
    if len(data) < 3 or "name" not in data:
        return None
    return Fact("company", data, source)


def write_facts_template(path: Path) -> Path:
    """An .xlsx with one sheet per kind of fact, its header row naming every column the app reads
    (the first name of each field), so a bid office knows what to fill. Written atomically."""
    import os
    import tempfile

    from openpyxl import Workbook
    from openpyxl.styles import Font

    wb = Workbook()
    wb.remove(wb.active)
    for kind in KINDS:
        ws = wb.create_sheet(KIND_LABELS[kind])
        ws.append([aliases[0] for aliases in COLUMNS[kind].values()])
        for cell in ws[1]:
            cell.font = Font(bold=True)
        for k in range(len(COLUMNS[kind])):
            ws.column_dimensions[chr(ord("A") + k) if k < 26 else "A" + chr(ord("A") + k - 26)].width = 16
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".企业资料模板-", suffix=".xlsx", dir=str(path.parent))
    os.close(fd)
    try:
        wb.save(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return path


# ---------------------------------------------------------------------------- storage


def save_facts(store: LibraryStore, facts: Sequence[Fact]) -> int:
    """Store facts (one transaction); a row equal to a stored one of the same kind is not added twice."""
    ids = store.add_facts([(f.kind, dict(f.data), f.source) for f in facts])
    for f, new_id in zip(facts, ids, strict=True):
        if new_id is not None:
            f.id, f.version = new_id, 1
    return sum(1 for i in ids if i is not None)


def load_facts(store: LibraryStore, kind: str | None = None) -> list[Fact]:
    """Stored facts (of one kind), in the order they were added."""
    return [Fact(r.kind, r.data, r.source, r.id, r.version, r.updated_by, r.updated_at) for r in store.facts(kind)]


def update_fact(store: LibraryStore, fact: Fact, data: dict[str, str]) -> Fact:
    """Change a stored fact's fields; raises :class:`~app.library.store.FactConflict` (a Chinese message and
    what is stored now) when someone else changed or deleted it since ``fact`` was read."""
    if fact.id is None:
        raise ValueError("only a stored fact can be updated")
    r = store.update_fact(fact.id, data, fact.version)
    return Fact(r.kind, r.data, r.source, r.id, r.version, r.updated_by, r.updated_at)


def remove_fact(store: LibraryStore, fact_id: int) -> None:
    """Delete one stored fact."""
    store.remove_fact(fact_id)


# ---------------------------------------------------------------------------- tables for drafting

_STAFF_TITLES = ("人员配置", "人员安排", "项目团队", "人员组成", "团队配置", "拟派人员", "项目组")
_REFERENCE_TITLES = ("业绩", "类似项目", "项目经验", "成功案例")


def table_for_heading(title: str, store: LibraryStore, today: dt.date | None = None) -> tuple[str, str] | None:
    """For a heading like 人员配置表 / 类似项目业绩: ``(label, markdown table)`` from the stored facts."""
    if any(k in title for k in _STAFF_TITLES):
        staff = load_facts(store, "staff")
        if staff:
            rows = [[f.data.get("name", ""), f.data.get("role", ""), f.data.get("certificates", ""),
                     f.data.get("years", "")] for f in staff]
            return "人员配置表", markdown_table(["姓名", "岗位", "证书", "工作年限"], rows)
    if any(k in title for k in _REFERENCE_TITLES):
        refs = load_facts(store, "reference")
        if refs:
            rows = [[f.data.get("project", ""), f.data.get("client", ""), f.data.get("amount", ""),
                     f.data.get("date", "")] for f in refs]
            return "业绩表", markdown_table(["项目名称", "采购人", "合同金额", "日期"], rows)
    return None


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A simple Markdown table (the drafting text format the Word writer understands)."""
    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.replace("|", "｜").replace("\n", " ") for c in cells) + " |"
    return "\n".join([line(header), line(["---"] * len(header)), *(line(r) for r in rows)])


def company_people(store: LibraryStore) -> dict[str, str]:
    """People the company facts name (人员 sheet, 业绩's 项目负责人) → where each came from."""
    from app.library.people import person_cell

    out: dict[str, str] = {}
    for kind, key in (("staff", "name"), ("reference", "manager")):
        for f in load_facts(store, kind):
            name = person_cell(f.data.get(key, ""))
            if name:
                out.setdefault(name, f.source or KIND_LABELS[kind])
    return out


def expired_certificates(store: LibraryStore, today: dt.date | None = None) -> list[Fact]:
    """Stored certificates past their 有效期."""
    return [f for f in load_facts(store, "certificate") if f.expired(today)]
