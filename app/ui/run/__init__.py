"""Model jobs in the window: the controller, generation actions, drafting, log and status.

Entry points: ``controller.AppController`` (qasync controller: analysis and outline runs, rule 5),
``generation_actions.GenerationActionsMixin`` (生成/重新生成/撰写, asking before any overwrite),
``drafting_bridge.DraftingBridge``, ``log_pane`` with ``log_text``, ``status_panel.StatusPanel``,
``connection_check`` (测试连接), ``no_text_dialog``.

Imports: the Qt-free layers, ``app.ui.outline``, ``app.ui.widgets``, ``app.ui.project``.
"""
