"""Outline runs: tender and analysis in, a valid outline out, whatever the model.

Entry points: ``run.generate_outline`` / ``run.regenerate_node``, ``runner.OutlineRunner`` (the
seam the desktop controller uses), ``result.OutlineResult``. Inside: ``job`` (what a run
carries), ``steps`` and ``strategies`` (``strategy_json``, ``strategy_stream``), ``live_tree``
(streamed instructions onto the draft), ``repair`` (local repairs), ``review`` (the model's
review of the finished outline), ``budget`` (call and token budgets), ``schemas`` and
``wire_catalog`` (what goes on the wire).

Imports: ``app.core``, ``app.documents``, ``app.llm``, ``app.pipeline.headings``.
"""
