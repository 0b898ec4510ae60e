"""What the app knows about a tender before it writes: overview, scoring groups, breakdown.

Entry points: ``tender.analyze_tender`` (overview and technical scoring groups, cross-checked
against the deterministic reader; every lot's scheme when lots are scored apart), ``scoring_groups`` (parsed scheme → scoring items),
``scoring_questions`` (closed questions where code cannot decide), the second reader —
``second_reader`` (the model reads the scoring pages into rows), ``reading_check`` (code checks
each row against the text and the stated totals), ``reading_compare`` (two readings compared;
confirmed when they agree) — and ``breakdown.run_breakdown`` with ``breakdown_input`` (需求拆解).

Imports: ``app.core``, ``app.documents``, ``app.llm``, ``app.pipeline.headings``.
"""
