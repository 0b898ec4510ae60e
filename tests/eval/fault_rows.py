"""The rows of the fault matrix: issue 17's twenty probes, then the next twenty.

Each probe gets an empty folder, builds its input there, runs the program through
:mod:`fault_matrix`'s helpers and returns an :class:`Outcome` saying whether the
expectation of the issue (or of the row's title) held. Owners name the helper whose area
the fix lives in.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import sys
import threading
import time
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from fault_matrix import REPO, Outcome, Row, Run, child_env, cli, gui, py, run, tender_docx

from tests.document_fixtures import SAMPLE_PDF, encrypted_pdf
from tests.hostile_files import (
    V0_CHILDREN_NOT_A_LIST,
    docx_bomb,
    nested_json,
    private_device,
    private_stdout_link,
    small_docx_bytes,
    write_recovery_file,
)
from tests.openai_server import OpenAIServer, Reply

KEY = "sk-fault-matrix-0123456789abcdef"


def no_traceback(r: Run) -> bool:
    return "Traceback" not in r.text and "RecursionError" not in r.text


def outline_args(tender: Path, folder: Path, base_url: str, *extra: str) -> list[str]:
    return ["outline", str(tender), "-o", str(folder / "outline.json"), "--base-url", base_url,
            "--model", "test-model", "--analysis", "table", "--no-review", "-q", *extra]


# ----------------------------------------------------------------------------- issue 17, rows 1-20


def row01(folder: Path) -> Outcome:
    bomb = docx_bomb(folder / "bomb.docx", inflated_mb=1100)
    r = cli(["analyze", str(bomb)], folder, timeout=120)
    held = r.code == 3 and "文件解压后过大" in r.err and r.seconds < 15 and r.peak_mb < 500
    return Outcome(held, f"{bomb.stat().st_size / 1e6:.1f} MB file → {r.err.strip()[:60]}", r)


@contextmanager
def dripping_server(interval: float) -> Any:
    """An endpoint that answers every request with one byte every ``interval`` seconds, forever."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.2)
    stop = threading.Event()

    def serve(conn: socket.socket) -> None:
        with conn:
            try:
                conn.settimeout(5)
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
                while not stop.is_set():
                    conn.sendall(b" ")
                    stop.wait(interval)
            except OSError:
                return

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    finally:
        stop.set()
        thread.join(2)
        listener.close()


def row02(folder: Path) -> Outcome:
    tender = tender_docx(folder)
    with dripping_server(1.0) as url:
        r = cli(outline_args(tender, folder, url, "--timeout", "4", "--max-calls", "1", "--no-code-fill"), folder, timeout=75)
    # --no-code-fill: this row probes the endpoint-timeout failure (by default code would fill the
    # chapters once the one-call budget is spent and the run would end valid).
    # 4 attempts of 4 s plus backoff (1+2+4 s, jitter up to 1.5x) and start-up: well under 45 s
    held = not r.killed and r.seconds < 45 and r.code in (4, 5)
    return Outcome(held, f"--timeout 4 against 1 byte/s: ended after {r.seconds:.0f} s" if not r.killed
                   else "still waiting when stopped at 75 s", r)


def row03(folder: Path) -> Outcome:
    tender = tender_docx(folder)
    journal = folder / "journal"
    with OpenAIServer() as server:
        server.default = Reply.text("很长的回答内容" * 1_500_000, chunk_size=65536)  # ~10.5 M characters
        r = cli(outline_args(tender, folder, server.base_url, "--strategy", "stream", "--switch-after", "0",
                             "--max-calls", "4", "--journal", str(journal)), folder, timeout=240)
    size = sum(p.stat().st_size for p in journal.rglob("*") if p.is_file()) if journal.exists() else 0
    held = not r.killed and r.seconds < 90 and size < 20e6 and no_traceback(r)
    return Outcome(held, f"10 MB streamed answers: {r.seconds:.0f} s, journal {size / 1024:.0f} KB", r)


def row04(folder: Path) -> Outcome:
    tender = tender_docx(folder)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: connection refused
    report = folder / "report.json"
    r = cli(["outline", str(tender), "-o", str(folder / "o.json"), "--report", str(report), "--base-url",
             f"http://127.0.0.1:{port}/v1", "--model", "m", "-q"], folder, timeout=120)
    data = json.loads(report.read_text(encoding="utf-8")) if report.exists() else {}
    failure = data.get("failure") or {}
    held = r.code == 5 and bool(failure.get("stage")) and bool(failure.get("cause") or failure.get("message"))
    return Outcome(held, f"report: stage={failure.get('stage')} kind={failure.get('kind')}", r)


