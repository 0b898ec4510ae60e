"""Convert a .docx to PDF with LibreOffice after updating its indexes (the TOC) — what Word does on open.

Run with a Python that has LibreOffice's ``uno`` module (on Debian: ``/usr/bin/python3``):
``/usr/bin/python3 tests/tools/lo_update_toc.py in.docx out.pdf``. Used only to render
documentation previews; the exporter itself never needs LibreOffice.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path


def main(src: str, dst: str) -> int:
    """Start a private headless soffice, load ``src``, update indexes and fields, export ``dst``."""
    import uno  # type: ignore[import-not-found]
    from com.sun.star.beans import PropertyValue  # type: ignore[import-not-found]

    def prop(name: str, value: object) -> PropertyValue:
        p = PropertyValue()
        p.Name, p.Value = name, value
        return p

    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if not soffice:
        print("LibreOffice not found", file=sys.stderr)
        return 2
    pipe = f"bidstudio_{uuid.uuid4().hex}"
    profile = Path(tempfile.mkdtemp(prefix="lo_profile_"))
    proc = subprocess.Popen(
        [
            soffice,
            "--headless",
            "--invisible",
            "--norestore",
            "--nologo",
            f"-env:UserInstallation={profile.as_uri()}",
            f"--accept=pipe,name={pipe};urp;",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        local = uno.getComponentContext()
        resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
        ctx = None
        for _ in range(120):
            try:
                ctx = resolver.resolve(f"uno:pipe,name={pipe};urp;StarOffice.ComponentContext")
                break
            except Exception:
                time.sleep(0.25)
        if ctx is None:
            print("could not connect to LibreOffice", file=sys.stderr)
            return 3
        desktop = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
        doc = desktop.loadComponentFromURL(Path(src).resolve().as_uri(), "_blank", 0, (prop("Hidden", True),))
        indexes = doc.getDocumentIndexes()
        for i in range(indexes.getCount()):
            indexes.getByIndex(i).update()
        doc.getTextFields().refresh()
        doc.storeToURL(Path(dst).resolve().as_uri(), (prop("FilterName", "writer_pdf_Export"),))
        doc.close(True)
        try:
            desktop.terminate()
        except Exception:
            pass
        return 0
    finally:
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__)
        raise SystemExit(1)
    os.environ.setdefault("SAL_USE_VCLPLUGIN", "svp")
    raise SystemExit(main(sys.argv[1], sys.argv[2]))
