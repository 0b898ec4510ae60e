"""``python -m app.cli``: the same entry point as ``bidstudio-cli``."""

import sys

from app.cli import main

sys.exit(main())
