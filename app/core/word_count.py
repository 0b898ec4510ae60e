"""How long a section's text is, the way a bid writer counts it: characters without white space.

Markdown marks (table bars, list dashes, heading hashes) are not words either. One function
for the section editor, the outline's tooltips and the total beside the outline.
"""

from __future__ import annotations

import re

_NOT_COUNTED = re.compile(r"[\s|#>*`]+|^\s*[-+]\s|:?-{3,}:?", re.MULTILINE)


def text_chars(text: str) -> int:
    """Characters of ``text`` that a reader counts (no white space, no Markdown marks)."""
    return len(_NOT_COUNTED.sub("", text))
