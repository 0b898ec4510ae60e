"""How much of the model's context a prompt leaves for the answer, and text fitted to it.

Every call is measured here before it is sent (:class:`~app.llm.client.call_log.CallLog`):
the prompt is counted with :func:`~app.llm.client.completion.estimate_tokens` (rough: one
token a CJK character, one per four other characters), so a share of it
(:data:`ESTIMATE_SLACK`) and a fixed margin are kept free on top. A call whose prompt leaves
less than :data:`MIN_ANSWER_TOKENS` (or the answer it asked for, if smaller) is refused with
:class:`~app.llm.client.errors.PromptTooLong`; callers that send long material (tender
pages, reference sections, a draft) shorten it first with :func:`fit_text`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from app.llm.client.completion import EndpointConfig, Message, estimate_tokens


class LLMClient(Protocol):
    """What fitting needs of a client (:class:`~app.llm.client.llm_client.LLMClient` has it)."""

    @property
    def config(self) -> EndpointConfig:
        """The endpoint settings (``context_size`` is the known or probed context)."""

    def estimate_prompt_tokens(self, messages: Sequence[Message]) -> int:
        """The estimated prompt size of ``messages`` as they will be sent."""

#: Tokens kept free between an estimated prompt and the context size (the estimate is rough).
CONTEXT_MARGIN_TOKENS = 64
#: The share of the estimated prompt kept free besides the margin (tokenizers differ).
ESTIMATE_SLACK = 0.1
#: The smallest answer a call is sent for; with less room the call is refused (unless it asked for less).
MIN_ANSWER_TOKENS = 256
#: Characters a shortened text keeps at least; with less nothing is sent.
MIN_TEXT_CHARS = 200


def prompt_tokens(messages: Sequence[Message]) -> int:
    """The estimated prompt size of ``messages`` as sent (4 tokens of framing per message)."""
    return sum(estimate_tokens(str(m.get("content") or "")) + 4 for m in messages)


def answer_room(prompt: int, context: int) -> int:
    """Tokens a prompt of ~``prompt`` tokens leaves for the answer in a context of ``context``."""
    return context - CONTEXT_MARGIN_TOKENS - int(prompt * (1 + ESTIMATE_SLACK))


def room_for(client: LLMClient, messages: Sequence[Message]) -> int:
    """Tokens ``messages`` leave for the answer in ``client``'s (probed) context."""
    return answer_room(client.estimate_prompt_tokens(messages), int(client.config.context_size))


@dataclass
class FittedText:
    """Messages whose text was shortened to fit; ``shortened`` says whether anything was cut."""

    messages: list[Message]
    text: str
    max_tokens: int
    shortened: bool


def fit_text(client: LLMClient, text: str, build: Callable[[str], list[Message]], *, answer_tokens: int,
             min_answer_tokens: int = MIN_ANSWER_TOKENS, cut: Callable[[str, int], str] | None = None,
             min_chars: int = MIN_TEXT_CHARS) -> FittedText | None:
    """``build(text')`` for the longest ``text'`` (cut from ``text``) that leaves room for the answer.

    The answer budget is ``answer_tokens`` when there is room, else what is left down to
    ``min_answer_tokens``. ``cut(text, chars)`` shortens (default: the first ``chars``
    characters); None when even ``min_chars`` characters leave too little room.
    """
    shorten = cut or (lambda t, n: t[:n])
    chars = len(text)
    current = text
    while True:
        messages = build(current)
        room = room_for(client, messages)
        if room >= answer_tokens:
            return FittedText(messages, current, answer_tokens, current != text)
        if chars <= min_chars:  # as short as it may get: a smaller answer, or nothing
            return FittedText(messages, current, room, current != text) if room >= min_answer_tokens else None
        chars = max(min_chars, min(int(chars * 0.9), chars - (answer_tokens - room)))
        current = shorten(text, chars)
