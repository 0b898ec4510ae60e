"""Drafting prompts fitted to the model's context before they are sent.

A section's prompt carries material of very different worth: the heading, its scoring item
and the project overview are what the section is about; reference sections from past bids,
the sibling headings and the related breakdown items are helpful extras. When the prompt and
the answer do not fit the (probed) context, the extras are shortened in that order —
references clipped, then dropped (a company table is kept whole or dropped, never cut), then
fewer siblings and requirements — until they do. A continuation after a cut or truncated
answer resends only the tail of what was written when the whole would not fit. When even the
barest prompt leaves no room, it is sent as is and the client refuses it with
:class:`~app.llm.client.errors.PromptTooLong` (the section fails with that Chinese reason).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING

from app.llm.client.context_fit import MIN_ANSWER_TOKENS, fit_text, room_for
from app.pipeline.drafting.context import SectionRequest, continue_messages, draft_messages

if TYPE_CHECKING:
    from app.llm.client.llm_client import LLMClient

log = logging.getLogger(__name__)

#: Reference lengths tried after the full ones, longest first (characters of each reference's body).
REFERENCE_CLIPS = (300, 120)
COMPANY_TABLE = "（企业资料："
MAX_SIBLINGS_SHORT = 5
MAX_REQUIREMENTS_SHORT = 3
MAX_DESCRIPTION_SHORT = 200


def _clipped(text: str, chars: int) -> str | None:
    """A reference cut to ``chars`` characters of body (its source line kept); a company table: None."""
    if text.startswith(COMPANY_TABLE):
        return None
    head, _, body = text.partition("\n")
    return text if len(body) <= chars else f"{head}\n{body[:chars]}…"


def _variants(req: SectionRequest) -> Iterator[SectionRequest]:
    """``req`` and ever shorter versions of it (see the module docstring)."""
    yield req
    pairs = list(zip(req.references, req.reference_sources or [""] * len(req.references), strict=False))
    for chars in REFERENCE_CLIPS:
        kept = [(c, src) for text, src in pairs if (c := _clipped(text, chars)) is not None]
        if kept != pairs:
            yield dataclasses.replace(req, references=[t for t, _ in kept], reference_sources=[s for _, s in kept])
    bare = dataclasses.replace(req, references=[], reference_sources=[])
    if req.references:
        yield bare
    yield dataclasses.replace(bare, siblings=req.siblings[:MAX_SIBLINGS_SHORT],
                              requirements=req.requirements[:MAX_REQUIREMENTS_SHORT],
                              description=req.description[:MAX_DESCRIPTION_SHORT])


def fit_request(client: LLMClient, req: SectionRequest, answer_tokens: int) -> tuple[SectionRequest, int]:
    """The fullest version of ``req`` whose prompt leaves ``answer_tokens`` (else a smaller answer).

    Returns the request to send and the answer budget for it; the barest request with the
    budget asked for when nothing fits (the client then refuses it).
    """
    smaller: tuple[SectionRequest, int] | None = None
    last = req
    for variant in _variants(req):
        last = variant
        room = room_for(client, draft_messages(variant))
        if room >= answer_tokens:
            _log_shortened(req, variant, client.config.context_size)
            return variant, answer_tokens
        if smaller is None and room >= min(MIN_ANSWER_TOKENS, answer_tokens):
            smaller = (variant, room)
    if smaller is not None:
        _log_shortened(req, smaller[0], client.config.context_size)
        return smaller
    return last, answer_tokens


def _log_shortened(req: SectionRequest, sent: SectionRequest, context: int) -> None:
    if sent is req:
        return
    log.info("draft %s: reference material shortened to fit the context size %d (%d of %d references kept)",
             req.key, context, len(sent.references), len(req.references))


def fit_continuation(client: LLMClient, base: list[dict[str, str]], written: str,
                     answer_tokens: int) -> tuple[list[dict[str, str]], int]:
    """The continuation request after ``written``, resending only its tail when the whole does not fit."""
    fitted = fit_text(client, written, lambda t: continue_messages(base, t), answer_tokens=answer_tokens,
                      cut=lambda t, n: "……" + t[len(t) - n:])
    if fitted is None:  # not even a short tail fits: the client refuses it with PromptTooLong
        return continue_messages(base, written[-200:]), answer_tokens
    return fitted.messages, fitted.max_tokens
