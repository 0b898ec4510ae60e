"""The user's library (资料库): past bids and company facts in one local SQLite file, and 查重.

``store.LibraryStore`` owns the database (one per user, in the app's data folder; FTS5 with
the trigram tokenizer when this SQLite has it, a plain scan otherwise). ``bid_import`` turns
.docx/.pdf past bids into stored heading trees; ``search`` finds past sections for a heading;
``checks`` finds copied passages and names left over from other projects; ``facts`` holds
certificates, staff, references and equipment; ``report`` writes results as .xlsx.

Imports: ``app.core``, ``app.documents`` and this package; no Qt, no network, no model calls.
"""
