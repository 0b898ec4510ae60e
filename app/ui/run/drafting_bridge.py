"""Section drafting wired to Qt: the pipeline's ``DraftingEngine`` behind signals and undo.

The engine (Qt-free) streams each leaf's text through plain callbacks; this bridge turns
them into signals for the section editor, and every text that lands in the outline — a
finished draft, a rewrite, a hand edit — is one undoable ``EditFieldCommand`` on the
controller's stack (rule 4). Sections are addressed by key (the outline id) and mapped to
paths at the moment text is applied, so moving nodes meanwhile is safe.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Signal, SignalInstance
from PySide6.QtGui import QUndoStack

from app.ui.outline.commands import EditFieldCommand

if TYPE_CHECKING:
    from app.core.analysis import Analysis
    from app.core.breakdown import Breakdown
    from app.core.drafting_state import DraftingState, SectionDraft
    from app.core.length_budget import LengthBudget
    from app.core.outline import Outline
    from app.core.project import Project, SectionState
    from app.library.store import LibraryStore
    from app.llm.client.llm_client import LLMClient
    from app.pipeline.drafting.engine import DraftingEngine, RewriteResult

log = logging.getLogger("bidstudio.run")

#: Shown on a section whose drafting was interrupted when the project was saved.
INTERRUPTED_NOTE = "上次未写完，可用“生成 → 继续未完成的正文”接着写"


class RunTracker(Protocol):
    """What a model job reports to the app: it is about to call, it starts, its tokens, it ends."""

    async def prepare_client(self, client: LLMClient) -> None:
        """Warm the client before the first call (off the GUI thread)."""

    def begin_run(self, text: str, kind: str = "", mode: str = "") -> None:
        """A job starts: status text, busy state, a run-history record."""

    def end_run(self, ok: bool, message: str) -> None:
        """The job ended: close its record and tell the window."""

    def record_tokens(self, prompt: int, completion: int) -> None:
        """The job's token totals so far."""


ClientProvider = Callable[[], "LLMClient"]


class DraftingHost(RunTracker, Protocol):
    """What the bridge needs of the controller that owns the outline (the controller is one)."""

    undo_stack: QUndoStack
    stage_changed: SignalInstance

    @property
    def outline(self) -> Outline:
        """The outline the drafts land in."""

    @property
    def analysis(self) -> Analysis:
        """The tender's analysis (overview, scoring groups) for the prompts."""

    @property
    def breakdown(self) -> Breakdown | None:
        """The requirement breakdown, when there is one."""

    @property
    def length_budget(self) -> LengthBudget | None:
        """The project's length budget, when the user set one."""

    @property
    def busy_generating(self) -> bool:
        """Whether an outline run owns the tree right now."""

    def client(self) -> LLMClient:
        """A client for the configured endpoint."""