def row05(folder: Path) -> Outcome:
    tender = tender_docx(folder)
    report, journal = folder / "report.json", folder / "journal"
    with OpenAIServer() as server:
        server.default = Reply.error(400, f"bad request; received header Authorization: Bearer {KEY}")
        r = cli(["outline", str(tender), "-o", str(folder / "o.json"), "--report", str(report), "--journal",
                 str(journal), "--base-url", server.base_url, "--model", "m", "--analysis", "model"], folder,
                env=child_env(BIDSTUDIO_API_KEY=KEY), timeout=120)
    leaks = [name for name, text in [("stderr", r.text), *[(p.name, p.read_text("utf-8", "replace"))
                                                          for p in folder.rglob("*.json*") if p.is_file()]]
             if KEY in text]
    return Outcome(not leaks, "key found in " + ", ".join(leaks) if leaks else "key in no message, report or journal", r)


def _instruction_row(folder: Path, answer: str, injected: list[str]) -> Outcome:
    tender = tender_docx(folder)
    with OpenAIServer() as server:
        server.default = Reply.text(answer)
        r = cli(outline_args(tender, folder, server.base_url, "--strategy", "stream", "--switch-after", "0",
                             "--max-calls", "6"), folder, timeout=180)
    outline = (folder / "outline.json").read_text(encoding="utf-8") if (folder / "outline.json").exists() else ""
    applied = [t for t in injected if t in outline]
    held = r.code in (0, 4) and no_traceback(r) and not applied
    note = f"exit {r.code}" + (", traceback on stderr" if not no_traceback(r) else "") + (
        f", applied {applied}" if applied else ", rejected like any bad instruction")
    return Outcome(held, note, r)


def row07(folder: Path) -> Outcome:
    deep = '{"op":"set","path":"/outline/0/title","value":' + '{"a":' * 300 + "1" + "}" * 300 + "}\n"
    return _instruction_row(folder, "思考。\n" + deep + "[" * 100_000 + "\n", [])


def row08(folder: Path) -> Outcome:
    answer = ('{"op":"set","path":"/outline/\u0662/title","value":"注入标题阿拉伯数字"}\n'
              '{"op":"set","path":"/outline/\u00b2/title","value":"注入标题上标数字"}\n')
    return _instruction_row(folder, answer, ["注入标题阿拉伯数字", "注入标题上标数字"])


def _gui_start_with_recoveries(folder: Path, **bad: Any) -> tuple[Run, Path]:
    data, config = folder / "data", folder / "config"
    recovery = data / "recovery"
    write_recovery_file(recovery, "bad", **bad)
    write_recovery_file(recovery, "good", title="好的工作")
    broken = recovery / "bad.recovery.json.broken"
    r = gui(folder, data, config, until=broken.exists, settle=2.0, timeout=60)
    return r, broken


def row09(folder: Path) -> Outcome:
    naive = folder / "naive"
    huge = folder / "huge"
    naive.mkdir()
    huge.mkdir()
    r1, b1 = _gui_start_with_recoveries(naive, saved_at=datetime(2024, 5, 1, 12, 0).isoformat())
    r2, b2 = _gui_start_with_recoveries(huge, pid=10**30)
    held = all(r.code is None and not r.killed for r in (r1, r2)) and b1.exists() and b2.exists()
    note = "app kept running; both files set aside as .broken" if held else \
        f"exits {r1.code}/{r2.code}, set aside {b1.exists()}/{b2.exists()}"
    return Outcome(held, note, r2)


def row10(folder: Path) -> Outcome:
    import subprocess

    with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]) as other:
        try:
            write_recovery_file(folder / "rec", "reused", pid=other.pid, process="linux:old-boot:1")
            write_recovery_file(folder / "rec", "old-format", pid=other.pid)
            r = py("import sys; from pathlib import Path; from app.core.recovery import pending_recoveries;"
                   "print(len(pending_recoveries(Path(sys.argv[1]))))".replace("sys.argv[1]", repr(str(folder / "rec"))),
                   folder, timeout=60)
        finally:
            other.kill()
    held = r.out.strip() == "2"
    return Outcome(held, f"offered {r.out.strip() or '?'} of 2 files whose pid is a live non-BidStudio process", r)


