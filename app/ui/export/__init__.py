"""Export from the window: the Word dialog and flow, and the 评分索引/技术偏离表 dock.

Entry points: ``flow.export_word`` / ``flow.ask_export_choices``, ``dialog.ExportDialog``,
``response_tables.attach_response_tables`` (the dock with ``index_table_view`` and
``deviation_view``; ``response_commands`` are its undo commands), the Word-template row and
heading mapping (``template_dialog``) and the 篇幅预算 dialog (``budget_dialog``). The window is typed as
``app.ui.shell.window_host.WindowHost``, never imported.

Imports: the Qt-free layers, ``app.ui.widgets``, ``app.ui.outline``, ``app.ui.tender``.
"""
