"""Render the sample export to PNG previews: cover, TOC page and a chapter page (docs/export-*.png).

Run from the repository root: ``python tests/tools/render_export_preview.py [out_dir] [--preset 暗标]
[--update-fields]``. Pipeline: export_bid with the layout pass (real page numbers in the
file) -> plain ``soffice --convert-to pdf``, i.e. the file as a reader sees it on opening,
without updating any field (or, with --update-fields, through tests/tools/lo_update_toc.py
with the system ``python3`` that has ``uno``, updating the TOC as Word does when asked) ->
``pdftoppm -r 60``. A private fontconfig file maps 宋体/SimSun to Noto Serif CJK SC and
黑体/SimHei to Noto Sans CJK SC, the closest faces installed here; Word on Windows uses the
real SimSun/SimHei.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from app.export import ExportOptions  # noqa: E402
from app.export.docx_writer import export_bid  # noqa: E402
from tests.export_sample import sample_chapters, sample_meta  # noqa: E402

FONTS_CONF = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  {aliases}
</fontconfig>
"""
ALIASES = {
    "宋体": "Noto Serif CJK SC",
    "SimSun": "Noto Serif CJK SC",
    "楷体": "Noto Serif CJK SC",
    "KaiTi": "Noto Serif CJK SC",
    "黑体": "Noto Sans CJK SC",
    "SimHei": "Noto Sans CJK SC",
}


def _fontconfig(tmp: Path) -> Path:
    aliases = "\n  ".join(
        f'<alias binding="same"><family>{k}</family><prefer><family>{v}</family></prefer></alias>'
        for k, v in ALIASES.items()
    )
    path = tmp / "fonts.conf"
    path.write_text(FONTS_CONF.format(aliases=aliases), encoding="utf-8")
    return path


def _to_pdf(docx_path: Path, tmp: Path, update_toc: bool, env: dict[str, str]) -> Path:
    pdf = tmp / (docx_path.stem + ".pdf")
    if update_toc:
        helper = REPO / "tests" / "tools" / "lo_update_toc.py"
        subprocess.run(
            ["/usr/bin/python3", str(helper), str(docx_path), str(pdf)], check=True, env=env, timeout=300
        )
    else:
        soffice = shutil.which("soffice") or shutil.which("libreoffice") or "soffice"
        profile = (tmp / "lo_profile").as_uri()
        subprocess.run(
            [
                soffice,
                f"-env:UserInstallation={profile}",
                "--headless",
                "--convert-to",
                "pdf",
                "--outdir",
                str(tmp),
                str(docx_path),
            ],
            check=True,
            env=env,
            timeout=300,
            capture_output=True,
        )
    return pdf


def main() -> None:
    """Export, convert and write export-cover.png, export-toc.png, export-chapter.png."""
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir", nargs="?", default=str(REPO / "docs"))
    parser.add_argument("--preset", default="标准投标版")
    parser.add_argument("--update-fields", action="store_true")
    parser.add_argument("--dpi", type=int, default=60)
    args = parser.parse_args()
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    import pymupdf

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        env = dict(os.environ, FONTCONFIG_FILE=str(_fontconfig(tmp)))
        os.environ["FONTCONFIG_FILE"] = env["FONTCONFIG_FILE"]  # the layout pass sees the same faces
        report = export_bid(
            sample_chapters(), tmp / "preview.docx", sample_meta(), ExportOptions(preset=args.preset, layout_pass=True)
        )
        print(report.summary_zh())
        pdf = _to_pdf(report.path, tmp, args.update_fields, env)
        with pymupdf.open(pdf) as doc:
            texts = ["".join(page.get_text().split()) for page in doc]
        chapter = next(i for i, t in enumerate(texts) if i >= 2 and "第二章总体技术方案" in t)
        pages = {"export-cover.png": 0, "export-toc.png": 1, "export-chapter.png": chapter}
        for name, index in pages.items():
            stem = tmp / name.removesuffix(".png")
            subprocess.run(
                [
                    "pdftoppm",
                    "-r",
                    str(args.dpi),
                    "-png",
                    "-singlefile",
                    "-f",
                    str(index + 1),
                    "-l",
                    str(index + 1),
                    str(pdf),
                    str(stem),
                ],
                check=True,
                timeout=120,
            )
            shutil.copyfile(stem.with_suffix(".png"), out / name)
            print(f"{out / name}: page {index + 1} of {len(texts)}, {(out / name).stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
