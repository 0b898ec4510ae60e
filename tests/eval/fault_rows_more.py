"""The next twenty rows of the fault matrix: bad inputs and faults found after issue 17's probe.

Odd encodings and file names, special files where documents are expected, files that vanish
or grow while the app uses them, full disks, nonsense option values and endpoint settings.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from fault_matrix import Outcome, Row, Run, child_env, cli, gui, py, tender_docx

from tests.document_fixtures import SAMPLE_PDF
from tests.hostile_files import docx_with_many_members, private_device
from tests.openai_server import OpenAIServer

TEXT = "第一章 招标公告\n项目名称：某单位一二三期食堂服务\n预算金额：100 万元\n"


def _analyzed(r: Run, words: str) -> bool:
    return r.code == 0 and words in r.out


def row21(folder: Path) -> Outcome:
    seen = []
    for encoding, bom in (("utf-16-le", b""), ("utf-16-be", b"\xfe\xff"), ("utf-32-le", b"\xff\xfe\x00\x00")):
        path = folder / f"{encoding}.txt"
        path.write_bytes(bom + TEXT.encode(encoding))
        r = py("from app.documents.loader import load_tender\nfrom app.documents.errors import DocumentError\n"
               f"try:\n    d = load_tender({str(path)!r})\n    print([b.text for p in d.pages for b in p.blocks][1])\n"
               "except DocumentError as e:\n    print('REFUSED', e.message_zh)\n", folder, timeout=60)
        seen.append((encoding, r.out.strip() == "项目名称：某单位一二三期食堂服务", r))
    held = all(ok for _, ok, _ in seen)
    return Outcome(held, ", ".join(f"{e}: {'read' if ok else 'refused'}" for e, ok, _ in seen), seen[0][2])


def row22(folder: Path) -> Outcome:
    raw = os.fsencode(folder) + b"/\xb1\xea\xca\xe9.pdf"  # 标书 in GBK bytes, as an old archive unpacks it
    with open(raw, "wb") as handle:
        handle.write(SAMPLE_PDF.read_bytes())
    out = folder / "a.json"
    r = cli(["analyze", os.fsdecode(raw), "--json", "-o", str(out)], folder, timeout=60)
    try:
        pages = json.loads(out.read_text(encoding="utf-8"))["page_count"]
    except (OSError, ValueError, KeyError):
        pages = 0
    return Outcome(r.code == 0 and pages > 1, f"exit {r.code}, valid JSON with {pages} pages", r)


def row23(folder: Path) -> Outcome:
    (folder / "a.pdf").symlink_to(folder / "b.pdf")
    (folder / "b.pdf").symlink_to(folder / "a.pdf")
    r = cli(["analyze", str(folder / "a.pdf")], folder, timeout=60)
    return Outcome(r.code == 3 and "路径无效" in r.err, r.err.strip()[:60], r)


def row24(folder: Path) -> Outcome:
    fifo = folder / "pipe.pdf"
    os.mkfifo(fifo)
    r = cli(["analyze", str(fifo)], folder, timeout=30)
    return Outcome(r.code == 3 and not r.killed and "管道" in r.err, r.err.strip()[:60] or "hung", r)


def row25(folder: Path) -> Outcome:
    fifo = folder / "pipe.bidproj"
    os.mkfifo(fifo)
    r = py(f"from app.core.project import load_project, ProjectError\ntry:\n    load_project({str(fifo)!r})\n"
           "except ProjectError as e:\n    print(e.message_zh)\n", folder, timeout=30)
    return Outcome(not r.killed and "不是普通文件" in r.out, r.out.strip()[:60] or "hung", r)


def _gui_visible(folder: Path) -> Run:
    return gui(folder, folder / "data", folder / "config", "--quit-when-visible", timeout=60)


def row26(folder: Path) -> Outcome:
    config = folder / "config"
    config.mkdir()
    seen = []
    for label, make in (("binary", lambda p: p.write_bytes(b"\xff\xfe\x00garbage")),
                        ("100k-deep", lambda p: p.write_bytes(b"[" * 100_000 + b"]" * 100_000)),
                        ("FIFO", os.mkfifo)):
        settings = config / "settings.json"
        if settings.exists() or settings.is_symlink():
            settings.unlink()
        make(settings)
        r = _gui_visible(folder)
        seen.append((label, r.code == 0 and "visible_at=" in r.out, r))
    held = all(ok for _, ok, _ in seen)
    return Outcome(held, ", ".join(f"{label}: {'started' if ok else 'FAILED'}" for label, ok, _ in seen), seen[-1][2])


def row27(folder: Path) -> Outcome:
    data = folder / "data"
    data.mkdir()
    log = data / "crash.log"
    with log.open("wb") as handle:
        handle.truncate(1024**3)  # sparse 1 GB
        handle.seek(0, os.SEEK_END)
        handle.write(b"Traceback: last error\n")
    previous = data / "crash.previous.log"
    r = gui(folder, data, folder / "config", until=previous.exists, settle=2.0, timeout=60)
    held = previous.exists() and r.code is None and not r.killed and r.peak_mb < 600
    return Outcome(held, f"offered the tail; peak {r.peak_mb:.0f} MB", r)


def row28(folder: Path) -> Outcome:
    path = folder / "new.bidproj"
    content = '{"format": "bidstudio-project", "format_version": 99, "title": "未来"}'
    path.write_text(content, encoding="utf-8")
    r = py(f"from app.core.project import load_project, ProjectError\ntry:\n    load_project({str(path)!r})\n"
           "except ProjectError as e:\n    print(type(e).__name__, e.message_zh)\n", folder, timeout=60)
    held = "ProjectTooNewError" in r.out and "升级" in r.out and path.read_text(encoding="utf-8") == content
    return Outcome(held, r.out.strip()[:70], r)


def row29(folder: Path) -> Outcome:
    path = folder / "huge.bidproj"
    with path.open("wb") as handle:
        handle.truncate(2 * 1024**3)
    r = py(f"from app.core.project import load_project, ProjectError\ntry:\n    load_project({str(path)!r})\n"
           "except ProjectError as e:\n    print(e.message_zh)\n", folder, timeout=60)
    return Outcome("上限" in r.out and r.peak_mb < 300, r.out.strip()[:60], r)


def row30(folder: Path) -> Outcome:
    code = (f"from pathlib import Path\nfrom app.core.session import ProjectSession\nfrom app.core.project import load_project\n"
            f"t = Path({str(folder / 't.pdf')!r}); t.write_bytes(b'%PDF-1.4')\ns = ProjectSession(); s.set_tender(t, None)\n"
            f"t.rename(t.with_name('renamed.pdf'))\ns.save(Path({str(folder / 'p.bidproj')!r}))\n"
            f"print(load_project({str(folder / 'p.bidproj')!r}).tender)\n")
    r = py(code, folder, timeout=60)
    return Outcome(r.code == 0 and "t.pdf" in r.out, "reference kept" if "t.pdf" in r.out else r.text[-80:], r)


_FULL_DISK = ("import resource, signal\nsignal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
              "resource.setrlimit(resource.RLIMIT_FSIZE, (2000, 2000))\n")


def row31(folder: Path) -> Outcome:
    target = folder / "p.bidproj"
    target.write_text("OLD", encoding="utf-8")
    r = py(_FULL_DISK + "from app.core.project import Project, save_project, ProjectError\n"
           "from app.core.outline import OutlineNode, OutlineDocument\n"
           "p = Project(outline=OutlineDocument(outline=[OutlineNode(title='总体方案', content='正文' * 5000)]))\n"
           f"try:\n    save_project(p, {str(target)!r})\nexcept ProjectError as e:\n    print(e.message_zh)\n", folder)
    held = "原有文件未被改动" in r.out and target.read_text(encoding="utf-8") == "OLD" and not list(folder.glob(".*.tmp"))
    return Outcome(held, r.out.strip()[:60], r)


def row32(folder: Path) -> Outcome:
    target = folder / "bid.docx"
    target.write_bytes(b"OLD")
    r = py(_FULL_DISK + "from app.core.outline import OutlineNode\nfrom app.export import export_docx, ExportMeta\n"
           "from app.export.options import ExportError\n"
           f"try:\n    export_docx([OutlineNode(title='总体方案', content='正文' * 5000)], {str(target)!r},"
           " ExportMeta(project_name='x'))\nexcept ExportError as e:\n    print(e.message_zh)\n", folder)
    held = bool(r.out.strip()) and target.read_bytes() == b"OLD" and not list(folder.glob(".*.tmp"))
    return Outcome(held, r.out.strip()[:60] or r.err.strip()[-60:], r)


def row33(folder: Path) -> Outcome:
    r = py(_FULL_DISK + "import sys\nfrom app.cli import main\n"
           f"sys.exit(main(['analyze', {str(SAMPLE_PDF)!r}, '--json', '-o', {str(folder / 'a.json')!r}]))\n", folder)
    held = r.code == 1 and "无法写入输出文件" in r.err and "Traceback" not in r.err
    return Outcome(held, r.err.strip()[:60], r)


def row34(folder: Path) -> Outcome:
    tender = folder / "t.pdf"
    tender.write_bytes(SAMPLE_PDF.read_bytes())
    r1 = cli(["analyze", str(tender), "-o", str(tender)], folder, timeout=60)
    r2 = cli(["outline", str(tender), "-o", str(folder / "x.json"), "--report", str(folder / "x.json"),
              "--base-url", "http://127.0.0.1:9/v1", "--model", "m"], folder, timeout=60)
    held = r1.code == 2 and r2.code == 2 and tender.read_bytes() == SAMPLE_PDF.read_bytes()
    return Outcome(held, "both refused; tender untouched" if held else f"exits {r1.code}/{r2.code}", r2)


def row35(folder: Path) -> Outcome:
    tender = tender_docx(folder)
    bad = [["--timeout", "nan"], ["--timeout", "-1"], ["--temperature", "9"], ["--max-run-tokens", "0"],
           ["--context-size", "-5"]]
    with OpenAIServer() as server:
        runs = [cli(["outline", str(tender), "-o", str(folder / "o.json"), "--base-url", server.base_url,
                     "--model", "m", *b], folder, timeout=60) for b in bad]
        requests = len(server.requests)
    held = all(r.code == 2 for r in runs) and requests == 0
    return Outcome(held, f"exits {'/'.join(str(r.code) for r in runs)}; {requests} requests sent", runs[0])


def row36(folder: Path) -> Outcome:
    tender = tender_docx(folder)
    secret = "sk-文字-key"
    seen = []
    for url, key in (("http://[::1", "k"), ("http://127.0.0.1:99999/v1", "k"), ("http://127.0.0.1:9/v1", secret),
                     ("http://127.0.0.1:9/v1", "sk-ab\nInjected: 1")):
        r = cli(["outline", str(tender), "-o", str(folder / "o.json"), "--base-url", url, "--model", "m"], folder,
                env=child_env(BIDSTUDIO_API_KEY=key), timeout=60)
        seen.append(r.code == 2 and "内部错误" not in r.err and key not in r.err)
    return Outcome(all(seen), "every bad address or key explained, key never echoed" if all(seen)
                   else f"results {seen}", r)


def row37(folder: Path) -> Outcome:
    d = __import__("docx").Document()
    d.add_paragraph("第三章 评标办法")
    d.add_table(rows=0, cols=0)
    d.add_table(rows=3, cols=4)
    d.add_paragraph("技术评分表")
    d.add_table(rows=1, cols=1)
    path = folder / "empty-tables.docx"
    d.save(str(path))
    r = cli(["analyze", str(path), "--json"], folder, timeout=60)
    return Outcome(r.code in (0, 3) and "Traceback" not in r.err, f"exit {r.code}", r)


def row38(folder: Path) -> Outcome:
    path = folder / "one-line.txt"
    path.write_text("第一章 招标公告 " + "项目内容说明，" * 3_000_000, encoding="utf-8")  # 63 MB, no line break
    r = cli(["analyze", str(path), "--json", "-o", str(folder / "a.json")], folder, timeout=180)
    return Outcome(r.code == 0 and r.seconds < 60 and r.peak_mb < 1000, f"{r.seconds:.0f} s, {r.peak_mb:.0f} MB", r)


def row39(folder: Path) -> Outcome:
    path = docx_with_many_members(folder / "many.docx", members=60_000)
    r = cli(["analyze", str(path)], folder, timeout=60)
    return Outcome(r.code == 3 and "文件解压后过大" in r.err and r.seconds < 10, r.err.strip()[:60], r)


def row40(folder: Path) -> Outcome:
    target = folder / "link.bidproj"
    real = folder / "real.bidproj"
    device = private_device(folder, "null", minor=3)  # our own /dev/null: older code must not replace the system's
    code = ("from app.core.project import Project, save_project, load_project\n"
            f"save_project(Project(title='甲'), {str(real)!r})\n"
            f"import os; os.symlink({str(real)!r}, {str(target)!r})\n"
            f"save_project(Project(title='乙'), {str(target)!r})\n"
            f"print(os.path.islink({str(target)!r}), load_project({str(real)!r}).title)\n"
            "from app.core.atomic_file import atomic_write_text, AtomicWriteError\n"
            f"try:\n    atomic_write_text({str(device)!r}, 'x')\nexcept AtomicWriteError as e:\n    print('refused')\n")
    r = py(code, folder, timeout=60)
    held = r.out.split() == ["True", "乙", "refused"] and stat.S_ISCHR(os.stat(device).st_mode)
    return Outcome(held, "save through a link keeps the link; a device is never replaced" if held else r.text[-80:], r)


def _many_page_pdf(path: Path, pages: int) -> Path:
    """A PDF of ``pages`` one-line pages sharing one content stream (8 MB for 50,000 pages)."""
    content = b"BT /F1 12 Tf 72 720 Td (Chapter 1 General) Tj ET"
    kids = " ".join(f"{5 + i} 0 R" for i in range(pages))
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", f"<< /Type /Pages /Count {pages} /Kids [{kids}] >>".encode(),
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream"]
    objs += [b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >>"
             b" /Contents 4 0 R >>"] * pages
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for i, obj in enumerate(objs, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + obj + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    path.write_bytes(bytes(out))
    return path


def row41(folder: Path) -> Outcome:
    pdf = _many_page_pdf(folder / "many.pdf", 50_000)
    r = cli(["analyze", str(pdf)], folder, timeout=300)
    held = r.code == 0 and "只读取了前" in r.out and r.seconds < 30 and r.peak_mb < 500
    return Outcome(held, f"{r.seconds:.0f} s, {r.peak_mb:.0f} MB; " + ("first pages read, the limit reported"
                                                                     if "只读取了前" in r.out else "no limit"), r)


def row42(folder: Path) -> Outcome:
    import io
    import zipfile

    from tests.hostile_files import small_docx_bytes

    source = zipfile.ZipFile(io.BytesIO(small_docx_bytes()))
    path = folder / "breaks.docx"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == "word/document.xml":
                data = data.replace(b"<w:body>", b"<w:body><w:p><w:r>" + b'<w:br w:type="page"/>' * 300_000
                                    + b"<w:t>x</w:t></w:r></w:p>", 1)
            out.writestr(info, data)
    r = cli(["analyze", str(path)], folder, timeout=300)
    held = r.code == 0 and "上限" in r.out and r.seconds < 20 and r.peak_mb < 400
    return Outcome(held, f"{path.stat().st_size // 1024} KB file: {r.seconds:.0f} s, {r.peak_mb:.0f} MB", r)


MORE_ROWS = [
    Row(21, "text tender in UTF-16 (no BOM), UTF-16BE, UTF-32", "hardening", row21),
    Row(22, "tender whose file name is not UTF-8 (GBK bytes), --json -o", "hardening", row22),
    Row(23, "symbolic-link loop as the tender", "hardening", row23),
    Row(24, "FIFO as the tender", "hardening", row24),
    Row(25, "FIFO as the project file", "hardening", row25),
    Row(26, "settings.json binary / 100k-deep / a FIFO (GUI start)", "hardening", row26),
    Row(27, "1 GB crash.log from an earlier session (GUI start)", "hardening", row27),
    Row(28, "project from a newer version (format 99)", "hardening", row28),
    Row(29, "2 GB project file", "hardening", row29),
    Row(30, "tender renamed while open, then save", "hardening", row30),
    Row(31, "disk full while saving a project", "hardening", row31),
    Row(32, "disk full while exporting Word", "export", row32),
    Row(33, "disk full while writing CLI JSON output", "hardening", row33),
    Row(34, "-o onto the tender itself; -o and --report the same file", "hardening", row34),
    Row(35, "--timeout nan/-1, --temperature 9, --max-run-tokens 0, --context-size -5", "hardening", row35),
    Row(36, "base URL with a bad port or bracket; key with CJK or a line break", "hardening", row36),
    Row(37, "DOCX with empty and zero-row tables", "hardening", row37),
    Row(38, "63 MB text tender on one line", "hardening", row38),
    Row(39, "DOCX with 60,000 zip members", "hardening", row39),
    Row(40, "save through a symbolic link; save onto a device like /dev/null", "hardening", row40),
    Row(41, "PDF of 50,000 pages", "hardening", row41),
    Row(42, "DOCX of 52 KB holding 300,000 page breaks", "hardening", row42),
]
