"""One document model for every tender source (PDF, DOCX, text).

Readers fill a :class:`TenderDocument`; everything downstream (locating, the scoring
parser, the pipeline, the UI) works on it and never on PyMuPDF or python-docx objects.
Pages are numbered from 1. DOCX files have no real pages: their page numbers come from
the page breaks Word recorded and are marked as estimated.
"""

from __future__ import annotations

from enum import Enum
from typing import Literal

from pydantic import BaseModel, Field

SourceKind = Literal["pdf", "docx", "text", "doc"]
BlockKind = Literal["paragraph", "heading", "table"]
TextSource = Literal["text", "ocr"]  # the file's own text layer, or read from the page image
PageLayer = Literal["ok", "blank", "scanned", "outlines", "garbled"]  # values of diagnostics.PageState
BBox = tuple[float, float, float, float]


class Severity(str, Enum):
    """How bad a diagnostic is: info (fine), warning (some pages lost), error (unusable)."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


class DiagnosticCode(str, Enum):
    """Stable machine codes of the document diagnostics (the UI shows ``message_zh``)."""

    NO_TEXT_LAYER = "no_text_layer"  # scanned image pages: need OCR
    TEXT_AS_OUTLINES = "text_as_outlines"  # glyphs drawn as vector paths: need OCR
    GARBLED_TEXT = "garbled_text"  # text layer extracts as mojibake
    BLANK_PAGES = "blank_pages"  # nothing at all on the page
    NO_READABLE_TEXT = "no_readable_text"  # the whole document is unusable as text
    COPY_RESTRICTED = "copy_restricted"  # owner password only: opened normally
    CONVERTED = "converted"  # .doc/.wps converted with LibreOffice
    ESTIMATED_PAGES = "estimated_pages"  # DOCX page numbers come from recorded breaks
    NO_SCORING_TABLE = "no_scoring_table"
    SCORING_MISMATCH = "scoring_mismatch"
    TABLES_LIMITED = "tables_limited"  # table search stopped at a page/row/time limit
    PAGES_LIMITED = "pages_limited"  # more pages than the input limit: only the first ones were read
    OCR_APPLIED = "ocr_applied"  # some pages' text was read from their images
    OCR_LOW_CONFIDENCE = "ocr_low_confidence"  # OCR lines to check by eye
    OCR_EMPTY = "ocr_empty"  # OCR ran but found no text on some pages
    OCR_TABLE_UNCERTAIN = "ocr_table_uncertain"  # a table rebuilt from a scan whose grid may be wrong
    OCR_NOT_RUN = "ocr_not_run"  # pages need OCR but it was off, cancelled or unavailable


class Diagnostic(BaseModel):
    """One finding about the document or a page range, with a Chinese message for users."""

    code: DiagnosticCode
    severity: Severity
    message_zh: str
    pages: list[int] = Field(default_factory=list)

    @property
    def page_range(self) -> tuple[int, int] | None:
        """(first, last) page this diagnostic covers, or None for the whole document."""
        return (min(self.pages), max(self.pages)) if self.pages else None


class TextBlock(BaseModel):
    """A paragraph, heading or rendered table, in reading order, with its page."""

    page: int
    text: str
    kind: BlockKind = "paragraph"
    bbox: BBox | None = None
    heading_level: int | None = None
    table_id: str | None = None
    source: TextSource = "text"
    confidence: float | None = None  # OCR only: the lowest line confidence in the block (0–1)


class Heading(BaseModel):
    """A chapter/section title found by style or by its numbering (第X章, 一、, 1.1)."""

    text: str
    level: int
    page: int
    block_index: int


class Table(BaseModel):
    """A table grid. ``None`` cells continue a merged cell (from above or from the left).

    A PDF table that continues on following pages is stored once per page fragment;
    the scoring parser joins fragments. ``caption`` is the text right above the table.
    """

    id: str
    page: int
    rows: list[list[str | None]]
    bbox: BBox | None = None
    caption: str = ""
    ends_page: bool = False  # nothing but footer text below it on its page
    starts_page: bool = False  # nothing but header text above it on its page
    source: TextSource = "text"
    uncertain: str = ""  # why the grid may be wrong (tables rebuilt from scans), in Chinese
    col_x: list[float] = Field(default_factory=list)  # PDF: the columns' edges, left to right (n + 1 values)
    spans: list[list[int]] = Field(default_factory=list)  # PDF: columns each cell spans, per row (0: merged)

    @property
    def col_count(self) -> int:
        """Number of grid columns (the widest row)."""
        return max((len(r) for r in self.rows), default=0)


class OcrLine(BaseModel):
    """One line read by OCR: its text, its box in page points and the engine's confidence (0–1)."""

    text: str
    bbox: BBox
    confidence: float


class Page(BaseModel):
    """One page: its text blocks and whether its text can be trusted (``readable``)."""

    number: int
    blocks: list[TextBlock] = Field(default_factory=list)
    readable: bool = True
    char_count: int = 0
    common_cjk_ratio: float | None = None
    layer: PageLayer = "ok"  # what the file's own text layer is like (set by the PDF reader)
    source: TextSource = "text"  # where ``blocks`` came from
    ocr_lines: list[OcrLine] = Field(default_factory=list)  # OCR pages: every line with its box

    @property
    def text(self) -> str:
        """The page text, blocks separated by newlines."""
        return "\n".join(b.text for b in self.blocks)


class TenderDocument(BaseModel):
    """Everything the app knows about one loaded tender, whatever its source format."""

    source_path: str
    kind: SourceKind
    pages: list[Page] = Field(default_factory=list)
    tables: list[Table] = Field(default_factory=list)
    headings: list[Heading] = Field(default_factory=list)
    diagnostics: list[Diagnostic] = Field(default_factory=list)
    page_numbers_estimated: bool = False
    timings: dict[str, float] = Field(default_factory=dict)

    @property
    def page_count(self) -> int:
        """Number of pages (estimated for DOCX/text)."""
        return len(self.pages)

    def page(self, number: int) -> Page:
        """The page with this 1-based number (IndexError when out of range)."""
        if not 1 <= number <= len(self.pages):
            raise IndexError(f"page {number} out of range 1..{len(self.pages)}")
        return self.pages[number - 1]

    @property
    def readable_pages(self) -> list[int]:
        """Numbers of the pages whose text may be used."""
        return [p.number for p in self.pages if p.readable]

    @property
    def unreadable_pages(self) -> list[int]:
        """Numbers of the pages left out of model input (no text layer, garbled, outlines)."""
        return [p.number for p in self.pages if not p.readable]

    @property
    def has_readable_text(self) -> bool:
        """True when at least some page has usable text."""
        return any(p.readable and p.char_count > 0 for p in self.pages)

    def text(self, first: int = 1, last: int | None = None, *, include_unreadable: bool = False) -> str:
        """Text of pages ``first..last`` (inclusive), skipping unreadable pages by default."""
        last = len(self.pages) if last is None else min(last, len(self.pages))
        parts = [
            p.text
            for p in self.pages[max(first, 1) - 1 : last]
            if include_unreadable or p.readable
        ]
        return "\n".join(t for t in parts if t)

    def table(self, table_id: str) -> Table:
        """The table with this id (KeyError when unknown)."""
        for t in self.tables:
            if t.id == table_id:
                return t
        raise KeyError(table_id)

    def diagnostics_by_severity(self, severity: Severity) -> list[Diagnostic]:
        """The diagnostics of one severity, in document order."""
        return [d for d in self.diagnostics if d.severity == severity]
