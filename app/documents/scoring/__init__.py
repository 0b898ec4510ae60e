"""The deterministic scoring-table reader: what code can read for certain, code reads.

Entry point: ``table.parse_scoring`` (via ``documents.ingest``) → ``model.ScoringResult``. The
stages: ``candidates`` (every table-like place; ``align`` lines up a PDF table's page fragments),
``columns`` and ``cells`` (what each column and cell says), ``fold`` and ``rows`` (grid rows into
factors and their sub-items), ``weights`` (parts scored out of 100 and weighted into the total),
``reconcile`` (summary tables checked against the details they sum up), ``category``
(技术/商务/价格), ``paragraphs`` (schemes written as prose), ``context`` (what the rest of the
tender says), ``select`` (rank and choose), ``lots`` (one reading per lot), ``absence`` (why
there is none, in Chinese), ``prose`` (the part totals the 评标办法 text states), ``explain`` (which of them a
reading explains: it ranks the schemes and holds back a confirmation), ``calibrate``
(confirmed only when independent checks agree; what to check otherwise).
Nothing inside detection is fatal: a candidate whose reading raises is rejected with the reason.

Imports: ``app.core`` and ``app.documents``.
"""
