"""Figures in the UI: the editor dialog (a small table, a live preview) and the outline's figure actions.

Entry points: ``editor.FigureEditorDialog`` and ``section_figures.figure_menu`` (the 图 submenu
of the outline's context menu; every change is one undoable command on the node's figures).
"""
