"""The tender's own response forms in the window: 视图 → 投标文件组成 and 文件 → 导出商务标….

Entry point: ``dock.attach_forms(window)`` (the main window calls it) → ``FormsHost`` with the
dock (registered in the 审查 stage), its ``FormsBoard`` (``board``: the forms, their fill and the
user's state, Qt-free), the checklist model, the form view, the 报价与日期 fields, the export dialog
and flow (``export_flow``) and the 商务 rows of 提交前检查 (``checks``). What the user types is kept
in the project through ``ProjectSession.set_bid_forms``.

The logic lives in ``app.documents.forms`` (reading, fill), ``app.library.forms_facts`` (企业资料)
and ``app.export.forms`` (the volume); nothing here imports ``main_window``.
"""
