"""Find bundled resources (prompts, samples, icons) wherever the app runs from.

One function serves a source checkout (``<repo>/resources``), an installed wheel
(``app/_resources``, mapped at build time) and a PyInstaller bundle (``sys._MEIPASS``).
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path


@cache
def resources_dir() -> Path:
    """The folder holding ``prompts/``, ``samples/`` and the other resources."""
    here = Path(__file__).resolve().parent.parent  # the app package
    candidates = []
    frozen_root = getattr(sys, "_MEIPASS", None)
    if frozen_root:
        candidates.append(Path(frozen_root) / "resources")
    candidates += [here / "_resources", here.parent / "resources"]
    for c in candidates:
        if (c / "prompts").is_dir():
            return c
    raise FileNotFoundError("找不到程序资源目录 resources/（安装可能不完整）: " + ", ".join(map(str, candidates)))


def resource_path(*parts: str) -> Path:
    """Path of one resource, e.g. ``resource_path("prompts", "outline_free.md")``."""
    return resources_dir().joinpath(*parts)


@cache
def load_prompt(name: str) -> str:
    """The text of ``resources/prompts/<name>.md``."""
    return resource_path("prompts", f"{name}.md").read_text(encoding="utf-8")
