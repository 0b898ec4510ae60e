"""Plain data of a model call: endpoint settings, messages, usage and the completion.

Kept apart from the client so every layer (and the journal) can use these types
without pulling in the HTTP machinery.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

Message = dict[str, Any]


@dataclass(frozen=True)
class EndpointConfig:
    """Everything needed to talk to one endpoint; ``api_key`` never appears in ``repr``."""

    base_url: str
    api_key: str = field(repr=False)
    model: str
    temperature: float = 0.3
    max_tokens: int = 2048
    timeout: float = 0.0  # deadline per call in seconds; 0 derives it from max_tokens and the speed
    max_retries: int = 3
    context_size: int = 8192
    concurrency: int = 1
    system_in_user: bool = False
    backoff_base: float = 1.0  # seconds; delay = base * 2**n * jitter(0.5..1.5), capped
    backoff_max: float = 30.0
    retry_after_max: float = 60.0  # cap on a server's Retry-After
    first_token_timeout: float = 0.0  # seconds to the first token; 0: from the prompt size
    idle_timeout: float = 0.0  # longest silence between tokens; 0: the default
    stream_calls: bool = True  # whole-answer calls stream too: first-token/idle clocks, caps, loop detection
    tokens_per_s: float = 0.0  # measured completion speed (probe); 0: unknown
    prompt_tokens_per_s: float = 0.0  # measured prompt processing speed; 0: unknown


@dataclass(frozen=True)
class Usage:
    """Tokens of one call; ``estimated`` when the server reported none and we counted characters."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens


@dataclass
class Completion:
    """The outcome of one model call. ``text`` has think blocks removed; check :attr:`empty`."""

    text: str
    reasoning: str = ""
    finish_reason: str | None = None
    truncated: bool = False
    usage: Usage = field(default_factory=Usage)
    response_format: dict[str, Any] | None = None
    latency_s: float = 0.0
    raw_text: str = ""
    call_id: str = ""
    attempts: int = 1

    @property
    def empty(self) -> bool:
        """An empty answer is a failure (e.g. an over-long prompt on llama.cpp), never a result."""
        return not self.text.strip()


def estimate_tokens(text: str) -> int:
    """Rough token count from characters: one per CJK character, one per four others."""
    cjk = sum(1 for ch in text if "\u2e80" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" or "\uff00" <= ch <= "\uffef")
    return cjk + (len(text) - cjk + 3) // 4


def fold_system_messages(messages: Sequence[Message]) -> list[Message]:
    """Move system messages into the first user message (for servers that drop them)."""
    system = [str(m.get("content") or "") for m in messages if m.get("role") == "system"]
    rest = [dict(m) for m in messages if m.get("role") != "system"]
    if not system:
        return rest
    preamble = "\n\n".join(s for s in system if s.strip())
    for m in rest:
        if m.get("role") == "user":
            m["content"] = f"{preamble}\n\n{m.get('content') or ''}" if preamble else m.get("content")
            return rest
    return [{"role": "user", "content": preamble}, *rest]


def extra_str(obj: Any, name: str) -> str:
    """A string field the openai models do not declare (e.g. ``reasoning_content``), or ""."""
    value = getattr(obj, name, None)
    if value is None:
        extra = getattr(obj, "model_extra", None) or {}
        value = extra.get(name)
    return value if isinstance(value, str) else ""
