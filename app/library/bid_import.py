"""Past bids into the library: read (.docx/.pdf), record project/client/place/date/people, store whole.

People are read after role labels (项目经理：张三) and from table columns headed 姓名 / 人员姓名 /
负责人 … (:func:`people_in_tables`), so a staff table's names are checked by 查重 too.

A bid's identity is the hash of its normalised text, so importing the same bid twice (even
renamed) is recognised. Each bid is stored in one transaction. Folder imports walk the tree
for .docx/.pdf files; progress and cancel are plain callables (the UI runs this in a worker).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.similarity import normalize_text
from app.documents.errors import DocumentError, vanished_message
from app.documents.outlines.bid_reader import BidDocument, read_bid
from app.documents.outlines.sections import Section
from app.library.people import NOT_A_NAME, people_in_tables
from app.library.store import LibrarySpec, LibraryStore, SectionRow

BID_SUFFIXES = (".docx", ".pdf")
MIN_SENTENCE_CHARS = 20
_SENTENCE_SPLIT = re.compile(r"[。！？；!?;\n]+")
_PROJECT = re.compile(r"(?:项目名称|工程名称|采购项目名称)\s*[:：]\s*([^\n]{4,80})")
_PROJECT_TITLE = re.compile(r"([^\n]{4,60}?(?:项目|工程|采购|服务))\s*(?:投标文件|技术标|技术部分|响应文件|技术方案)")
_CLIENT = re.compile(r"(?:招标人|采购人|招标单位|采购单位|建设单位|业主单位|业主)\s*[:：]\s*([^\n，,。；;（(]{2,40})")
_PLACE = re.compile(r"(?:项目地点|建设地点|服务地点|实施地点|交货地点|工程地点)\s*[:：]\s*([^\n，,。；;]{2,40})")
_DATE = re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日|(\d{4})-(\d{1,2})-(\d{1,2})")
_PEOPLE = re.compile(r"(?:项目经理|项目负责人|技术负责人|项目总监|总监理工程师|安全员|质检员|联系人|授权代表|法定代表人|委托代理人)"
                     r"\s*[:：]?\s*([\u4e00-\u9fff]{2,3})(?![\u4e00-\u9fff])")


@dataclass(frozen=True)
class ImportOutcome:
    """What happened to one file: added, already in the library, or failed (with a Chinese message)."""

    path: Path
    status: str  # "added", "duplicate", "failed", "empty"
    bid_id: int | None = None
    message: str = ""
    sections: int = 0


def sentences(text: str) -> list[str]:
    """The text's sentences, normalised (no spaces/punctuation), at least ``MIN_SENTENCE_CHARS`` long."""
    return [norm for _, norm in sentence_pairs(text)]


def sentence_pairs(text: str) -> list[tuple[str, str]]:
    """The text's sentences as written and normalised, those at least ``MIN_SENTENCE_CHARS`` long."""
    out = []
    for part in _SENTENCE_SPLIT.split(text):
        norm = normalize_text(part)
        if len(norm) >= MIN_SENTENCE_CHARS:
            out.append((part.strip(), norm))
    return out


def sentence_hash(sentence: str) -> int:
    """A signed 64-bit hash of a normalised sentence (an SQLite INTEGER)."""
    return int.from_bytes(hashlib.blake2b(sentence.encode("utf-8"), digest_size=8).digest(), "big", signed=True)


def content_hash(bid: BidDocument) -> str:
    """The bid's identity: SHA-256 of its normalised text."""
    return hashlib.sha256(normalize_text(bid.full_text()).encode("utf-8")).hexdigest()


def _first(pattern: re.Pattern[str], text: str) -> str:
    m = pattern.search(text)
    return m.group(1).strip() if m else ""


def format_date(m: re.Match[str]) -> str:
    """A matched date as written (``2023年5月12日``)."""
    return m.group(0)


def extract_info(bid: BidDocument) -> dict[str, str]:
    """Project name, client (招标人/采购人), place and date from the bid's first pages and properties."""
    head = "\n".join([*bid.preamble, *(t for _, s in _walk(bid.sections) for t in (s.title, *s.paragraphs))])[:8000]
    project = _first(_PROJECT, head) or _first(_PROJECT_TITLE, head) or bid.metadata.get("title", "")
    date = _DATE.search(head)
    return {"project": project.strip(" ：:")[:80], "client": _first(_CLIENT, head)[:40],
            "place": _first(_PLACE, head)[:40], "date": format_date(date) if date else ""}


def extract_people(text: str) -> list[str]:
    """Person names written after a role (项目经理：张三), in order, without repeats."""
    seen: dict[str, None] = {}
    for m in _PEOPLE.finditer(text):
        name = m.group(1)
        if name not in NOT_A_NAME and not any(name.startswith(x) for x in NOT_A_NAME):
            seen.setdefault(name, None)
    return list(seen)


def _walk(sections: Sequence[Section]) -> Iterable[tuple[int, Section]]:
    for root in sections:
        yield from root.walk()


