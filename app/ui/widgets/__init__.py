"""Small reusable Qt parts that know nothing of the window.

``async_dialog`` (await a dialog without ``exec()``), ``flat_table`` (base of the flat table
models), ``section_picker`` (choose outline sections).

Imports: Qt and the Qt-free layers only; no other ``app.ui`` package.
"""
