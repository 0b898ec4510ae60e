"""评审模拟 in the window: the 自评表 dock, the 提交前检查 list, 补写 of the gaps, table export.

Entry points: ``review_dock.attach_review`` (the dock with ``review_panel.ReviewPanel``, menus
视图 → 评审模拟 and 工具 → 提交前检查), ``checks_dialog.SubmissionChecksDialog``,
``fill_gaps`` (补写 one point or all gaps as undo steps), ``review_export`` (.xlsx).
The logic lives in ``app.pipeline.evaluation`` and ``app.export.submission_checks``; the
window is typed as ``app.ui.shell.window_host.WindowHost``, never imported.

Imports: the Qt-free layers, ``app.ui.widgets``, ``app.ui.outline``.
"""
