"""The qasync controller: opens tenders, runs analysis and outline generation (rule 5).

Plain ``async def`` methods do the work and are what tests await. The ``@asyncSlot``
methods are one-line wrappers for buttons and menus. Every long job runs as a named task
kept in ``self.tasks``; starting a job cancels the task of the same name first. Pipeline
progress arrives through a plain callable (rule 6) and leaves here as Qt signals. Blocking
work (reading a PDF) runs on the controller's own thread pool, never on the GUI thread.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoStack
from qasync import asyncSlot

from app.core.analysis import Analysis
from app.core.breakdown import Breakdown
from app.core.kept_texts import (
    KeptFigures,
    KeptText,
    drafted_texts,
    restore_figures,
    restore_texts,
    section_figures,
)
from app.core.limits import OutlineLimits
from app.core.outline import Outline
from app.core.outline import Path as OutlinePath
from app.core.pipeline_events import PipelineEvent, ProgressCallback, stage_label
from app.core.project import RunRecord, utc_now
from app.core.session import ProjectSession
from app.core.settings_model import HOW_TO_GET_A_MODEL
from app.pipeline.outline.deferred_draft import DeferredDraft
from app.pipeline.outline.runner import (
    Mode,
    OutlineOutcome,
    OutlineRequest,
    OutlineRunner,
    not_openai_message,
    run_outline,
)
from app.pipeline.outline.user_outline import has_locks
from app.ui.outline.commands import LockChange, OpRecorder, RecordedRunCommand, undo_ops
from app.ui.outline.model import OutlineItemModel
from app.ui.run.drafting_bridge import DraftingBridge

if TYPE_CHECKING:
    from app.core.length_budget import LengthBudget
    from app.documents.model import TenderDocument
    from app.library.store import LibraryStore
    from app.llm.client.llm_client import LLMClient
    from app.ui.shell.errors import ErrorReporter

log = logging.getLogger("bidstudio.run")

GENERATION = "generation"
ANALYSIS = "analysis"
BREAKDOWN = "breakdown"
DRAFTING = "drafting"
MODEL_JOBS = (GENERATION, ANALYSIS, BREAKDOWN, DRAFTING, "rewrite")
OPEN = "open"
#: How long Cancel waits for a task to unwind (the contract: the stream stops within 0.5 s).
CANCEL_WAIT_S = 0.5


class NoModelConfigured(Exception):
    """Generation was asked for but no model endpoint is configured (nor a built-in model installed)."""

    message_zh = HOW_TO_GET_A_MODEL


class BreakdownConfigError(Exception):
    """The breakdown stopped because the endpoint settings are wrong."""

    def __init__(self, message_zh: str) -> None:
        super().__init__(message_zh)
        self.message_zh = message_zh


class NoTender(Exception):
    """Analysis was asked for without an open tender."""

    message_zh = "请先打开招标文件（文件 → 打开招标文件）。"


ClientFactory = Callable[[], "LLMClient | None"]


class AppController(QObject):
    """Owns the outline, the undo stack, the open tender, the analysis and the running tasks.

    Signals:
        stage_changed(str): a Chinese description of what is happening now.
        progress_changed(int): 0–100, or -1 for "busy, unknown share".
        tokens_changed(int, int): prompt and completion tokens of the current run.
        running_changed(bool): a model job started (True) or ended (False).
        run_finished(bool, str): a job ended: success and a Chinese message.
        model_missing(): a job needed a model and none can be called (the settings should open).
        document_loaded(object): a ``TenderDocument`` was read.
        analysis_changed(object): the ``Analysis`` changed.
        breakdown_changed(object): the requirement ``Breakdown`` changed (or None).
        call_progress(object): live figures of the running model call (``CallProgress``).
    """

    stage_changed = Signal(str)
    progress_changed = Signal(int)
    tokens_changed = Signal(int, int)
    running_changed = Signal(bool)
    run_finished = Signal(bool, str)
    model_missing = Signal()
    document_loaded = Signal(object)
    analysis_changed = Signal(object)
    breakdown_changed = Signal(object)
    call_progress = Signal(object)

    def __init__(self, outline: Outline | None = None, *, client_factory: ClientFactory | None = None,
                 reporter: ErrorReporter | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        #: The bid being worked on: tender, analysis, outline, runs, path, unsaved state (rule 11).
        self.session = ProjectSession(outline)
        self.undo_stack = QUndoStack(self)
        #: The outline's bounds: the same object feeds generation, the rules and the item model.
        self.limits = OutlineLimits()
        self.model = OutlineItemModel(self.outline, self, limits=self.limits)
        self.model.set_undo_stack(self.undo_stack)
        self.client_factory: ClientFactory = client_factory or (lambda: None)
        #: The outline run (the pipeline's; the same in the app, the tests and the benchmarks).
        self.runner: OutlineRunner = run_outline
        self.reporter = reporter
        self.tasks: dict[str, asyncio.Task[Any]] = {}
        #: The open password of the tender PDF, when it needed one (kept for this session only, never saved).
        self.tender_password: str | None = None
        self.mode: Mode = "free"
        self.last_outcome: OutlineOutcome | None = None
        self._unfinished: tuple[Mode, RecordedRunCommand] | None = None  # the last run, when it did not finish
        self._executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="bidstudio-io")
        self._prompt_tokens = 0
        self._completion_tokens = 0
        self._cached_client: LLMClient | None = None
        self._warmed = False
        self._current_run: RunRecord | None = None
        self.drafting = DraftingBridge(self, self, client_provider=self.client, runs=self)
        self.session.section_states = self.drafting.section_states

    # ------------------------------------------------------------------ the session's content
    @property
    def outline(self) -> Outline:
        """The session's outline tree (one object for the controller's life)."""
        return self.session.outline

    @property
    def document(self) -> TenderDocument | None:
        """The tender as read, or None."""
        doc: TenderDocument | None = self.session.document
        return doc

    @property
    def tender_path(self) -> Path | None:
        """The open tender's file."""
        return self.session.tender_path

    @property
    def analysis(self) -> Analysis:
        """The session's analysis (overview and scoring groups)."""
        return self.session.analysis

    @analysis.setter
    def analysis(self, analysis: Analysis) -> None:
        self.session.analysis = analysis

    @property
    def length_budget(self) -> LengthBudget | None:
        """The project's length budget (None: not set)."""
        return self.session.length_budget

    @property
    def breakdown(self) -> Breakdown | None:
        """The session's requirement breakdown, if any."""
        return self.session.breakdown

    @breakdown.setter
    def breakdown(self, breakdown: Breakdown | None) -> None:
        self.session.breakdown = breakdown

    @property
    def runs(self) -> list[RunRecord]:
        """The project's run history (loaded with a project, extended by every model run)."""
        return self.session.runs

    # ------------------------------------------------------------------ tasks
    def spawn(self, name: str, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Start ``coro`` as the task called ``name``, cancelling an older one of that name."""
        old = self.tasks.get(name)
        if old is not None and not old.done():
            old.cancel()
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self.tasks[name] = task
        if self.reporter is not None:
            self.reporter.watch_task(task)
        task.add_done_callback(lambda t: self.tasks.pop(name, None) if self.tasks.get(name) is t else None)
        return task

    async def run_task(self, name: str, coro: Coroutine[Any, Any, Any]) -> None:
        """Spawn and wait for a named task; its errors go to the reporter, not to the caller."""
        task = self.spawn(name, coro)
        await asyncio.wait([task])

    @property
    def busy(self) -> bool:
        """Whether a model job (analysis or generation) is running."""
        return any(not t.done() for n, t in self.tasks.items() if n in MODEL_JOBS)

    @property
    def busy_generating(self) -> bool:
        """Whether an outline generation (which owns the tree) is running."""
        task = self.tasks.get(GENERATION)
        return task is not None and not task.done()

    async def cancel(self) -> bool:
        """Cancel running jobs and wait (at most ``CANCEL_WAIT_S``) until they unwound."""
        self.drafting.cancel()
        running = [t for n, t in self.tasks.items() if not t.done() and n in MODEL_JOBS]
        for t in running:
            t.cancel()
        if not running:
            return True
        _done, pending = await asyncio.wait(running, timeout=CANCEL_WAIT_S)
        return not pending

    async def shutdown(self) -> None:
        """Cancel every task and stop the worker threads (window closing, tests)."""
        tasks = [t for t in self.tasks.values() if not t.done()]
        for t in tasks:
            t.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=2.0)
        if self._cached_client is not None:
            await _close(self._cached_client)
            self._cached_client = None
        self._executor.shutdown(wait=True, cancel_futures=True)
        self.model.detach()

    # ------------------------------------------------------------------ slots (one-line wrappers)
    @asyncSlot(str)  # type: ignore[untyped-decorator]
    async def open_tender_slot(self, path: str) -> None:
        """Slot: open a tender file."""
        await self.run_task(OPEN, self.open_tender(Path(path)))

    @asyncSlot()  # type: ignore[untyped-decorator]
    async def reread_with_ocr_slot(self) -> None:
        """Slot: re-read the open tender with the pages OCR has read."""
        await self.run_task(OPEN, self.reread_with_ocr())

    @asyncSlot()  # type: ignore[untyped-decorator]
    async def analyze_slot(self) -> None:
        """Slot: analyse the open tender."""
        await self.run_task(ANALYSIS, self.analyze())

    @asyncSlot()  # type: ignore[untyped-decorator]
    async def breakdown_slot(self) -> None:
        """Slot: break the requirements down (需求拆解)."""
        await self.run_task(BREAKDOWN, self.run_breakdown())

    @asyncSlot(str, str)  # type: ignore[untyped-decorator]
    async def generate_slot(self, mode: str, guidance: str) -> None:
        """Slot: generate the outline in ``mode`` ("free" or "aligned") with optional guidance."""
        await self.run_task(GENERATION, self.generate_outline(mode, guidance))  # type: ignore[arg-type]

    @asyncSlot()  # type: ignore[untyped-decorator]
    async def cancel_slot(self) -> None:
        """Slot: the Cancel button."""
        await self.cancel()

    # ------------------------------------------------------------------ progress -> signals
    def on_progress(self, event: PipelineEvent) -> None:
        """The pipeline's plain progress callable: log it and turn it into signals."""
        stage = stage_label(event.stage)
        if event.chapter and event.chapters:
            stage += f"（第 {event.chapter}/{event.chapters} 章）"
        text = f"{stage}：{event.message}" if event.message and event.message != stage else stage
        self.stage_changed.emit(text)
        fraction = event.fraction
        self.progress_changed.emit(-1 if fraction is None else round(fraction * 100))
        if event.tokens:
            self._prompt_tokens, self._completion_tokens = event.prompt_tokens, event.completion_tokens
            self.tokens_changed.emit(event.prompt_tokens, event.completion_tokens)
        level = logging.WARNING if event.stage == "failed" else logging.INFO
        log.log(level, "%s", event.message or stage, extra={"stage": event.stage, "tokens": event.tokens or None})

    # ------------------------------------------------------------------ jobs
    async def open_tender(self, path: Path, password: str | None = None) -> TenderDocument:
        """Read the tender on a worker thread; DocumentError carries the Chinese message.

        ``password`` opens a PDF with an open password (``PasswordRequiredError`` without it).
        """
        self.stage_changed.emit(f"正在读取 {path.name}……")
        log.info("opening %s", path, extra={"stage": "open"})
        started = time.perf_counter()
        loop = asyncio.get_running_loop()
        try:
            doc = await loop.run_in_executor(self._executor, _load_with_cached_ocr, path, password)
        except Exception:
            self.stage_changed.emit("就绪")
            raise
        self.session.set_tender(path, doc)
        self.tender_password = password
        self.set_breakdown(None)
        self.drafting.forget()
        try:
            analysis = await loop.run_in_executor(self._executor, table_analysis, doc)
        except Exception as exc:  # the table parser is a convenience; never block opening on it
            log.warning("scoring table not parsed: %r", exc, extra={"stage": "open"})
            analysis = Analysis()
        self.set_analysis(analysis)
        log.info("read %s: %d pages in %.2f s", path.name, doc.page_count, time.perf_counter() - started,
                 extra={"stage": "open"})
        self.stage_changed.emit(f"已打开 {path.name}（{doc.page_count} 页）")
        self.document_loaded.emit(doc)
        return doc

    async def reread_with_ocr(self) -> TenderDocument | None:
        """Re-read the open tender taking OCR'd pages from the cache; the outline, breakdown and
        drafts stay, and the analysis is redone only when code alone had made it."""
        path, old = self.tender_path, self.document
        if path is None or old is None:
            return None
        loop = asyncio.get_running_loop()
        doc = await loop.run_in_executor(self._executor, _load_with_cached_ocr, path, self.tender_password)
        self.session.set_tender(path, doc)
        if self.analysis.source in ("none", "table"):
            try:
                self.set_analysis(await loop.run_in_executor(self._executor, table_analysis, doc))
            except Exception as exc:  # the table parser is a convenience, as when opening
                log.warning("scoring table not parsed after OCR: %r", exc, extra={"stage": "open"})
        ocr_pages = sum(1 for p in doc.pages if p.source == "ocr")
        self.stage_changed.emit(f"已读入文字识别结果（{ocr_pages} 页）")
        self.document_loaded.emit(doc)
        return doc

    def _client(self) -> LLMClient:
        """The model client, built once and reused (connections and TLS set-up are costly)."""
        if self._cached_client is None:
            client = self.client_factory()
            if client is None:
                self.model_missing.emit()
                raise NoModelConfigured()
            transport = getattr(client, "transport", None)
            if transport is not None:
                transport.observer = self.call_progress.emit
            self._cached_client = client
        return self._cached_client

    def client(self) -> LLMClient:
        """The model client (the drafting bridge's client provider)."""
        return self._client()

    async def prepare_client(self, client: LLMClient) -> None:
        """Warm ``client`` before the first call (part of the drafting bridge's run tracker)."""
        await self._prepare(client)

    def begin_run(self, text: str, kind: str = "", mode: str = "") -> None:
        """A job starts: status, busy state and a run record (run tracker)."""
        self._begin(text, kind, mode)

    def end_run(self, ok: bool, message: str) -> None:
        """The job ended (run tracker)."""
        self._end(ok, message)

    def record_tokens(self, prompt: int, completion: int) -> None:
        """The running job's token totals (run tracker)."""
        self._prompt_tokens, self._completion_tokens = prompt, completion
        self.tokens_changed.emit(prompt, completion)

    def reset_client(self) -> None:
        """Forget the client (the settings changed); it is closed in the background."""
        old, self._cached_client = self._cached_client, None
        if old is not None:
            try:
                asyncio.get_running_loop().create_task(_close(old), name="close-client")
            except RuntimeError:  # no loop running (tests building a controller synchronously)
                pass

    async def _prepare(self, client: LLMClient) -> None:
        """Warm the HTTP client on a worker thread before the first call.

        Building it loads the TLS certificates and the first request imports the chat and
        streaming modules; together several hundred milliseconds that would otherwise
        freeze the window when a run starts.
        """
        build = getattr(client, "api", None)
        if build is None:
            return

        def warm() -> None:
            api = build()
            _ = api.chat.completions  # resources are created (and imported) lazily
            import openai.lib.streaming.chat  # noqa: F401

            import app.llm.instructions.stream
            import app.pipeline.analysis.tender
            import app.pipeline.outline.run  # noqa: F401

        if self._warmed:
            return
        try:
            await asyncio.get_running_loop().run_in_executor(self._executor, warm)
        except Exception:  # configuration errors surface again, with their message, on the real call
            return
        self._warmed = True
        # The modules just loaded live as long as the process: keep them out of later full
        # collections (as the start-up objects are), or each one rescans them on the GUI thread.
        gc.freeze()

    def _begin(self, text: str, kind: str = "", mode: str = "") -> None:
        self._prompt_tokens = self._completion_tokens = 0
        if kind:
            self._record_run_start(kind, mode)
        self.tokens_changed.emit(0, 0)
        self.stage_changed.emit(text)
        self.progress_changed.emit(-1)
        self.running_changed.emit(True)

    def _end(self, ok: bool, message: str) -> None:
        self._record_run_end(ok, message)
        self.progress_changed.emit(100 if ok else 0)
        self.stage_changed.emit(message)
        self.running_changed.emit(False)
        self.run_finished.emit(ok, message)

    def _record_run_start(self, kind: str, mode: str) -> None:
        """Open a run-history record for the job that starts now (saved with the project)."""
        client = self._cached_client
        model = client.config.model if client is not None else ""
        self._current_run = RunRecord(kind=kind, mode=mode, model=model)

    def _record_run_end(self, ok: bool, message: str) -> None:
        """Close the open run record: status (cancelled when the task is being cancelled), tokens."""
        run, self._current_run = self._current_run, None
        if run is None:
            return
        task = asyncio.current_task()
        cancelled = task is not None and task.cancelling() > 0
        run.status = "ok" if ok else ("cancelled" if cancelled else "failed")
        run.finished_at = utc_now()
        run.message = message
        run.prompt_tokens, run.completion_tokens = self._prompt_tokens, self._completion_tokens
        self.session.record_run(run)

    async def analyze(self) -> Analysis:
        """Overview + scoring groups of the open tender (the pipeline's analysis when available)."""
        if self.document is None:
            raise NoTender()
        client = self._client()
        await self._prepare(client)
        self._begin("正在分析招标文件……", kind="analysis")
        ok, message = False, "分析已取消"
        try:
            lot = self.analysis.lot_name
            analysis = await _run_analysis(client, self.document, self.on_progress, lot)
            self.set_analysis(analysis)
            ok = True
            message = f"分析完成：找到 {len(analysis.technical_groups)} 个技术评分项"
            return analysis
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            message = getattr(exc, "message_zh", None) or "分析失败"
            raise
        finally:
            self._end(ok, message)

    async def run_breakdown(self) -> Breakdown:
        """The requirement breakdown (需求拆解) of the open tender, through the pipeline."""
        from app.pipeline.analysis.breakdown import run_document_breakdown

        if self.document is None:
            raise NoTender()
        client = self._client()
        await self._prepare(client)
        self._begin("正在拆解采购需求……", kind="breakdown")
        ok, message = False, "需求拆解已取消"

        def progress(text: str, fraction: float) -> None:
            self.stage_changed.emit(f"需求拆解：{text}")
            self.progress_changed.emit(round(max(0.0, min(1.0, fraction)) * 100))
            log.info("%s", text, extra={"stage": "analysis"})

        try:
            outcome = await run_document_breakdown(client, self.document, progress=progress)
            if outcome.config_error:
                raise BreakdownConfigError(outcome.config_error)
            self._prompt_tokens, self._completion_tokens = outcome.prompt_tokens, outcome.completion_tokens
            self.tokens_changed.emit(outcome.prompt_tokens, outcome.completion_tokens)
            self.set_breakdown(outcome.breakdown)
            b = outcome.breakdown
            ok = True
            message = f"需求拆解完成：目标 {len(b.goals)} 项，任务 {len(b.tasks)} 项，风险 {len(b.risks)} 项"
            return b
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            message = getattr(exc, "message_zh", None) or "需求拆解失败"
            raise
        finally:
            self._end(ok, message)

    def set_breakdown(self, breakdown: Breakdown | None) -> None:
        """Replace the breakdown (after a run, a user edit or loading a project)."""
        self.breakdown = breakdown
        self.breakdown_changed.emit(breakdown)

    def set_analysis(self, analysis: Analysis) -> None:
        """Replace the analysis (after a run or a user edit in the analysis view)."""
        self.analysis = analysis
        self.analysis_changed.emit(analysis)

    async def _stop_drafting(self) -> None:
        for name in (DRAFTING, "rewrite"):  # drafting writes into the tree: stop it first
            task = self.tasks.get(name)
            if task is not None and not task.done():
                self.drafting.cancel()
                task.cancel()
                await asyncio.wait([task], timeout=2.0)

    def past_bids(self) -> LibraryStore | None:
        """The user's library (资料库, opened by the library docks) when it holds past bids, else None:
        its sections about each chapter's scoring item become outline candidates (历史标书)."""
        from app.library.store import LibraryError

        library = self.drafting.library
        try:
            return library if library is not None and library.counts()[0] > 0 else None
        except LibraryError:  # an office library whose server just went away: the outline is made without it
            return None

    async def generate_outline(self, mode: Mode = "free", guidance: str = "", *,
                               keep_texts: bool = False) -> OutlineOutcome:
        """Generate the outline into the tree, live; the whole run becomes one undo step.

        A running generation is cancelled first. The tree is read-only during the run;
        on cancellation everything applied so far stays (consistent: every edit is a whole
        tree operation) and can be taken back with one Ctrl+Z. ``keep_texts``: drafted
        sections whose headings survive get their text back (in the same undo step).
        """
        current = asyncio.current_task()
        await self._stop_drafting()
        old = self.tasks.get(GENERATION)
        if old is not None and old is not current and not old.done():
            old.cancel()
            await asyncio.wait([old], timeout=2.0)
        try:
            client = self._client()
        except NoModelConfigured as exc:  # the settings open (model_missing); the status bar says how
            self.run_finished.emit(False, exc.message_zh)
            return OutlineOutcome(False, exc.message_zh)
        await self._prepare(client)
        self.mode = mode
        was_locked = self.model.locked_top_level
        self.model.set_locked_top_level(False)
        resume = self.can_resume(mode)
        request = OutlineRequest(mode=mode, guidance=guidance, analysis=self.analysis, resume=resume, limits=self.limits,
                                 requirements=self.breakdown.to_prompt_text() if self.breakdown else "",
                                 library=self.past_bids())
        runner = self.runner
        kept = drafted_texts(self.outline) if keep_texts and not resume else []
        figures = section_figures(self.outline) if keep_texts and not resume else []
        # Over an existing outline the run writes into a scratch tree; the user's outline stays on
        # show until the new one has headings below its chapters (a failure before that changes nothing).
        # A locked (imported) outline is the run's base and stays in place: the run fills it in.
        deferred = (DeferredDraft(self.outline) if len(self.outline) and not resume
                    and not has_locks(self.outline.chapters) else None)
        recorder = OpRecorder(self.outline)
        self._begin("正在继续生成未完成的章节……" if resume else "正在生成目录……", kind="outline", mode=mode)
        self.model.set_read_only(True)
        self._unfinished = None
        recorder.start()
        outcome = OutlineOutcome(False, "目录生成已取消")
        try:
            if deferred is None:
                outcome = await runner(client, self.outline, request, self.on_progress)
            else:
                def streaming(call: object) -> None:
                    if getattr(call, "tokens", 0) > 0:
                        deferred.model_output()

                self.call_progress.connect(streaming)
                try:
                    outcome = await runner(client, deferred.scratch, request,
                                           _both(deferred.progress, self.on_progress))
                finally:
                    self.call_progress.disconnect(streaming)
            self.last_outcome = outcome
            return outcome
        except asyncio.CancelledError:
            log.warning("outline generation cancelled", extra={"stage": "outline"})
            raise
        except Exception as exc:
            outcome = OutlineOutcome(False, getattr(exc, "message_zh", None) or "目录生成失败")
            raise
        finally:
            if deferred is not None and not deferred.finish(outcome.ok):
                outcome.message += "；原有目录未改变"
                kept = []
            elif deferred is None and outcome.code_only and self.outline.chapters:
                outcome.message += "；当前显示的目录仅由程序依据招标文件和标题库生成（不是模型的结果），仅供参考"
            elif deferred is not None and not outcome.ok and _cancelling():
                outcome.message += "；原有目录可用“撤销”（Ctrl+Z）找回"
            if kept:
                outcome.message += self._restore_texts(kept)
            if figures and self.outline.chapters:
                outcome.message += self._restore_figures(figures)
            self.outline.renumber()
            recorder.stop()
            if deferred is not None and not deferred.switched:
                recorder.ops.clear()  # the user's outline was never touched (renumbering it is no AI step)
            if recorder.ops and not outcome.ok and not self.outline.chapters:
                undo_ops(self.outline, recorder.ops)  # nothing came of the run: the user's outline comes back
                recorder.ops.clear()
            # One-to-one chapters are locked; the lock is part of the run's undo step (Ctrl+Z brings the
            # chapters back locked as they were). A run that changed nothing leaves the lock as it was.
            locked = mode == "aligned" and self.analysis.has_technical_scoring
            self.model.set_locked_top_level(locked if recorder.ops else was_locked)
            if recorder.ops:
                label = ("AI 生成目录" if outcome.ok else "程序生成目录（模型未参与）" if outcome.code_only
                         else "AI 生成目录（未完成）")
                command = RecordedRunCommand(self.outline, recorder, label,
                                             locks=LockChange(self.model, was_locked, locked))
                self.undo_stack.push(command)
                if not outcome.ok and not outcome.code_only:  # a code-made outline is not a run to continue
                    self._unfinished = (mode, command)
            self.model.set_read_only(False)
            if deferred is not None and deferred.switched and not outcome.ok and not _cancelling():
                self.undo_stack.undo()  # a failed run over the user's outline: theirs comes back, the part is a redo
                outcome.message += "；已恢复原有目录（未完成的新目录可用“重做”查看）"
            self._end(outcome.ok, outcome.message)

    def _restore_figures(self, kept: list[KeptFigures], under: OutlinePath = ()) -> str:
        """Put figures back on surviving headings; a note for the run's message."""
        restored, left = restore_figures(self.outline, kept, under)
        note = f"；已保留 {restored} 张图" if restored else ""
        if left:
            lost = sum(len(k.figures) for k in left)
            note += f"；{lost} 张图所在的标题已不在目录中（撤销可找回）"
        return note

    def _restore_texts(self, kept: list[KeptText], under: OutlinePath = ()) -> str:
        """Put drafted texts back on surviving headings; a note for the run's message."""
        restored, left = restore_texts(self.outline, kept, under)
        if not kept:
            return ""
        note = f"；已保留 {restored} 节正文"
        if left:
            note += f"，{len(left)} 节的标题已不在目录中（撤销可找回）"
        return note

    async def regenerate_subtree(self, path: OutlinePath, guidance: str = "", *,
                                 keep_texts: bool = True) -> OutlineOutcome:
        """Rewrite the headings under one chapter or section with the user's guidance; one undo step.

        Run it as the ``generation`` task (it owns the tree like a whole-outline run).

        Everything outside the subtree stays as it is. When the model fails or the user
        cancels, the old subtree is put back; ``keep_texts`` gives drafted sections whose
        headings survive their text back.
        """
        from app.core.limits import OutlineLimits
        from app.pipeline.outline.budget import CHAPTER_BUDGET
        from app.pipeline.outline.job import OutlineSettings
        from app.pipeline.outline.run import regenerate_node

        await self._stop_drafting()
        client = self._client()
        await self._prepare(client)
        title = self.outline.node(path).title
        aligned = any(c.source_requirement_id for c in self.outline.chapters) and self.analysis.has_technical_scoring
        settings = OutlineSettings(mode="aligned" if aligned else "free", limits=OutlineLimits(), budget=CHAPTER_BUDGET,
                                   requirements=self.breakdown.to_prompt_text() if self.breakdown else "",
                                   library=self.past_bids())
        kept = drafted_texts(self.outline, under=path) if keep_texts else []
        figures = section_figures(self.outline, under=path) if keep_texts else []
        recorder = OpRecorder(self.outline)
        self._begin(f"正在重新生成“{title}”……", kind="outline", mode="regenerate")
        self.model.set_read_only(True)
        recorder.start()
        outcome = OutlineOutcome(False, f"已取消重新生成“{title}”，原有内容不变")
        try:
            chapters = [c.model_copy(deep=True) for c in self.outline.chapters]
            result = await regenerate_node(client, self.analysis, chapters, path, guidance, settings,
                                           progress=self.on_progress, draft=self.outline)
            health = getattr(getattr(client, "transport", None), "health", None)
            if health is not None and health.never_answered:  # a web page every time: not the model's headings
                outcome = OutlineOutcome(False, not_openai_message(health.not_openai, health.not_openai_detail)
                                         + f"；“{title}”原有内容未改变", code_only=True)
            elif result.failure is not None:
                outcome = OutlineOutcome(False, result.failure.message_zh)
            else:
                # The model could not rewrite the chapter (refused answers, the time or call limit): code filled it
                # from the tender and the heading library, marked; the message says so (its first warning).
                done = result.warnings[0] if result.code_filled and result.warnings else f"已重新生成“{title}”"
                outcome = OutlineOutcome(True, done, prompt_tokens=result.meter.prompt_tokens,
                                         completion_tokens=result.meter.completion_tokens)
            self.last_outcome = outcome
            return outcome
        finally:
            if not outcome.ok:
                undo_ops(self.outline, recorder.ops)  # cancelled or failed: the old subtree comes back
                recorder.ops.clear()
            else:
                if kept:
                    outcome.message += self._restore_texts(kept, path)
                if figures:
                    outcome.message += self._restore_figures(figures, path)
            self.outline.renumber()
            recorder.stop()
            if recorder.ops:
                self.undo_stack.push(RecordedRunCommand(self.outline, recorder, f"重新生成“{title}”"))
            self.model.set_read_only(False)
            self._end(outcome.ok, outcome.message)

    def can_resume(self, mode: Mode) -> bool:
        """Whether generating in ``mode`` continues an interrupted run instead of starting over.

        True while the tree still holds that run (its undo step is applied, nothing loaded since):
        complete chapters are then kept and only the unfinished ones generated.
        """
        if self._unfinished is None or not self.outline.chapters:
            return False
        unfinished_mode, command = self._unfinished
        if unfinished_mode != mode:
            return False
        stack = self.undo_stack
        return any(stack.command(k) is command for k in range(stack.index()))


def _both(first: ProgressCallback, second: ProgressCallback) -> ProgressCallback:
    """One progress callable that tells ``first``, then ``second``."""

    def progress(event: PipelineEvent) -> None:
        first(event)
        second(event)

    return progress


def _cancelling() -> bool:
    """Whether the running task is being cancelled (the user's cancel, not a failure)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


async def _close(client: LLMClient) -> None:
    try:
        await asyncio.wait_for(asyncio.shield(client.aclose()), timeout=1.0)
    except (asyncio.TimeoutError, asyncio.CancelledError, Exception):  # closing must never mask the real outcome
        pass


def _load_with_cached_ocr(path: Path, password: str | None) -> TenderDocument:
    """``load_tender`` taking pages already read by OCR from the cache (never running OCR itself)."""
    from app.documents.loader import load_tender
    from app.documents.ocr.apply import OcrMode, OcrSettings

    return load_tender(path, password, ocr=OcrSettings(mode=OcrMode.CACHED))


def table_analysis(document: TenderDocument) -> Analysis:
    """The analysis code alone can make (scoring table, no model); runs on a worker thread."""
    from app.pipeline.analysis.tender import analyze_tender

    return asyncio.run(analyze_tender(None, document))


async def _run_analysis(client: LLMClient, document: TenderDocument,
                        progress: Callable[[PipelineEvent], None], lot: str = "") -> Analysis:
    """The pipeline's analysis: overview and technical groups, cross-checked with the table (of the lot the
    user chose, when the tender scores its lots apart)."""
    from app.pipeline.analysis.tender import analyze_tender
    from app.pipeline.outline.budget import RunMeter

    return await analyze_tender(client, document, meter=RunMeter(progress=progress), lot=lot or None)
