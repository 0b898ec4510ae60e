"""PyInstaller entry point of the frozen ``bidstudio`` program (same as ``python -m app``).

``BIDSTUDIO_SELF_CHECK=1`` runs a headless check of what a frozen build can miss instead
of the GUI: the bundled sample tender is read (documents layer, PyMuPDF), rendered in a
spawned PDF child process (the document pane's path) and a Word document is created
(python-docx templates); with ``BIDSTUDIO_SELF_CHECK_KEYRING=1`` (a Secret Service on the session
bus) an API key is stored, read back and deleted through the bundled keyring; with
``BIDSTUDIO_SELF_CHECK_PG`` (a server's settings as JSON; libpq's ``PGSSLMODE``/``PGSSLROOTCERT`` in the
environment) the office library stores and reads a fact on PostgreSQL over TLS. ``build_and_check.py``
uses it next to the GUI smoke start.

``bidstudio cli COMMAND …`` runs the headless CLI (``bidstudio-cli COMMAND …``) from the
same bundle, e.g. ``bidstudio cli analyze tender.pdf --ocr force``; the build check reads a
generated scanned page with it, offline. (On Windows the bundle is a GUI program, so the CLI
prints nothing there; its exit code and ``--output`` files still work.)

``bidstudio guard --parent PID -- COMMAND…`` is :mod:`app.llm.local.guard` (the frozen program
has no ``python -m``): the built-in model's server runs under it and never outlives the app.
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


def ocr_worker_check(scan: str) -> None:
    """Read page 1 of ``scan`` in the OCR worker process the document pane spawns; print what it read."""
    import tempfile
    from pathlib import Path

    from app.documents.loader import load_tender
    from app.documents.ocr.apply import OcrMode, OcrSettings
    from app.ui.tender.ocr_child import serve_ocr

    ctx = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory(prefix="bidstudio-ocr-cache-") as cache:
        parent, child = ctx.Pipe(duplex=False)
        cancel = ctx.Event()
        proc = ctx.Process(target=serve_ocr, args=(child, cancel, scan, None, [1], cache), daemon=True)
        proc.start()
        child.close()
        messages = []
        while True:
            try:
                msg = parent.recv()
            except EOFError:
                proc.join(30)
                raise RuntimeError(f"OCR worker ended without a word (exit code {proc.exitcode})") from None
            messages.append(msg[0])
            if msg[0] != "page":
                break
        proc.join(30)
        if msg[0] != "done":
            raise RuntimeError(f"OCR worker: {msg}")
        doc = load_tender(scan, ocr=OcrSettings(mode=OcrMode.CACHED, cache_dir=Path(cache)))
        text = "".join(doc.text().split())
    print(f"selfcheck_ocr_worker pid={proc.pid} exit={proc.exitcode} messages={messages} "
          f"ocr_pages={[p.number for p in doc.pages if p.source == 'ocr']} text={text[:60]}", flush=True)


def keyring_check() -> None:
    """The API key stored, read back by a new store (the next run) and deleted through the bundled keyring."""
    import keyring

    from app.core.api_keys import ApiKeyStore

    account, key = "https://selfcheck.invalid/v1", "sk-selfcheck-密钥"
    store = ApiKeyStore()
    backend = keyring.get_keyring()
    chained = getattr(backend, "backends", [backend])
    stored = store.set(account, key)
    read_back = ApiKeyStore().get(account) == key
    store.set(account, "")
    deleted = ApiKeyStore().get(account) == ""
    ok = store.persistent and stored and read_back and deleted
    print(f"selfcheck_keyring {'ok' if ok else 'FAILED'} backends={[type(b).__name__ for b in chained]} "
          f"stored={stored} read_back={read_back} deleted={deleted} warning={store.warning_zh}", flush=True)
    if not ok:
        raise RuntimeError("the API key could not be stored in the Secret Service")


def office_library_check(conf: str) -> None:
    """The office library (资料库共享) on a PostgreSQL server through the bundled psycopg/libpq: a fact stored and
    read back by the app's own engine over the connection ``PGSSLMODE``/``PGSSLROOTCERT`` ask for; the TLS in use
    (``pg_stat_ssl``); and, with ``BIDSTUDIO_SELF_CHECK_PG_WRONG_CA``, a connection trusting another CA refused."""
    import json

    import psycopg

    from app.library.engines.postgres import PostgresStore, connect
    from app.library.store import ServerConfig

    config = ServerConfig(**json.loads(conf))
    store = PostgresStore(config)
    try:
        store.add_facts([("selfcheck", {"名称": "标书工坊自检"}, "build check")])
        facts = store.facts("selfcheck")
    finally:
        store.close()
    with connect(config) as con:
        row = con.execute("SELECT ssl, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()").fetchone()
    refused = "not tried"
    wrong = os.environ.get("BIDSTUDIO_SELF_CHECK_PG_WRONG_CA")
    if wrong:
        os.environ["PGSSLROOTCERT"] = wrong
        try:
            connect(config).close()
            refused = "no"
        except psycopg.OperationalError as exc:
            refused = "yes" if "certificate verify failed" in str(exc) else f"other error: {exc}"
    print(f"selfcheck_pg libpq={psycopg.pq.version()} ssl={row[0] if row else None} tls={row[1] if row else None} "
          f"facts={len(facts)} fact={facts[0].data if facts else None} wrong_ca_refused={refused}", flush=True)


def self_check() -> int:
    """Exercise the frozen build's PDF child processes, tender reading, Word templates and a figure."""
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
    word = docx.Document()  # templates python-docx reads from files: the document, a new footer and header
    word.add_paragraph("技术标")
    word.sections[0].footer.is_linked_to_previous = False
    word.sections[0].header.is_linked_to_previous = False
    print(f"selfcheck_word footer={len(word.sections[0].footer.paragraphs)} "
          f"header={len(word.sections[0].header.paragraphs)}", flush=True)
    # A figure with Chinese labels, PNG and SVG: matplotlib's data (the fonts kept, see bidstudio.spec) and Agg.
    from app.core.figures import Figure, OrgChart, OrgUnit
    from app.export.figures.render import render_png, render_svg

    figure = Figure(title="项目组织机构图", data=OrgChart(units=[
        OrgUnit(name="项目经理", note="总体负责"), OrgUnit(name="技术保障部", parent="项目经理"),
        OrgUnit(name="质量管理部", parent="项目经理")]))
    png, svg = render_png(figure, dpi=100), render_svg(figure)
    print(f"selfcheck_figure png_bytes={len(png.png)} svg_bytes={len(svg)} cjk_font={png.cjk_font}", flush=True)
    if os.environ.get("BIDSTUDIO_SELF_CHECK_KEYRING") == "1":  # a Secret Service is on the session bus
        keyring_check()
    scan = os.environ.get("BIDSTUDIO_SELF_CHECK_OCR")
    if scan:  # the window's OCR path: a spawned worker process reads page 1 into the cache
        ocr_worker_check(scan)
    pg = os.environ.get("BIDSTUDIO_SELF_CHECK_PG")
    if pg:  # a PostgreSQL server for the office library (build_and_check.office_server)
        office_library_check(pg)
    print("selfcheck_ok", flush=True)
    return 0


if __name__ == "__main__":
    multiprocessing.freeze_support()  # the document pane spawns PDF child processes
    # The sub-commands first: the guard is started by the app itself and inherits its environment,
    # so a check's switches below (BIDSTUDIO_CLEAN_WALK, …) must not turn it into a second app.
    if len(sys.argv) > 1 and sys.argv[1] == "guard":  # keeps the built-in model server tied to the app
        from app.llm.local.guard import main as guard_main

        sys.exit(guard_main(sys.argv[2:]))
    if len(sys.argv) > 1 and sys.argv[1] == "cli":
        from app.cli import main as cli_main

        sys.exit(cli_main(sys.argv[2:]))
    if os.environ.get("BIDSTUDIO_SELF_CHECK") == "1":
        sys.exit(self_check())
    if os.environ.get("BIDSTUDIO_CLEAN_WALK"):  # build_spec/clean_machine_check.py: a user's first session
        import clean_walk

        sys.exit(clean_walk.main())
    from app.__main__ import main

    sys.exit(main())
