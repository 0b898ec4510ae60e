"""The second reader: the model reads the scoring pages into rows on its own, code checks each row.

Independent of code's reading: the model gets the *pages* (the ones holding the tables code
used or weighed, else the located 评标办法 chapter), never code's rows. Each piece of text (a
page, or part of a long one) is one structured-output call (``collect_json``: response-format
ladder, repair) whose wire schema is small and bounded — rows of name, points, category and
group, at most a dozen a call; a piece whose answer fills the cap is read again in halves.
A model that answers garbage, or whose first rows code cannot find in the text, is not asked
about the other pieces (a weak model costs a call or two, not a chapter's worth).

:func:`read_scoring_pages` returns a :class:`ModelReading` (rows with the page they were read
from) or a note saying why there is none; ``reading_compare`` checks it against the text and
against code's reading. Connection trouble and a spent budget end the reading quietly with a
note — the analysis code made is never lost to the second reader.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from app.core.resources import load_prompt
from app.documents.model import TenderDocument
from app.llm.client.context_fit import fit_text
from app.llm.client.errors import LLMConnectionError
from app.llm.json.collect import collect_json
from app.llm.json.wire_schema import wire_schema
from app.pipeline.analysis.reading_check import name_core, page_texts
from app.pipeline.outline.budget import BudgetExhausted
from app.pipeline.outline.job import user_messages

if TYPE_CHECKING:
    from app.documents.locate import Section
    from app.documents.scoring.model import ScoringResult
    from app.llm.client.llm_client import LLMClient
    from app.pipeline.outline.budget import RunMeter

log = logging.getLogger(__name__)

#: Pages read at most (the tables code used first, then the other candidates', then the chapter's).
MAX_PAGES = 6
#: Pieces of text sent at most, one call each (a long page is cut into pieces at line ends).
MAX_PIECES = 5
#: Characters of one piece (about as many tokens); a small context shortens it further.
PIECE_CHARS = 2800
ANSWER_TOKENS = 700
MIN_ANSWER_TOKENS = 300
STAGE = "analysis/second_reading"
_POINTS_WORDS = re.compile(r"\d\s*分|分值|权重|评分|得分")
_CATEGORY_WORDS = {"技术": "技术", "商务": "商务", "资信": "商务", "价格": "价格", "报价": "价格", "其他": "其他", "其它": "其他"}


def _text(value: Any) -> Any:
    return " ".join(value.split()) if isinstance(value, str) else "" if value is None else value


def _points(value: Any) -> Any:
    """"6分" -> 6, "0-8 分" -> 8 (the largest number), a bare number as is."""
    if isinstance(value, str):
        nums = re.findall(r"\d+(?:\.\d+)?", value)
        return max(float(n) for n in nums) if nums else None
    return value


def _category(value: Any) -> Any:
    """"技术部分", "商务分", "technical" and the like to one of 技术/商务/价格/其他."""
    if not isinstance(value, str):
        return "其他"
    for word, cat in _CATEGORY_WORDS.items():
        if word in value:
            return cat
    low = value.lower()
    return ("技术" if low.startswith("tech") else "商务" if low.startswith(("bus", "comm")) else
            "价格" if low.startswith("pri") else "其他")


class ReadRow(BaseModel):
    """One scoring item as the model read it off the page."""

    model_config = ConfigDict(extra="ignore")
    name: Annotated[str, BeforeValidator(_text), Field(min_length=1, max_length=40)]
    points: Annotated[float | None, BeforeValidator(_points)]
    category: Annotated[Literal["技术", "商务", "价格", "其他"], BeforeValidator(_category)]
    group: Annotated[str, BeforeValidator(_text), Field(max_length=30)] = ""


class ReadRows(BaseModel):
    """The scoring items printed in one piece of the 评标办法 (items with their own points only)."""

    model_config = ConfigDict(extra="ignore")
    rows: Annotated[list[ReadRow], Field(max_length=40)] = []


@dataclass
class Piece:
    """A piece of the scoring pages sent in one call."""

    page: int
    text: str


@dataclass
class ReadItem:
    """A row of the model's reading with the page it was read from."""

    name: str
    points: float | None
    category: str
    group: str
    page: int


@dataclass
class ModelReading:
    """What the model read (``rows``) from ``pages``, or why nothing came (``note``)."""

    rows: list[ReadItem] = field(default_factory=list)
    pages: list[int] = field(default_factory=list)
    note: str = ""
    calls: int = 0
    complete: bool = True  # every piece was answered


