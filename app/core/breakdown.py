"""The requirement breakdown (需求拆解): a five-field protocol every caller can rely on.

``status`` says whether the tender's requirements are clear enough to write a bid from;
``background``, ``goals``, ``tasks`` and ``risks`` carry the content, each item with the
page it came from. The same structure is returned on success, on thin input and on model
failure, so callers never branch on exceptions. Risks found by code (★/▲ clauses and
rejection phrases) are marked ``origin="code"`` and are never dropped by the model.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

BreakdownStatus = Literal["executable", "needs_clarification", "refused"]
RiskCategory = Literal[
    "scope", "dependency", "data", "security", "delivery", "acceptance", "rejection", "scoring", "other",
]
RiskOrigin = Literal["model", "code", "system"]
ClauseMark = Literal["★", "▲"]
#: How the bid deviates from a ★/▲ clause (技术偏离表); 待确认 until the writer says (never assumed).
Deviation = Literal["待确认", "无偏离", "正偏离", "负偏离"]
DEVIATIONS: tuple[Deviation, ...] = ("待确认", "无偏离", "正偏离", "负偏离")

#: Chinese labels of the statuses and risk categories, for views and exports.
STATUS_LABELS: dict[str, str] = {
    "executable": "可执行",
    "needs_clarification": "需澄清",
    "refused": "拒绝处理",
}
RISK_CATEGORY_LABELS: dict[str, str] = {
    "scope": "范围",
    "dependency": "依赖",
    "data": "数据",
    "security": "安全",
    "delivery": "交付",
    "acceptance": "验收",
    "rejection": "废标风险",
    "scoring": "扣分风险",
    "other": "其他",
}


class BreakdownItem(BaseModel):
    """One goal or task: a sentence and the tender page it came from (None when unknown)."""

    model_config = ConfigDict(extra="ignore")

    text: str = Field(min_length=1, max_length=600, description="内容")
    page: int | None = Field(default=None, ge=1, description="来源页码")


class RiskItem(BreakdownItem):
    """One risk; code-found clauses carry their mark and ``origin="code"``.

    ``answered_in`` is the outline section id (e.g. "3.2") the user says answers it; an
    unanswered ★/▲ clause is warned about before export. ``response``, ``deviation`` and
    ``deviation_note`` are the bidder's row of the 技术偏离表 (an empty response means the
    default one, written from the answering section).
    """

    category: RiskCategory = Field(default="other", description="风险类别")
    origin: RiskOrigin = "model"
    mark: ClauseMark | None = None
    answered_in: str | None = None
    response: str = Field(default="", max_length=2000, description="投标响应")
    deviation: Deviation = Field(default="待确认", description="偏离情况")
    deviation_note: str = Field(default="", max_length=2000, description="偏离说明")


class Breakdown(BaseModel):
    """The five-field breakdown of a tender's requirement sections."""

    model_config = ConfigDict(extra="ignore")

    status: BreakdownStatus = "needs_clarification"
    background: str = Field(default="", max_length=600)
    background_page: int | None = Field(default=None, ge=1)
    goals: list[BreakdownItem] = Field(default_factory=list)
    tasks: list[BreakdownItem] = Field(default_factory=list)
    risks: list[RiskItem] = Field(default_factory=list)

    def clause_risks(self) -> list[RiskItem]:
        """The risks found by code (★/▲ clauses and rejection phrases), in document order."""
        return [r for r in self.risks if r.origin == "code"]

    def marked(self) -> list[tuple[int, RiskItem]]:
        """``(index in risks, clause)`` of every ★/▲ clause: the rows of the 技术偏离表."""
        return [(i, r) for i, r in enumerate(self.risks) if r.mark is not None]

    def unanswered_marked(self) -> list[RiskItem]:
        """★/▲ clauses that no outline section is marked as answering (warn before export)."""
        return [r for r in self.risks if r.mark is not None and not r.answered_in]

    def to_prompt_text(self, max_items: int = 12) -> str:
        """A compact Chinese summary for outline-review and drafting prompts."""
        lines: list[str] = []
        if self.background:
            lines.append(f"背景：{self.background}")
        if self.tasks:
            lines.append("需响应的任务：")
            lines += [f"- {t.text}" for t in self.tasks[:max_items]]
        if self.risks:
            lines.append("风险与实质性条款：")
            lines += [f"- {(r.mark or '')}{r.text}" for r in self.risks[:max_items]]
        return "\n".join(lines)


# ------------------------------------------------------------------ what the model fills


class ModelItem(BaseModel):
    """A goal or task as the model writes it (bounded for weak models)."""

    model_config = ConfigDict(extra="ignore")

    text: str = Field(min_length=2, max_length=200, description="一句话")
    page: int | None = Field(default=None, description="来源页码")


class ModelRisk(ModelItem):
    """A risk as the model writes it."""

    category: RiskCategory = Field(default="other", description="scope/dependency/data/security/delivery/acceptance/rejection/scoring/other")


class ModelBreakdown(BaseModel):
    """The JSON schema the model must answer with (arrays bounded: weak models loop otherwise)."""

    model_config = ConfigDict(extra="ignore")

    status: BreakdownStatus = Field(description="executable / needs_clarification / refused")
    background: str = Field(min_length=1, max_length=300, description="一句话项目背景；信息不足时写缺少什么")
    goals: list[ModelItem] = Field(default_factory=list, max_length=8)
    tasks: list[ModelItem] = Field(default_factory=list, max_length=15)
    risks: list[ModelRisk] = Field(default_factory=list, max_length=12)
