"""Cheap text similarity for Chinese: character 3-gram Jaccard on normalised text.

Used to de-duplicate breakdown items merged from several chunks and to warn when two
drafted sections are near-duplicates. No tokenizer, no model: fast and deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_NOISE = re.compile(r"[\s\W_]+", re.UNICODE)


def normalize_text(text: str) -> str:
    """Lower-cased text without whitespace and punctuation (keeps CJK, letters, digits)."""
    return _NOISE.sub("", text).lower()


def char_ngrams(text: str, n: int = 3) -> frozenset[str]:
    """The set of character n-grams of the normalised text (the text itself when shorter)."""
    s = normalize_text(text)
    if len(s) <= n:
        return frozenset([s]) if s else frozenset()
    return frozenset(s[i : i + n] for i in range(len(s) - n + 1))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """Jaccard index of two sets (0.0 when both are empty)."""
    if not a and not b:
        return 0.0
    return len(a & b) / len(a | b)


def similarity(a: str, b: str, n: int = 3) -> float:
    """Character n-gram Jaccard similarity of two texts, between 0 and 1."""
    return jaccard(char_ngrams(a, n), char_ngrams(b, n))


def containment(small: str, big: str, n: int = 3) -> float:
    """Share of ``small``'s n-grams found in ``big`` (1.0: small is inside big)."""
    a, b = char_ngrams(small, n), char_ngrams(big, n)
    if not a:
        return 0.0
    return len(a & b) / len(a)


def near_duplicate_pairs(texts: Sequence[str], threshold: float = 0.6, n: int = 3) -> list[tuple[int, int, float]]:
    """Index pairs ``(i, j, score)`` with ``i < j`` whose similarity reaches ``threshold``."""
    grams = [char_ngrams(t, n) for t in texts]
    pairs: list[tuple[int, int, float]] = []
    for i in range(len(grams)):
        if not grams[i]:
            continue
        for j in range(i + 1, len(grams)):
            if not grams[j]:
                continue
            score = jaccard(grams[i], grams[j])
            if score >= threshold:
                pairs.append((i, j, score))
    return pairs
