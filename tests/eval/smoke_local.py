"""Smoke run with default options against a real (local, weak) model server.

    python tests/eval/smoke_local.py ../shared/tenders --base-url http://127.0.0.1:8091/v1 --model gemma3-270m
    python tests/eval/smoke_local.py ../shared/tenders --local     # the built-in model (extra "local")

Runs ``bidstudio-cli outline`` with DEFAULT options (no ``--analysis``, ``--compact`` or other
flags) on every shared tender whose ``labels.json`` entry has a technical scoring table, and
prints one row each: exit code, valid, chapters, model calls, prompt/completion tokens,
seconds, level-2/3 headings written by the model vs filled by code, and whether the server
still answered afterwards. Slow (minutes per tender on a small CPU model): use ``--only``
to pick tenders while developing. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def technical_tenders(folder: Path) -> list[Path]:
    """Tenders whose label says they have a scoring table with technical items."""
    labels = json.loads((folder / "labels.json").read_text(encoding="utf-8"))
    out = []
    for name, label in sorted(labels.items()):
        if not isinstance(label, dict) or not label.get("has_table"):
            continue
        rows = label.get("rows") or []
        totals = {**(label.get("category_totals") or {}), **(label.get("category_totals_computed") or {})}
        technical = "技术" in totals or any(r.get("category") == "技术" for r in rows if isinstance(r, dict))
        if technical and (folder / name).is_file():
            out.append(folder / name)
    return out


def server_alive(base_url: str) -> bool:
    """Whether the endpoint still answers ``GET /models``."""
    try:
        with urllib.request.urlopen(base_url.rstrip("/") + "/models", timeout=10) as resp:
            return bool(resp.status == 200)
    except OSError:
        return False


def heading_counts(outline: dict[str, Any], report: dict[str, Any]) -> tuple[int, int, int]:
    """(chapters, level-2/3 headings written by the model, headings filled in by code).

    A node's ``origin`` says who wrote its title: ``model``, or code from the tender's text,
    the heading library or a template; nodes without an origin count as the model's unless
    the report says templates were used.
    """
    chapters = outline.get("outline") or outline.get("chapters") or []
    model = code = 0

    def walk(nodes: list[dict[str, Any]], level: int) -> None:
        nonlocal model, code
        for node in nodes:
            if level >= 2:
                if node.get("origin") in ("tender", "library", "template", "history", "user"):
                    code += 1
                else:
                    model += 1
            walk(list(node.get("children") or []), level + 1)

    walk(list(chapters), 1)
    unmarked_templates = max(0, int(report.get("template_nodes") or 0) - code)
    return len(chapters), max(0, model - unmarked_templates), code + unmarked_templates


def run_one(tender: Path, args: argparse.Namespace, out_dir: Path) -> dict[str, Any]:
    """One default ``outline`` run; the row of figures."""
    stem = tender.stem
    outline_path, report_path = out_dir / f"{stem}.outline.json", out_dir / f"{stem}.report.json"
    endpoint = ["--local"] if args.local else ["--base-url", args.base_url, "--model", args.model]
    cmd = [sys.executable, "-m", "app.cli", "outline", str(tender), *endpoint,
           "-o", str(outline_path), "--report", str(report_path), "-q"]
    env = {**os.environ, "BIDSTUDIO_API_KEY": os.environ.get("BIDSTUDIO_API_KEY", "local")}
    t0 = time.monotonic()
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=args.timeout)
    seconds = time.monotonic() - t0
    (out_dir / f"{stem}.stderr.txt").write_text(proc.stderr, encoding="utf-8")
    report: dict[str, Any] = {}
    outline: dict[str, Any] = {}
    if report_path.is_file():
        report = json.loads(report_path.read_text(encoding="utf-8"))
    if outline_path.is_file():
        outline = json.loads(outline_path.read_text(encoding="utf-8"))
    chapters, model_written, code_filled = heading_counts(outline, report)
    return {"tender": tender.name, "exit": proc.returncode, "valid": bool(report.get("valid")), "chapters": chapters,
            "calls": report.get("llm_calls", 0), "prompt_tokens": report.get("prompt_tokens", 0),
            "completion_tokens": report.get("completion_tokens", 0), "seconds": round(seconds, 1),
            "model_headings": model_written, "code_headings": code_filled,
            "alive": proc.returncode != 5 if args.local else server_alive(args.base_url),
            "last_error": (proc.stderr.strip().splitlines() or [""])[-1][:120]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--base-url")
    parser.add_argument("--model")
    parser.add_argument("--local", action="store_true",
                        help="用内置本地模型（outline --local：程序自己启动和停止 llama.cpp 服务；alive 表示没有因服务退出而失败）")
    parser.add_argument("--only", nargs="*", default=[], help="只跑文件名包含这些字样的招标文件")
    parser.add_argument("--out", type=Path, help="输出目录（默认临时目录）")
    parser.add_argument("--timeout", type=float, default=3600, help="每个招标文件最多运行的秒数")
    args = parser.parse_args()
    if not args.local and not (args.base_url and args.model):
        parser.error("需要 --base-url 和 --model，或 --local")
    tenders = [t for t in technical_tenders(args.folder) if not args.only or any(o in t.name for o in args.only)]
    out_dir = args.out or Path(tempfile.mkdtemp(prefix="smoke-local-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    cols = ("tender", "exit", "valid", "chapters", "calls", "prompt_tokens", "completion_tokens", "seconds",
            "model_headings", "code_headings", "alive")
    print("\t".join(cols), flush=True)
    rows = []
    for tender in tenders:
        try:
            row = run_one(tender, args, out_dir)
        except subprocess.TimeoutExpired:
            row = {"tender": tender.name, "exit": "timeout", "alive": args.local or server_alive(args.base_url)}
        rows.append(row)
        print("\t".join(str(row.get(c, "")) for c in cols), flush=True)
        if row.get("exit") not in (0, "0"):
            print(f"  └ {row.get('last_error', '')}", flush=True)
    ok = sum(1 for r in rows if r.get("exit") == 0 and r.get("valid"))
    model = sum(int(r.get("model_headings") or 0) for r in rows)
    code = sum(int(r.get("code_headings") or 0) for r in rows)
    share = model / (model + code) if model + code else 0.0
    print(f"# {ok}/{len(rows)} exit 0 valid; level-2/3 headings by the model {model}, by code {code} "
          f"({share:.0%} model); server alive at the end: {args.local or server_alive(args.base_url)}; "
          f"outputs in {out_dir}")
    return 0 if ok == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
