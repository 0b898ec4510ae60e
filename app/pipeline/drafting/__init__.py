"""Section drafting: stream each leaf's text, rewrite on request, resume what was cut.

Entry point: ``engine.DraftingEngine``; ``context`` builds what the model is told for one leaf,
``text`` checks and cleans the drafted text, ``figure_proposal`` asks the model for a figure's
data (org chart, flowchart, Gantt) validated by the figure rules.

Imports: ``app.core``, ``app.llm``, ``app.documents``.
"""
