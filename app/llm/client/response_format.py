"""The response-format ladder, learned per endpoint and model.

Endpoints differ in what structured output they accept. We try, best first:
``json_schema`` (strict) → ``json_object`` carrying the schema (llama.cpp's extension, which
constrains decoding by grammar) → plain ``json_object`` → no response format at all.
When an endpoint refuses a level (HTTP 400/404/422, or a 5xx whose body names
``response_format``/``json_schema`` as llama-cpp-python does), the registry remembers that
the endpoint+model starts one level lower, optionally in a JSON file, so the next call
does not pay for the refusal again. The ladder only ever goes down: it cannot loop.
"""

from __future__ import annotations

import copy
import functools
import json
import logging
import threading
from enum import IntEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from app.core.atomic_file import atomic_write_text

log = logging.getLogger(__name__)

#: Words in an error body that say the response format was the problem.
_FORMAT_WORDS = ("response_format", "json_schema", "response format", "json schema", "json_object", "grammar")


class FormatLevel(IntEnum):
    """Rungs of the ladder; a higher value is a stronger guarantee."""

    NONE = 0
    JSON_OBJECT = 1
    JSON_OBJECT_SCHEMA = 2
    JSON_SCHEMA = 3


def level_of(response_format: dict[str, Any] | None) -> FormatLevel:
    """The ladder rung an OpenAI-style ``response_format`` dict corresponds to."""
    if not response_format:
        return FormatLevel.NONE
    kind = response_format.get("type")
    if kind == "json_schema":
        return FormatLevel.JSON_SCHEMA
    if kind == "json_object":
        return FormatLevel.JSON_OBJECT_SCHEMA if response_format.get("schema") else FormatLevel.JSON_OBJECT
    return FormatLevel.NONE


def schema_of(response_format: dict[str, Any] | None) -> tuple[str, dict[str, Any] | None]:
    """``(name, schema)`` carried by a response format, if any."""
    if not response_format:
        return "result", None
    if response_format.get("type") == "json_schema":
        js = response_format.get("json_schema") or {}
        return str(js.get("name") or "result"), js.get("schema")
    return "result", response_format.get("schema")


def build_format(level: FormatLevel, name: str, schema: dict[str, Any] | None) -> dict[str, Any] | None:
    """The ``response_format`` dict to send at ``level``; None means send none."""
    if level == FormatLevel.JSON_SCHEMA and schema is not None:
        return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}
    if level == FormatLevel.JSON_OBJECT_SCHEMA and schema is not None:
        return {"type": "json_object", "schema": schema}
    if level in (FormatLevel.JSON_OBJECT, FormatLevel.JSON_OBJECT_SCHEMA, FormatLevel.JSON_SCHEMA):
        return {"type": "json_object"}
    return None


def ladder(requested: dict[str, Any] | None, start: FormatLevel) -> list[dict[str, Any] | None]:
    """The formats to try, best first, starting no higher than ``start``; no duplicates."""
    top = min(level_of(requested), start)
    name, schema = schema_of(requested)
    out: list[dict[str, Any] | None] = []
    for level in range(top, -1, -1):
        fmt = build_format(FormatLevel(level), name, schema)
        if fmt not in out:
            out.append(fmt)
    return out or [None]


@functools.lru_cache(maxsize=64)
def json_schema_format(model: type[BaseModel], name: str | None = None) -> dict[str, Any]:
    """A strict ``json_schema`` response format for a pydantic model (top of the ladder).

    Cached per model: treat the returned dict as read-only.
    """
    return {"type": "json_schema",
            "json_schema": {"name": name or model.__name__, "schema": strict_schema(model), "strict": True}}


def strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema adapted to OpenAI strict mode.

    Strict mode wants every property required and ``additionalProperties: false`` on
    every object; defaults are dropped because strict mode rejects them.
    """
    schema = copy.deepcopy(model.model_json_schema())

    def visit(node: Any) -> None:
        if isinstance(node, list):
            for value in node:
                visit(value)
            return
        if not isinstance(node, dict):
            return
        node.pop("default", None)
        props = node.get("properties")
        if node.get("type") == "object" and isinstance(props, dict):
            node["additionalProperties"] = False
            node["required"] = list(props)
            for sub in props.values():
                visit(sub)
        for key, value in node.items():
            if key != "properties":
                visit(value)

    visit(schema)
    return schema


def mentions_format(text: str) -> bool:
    """Whether an error body talks about the response format."""
    low = text.lower()
    return any(w in low for w in _FORMAT_WORDS)


def is_format_rejection(status: int, body_text: str, sent_format: dict[str, Any] | None) -> bool:
    """Whether an HTTP error means "this response format is not supported".

    400/404/422 count when a format was sent and the body names it (or gives no other
    reason for 400/422); 5xx counts only when the body names it (llama-cpp-python's HTTP 500
    ``literal_error`` for ``json_schema``).
    """
    if sent_format is None:
        return False
    if status in (400, 404, 422):
        if mentions_format(body_text):
            return True
        return status != 404 and not _names_other_cause(body_text)
    if status >= 500:
        return mentions_format(body_text)
    return False


def _names_other_cause(body_text: str) -> bool:
    low = body_text.lower()
    return any(w in low for w in ("context", "token", "too long", "max_tokens", "messages", "model"))


class FormatRegistry:
    """Remembers, per ``base_url`` + model, the best rung the endpoint accepts.

    In memory by default; with ``path`` it loads and saves a small JSON file (written
    atomically) so the knowledge survives restarts.
    """

    def __init__(self, path: Path | None = None) -> None:
        self._path = path
        self._levels: dict[str, FormatLevel] = {}
        self._lock = threading.Lock()
        if path is not None and path.is_file():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                self._levels = {str(k): FormatLevel(int(v)) for k, v in dict(data).items()}
            except (OSError, ValueError, TypeError) as exc:
                log.warning("ignoring unreadable response-format registry %s: %s", path, exc)

    @staticmethod
    def key(base_url: str, model: str) -> str:
        """The registry key of an endpoint and model."""
        return f"{base_url.rstrip('/')}|{model}"

    def start_level(self, base_url: str, model: str) -> FormatLevel:
        """The highest rung worth trying for this endpoint+model."""
        with self._lock:
            return self._levels.get(self.key(base_url, model), FormatLevel.JSON_SCHEMA)

    def mark_unsupported(self, base_url: str, model: str, fmt: dict[str, Any] | None) -> None:
        """Record that ``fmt`` was refused: later calls start one rung below it."""
        level = level_of(fmt)
        if level == FormatLevel.NONE:
            return
        below = FormatLevel(level - 1)
        key = self.key(base_url, model)
        with self._lock:
            if self._levels.get(key, FormatLevel.JSON_SCHEMA) <= below:
                return
            self._levels[key] = below
            snapshot = {k: int(v) for k, v in self._levels.items()}
        log.info("endpoint %s refuses response format %s; using %s from now on", key, level.name, below.name)
        self._save(snapshot)

    def forget(self, base_url: str, model: str) -> None:
        """Forget what was learned (e.g. after the user changed the server)."""
        with self._lock:
            self._levels.pop(self.key(base_url, model), None)
            snapshot = {k: int(v) for k, v in self._levels.items()}
        self._save(snapshot)

    def _save(self, snapshot: dict[str, int]) -> None:
        if self._path is None:
            return
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(self._path, json.dumps(snapshot, ensure_ascii=False, indent=1))
        except OSError as exc:
            log.warning("could not save response-format registry %s: %s", self._path, exc)


#: The process-wide default registry (in memory).
DEFAULT_REGISTRY = FormatRegistry()
