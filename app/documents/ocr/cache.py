"""OCR results kept on disk so that a page is read once: keyed by file hash, page and engine.

One small JSON file per page under ``<cache>/<sha256 of the file>/``; the file name holds
the page number and :data:`~app.documents.ocr.engine.ENGINE_ID`, so a new engine or new
settings read pages anew and never mix with old results. Written atomically; a damaged
entry is treated as missing. The folder is the user's cache folder (``platformdirs``)
unless ``BIDSTUDIO_CACHE_DIR`` or an explicit path says otherwise.
"""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path

import platformdirs
from pydantic import BaseModel, Field, ValidationError

from app.core.atomic_file import atomic_write_text
from app.documents.model import OcrLine, Table
from app.documents.ocr.engine import ENGINE_ID

log = logging.getLogger(__name__)

APP_DIR_NAME = "BidStudio"
_CHUNK = 1 << 20


Ruling = tuple[float, float, float, int]  # at, lo, hi (image pixels), thickness


class OcrPageResult(BaseModel):
    """What OCR read on one page: lines in page points, the image's ruling lines (pixels at
    ``zoom``, so tables can be rebuilt without reading the page again), and how long it took."""

    number: int
    width: float
    height: float
    zoom: float = 1.0
    lines: list[OcrLine] = Field(default_factory=list)
    rulings_h: list[Ruling] = Field(default_factory=list)
    rulings_v: list[Ruling] = Field(default_factory=list)
    seconds: float = 0.0
    skew: float = 0.0  # degrees the scan was turned back by before reading (boxes are in that straightened frame)
    engine: str = ENGINE_ID

    def tables(self) -> list[Table]:
        """The ruled tables of the page, rebuilt from the rulings and the lines."""
        from app.documents.ocr.grid import Segment, tables_from_rulings

        horizontal = [Segment(*r) for r in self.rulings_h]
        vertical = [Segment(*r) for r in self.rulings_v]
        return tables_from_rulings(horizontal, vertical, self.zoom, self.height, self.lines, self.number)


def default_cache_dir() -> Path:
    """``BIDSTUDIO_CACHE_DIR``/ocr, or the user's cache folder's ``ocr``."""
    env = os.environ.get("BIDSTUDIO_CACHE_DIR")
    root = Path(env) if env else platformdirs.user_cache_path(APP_DIR_NAME, appauthor=False)
    return root / "ocr"


def file_digest(path: Path) -> str:
    """SHA-256 of the file's bytes (hex)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


class OcrCache:
    """Page results of one file (by content hash) in one cache folder."""

    def __init__(self, digest: str, root: Path | None = None) -> None:
        self.digest = digest
        self.folder = (root or default_cache_dir()) / digest

    @classmethod
    def for_file(cls, path: Path, root: Path | None = None) -> OcrCache:
        """The cache entries of the file at ``path`` (hashes it)."""
        return cls(file_digest(path), root)

    def _path(self, number: int) -> Path:
        return self.folder / f"p{number:05d}-{ENGINE_ID}.json"

    def get(self, number: int) -> OcrPageResult | None:
        """The stored result of page ``number`` (1-based), or None."""
        path = self._path(number)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            return None
        try:
            return OcrPageResult.model_validate_json(text)
        except ValidationError:
            log.warning("damaged OCR cache entry ignored: %s", path)
            return None

    def put(self, result: OcrPageResult) -> None:
        """Store one page's result (a failure to write is logged, never raised)."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            atomic_write_text(self._path(result.number), result.model_dump_json())
        except Exception as exc:  # a read-only or full disk must not stop the reading
            log.warning("OCR cache not written: %r", exc)

    def cached_pages(self) -> list[int]:
        """Numbers of the pages with a stored result."""
        if not self.folder.is_dir():
            return []
        out = []
        for p in self.folder.glob(f"p*-{ENGINE_ID}.json"):
            try:
                out.append(int(p.name[1:6]))
            except ValueError:
                continue
        return sorted(out)
