"""Render the 评分索引表 / 技术偏离表 of a real tender's export to PNG (docs/export-index-table.png …).

Run from the repository root: ``python tests/tools/render_response_tables.py [tender ...]
[--out docs] [--dpi 80]`` (default tender: yangjiang-tax-canteen.pdf from ../shared/tenders).
Pipeline: a project built by code from the tender (``tests/tender_projects.py``) ->
``export_bid`` with both tables and the layout pass -> a separate plain LibreOffice render
of the delivered file -> ``pdftoppm``. Prints, per page rendered, what it shows and whether
the page numbers printed in the tables match the pages the headings are on.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from app.export import ExportOptions  # noqa: E402
from app.export.docx_writer import export_bid  # noqa: E402
from tests.tender_projects import tender_project  # noqa: E402
from tests.tools.render_export_preview import _fontconfig  # noqa: E402

TENDERS = REPO.parent / "shared" / "tenders"


def _render(docx_path: Path, tmp: Path, env: dict[str, str]) -> Path:
    soffice = shutil.which("soffice") or shutil.which("libreoffice") or "soffice"
    subprocess.run([soffice, f"-env:UserInstallation={(tmp / 'profile').as_uri()}", "--headless", "--convert-to",
                    "pdf", "--outdir", str(tmp), str(docx_path.resolve())],
                   check=True, env=env, timeout=600, capture_output=True)
    return tmp / (docx_path.stem + ".pdf")


def _png(pdf: Path, index: int, target: Path, dpi: int) -> None:
    stem = target.with_suffix("")
    subprocess.run(["pdftoppm", "-r", str(dpi), "-png", "-singlefile", "-f", str(index + 1), "-l", str(index + 1),
                    str(pdf), str(stem)], check=True, timeout=120)


def main() -> None:
    """Export each tender, render it, write the table pages as PNG and print what they show."""
    import pymupdf

    parser = argparse.ArgumentParser()
    parser.add_argument("tenders", nargs="*", default=["yangjiang-tax-canteen.pdf"])
    parser.add_argument("--out", default=str(REPO / "docs"))
    parser.add_argument("--dpi", type=int, default=80)
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name in args.tenders:
        project = tender_project(TENDERS / name)
        stem = name.split("-")[0]
        with tempfile.TemporaryDirectory() as tmp_name:
            tmp = Path(tmp_name)
            env = dict(os.environ, FONTCONFIG_FILE=str(_fontconfig(tmp)))
            os.environ["FONTCONFIG_FILE"] = env["FONTCONFIG_FILE"]  # the layout pass lays out with the same faces
            report = export_bid(project.chapters, tmp / f"{stem}.docx", project.meta,
                                ExportOptions(index_table=True, deviation_table=True, layout_pass=True),
                                analysis=project.analysis, breakdown=project.breakdown)
            print(f"{name}: {report.summary_zh()} layout {report.layout_seconds or 0:.1f} s")
            pdf_path = _render(report.path, tmp, env)
            with pymupdf.open(pdf_path) as pdf:
                texts = [page.get_text() for page in pdf]
            wanted = {"index": "评分索引表", "deviation": "技术偏离表"}
            for key, title in wanted.items():
                pages = [i for i, t in enumerate(texts) if t.lstrip().splitlines()[1:2] == [title]
                         or f"\n{title}\n" in t[:200]]
                for n, index in enumerate(pages[:2]):
                    suffix = "" if n == 0 else f"-{n + 1}"
                    target = out / f"export-{key}-table{suffix}.png" if stem == "yangjiang" else \
                        out / f"export-{stem}-{key}-table{suffix}.png"
                    _png(pdf_path, index, target, args.dpi)
                    numbers = re.findall(r"第\s*(\d+)\s*页\s*共\s*(\d+)\s*页", texts[index])
                    print(f"  {target.name}: PDF page {index + 1} (printed {numbers[-1] if numbers else '-'}),"
                          f" {target.stat().st_size // 1024} KB")
            os.environ.pop("FONTCONFIG_FILE", None)


if __name__ == "__main__":
    main()
