"""Section drafting engine: stream each leaf's text with a concurrency limit, cancel, resume.

Qt-free (the UI wires the callbacks to signals). One :class:`DraftingEngine` drafts a set
of :class:`~app.pipeline.drafting.context.SectionRequest` values:

- at most ``limit`` sections write at once; the rest wait in a queue (state ``waiting``);
  a ``run`` started while another is active joins the same queue and limit;
- every content piece goes to ``on_delta(key, piece)``, every state change to ``on_state``;
- ``finish_reason == "length"`` continues automatically from where the text stopped, and
  a stream cut after some text ("peer closed connection") continues the same way;
- empty answers and refusals end as ``failed`` with a Chinese reason;
- :meth:`cancel` stops one section (waiting or writing), :meth:`cancel_all` all of them;
  partial text is kept, so :meth:`resume` (also after reloading a saved
  :class:`~app.core.drafting_state.DraftingState`) continues unfinished sections;
- a cheap 3-gram Jaccard guard warns when two finished sections are near-duplicates;
- :meth:`rewrite` returns new text for 扩写/精简/更具体/结合评分点 — the caller applies it
  as an undoable command; the engine never touches the outline.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from app.core.drafting_state import DraftingState, SectionDraft
from app.core.similarity import similarity
from app.llm.client.errors import CallTimedOut, LLMConfigError, LLMConnectionError, LLMError
from app.pipeline.drafting.context import (
    REWRITE_LABELS,
    RewriteMode,
    SectionRequest,
    draft_messages,
    rewrite_messages,
)
from app.pipeline.drafting.fit import fit_continuation, fit_request
from app.pipeline.drafting.text import (
    SeamTrimmer,
    clean_markdown,
    degenerate_reason,
    drop_repeated_lines,
    is_looping,
    refusal_reason,
)

if TYPE_CHECKING:
    from app.llm.client.llm_client import LLMClient

log = logging.getLogger(__name__)

DEFAULT_CONCURRENCY = 3
MAX_CONTINUATIONS = 3
MAX_CUT_RETRIES = 2
DUPLICATE_THRESHOLD = 0.5

StateCallback = Callable[[SectionDraft], None]
DeltaCallback = Callable[[str, str], None]


@dataclass(frozen=True)
class DuplicateWarning:
    """Two finished sections whose texts are near-duplicates (character 3-gram Jaccard)."""

    key_a: str
    key_b: str
    score: float

    @property
    def message_zh(self) -> str:
        """The warning shown to the user."""
        return f"第 {self.key_a} 节与第 {self.key_b} 节内容高度相似（相似度 {self.score:.0%}），建议改写其中一节。"


@dataclass
class RewriteResult:
    """The outcome of a rewrite: ``text`` is the new text when ``ok``, else the original."""

    ok: bool
    text: str
    previous: str
    mode: RewriteMode
    error: str = ""
    continuations: int = 0

    @property
    def label(self) -> str:
        """Chinese name of the rewrite, for the undo command text (e.g. "扩写 3.2.1")."""
        return REWRITE_LABELS[self.mode]


def find_duplicates(state: DraftingState, threshold: float = DUPLICATE_THRESHOLD) -> list[DuplicateWarning]:
    """All pairs of finished sections whose texts reach ``threshold`` similarity."""
    done = [(k, d.text) for k, d in state.sections.items() if d.status == "done" and d.text.strip()]
    out: list[DuplicateWarning] = []
    for i, (ka, ta) in enumerate(done):
        for kb, tb in done[i + 1 :]:
            score = similarity(ta, tb)
            if score >= threshold:
                out.append(DuplicateWarning(ka, kb, round(score, 3)))
    return out


def _ignore_state(draft: SectionDraft) -> None:
    del draft


def _ignore_delta(key: str, piece: str) -> None:
    del key, piece


def _ignore_duplicate(warning: DuplicateWarning) -> None:
    del warning


@dataclass
class _Generation:
    text: str
    continuations: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    hit_limit: bool = False
    looping: bool = False


@dataclass
class DraftingEngine:
    """Drafts sections concurrently; one engine per project, reused across runs.

    ``limit`` is ``concurrency`` (default 3) capped by the client's own
    ``EndpointConfig.concurrency``, since the client never sends more than that at once.
    """

    client: LLMClient
    state: DraftingState = field(default_factory=DraftingState)
    concurrency: int | None = None
    max_continuations: int = MAX_CONTINUATIONS
    max_cut_retries: int = MAX_CUT_RETRIES
    duplicate_threshold: float = DUPLICATE_THRESHOLD
    max_tokens: int | None = None
    on_state: StateCallback = _ignore_state
    on_delta: DeltaCallback = _ignore_delta
    on_duplicate: Callable[[DuplicateWarning], None] = _ignore_duplicate
    warnings: list[DuplicateWarning] = field(default_factory=list)
    _tasks: dict[str, asyncio.Task[None]] = field(default_factory=dict, repr=False)
    _config_error: str = field(default="", repr=False)
    _sem: asyncio.Semaphore | None = field(default=None, repr=False)

    @property
    def limit(self) -> int:
        """How many sections may write at the same time."""
        wanted = self.concurrency if self.concurrency and self.concurrency > 0 else DEFAULT_CONCURRENCY
        return max(1, min(wanted, self.client.config.concurrency))

    @property
    def running(self) -> list[str]:
        """Keys of sections queued or writing in the current run."""
        return [k for k, t in self._tasks.items() if not t.done()]

    # ------------------------------------------------------------------ runs
    async def run(self, requests: Sequence[SectionRequest], *, skip_done: bool = True) -> DraftingState:
        """Draft the sections from scratch (finished ones are skipped unless ``skip_done`` is False)."""
        todo: list[SectionRequest] = []
        for req in requests:
            draft = self.state.get(req.key, req.title)
            if (skip_done and draft.status == "done") or req.key in self.running:
                continue
            self.state.sections[req.key] = SectionDraft(key=req.key, title=req.title,
                                                        sources=list(req.reference_sources))
            todo.append(req)
        return await self._run(todo)

    async def resume(self, requests: Sequence[SectionRequest]) -> DraftingState:
        """Continue the unfinished sections (waiting, interrupted, cancelled) from their partial text."""
        todo = [r for r in requests if r.key in self.state.sections and self.state.sections[r.key].resumable]
        return await self._run(todo)

    def cancel(self, key: str) -> bool:
        """Stop one section, waiting or writing; its partial text is kept. False if not running."""
        task = self._tasks.get(key)
        if task is None or task.done():
            return False
        task.cancel()
        return True

    def cancel_all(self) -> None:
        """Stop every queued and writing section."""
        for key in list(self._tasks):
            self.cancel(key)

    async def _run(self, todo: Sequence[SectionRequest]) -> DraftingState:
        """Queue ``todo`` and wait for it. Calls made while another run is active join its
        queue (same concurrency limit); cancelling one call's task cancels only its sections."""
        if self._sem is None or not self.running:
            self._sem = asyncio.Semaphore(self.limit)
            self._config_error = ""
        sem = self._sem
        mine: dict[str, asyncio.Task[None]] = {}
        for req in todo:
            if req.key in self.running:
                continue
            draft = self.state.get(req.key, req.title)
            draft.status, draft.error = "waiting", ""
            self._emit(draft)
            mine[req.key] = asyncio.create_task(self._section(req, sem), name=f"draft:{req.key}")
        self._tasks.update(mine)
        try:
            await asyncio.gather(*mine.values())
        finally:
            for key, task in mine.items():
                if self._tasks.get(key) is task:
                    del self._tasks[key]
        return self.state

    # ------------------------------------------------------------------ one section
    async def _section(self, req: SectionRequest, sem: asyncio.Semaphore) -> None:
        draft = self.state.sections[req.key]
        t0: float | None = None
        start = draft.text
        try:
            async with sem:
                if self._config_error:  # the endpoint settings are wrong: do not call again
                    draft.status, draft.error = "failed", self._config_error
                    self._emit(draft)
                    return
                draft.status, draft.rejected_text = "writing", ""
                self._emit(draft)
                t0 = time.monotonic()
                sent, answer = fit_request(self.client, req, self._answer_tokens())
                if sent is not req:  # what the model was shown is what the draft credits
                    draft.sources = list(sent.reference_sources)
                gen = await self._generate(draft_messages(sent), draft.text, lambda p: self._piece(draft, p), answer)
        except asyncio.CancelledError:
            draft.status = "cancelled"
            draft.elapsed_s += 0.0 if t0 is None else time.monotonic() - t0
            self._emit(draft)
            return
        except LLMError as exc:
            if isinstance(exc, LLMConfigError):
                self._config_error = _error_text(exc)
            draft.elapsed_s += 0.0 if t0 is None else time.monotonic() - t0
            self._reject(draft, req, start, _error_text(exc), getattr(exc, "partial_text", "") or draft.text[len(start):])
            return
        draft.elapsed_s += time.monotonic() - t0
        draft.continuations += gen.continuations
        draft.prompt_tokens += gen.prompt_tokens
        draft.completion_tokens += gen.completion_tokens
        reason = refusal_reason(gen.text)
        if reason is None and gen.looping:
            reason = "模型输出陷入重复，已拒绝本次结果。"
        final, repeats = _final_text(gen.text, req.title)
        if reason is None:
            reason = degenerate_reason(final)
        if reason is not None:
            self._reject(draft, req, start, reason, gen.text)
            return
        draft.text = final
        draft.status = "done"
        notes = []
        if gen.hit_limit:
            notes.append("续写次数已达上限，正文可能不完整。")
        if repeats:
            notes.append(f"模型输出出现重复，已删去 {repeats} 行重复内容，请检查正文。")
        draft.error = "".join(notes)
        self._emit(draft)
        self._check_duplicates(draft)

    def _reject(self, draft: SectionDraft, req: SectionRequest, start: str, reason: str, attempt: str) -> None:
        """A failed or degenerate attempt: the section keeps its text, the attempt is kept as rejected."""
        draft.rejected_text = attempt[-20_000:]
        draft.text = req.existing if not start else start
        draft.status, draft.error = "failed", reason
        log.info("drafting %s: attempt rejected: %s", draft.key, reason)
        self._emit(draft)

    def _piece(self, draft: SectionDraft, piece: str) -> None:
        draft.text += piece
        self.on_delta(draft.key, piece)

    def _emit(self, draft: SectionDraft) -> None:
        self.state.touch(draft.key)
        self.on_state(draft)

    def _check_duplicates(self, draft: SectionDraft) -> None:
        for key, other in self.state.sections.items():
            if key == draft.key or other.status != "done" or not other.text.strip():
                continue
            score = similarity(draft.text, other.text)
            if score >= self.duplicate_threshold:
                warning = DuplicateWarning(key, draft.key, round(score, 3))
                self.warnings.append(warning)
                log.info("drafting: %s", warning.message_zh)
                self.on_duplicate(warning)

    # ------------------------------------------------------------------ generation
    def _answer_tokens(self) -> int:
        """The answer budget each drafting call asks for."""
        return self.max_tokens or self.client.config.max_tokens

    async def _generate(self, base: list[dict[str, str]], written: str,
                        on_piece: Callable[[str], None], answer: int | None = None) -> _Generation:
        """Stream until the model stops on its own, continuing after truncation and cuts."""
        gen = _Generation(text=written)
        cuts = truncations = 0
        wanted = self._answer_tokens()
        while True:
            before = gen.text
            if gen.text.strip():
                messages, budget = fit_continuation(self.client, base, gen.text, wanted)
            else:
                messages, budget = base, answer or wanted
            trimmer = SeamTrimmer(gen.text)
            stream = self.client.stream(messages, max_tokens=budget, stage="draft")

            def show(piece: str) -> None:
                if piece:
                    gen.text += piece
                    on_piece(piece)

            try:
                async for piece in stream:
                    show(trimmer.feed(piece))
                show(trimmer.finish())
            except LLMConnectionError as exc:
                show(trimmer.finish())
                if exc.partial_text and cuts < self.max_cut_retries and not isinstance(exc, CallTimedOut):
                    cuts += 1
                    gen.continuations += 1
                    log.warning("drafting: stream cut after %d chars; continuing (%d)", len(gen.text), cuts)
                    continue
                raise
            finally:
                await stream.aclose()
            comp = stream.result
            gen.prompt_tokens += comp.usage.prompt_tokens
            gen.completion_tokens += comp.usage.completion_tokens
            if comp.truncated or comp.finish_reason == "length":
                if is_looping(before, gen.text[len(before):]) or is_looping(*_halves(gen.text[len(before):])):
                    gen.looping = True  # a weak model repeating itself: more tokens only add more of it
                    return gen
                if truncations < self.max_continuations:
                    truncations += 1
                    gen.continuations += 1
                    continue
                gen.hit_limit = True
            return gen

    # ------------------------------------------------------------------ rewrite
    async def rewrite(self, req: SectionRequest, text: str, mode: RewriteMode, guidance: str = "",
                      on_delta: Callable[[str], None] | None = None) -> RewriteResult:
        """New text for one section (扩写/精简/更具体/结合评分点); the caller applies it as an
        undoable command. Failures come back as ``ok=False`` with the original text."""
        sink = on_delta or (lambda piece: None)
        try:
            gen = await self._generate(rewrite_messages(req, text, mode, guidance), "", sink)
        except LLMError as exc:
            return RewriteResult(False, text, text, mode, error=_error_text(exc))
        reason = refusal_reason(gen.text)
        if reason is not None:
            return RewriteResult(False, text, text, mode, error=reason, continuations=gen.continuations)
        new_text = _final_text(gen.text, req.title)[0]
        reason = degenerate_reason(new_text)
        if reason is not None:
            return RewriteResult(False, text, text, mode, error=reason, continuations=gen.continuations)
        return RewriteResult(True, new_text, text, mode, continuations=gen.continuations)


def _final_text(raw: str, title: str) -> tuple[str, int]:
    """Light markdown without lines the model repeated; returns the text and the lines dropped."""
    return drop_repeated_lines(clean_markdown(raw, title))


def _halves(text: str) -> tuple[str, str]:
    """The first and second half of a text (a loop inside one answer repeats its first half)."""
    mid = len(text) // 2
    return text[:mid], text[mid:]


def _error_text(exc: LLMError) -> str:
    if isinstance(exc, LLMConfigError):
        return "模型设置有误：" + exc.message_zh
    return exc.message_zh
