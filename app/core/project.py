"""The project file (``.bidproj``): what a saved piece of work holds, versioned and migrated.

A project is one JSON document: the tender's path and SHA-256, the analysis, the outline
(section text lives in each node's ``content``), per-section drafting state and the run
history. Files carry ``format`` and ``format_version``; :func:`load_project` upgrades
older versions step by step through :data:`MIGRATIONS` and refuses broken, foreign or
newer files with a Chinese message, never touching them. :func:`save_project` writes
atomically (architecture rule 9).

Format history:

* **v0** — the prototype's file: ``{"app": "bidstudio", "version": 0, "tender_file",
  "tender_sha256", "analysis", "outline": [chapters...], "drafts": {node id: text},
  "saved": "YYYY-MM-DD HH:MM:SS"}``.
* **v1** — this module's :class:`Project`.
* **v2** — outline nodes may carry ``scoring_refs`` (the scoring items a section answers,
  for the 评分索引表) and ★/▲ risks ``response``/``deviation``/``deviation_note`` (the
  技术偏离表). Nothing to convert; the version tells an older BidStudio, whose outline
  nodes forbid unknown fields, to refuse the file with a clear message.
* **v3** — outline nodes may carry ``figures`` (org chart, flowchart, Gantt data drawn at
  export, :mod:`app.core.figures`) and the project a ``length_budget``. Nothing to convert.
* **v4** — a node copied from a past bid (``origin`` ``history``) keeps its source in
  ``origin_source`` (历史标书“bid” › section); up to v3 it was written into ``description``
  (``来源：历史标书…``), from where the migration moves it.
* **v5** — the project may carry ``bid_forms``: what the user typed into the tender's own
  response forms (the price in the 报价一览表, the bid date, values for single blanks), the
  forms marked done or not applicable, and how the 商务 volume is exported
  (:class:`app.core.bid_forms.BidFormsState`). Nothing to convert: an older file has none.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app import __version__ as APP_VERSION
from app.core.analysis import Analysis
from app.core.atomic_file import AtomicWriteError, atomic_write_text, sha256_file
from app.core.bid_forms import BidFormsState
from app.core.breakdown import Breakdown
from app.core.input_limits import (
    LIMITS,
    FileTooLargeForLimit,
    SpecialFileError,
    json_depth,
    outline_depth,
    read_regular_file,
    size_text,
)
from app.core.length_budget import LengthBudget
from app.core.outline import OutlineDocument, OutlineNode, split_legacy_source

FORMAT_NAME = "bidstudio-project"
FORMAT_VERSION = 5
PROJECT_SUFFIX = ".bidproj"
#: Run history kept in a file; older runs are dropped first.
MAX_RUNS = 500

SectionStatus = Literal["empty", "queued", "drafting", "done", "failed", "edited"]
RunStatus = Literal["running", "ok", "failed", "cancelled"]


_HASH_CACHE: dict[tuple[str, int, int], str] = {}


def tender_sha256(path: Path | str) -> str:
    """SHA-256 of a tender file, cached by (path, size, mtime) so snapshots and autosaves
    of the same unchanged file do not re-read tens of megabytes on the GUI thread."""
    p = Path(path).resolve()
    st = p.stat()
    key = (str(p), st.st_size, st.st_mtime_ns)
    digest = _HASH_CACHE.get(key)
    if digest is None:
        digest = sha256_file(p)
        if len(_HASH_CACHE) > 64:
            _HASH_CACHE.clear()
        _HASH_CACHE[key] = digest
    return digest


def utc_now() -> datetime:
    """The current time, timezone-aware (files store ISO 8601 with offset)."""
    return datetime.now(timezone.utc)


# --------------------------------------------------------------------------- model


class TenderRef(BaseModel):
    """Which tender file the project was built from, and its hash to notice changes."""

    model_config = ConfigDict(extra="ignore")

    path: str = Field(description="招标文件的绝对路径")
    relative_path: str | None = Field(default=None, description="相对项目文件所在文件夹的路径")
    sha256: str = ""
    size: int | None = None

    @classmethod
    def from_file(cls, path: Path | str) -> TenderRef:
        """Reference ``path`` with its current hash and size."""
        p = Path(path).resolve()
        return cls(path=str(p), sha256=tender_sha256(p), size=p.stat().st_size)

    @property
    def name(self) -> str:
        """The file name, for titles and messages."""
        return Path(self.path).name


class SectionState(BaseModel):
    """Drafting state of one outline section (its text is the node's ``content``)."""

    model_config = ConfigDict(extra="ignore")

    status: SectionStatus = "empty"
    error: str = ""
    model: str = ""
    updated_at: datetime | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    partial_text: str = Field(default="", description="未写完（排队或中断）时已写出的部分正文，用于续写")
    sources: list[str] = Field(default_factory=list, description="撰写时参考的历史标书段落（来源）")


class RunRecord(BaseModel):
    """One model run (analysis, outline, review, drafting) for the history list."""

    model_config = ConfigDict(extra="ignore")

    id: str = Field(default_factory=lambda: uuid.uuid4().hex[:12])
    kind: str = Field(description="analysis / outline / review / draft")
    mode: str = ""
    model: str = ""
    started_at: datetime = Field(default_factory=utc_now)
    finished_at: datetime | None = None
    status: RunStatus = "running"
    message: str = ""
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    extra: dict[str, Any] = Field(default_factory=dict)


class Project(BaseModel):
    """Everything one saved piece of work holds (the ``.bidproj`` file, format v5)."""

    model_config = ConfigDict(extra="ignore")

    format: Literal["bidstudio-project"] = "bidstudio-project"
    format_version: int = FORMAT_VERSION
    app_version: str = APP_VERSION
    title: str = ""
    created_at: datetime = Field(default_factory=utc_now)
    modified_at: datetime = Field(default_factory=utc_now)
    tender: TenderRef | None = None
    analysis: Analysis | None = None
    breakdown: Breakdown | None = Field(default=None, description="需求拆解（五字段）")
    generation_mode: Literal["free", "one_to_one"] | None = None
    guidance: str = ""
    outline: OutlineDocument = Field(default_factory=OutlineDocument)
    sections: dict[str, SectionState] = Field(default_factory=dict, description="按目录编号记录的撰写状态")
    runs: list[RunRecord] = Field(default_factory=list)
    length_budget: LengthBudget | None = Field(default=None, description="篇幅预算（全书目标与各章分配）")
    bid_forms: BidFormsState | None = Field(default=None, description="投标文件格式中用户填写的内容（商务部分）")
    #: Set by :func:`load_project` when the file was upgraded from an older format; not saved.
    migrated_from: int | None = Field(default=None, exclude=True)

    def add_run(self, run: RunRecord) -> None:
        """Append a run to the history, dropping the oldest beyond :data:`MAX_RUNS`."""
        self.runs.append(run)
        del self.runs[:-MAX_RUNS]

    def display_name(self, path: Path | None = None) -> str:
        """What a title bar shows: the file name, else the title, else the tender name."""
        if path is not None:
            return path.stem
        if self.title:
            return self.title
        return Path(self.tender.path).stem if self.tender else "未命名项目"


# --------------------------------------------------------------------------- errors


class ProjectError(Exception):
    """A project file could not be opened or saved; ``message_zh`` is for the user."""

    def __init__(self, message_zh: str, path: Path | None = None, detail: str = "") -> None:
        super().__init__(f"{message_zh} ({detail})" if detail else message_zh)
        self.message_zh = message_zh
        self.path = path
        self.detail = detail


class ProjectNotFoundError(ProjectError):
    """The file does not exist or cannot be read."""


class ProjectCorruptError(ProjectError):
    """The file is empty, truncated or not JSON."""


class ProjectForeignError(ProjectError):
    """The file is JSON but not a BidStudio project."""


class ProjectTooNewError(ProjectError):
    """The file was written by a newer BidStudio with a format this one does not know."""


class ProjectInvalidError(ProjectError):
    """The file is a BidStudio project but its content does not fit the format."""


class ProjectSaveError(ProjectError):
    """Saving failed; the previous file on disk is intact."""


# --------------------------------------------------------------------------- migrations


def _migrate_v0_to_v1(data: dict[str, Any]) -> dict[str, Any]:
    """Prototype file -> v1: tender reference, wrapped outline, drafts moved into nodes."""
    drafts = data.get("drafts") or {}
    if not isinstance(drafts, dict):
        drafts = {}
    chapters = data.get("outline") or []
    if isinstance(chapters, dict):  # some prototype builds already wrapped it
        chapters = chapters.get("outline") or []

    sections: dict[str, Any] = {}

    def move_drafts(nodes: list[Any]) -> None:
        for node in nodes:
            if not isinstance(node, dict):
                continue
            text = drafts.get(str(node.get("id", "")))
            if isinstance(text, str) and text and not node.get("content"):
                node["content"] = text
                sections[str(node["id"])] = {"status": "done"}
            move_drafts(node.get("children") or [])

    move_drafts(chapters)
    saved = data.get("saved")
    out: dict[str, Any] = {
        "format": FORMAT_NAME,
        "format_version": 1,
        "app_version": str(data.get("app_version", "0")),
        "title": str(data.get("title", "")),
        "analysis": data.get("analysis"),
        "outline": {"outline": chapters},
        "sections": sections,
        "runs": [],
    }
    if isinstance(saved, str) and saved:
        out["created_at"] = out["modified_at"] = saved.replace(" ", "T") + ("" if "+" in saved else "+00:00")
    if data.get("tender_file"):
        out["tender"] = {"path": str(data["tender_file"]), "sha256": str(data.get("tender_sha256") or "")}
    return out


def _migrate_v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """v1 -> v2: only new optional fields; the format number changes."""
    return {**data, "format_version": 2}


def _migrate_v2_to_v3(data: dict[str, Any]) -> dict[str, Any]:
    """v2 -> v3: figures on nodes and the length budget are new optional fields."""
    return {**data, "format_version": 3}


def _migrate_v3_to_v4(data: dict[str, Any]) -> dict[str, Any]:
    """v3 -> v4: a past bid's source moves from a history node's description to ``origin_source``."""
    outline = data.get("outline")
    stack = list(outline.get("outline") or []) if isinstance(outline, dict) else []
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        stack.extend(node.get("children") or [])
        description = node.get("description")
        if node.get("origin") == "history" and isinstance(description, str) and not node.get("origin_source"):
            rest, source = split_legacy_source(description)
            if source:
                node["description"], node["origin_source"] = rest, source
    return {**data, "format_version": 4}


def _migrate_v4_to_v5(data: dict[str, Any]) -> dict[str, Any]:
    """v4 -> v5: ``bid_forms`` is a new optional field; the format number changes."""
    return {**data, "format_version": 5}


#: ``MIGRATIONS[n]`` turns a format-``n`` dict into a format-``n + 1`` dict.
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {
    0: _migrate_v0_to_v1, 1: _migrate_v1_to_v2, 2: _migrate_v2_to_v3, 3: _migrate_v3_to_v4, 4: _migrate_v4_to_v5}


def migrate(data: dict[str, Any], version: int) -> dict[str, Any]:
    """Upgrade ``data`` of format ``version`` to :data:`FORMAT_VERSION`, one step at a time."""
    while version < FORMAT_VERSION:
        step = MIGRATIONS.get(version)
        if step is None:
            raise ProjectInvalidError(f"无法升级格式版本为 {version} 的项目文件（缺少升级步骤）。")
        data = step(data)
        version += 1
    return data


# --------------------------------------------------------------------------- load / save


def _detect_version(data: object, path: Path) -> int:
    """The format version of parsed JSON, or a foreign/corrupt error."""
    if not isinstance(data, dict):
        raise ProjectForeignError(f"“{path.name}”不是标书工坊项目文件。", path)
    if data.get("format") == FORMAT_NAME:
        version = data.get("format_version")
    elif data.get("app") == "bidstudio" and "version" in data:
        version = data.get("version")
    else:
        raise ProjectForeignError(f"“{path.name}”不是标书工坊项目文件（缺少格式标记）。", path)
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        raise ProjectCorruptError(f"项目文件“{path.name}”的格式版本号无效：{version!r}。", path)
    if version > FORMAT_VERSION:
        raise ProjectTooNewError(
            f"项目文件“{path.name}”由更新版本的标书工坊保存（格式版本 {version}），"
            f"当前程序只支持到版本 {FORMAT_VERSION}。请升级标书工坊后再打开；文件未作任何改动。",
            path,
        )
    return version


def _validation_message(exc: ValidationError, path: Path) -> str:
    """The first few validation problems, with their locations, in Chinese."""
    lines = []
    for err in exc.errors()[:5]:
        loc = ".".join(str(p) for p in err["loc"]) or "（根）"
        lines.append(f"  · {loc}：{err['msg']}")
    more = "" if exc.error_count() <= 5 else f"\n  ……另有 {exc.error_count() - 5} 处问题"
    return f"项目文件“{path.name}”内容不符合格式，无法打开：\n" + "\n".join(lines) + more


def _damaged(path: Path, why: str, detail: str = "") -> ProjectCorruptError:
    """The one error for a file whose content breaks the format in a way code did not foresee."""
    return ProjectCorruptError(f"项目文件“{path.name}”文件已损坏，无法打开（{why}）。文件未作任何改动。", path, detail)


def parse_project(raw: bytes, path: Path) -> Project:
    """Decode, detect the version, migrate and validate the bytes of a project file.

    Whatever the bytes are, the result is a :class:`Project` or a :class:`ProjectError`:
    an unforeseen exception from the content (deep nesting, a wrong type where a
    migration expects a list, …) means the file is damaged, never that the app is.
    """
    try:
        return _parse_project(raw, path)
    except ProjectError:
        raise
    except RecursionError as exc:
        raise _damaged(path, "内容嵌套层级过深", "RecursionError") from exc
    except MemoryError as exc:
        raise _damaged(path, "内容过大，内存不足", "MemoryError") from exc
    except Exception as exc:
        raise _damaged(path, "内容结构不符合项目格式", f"{type(exc).__name__}: {exc}") from exc


def _parse_project(raw: bytes, path: Path) -> Project:
    if not raw.strip():
        raise ProjectCorruptError(f"项目文件“{path.name}”是空的（可能在保存时被中断）。", path)
    try:
        text = raw.decode("utf-8-sig")
        data = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProjectCorruptError(
            f"项目文件“{path.name}”文件已损坏或不完整，无法读取。", path, detail=str(exc)
        ) from exc
    if json_depth(data, stop_at=LIMITS.json_max_depth) > LIMITS.json_max_depth:
        raise _damaged(path, f"内容嵌套超过 {LIMITS.json_max_depth} 层")
    version = _detect_version(data, path)
    if version < FORMAT_VERSION:
        data = migrate(data, version)
    outline = data.get("outline") if isinstance(data, dict) else None
    chapters = outline.get("outline") if isinstance(outline, dict) else None
    if outline_depth(chapters, stop_at=LIMITS.outline_max_depth) > LIMITS.outline_max_depth:
        raise _damaged(path, f"目录超过 {LIMITS.outline_max_depth} 级")
    try:
        project = Project.model_validate(data)
    except ValidationError as exc:
        raise ProjectInvalidError(_validation_message(exc, path), path, detail=str(exc)) from exc
    if version < FORMAT_VERSION:
        project.migrated_from = version
    return project


def load_project(path: Path | str) -> Project:
    """Read a ``.bidproj`` file, upgrading older formats; the file itself is never modified.

    Raises a :class:`ProjectError` subclass with ``message_zh`` for missing, broken,
    foreign, newer or invalid files.
    """
    p = Path(path)
    return parse_project(read_bounded_file(p, "项目文件"), p)


def read_bounded_file(p: Path, what: str, limit: int = LIMITS.project_max_bytes) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; ``ProjectNotFoundError`` or
    ``ProjectCorruptError`` otherwise (a FIFO, a device or ``/proc`` file is never read)."""
    try:
        return read_regular_file(p, limit)
    except FileNotFoundError as exc:
        raise ProjectNotFoundError(f"找不到{what}“{p}”。", p) from exc
    except SpecialFileError as exc:
        if p.is_dir():
            raise ProjectNotFoundError(f"“{p}”是文件夹，不是{what}。", p) from exc
        raise ProjectNotFoundError(f"“{p}”不是普通文件（设备、管道或特殊文件），不能作为{what}打开。", p) from exc
    except FileTooLargeForLimit as exc:
        raise ProjectCorruptError(
            f"{what}“{p.name}”超过 {size_text(limit)} 的上限，不是正常的项目文件（可能已损坏）。文件未作任何改动。",
            p, detail=str(exc)) from exc
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise ProjectNotFoundError(f"无法读取{what}“{p}”：{reason}。", p) from exc


def project_to_json(project: Project) -> str:
    """The file content: pretty JSON with readable Chinese (no ``\\u`` escapes)."""
    return project.model_dump_json(indent=2) + "\n"


def save_project(project: Project, path: Path | str) -> None:
    """Write ``project`` to ``path`` atomically; stamps ``modified_at`` and the tender's relative path.

    On failure raises :class:`ProjectSaveError`; the file previously at ``path`` is intact.
    """
    p = Path(path)
    project.format_version = FORMAT_VERSION
    project.app_version = APP_VERSION
    project.modified_at = utc_now()
    if project.tender is not None:
        try:
            project.tender.relative_path = os.path.relpath(project.tender.path, p.resolve().parent)
        except ValueError:  # another drive on Windows
            project.tender.relative_path = None
    try:
        atomic_write_text(p, project_to_json(project))
    except AtomicWriteError as exc:
        raise ProjectSaveError(exc.message_zh, p, detail=str(exc.cause)) from exc


def with_project_suffix(path: Path | str) -> Path:
    """``path`` with the ``.bidproj`` suffix added when a save dialog returned none."""
    p = Path(path)
    return p if p.suffix.lower() == PROJECT_SUFFIX else p.with_name(p.name + PROJECT_SUFFIX)


def locate_tender(project: Project, project_path: Path | None = None) -> Path | None:
    """Find the tender file: its absolute path, else relative to the project, else beside it."""
    if project.tender is None:
        return None
    candidates = [Path(project.tender.path)]
    if project_path is not None:
        folder = project_path.resolve().parent
        if project.tender.relative_path:
            candidates.append(folder / project.tender.relative_path)
        candidates.append(folder / project.tender.name)
    return next((c for c in candidates if c.is_file()), None)


TenderStatus = Literal["none", "ok", "missing", "changed"]


def tender_status(project: Project, project_path: Path | None = None) -> tuple[TenderStatus, Path | None]:
    """Whether the tender is still there and unchanged (hash compared when one is stored)."""
    if project.tender is None:
        return "none", None
    found = locate_tender(project, project_path)
    if found is None:
        return "missing", None
    if project.tender.sha256 and tender_sha256(found) != project.tender.sha256:
        return "changed", found
    return "ok", found


def outline_chapters(project: Project) -> list[OutlineNode]:
    """Deep copies of the stored chapters, ready for ``core.Outline(...)``."""
    return [c.model_copy(deep=True) for c in project.outline.outline]
