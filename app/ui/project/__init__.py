"""One bid in the window: files, session, autosave and the questions before overwriting.

Entry points: ``files.ProjectFilesMixin`` (open, save, export menu), ``session.SessionWiring``
(settings → client, autosave, recovery), ``session_signals.SessionSignals`` and
``session_view.SessionViewMixin`` (the Qt face of ``core.session``), ``autosave``,
``overwrite_questions``, ``password_prompt``.

Imports: the Qt-free layers and ``app.ui`` packages below the shell (``run``, ``export``, ``widgets``).
"""