def section_rows(bid: BidDocument) -> list[SectionRow]:
    """Flat rows of the bid's heading tree (order, parent, level, heading path, body, tables, sentence hashes)."""
    rows: list[SectionRow] = []
    path: list[tuple[int, str]] = []  # (ord, title) of open ancestors
    for depth, s in _walk(bid.sections):
        del path[depth - 1:]
        body = s.text
        table_text = "\n".join("\t".join(r) for t in s.tables for r in t)
        rows.append(SectionRow(ord=len(rows), parent_ord=path[-1][0] if path else None, level=depth, title=s.title,
                               number=s.number, heading_path=" > ".join(t for _, t in path), body=body,
                               tables=s.tables,
                               sentence_hashes=[sentence_hash(x) for x in sentences(body + "\n" + table_text)]))
        path.append((rows[-1].ord, s.title))
    return rows


def import_bid(store: LibraryStore, path: Path) -> ImportOutcome:
    """Read and store one past bid; a bad file is a ``failed`` outcome with the reader's message."""
    try:
        bid = read_bid(path)
    except DocumentError as exc:
        return ImportOutcome(path, "failed", message=exc.message_zh)
    except Exception as exc:  # a reader bug must not stop a folder import; the message says which file
        if not path.exists():  # listed with the folder, gone before it was read
            return ImportOutcome(path, "failed", message=vanished_message(path))
        return ImportOutcome(path, "failed", message=f"读取失败：{type(exc).__name__}")
    if not bid.sections:
        return ImportOutcome(path, "empty", message="没有找到标题（既无标题样式也无编号标题），未导入")
    digest = content_hash(bid)
    existing = store.has_hash(digest)
    if existing is not None:
        return ImportOutcome(path, "duplicate", existing, "资料库中已有同一份标书，未重复导入")
    info = extract_info(bid)
    rows = section_rows(bid)
    names = [(k, v) for k, v in info.items() if v]
    names += [("person", p) for p in extract_people(bid.full_text())]
    names += [("person", p) for p in people_in_tables(t for _, s in _walk(bid.sections) for t in s.tables)]
    bid_id = store.add_bid(digest, str(path), path.stem, info, rows, names, bid.metadata)
    if bid_id is None:
        return ImportOutcome(path, "duplicate", store.has_hash(digest), "资料库中已有同一份标书，未重复导入")
    return ImportOutcome(path, "added", bid_id, sections=len(rows))


def collect_files(paths: Iterable[Path]) -> list[Path]:
    """The .docx/.pdf files among ``paths`` (folders walked recursively; Word lock files skipped)."""
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out += sorted(f for f in p.rglob("*") if f.is_file() and f.suffix.lower() in BID_SUFFIXES
                          and not f.name.startswith("~$"))
        elif p.suffix.lower() in BID_SUFFIXES:
            out.append(p)
    return out


def import_files(store: LibraryStore, paths: Sequence[Path], progress: Callable[[int, int, str], None] | None = None,
                 cancelled: Callable[[], bool] | None = None, done: list[ImportOutcome] | None = None) -> list[ImportOutcome]:
    """Import files one by one (each a whole transaction); stops between files when ``cancelled()``.

    Outcomes are appended to ``done`` (a new list by default) as they come, so a caller that
    catches a library failure still has what was stored before it.
    """
    files = collect_files(paths)
    out: list[ImportOutcome] = [] if done is None else done
    for i, f in enumerate(files):
        if cancelled is not None and cancelled():
            break
        if progress is not None:
            progress(i, len(files), f.name)
        out.append(import_bid(store, f))
    if progress is not None:
        progress(len(out), len(files), "")
    return out


def run_import_process(spec: LibrarySpec, paths: list[str], queue: Any, cancel: Any) -> None:
    """Entry point of a separate import process (the app's GUI keeps its interpreter to itself).

    Opens the library ``spec`` names (the window's own), sends ``("progress", done, total, name)``
    while it works and ``("done", outcomes)`` at the end on ``queue``; stops between files once
    ``cancel`` (an Event) is set. A library that fails mid-import (a server gone) ends the run
    with a ``failed`` outcome saying so; the bids stored before it stay whole.
    """
    from app.library.store import LibraryError, open_library

    try:
        store = open_library(spec)
    except LibraryError as exc:
        queue.put(("done", [ImportOutcome(Path(spec.path or "资料库"), "failed", message=exc.message_zh)]))
        return
    outcomes: list[ImportOutcome] = []
    try:
        outcomes = import_files(store, [Path(p) for p in paths],
                                progress=lambda i, n, name: queue.put(("progress", i, n, name)),
                                cancelled=cancel.is_set, done=outcomes)
    except LibraryError as exc:
        outcomes.append(ImportOutcome(Path(spec.path or "资料库"), "failed", message=exc.message_zh))
    finally:
        store.close()
    queue.put(("done", outcomes))
