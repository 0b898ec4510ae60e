"""One bid as one session object (architecture rule 11), without Qt.

:class:`ProjectSession` owns what a saved project holds — the tender (path and read
document), the analysis, the requirement breakdown, the outline tree, the run history,
the generation mode and guidance — plus where it is saved and whether it has unsaved
changes. It does new / open / save / save-as / close. Windows, autosave and recovery do
not keep copies: they listen (:meth:`ProjectSession.subscribe`) and read from it.

"Unsaved" has two sources: the outline's undo history (the UI reports its clean state
through :meth:`set_edits_clean`, rule 4) and changes that are not undo steps (a tender
replaced under an outline, a model run recorded, work restored from a recovery file).
"""

from __future__ import annotations

import logging
import os
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from app.core.analysis import Analysis
from app.core.bid_forms import BidFormsState
from app.core.breakdown import Breakdown
from app.core.length_budget import LengthBudget
from app.core.outline import Outline
from app.core.project import (
    MAX_RUNS,
    Project,
    ProjectSaveError,
    RunRecord,
    SectionState,
    TenderRef,
    load_project,
    outline_chapters,
    save_project,
    with_project_suffix,
)
from app.core.project_lock import acquire as lock_project
from app.core.project_lock import live_holder
from app.core.project_lock import release as unlock_project

log = logging.getLogger(__name__)

#: What changed, as told to listeners:
#: ``reset`` — a different project (new, opened, recovered, closed): re-read everything;
#: ``dirty`` — the unsaved state flipped; ``saved`` — written to :attr:`ProjectSession.path`;
#: ``tender`` — the tender was opened or replaced; ``changed`` — something was recorded
#: that autosave should pick up (a run, a replaced tender).
SessionChange = Literal["reset", "dirty", "saved", "tender", "changed"]
Listener = Callable[[SessionChange], None]
GenerationMode = Literal["free", "one_to_one"]
#: Gives the per-section drafting records to save, starting from those the project was opened with.
SectionStates = Callable[[dict[str, SectionState]], dict[str, SectionState]]

UNTITLED = "未命名项目"


class SessionError(Exception):
    """A session operation that cannot proceed; ``message_zh`` is for the user."""

    def __init__(self, message_zh: str) -> None:
        super().__init__(message_zh)
        self.message_zh = message_zh


class ProjectChangedOnDisk(SessionError):
    """The project file was changed by another program since it was opened or last saved here."""