def _wire_cap() -> int:
    """How many rows one answer may hold on the wire (the bounded schema's ``maxItems``)."""
    rows = wire_schema(ReadRows).get("properties", {}).get("rows", {})
    return int(rows.get("maxItems", 12))


def reading_pages(doc: TenderDocument, scoring: ScoringResult, section: Section | None) -> list[int]:
    """The pages to read: those of the tables code used, then the other candidates', then the chapter's.

    A tender that scores its lots apart is read lot by lot: only the chosen lot's tables' pages (another
    lot's tables are not rivals, and reading them would only add rows this lot does not have)."""
    ordered: list[int] = []
    for t in scoring.tables:
        ordered += t.pages
    if not scoring.lots:
        for t in sorted((c for c in scoring.candidates if not c.rejected), key=lambda c: -c.score):
            ordered += t.pages
        if section is not None:
            ordered += list(range(section.first_page, section.last_page + 1))
    out: list[int] = []
    for n in ordered:
        if n not in out and 1 <= n <= doc.page_count and doc.page(n).readable:
            out.append(n)
        if len(out) >= MAX_PAGES:
            break
    return sorted(out)


def _inside(block_box: tuple[float, float, float, float] | None, box: tuple[float, float, float, float]) -> bool:
    if block_box is None:
        return False
    x = (block_box[0] + block_box[2]) / 2
    y = (block_box[1] + block_box[3]) / 2
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def other_lots_tables(scoring: ScoringResult) -> set[str]:
    """Ids of the document tables that belong to lots other than the one ``scoring`` reads."""
    if not scoring.lots:
        return set()
    mine = {i for t in scoring.tables for i in t.table_ids}
    return {i for k, lot in enumerate(scoring.lots) if k != scoring.lot
            for c in lot.tables if 0 <= c < len(scoring.candidates) for i in scoring.candidates[c].table_ids} - mine


def page_prompt_text(doc: TenderDocument, number: int, leave_out: set[str] | frozenset[str] = frozenset()) -> str:
    """A page as the model reads it: tables as rows of cells joined by " | ", and the text around them.

    A DOCX page keeps its tables, headings and the paragraphs that speak of points (a long
    estimated page is mostly other text); a PDF page has the text inside a table found there
    replaced by that table's rows. Tables in ``leave_out`` (another lot's) are left out.
    """
    page = doc.page(number)
    tables = [t for t in doc.tables if t.page == number]
    lines: list[str] = []
    if doc.kind != "pdf":
        for b in page.blocks:
            if b.kind == "table" and b.table_id in leave_out:
                continue
            if b.kind in ("table", "heading") or len(b.text) <= 40 or _POINTS_WORDS.search(b.text):
                lines.append(b.text)
        return "\n".join(lines)
    placed: set[str] = set(leave_out)
    for b in page.blocks:
        table = next((t for t in tables if t.bbox is not None and _inside(b.bbox, t.bbox)), None)
        if table is None:
            lines.append(b.text)
        elif table.id not in placed:
            placed.add(table.id)
            lines += [" | ".join(c.replace("\n", " ") for c in r if c) for r in table.rows]
    for t in tables:
        if t.id not in placed and t.bbox is None:
            lines += [" | ".join(c.replace("\n", " ") for c in r if c) for r in t.rows]
    return "\n".join(line for line in lines if line.strip())


def _split(text: str, size: int) -> list[str]:
    """``text`` cut at line ends into pieces of at most ``size`` characters (a longer line is cut)."""
    pieces: list[str] = []
    current = ""
    for line in text.split("\n"):
        while len(line) > size:
            if current:
                pieces.append(current)
                current = ""
            pieces.append(line[:size])
            line = line[size:]
        if current and len(current) + 1 + len(line) > size:
            pieces.append(current)
            current = ""
        current = f"{current}\n{line}" if current else line
    if current.strip():
        pieces.append(current)
    return [p for p in pieces if p.strip()]


def reading_pieces(doc: TenderDocument, pages: list[int], leave_out: set[str] | frozenset[str] = frozenset()) -> list[Piece]:
    """The pieces to send: each page (or part of a long one) that speaks of points, in page order
    (without the tables in ``leave_out``)."""
    pieces: list[Piece] = []
    for n in pages:
        for text in _split(page_prompt_text(doc, n, leave_out), PIECE_CHARS):
            if _POINTS_WORDS.search(text):
                pieces.append(Piece(n, text))
    return pieces[:MAX_PIECES]


