"""Result types of the deterministic scoring-table parser (see ``scoring_table.py``).

Kept apart from the parser so the pipeline and UI can import the types without the
parsing machinery. Points are floats (tenders use 0.5 points); ``None`` means the
table gave no number for that row.
"""

from __future__ import annotations

from enum import Enum
from typing import Literal

from pydantic import BaseModel, Field

CategorySource = Literal[
    "column", "group", "caption", "section", "weights", "factor_name", "guess", "model", "user", "none"
]
TableKind = Literal["table", "paragraphs"]
DecidedBy = Literal["code", "model", "user"]


class ScoreCategory(str, Enum):
    """Which part of the bid a scoring row judges. Values are the Chinese labels."""

    COMMERCIAL = "商务"
    TECHNICAL = "技术"
    PRICE = "价格"
    OTHER = "其他"


class ScoringItem(BaseModel):
    """One grid row under a factor: a factor with merged cells has several (15 + 5 + 10).

    ``name`` is the sub-row's own name when the table gives one (a second name column),
    else empty: a nameless sub-row is a detail point of its factor.
    """

    criteria: str
    points: float | None = None
    page: int
    name: str = ""


class ScoringRow(BaseModel):
    """One scoring factor with its points and criteria, and where it was found."""

    number: str = ""
    category: ScoreCategory = ScoreCategory.OTHER
    category_source: CategorySource = "none"
    category_label: str = ""
    group: str = ""  # the group/subtotal label the row sits under ("技术部分（81分）")
    part: str = ""  # the part label above a group that is only a heading inside it ("商务部分" over "售后服务：")
    factor: str
    factor_raw: str = ""
    points: float | None = None
    stated_points: float | None = None  # the "（30分）" in the factor name, when given
    raw_points: float | None = None  # the points the table prints, when its part is weighted into the total
    criteria: str = ""
    note: str = ""
    items: list[ScoringItem] = Field(default_factory=list)
    table_id: str
    pages: list[int] = Field(default_factory=list)
    chapter: bool = True  # False: the user marked it "not a chapter" (one-to-one skips it)
    doubt: str = ""  # why this row could not be confirmed (Chinese, for the analysis view), "" when fine

    @property
    def page(self) -> int:
        """First page of the row."""
        return self.pages[0] if self.pages else 0

    @property
    def scored_items(self) -> list[ScoringItem]:
        """Sub-rows that carry their own points (level-2 seeds in one-to-one mode)."""
        return [i for i in self.items if i.points is not None] if len(self.items) > 1 else []


class ScoringTable(BaseModel):
    """One logical scoring table (its fragments joined across pages)."""

    table_ids: list[str]
    pages: list[int]
    caption: str = ""
    label: str = ""
    category: ScoreCategory | None = None
    stated_total: float | None = None
    header: list[str] = Field(default_factory=list)
    rows: list[ScoringRow] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    kind: TableKind = "table"
    section: str = ""  # the nearest heading above the table ("（二）技术评分标准")
    subtotals: dict[str, float] = Field(default_factory=dict)  # group label -> stated points
    score: float = 0.0  # structural rank among the candidates (higher is more scoring-table-like)
    evidence: list[str] = Field(default_factory=list)  # why it ranks so (Chinese, for the UI)
    rejected: str = ""  # why it is a look-alike (考核细则, 索引表 …), "" when it may be used
    weighted: bool = False  # points are 权重 percentages (each factor scored 0–100 × its weight)
    reconciled: list[str] = Field(default_factory=list)  # other statements of the chapter this table agrees with
    weight: float | None = None  # the part's weight (%) when it is scored out of 100 and weighted into the total

    @property
    def points_sum(self) -> float:
        """Sum of the rows' points (rows without points count 0)."""
        return round(sum(r.points or 0.0 for r in self.rows), 4)


class ScoringLot(BaseModel):
    """One lot's (包/标段) own scheme, when a tender scores its lots by tables of their own.

    ``confirmed``/``doubt_zh`` are this lot's reading checked on its own (see ``ScoringResult``);
    ``tables`` are indices into ``ScoringResult.candidates``, like ``ScoringResult.options``.
    """

    name: str  # as the document titles it: "A包", "第1-11包", "第二标段"
    tables: list[int] = Field(default_factory=list)
    pages: list[int] = Field(default_factory=list)
    total: float = 0.0
    confirmed: bool = False
    doubt_zh: str = ""


class ScoringResult(BaseModel):
    """All scoring tables of a tender, the self-check outcome and a confidence in 0..1.

    How sure code is, for the analysis view and the second reader:

    - ``confirmed``: code alone could check the reading against everything the document states —
      every stated total and subtotal met, the prose's part totals agree, every row has points
      and a name that reads like a name, the table sits under a scoring heading and no other
      scheme ranks close. A reading shown as confirmed must never be wrong; when in doubt it is not.
    - ``doubt_zh``: one Chinese sentence saying what could not be confirmed and where to look
      ("" when confirmed); each row's ``doubt`` says the same for one row.
    - ``uncertain``: closed questions a model may settle ("table": another scheme ranks close,
      "weights": a table weighted into the total by a formula).
    - ``lots``: when the tender scores its lots (包/标段) by schemes of their own, one entry per
      lot in document order; ``tables`` and everything above describe the lot ``lot`` (the first
      by default); ``table.select_lot`` settles another one. Empty for a single scheme.
    """

    found: bool
    tables: list[ScoringTable] = Field(default_factory=list)
    confidence: float = 0.0
    checks_passed: list[str] = Field(default_factory=list)
    issues: list[str] = Field(default_factory=list)
    message_zh: str = ""
    candidates: list[ScoringTable] = Field(default_factory=list)  # every table considered, chosen or not
    absence: str = ""  # why nothing was found: lowest_price, template, announcement, no_text, none
    decided_by: DecidedBy = "code"
    uncertain: list[str] = Field(default_factory=list)  # what code could not decide (closed questions)
    notes: list[str] = Field(default_factory=list)  # e.g. pages whose tables were cut at a limit
    options: list[list[int]] = Field(default_factory=list)  # schemes code weighed (candidate indices), best first
    confirmed: bool = False  # independent checks agree (sums, stated subtotals, prose, place); see calibrate
    doubt_zh: str = ""  # one sentence: what could not be confirmed and where to look ("" when confirmed)
    lots: list[ScoringLot] = Field(default_factory=list)  # one scheme per lot, when lots are scored apart
    lot: int = 0  # index into ``lots`` of the lot ``tables`` describe

    @property
    def lot_name(self) -> str:
        """The name of the lot the reading describes ("" without lots)."""
        return self.lots[self.lot].name if 0 <= self.lot < len(self.lots) else ""

    @property
    def rows(self) -> list[ScoringRow]:
        """All rows of all tables, in document order."""
        return [r for t in self.tables for r in t.rows]

    @property
    def total_points(self) -> float:
        """Sum of all rows' points."""
        return round(sum(t.points_sum for t in self.tables), 4)

    def rows_in(self, category: ScoreCategory) -> list[ScoringRow]:
        """The rows of one category."""
        return [r for r in self.rows if r.category == category]

    @property
    def technical_rows(self) -> list[ScoringRow]:
        """The technical rows, which the outline is built from."""
        return self.rows_in(ScoreCategory.TECHNICAL)

    def points_by_category(self) -> dict[str, float]:
        """Points summed per category label, e.g. {"商务": 40, "技术": 50, "价格": 10}."""
        out: dict[str, float] = {}
        for r in self.rows:
            out[r.category.value] = round(out.get(r.category.value, 0.0) + (r.points or 0.0), 4)
        return out
