"""The tender's own response forms (投标文件格式): found, read and filled — no Qt, no model.

Entry points: ``finder.find_forms(path, doc)`` → :class:`app.core.bid_forms.FormsReading` (the
ordered forms with their text, tables and blanks); ``fill.fill_forms(reading, FillInput)`` →
``FormsFill`` (each blank's value and source); ``tender_values.tender_values(doc, analysis)``
(project name and number, buyer, agency with their ✓/待确认 state).

Inside: ``flow`` (a DOCX body with its underlined runs), ``flow_pages`` and ``pdf_lines`` (a PDF's
chapter pages read line by line with gaps, rules, ruled tables, running headers left out),
``chapter`` (where the format chapter is), ``titles``, ``numbering`` and ``hierarchy`` (which lines
open forms), ``blanks`` and ``fields`` (every blank and what it asks for).

Imports: ``app.core`` and ``app.documents``.
"""