def _halves(text: str) -> list[str]:
    lines = text.split("\n")
    if len(lines) < 4:
        return []
    mid = len(lines) // 2
    return ["\n".join(lines[:mid]), "\n".join(lines[mid:])]


def _found_any(doc: TenderDocument, page: int, rows: list[ReadRow]) -> bool:
    """Whether code finds at least one of ``rows``' names on ``page`` (the model reads, not invents)."""
    texts = page_texts(doc, [page])
    flat = texts[0].flat if texts else ""
    return any(len(core) >= 2 and core in flat for core in (name_core(r.name) for r in rows))


class _Reader:
    """One reading: the calls, the meter, and when to stop asking."""

    def __init__(self, client: LLMClient, doc: TenderDocument, meter: RunMeter) -> None:
        self.client = client
        self.doc = doc
        self.meter = meter
        self.template = load_prompt("scoring_second_reading")
        self.calls = 0

    async def ask(self, piece: Piece) -> list[ReadRow] | None:
        """The rows of one piece; None when the model gave no valid answer (or nothing fitted)."""
        def build(text: str) -> list[dict[str, Any]]:
            return user_messages(self.template.format_map({"page": piece.page, "text": text}))

        fitted = fit_text(self.client, piece.text, build, answer_tokens=ANSWER_TOKENS,
                          min_answer_tokens=MIN_ANSWER_TOKENS, cut=lambda t, n: t[:n])
        if fitted is None:
            return None
        self.meter.check("analysis")
        res = await collect_json(self.client, fitted.messages, ReadRows, max_attempts=self.meter.allowed_attempts(2),
                                 stage=STAGE, temperature=0.0, max_tokens=fitted.max_tokens)
        self.calls += max(1, res.attempts)
        self.meter.record("analysis", max(1, res.attempts), res.prompt_tokens, res.completion_tokens,
                          res.tokens_estimated)
        if res.stopped_by == "connection":
            raise LLMConnectionError(res.issues[0] if res.issues else "模型服务连接失败")
        if not res.ok or res.value is None:
            log.info("%s: page %d gave no valid rows: %s", STAGE, piece.page, res.issues[:2])
            return None
        return list(res.value.rows)

    async def read(self, piece: Piece, cap: int, depth: int = 0) -> list[ReadRow] | None:
        """``ask``, and read a piece again in halves when its answer filled the wire cap."""
        rows = await self.ask(piece)
        if rows is None or len(rows) < cap or depth > 0:
            return rows
        halves = _halves(piece.text)
        if not halves:
            return rows
        out: list[ReadRow] = []
        for half in halves:
            part = await self.read(Piece(piece.page, half), cap, depth + 1)
            if part is None:
                return rows
            out += part
        return out


async def read_scoring_pages(client: LLMClient, doc: TenderDocument, scoring: ScoringResult,
                             section: Section | None, meter: RunMeter) -> ModelReading:
    """The model's own reading of the scoring pages (rows with pages), or a note saying why there is none."""
    pages = reading_pages(doc, scoring, section)
    pieces = reading_pieces(doc, pages, other_lots_tables(scoring))
    if not pieces:
        return ModelReading(pages=pages, note="")
    meter.emit("analysis", "正在请模型独立读取评分表")
    reader = _Reader(client, doc, meter)
    cap = _wire_cap()
    reading = ModelReading(pages=sorted({p.page for p in pieces}))
    try:
        for k, piece in enumerate(pieces):
            rows = await reader.read(piece, cap)
            if rows is None:
                reading.complete = False
                if k == 0:
                    reading.note = "模型没有给出可用的评分表读取结果，未再请它读其余页"
                    break
                continue
            if k == 0 and rows and not _found_any(doc, piece.page, rows):
                reading.note = "模型读出的评分项名称在原文中都找不到，未再请它读其余页"
                reading.rows += [ReadItem(r.name, r.points, r.category, r.group, piece.page) for r in rows]
                reading.complete = False
                break
            reading.rows += [ReadItem(r.name, r.points, r.category, r.group, piece.page) for r in rows]
    except LLMConnectionError as exc:
        reading.note = f"请模型复核评分表时模型服务出错（{exc.message_zh}），仍以程序读取为准"
        reading.complete = False
    except BudgetExhausted as exc:
        reading.note = f"{exc.message_zh}，未能请模型复核评分表"
        reading.complete = False
    reading.calls = reader.calls
    return reading

