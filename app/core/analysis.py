"""What the app knows about a tender after analysis: the overview and the scoring groups.

The analysis is produced by ``app.pipeline.analysis.tender`` (model extraction cross-checked
against the deterministic scoring table) and consumed by the outline pipeline (one-to-one
chapters come from :class:`ScoringGroup`), the UI (editable analysis table) and exports.
Differences between the table and the model are kept, never silently resolved.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

ScoringCategory = Literal["technical", "business", "price", "other"]
AnalysisSource = Literal["table", "model", "table+model", "none"]
DecidedBy = Literal["code", "model", "user"]
CATEGORY_ZH: dict[str, str] = {"technical": "技术", "business": "商务", "price": "价格", "other": "其他"}


class ProjectOverview(BaseModel):
    """The project overview (项目概况) the model reads from the located overview section."""

    model_config = ConfigDict(extra="ignore")

    project_name: str = Field(default="", max_length=200, description="项目名称")
    buyer: str = Field(default="", max_length=200, description="采购人/招标人")
    summary: str = Field(default="", max_length=2000, description="项目概况")
    scope: str = Field(default="", max_length=2000, description="采购内容/服务范围")
    budget: str = Field(default="", max_length=200, description="预算金额")
    service_period: str = Field(default="", max_length=200, description="服务期/工期/交货期")
    technical_requirements: list[str] = Field(default_factory=list, description="主要技术要求")
    source_pages: list[int] = Field(default_factory=list, description="来源页码（从 1 起）")


class ScoringSubItem(BaseModel):
    """A sub-row of a scoring item with its own points (a level-2 seed in one-to-one mode)."""

    model_config = ConfigDict(extra="ignore")

    name: str = Field(default="", max_length=60, description="小项名称（表中没有名称时为空）")
    criteria: str = Field(default="", max_length=1000, description="小项评分标准")
    points: float | None = None


class ScoringGroup(BaseModel):
    """One scoring item (R1, R2, ...); the technical ones are top-level chapters in one-to-one mode."""

    model_config = ConfigDict(extra="ignore")

    id: str = Field(description="评分项编号，如 R1")
    title: str = Field(min_length=1, max_length=60, description="评分项名称")
    description: str = Field(default="", max_length=2000, description="评分标准说明")
    detail_points: list[str] = Field(default_factory=list, description="评分细则要点，逐条")
    points: float | None = Field(default=None, description="分值")
    source_page: int | None = Field(default=None, description="来源页码（从 1 起）")
    category: ScoringCategory = "technical"
    sub_items: list[ScoringSubItem] = Field(default_factory=list, description="带分值的小项")
    chapter: bool = Field(default=True, description="一一对应模式下是否作为一级章节")
    group_label: str = Field(default="", max_length=80, description="所在分组（如“技术部分（81分）”）")
    table_key: str = Field(default="", description="来自哪张评分表（ScoringTableInfo.key）")
    decided_by: DecidedBy = Field(default="code", description="类别/取舍由谁决定：程序、模型或用户")
    doubt: str = Field(default="", description="程序未能确认这一项的原因（空为无疑问）")
    weighted: bool = Field(default=False, description="分值是权重（百分制打分后乘以权重），按分值计")
    raw_points: float | None = Field(default=None, description="表中印的分值（该部分百分制打分、按权重计入总分时）")


class ScoringTableInfo(BaseModel):
    """A candidate scoring table as read, kept so the user can pick another one later."""

    model_config = ConfigDict(extra="ignore")

    key: str = Field(description="表格标识，如 t14 或 t5+t6")
    label: str = ""
    kind: Literal["table", "paragraphs"] = "table"
    pages: list[int] = Field(default_factory=list)
    total: float = 0.0
    stated_total: float | None = None
    stated_by_category: dict[str, float] = Field(default_factory=dict, description="类别 -> 标明的分值")
    score: float = 0.0
    evidence: list[str] = Field(default_factory=list)
    rejected: str = Field(default="", description="看起来像评分表但不是的原因")
    used: bool = False
    groups: list[ScoringGroup] = Field(default_factory=list, description="读到的评分项（未经用户修改）")


class SecondReading(BaseModel):
    """The model's own reading of the scoring pages, checked by code against the text.

    Made by ``app.pipeline.analysis.second_reader`` from the same pages code read (never from
    code's rows). ``rows`` are the model's items as scoring groups (``decided_by="model"``,
    ``doubt`` says why a row failed the check); ``verified`` holds when every name stands in
    the text with its points printed beside it and the sums meet every stated total;
    ``agrees`` when it matches code's reading row for row (then the reading is confirmed by two
    independent readings). ``differences`` say, in Chinese, where the two readings part.
    """

    model_config = ConfigDict(extra="ignore")

    rows: list[ScoringGroup] = Field(default_factory=list, description="模型读到的评分项（已逐项核对原文）")
    pages: list[int] = Field(default_factory=list, description="模型读取的页")
    verified: bool = Field(default=False, description="每项名称和分值都在原文中找到，合计与标明的分值一致")
    agrees: bool = Field(default=False, description="与程序的读法逐项一致")
    problems: list[str] = Field(default_factory=list, description="核对未通过之处（中文）")
    differences: list[str] = Field(default_factory=list, description="与程序读法的不同之处（中文）")
    stated_by_category: dict[str, float] = Field(default_factory=dict, description="文中标明的各部分分值")
    model: str = Field(default="", description="读取所用的模型")

    @property
    def credible(self) -> bool:
        """Verified, or most rows (two in three) found in the text with their points: worth showing beside
        code's reading, and enough to doubt code's when the two differ."""
        ok = sum(1 for g in self.rows if not g.doubt)
        return self.verified or (len(self.rows) >= 2 and 3 * ok >= 2 * len(self.rows))

    @property
    def to_compare(self) -> bool:
        """Whether the analysis view should show this reading beside code's (credible and different)."""
        return self.credible and not self.agrees


