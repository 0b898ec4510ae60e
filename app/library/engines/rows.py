"""Row conversions both engines share: sections and facts as the interface's records, facts as stored text."""

from __future__ import annotations

import json
from collections.abc import Sequence

from app.library.store import FactRecord, StoredSection


def fact_blob(data: dict[str, str]) -> str:
    """A fact's fields as stored: JSON with sorted keys (equal facts give equal text)."""
    return json.dumps(data, ensure_ascii=False, sort_keys=True)


def fact_record(r: Sequence[object]) -> FactRecord:
    """A fact row ``(id, kind, data, source, version, updated_by, updated_at)`` as a record."""
    data = r[2] if isinstance(r[2], dict) else json.loads(str(r[2]))
    return FactRecord(int(r[0]), str(r[1]), {str(k): str(v) for k, v in data.items()}, str(r[3]),  # type: ignore[call-overload]
                      int(r[4]), str(r[5] or ""), str(r[6] or ""))  # type: ignore[call-overload]


def tables_text(tables: list[list[list[str]]]) -> str:
    """A section's tables as tab-separated lines (indexed with its body)."""
    return "\n".join("\t".join(row) for t in tables for row in t)


def stored_section(r: Sequence[object]) -> StoredSection:
    """A joined section row as a :class:`StoredSection`."""
    tables = r[8] if isinstance(r[8], list) else json.loads(str(r[8]) or "[]")
    return StoredSection(id=int(r[0]), bid_id=int(r[1]), ord=int(r[2]), level=int(r[3]),  # type: ignore[call-overload]
                         number=str(r[4]), title=str(r[5]), heading_path=str(r[6]), body=str(r[7]),
                         tables=tables, bid_name=str(r[9]), project=str(r[10]), client=str(r[11]))
