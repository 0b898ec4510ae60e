"""BidStudio export layer: the Word (.docx) writer and its style presets (Qt-free)."""

from app.export.docx_writer import ExportReport, build_document, export_bid, export_docx, select_chapters
from app.export.options import BIDDER_PLACEHOLDER, ExportError, ExportMeta, ExportOptions, NumberingScheme
from app.export.presets import FONT_SIZES, PRESETS, ExportPreset, font_size_pt, get_preset

__all__ = [
    "BIDDER_PLACEHOLDER",
    "FONT_SIZES",
    "PRESETS",
    "ExportError",
    "ExportMeta",
    "ExportOptions",
    "ExportPreset",
    "ExportReport",
    "NumberingScheme",
    "build_document",
    "export_bid",
    "export_docx",
    "font_size_pt",
    "get_preset",
    "select_chapters",
]
