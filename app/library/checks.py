"""查重: copied passages, names left over from other projects, and signs of a shared author (围标).

The current bid is given as plain sections ``(path, where, text)`` — an outline path for
jump-to, a label for the user, the drafted text. Three checks:

* :func:`stale_names` — past bids' project names, clients, places, dates and people (after
  role labels and in staff tables), and the company's people, that appear in this bid but
  are not this tender's own or on this bid's staff list (a classic reason for 废标);
* :func:`copied_passages` — runs of sentences identical to a past bid's (sentence hashes);
* :func:`compare_with_bid` — another bidder's file: shared sentences (and near copies, a few
  characters changed: :mod:`app.library.near_copies`), identical document
  properties (author, last editor, creation time), the same people, phone numbers or e-mail
  addresses, and the same unusual strings one character off a frequent one (shared typos,
  :mod:`app.library.typos`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from app.core.outline import Outline
from app.core.similarity import normalize_text
from app.documents.outlines.bid_reader import BidDocument
from app.library.bid_import import extract_people, sentence_hash, sentences
from app.library.near_copies import near_copies
from app.library.people import people_in_tables
from app.library.store import LibraryStore
from app.library.typos import shared_typos

Path = tuple[int, ...]
CurrentSection = tuple[Path, str, str]  # outline path, label shown to the user, text
MIN_PASSAGE_CHARS = 50
#: Seeds for the shared-typo check (:mod:`app.library.typos` finds shared slips without a list):
#: frequent wrong forms in Chinese bid writing, reported whenever both files have one.
COMMON_MISSPELLINGS = ("按装", "布署", "既时", "既使", "拔打", "保正", "峻工", "工做", "质理", "辨理", "检察维修",
                       "再接再励", "迫不急待", "一愁莫展", "默守成规", "穿流不息", "甘败下风", "走头无路", "安祥",
                       "重迭", "松驰", "座落")
_CONTACT = re.compile(r"(?<!\d)(1[3-9]\d{9}|0\d{2,3}-?\d{7,8})(?!\d)|[\w.+-]+@[\w-]+\.[\w.]+")
_KIND_LABEL = {"project": "其他项目名称", "client": "其他招标人/采购人", "place": "其他项目地点", "date": "其他项目日期",
               "person": "其他项目人员", "staff": "不在本标书人员表中的人员"}
_MIN_NAME = {"project": 6, "client": 4, "place": 3, "date": 8, "person": 2}


@dataclass(frozen=True)
class Finding:
    """One 查重 result: what was found, where in this bid, and where it came from."""

    kind: str  # "stale_name", "copied", "shared_sentence", "near_sentence", "metadata", …
    label: str  # Chinese category shown in the dock and the report
    text: str
    where: str
    path: Path | None
    source: str
    detail: str = ""


def outline_sections(outline: Outline) -> list[CurrentSection]:
    """Every heading of the outline with its title and drafted text (titles are checked too)."""
    return [(p, f"{n.id} {n.title}".strip(), f"{n.title}\n{n.content}") for p, n in outline.walk()]


_MD_ROW = re.compile(r"^\s*\|(.*)\|\s*$")
_MD_RULE = re.compile(r"^[\s|:\-]+$")


def markdown_tables(text: str) -> list[list[list[str]]]:
    """The Markdown tables (``| a | b |`` lines) of a drafted text, as rows of cells."""
    tables: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in [*text.splitlines(), ""]:
        m = _MD_ROW.match(line)
        if m:
            if not _MD_RULE.match(line):
                current.append([c.strip() for c in m.group(1).split("|")])
            continue
        if current:
            tables.append(current)
            current = []
    return tables


def bid_staff(sections: Sequence[CurrentSection]) -> set[str]:
    """This bid's own staff list: the names in its tables' 姓名 / 负责人 … columns (人员配置表 and the like)."""
    return set(people_in_tables(t for _, _, text in sections for t in markdown_tables(text)))


def stale_names(sections: Sequence[CurrentSection], store: LibraryStore, own: Iterable[str] = (),
                own_staff: Iterable[str] = ()) -> list[Finding]:
    """Names from past bids (and people of the company facts) found in this bid but not its own.

    People come from past bids (after role labels and from their staff tables) and from the
    company facts (人员, 业绩's 项目负责人). When this bid has a staff list (``own_staff`` plus
    the names of its own staff tables), a person found in the text who is not on it is
    flagged wherever the name came from; without one, the company's own people are trusted.
    """
    from app.library.facts import company_people

    own_norm = [normalize_text(x) for x in own if x and normalize_text(x)]
    staff = {x.strip() for x in own_staff if x.strip()} | bid_staff(sections)
    company = company_people(store)
    bids = {b.id: b for b in store.bids()}
    wanted: dict[str, tuple[str, str]] = {}  # value → (kind, source)
    for bid_id, kind, value in store.names():
        v = value.strip()
        if len(v) < _MIN_NAME.get(kind, 3):
            continue
        if kind == "person" and (v in staff or (not staff and v in company)):
            continue
        nv = normalize_text(v)
        if not nv or any(nv in o or (kind != "person" and o in nv) for o in own_norm):
            continue
        b = bids.get(bid_id)
        wanted.setdefault(v, (kind, f"历史标书：{b.name}" if b else "历史标书"))
    if staff:
        for name, source in company.items():
            if name not in staff:
                wanted.setdefault(name, ("staff", f"企业资料：{source}"))
    out: list[Finding] = []
    for path, where, text in sections:
        if not text:
            continue
        for value, (kind, source) in wanted.items():
            pos = text.find(value)
            if pos < 0:
                continue
            context = text[max(0, pos - 15):pos + len(value) + 15].replace("\n", " ")
            out.append(Finding("stale_name", _KIND_LABEL.get(kind, "其他项目信息"), value, where, path, source,
                               f"…{context}…"))
    return out


def copied_passages(sections: Sequence[CurrentSection], store: LibraryStore,
                    min_chars: int = MIN_PASSAGE_CHARS) -> list[Finding]:
    """Runs of consecutive sentences found verbatim in one past section, at least ``min_chars`` long."""
    per_section = [(path, where, sentences(text)) for path, where, text in sections]
    all_hashes = sorted({sentence_hash(s) for _, _, ss in per_section for s in ss})
    found = store.sentence_sources(all_hashes)
    if not found:
        return []
    names: dict[int, str] = {}
    out: list[Finding] = []
    for path, where, ss in per_section:
        run: list[str] = []
        run_sources: set[int] = set()
        for s in [*ss, ""]:
            srcs = set(found.get(sentence_hash(s), ())) if s else set()
            shared = run_sources & srcs if run else srcs
            if s and srcs and shared:
                run.append(s)
                run_sources = shared
                continue
            if run and sum(map(len, run)) >= min_chars:
                out.append(_copied(store, names, path, where, run, min(run_sources)))
            run, run_sources = ([s], srcs) if s and srcs else ([], set())
    return out


def _copied(store: LibraryStore, names: dict[int, str], path: Path, where: str, run: list[str], section_id: int) -> Finding:
    if section_id not in names:
        sec = store.sections([section_id])
        names[section_id] = f"历史标书：{sec[0].bid_name} › {sec[0].title}" if sec else "历史标书"
    text = "。".join(run)
    return Finding("copied", "与历史标书相同的段落", text[:200] + ("…" if len(text) > 200 else ""), where, path,
                   names[section_id], f"{len(run)} 句、{sum(map(len, run))} 字")


def compare_with_bid(sections: Sequence[CurrentSection], other: BidDocument, metadata: dict[str, str] | None = None,
                     *, tender: str = "", store: LibraryStore | None = None) -> list[Finding]:
    """Signs that this bid and another bidder's share an author: shared sentences, identical properties,
    the same people and contacts, and the same unusual strings (typos) found in neither the tender
    (``tender``) nor the library (``store``)."""
    theirs = {sentence_hash(s) for s in sentences(other.full_text())}
    label = f"对比文件：{other.path.name}"
    out: list[Finding] = []
    same: set[str] = set()
    for path, where, text in sections:
        for s in sentences(text):
            if sentence_hash(s) in theirs:
                same.add(s)
                out.append(Finding("shared_sentence", "与对比文件相同的句子", s, where, path, label))
    for near in near_copies(sections, other.full_text(), tender=tender, exact=same):
        out.append(Finding("near_sentence", "与对比文件几乎相同的句子", near.mine, near.where, near.path, label,
                           f"只改动了少量字（相似度 {near.ratio:.0%}）；对比文件：{near.theirs[:120]}"))
    mine = metadata or {}
    for key, name in (("author", "作者"), ("last_modified_by", "最后修改者"), ("company", "单位"), ("created", "创建时间")):
        a, b = mine.get(key, "").strip(), other.metadata.get(key, "").strip()
        if a and a == b:
            out.append(Finding("metadata", "文档属性相同", f"{name}：{a}", "文档属性", None, label,
                               "两份文件的文档属性相同，可能出自同一台电脑或同一人"))
    mine_text = "\n".join(t for _, _, t in sections)
    their_text = other.full_text()
    people = set(extract_people(mine_text)) & set(extract_people(their_text))
    for p in sorted(people):
        out.append(Finding("shared_person", "相同的人员", p, "全文", None, label, "两份文件列出了同一人员"))
    contacts = {m.group(0) for m in _CONTACT.finditer(mine_text)} & {m.group(0) for m in _CONTACT.finditer(their_text)}
    for c in sorted(contacts):
        out.append(Finding("shared_contact", "相同的联系方式", c, _where(sections, c), _path(sections, c), label,
                           "两份文件留有同一电话或邮箱"))
    known = store.contains_text if store is not None else None
    for typo in shared_typos(mine_text, their_text, tender=tender, known=known, seeds=COMMON_MISSPELLINGS):
        detail = (f"两份文件都写作“{typo.text}”（本文件 {typo.count_mine} 处、对比文件 {typo.count_theirs} 处），"
                  f"常见写法为“{typo.usual}”；招标文件和资料库中都没有这种写法" if typo.usual
                  else "两份文件出现同样的错别字")
        out.append(Finding("shared_typo", "相同的错别字", typo.text, _where(sections, typo.text),
                           _path(sections, typo.text), label, detail))
    return out


def _where(sections: Sequence[CurrentSection], text: str) -> str:
    return next((w for _, w, t in sections if text in t), "全文")


def _path(sections: Sequence[CurrentSection], text: str) -> Path | None:
    return next((p for p, _, t in sections if text in t), None)


def expired_certificates_used(sections: Sequence[CurrentSection], store: LibraryStore) -> list[Finding]:
    """Certificates past their 有效期 whose number or name this bid mentions."""
    from app.library.facts import expired_certificates

    out: list[Finding] = []
    for cert in expired_certificates(store):
        keys = [v for v in (cert.data.get("number", ""), cert.data.get("name", "")) if len(v) >= 4]
        for path, where, text in sections:
            hit = next((k for k in keys if k in text), None)
            if hit is not None:
                out.append(Finding("expired", "证书已过有效期", hit, where, path, f"企业资料：{cert.source}",
                                   f"有效期至 {cert.data.get('valid_until', '')}"))
                break
    return out
