"""The outline and heading rules, checked by code wherever a heading comes from.

``registry``: every heading rule as a named object (scope, severity, Chinese message, examples it must
refuse and human headings it must accept) — ``first_problem``/``problems`` over a ``HeadingContext``;
``outline``: structure rules of a whole outline (``check_outline``, ``validate_outline``,
``normalize_title``, ``clean_title``); ``heading_form``: whether a string reads as a heading or as
a fragment of a sentence (``fragment_problem``, ``vague_problem``).

Imports: ``app.core`` only.
"""
