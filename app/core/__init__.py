"""The domain layer: what a bid is, free of Qt, files and models.

The outline tree with change events (``outline``, ``pointer``, ``outline_sync``), its bounds
(``limits``), the project file and the session object (``project``, ``session``, ``recovery``,
``atomic_file``), settings and secrets (``settings_model``, ``api_keys``, ``secrets``), the
analysis and breakdown data (``analysis``, ``breakdown``, ``response_map``, ``scoring_edit``,
``scoring_rows``),
figure data drawn at export (``figures``), the length budget (``length_budget``), spreadsheet text
that never becomes a formula (``sheet_text``), server text safe to print on a terminal
(``terminal_text``) and typed
pipeline events. ``rules/`` holds the outline and heading rules.

Imports: the standard library and pydantic only; never another ``app`` layer.
"""