class ScoringLotInfo(BaseModel):
    """One lot's (包/标段) own scheme, when the tender scores its lots apart.

    ``tables`` are the lot's tables as code read and checked them (``used``); ``groups`` its items as
    last shown — the user's edits stay with the lot when another one is chosen. ``confirmed``, ``doubt``,
    ``user_confirmed`` and ``second_reading`` are this lot's verdict, as the analysis' fields are the
    chosen lot's.
    """

    model_config = ConfigDict(extra="ignore")

    name: str = Field(description="包/标段名称，如“A包”“第1-11包”")
    pages: list[int] = Field(default_factory=list)
    total: float = 0.0
    tables: list[ScoringTableInfo] = Field(default_factory=list, description="该包的评分表（程序读取）")
    groups: list[ScoringGroup] = Field(default_factory=list, description="该包的评分项（含用户修改）")
    confirmed: bool = False
    doubt: str = ""
    user_confirmed: bool = False
    second_reading: SecondReading | None = None


class RequirementHeading(BaseModel):
    """A sub-heading of the tender's requirements chapter (采购需求…), a source of grounded headings."""

    model_config = ConfigDict(extra="ignore")

    text: str = Field(min_length=1, max_length=60)
    level: int = Field(default=1, ge=1, description="相对于需求章节的层级（1 为其下第一级）")
    page: int | None = None
    chapter: str = Field(default="", max_length=60, description="所属需求章节标题")


class AnalysisDifference(BaseModel):
    """One disagreement between the deterministic table and the model, kept for the user."""

    group_id: str | None = None
    field: Literal["title", "points", "missing_in_model", "missing_in_table"]
    table_value: str | None = None
    model_value: str | None = None
    message: str = Field(description="给用户看的中文说明")


