"""What the app knows about a tender before it writes: overview, scoring groups, breakdown.

Entry points: ``tender.analyze_tender`` (overview and technical scoring groups, cross-checked
against the deterministic reader), ``scoring_groups`` (parsed scheme → scoring items),
``scoring_questions`` (closed questions where code cannot decide), ``breakdown.run_breakdown``
with ``breakdown_input`` (需求拆解).

Imports: ``app.core``, ``app.documents``, ``app.llm``, ``app.pipeline.headings``.
"""
