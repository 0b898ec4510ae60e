"""From a model's answer to validated data.

Entry point: ``collect.collect_json`` (the one road every structured call takes: extract, local
repair, schema check, model repair, retry). Beside it: ``extract`` and ``normalize`` (find and
mend JSON), ``schema_check`` (compiled validator, Chinese messages), ``wire_schema`` (the small
schema sent on the wire), ``stream`` (incremental reader), ``repetition`` and ``think_blocks``
(loop detection, reasoning split off).

Imports: ``app.core``, ``app.llm.client`` (to make the calls) and this package.
"""
