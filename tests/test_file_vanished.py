"""A file deleted or moved while it is being read is named as gone, never as damaged (issue 37 §3,
"Also"): a folder of past bids where one file disappears mid-import, and each reader on a file that
vanished after it was found."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.documents.errors import DocumentError, FileVanishedError
from app.library.bid_import import import_files
from app.library.store import LibraryStore
from tests.library_fixtures import OWN_OUTLINES, make_bid, write_docx

GONE = "在读取过程中被删除或移走了"


def test_a_past_bid_deleted_mid_import_is_named_as_gone(tmp_path: Path) -> None:
    folder = tmp_path / "bids"
    folder.mkdir()
    files = [write_docx(make_bid(i, OWN_OUTLINES[i % len(OWN_OUTLINES)]), folder / f"bid{i}.docx") for i in range(3)]

    def progress(i: int, _n: int, _name: str) -> None:
        if i == 1:
            files[2].unlink()  # the third bid goes while the second is read

    store = LibraryStore(tmp_path / "library.sqlite")
    try:
        outcomes = import_files(store, [folder], progress=progress)
    finally:
        store.close()
    assert [o.status for o in outcomes[:2]] == ["added", "added"]
    last = outcomes[2]
    assert last.status == "failed" and GONE in last.message and "损坏" not in last.message, last.message


@pytest.mark.parametrize("suffix", [".docx", ".pdf"])
def test_each_reader_names_a_vanished_file(tmp_path: Path, suffix: str) -> None:
    from app.documents.docx_reader import read_docx
    from app.documents.outlines.bid_reader import read_bid
    from app.documents.pdf_reader import read_pdf

    path = tmp_path / f"投标文件{suffix}"  # found a moment ago, gone now
    for reader in (read_bid, read_docx, read_pdf):
        with pytest.raises(DocumentError) as err:
            reader(path)
        assert isinstance(err.value, FileVanishedError) and GONE in err.value.message_zh
        assert "损坏" not in err.value.message_zh


def test_a_damaged_file_is_still_called_damaged(tmp_path: Path) -> None:
    from app.documents.outlines.bid_reader import read_bid

    path = tmp_path / "坏的.docx"
    path.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(DocumentError) as err:
        read_bid(path)
    assert "损坏" in err.value.message_zh and not isinstance(err.value, FileVanishedError)


def test_company_facts_from_a_vanished_workbook(tmp_path: Path) -> None:
    from app.library.facts import read_facts_xlsx

    with pytest.raises(ValueError, match=GONE):
        read_facts_xlsx(tmp_path / "企业资料.xlsx")
