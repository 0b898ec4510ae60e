"""The call journal: every model call of a run as JSON lines in the run folder.

Two kinds of line: ``"kind": "call"`` written by the client (the request as sent, the
response format used, raw output, reasoning, finish reason, tokens, latency, retries,
error) and ``"kind": "validation"`` written by ``collect_json`` (issues found, repair
kind, local repairs) linked by ``call_id``. A call line holds enough to send the same
request again (:func:`replay_request`; the client's ``replay`` sends it). API keys never reach the file: the client
registers its key as a secret, every string is scrubbed of secrets, and any header-like
``authorization``/``api_key`` field is dropped before writing.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from app.core.secrets import scrub_value

JOURNAL_FILE = "llm_calls.jsonl"


class CallJournal:
    """Append-only JSON-lines journal of model calls for one run folder (thread-safe)."""

    def __init__(self, run_dir: Path, filename: str = JOURNAL_FILE, secrets: Iterable[str] = ()) -> None:
        self.run_dir = Path(run_dir)
        self.path = self.run_dir / filename
        self._secrets: set[str] = {s for s in secrets if s and len(s) >= 4}
        self._lock = threading.Lock()
        self.run_dir.mkdir(parents=True, exist_ok=True)

    def add_secret(self, secret: str) -> None:
        """Never write this string (e.g. an API key) to the journal."""
        if secret and len(secret.strip()) >= 4:
            self._secrets.add(secret.strip())

    def record_call(self, entry: dict[str, Any]) -> None:
        """Write one model call (called by the client)."""
        self.write({"kind": "call", **entry})

    def record_validation(self, call_id: str, stage: str, *, attempt: int, ok: bool, issues: list[str],
                          repair_kind: str, local_repairs: list[str], uncertain: bool = False) -> None:
        """Write what ``collect_json`` found in one call's output and what it did next."""
        self.write({"kind": "validation", "call_id": call_id, "stage": stage, "attempt": attempt, "ok": ok,
                    "issues": issues, "repair_kind": repair_kind, "local_repairs": local_repairs,
                    "uncertain": uncertain})

    def write(self, entry: dict[str, Any]) -> None:
        """Scrub secrets and append one JSON line."""
        clean = self._scrub({"ts": round(time.time(), 3), **entry})
        line = json.dumps(clean, ensure_ascii=False, default=str)
        with self._lock, self.path.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")

    def _scrub(self, value: Any) -> Any:
        return scrub_value(value, frozenset(self._secrets))

    @staticmethod
    def read(path: Path) -> list[dict[str, Any]]:
        """All entries of a journal file (skips a torn last line)."""
        out: list[dict[str, Any]] = []
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            if line.strip():
                try:
                    out.append(json.loads(line))
                except ValueError:
                    continue
        return out

    def entries(self) -> list[dict[str, Any]]:
        """All entries written so far."""
        return self.read(self.path) if self.path.exists() else []


def replay_request(entry: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of ``chat.completions.create`` that reproduce a call line."""
    if entry.get("kind") != "call":
        raise ValueError("not a call entry")
    req = entry["request"]
    kwargs: dict[str, Any] = {"model": entry["model"], "messages": req["messages"],
                              "temperature": req["temperature"], "max_tokens": req["max_tokens"]}
    if req.get("response_format") is not None:
        kwargs["response_format"] = req["response_format"]
    return kwargs
