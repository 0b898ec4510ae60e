"""Rows 70–80 of the fault matrix: issue 30's attack on the model client, the run and the files.

Hostile model endpoints (a line that never ends, a gzip bomb, broken events, a login page,
a model that answers only prose), an output named ``*``, a password in the base URL and a
run terminated half way. Model behaviour comes from ``tests/openai_server.py``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import zlib
from pathlib import Path

from fault_matrix import Outcome, Row, child_env, cli, tender_docx
from fault_rows import no_traceback, outline_args

from tests.openai_server import OpenAIServer, Reply


def _internal(text: str) -> bool:
    return "内部错误" in text or "Traceback" in text


def row70(folder: Path) -> Outcome:
    tender = tender_docx(folder)
    with OpenAIServer() as server:
        server.default = Reply(raw_body=b'data: {"x": "', endless=b"y" * 65536, endless_limit=2 << 30)
        r = cli(outline_args(tender, folder, server.base_url, "--max-calls", "3"), folder, timeout=180)
    held = not r.killed and r.peak_mb < 400 and not _internal(r.text)
    return Outcome(held, f"never-ending data line: peak {r.peak_mb:.0f} MB, exit {r.code}", r)


def row71(folder: Path) -> Outcome:
    tender = tender_docx(folder)
    deflate = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    piece = b"data: " + b"0" * ((1 << 20) - 6)  # one line that never ends, as the attack sent
    bomb = b"".join([*(deflate.compress(piece) for _ in range(1024)), deflate.flush()])  # 1 GB inflated
    with OpenAIServer() as server:
        server.default = Reply.raw(bomb, "text/event-stream", content_encoding="gzip")
        r = cli(outline_args(tender, folder, server.base_url, "--max-calls", "3"), folder, timeout=180)
    held = not r.killed and r.peak_mb < 400 and r.seconds < 60 and not _internal(r.text)
    return Outcome(held, f"gzip {len(bomb) / 1e6:.1f} MB -> 1 GB: peak {r.peak_mb:.0f} MB, exit {r.code}", r)


def row72(folder: Path) -> Outcome:
    tender = tender_docx(folder)
    with OpenAIServer() as server:
        server.default = Reply(events=['{"id": "x", "choices": [{"delta": {"content": "半', "{not json"])
        r = cli(outline_args(tender, folder, server.base_url, "--max-calls", "6"), folder, timeout=180)
    held = not r.killed and not _internal(r.text) and r.code in (0, 4, 5)
    return Outcome(held, f"malformed events: exit {r.code}; " + (r.err.strip().splitlines() or [""])[-1][:60], r)


def row73(folder: Path) -> Outcome:
    tender = tender_docx(folder)
    with OpenAIServer() as server:
        server.default = Reply.raw("<html><body>请先登录</body></html>".encode(), "text/html")
        r = cli([a for a in outline_args(tender, folder, server.base_url) if a != "-q"], folder, timeout=180)
        calls = len(server.completion_requests)
    held = (calls <= 10 and r.code == 5 and "网页" in r.err and "不是模型的结果" in r.err
            and "目录有效" not in r.err and no_traceback(r))
    return Outcome(held, f"login page: {calls} calls, exit {r.code}", r)


def row74(folder: Path) -> Outcome:
    tender = tender_docx(folder)
    with OpenAIServer() as server:
        server.default = Reply.text("我不太明白你的意思，请再说一遍。")
        r = cli(outline_args(tender, folder, server.base_url), folder, timeout=180)
        calls = len(server.completion_requests)
    held = calls <= 15 and "不适用于本任务" in r.err and no_traceback(r)
    return Outcome(held, f"garbage-only model: {calls} calls, exit {r.code}", r)


def row75(folder: Path) -> Outcome:
    tender = tender_docx(folder)
    others = [folder / n for n in (".a.b.tmp", ".notes.123-abcdefgh.tmp", ".x.tmp")]
    past = time.time() - 3600
    for other in others:
        other.write_text("keep", encoding="utf-8")
        os.utime(other, (past, past))
    r = cli(["analyze", str(tender), "--json", "-o", str(folder / "*")], folder, timeout=60)
    kept = [o.name for o in others if o.exists()]
    return Outcome(len(kept) == len(others) and r.code == 0, f"output '*': {len(kept)}/3 other .tmp files kept", r)


def row76(folder: Path) -> Outcome:
    tender = tender_docx(folder)
    journal = folder / "journal"
    with OpenAIServer() as server:
        server.default = Reply.text("{}")
        url = server.base_url.replace("http://", "http://alice:S3cret-Pa55@")
        r = cli(outline_args(tender, folder, url, "--max-calls", "2", "--journal", str(journal)), folder, timeout=120)
    written = "".join(p.read_text(encoding="utf-8", errors="replace") for p in journal.rglob("*") if p.is_file())
    held = "S3cret-Pa55" not in written + r.text and bool(written)
    return Outcome(held, f"password in base URL: {'absent' if held else 'LEAKED'} in journal and output", r)


def row77(folder: Path) -> Outcome:
    tender = tender_docx(folder)
    with OpenAIServer() as server:
        count = {"n": 0}
        lock = threading.Lock()

        def handler(_req: object) -> Reply:
            with lock:
                count["n"] += 1
                first = count["n"] == 1
            return Reply.text(json.dumps({"children": []})) if first else Reply.text("{}", delay=60)

        server.handler = handler  # type: ignore[assignment]
        argv = [sys.executable, "-m", "app.cli", *outline_args(tender, folder, server.base_url),
                "--report", str(folder / "report.json")]
        proc = subprocess.Popen(argv, cwd=folder, env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while count["n"] < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
        proc.send_signal(signal.SIGTERM)
        try:
            proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
    report = json.loads((folder / "report.json").read_text(encoding="utf-8")) if (folder / "report.json").exists() else {}
    wrote = (folder / "outline.json").exists()
    held = proc.returncode == 130 and wrote and (report.get("failure") or {}).get("kind") == "cancelled"
    return Outcome(held, f"SIGTERM mid-run: exit {proc.returncode}, outline {'written' if wrote else 'missing'}")


def _table_among_pages(folder: Path) -> Path:
    """One DOCX page: notice text, a scoring table whose criteria name no points, contract terms."""
    import docx

    d = docx.Document()
    d.add_paragraph("项目名称：某区园林养护服务项目")
    for i in range(40):
        d.add_paragraph(f"须知第{i}条：递交、保证金、开标程序与纪律要求的说明文字。" * 3)
    d.add_paragraph("第三章 评标办法")
    table = d.add_table(rows=1, cols=4)
    for cell, head in zip(table.rows[0].cells, ["序号", "评分因素", "分值", "评分标准"], strict=True):
        cell.text = head
    for i, (factor, points) in enumerate([("养护方案", "40"), ("应急措施", "20"), ("投标报价", "40")], 1):
        for cell, value in zip(table.add_row().cells, [str(i), factor, points, f"{factor}完整得满分"], strict=True):
            cell.text = value
    for i in range(40):
        d.add_paragraph(f"合同第{i}条：权利义务、付款、违约责任与争议解决的约定文字。" * 3)
    path = folder / "pages.docx"
    d.save(str(path))
    return path


def row78(folder: Path) -> Outcome:
    tender = _table_among_pages(folder)
    with OpenAIServer() as server:
        server.default = Reply.text('{"groups": []}')
        args = [a for a in outline_args(tender, folder, server.base_url, "--analysis", "model", "--max-calls", "4",
                                        "--context-size", "2048") if a != "table"]
        args.remove("--analysis")  # the one of outline_args (table); ours (model) stays
        r = cli(args, folder, timeout=180)
        asked = [q for q in server.completion_requests if "技术部分**的评分项" in q.prompt_text]
    text = asked[0].prompt_text if asked else ""
    cjk = sum(1 for ch in text if "\u2e80" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef")
    tokens = cjk + (len(text) - cjk + 1) // 2 + int((asked[0].body.get("max_tokens") or 0) if asked else 0)
    held = bool(asked) and tokens <= 2048 and "养护方案" in text and "须知第" not in text and "合同第" not in text
    return Outcome(held, f"scoring call at context 2048: ~{tokens} tokens with the answer budget, "
                         f"{'table only' if '须知第' not in text else 'pages around the table sent'}", r)


def _conservative_fit(server: OpenAIServer, context: int) -> tuple[int, int]:
    """(requests received, the largest prompt + answer budget among them, counted conservatively)."""
    worst = 0
    for q in server.completion_requests:
        text = q.prompt_text
        cjk = sum(1 for ch in text if "\u2e80" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef")
        worst = max(worst, cjk + (len(text) - cjk + 2) // 3 + 4 * len(q.messages) + int(q.body.get("max_tokens") or 0))
    return len(server.completion_requests), worst


def row79(folder: Path) -> Outcome:
    tender = tender_docx(folder)
    with OpenAIServer() as server:
        server.default = Reply.text('{"chapters": []}')
        r = cli(outline_args(tender, folder, server.base_url, "--max-calls", "8", "--context-size", "2048"), folder,
                timeout=240)
        sent, worst = _conservative_fit(server, 2048)
    held = sent > 0 and worst <= 2048 and not _internal(r.text) and r.code in (0, 4, 5)
    return Outcome(held, f"context 2048: {sent} requests, largest ~{worst} tokens with its answer budget, exit {r.code}",
                   r)


def row80(folder: Path) -> Outcome:
    tender = tender_docx(folder)
    with OpenAIServer() as server:
        server.default = Reply.text('{"chapters": []}')
        r = cli(outline_args(tender, folder, server.base_url, "--max-calls", "8", "--context-size", "512"), folder,
                timeout=240)
        sent, worst = _conservative_fit(server, 512)
    held = worst <= 512 and not _internal(r.text) and r.code in (0, 4, 5)
    return Outcome(held, f"context 512: {sent} requests sent (largest ~{worst} tokens), exit {r.code}", r)


ISSUE30_ROWS = [
    Row(70, "stream whose data line never ends", "llm", row70),
    Row(71, "gzip answer of 1.1 MB inflating to 1 GB", "llm", row71),
    Row(72, "SSE events with truncated JSON / not JSON", "llm", row72),
    Row(73, "HTML login page answered with 200 on every call", "llm", row73),
    Row(74, "model answering only prose (circuit breaker)", "pipeline", row74),
    Row(75, "output named * beside unrelated .tmp files", "hardening", row75),
    Row(76, "user:password in the base URL, --journal", "hardening", row76),
    Row(77, "SIGTERM half way through outline", "hardening", row77),
    Row(78, "scoring table among long pages, context 2048", "pipeline", row78),
    Row(79, "whole outline run at context 2048: every request fits", "llm", row79),
    Row(80, "context 512: no prompt fits, none is sent past it", "llm", row80),
]
