"""PyInstaller entry point of the frozen ``bidstudio`` program (same as ``python -m app``).

``BIDSTUDIO_SELF_CHECK=1`` runs a headless check of what a frozen build can miss instead
of the GUI: the bundled sample tender is read (documents layer, PyMuPDF), rendered in a
spawned PDF child process (the document pane's path) and a Word document is created
(python-docx templates). ``build_and_check.py`` uses it next to the GUI smoke start.
"""

import multiprocessing
import os
import sys
from typing import Any


def _ask(child: Any, name: str, *args: object, timeout: float = 60.0) -> Any:
    """Send one request to a PdfProcess and wait for its answer."""
    import time

    child.send(name, *args)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        reply = child.poll_reply()
        if reply is not None:
            status, value = reply
            if status != "ok":
                raise RuntimeError(f"{name}: {value}")
            return value
        time.sleep(0.01)
    raise TimeoutError(name)


def self_check() -> int:
    """Exercise the frozen build's PDF child processes, tender reading and Word templates."""
    import docx

    from app.core.resources import resource_path
    from app.documents.loader import load_tender
    from app.ui.tender.pdf_process import PdfProcess

    sample = resource_path("samples", "sample_tender.pdf")
    document = load_tender(sample)
    print(f"selfcheck_pages={document.page_count} readable={len(document.readable_pages)}", flush=True)
    child = PdfProcess()  # what the document pane uses
    try:
        sizes = _ask(child, "page_sizes", str(sample), None)
        width, height, _stride, _data, pid = _ask(child, "render_page", str(sample), None, 0, 1.0)
    finally:
        child.close()
    print(f"selfcheck_render={width}x{height} pages={len(sizes)} child_pid={pid} parent_pid={os.getpid()}", flush=True)
    docx.Document().add_paragraph("技术标")
    print("selfcheck_ok", flush=True)
    return 0


if __name__ == "__main__":
    multiprocessing.freeze_support()  # the document pane spawns PDF child processes
    if os.environ.get("BIDSTUDIO_SELF_CHECK") == "1":
        sys.exit(self_check())
    from app.__main__ import main

    sys.exit(main())
