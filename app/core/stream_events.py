"""Typed events of an instruction stream, shared by the llm layer, the pipeline and the UI.

The model writes free thinking text with JSON instructions between it
(``{"op":"set","path":"/outline/0/title","value":"…"}``). The parser turns the text into
:class:`Thinking`, :class:`Instruction` and :class:`MalformedInstruction` items; the applier
and the round runner turn those into :class:`InstructionApplied` / :class:`InstructionRejected`
and report :class:`StreamWarning`, :class:`StreamError`, :class:`RoundStarted` and
:class:`Done`. They live in ``core`` so the UI can consume them without importing ``llm``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

#: Operations an instruction may carry.
OPS = ("set", "append", "insert", "remove", "move", "done")

# The per-instruction events are plain slotted dataclasses (not frozen: a frozen dataclass
# costs three times as much to build, and tens of thousands are built per second).
# Treat every event as read-only.


@dataclass(slots=True)
class Instruction:
    """One complete instruction object found in the stream.

    ``path`` is the normalised RFC 6901 pointer (``""`` for ``done``), ``tokens`` its
    unescaped reference tokens, ``fixes`` the tolerant repairs the parser needed
    (e.g. ``"trailing_comma"``), ``raw`` the source text and ``line`` its first line (1-based).
    """

    op: str
    path: str = ""
    tokens: tuple[str, ...] = ()
    value: Any = None
    has_value: bool = False
    from_path: str = ""
    from_tokens: tuple[str, ...] = ()
    raw: str = ""
    fixes: tuple[str, ...] = ()
    line: int = 0


@dataclass(slots=True)
class Thinking:
    """A run of the model's free text (one line, or the part of a line between instructions)."""

    text: str
    line: int = 0


@dataclass(slots=True)
class MalformedInstruction:
    """Text that started like an instruction but is not a usable one.

    ``truncated`` is True when the stream ended inside it: it is never applied and the
    round runner hands it to the continuation prompt.
    """

    raw: str
    issue: str
    truncated: bool = False
    line: int = 0


ParseEvent = Thinking | Instruction | MalformedInstruction


@dataclass(frozen=True)
class RoundStarted:
    """A model call of an instruction run begins (``kind``: initial, repair or continue)."""

    round: int
    kind: Literal["initial", "repair", "continue"]


@dataclass(slots=True)
class InstructionApplied:
    """A valid instruction changed the tree; ``notes`` lists harmless adjustments made."""

    instruction: Instruction
    round: int = 0
    notes: tuple[str, ...] = ()


@dataclass(slots=True)
class InstructionRejected:
    """An instruction (or instruction-like text) that changed nothing, with its Chinese issue."""

    raw: str
    issue: str
    instruction: Instruction | None = None
    round: int = 0
    truncated: bool = False


@dataclass(frozen=True)
class StreamWarning:
    """Something the user may want to know that did not stop the run (Chinese message)."""

    message: str
    round: int = 0


@dataclass(frozen=True)
class StreamError:
    """A failure of a round (connection lost, model gave up); the tree keeps what it had."""

    message: str
    round: int = 0


@dataclass(frozen=True)
class Done:
    """The run ended: whether the document is valid, after how many rounds, what is left."""

    valid: bool
    rounds: int
    issues: tuple[str, ...] = field(default_factory=tuple)


StreamEvent = (
    Thinking | InstructionApplied | InstructionRejected | StreamWarning | StreamError | RoundStarted | Done
)
