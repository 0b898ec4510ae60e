"""The tender's own response forms (投标文件格式) and what the user filled into them.

Two halves, both plain data:

* what code read from the tender's format chapter (``app.documents.forms`` fills these):
  :class:`FormsReading` — the ordered :class:`TenderForm` list, each with its fixed text as
  :class:`FormParagraph` / :class:`FormTable` items and every :class:`FormBlank` with what it
  asks for (``field``: a key of :data:`FIELD_LABELS`). It is read again from the tender each
  time a project opens, never saved;
* what the user decided, saved in the project file (:class:`BidFormsState`): values typed for a
  field (the price in the 报价一览表) or for one blank, forms marked done or not applicable, and
  how the 商务 volume is exported.

:class:`FilledBlank` is one blank's value with its source, the result of
``app.documents.forms.fill``; the export (``app.export.forms``) writes it underlined.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

BlankKind = Literal["underline", "spaces", "bracket", "colon", "date", "cell"]
FormKind = Literal[
    "cover", "envelope", "index", "bid_letter", "price_summary", "price_detail", "legal_rep", "authorization",
    "qualification", "declaration", "commitment", "deviation", "references", "staff", "finance", "sme",
    "basic_info", "consortium", "subcontract", "guarantee", "plan", "attachment", "other",
]
Requirement = Literal["required", "conditional"]
FillSource = Literal["tender", "company", "user", "code", "none"]

#: Every field a blank may ask for → what the user sees.
FIELD_LABELS: dict[str, str] = {
    "bidder_name": "投标人名称", "project_name": "项目名称", "project_number": "项目编号", "buyer": "采购人",
    "agency": "采购代理机构", "lot": "包号", "date": "日期", "legal_rep": "法定代表人",
    "legal_rep_title": "法定代表人职务", "legal_rep_id": "法定代表人身份证号", "legal_rep_gender": "法定代表人性别",
    "legal_rep_age": "法定代表人年龄", "authorized_rep": "授权代表", "authorized_rep_title": "授权代表职务", "authorized_rep_name_title": "授权代表姓名和职务",
    "authorized_rep_id": "授权代表身份证号", "authorized_rep_phone": "授权代表电话", "address": "地址",
    "postcode": "邮政编码", "phone": "电话", "fax": "传真", "email": "电子邮箱", "bank": "开户银行",
    "account": "银行账号", "credit_code": "统一社会信用代码", "established": "成立日期",
    "registered_capital": "注册资本", "company_type": "企业类型", "industry": "所属行业",
    "employees": "从业人员", "revenue": "营业收入", "total_assets": "资产总额", "enterprise_size": "企业规模",
    "price": "投标报价（小写）", "price_words": "投标报价（大写）", "unit_price": "单价", "period": "服务期限/工期",
    "validity": "投标有效期", "delivery_place": "交付地点", "quality": "质量标准", "warranty": "质保期",
    "page_ref": "页码", "signature": "签字", "other": "其他",
}
#: Fields only the user can give: code never fills them (a price is never invented).
USER_ONLY_FIELDS = frozenset({"price", "unit_price", "period", "validity", "delivery_place", "quality", "warranty",
                              "page_ref", "signature", "other"})


class FormBlank(BaseModel):
    """One place to fill: where it is in its form, what it looks like, what it asks for.

    A paragraph blank covers characters ``start..end`` of item ``item``'s text (an empty span
    after a label ``地址：`` has ``start == end``); a table blank is the cell ``row``/``col``.
    """

    model_config = ConfigDict(extra="ignore")

    id: str = Field(description="表内编号，如 3.2（第 3 张表的第 2 处）")
    item: int
    kind: BlankKind
    field: str = Field(default="", description="所问的内容（FIELD_LABELS 的键，空为未知）")
    label: str = Field(default="", description="给用户看的所问内容")
    placeholder: str = Field(default="", description="招标文件中的原样（____、（项目名称）……）")
    start: int = 0
    end: int = 0
    row: int = -1
    col: int = -1


class FormParagraph(BaseModel):
    """A paragraph of a form as the tender prints it; ``source`` locates it (DOCX body index, PDF block)."""

    model_config = ConfigDict(extra="ignore")

    kind: Literal["paragraph"] = "paragraph"
    text: str
    page: int = 1
    source: int = -1
    align: Literal["left", "center", "right", ""] = ""
    bold: bool = False


class FormTable(BaseModel):
    """A table of a form (``None`` continues a merged cell, as in ``TenderDocument``)."""

    model_config = ConfigDict(extra="ignore")

    kind: Literal["table"] = "table"
    rows: list[list[str | None]]
    page: int = 1
    source: int = -1


FormItem = FormParagraph | FormTable


class TenderForm(BaseModel):
    """One form of the format chapter: its title, where it is, its text and tables, its blanks."""

    model_config = ConfigDict(extra="ignore")

    key: str = Field(description="稳定标识：规范化名称@序号")
    title: str = Field(description="招标文件中的标题行")
    name: str = Field(description="去掉编号和“格式”等字样的名称")
    number: str = ""
    kind: FormKind = "other"
    group: str = Field(default="", description="所在分组（如“商务响应文件有关格式”）")
    page: int = 1
    last_page: int = 1
    requirement: Requirement = "required"
    condition: str = Field(default="", description="有条件时的说明（如有 / 如适用 / 可选 / 不适用）")
    self_drafted: bool = Field(default=False, description="格式自拟：招标文件只给标题")
    copies: list[str] = Field(default_factory=list, description="要求附的复印件/扫描件（营业执照副本…）")
    items: list[FormItem] = Field(default_factory=list)
    blanks: list[FormBlank] = Field(default_factory=list)

    @property
    def text(self) -> str:
        """The form's paragraphs and tables as plain text (tables one row a line)."""
        lines = []
        for it in self.items:
            if isinstance(it, FormParagraph):
                lines.append(it.text)
            else:
                lines += [" | ".join(c or "" for c in row) for row in it.rows]
        return "\n".join(lines)


