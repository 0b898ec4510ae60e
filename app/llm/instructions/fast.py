"""The common instructions of a stream, checked and applied without the general machinery.

Nearly every instruction a model streams is one of two shapes: ``append`` a heading given
by plain text fields (``{"title": …, "description": …}``) to a children list, or ``set``
one text field of an existing heading. :class:`FastInstructions` handles exactly those,
with the same bounds the compiled schema enforces (read from it, not restated), and
declines everything else — anything locked, code-owned, numbered, nested, out of range or
invalid — by returning ``False`` *before changing anything*, so the general applier
checks it and writes the precise Chinese issue. The result is the same either way
(``tests/test_instruction_fast.py`` compares both on random instructions); only the cost
differs, and the general path costs several times more per instruction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.core.outline import Outline, OutlineNode

if TYPE_CHECKING:
    from app.core.stream_events import Instruction
    from app.llm.json.schema_check import SchemaNode

#: First characters of a title the general path may rewrite (numbering a model put in front).
NUMBER_START = frozenset("0123456789第一二三四五六七八九十（( \u3000")


class FastInstructions:
    """Applies plain ``append``/``set`` instructions to ``outline``; declines all others."""

    def __init__(self, outline: Outline, schema: SchemaNode, root_key: str,
                 code_owned: frozenset[str] = frozenset({"id"})) -> None:
        self.outline = outline
        self.root_key = root_key
        root = schema.resolve("object")
        top = root.properties.get(root_key) if root is not None else None
        top_array = top.resolve("array") if top is not None else None
        item = top_array.items.resolve("object") if top_array is not None and top_array.items else None
        kids = item.properties.get("children") if item is not None else None
        kids_array = kids.resolve("array") if kids is not None else None
        self.enabled = item is not None and kids_array is not None and top_array is not None
        self.top_max = top_array.max_items if top_array is not None else None
        self.kids_max = kids_array.max_items if kids_array is not None else None
        self.required = item.required if item is not None else frozenset()
        #: Plain string fields (no alternatives, no enum): name -> (min length, max length).
        self.text: dict[str, tuple[int, int | None]] = {}
        if item is not None:
            for name, prop in item.properties.items():
                plain = prop.types == frozenset({"string"}) and not prop.options and prop.enum is None
                if plain and name not in code_owned:
                    self.text[name] = (prop.min_length or 0, prop.max_length)
        self.text_names = frozenset(self.text)
        self._paths: dict[tuple[str, ...], tuple[int, ...] | None] = {}

    def apply(self, ins: Instruction) -> bool:
        """Apply ``ins`` if it is a plain append or set that passes every check; False changes nothing."""
        if ins.op == "append":
            return self._append(ins)
        if ins.op == "set":
            return self._set(ins)
        return False

    def _fits(self, name: str, value: object) -> bool:
        if type(value) is not str:
            return False
        lo, hi = self.text[name]
        n = len(value)
        return n >= lo and (hi is None or n <= hi)

    def _indexes(self, tokens: tuple[str, ...], stop: int) -> tuple[int, ...] | None:
        """The child indexes that ``tokens[1:stop]`` (index, "children", index, …) name, or None.

        Streams address the same few parents over and over, so the answer is kept per token tuple.
        """
        key = tokens[:stop]
        found = self._paths.get(key, False)
        if found is not False:
            return found  # type: ignore[return-value]
        path: list[int] | None = []
        for k in range(1, stop):
            tok = tokens[k]
            if k % 2:
                if not (tok.isascii() and tok.isdigit()):
                    path = None
                    break
                path.append(int(tok))  # type: ignore[union-attr]
            elif tok != "children":
                path = None
                break
        result = tuple(path) if path is not None else None
        if len(self._paths) < 4096:
            self._paths[key] = result
        return result

    def _walk(self, tokens: tuple[str, ...], stop: int) -> tuple[OutlineNode, tuple[int, ...]] | None:
        """The node addressed by ``tokens[1:stop]`` (index, "children", index, …) and its path."""
        path = self._indexes(tokens, stop)
        if path is None:
            return None
        node = self.outline.root
        for i in path:
            kids = node.children
            if i >= len(kids):
                return None
            node = kids[i]
        return node, path

    def _append(self, ins: Instruction) -> bool:
        value = ins.value
        tokens = ins.tokens
        n = len(tokens)
        if (type(value) is not dict or not ins.has_value or not n % 2 or tokens[0] != self.root_key
                or (n > 1 and tokens[-1] != "children") or not self.enabled):
            return False
        if not value.keys() <= self.text_names or not self.required <= value.keys():
            return False
        text = self.text
        for name, field in value.items():
            if type(field) is not str:
                return False
            lo, hi = text[name]
            size = len(field)
            if size < lo or (hi is not None and size > hi):
                return False
        title = value.get("title")
        if type(title) is str and title[:1] in NUMBER_START:
            return False
        found = self._walk(tokens, n - 1)
        if found is None:
            return False
        parent, path = found
        limit = self.top_max if not path else self.kids_max
        if limit is not None and len(parent.children) + 1 > limit:
            return False
        self.outline.append(path, OutlineNode.from_checked(value))
        return True

    def _set(self, ins: Instruction) -> bool:
        tokens = ins.tokens
        n = len(tokens)
        if not ins.has_value or n < 3 or not n % 2 or tokens[0] != self.root_key or not self.enabled:
            return False
        name = tokens[-1]
        value = ins.value
        if name not in self.text or not self._fits(name, value):
            return False
        if name == "title" and value[:1] in NUMBER_START:
            return False
        found = self._walk(tokens, n - 1)
        if found is None:
            return False
        self.outline.update(found[1], checked=True, **{name: value})
        return True