def _load_project_probe(folder: Path, content: str) -> tuple[Run, bool]:
    path = folder / "p.bidproj"
    path.write_text(content, encoding="utf-8")
    code = ("from app.core.project import load_project, ProjectError\n"
            f"try:\n    load_project({str(path)!r})\n    print('LOADED')\n"
            "except ProjectError as e:\n    print('ProjectError', e.message_zh)\n")
    r = py(code, folder, timeout=60)
    return r, path.read_text(encoding="utf-8") == content


def row11(folder: Path) -> Outcome:
    results = [_load_project_probe(folder, nested_json(100_000)), _load_project_probe(folder, V0_CHILDREN_NOT_A_LIST)]
    held = all(r.code == 0 and "ProjectError" in r.out and "文件已损坏" in r.out and same for r, same in results)
    return Outcome(held, "; ".join(r.out.strip()[:50] or r.err.strip()[-60:] for r, _ in results), results[0][0])


def row12(folder: Path) -> Outcome:
    import shutil
    import subprocess

    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        return Outcome(True, "skipped: LibreOffice not installed")
    src = folder / "src.docx"
    src.write_bytes(small_docx_bytes("第一章 招标公告\n项目名称：破折号命名的老式文件"))
    subprocess.run([soffice, "--headless", f"-env:UserInstallation=file://{folder}/lo", "--convert-to", "doc",
                    "--outdir", str(folder), str(src)], capture_output=True, timeout=120, check=False)
    (folder / "src.doc").rename(folder / "-dash.doc")
    r = cli(["analyze", "./-dash.doc"], folder, env=child_env(HOME=str(folder)), timeout=180)
    held = r.code == 0 and "Usage" not in r.text and "（doc，" in r.out
    return Outcome(held, "converted by LibreOffice and read" if held else r.text.strip().splitlines()[0][:80], r)


def row13(folder: Path) -> Outcome:
    locked = encrypted_pdf(folder / "locked.pdf", user_pw="pw")
    report = folder / "report.json"
    with OpenAIServer() as server:
        server.require_key = "right"
        r = cli(["outline", str(locked), "--password", "pw", "-o", str(folder / "o.json"), "--report", str(report),
                 "--base-url", server.base_url, "--model", "m", "--analysis", "model", "-q"], folder,
                env=child_env(BIDSTUDIO_API_KEY="wrong"), timeout=120)
    stage = (json.loads(report.read_text("utf-8")).get("failure") or {}).get("stage") if report.exists() else None
    held = r.code == 5 and stage not in (None, "ingest")
    return Outcome(held, f"outline accepted --password; failed later at stage {stage}", r)


def row14(folder: Path) -> Outcome:
    # our own device node and stdout link: probing older code must never replace the system's /dev entries
    device = private_device(folder, "full")
    link = private_stdout_link(folder)
    runs = [cli(["analyze", str(SAMPLE_PDF), "-o", target], folder, timeout=60)
            for target in ("/nonexistent/x.json", str(link), str(device))]
    still_device = stat.S_ISCHR(os.stat(device).st_mode) and link.is_symlink()
    held = all(r.code == 2 and "错误" in r.err for r in runs) and still_device
    return Outcome(held, "exits " + "/".join(str(r.code) for r in runs) + ("; device and link untouched" if still_device
                                                                           else "; device or link REPLACED"), runs[-1])


def row15(folder: Path) -> Outcome:
    r = cli(["analyze", "/proc/self/environ"], folder, timeout=60)
    held = r.code == 3 and "普通文件" in r.err and "下载未完成" not in r.err
    return Outcome(held, r.err.strip()[:70], r)


def _export_probe(folder: Path, code: str) -> Run:
    return py("from app.core.outline import OutlineNode\n"
              "from app.export import export_docx, ExportMeta\n"
              "from app.export.docx_writer import export_bid\n"
              "from app.export.options import ExportOptions, ExportError\n" + code, folder, timeout=120)


