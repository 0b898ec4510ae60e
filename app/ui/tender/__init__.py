"""The tender in the window: document pane, page rendering, analysis and breakdown views.

Entry points: ``document_placeholder.make_document_pane``, ``document_pane.DocumentPane`` with
``page_view`` and ``pdf_render``/``pdf_process`` (PyMuPDF in a child process),
``analysis_view.AnalysisView`` with ``scoring_panel`` (the lot, tables, sums, verdict, rows, the page
beside them), ``candidate_list``, ``scoring_row_actions``, ``reading_compare_view`` (code's and the model's
readings side by side), ``page_preview``, ``scoring_items_model`` and ``analysis_commands``,
``breakdown_view.BreakdownView``.

Imports: the Qt-free layers, ``app.ui.widgets``, ``app.ui.outline``.
"""