class FormsReading(BaseModel):
    """What code read from a tender's format chapter; ``message`` says what (or why nothing)."""

    model_config = ConfigDict(extra="ignore")

    source_path: str = ""
    source_kind: str = ""
    chapter_title: str = ""
    chapter_pages: tuple[int, int] | None = None
    forms: list[TenderForm] = Field(default_factory=list)
    listed: list[str] = Field(default_factory=list, description="招标文件列出的投标文件组成（按其顺序）")
    message: str = ""

    def form(self, key: str) -> TenderForm | None:
        """The form with this key, or None."""
        return next((f for f in self.forms if f.key == key), None)


class FilledBlank(BaseModel):
    """One blank's value and where it came from (``value`` empty: nobody could fill it)."""

    model_config = ConfigDict(extra="ignore")

    value: str = ""
    source: FillSource = "none"
    source_label: str = Field(default="", description="来源说明：招标文件第 N 页 / 企业资料 › 表 / 用户填写 …")
    confirmed: bool = True
    note: str = ""


class FormsExportChoice(BaseModel):
    """How the 商务 volume is written: its own file, or the first part of the bid."""

    model_config = ConfigDict(extra="ignore")

    placement: Literal["separate", "before_technical"] = "separate"
    include_conditional: bool = False


class BidFormsState(BaseModel):
    """What the user typed or decided about the forms (saved in the project file, format v5)."""

    model_config = ConfigDict(extra="ignore")

    values: dict[str, str] = Field(default_factory=dict, description="按字段填写的值（如报价一览表中的报价）")
    blank_values: dict[str, str] = Field(default_factory=dict, description="按空白填写的值（表标识#序号 → 值）")
    done: list[str] = Field(default_factory=list, description="用户标记已完成的表")
    not_applicable: list[str] = Field(default_factory=list, description="用户标记不适用的表")
    export: FormsExportChoice = Field(default_factory=FormsExportChoice)

    @property
    def is_empty(self) -> bool:
        """Whether the user has typed or decided nothing yet."""
        return not (self.values or self.blank_values or self.done or self.not_applicable)


ReviewKind = Literal["资格", "符合性"]
CheckStatus = Literal["满足", "缺", "过期", "待确认"]


class ReviewItem(BaseModel):
    """One 资格要求 or one row of the tender's 资格性/符合性审查表, as the tender states it."""

    model_config = ConfigDict(extra="ignore")

    kind: ReviewKind
    text: str
    page: int = 1


class ItemCheck(BaseModel):
    """A review item paired with its evidence in the bid, and whether it holds.

    ``缺`` and ``过期`` block 提交前检查; ``待确认`` asks the user to look (code found a place but
    cannot see the evidence itself, such as a screenshot still to attach).
    """

    model_config = ConfigDict(extra="ignore")

    item: ReviewItem
    status: CheckStatus
    evidence: str = Field(default="", description="证据：企业资料中的证书、投标文件中的格式或页码")
    reason: str = ""


def blank_key(form: TenderForm, blank: FormBlank) -> str:
    """The key a user's value for one blank is saved under: the form's key and the blank's ordinal."""
    return f"{form.key}#{form.blanks.index(blank) + 1}"
