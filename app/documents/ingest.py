"""Model-free ingestion in one call: load, parse the scoring tables, locate the sections.

The GUI, the CLI and the pipeline all start from here, so they see the same document,
the same scoring rows and the same page ranges. Progress is reported through a plain
``(message, fraction)`` callable; only the UI turns it into signals.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.documents.loader import DEFAULT_MAX_BYTES, load_tender
from app.documents.locate import LocatedSections, locate_sections
from app.documents.model import Diagnostic, DiagnosticCode, TenderDocument
from app.documents.scoring.model import ScoringResult
from app.documents.scoring.table import parse_scoring, scoring_diagnostics

Progress = Callable[[str, float], None]
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class IngestResult:
    """A loaded tender with its parsed scoring tables and located sections."""

    document: TenderDocument
    scoring: ScoringResult
    sections: LocatedSections

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """Document diagnostics followed by the scoring parse outcome."""
        return [*self.document.diagnostics, *scoring_diagnostics(self.scoring)]

    @property
    def unreadable(self) -> bool:
        """True when nothing in the file can be used as text (the CLI's exit code 3)."""
        return any(d.code == DiagnosticCode.NO_READABLE_TEXT for d in self.document.diagnostics)


def ingest_tender(
    path: str | Path,
    password: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    progress: Progress | None = None,
) -> IngestResult:
    """Load ``path`` and run the deterministic analysis (raises DocumentError when unreadable)."""
    report = progress or (lambda _message, _fraction: None)
    report("读取招标文件", 0.0)
    doc = load_tender(path, password=password, max_bytes=max_bytes)
    report("解析评分表", 0.8)
    t0 = time.perf_counter()
    scoring = parse_scoring(doc)
    t1 = time.perf_counter()
    report("定位项目概况、采购需求和评分办法", 0.9)
    try:
        sections = locate_sections(doc, scoring)
    except Exception as exc:  # locating is a convenience: the tender and its scoring stay usable without it
        log.warning("locating sections failed: %s: %s", type(exc).__name__, exc)
        sections = LocatedSections()
    doc.timings["scoring_parse"] = t1 - t0
    doc.timings["locate"] = time.perf_counter() - t1
    report("读取完成", 1.0)
    return IngestResult(document=doc, scoring=scoring, sections=sections)
