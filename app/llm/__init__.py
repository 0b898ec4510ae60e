"""The model layer: talking to any OpenAI-compatible endpoint and validating what comes back.

``client/`` sends calls (streaming, deadlines, retries, the response-format ladder, the call
journal, the endpoint probe); ``json/`` turns answers into validated data (``json.collect.collect_json``);
``instructions/`` runs instruction streams that edit a tree live.

Imports: ``app.core`` and this package; never the pipeline, documents or Qt.
"""
