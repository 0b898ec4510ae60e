"""Per-section drafting state: what a drafting run did, serialisable into the project file.

Each outline leaf being drafted has a :class:`SectionDraft` (waiting → writing → done,
failed or cancelled) holding the text written so far. A saved state lets the app resume
unfinished sections after a restart: sections that were waiting, writing or cancelled
continue from their partial text instead of starting over.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from app.core.project import SectionState, utc_now

DraftStatus = Literal["waiting", "writing", "done", "failed", "cancelled"]

#: Chinese labels for the tree's state column.
DRAFT_STATUS_LABELS: dict[str, str] = {
    "waiting": "排队中",
    "writing": "撰写中",
    "done": "已完成",
    "failed": "失败",
    "cancelled": "已取消",
}
RESUMABLE: frozenset[str] = frozenset({"waiting", "writing", "cancelled"})


class SectionDraft(BaseModel):
    """One section's drafting progress; ``text`` is partial until ``status == "done"``."""

    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    key: str = Field(description="章节编号（目录节点 id）")
    title: str = ""
    status: DraftStatus = "waiting"
    text: str = ""
    error: str = ""
    rejected_text: str = Field(default="", description="被拒绝的模型输出（循环、无效），不会写入正文")
    continuations: int = Field(default=0, description="因截断或断线而续写的次数")
    prompt_tokens: int = 0
    completion_tokens: int = 0
    elapsed_s: float = 0.0
    updated_at: datetime | None = None
    sources: list[str] = Field(default_factory=list, description="撰写时作为参考材料的历史标书段落（来源）")

    @property
    def resumable(self) -> bool:
        """Unfinished: waiting, interrupted while writing, or cancelled by the user."""
        return self.status in RESUMABLE

    def to_section_state(self, model: str = "") -> SectionState:
        """The project file's per-section record (an interrupted section is saved as queued)."""
        status = {"waiting": "queued", "writing": "queued", "cancelled": "queued",
                  "done": "done", "failed": "failed"}[self.status]
        return SectionState(status=status, error=self.error, model=model,  # type: ignore[arg-type]
                            updated_at=self.updated_at, prompt_tokens=self.prompt_tokens,
                            completion_tokens=self.completion_tokens, sources=list(self.sources))


class DraftingState(BaseModel):
    """All sections of a drafting run, keyed by section key, in the order they were queued."""

    model_config = ConfigDict(extra="ignore")

    sections: dict[str, SectionDraft] = Field(default_factory=dict)

    def get(self, key: str, title: str = "") -> SectionDraft:
        """The section's record, created as waiting when new."""
        draft = self.sections.get(key)
        if draft is None:
            draft = SectionDraft(key=key, title=title)
            self.sections[key] = draft
        return draft

    def unfinished(self) -> list[str]:
        """Keys of sections that can be resumed."""
        return [k for k, d in self.sections.items() if d.resumable]

    def by_status(self, status: DraftStatus) -> list[str]:
        """Keys of sections in one state."""
        return [k for k, d in self.sections.items() if d.status == status]

    def touch(self, key: str) -> None:
        """Stamp the section's ``updated_at``."""
        self.sections[key].updated_at = utc_now()

    def to_section_states(self, model: str = "") -> dict[str, SectionState]:
        """The project file's ``sections`` mapping for these drafts (partial text lives in
        the node's ``content``; see :meth:`from_section_states`)."""
        return {k: d.to_section_state(model) for k, d in self.sections.items()}

    @classmethod
    def from_section_states(cls, states: Mapping[str, SectionState], texts: Mapping[str, str]) -> DraftingState:
        """Rebuild the drafting state from a loaded project: ``states`` is ``Project.sections``,
        ``texts`` each section's current text (node ``content``). Queued or drafting sections
        come back resumable with their text as the partial draft; empty ones are left out."""
        mapping: dict[str, DraftStatus] = {"queued": "waiting", "drafting": "writing", "done": "done",
                                           "edited": "done", "failed": "failed"}
        out = cls()
        for key, st in states.items():
            status = mapping.get(st.status)
            if status is None:
                continue
            out.sections[key] = SectionDraft(key=key, status=status, text=texts.get(key, ""), error=st.error,
                                             prompt_tokens=st.prompt_tokens, completion_tokens=st.completion_tokens,
                                             updated_at=st.updated_at, sources=list(st.sources))
        return out
