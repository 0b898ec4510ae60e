"""Reading pages without a usable text layer (scans, glyph outlines, mojibake) by OCR, Qt-free.

``engine`` wraps the bundled Chinese OCR engine (rapidocr with its PP-OCR models, CPU only,
nothing downloaded), ``render`` turns a PDF page into the image it reads, ``grid`` rebuilds
tables from ruling lines and text boxes, ``cache`` keeps each page's result keyed by the
file's hash, ``runner`` reads a list of pages with progress and cancel, and ``apply`` puts
the result into the same :class:`~app.documents.model.TenderDocument` as native text.
Entry points: :func:`app.documents.ocr.apply.ocr_document` (used by the loader) and
:func:`app.documents.ocr.runner.recognize_pages` (used by the UI's worker process).
Imports only ``app.documents`` modules below it and never the loader; no Qt.
"""
