"""The schema sent on the wire, kept apart from the pydantic model code validates with.

A grammar engine (llama.cpp turns ``json_object`` + schema, or ``json_schema``, into a
GBNF grammar) expands every bounded repetition into nested optional rules: a string with
``maxLength: 2000`` becomes two thousand nested groups, the grammar parser refuses it
("number of rules ... exceeds sane defaults") and llama-cpp-python's server process dies.
So what goes on the wire is smaller than what code checks (architecture rule 12):

- arrays are always bounded (``maxItems``; a list the model could fill forever is capped);
- string bounds stay only when small (titles); longer strings go unbounded and their
  length is checked in code by the pydantic model, which keeps its full constraints;
- the whole schema's estimated grammar size stays within :data:`GRAMMAR_BUDGET` rules and
  no single repetition spans more than :data:`MAX_REPETITION_SPAN` items.

:func:`grammar_cost` estimates what the grammar converter generates; :func:`wire_schema`
builds the bounded schema and, should it still be too big, simplifies it further.
"""

from __future__ import annotations

import copy
import functools
import logging
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from app.llm.client.response_format import strict_schema

log = logging.getLogger(__name__)

#: Strings whose ``maxLength`` is above this go on the wire unbounded (checked in code).
WIRE_STRING_MAX = 80
#: ``maxItems`` put on an array that has none (or a larger one).
WIRE_ARRAY_MAX = 12
#: Longest single repetition (max - min items or characters) a wire schema may ask for.
MAX_REPETITION_SPAN = 100
#: Estimated grammar rules a whole wire schema may need.
GRAMMAR_BUDGET = 1500


@dataclass(frozen=True)
class GrammarCost:
    """Estimated size of the grammar a schema compiles to."""

    rules: int
    longest_span: int

    @property
    def within_budget(self) -> bool:
        """Whether a grammar engine on a small machine takes this schema comfortably."""
        return self.rules <= GRAMMAR_BUDGET and self.longest_span <= MAX_REPETITION_SPAN


def grammar_cost(schema: dict[str, Any]) -> GrammarCost:
    """Rules a JSON-schema-to-grammar converter generates for ``schema`` (an estimate).

    A bounded repetition of span ``n`` becomes ``n`` nested optional groups, each costing
    two rules (the group and its optional wrapper); each ``$defs`` entry is converted once.
    """
    defs = schema.get("$defs") or schema.get("definitions") or {}
    seen: set[str] = set()
    longest = 0

    def span_cost(low: int, high: int | None) -> int:
        nonlocal longest
        if high is None:
            return 1
        span = max(0, high - low)
        longest = max(longest, span)
        return 2 * span

    def visit(node: Any) -> int:
        if not isinstance(node, dict):
            return 1
        ref = node.get("$ref")
        if isinstance(ref, str):
            name = ref.rsplit("/", 1)[-1]
            if name in seen:
                return 1
            seen.add(name)
            return 1 + visit(defs.get(name, {}))
        cost = 1
        for key in ("anyOf", "oneOf", "allOf"):
            for sub in node.get(key) or []:
                cost += visit(sub)
        kind = node.get("type")
        if kind == "string" and ("maxLength" in node or "minLength" in node):
            cost += span_cost(int(node.get("minLength", 0)), node.get("maxLength"))
        elif kind == "array" or "items" in node:
            cost += visit(node.get("items", {}))
            cost += span_cost(int(node.get("minItems", 0)), node.get("maxItems"))
        props = node.get("properties")
        if isinstance(props, dict):
            cost += sum(1 + visit(sub) for sub in props.values())
        return cost

    return GrammarCost(visit(schema), longest)


def bound_schema(schema: dict[str, Any], string_max: int = WIRE_STRING_MAX,
                 array_max: int = WIRE_ARRAY_MAX) -> dict[str, Any]:
    """A copy of ``schema`` with arrays bounded and long string bounds removed."""
    out = copy.deepcopy(schema)

    def visit(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                visit(item)
            return
        if not isinstance(node, dict):
            return
        for key in ("title", "description", "examples"):
            if isinstance(node.get(key), str) or key == "examples":
                node.pop(key, None)
        if node.get("type") == "string":
            high = node.get("maxLength")
            if high is not None and int(high) > string_max:
                node.pop("maxLength")
            cap = min(10, string_max)
            if int(node.get("minLength", 0)) > cap:
                node["minLength"] = cap
            if not node.get("minLength"):
                node.pop("minLength", None)
        if node.get("type") == "array" or "items" in node:
            low = min(int(node.get("minItems", 0)), array_max)
            if low:
                node["minItems"] = low
            high = node.get("maxItems")
            node["maxItems"] = max(low, min(int(high) if high is not None else array_max, array_max))
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                for sub in value.values():
                    visit(sub)
            elif isinstance(value, (dict, list)):
                visit(value)

    visit(out)
    return out


def wire_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The bounded schema to send for ``model`` (strict-mode shaped, within the budget).

    Tries the normal bounds first, then tighter ones; the last resort drops every string
    bound and caps arrays at four items, which any engine takes.
    """
    base = strict_schema(model)
    for string_max, array_max in ((WIRE_STRING_MAX, WIRE_ARRAY_MAX), (40, 8), (0, 4)):
        schema = bound_schema(base, string_max, array_max)
        cost = grammar_cost(schema)
        if cost.within_budget:
            return schema
        log.info("wire schema of %s too large (%d rules, span %d); tightening", model.__name__, cost.rules,
                 cost.longest_span)
    return schema


@functools.lru_cache(maxsize=128)
def wire_format(model: type[BaseModel], name: str | None = None) -> dict[str, Any]:
    """The ``json_schema`` response format sent for ``model`` (top of the ladder); read-only."""
    return {"type": "json_schema",
            "json_schema": {"name": name or model.__name__, "schema": wire_schema(model), "strict": True}}
