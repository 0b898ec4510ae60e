"""The documents layer: reading a tender into one ``TenderDocument``.

``loader.load_tender`` and ``ingest.ingest_tender`` are the entry points; the PDF, DOCX and text
readers, page diagnostics (``diagnostics``), section location (``locate``), ★/▲ clauses
(``clauses``) and the requirement headings live beside them. ``scoring/`` reads the scoring
table deterministically.

Imports: ``app.core`` and this package; no model calls, no Qt.
"""