def row16(folder: Path) -> Outcome:
    bidder = "上海申江智慧城市科技有限公司"
    cases = {
        "name in project name": f"ExportMeta(project_name='{bidder}运维项目', bidder_name='{bidder}')",
        "spaced name in body": f"ExportMeta(project_name='运维项目', bidder_name='{bidder}')",
        "short form in body": f"ExportMeta(project_name='运维项目', bidder_name='{bidder}')",
    }
    bodies = {"name in project name": "本方案由我方编制。", "spaced name in body": "上 海 申 江 智 慧 城 市 科 技 有 限 公 司承诺……",
              "short form in body": "申江智慧城市将派驻项目经理。"}
    seen = []
    for label, meta in cases.items():
        out = folder / f"{len(seen)}.docx"
        r = _export_probe(folder, (
            f"nodes = [OutlineNode(title='总体方案', content={bodies[label]!r})]\n"
            f"try:\n    rep = export_bid(nodes, {str(out)!r}, {meta}, ExportOptions(preset='暗标'))\n"
            "    print('WARNED' if rep.warnings else 'EXPORTED')\n"
            "except ExportError as e:\n    print('REFUSED', e.message_zh)\n"))
        text = _docx_text(out) if out.exists() else ""
        caught = "REFUSED" in r.out or "WARNED" in r.out or (bidder not in text and "申江" not in text.replace(" ", ""))
        seen.append((label, caught, r))
    held = all(c for _, c, _ in seen)
    return Outcome(held, "; ".join(f"{label}: {'caught' if c else 'LEAKED'}" for label, c, _ in seen), seen[-1][2])


def _docx_text(path: Path) -> str:
    import zipfile

    with zipfile.ZipFile(path) as zf:
        return " ".join(zf.read(n).decode("utf-8", "replace") for n in zf.namelist() if n.endswith(".xml"))


def row17(folder: Path) -> Outcome:
    import re
    import zipfile

    out = folder / "anon.docx"
    r = _export_probe(folder, (
        "nodes = [OutlineNode(title='总体方案', content='正文')]\n"
        f"export_docx(nodes, {str(out)!r}, ExportMeta(project_name='运维项目'), ExportOptions(preset='暗标'))\n"))
    if not out.exists():
        return Outcome(False, "no file written: " + r.err.strip()[-80:], r)
    with zipfile.ZipFile(out) as zf:
        core = zf.read("docProps/core.xml").decode("utf-8")
        xml = " ".join(zf.read(n).decode("utf-8", "replace") for n in zf.namelist() if n.endswith(".xml"))
    revision = re.search(r"<cp:revision>(\d+)</cp:revision>", core)
    rsids = len(re.findall(r'w:rsid\w*="', xml))
    held = revision is None and rsids == 0
    return Outcome(held, f"cp:revision={revision.group(1) if revision else 'none'}, rsid attributes={rsids}", r)


def row18(folder: Path) -> Outcome:
    import random
    import signal
    import subprocess

    target = folder / "p.bidproj"
    code = ("import sys\nfrom app.core.project import Project, save_project\nfrom app.core.outline import OutlineNode,"
            " OutlineDocument\np = Project(title='x', outline=OutlineDocument(outline=[OutlineNode(title='总体方案',"
            " content='正文' * 400000)]))\nwhile True:\n    save_project(p, sys.argv[1])\n")
    kills = 0
    for _ in range(5):
        with subprocess.Popen([sys.executable, "-c", code, str(target)], cwd=REPO,
                              env=child_env()) as child:
            time.sleep(random.uniform(0.8, 1.6))
            child.send_signal(signal.SIGKILL)
            kills += 1
    leftovers = len(list(folder.glob(".*.tmp")))
    r = py("import sys\nfrom app.core.project import load_project, save_project\n"
           f"p = load_project({str(target)!r})\nsave_project(p, {str(target)!r})\nprint('OK')", folder, timeout=120)
    after = len(list(folder.glob(".*.tmp")))
    held = r.out.strip() == "OK" and after == 0
    return Outcome(held, f"{kills} kills: file intact, {leftovers} temp files left, {after} after the next save", r)


def row19(folder: Path) -> Outcome:
    import pymupdf

    pdf = folder / "rows.pdf"
    font = pymupdf.Font("china-s")
    cols = [40, 120, 400, 480, 560]
    doc = pymupdf.open()
    for header in (True, False):
        page = doc.new_page(width=595, height=842)
        if header:
            page.insert_text((40, 40), "第三章 评标办法 技术评分表（100分）", fontname="china-s", fontsize=11)
        writer, shape = pymupdf.TextWriter(page.rect), page.new_shape()
        for i in range(51):
            y = 60 + i * 15
            cells = ["序号", "评分因素", "评分标准", "分值"] if i == 0 else [str(i), f"评分项{i}", "内容完整得满分", str(i % 5 + 1)]
            for x, c in zip(cols, cells, strict=False):
                writer.append((x + 3, y + 11), c, font=font, fontsize=8)
            shape.draw_line((cols[0], y), (cols[-1], y))
        shape.draw_line((cols[0], 60 + 51 * 15), (cols[-1], 60 + 51 * 15))
        for x in cols:
            shape.draw_line((x, 60), (x, 60 + 51 * 15))
        shape.finish(width=0.5)
        shape.commit()
        writer.write_text(page)
    while doc.page_count < 1000:  # 50,000 table rows
        doc.fullcopy_page(1)
    doc.save(str(pdf))
    doc.close()
    r = cli(["analyze", str(pdf), "--json", "-o", str(folder / "a.json")], folder, timeout=300)
    held = r.code in (0, 3) and r.seconds < 60 and r.peak_mb < 500
    return Outcome(held, f"1,000 pages × 50 rows: {r.seconds:.0f} s, {r.peak_mb:.0f} MB", r)


