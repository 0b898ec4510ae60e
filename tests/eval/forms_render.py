"""Render a filled 商务 volume to look at: ``python tests/eval/forms_render.py TENDER [--out docs/forms-NAME.png]``.

The tender's forms are read, filled from the sample 企业资料 of a fictional company
(``tests/forms_fixtures.py``) with a typed price (1,286,500 元) and bid date, exported as the
商务 volume with LibreOffice's layout pass, converted to PDF by LibreOffice and its first pages
drawn with pdftoppm and put side by side with ImageMagick's ``montage``. Prints the export
report and where the picture is.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from app.core.bid_forms import BidFormsState  # noqa: E402
from app.documents.forms.fill import fill_forms  # noqa: E402
from app.documents.forms.finder import find_forms  # noqa: E402
from app.export.forms.copies import CertificateCopy  # noqa: E402
from app.export.forms.volume import FormsVolumeOptions, export_forms_volume  # noqa: E402
from tests.forms_fixtures import COMPANY, sample_facts, sample_input  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """Export, convert and draw one tender's filled 商务 volume."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tender")
    parser.add_argument("--out", default="")
    parser.add_argument("--pages", type=int, default=8, help="pages drawn (from the first form on)")
    parser.add_argument("--skip", type=int, default=2, help="leading pages left out (cover, TOC)")
    args = parser.parse_args(argv)
    tender = Path(args.tender)
    out = Path(args.out or REPO / "docs" / f"forms-{tender.stem}.png")
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        print("LibreOffice (soffice) is needed")
        return 2
    with tempfile.TemporaryDirectory(prefix="forms-render-") as tmp:
        work = Path(tmp)
        facts = sample_facts(work / "files")
        reading = find_forms(tender)
        state = BidFormsState(values={"price": "1286500", "date": "2026-06-30", "period": "三年"})
        fill = fill_forms(reading, sample_input(reading, state))
        certs = [CertificateCopy(f.data["name"], f.data.get("number", ""), f.data.get("valid_until", ""),
                                 f.data.get("file", ""), f.expired()) for f in facts if f.kind == "certificate"]
        name = fill.values and reading.forms and COMPANY["name"]
        report = export_forms_volume(reading, fill.values, work / "商务部分.docx", certificates=certs,
                                     options=FormsVolumeOptions(project_name=sample_input(reading).tender.get(
                                         "project_name", None).value if "project_name" in sample_input(reading).tender
                                         else "", bidder_name=str(name or ""), date_text="2026年6月30日"),
                                     soffice=soffice)
        print(report)
        subprocess.run([soffice, "--headless", "--convert-to", "pdf", "--outdir", str(work), str(report.path)],
                       check=True, capture_output=True, timeout=300)
        pdf = work / "商务部分.pdf"
        first, last = args.skip + 1, args.skip + args.pages
        subprocess.run(["pdftoppm", "-r", "60", "-png", "-f", str(first), "-l", str(last), str(pdf), str(work / "pg")],
                       check=True, timeout=300)
        pages = sorted(work.glob("pg-*.png"))
        out.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["montage", *map(str, pages), "-tile", f"{min(4, len(pages))}x", "-geometry", "+6+6",
                        "-background", "#cccccc", str(out)], check=True, timeout=300)
    print(f"{len(pages)} pages drawn: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
