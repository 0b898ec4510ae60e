"""The outline in the window: the Qt adapter model, the tree view, undo commands, the editor.

Entry points: ``model.OutlineItemModel`` (adapter over ``app.core.outline.Outline``), ``view.OutlineView``,
``commands`` (every edit an undo command), ``section_editor.SectionEditor`` and
``heading_library_view.HeadingLibraryPanel`` (browse and drop library structures).

Imports: ``app.core``, ``app.pipeline.headings`` (library), ``app.ui.widgets``.
"""
