"""``python -m app`` and the ``bidstudio`` script: start the desktop app."""

from __future__ import annotations

import sys


def main() -> int:
    """Launch the GUI (imported lazily so the CLI never loads Qt)."""
    import multiprocessing

    multiprocessing.freeze_support()  # the library's import process in a packaged app
    from app.ui.shell.main import run

    return run(sys.argv)


if __name__ == "__main__":
    sys.exit(main())