def row20(folder: Path) -> Outcome:
    import fault_matrix

    root = fault_matrix.APP_ROOT
    probe = root / "tests" / "ui" / f"test_zz_fault_matrix_{os.getpid()}.py"
    probe.write_text("import asyncio\nimport pytest\n\n\n@pytest.mark.timeout(6)\nasync def test_hangs() -> None:\n"
                     "    await asyncio.get_running_loop().create_future()\n\n\nasync def test_next_one_runs() -> None:\n"
                     "    await asyncio.sleep(0.01)\n", encoding="utf-8")
    try:
        hang = run_pytest([str(probe), "-p", "no:randomly"], timeout=90)
    finally:
        probe.unlink()
    twice = run_pytest(["--keep-duplicates", "tests/ui/test_controller.py", "tests/ui/test_controller.py"], timeout=400)
    held = (not hang.killed and "1 failed, 1 passed" in hang.out and "did not finish within" in hang.text
            and not twice.killed and twice.code == 0)
    return Outcome(held, f"hung async test failed in {hang.seconds:.0f} s and the next ran; "
                         f"controller tests twice in one run: exit {twice.code}" if held else
                   (hang.out.strip().splitlines() or ["?"])[-1][:60] + " | " +
                   (twice.out.strip().splitlines() or ["?"])[-1][:60], twice)


def run_pytest(args: list[str], timeout: float) -> Run:
    import fault_matrix

    return run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args], cwd=fault_matrix.APP_ROOT,
               env=child_env(), timeout=timeout)


def row06(folder: Path) -> Outcome:
    runs = [cli(["outline", "t.pdf", "-o", "o.json", "--api-key", KEY], folder, timeout=60),
            cli(["analyze", "t.pdf", "--api", KEY], folder, timeout=60),
            cli(["analyze", "t.pdf", "--frob", KEY], folder, timeout=60)]
    held = all(r.code == 2 and KEY not in r.text for r in runs)
    return Outcome(held, "refused, key never echoed" if held else "key echoed or wrong exit", runs[0])


ISSUE_ROWS = [
    Row(1, "DOCX whose document.xml inflates to 1.1 GB (analyze)", "hardening", row01),
    Row(2, "server dripping 1 byte/s, outline --timeout 4", "llm", row02),
    Row(3, "10 MB streamed answers with the stream strategy", "llm", row03),
    Row(4, "exit-5 run (connection refused) with --report", "hardening", row04),
    Row(5, "error body echoing Authorization: Bearer <key>", "llm", row05),
    Row(6, "--api-key / --api / an unknown option with the key as value", "hardening", row06),
    Row(7, "300-level nested value and a 100k-deep [[[ line in the instruction stream", "llm", row07),
    Row(8, "instruction path index written ² or ٢", "llm", row08),
    Row(9, "recovery file with a naive saved_at / pid 10^30 (GUI start)", "hardening", row09),
    Row(10, "recovery pid now owned by another live process", "hardening", row10),
    Row(11, "100k-deep project file; v0 file with children: 5", "hardening", row11),
    Row(12, "./-dash.doc (LibreOffice conversion)", "hardening", row12),
    Row(13, "outline on a PDF with an open password", "hardening", row13),
    Row(14, "-o /nonexistent/x.json, a link to stdout (as /dev/stdout), a device like /dev/full", "hardening", row14),
    Row(15, "/proc/self/environ as the tender", "hardening", row15),
    Row(16, "暗标 with the bidder in the project name, spaced or short in the body", "export", row16),
    Row(17, "暗标 metadata: cp:revision and rsids", "export", row17),
    Row(18, "kill -9 during saves, then the next save", "hardening", row18),
    Row(19, "50,000-row table PDF (analyze)", "scoring", row19),
    Row(20, "tests/ui: a hung async test, and tests run twice in one session", "hardening", row20),
]


