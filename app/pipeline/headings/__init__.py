"""Headings a bid writer would keep: grounded candidates and what code writes itself.

Entry points: ``candidates.plan_chapter`` / ``candidates.chapter_entries`` (what each chapter
may be made of), ``fill`` (code's chapters where a model cannot write one), ``subsections`` (the
model names a planned section's level-3 headings), ``library`` and ``match`` (the heading library
and picking entries), ``domain`` (the tender's kind and trades, which library structures fit it),
``criteria_points``, ``criteria_clauses`` and ``detail_points`` (points a criterion asks for, read
by its structure), ``code_outline`` (a one-to-one outline without a model), ``free_chapters`` (free
mode's chapters when no model can propose them), ``coverage`` (a detail point's short label), ``past_bids`` (the user's past
sections about a chapter's item, from the library, as candidates marked 历史标书).

Imports: ``app.core``, ``app.documents``, ``app.llm``, ``app.library`` (search only).
"""
