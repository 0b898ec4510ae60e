"""Score the format-chapter reader against hand labels: ``python tests/eval/forms_eval.py [DIR]``.

``DIR`` (default ``../shared/tenders``) holds the tenders; ``tests/data/form_labels.json`` says
which forms each one's format chapter asks for. For every labelled tender ``find_forms`` runs (no
model) and its forms are paired in order with the labelled titles:

- found: a labelled form with a found form of the same name (equal after numbering, 格式,
  punctuation and brackets are taken off, one inside the other, or most character pairs shared);
- invented: a found form that pairs with no labelled one;
- blanks: the blanks read in the found forms, and how many of them ask for a known field;
- filled: with a complete sample 企业资料 (a fictional company, ``tests/forms_fixtures.py``) and
  the tender's own facts, the share of *fact* blanks (a company or tender fact, or a cell of a list
  table of 业绩/人员/证书/设备) that get a value; the other blanks are the user's answers (price,
  date, deviations, remarks, questions code cannot tell) and are counted apart.

Prints one block per tender and the totals — for all labels, for the development set (the labels
the rules were written against) and for the check set (``"set": "check"``: tenders labelled afterwards,
of kinds the first labels did not cover); importable (:func:`evaluate`).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from app.documents.forms.finder import find_forms  # noqa: E402

LABELS = REPO / "tests" / "data" / "form_labels.json"
_NUMBER = re.compile(r"^(?:格式|附件|附表|表)?\s*[\d一二三四五六七八九十]+(?:[-－.．]\d+)*\s*[、.．:：]?")
_NOISE = re.compile(r"[\s（()）【】\[\]《》、，,。：:；;“”\"'·．./／]|格式|参考|实质性|非实质性")


def norm(name: str) -> str:
    """A title for matching: no numbering, brackets' words kept, no punctuation, no 格式."""
    text = re.sub(r"\s+", "", name or "")
    text = _NUMBER.sub("", text)
    return _NOISE.sub("", text)


def same(a: str, b: str) -> bool:
    """A found title names the labelled form."""
    x, y = norm(a), norm(b)
    if not x or not y:
        return False
    if x == y or (len(x) >= 3 and x in y) or (len(y) >= 3 and y in x):
        return True
    gx = {x[i:i + 2] for i in range(len(x) - 1)}
    gy = {y[i:i + 2] for i in range(len(y) - 1)}
    return bool(gx and gy) and 2 * len(gx & gy) / (len(gx) + len(gy)) >= 0.6


@dataclass
class Verdict:
    """What was found for one tender."""

    name: str
    labelled: list[str]
    found: list[str]
    matched: int = 0
    missed: list[str] = field(default_factory=list)
    invented: list[str] = field(default_factory=list)
    blanks: int = 0
    known: int = 0
    fillable: int = 0
    filled: int = 0
    answers: int = 0
    seconds: float = 0.0


def pair(labelled: list[str], found: list[str]) -> tuple[int, list[str], list[str]]:
    """Pairing in reading order (both lists follow the document): the most pairs of the same name that
    keep their order, an exact name preferred: (matched, missed labels, invented finds)."""
    n, m = len(labelled), len(found)
    score = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for k in range(m - 1, -1, -1):
            best = max(score[i + 1][k], score[i][k + 1])
            if same(labelled[i], found[k]):
                exact = 0.001 if norm(labelled[i]) == norm(found[k]) else 0.0
                best = max(best, 1 + exact + score[i + 1][k + 1])
            score[i][k] = best
    used: set[int] = set()
    missed = []
    i = k = 0
    while i < n:
        if k < m and same(labelled[i], found[k]) and abs(
                score[i][k] - (1 + (0.001 if norm(labelled[i]) == norm(found[k]) else 0.0) + score[i + 1][k + 1])) < 1e-9:
            used.add(k)
            i += 1
            k += 1
        elif k < m and abs(score[i][k] - score[i][k + 1]) < 1e-9:
            k += 1
        else:
            missed.append(labelled[i])
            i += 1
    invented = [f for k, f in enumerate(found) if k not in used]
    return len(labelled) - len(missed), missed, invented


def evaluate(path: Path, labelled: list[str], *, fill: bool = True) -> Verdict:
    """Read one tender's forms and compare them with its labels (``fill``: measure the fill too)."""
    t0 = time.perf_counter()
    reading = find_forms(path)
    seconds = time.perf_counter() - t0
    found = [f.name for f in reading.forms]
    matched, missed, invented = pair(labelled, found)
    v = Verdict(path.name, labelled, found, matched, missed, invented, seconds=seconds)
    v.blanks = sum(len(f.blanks) for f in reading.forms)
    v.known = sum(1 for f in reading.forms for b in f.blanks if b.field)
    if not fill or not reading.forms:
        return v
    from tests.forms_fixtures import answer_blanks, fill_share

    v.fillable, v.filled = fill_share(reading)
    v.answers = answer_blanks(reading)
    return v


def main(argv: list[str] | None = None) -> int:
    """Run every labelled tender in DIR and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", default=str(REPO.parent / "shared" / "tenders"))
    parser.add_argument("--only", default="", help="comma-separated tender file names")
    args = parser.parse_args(argv)
    folder = Path(args.folder)
    labels = {k: v for k, v in json.loads(LABELS.read_text(encoding="utf-8")).items() if not k.startswith("_")}
    only = {n for n in args.only.split(",") if n}
    totals: dict[str, Verdict] = {}
    for name, label in labels.items():
        if only and name not in only:
            continue
        path = folder / name
        if not path.exists():
            print(f"{name}: missing, skipped")
            continue
        v = evaluate(path, list(label["forms"]))
        print(f"{name}: forms {v.matched}/{len(v.labelled)} found, {len(v.invented)} invented, "
              f"{v.blanks} blanks ({v.known} with a known field)"
              + (f", facts filled {v.filled}/{v.fillable}, {v.answers} answers" if v.fillable else "")
              + f", {v.seconds:.1f}s")
        for m in v.missed:
            print(f"    missed:   {m}")
        for i in v.invented:
            print(f"    invented: {i}")
        for key in ("all", label.get("set", "dev")):
            t = totals.setdefault(key, Verdict(key, [], []))
            t.labelled += v.labelled
            t.matched += v.matched
            t.invented += v.invented
            t.blanks += v.blanks
            t.known += v.known
            t.fillable += v.fillable
            t.filled += v.filled
            t.answers += v.answers
    print()
    for key, t in totals.items():
        n = len(t.labelled)
        share = t.matched / n if n else 0.0
        title = {"all": "TOTAL", "dev": "development set", "check": "check set (labelled after the rules)"}.get(key, key)
        print(f"{title}: {t.matched}/{n} labelled forms found ({share:.1%}), {len(t.invented)} invented, "
              f"{t.blanks} blanks ({t.known} with a known field)")
    t = totals.get("all")
    if t is not None and t.fillable:
        print(f"fact blanks filled from the sample 企业资料 and the tender: {t.filled}/{t.fillable} "
              f"({t.filled / t.fillable:.1%}); {t.answers} blanks are the user's answers "
              "(price, date, deviations, remarks, unclear)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
