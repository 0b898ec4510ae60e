"""The application shell: start-up, the main window, its stages and layout, settings and error sinks.

Entry points: ``main.run`` (QApplication, qasync loop, the window), ``main_window.MainWindow``
(built from the feature mixins), ``window_host.WindowHost`` (the window as other packages see
it), ``window_layout`` (the core panels, the screen), ``stages`` and ``workspace`` (the window by
stage), ``settings_dialog.SettingsDialog``, ``errors`` (three exception sinks, one dialog),
``event_loop``, ``translations``.

**The window is a workspace by stage** (ARCHITECTURE rule 17). The stages, in the order a bid
writer goes through them, are ``stages.STAGES``: ``analysis`` 招标分析 (Ctrl+1), ``outline`` 目录
(Ctrl+2), ``text`` 正文 (Ctrl+3), ``review`` 审查 (Ctrl+4), ``material`` 资料 (Ctrl+5). The
outline tree is the central widget and always in view; each stage shows only its own panels
around it, and a stage's layout must fit a 1366×768 screen (``tests/ui/test_stages.py`` checks
every stage's minimum size). A panel declares its stage once, in one registry::

    from app.ui.shell.stages import register_panel

    dock = QDockWidget("投标文件组成", window)
    dock.setObjectName("bidFormsDock")          # unique: layouts are saved by name
    dock.setWidget(panel)
    register_panel(window, dock, "review", area=Qt.DockWidgetArea.RightDockWidgetArea,
                   tab_with="reviewDock")        # a tab beside 评审模拟
    view_menu.addAction(dock.toggleViewAction())  # 视图 → 投标文件组成 brings the 审查 stage

Call it once per stage the panel belongs to; the first is its home. Do not call
``addDockWidget`` yourself. Options: ``tab_with``/``below`` another panel of the same stage
(by object name), ``share`` of the window's width (side) or height (bottom) for the column the
panel heads, ``front`` (the tab on top), ``shown`` (False or a callable: not shown at first).
Showing a panel (``dock.show()``, its 视图 entry, ``window.workspace.bring(dock)``) while another
stage is on show switches to the panel's home stage. Panels of other stages are hidden: refresh
lazily when shown — ``dock.visibilityChanged`` or ``window.workspace.on_show(dock)`` — so a
panel not on show does no work while a run streams. Each stage's layout is saved on close;
视图 → 重置布局 puts the stage on show back to its first-start layout.

Imports: everything in ``app.ui``; nothing imports ``main_window`` but ``main`` and the session.
``stages`` imports only Qt, so any feature package may use it.
"""
