"""What every subcommand shares: exit codes, the usage error, tender ingestion and JSON output.

Only the standard library is imported at module level; the document layer is imported when
a tender is actually read.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.documents.locate import LocatedSections
    from app.documents.model import TenderDocument
    from app.documents.scoring_model import ScoringResult

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_UNREADABLE = 3
EXIT_MODEL = 4
EXIT_ENDPOINT = 5

Handler = Callable[[argparse.Namespace], int]


class CliUsageError(Exception):
    """A bad option combination found by a handler (exit code 2)."""


def ingest(path: str, password: str | None = None, max_bytes: int | None = None) -> tuple[
    TenderDocument, ScoringResult, LocatedSections
]:
    """Load a tender, parse its scoring tables and locate its sections (model-free)."""
    from app.documents.ingest import ingest_tender
    from app.documents.loader import DEFAULT_MAX_BYTES

    result = ingest_tender(path, password=password, max_bytes=max_bytes or DEFAULT_MAX_BYTES)
    return result.document, result.scoring, result.sections


def write_json(data: dict[str, Any], output: str | None) -> None:
    """Print JSON to stdout, or write it to ``output`` atomically (temp file, fsync, rename)."""
    text = json.dumps(data, ensure_ascii=False, indent=2)
    if not output:
        print(text)
        return
    from app.core.atomic_file import atomic_write_text

    atomic_write_text(Path(output), text + "\n")
