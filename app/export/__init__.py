"""The export layer: the outline and its text as a Word file a bid office can hand in.

Entry points: ``export_docx`` / ``docx_writer.export_bid`` with ``ExportMeta`` and
``ExportOptions`` (re-exported here), the presets (``presets``), the 暗标 check (``anonymity``;
the short names a reader knows the bidder by come from ``bidder_names``), the LibreOffice
layout pass (``layout_pass``) that writes real page numbers, figures drawn from
data (``figures/``, placed by ``figure_writer``) and the office's own Word template (``template``;
``template_safety`` drops what Word would fetch from outside and, for 暗标, what names the office).

Imports: ``app.core`` only; never Qt, the pipeline or the model layer.
"""

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
