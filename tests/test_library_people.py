"""查重 finds people of other projects wherever the library knows them from: past bids' staff
tables (not only after role labels like 项目经理：) and the company facts, unless this bid's own
staff list has them."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.outline import Outline, OutlineNode
from app.documents.outlines.bid_reader import read_bid
from app.library.bid_import import extract_people, import_bid
from app.library.checks import bid_staff, markdown_tables, outline_sections, stale_names
from app.library.facts import Fact, markdown_table, save_facts
from app.library.people import people_in_tables
from app.library.store import LibraryStore
from tests.library_fixtures import make_bid, staff_rows, write_docx, write_pdf


@pytest.fixture
def store(tmp_path: Path) -> LibraryStore:
    s = LibraryStore(tmp_path / "lib.sqlite3")
    yield s  # type: ignore[misc]
    s.close()


def test_people_are_read_from_name_columns_only() -> None:
    table = [["序号", "人员姓名", "拟任岗位", "项目负责人"],
             ["1", "赵 子龙", "技术负责人", "孙尚香（高级工程师）"],
             ["2", "待定", "安全员", ""],
             ["3", "关云长", "质检员", "孙尚香"]]
    assert people_in_tables([table]) == ["赵子龙", "孙尚香", "关云长"]
    assert people_in_tables([[["岗位", "证书"], ["项目经理", "一级建造师"]]]) == []  # no column of people
    text = "人员配置如下：\n| 姓名 | 岗位 |\n| --- | --- |\n| 张三丰 | 项目经理 |\n\n其余略。"
    assert markdown_tables(text) == [[["姓名", "岗位"], ["张三丰", "项目经理"]]]


def _bid(sections: dict[str, str]) -> Outline:
    return Outline([OutlineNode(title=t, content=c) for t, c in sections.items()])


@pytest.mark.parametrize("suffix", [".docx", ".pdf"])
def test_a_person_from_a_past_bids_staff_table_is_found_and_a_clean_bid_gives_nothing(
        store: LibraryStore, tmp_path: Path, suffix: str) -> None:
    past = make_bid(5)
    path = tmp_path / f"past{suffix}"
    (write_docx if suffix == ".docx" else write_pdf)(past, path, table=True)
    assert import_bid(store, path).status == "added"
    planted = staff_rows(past)[2][0]  # listed only in the staff table, never after a role label
    assert planted not in extract_people(read_bid(path).full_text()) and planted != past.manager

    own = ["新区智慧停车项目", "新区城市管理局"]
    clean = _bid({"人员配置": "本项目配备专职项目经理一名、技术负责人一名，均具有相应执业资格。",
                  "服务方案": "我方将为新区智慧停车项目提供全天候运维服务，建立巡检制度。"})
    assert stale_names(outline_sections(clean), store, own) == []

    dirty = _bid({"人员配置": "本项目配备专职项目经理一名、技术负责人一名，均具有相应执业资格。",
                  "技术方案": f"系统集成工作由{planted}牵头，按周提交进度报告。"})
    found = stale_names(outline_sections(dirty), store, own)
    assert [(f.text, f.path, f.label) for f in found] == [(planted, (1,), "其他项目人员")]
    assert found[0].source == f"历史标书：{path.stem}"

    # the same person on this bid's own staff table is this bid's staff, not a leftover
    listed = _bid({"人员配置": markdown_table(["姓名", "岗位"], [[planted, "技术负责人"]]),
                   "技术方案": f"系统集成工作由{planted}牵头，按周提交进度报告。"})
    assert bid_staff(outline_sections(listed)) == {planted}
    assert stale_names(outline_sections(listed), store, own) == []


def test_company_staff_not_on_this_bids_staff_list_is_flagged(store: LibraryStore) -> None:
    save_facts(store, [Fact("staff", {"name": "欧阳明", "role": "项目经理"}, "人员.xlsx › 人员"),
                       Fact("staff", {"name": "钱多多", "role": "安全员"}, "人员.xlsx › 人员"),
                       Fact("reference", {"project": "某道路养护项目", "manager": "宋清风"}, "人员.xlsx › 业绩")])
    team = markdown_table(["姓名", "岗位"], [["钱多多", "安全员"]])
    bid = _bid({"人员配置": team, "安全管理": "安全员钱多多每日巡查。", "组织机构": "项目经理欧阳明全面负责。",
                "进度计划": "由宋清风编制总进度计划。"})
    found = stale_names(outline_sections(bid), store)
    assert sorted((f.text, f.path) for f in found) == [("宋清风", (3,)), ("欧阳明", (2,))]
    assert all(f.label == "不在本标书人员表中的人员" and f.source.startswith("企业资料：") for f in found)
    # the caller's own staff list counts too; and a bid without any staff list trusts the company's people
    assert {f.text for f in stale_names(outline_sections(bid), store, own_staff=["欧阳明"])} == {"宋清风"}
    no_list = _bid({"组织机构": "项目经理欧阳明全面负责。"})
    assert stale_names(outline_sections(no_list), store) == []


def test_a_library_made_before_tables_were_read_for_names_learns_them_once_on_open(tmp_path: Path) -> None:
    path = tmp_path / "lib.sqlite3"
    store = LibraryStore(path)
    past = make_bid(6)
    assert import_bid(store, write_docx(past, tmp_path / "p.docx")).status == "added"
    planted = staff_rows(past)[2][0]
    with store.transaction() as con:  # as an older BidStudio left it: no table people, no mark
        con.execute("DELETE FROM names WHERE kind = 'person' AND value = ?", (planted,))
        con.execute("DELETE FROM meta WHERE key = 'table_people'")
    dirty = _bid({"技术方案": f"系统集成工作由{planted}牵头。"})
    assert stale_names(outline_sections(dirty), store) == []
    store.close()
    store = LibraryStore(path)
    try:
        assert [f.text for f in stale_names(outline_sections(dirty), store)] == [planted]
        assert sum(1 for _, k, v in store.names() if k == "person" and v == planted) == 1  # recorded once
    finally:
        store.close()
    again = LibraryStore(path)
    assert sum(1 for _, k, v in again.names() if k == "person" and v == planted) == 1
    again.close()
