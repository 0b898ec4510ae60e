"""The user's (or office's) library (资料库): past bids and company facts, and 查重.

``store.LibraryStore`` is the one interface (``LibraryStore(path)``: the local SQLite file in
the app's data folder; ``store.open_library``: that or the office's PostgreSQL server), with
its engines in ``engines``; ``server`` holds the server settings and the connection check,
``merge`` copies a personal library into the office's. ``bid_import`` turns
.docx/.pdf past bids into stored heading trees; ``search`` finds past sections for a heading;
``checks`` finds copied passages and names left over from other projects; ``facts`` holds
certificates, staff, references and equipment (read from .xlsx through ``xlsx_rows``: streamed, a
bounded number of rows a sheet); ``report`` writes results as .xlsx.

Imports: ``app.core``, ``app.documents`` and this package; no Qt, no model calls; the network only
in the PostgreSQL engine and the connection check.
"""

from app.library import engines  # noqa: F401  (the engines register themselves with the interface)