def file_stamp(path: Path) -> tuple[int, int, int] | None:
    """What identifies one version of a file on disk (modification time, size, inode), or None."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino


class ProjectSession:
    """The one bid being worked on: its content, its file and its unsaved state.

    ``outline`` is a single :class:`Outline` object for the session's whole life (views
    and item models hold it); opening or starting another project replaces its content.
    """

    def __init__(self, outline: Outline | None = None) -> None:
        self.outline = outline if outline is not None else Outline()
        self.path: Path | None = None
        self.disk_stamp: tuple[int, int, int] | None = None  # the file as opened or last saved here
        self.session_id = uuid.uuid4().hex[:12]  # names this session in the project's lock file
        self.read_only = False  # opened while another session held the file: saving needs another name
        self.base = Project()  # the project as opened or last saved: what the UI does not edit rides along
        self.tender_path: Path | None = None
        self.document: Any = None  # the read ``TenderDocument`` (documents is a layer above core)
        self.analysis = Analysis()
        self.breakdown: Breakdown | None = None
        self.generation_mode: GenerationMode | None = None
        self.guidance = ""
        self.runs: list[RunRecord] = []
        #: Set by the drafting engine's owner so saves carry the live drafting state.
        self.section_states: SectionStates | None = None
        self._edits_clean = True
        self._changed = False
        self._listeners: list[Listener] = []

    # ------------------------------------------------------------------ listening
    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(change)`` after every change; returns a function that unsubscribes."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def _emit(self, change: SessionChange) -> None:
        for listener in list(self._listeners):
            listener(change)

    # ------------------------------------------------------------------ state
    @property
    def is_dirty(self) -> bool:
        """Whether there is work not yet in the project file."""
        return not self._edits_clean or self._changed

    @property
    def has_work(self) -> bool:
        """Whether this session holds something a new tender must not silently mix with."""
        return len(self.outline) > 0 or self.path is not None

    def display_name(self) -> str:
        """The title-bar name: the project file's, else the tender's, else 未命名项目."""
        if self.path is not None:
            return self.path.stem
        if self.tender_path is not None:
            return self.tender_path.stem
        return self.base.title or UNTITLED

    def _set_dirty(self, edits_clean: bool, changed: bool) -> None:
        before = self.is_dirty
        self._edits_clean, self._changed = edits_clean, changed
        if self.is_dirty != before:
            self._emit("dirty")

    def set_edits_clean(self, clean: bool) -> None:
        """The undo history reached (or left) the saved state."""
        self._set_dirty(clean, self._changed)

    def mark_changed(self) -> None:
        """Something outside the undo history changed: the project needs saving."""
        self._set_dirty(self._edits_clean, True)
        self._emit("changed")

    # ------------------------------------------------------------------ content
    def set_tender(self, path: Path, document: Any) -> None:
        """The tender was read; replacing it under existing work is an unsaved change."""
        self.tender_path, self.document = path, document
        self._emit("tender")
        if self.has_work and (self.base.tender is None or Path(self.base.tender.path) != path.resolve()):
            self.mark_changed()

    def record_run(self, run: RunRecord) -> None:
        """Add a finished model run to the history (kept in the project file)."""
        self.runs.append(run)
        del self.runs[:-MAX_RUNS]
        self.mark_changed()

    # ------------------------------------------------------------------ new / open / close
    def new(self) -> None:
        """Start an empty, untitled project (the caller settled unsaved changes first)."""
        self.outline.replace([])
        self._release_lock()
        self.path = None
        self.disk_stamp = None
        self.read_only = False
        self.base = Project()
        self.tender_path, self.document = None, None
        self.analysis = Analysis()
        self.breakdown = None
        self.generation_mode = None
        self.guidance = ""
        self.runs = []
        self._edits_clean, self._changed = True, False
        self._emit("reset")

    close = new

    def apply(self, project: Project, path: Path | None, *, restored: bool = False, read_only: bool = False) -> None:
        """Make ``project`` (loaded from ``path``, or recovered) this session's content.

        The tender is not read here (that takes a worker thread); the caller locates and
        opens it. Recovered work counts as unsaved. Unless ``read_only`` (another session
        holds the file), the file is locked for this session while it is open.
        """
        self.outline.replace(outline_chapters(project))
        self.outline.renumber()
        self._release_lock()
        self.path = path
        self.disk_stamp = file_stamp(path) if path is not None else None
        self.read_only = read_only and path is not None
        if path is not None and not self.read_only:
            lock_project(path, self.session_id)
        self.base = project.model_copy(deep=True)
        self.tender_path, self.document = None, None
        self.analysis = project.analysis.model_copy(deep=True) if project.analysis is not None else Analysis()
        self.breakdown = project.breakdown.model_copy(deep=True) if project.breakdown is not None else None
        self.generation_mode = project.generation_mode
        self.guidance = project.guidance
        self.runs = list(self.base.runs)
        self._edits_clean, self._changed = True, restored
        self._emit("reset")

    def open(self, path: Path) -> Project:
        """Load the project file at ``path`` (a :class:`~app.core.project.ProjectError` leaves this session as it was)."""
        project = load_project(path)
        self.apply(project, path)
        return project

    @property
    def length_budget(self) -> LengthBudget | None:
        """The length budget the user set (kept with the project as opened or saved)."""
        return self.base.length_budget

    def set_length_budget(self, budget: LengthBudget | None) -> None:
        """Set or clear the length budget; the project becomes unsaved."""
        self.base.length_budget = budget
        self.mark_changed()

    @property
    def bid_forms(self) -> BidFormsState:
        """What the user typed into the tender's response forms (kept with the project as opened or saved)."""
        if self.base.bid_forms is None:
            self.base.bid_forms = BidFormsState()
        return self.base.bid_forms

    def set_bid_forms(self, state: BidFormsState) -> None:
        """Replace what the user typed into the forms; the project becomes unsaved (unless nothing changed)."""
        if self.base.bid_forms == state:
            return
        self.base.bid_forms = state
        self.mark_changed()

    # ------------------------------------------------------------------ save
    def snapshot(self) -> Project:
        """The current work as a :class:`Project` (what save and autosave write).

        Built on the project that was opened, so what no one edits here (``created_at``,
        drafting records of untouched sections) is carried over rather than reset.
        """
        base = self.base
        tender = None
        if self.tender_path is not None:
            try:
                tender = TenderRef.from_file(self.tender_path)
            except (OSError, ValueError):  # renamed, deleted or unplugged while open: keep the reference
                tender = self._last_tender_ref(base)
        elif base.tender is not None:
            tender = base.tender.model_copy()  # the tender is missing now: keep the reference
        sections = self.section_states(base.sections) if self.section_states is not None else dict(base.sections)
        try:
            document = self.outline.to_document()
        except ValidationError as exc:  # the tree holds more than a project file stores: say so, lose nothing
            raise ProjectSaveError(f"目录超出了项目文件能保存的范围（{exc.error_count()} 处），请先精简目录再保存。",
                                   self.path, str(exc)[:300]) from exc
        return base.model_copy(deep=True, update={
            "title": self.display_name(), "tender": tender, "analysis": self.analysis, "breakdown": self.breakdown,
            "generation_mode": self.generation_mode, "guidance": self.guidance,
            "outline": document, "sections": sections, "runs": list(self.runs),
            "migrated_from": None,
        })

    def _last_tender_ref(self, base: Project) -> TenderRef | None:
        """The reference to the open tender when the file itself can no longer be read."""
        assert self.tender_path is not None
        if base.tender is not None and Path(base.tender.path) == self.tender_path.resolve():
            return base.tender.model_copy()
        return TenderRef(path=str(self.tender_path.resolve()))

    def _release_lock(self) -> None:
        if self.path is not None and not self.read_only:
            unlock_project(self.path, self.session_id)

    def release(self) -> None:
        """The window closes: give up the project's lock (the content stays)."""
        self._release_lock()

    def changed_on_disk(self) -> bool:
        """Whether another program changed (or replaced) the project file since it was opened or saved here."""
        if self.path is None or self.disk_stamp is None:
            return False
        now = file_stamp(self.path)
        return now is not None and now != self.disk_stamp

    def save(self, path: Path | None = None, *, overwrite_external: bool = False) -> Path:
        """Write the project atomically to ``path`` (save as) or to :attr:`path` (save).

        Raises :class:`SessionError` when there is no path yet, :class:`ProjectChangedOnDisk`
        when the file was changed by another program (unless ``overwrite_external``: the user
        was asked) and :class:`~app.core.project.ProjectSaveError` when writing fails (nothing
        changes then).
        """
        target = path if path is not None else self.path
        if target is None:
            raise SessionError("项目还没有文件名，请用“另存为”选择保存位置。")
        target = with_project_suffix(target)
        if self.read_only and target == self.path:
            raise SessionError(f"项目“{target.name}”以只读方式打开（另一个窗口正在编辑它），请用“另存为”保存到新文件。")
        holder = live_holder(target, self.session_id) if target != self.path else None
        if holder is not None:
            raise SessionError(f"项目文件“{target.name}”正被 {holder.description_zh} 打开，不能覆盖，请换一个文件名。")
        if not overwrite_external and target == self.path and self.changed_on_disk():
            raise ProjectChangedOnDisk(f"项目文件“{target.name}”在打开后被其他程序修改过；为免覆盖对方的修改，未保存。"
                                       "请另存为新文件，或确认后覆盖。")
        project = self.snapshot()
        save_project(project, target)
        self.base = project
        if target != self.path:
            self._release_lock()
            lock_project(target, self.session_id)
        self.path = target
        self.read_only = False
        self.disk_stamp = file_stamp(target)
        log.info("saved project %s", target)
        self._set_dirty(True, False)
        self._emit("saved")
        return target