class Analysis(BaseModel):
    """Overview + technical scoring groups + cross-check findings for one tender."""

    model_config = ConfigDict(extra="ignore")

    overview: ProjectOverview = Field(default_factory=ProjectOverview)
    #: overview field (project_name/buyer/budget) -> whether to trust it: "✓ …" when the places code
    #: read it agree, otherwise what to check and where (the analysis page shows it beside the value).
    overview_checks: dict[str, str] = Field(default_factory=dict, description="项目信息的核对结果")
    groups: list[ScoringGroup] = Field(default_factory=list)
    source: AnalysisSource = "none"
    table_confident: bool = False
    differences: list[AnalysisDifference] = Field(default_factory=list)
    technical_requirements: str = Field(default="", description="无技术评分时给自由模式的技术要求原文摘录")
    requirement_headings: list[RequirementHeading] = Field(default_factory=list,
                                                           description="采购需求/技术要求章节中的小标题")
    notes: list[str] = Field(default_factory=list, description="给用户看的中文提示")
    scoring_tables: list[ScoringTableInfo] = Field(default_factory=list, description="候选评分表（含正在使用的）")
    scoring_message: str = Field(default="", description="评分表读取结果或没有评分表的原因")
    scoring_absence: str = Field(default="", description="没有评分表的原因代码")
    scoring_decisions: list[str] = Field(default_factory=list, description="由模型决定的事项（中文）")
    scoring_confirmed: bool = Field(default=False, description="程序的各项独立核对一致，评分表已确认")
    scoring_doubt: str = Field(default="", description="未能确认什么、到哪里核对（一句话）")
    scoring_user_confirmed: bool = Field(default=False, description="用户已核对并确认评分项")
    #: Points per part the 评标办法's prose states (技术/商务/价格 -> points), when the parts add up to 100.
    scoring_stated_parts: dict[str, float] = Field(default_factory=dict, description="正文规定的各部分分值")
    #: The model's independent reading of the same pages (None: no model, or it was not asked).
    second_reading: SecondReading | None = Field(default=None, description="模型对评分表的独立读取")
    #: Lots scored apart: one scheme each (empty for a single scheme); ``groups`` etc. are lot ``scoring_lot``'s.
    scoring_lots: list[ScoringLotInfo] = Field(default_factory=list, description="各包（标段）分别的评分表")
    scoring_lot: int = Field(default=0, ge=0, description="正在使用的包（scoring_lots 的序号）")

    @property
    def lot_name(self) -> str:
        """The name of the lot the items are ("" without lots)."""
        return self.scoring_lots[self.scoring_lot].name if 0 <= self.scoring_lot < len(self.scoring_lots) else ""

    @property
    def needs_scoring_confirmation(self) -> bool:
        """One-to-one mode should ask the user first: code read the items but could not confirm them (it says
        why in ``scoring_doubt``) and the user has not confirmed them either."""
        return (self.has_technical_scoring and bool(self.scoring_doubt)
                and not (self.scoring_confirmed or self.scoring_user_confirmed))

    @property
    def technical_groups(self) -> list[ScoringGroup]:
        """The technical items that are chapters (what one-to-one mode turns into chapters)."""
        return [g for g in self.groups if g.category == "technical" and g.chapter]

    @property
    def has_technical_scoring(self) -> bool:
        """Whether one-to-one mode is possible for this tender."""
        return bool(self.technical_groups)


def renumber_groups(groups: list[ScoringGroup]) -> list[ScoringGroup]:
    """Give groups code-owned ids R1, R2, ... in order (ids are never trusted from a model)."""
    return [g.model_copy(update={"id": f"R{i + 1}"}) for i, g in enumerate(groups)]


def points_label(group: ScoringGroup) -> str:
    """Points as shown to users: ``"12"``, ``"权重35%"`` for a table scored by weights, ``""`` when unknown."""
    if group.points is None:
        return ""
    return f"权重{group.points:g}%" if group.weighted else f"{group.points:g}"
