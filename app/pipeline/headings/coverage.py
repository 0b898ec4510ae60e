"""A short label for a scoring detail point (评分细则要点), as a heading seed or in a message.

Which points an outline answers is judged by the 评审模拟 engine
(:mod:`app.pipeline.evaluation.outline_points`), for the run's report, its reviewer and code fill alike.
"""

from __future__ import annotations

import re


def point_label(point: str, max_len: int = 24) -> str:
    """A short label for a detail point, usable as a heading seed or in a message."""
    t = re.sub(r"^\s*(?:[①-⑳]|\(?\d+[).、]|[一二三四五六七八九十]+、)\s*", "", point).strip()
    t = re.split(r"[，,。；;：:（(]", t, maxsplit=1)[0].strip()
    return t[:max_len] or point[:max_len]
