"""Evaluate the outline pipeline over a folder of tenders against any endpoint.

Not part of the default test run (``norecursedirs`` excludes tests/eval): real models are
slow. Runs ``bidstudio-cli outline`` once per tender in a subprocess and prints a table:
tender, mode, valid, calls, tokens, seconds, strategy, level-2+ headings the model wrote and
those code filled from the tender and the heading library, and the exit code. Extra options
go to the CLI; ``tests/eval/outline_quality.py OUT --tenders …`` then judges the headings. Example::

    python tests/eval/run_eval.py ../shared/tenders --mode aligned \\
        --base-url http://127.0.0.1:8091/v1 --model gemma3-270m --out /tmp/eval \\
        --only sichuan-iptv-metadata.docx yangjiang-tax-canteen.pdf huangpu-customs-services.docx
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SUFFIXES = {".pdf", ".docx", ".doc", ".wps", ".txt", ".md"}


def run_one(tender: Path, args: argparse.Namespace, extra: list[str]) -> dict[str, object]:
    """Run the CLI on one tender; return the report (or what is known when there is none)."""
    out = Path(args.out)
    stem = tender.stem
    report_path = out / f"{stem}.{args.mode}.report.json"
    cmd = [sys.executable, "-m", "app.cli", "outline", str(tender), "--mode", args.mode,
           "--base-url", args.base_url, "--model", args.model, "-o", str(out / f"{stem}.{args.mode}.outline.json"),
           "--report", str(report_path), "--strategy", args.strategy, *extra]
    if args.api_key_env:
        cmd += ["--api-key-env", args.api_key_env]
    started = time.monotonic()
    log_path = out / f"{stem}.{args.mode}.log"
    with log_path.open("w", encoding="utf-8") as log:
        try:
            proc = subprocess.run(cmd, cwd=REPO, stdout=log, stderr=subprocess.STDOUT, timeout=args.timeout, check=False)
            code: int | str = proc.returncode
        except subprocess.TimeoutExpired:
            code = "timeout"
    seconds = round(time.monotonic() - started, 1)
    report: dict[str, object] = {}
    if report_path.exists() and report_path.stat().st_mtime >= time.time() - seconds - 5:
        report = json.loads(report_path.read_text(encoding="utf-8"))
    return {
        "tender": tender.name, "mode": report.get("mode", args.mode), "valid": report.get("valid", False),
        "calls": report.get("llm_calls", "?"),
        "tokens": (int(report.get("prompt_tokens", 0)) + int(report.get("completion_tokens", 0))  # type: ignore[call-overload]
                   if report else "?"),
        "seconds": report.get("duration_s", seconds), "strategy": report.get("strategy", "?"),
        "model": report.get("model_nodes", "?"), "filled": report.get("filled_nodes", "?"), "exit": code,
    }


def print_table(rows: list[dict[str, object]]) -> None:
    """A plain-text table, one row per tender."""
    cols = ["tender", "mode", "valid", "calls", "tokens", "seconds", "strategy", "model", "filled", "exit"]
    widths = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in cols}
    print("  ".join(c.ljust(widths[c]) for c in cols))
    print("  ".join("-" * widths[c] for c in cols))
    for r in rows:
        print("  ".join(str(r[c]).ljust(widths[c]) for c in cols), flush=True)


def main(argv: list[str] | None = None) -> int:
    """Parse options, run every tender, print the table; exit 0 when all outlines are valid."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("folder", type=Path, help="folder of tenders")
    p.add_argument("--mode", choices=["free", "aligned"], default="aligned")
    p.add_argument("--base-url", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--api-key-env", help="environment variable holding the API key")
    p.add_argument("--strategy", choices=["json", "stream"], default="json")
    p.add_argument("--out", default="/tmp/bidstudio-eval", help="where outlines, reports and logs go")
    p.add_argument("--only", nargs="*", help="file names to run (default: every tender in the folder)")
    p.add_argument("--timeout", type=float, default=3600, help="seconds per tender")
    args, extra = p.parse_known_args(argv)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    tenders = sorted(f for f in args.folder.iterdir() if f.suffix.lower() in SUFFIXES and f.name != "README.md")
    if args.only:
        tenders = [f for f in tenders if f.name in set(args.only)]
    rows = []
    for tender in tenders:
        print(f"… {tender.name}", file=sys.stderr, flush=True)
        rows.append(run_one(tender, args, extra))
    print_table(rows)
    return 0 if rows and all(r["valid"] is True for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
