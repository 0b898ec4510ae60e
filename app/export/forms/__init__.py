"""The 商务 volume: the tender's own response forms filled and written as a Word file.

Entry points: ``volume.export_forms_volume(reading, values, path, certificates=…, options=…)``
(a :class:`~app.core.bid_forms.FormsReading` and each blank's value by its key) and
``merge.place_before(forms, technical, path, …)`` for one file with the 商务 volume first (each volume
keeping its cover, TOC and page numbers, laid out once). Inside:
``runs`` (a value written into a copied DOCX paragraph's runs), ``rebuild`` (a PDF's form as Word
paragraphs and tables), ``copies`` (certificates where a form asks for 复印件).

Imports: ``app.core`` and ``app.export``; docxcompose copies a DOCX tender's forms with their
styles, numbering and pictures.
"""
