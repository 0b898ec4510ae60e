"""Copying a personal library into the office's: bids de-duplicated by content hash, facts merged with a review.

A bid whose content hash the office library has (imported there before, by anyone) is not
copied again. A fact equal to an office fact is skipped; one that names the same thing (the
same certificate number, person, reference project or machine model, :func:`fact_identity`)
with different fields is a conflict the user reviews: each is kept as the office has it
unless the user takes the personal version, which is then written with the office fact's
version (so an edit someone made meanwhile is not overwritten). Everything else is added.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from app.library.facts import KIND_LABELS, Fact, fact_identity, load_facts, save_facts, update_fact
from app.library.store import FactConflict, LibraryError, LibraryStore


@dataclass(frozen=True)
class FactClash:
    """A personal fact and the office fact that names the same thing with different fields."""

    office: Fact
    personal: Fact

    def describe(self) -> str:
        """A line for the review (kind, what it names)."""
        return f"{KIND_LABELS.get(self.office.kind, self.office.kind)}：{fact_identity(self.office.kind, self.office.data)}"

    def differences(self) -> list[tuple[str, str, str]]:
        """``(field, office value, personal value)`` for each field that differs."""
        keys = list(dict.fromkeys([*self.office.data, *self.personal.data]))
        return [(k, self.office.data.get(k, ""), self.personal.data.get(k, "")) for k in keys
                if self.office.data.get(k, "") != self.personal.data.get(k, "")]


@dataclass
class CopyReport:
    """What copying a library did."""

    bids_added: int = 0
    bids_present: int = 0
    bids_failed: list[str] = field(default_factory=list)
    facts_added: int = 0
    facts_same: int = 0
    clashes: list[FactClash] = field(default_factory=list)
    cancelled: bool = False

    def summary(self) -> str:
        """One Chinese sentence for the user."""
        text = (f"已复制 {self.bids_added} 份历史标书（{self.bids_present} 份办公室资料库中已有，未重复复制），"
                f"新增 {self.facts_added} 条企业资料（{self.facts_same} 条已有）")
        if self.bids_failed:
            text += f"；{len(self.bids_failed)} 份未能复制：" + "；".join(self.bids_failed[:3])
        if self.clashes:
            text += f"；{len(self.clashes)} 条企业资料与办公室资料库的内容不同，请逐条核对"
        if self.cancelled:
            text += "（已取消，已复制的内容完整保留）"
        return text + "。"


def copy_library(source: LibraryStore, target: LibraryStore, progress: Callable[[int, int, str], None] | None = None,
                 cancelled: Callable[[], bool] | None = None) -> CopyReport:
    """Copy every bid and fact of ``source`` into ``target`` (each bid one transaction); conflicts are reported."""
    report = CopyReport()
    bids = source.bids()
    for i, info in enumerate(reversed(bids)):  # oldest first: the office list keeps the personal order
        if cancelled is not None and cancelled():
            report.cancelled = True
            return report
        if progress is not None:
            progress(i, len(bids), info.name)
        copy = source.bid_copy(info.id)
        if copy is None:
            continue
        if target.has_hash(copy.hash) is not None:
            report.bids_present += 1
            continue
        try:
            added = target.add_bid(copy.hash, copy.path, copy.name, copy.info, copy.sections, copy.names, copy.metadata)
        except LibraryError as exc:
            if exc.__class__ is not LibraryError:  # the server went away, or this role may not write: stop here
                raise
            report.bids_failed.append(f"{info.name}：{exc.message_zh}")
            continue
        if added is None:
            report.bids_present += 1  # another writer stored it at the same moment
        else:
            report.bids_added += 1
    if progress is not None:
        progress(len(bids), len(bids), "企业资料")
    merge_facts(load_facts(source), target, report)
    return report


def merge_facts(personal: list[Fact], target: LibraryStore, report: CopyReport) -> None:
    """Add the personal facts the office lacks; report those that clash with an office fact."""
    office = load_facts(target)
    same = {(f.kind, tuple(sorted(f.data.items()))) for f in office}
    named = {(f.kind, fact_identity(f.kind, f.data)): f for f in office if fact_identity(f.kind, f.data)}
    new: list[Fact] = []
    for f in personal:
        if (f.kind, tuple(sorted(f.data.items()))) in same:
            report.facts_same += 1
            continue
        clash = named.get((f.kind, fact_identity(f.kind, f.data)))
        if clash is not None:
            report.clashes.append(FactClash(clash, f))
            continue
        new.append(Fact(f.kind, dict(f.data), f.source or "本机资料库"))
    added = save_facts(target, new)
    report.facts_added += added
    report.facts_same += len(new) - added  # equal to another new one, or stored by someone meanwhile


def take_personal(target: LibraryStore, chosen: list[FactClash]) -> list[str]:
    """Write the personal version of each chosen clash over the office fact; Chinese messages of those refused
    (someone changed the office fact since the review began)."""
    refused: list[str] = []
    for clash in chosen:
        try:
            update_fact(target, clash.office, dict(clash.personal.data))
        except FactConflict as exc:
            refused.append(f"{clash.describe()}：{exc.message_zh}")
    return refused
