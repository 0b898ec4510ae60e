"""Figures drawn by code from the data in :mod:`app.core.figures`: org chart, flowchart, Gantt.

Entry point: ``render.render_png(figure)`` (PNG bytes at print resolution, cached by data)
and ``render.render_svg``; ``fonts.cjk_font()`` says which Chinese font is used, or that none
was found. Drawn with matplotlib's Agg canvas only (no pyplot, no GUI backend). ``writer`` puts
each figure into the Word file under its section, with a caption numbered by chapter (图 3-1).

Imports: ``app.core``, ``app.export`` (the writer) and matplotlib; never Qt.
"""
