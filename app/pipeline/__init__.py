"""The pipeline layer: the app's work with a tender, the same from GUI, CLI and tests.

``analysis/`` (overview, scoring groups, requirement breakdown), ``outline/`` (outline runs in
free and one-to-one mode, repair, review), ``headings/`` (grounded heading candidates, the
heading library, code fill), ``drafting/`` (section text).

Imports: ``app.core``, ``app.documents``, ``app.llm``; never Qt, export or ui.
"""
