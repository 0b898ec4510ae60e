"""PyInstaller entry point of the frozen ``bidstudio`` program (same as ``python -m app``)."""

import sys

from app.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
