"""The tender in the window: document pane, page rendering, analysis and breakdown views.

Entry points: ``document_placeholder.make_document_pane``, ``document_pane.DocumentPane`` with
``page_view`` and ``pdf_render``/``pdf_process`` (PyMuPDF in a child process),
``analysis_view.AnalysisView`` with ``scoring_items_model`` and ``analysis_commands``,
``breakdown_view.BreakdownView``.

Imports: the Qt-free layers, ``app.ui.widgets``, ``app.ui.outline``.
"""
