"""Match one criteria point to the bid's text by code: answered, thin or missing, with evidence.

The bid is read once into :class:`BidText` — every section's title and its text cut into
sentences. A sentence *shows* a point when it holds enough of one of the point's bigram
sets (all of a set of one or two bigrams, three quarters of a longer one). The status:

- **answered** — a section titled after the point has a body of some length, or the
  sentences that show it add up to a paragraph (two sentences, or
  :data:`ANSWER_CHARS` characters); when the point asks for a number in some unit, one of
  those sentences must give a number in that unit;
- **thin** — a title with (almost) no body, a single short sentence, only half the words,
  or no number where one is asked;
- **missing** — nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from app.core.outline import OutlineNode, Path
from app.pipeline.evaluation.terms import UNIT_NUMBER, PointTerms

PointStatus = Literal["answered", "thin", "missing"]
STATUS_ZH: dict[str, str] = {"answered": "已响应", "thin": "单薄", "missing": "缺失"}
#: Characters of showing sentences (or of a titled section's body) that make an answer.
ANSWER_CHARS = 60
QUOTE_CHARS = 80
_SENTENCE_END = re.compile(r"(?<=[。！？；;!?])|\n+")


@dataclass(frozen=True)
class Passage:
    """One section: its path, number, title, and its text as sentences."""

    path: Path
    number: str
    title: str
    sentences: tuple[str, ...]
    chars: int
    #: Characters of text in this section and every section below it.
    subtree_chars: int = 0

    @property
    def heading(self) -> str:
        """"3.2 标题", as the dock and messages show it."""
        return f"{self.number} {self.title}"


def split_sentences(text: str) -> tuple[str, ...]:
    """The sentences of a section's text (cut after 。！？； and at line breaks), stripped."""
    return tuple(s.strip() for s in _SENTENCE_END.split(text or "") if s and s.strip())


class BidText:
    """Every section of the outline as a :class:`Passage`, in outline order."""

    def __init__(self, chapters: Sequence[OutlineNode], overrides: Mapping[Path, str] | None = None) -> None:
        """``overrides`` replace the text of some sections (what the user is typing, not yet committed)."""
        self.passages: list[Passage] = []
        self._overrides = overrides or {}
        for i, chapter in enumerate(chapters):
            self._add((i,), chapter)

    def _add(self, path: Path, node: OutlineNode) -> int:
        """Add ``node`` and its subtree (depth first); returns the subtree's characters."""
        sentences = split_sentences(self._overrides.get(path, node.content))
        chars = sum(len(s) for s in sentences)
        at = len(self.passages)
        self.passages.append(Passage(path, ".".join(str(i + 1) for i in path), node.title, sentences, chars))
        total = chars + sum(self._add((*path, i), c) for i, c in enumerate(node.children))
        p = self.passages[at]
        self.passages[at] = Passage(p.path, p.number, p.title, p.sentences, p.chars, total)
        return total

    def under(self, roots: Iterable[Path]) -> list[Passage]:
        """The passages at or below any of ``roots``."""
        heads = tuple(roots)
        return [p for p in self.passages if any(p.path[: len(r)] == r for r in heads)]

    def with_words(self, words: frozenset[str], below_chapter: bool = False) -> list[Passage]:
        """The passages whose title, text or ancestors' titles hold one of ``words`` (all when empty).

        ``below_chapter`` leaves the chapter's own title out (for words that tell sections of
        one chapter apart).
        """
        if not words:
            return list(self.passages)
        titles = {p.path: p.title for p in self.passages}
        first = 2 if below_chapter else 1
        out = []
        for p in self.passages:
            around = "".join(titles.get(p.path[:k], "") for k in range(min(first, len(p.path)), len(p.path) + 1))
            if any(w in around for w in words) or any(w in s for s in p.sentences for w in words):
                out.append(p)
        return out

    def at(self, path: Path) -> Passage | None:
        """The passage of the section at ``path``."""
        return next((p for p in self.passages if p.path == path), None)


@dataclass(frozen=True)
class Evidence:
    """Where a point is answered: the section and a short quote from it."""

    path: Path
    heading: str
    quote: str


@dataclass
class PointMatch:
    """What code found for one point."""

    status: PointStatus
    evidence: list[Evidence] = field(default_factory=list)
    note: str = ""
    score: float = 0.0  # how strongly the best place shows the point (for choosing between scopes)


def _need(size: int) -> float:
    return 1.0 if size <= 2 else 0.75 if size <= 6 else 0.6


def names_parts(terms: PointTerms, text: str) -> int:
    """How many of the things a joined point names (:attr:`PointTerms.parts`) ``text`` names."""
    return sum(1 for part in terms.parts if 2 * sum(g in text for g in part) >= len(part))