class DraftingBridge(QObject):
    """Runs drafting and rewrites for the controller's outline.

    Signals:
        section_delta(str, str): key and a streamed piece of text.
        section_state(object): a ``SectionDraft`` whose state changed.
        run_progress(int, int): sections of the running job finished so far, and its total.
    """

    section_delta = Signal(str, str)
    section_state = Signal(object)
    run_progress = Signal(int, int)

    def __init__(self, controller: DraftingHost, parent: QObject | None = None, *,
                 client_provider: ClientProvider | None = None, runs: RunTracker | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self._client_provider: ClientProvider = client_provider or controller.client
        self._runs: RunTracker = runs or controller
        self._engine: DraftingEngine | None = None
        self._restored: DraftingState | None = None  # loaded with a project, before any engine exists
        self._run_keys: set[str] = set()  # the running job's sections, for its n/total progress
        self._run_finished: set[str] = set()
        self.library: LibraryStore | None = None  # the user's 资料库: past sections become reference material

    # ------------------------------------------------------------------ engine
    def engine(self) -> DraftingEngine:
        """The project's drafting engine (created with the current model client)."""
        from app.pipeline.drafting.engine import DraftingEngine

        client = self._client_provider()
        if self._engine is None or self._engine.client is not client:
            state = self._engine.state if self._engine is not None else self._restored
            self._engine = DraftingEngine(client=client, on_state=self._on_state, on_delta=self._on_delta)
            if state is not None:
                self._engine.state = state
        return self._engine

    @property
    def state(self) -> DraftingState | None:
        """Drafting progress of the sections (None before the first run or restore)."""
        return self._engine.state if self._engine is not None else self._restored

    @property
    def model_name(self) -> str:
        """The model name of the engine's client ("" before the first run)."""
        return self._engine.client.config.model if self._engine is not None else ""

    def draft_of(self, key: str) -> SectionDraft | None:
        """The drafting record of one section, if any."""
        state = self.state
        return state.sections.get(key) if state is not None else None

    def _on_delta(self, key: str, piece: str) -> None:
        self.section_delta.emit(key, piece)

    def _start_progress(self, keys: list[str]) -> None:
        self._run_keys, self._run_finished = set(keys), set()
        self.run_progress.emit(0, len(self._run_keys))

    def _on_state(self, draft: SectionDraft) -> None:
        self.section_state.emit(draft)
        if draft.key in self._run_keys and draft.status in ("done", "failed") and draft.key not in self._run_finished:
            self._run_finished.add(draft.key)
            self.run_progress.emit(len(self._run_finished), len(self._run_keys))
        if draft.status == "done" and draft.text:
            self.apply_text(draft.key, draft.text, f"撰写 {draft.key}")
        elif draft.status == "failed":
            log.warning("section %s failed: %s", draft.key, draft.error, extra={"stage": "chapter"})

    def length_targets(self) -> dict[tuple[int, ...], int] | None:
        """Each leaf's share of the project's length budget in characters (None: no budget set)."""
        from app.core.length_budget import outline_targets

        c = self.controller
        budget = c.length_budget
        return outline_targets(budget, c.outline.chapters, c.analysis) if budget is not None else None

    # ------------------------------------------------------------------ work
    async def draft(self, keys: list[str] | None = None, guidance: str = "") -> DraftingState:
        """Draft the given leaves (all leaves when None); finished text becomes undoable edits."""
        from app.pipeline.drafting.context import path_for_key, section_requests

        c = self.controller
        if c.busy_generating:
            raise DraftingBlocked()
        paths = None
        if keys is not None:
            paths = [p for p in (path_for_key(c.outline, k) for k in keys) if p is not None]
        requests = section_requests(c.outline, c.analysis, c.breakdown, paths=paths, guidance=guidance,
                                    library=self.library, targets=self.length_targets())
        engine = self.engine()
        await self._runs.prepare_client(engine.client)
        self._runs.begin_run(f"正在撰写正文（{len(requests)} 节）……", kind="draft",
                             mode="all" if keys is None else "selected")
        log.info("drafting %d sections", len(requests), extra={"stage": "chapter"})
        self._start_progress([r.key for r in requests])
        done, message = 0, "正文撰写已停止"
        try:
            state = await engine.run(requests, skip_done=keys is None)
            done = sum(1 for r in requests if (d := state.sections.get(r.key)) is not None and d.status == "done")
            message = f"正文撰写结束：完成 {done}/{len(requests)} 节"
            return state
        finally:
            self._run_keys = set()
            self._count_tokens([r.key for r in requests])
            self._runs.end_run(done > 0, message)

    def unfinished(self) -> tuple[list[str], list[str]]:
        """Keys still in the outline whose drafting did not finish: (resumable, failed).

        Resumable sections (waiting, interrupted, cancelled) continue from their partial
        text; failed ones are drafted again from scratch. Finished sections are not listed.
        """
        from app.pipeline.drafting.context import path_for_key

        state = self.state
        if state is None:
            return [], []
        outline = self.controller.outline
        present = [k for k in state.sections if path_for_key(outline, k) is not None]
        resumable = [k for k in present if state.sections[k].resumable]
        failed = [k for k in present if state.sections[k].status == "failed"]
        return resumable, failed

    async def resume(self) -> DraftingState | None:
        """Continue unfinished sections (after a restart too); finished text is never touched."""
        from app.pipeline.drafting.context import path_for_key, section_requests

        c = self.controller
        if c.busy_generating:
            raise DraftingBlocked()
        resumable, failed = self.unfinished()
        if not resumable and not failed:
            c.stage_changed.emit("没有未完成的正文")
            return self.state
        keys = set(resumable) | set(failed)
        paths = [p for p in (path_for_key(c.outline, k) for k in keys) if p is not None]
        requests = section_requests(c.outline, c.analysis, c.breakdown, paths=paths, library=self.library,
                                    targets=self.length_targets())
        engine = self.engine()
        await self._runs.prepare_client(engine.client)
        self._runs.begin_run(f"正在继续撰写未完成的正文（{len(requests)} 节）……", kind="draft", mode="resume")
        log.info("resuming %d sections (%d failed before)", len(requests), len(failed), extra={"stage": "chapter"})
        self._start_progress([r.key for r in requests])
        done, message = 0, "正文撰写已停止"
        try:
            again = [r for r in requests if r.key in failed]
            await asyncio.gather(engine.resume([r for r in requests if r.key in resumable]),
                                 engine.run(again, skip_done=True))
            state = engine.state
            done = sum(1 for r in requests if (d := state.sections.get(r.key)) is not None and d.status == "done")
            message = f"继续撰写结束：完成 {done}/{len(requests)} 节"
            return state
        finally:
            self._run_keys = set()
            self._count_tokens([r.key for r in requests])
            self._runs.end_run(done > 0, message)

    def _count_tokens(self, keys: list[str]) -> None:
        """Report the run's tokens (summed over its sections) to the controller's run record."""
        state = self.state
        if state is None:
            return
        drafts = [d for k in keys if (d := state.sections.get(k)) is not None]
        self._runs.record_tokens(sum(d.prompt_tokens for d in drafts), sum(d.completion_tokens for d in drafts))

    def cancel(self, key: str | None = None) -> None:
        """Stop one section, or every section when ``key`` is None (partial text is kept)."""
        if self._engine is None:
            return
        if key is None:
            self._engine.cancel_all()
        else:
            self._engine.cancel(key)

    async def rewrite(self, key: str, mode: str, guidance: str = "") -> RewriteResult:
        """扩写/精简/更具体/结合评分点 for one section; the new text is one undoable edit."""
        from app.pipeline.drafting.context import path_for_key, section_requests

        c = self.controller
        path = path_for_key(c.outline, key)
        if path is None:
            raise SectionGone()
        request = section_requests(c.outline, c.analysis, c.breakdown, paths=[path])[0]
        engine = self.engine()
        text = c.outline.node(path).content
        result = await engine.rewrite(request, text, mode, guidance,  # type: ignore[arg-type]
                                      on_delta=lambda piece: self.section_delta.emit(key, piece))
        if result.ok:
            self.apply_text(key, result.text, f"{result.label} {key}")
        else:
            c.stage_changed.emit(result.error or "改写失败")
        return result

    def apply_text(self, key: str, text: str, label: str) -> bool:
        """Put ``text`` into the section's content as one undoable command."""
        from app.pipeline.drafting.context import path_for_key

        c = self.controller
        path = path_for_key(c.outline, key)
        if path is None or c.outline.node(path).content == text:
            return False
        c.undo_stack.push(EditFieldCommand(c.outline, path, "content", text, label))
        return True

    def forget(self) -> None:
        """Drop the engine and its state (a new tender or project was opened)."""
        self.cancel()
        self._engine = None
        self._restored = None

    # ------------------------------------------------------------------ saved state
    def section_states(self, base: dict[str, SectionState] | None = None) -> dict[str, SectionState]:
        """The project file's ``sections``: ``base`` (what was loaded) updated with this
        session's drafting, for sections still in the outline. Unfinished sections keep
        their partial text so a reopened project continues where it stopped."""
        from app.pipeline.drafting.context import path_for_key

        out = {k: v.model_copy() for k, v in (base or {}).items()}
        state = self.state
        if state is not None:
            model = self.model_name
            for key, draft in state.sections.items():
                record = draft.to_section_state(model or (out[key].model if key in out else ""))
                if draft.resumable:
                    record.partial_text = draft.text
                if record.error == INTERRUPTED_NOTE:  # a display note, not a failure reason
                    record.error = ""
                out[key] = record
        outline = self.controller.outline
        return {k: v for k, v in out.items() if path_for_key(outline, k) is not None}

    def restore(self, project: Project) -> None:
        """Take the drafting state saved in ``project`` (drops any previous engine and state)."""
        from app.core.drafting_state import DraftingState
        from app.pipeline.drafting.context import path_for_key

        self.forget()
        outline = self.controller.outline
        texts: dict[str, str] = {}
        for key, st in project.sections.items():
            path = path_for_key(outline, key)
            if st.status in ("queued", "drafting"):
                texts[key] = st.partial_text
            elif path is not None:
                texts[key] = outline.node(path).content
        state = DraftingState.from_section_states(project.sections, texts)
        for draft in state.sections.values():
            if draft.status in ("waiting", "writing"):  # nothing runs after a restart: editable, resumable
                draft.status = "cancelled"
                draft.error = INTERRUPTED_NOTE
        self._restored = state if state.sections else None


class DraftingBlocked(Exception):
    """Drafting was asked for while an outline generation owns the tree."""

    message_zh = "正在生成目录，请等生成结束（或取消）后再撰写正文。"


class SectionGone(Exception):
    """The section to rewrite is no longer in the outline."""

    message_zh = "该章节已不在目录中（可能已被删除或移动），请重新选择。"


def content_of(controller: DraftingHost, key: str) -> tuple[str, str] | None:
    """(title, content) of the section ``key``, or None."""
    from app.pipeline.drafting.context import path_for_key

    path = path_for_key(controller.outline, key)
    if path is None:
        return None
    node = controller.outline.node(path)
    return node.title, node.content

