"""The forms' rows of 提交前检查: 资格与符合性自查 and one story through the whole bid.

Reads the window's :class:`~app.ui.forms.dock.FormsHost` (its board: forms, values, certificates)
and the open tender's 资格性/符合性审查表 (read once per tender), pairs each item with its evidence
(``app.documents.forms.evidence``) and asks ``app.export.submission_checks`` for the findings;
the technical part's text is read for a project number that differs from the tender's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.core.bid_forms import ItemCheck, ReviewItem, TenderForm
from app.documents.forms.evidence import CertificateFact, check_items
from app.documents.forms.review_items import review_items
from app.export.submission_checks import Finding, consistency_findings, review_findings

if TYPE_CHECKING:
    from app.ui.forms.board import FormsHostLike as FormsHost


#: The review items read per panel host and tender (a tender's tables are read once).
_REVIEW_CACHE: dict[int, tuple[object, list[ReviewItem]]] = {}


def item_checks(host: FormsHost) -> list[ItemCheck]:
    """Each review item of the open tender with its evidence and status (cached per tender)."""
    doc = host.window.controller.document
    if doc is None or host.board.reading is None:
        return []
    cache = _REVIEW_CACHE.get(id(host))
    if cache is None or cache[0] is not doc:
        cache = (doc, review_items(doc))
        _REVIEW_CACHE[id(host)] = cache
    board = host.board
    certs = [CertificateFact(c.name, c.valid_until, bool(c.file), c.expired) for c in board.certificates]

    def done(form: TenderForm) -> tuple[bool, int, bool]:
        s = board.status(form)
        return s.done, s.empty, s.not_applicable

    return check_items(cache[1], board.forms, certs, done)


def forms_findings(host: FormsHost) -> list[Finding]:
    """The 商务 part's findings; nothing before its forms are read (the dock reads them when on show)."""
    board = host.board
    if board.reading is None or not board.forms:
        return []
    values: dict[str, list[tuple[str, str]]] = {}
    for form in board.forms:
        if form.key in board.state.not_applicable:
            continue
        for b in form.blanks:
            v = board.value(form, b)
            if v.value and b.field:
                values.setdefault(b.field, []).append((form.title, v.value))
    number = board.tender.get("project_number")
    chapters = host.window.controller.outline.chapters
    technical = "\n".join([ch.content for ch in chapters] + [n.content for ch in chapters for _p, n in ch.walk((0,))])
    out = review_findings(item_checks(host))
    out += consistency_findings(values, tender_number=number.value if number else "", technical_text=technical)
    required_left = [f for f in board.forms if f.requirement == "required" and not board.status(f).not_applicable
                     and (board.status(f).empty or (f.self_drafted and not f.blanks and not board.status(f).done))]
    if required_left:
        names = "、".join(f.name for f in required_left[:6]) + ("等" if len(required_left) > 6 else "")
        out.append(Finding("投标文件组成", f"{len(required_left)} 份必须提供的格式尚未填完：{names}", False))
    return out