def coverage(terms: PointTerms, text: str, *, whole: bool = True) -> float:
    """The largest share of one of the point's bigram sets found in ``text``, relative to what is needed (≥ 1: shown).

    ``whole``: ``text`` is all there is to read (a paragraph), so a joined point needs each of its
    things named in it; a sentence (``whole=False``) is judged alone and its section checked after.
    """
    if terms.distinct and terms.distinct != terms.main:
        found = sum(1 for g in terms.distinct if g in text)
        if found < max(1, (len(terms.distinct) + 1) // 2):
            return 0.0
    if terms.specific:
        found = sum(1 for g in terms.specific if g in text)
        if found / len(terms.specific) < _need(len(terms.specific)):
            return 0.0
    best = 0.0
    for k, gset in enumerate(terms.grams):
        if not gset:
            continue
        found = sum(1 for g in gset if g in text)
        share = found / len(gset) / _need(len(gset))
        if whole and k == 0 and terms.parts:  # the point's own words: every thing it joins must be named
            named = names_parts(terms, text)
            if named < len(terms.parts):  # some named: at most thin (部分要点词); none: not this point
                share = min(share, 0.66 + 0.33 * named / len(terms.parts)) if named else 0.0
        best = max(best, share)
        if best >= 1.0:
            break
    return best


def quote_of(sentence: str, terms: PointTerms, limit: int = QUOTE_CHARS) -> str:
    """``sentence`` cut to ``limit`` characters around the first bigram of the point it holds."""
    if len(sentence) <= limit:
        return sentence
    at = min((sentence.find(g) for g in terms.main if g in sentence), default=0)
    start = max(0, min(at - limit // 3, len(sentence) - limit))
    return sentence[start:start + limit]


def _has_unit(texts: Iterable[str], units: Sequence[str]) -> bool:
    return any(m.group(2) in units for t in texts for m in UNIT_NUMBER.finditer(t))


def match_point(terms: PointTerms, passages: Sequence[Passage], siblings: Sequence[PointTerms] = ()) -> PointMatch:
    """The status of one point in ``passages`` with evidence (see the module docstring).

    A title that also names a sibling point ("零部件、备品备件供应情况") groups the points: its
    sections below count for the point only through sentences that show it.
    """
    strong: list[tuple[Passage, str]] = []
    titled: list[Passage] = []
    best_weak: tuple[float, Passage | None, str] = (0.0, None, "")
    for passage in passages:
        if coverage(terms, passage.title, whole=False) >= 1.0:
            titled.append(passage)
        for sentence in passage.sentences:
            c = coverage(terms, sentence, whole=False)
            if c >= 1.0:
                strong.append((passage, sentence))
            elif c > best_weak[0]:
                best_weak = (c, passage, sentence)
    others = [o for o in siblings if o is not terms and not o.main <= terms.main]
    titled = [p for p in titled if not any(coverage(o, p.title) >= 1.0 for o in others)]
    # Text about a narrower sibling ("培训计划" for "培训") is weak evidence for the broader point.
    narrower = [o for o in siblings if o is not terms and terms.main < o.main]
    borrowed = ""
    if narrower:
        def about(text: str) -> PointTerms | None:
            return next((o for o in narrower if coverage(o, text) >= 1.0), None)

        kept_strong = [(p, s) for p, s in strong if about(s) is None]
        kept_titled = [p for p in titled if about(p.title) is None]
        lent = next((o for o in (*(about(s) for _, s in strong), *(about(p.title) for p in titled)) if o), None)
        if lent is not None and len(kept_strong) < 2 and not any(p.subtree_chars >= ANSWER_CHARS for p in kept_titled):
            borrowed = f"只在“{lent.label}”的内容中提及"
        strong, titled = kept_strong, kept_titled
    body = [p for p in titled if p.subtree_chars >= ANSWER_CHARS]
    strong_chars = sum(len(s) for _, s in strong)
    evidence = _evidence(terms, strong, body or titled)
    if body or len(strong) >= 2 or strong_chars >= ANSWER_CHARS:
        supporting = [s for _, s in strong] + [s for p in body for s in p.sentences]
        around = {p.path: p for p, _ in strong} | {p.path: p for p in body}  # the sections that answer it, whole
        read = "".join(p.title + "".join(p.sentences) for p in around.values())
        if terms.parts and names_parts(terms, read) < len(terms.parts):  # 安全测试… for 安全测试和渗透测试
            return PointMatch("thin", evidence, "只提到了部分要点词", 2.0)
        if terms.units and not _has_unit(supporting, terms.units):
            return PointMatch("thin", evidence, f"未写明具体数值（{'、'.join(terms.units)}）", 2.0)
        return PointMatch("answered", evidence, "", 3.0)
    if strong or any(p.subtree_chars for p in titled):
        note = "只有标题，正文不足" if titled and not strong else "只有一句提及，展开不足"
        return PointMatch("thin", evidence, note, 2.0)
    if borrowed:
        return PointMatch("thin", evidence, borrowed, 1.9)
    c, weak, sentence = best_weak
    if weak is not None and c >= 0.66:
        return PointMatch("thin", [Evidence(weak.path, weak.heading, quote_of(sentence, terms))],
                          "只提到了部分要点词", 1.0 + c)
    if titled:
        return PointMatch("missing", evidence, "只有标题，没有正文", 0.5)
    return PointMatch("missing", [], "", c)


def _evidence(terms: PointTerms, strong: Sequence[tuple[Passage, str]], titled: Sequence[Passage]) -> list[Evidence]:
    out: list[Evidence] = []
    seen: set[Path] = set()
    for passage in titled:
        first = next((s for p, s in strong if p is passage), passage.sentences[0] if passage.sentences else "")
        out.append(Evidence(passage.path, passage.heading, quote_of(first, terms)))
        seen.add(passage.path)
    for passage, sentence in strong:
        if passage.path not in seen:
            out.append(Evidence(passage.path, passage.heading, quote_of(sentence, terms)))
            seen.add(passage.path)
    return out[:3]
