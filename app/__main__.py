"""``python -m app`` and the ``bidstudio`` script: start the desktop app."""

from __future__ import annotations

import os
import sys

#: Set to 1 to start, show the main window once and quit (the frozen-build smoke check).
SMOKE_TEST_ENV = "BIDSTUDIO_SMOKE_TEST"


def main() -> int:
    """Launch the GUI (imported lazily so the CLI never loads Qt)."""
    from app.ui.main import run

    argv = list(sys.argv)
    if os.environ.get(SMOKE_TEST_ENV) == "1" and "--quit-when-visible" not in argv:
        argv.append("--quit-when-visible")  # main.run prints visible_at=... and closes the window
    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
