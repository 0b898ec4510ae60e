"""Heading trees out of documents: the user's own outline, past bids, a tender's prescribed structure.

Entry points: ``numbering.parse_numbering`` (第一章 / 一、 / 1.1 / （一） / 1、 / (1) / 1) / ①, numbering
stripped), ``sections.parse_outline_text`` (pasted text → ``sections.Section`` tree, depth from
indentation or numbering), ``bid_reader.read_bid`` (.docx by heading style or numbering, .pdf by
bookmarks or numbered lines, with each section's text and tables; a PDF page is searched for
tables only when ``pdf_items.has_ruled_grid`` sees a ruled grid in its drawings), ``importer`` (an outline kept
verbatim, optionally locked), ``chapter_mapping`` (the scoring item a chapter answers, by subject, or
none), ``prescribed`` (the structure a tender prescribes for its technical part, or none).

Imports: ``app.core`` and ``app.documents``.
"""
