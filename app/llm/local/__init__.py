"""Models on this machine: OpenAI-compatible servers found on loopback, and one the app runs itself.

Entry points: ``discovery.find_local_servers`` (Ollama, LM Studio, llama.cpp, vLLM on their usual
ports, asked ``GET /v1/models`` with a short timeout, loopback only), ``embedded.ManagedServer``
(the optional built-in llama.cpp server: started on a free loopback port when a run needs it,
restarted once if it dies, stopped on exit) with ``embedded.embedded_status`` and
``embedded.machine_choice``; ``guard`` is the small process that ties the server's life to the
app's, so no server outlives a crashed app.

Imports: the standard library, ``httpx2`` and ``app.core``; nothing is sent off this machine.
"""
