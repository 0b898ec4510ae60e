"""The HTTP side of a model call: one client for any OpenAI-compatible endpoint.

Entry points: ``llm_client.LLMClient`` with ``completion.EndpointConfig`` (``complete``,
``stream``, ``llm_client.replay``), ``probe.probe_endpoint``, ``journal.CallJournal`` and the
errors in ``errors`` (each with a Chinese message). ``transport`` holds what calls to one endpoint
share, ``streaming`` one streamed call with its clocks and caps, ``call_log`` one call's record.

Imports: ``app.core`` and ``app.llm.json.think_blocks``/``repetition`` (answer filters).
"""
