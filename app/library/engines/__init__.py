"""The storage engines behind :class:`app.library.store.LibraryStore`.

``sqlite`` — one local file, the default (FTS5 trigram index when this SQLite has it);
``postgres`` — a PostgreSQL server an office shares (psycopg 3, the optional ``office`` extra),
with its schema migrations in ``pg_schema`` and its Chinese n-gram index in ``grams``.
Callers never import an engine: they use ``LibraryStore`` and ``open_library``.
"""

from app.library.engines import postgres, sqlite  # noqa: F401  (each registers itself with the interface)
