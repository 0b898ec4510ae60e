"""The heading library in resources/headings: it loads, and every entry is well-formed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.rules.heading_form import fragment_problem
from app.core.rules.outline import normalize_title, title_problem
from app.pipeline.headings.library import (
    HeadingLibrary,
    LibraryError,
    default_library,
    load_entry,
    section_nodes,
)

#: Scoring items that recur in Chinese tenders: each must have a library entry named by it.
RECURRING = ("服务方案", "实施方案", "技术方案", "人员配置", "进度计划", "质量保证", "安全保障", "应急预案",
             "售后服务", "培训方案", "重难点分析", "合理化建议", "设备配置", "保密措施", "运维方案", "配送方案",
             "管理制度", "风险管理", "信息化", "环保与文明施工")


def test_library_loads_with_many_entries() -> None:
    lib = default_library()
    assert len(lib) >= 30
    assert all(len(e.variants) >= 2 for e in lib)


@pytest.mark.parametrize("item", RECURRING)
def test_every_recurring_item_has_an_entry(item: str) -> None:
    names = {a for e in default_library() for a in (e.name, *e.aliases)}
    assert item in names


def _entries() -> list[str]:
    return [e.id for e in default_library()]


@pytest.mark.parametrize("entry_id", _entries())
def test_entry_is_well_formed(entry_id: str) -> None:
    entry = default_library().get(entry_id)
    assert entry is not None
    for variant in entry.variants:
        tree = section_nodes(variant)
        assert 3 <= len(tree) <= 8
        titles = [n.title for n in tree] + [c.title for n in tree for c in n.children]
        keys = [normalize_title(t) for t in titles]
        assert len(keys) == len(set(keys)), f"{entry_id}/{variant.id}: repeated title"
        assert normalize_title(entry.name) not in keys, f"{entry_id}/{variant.id}: a section repeats the item"
        for node in tree:
            assert node.origin == "library" and all(c.origin == "library" for c in node.children)
            assert 2 <= len(node.children) <= 6 and all(not c.children for c in node.children)
        for t in titles:
            assert title_problem(t) is None, (entry_id, t)
            assert fragment_problem(t) is None, (entry_id, fragment_problem(t))
    sets = [frozenset(normalize_title(s.title) for s in v.sections) for v in entry.variants]
    assert len(set(sets)) == len(sets), f"{entry_id}: two variants with the same sections"
    assert sum(1 for v in entry.variants for s in v.sections if s.slot) <= len(entry.variants)


def test_entry_ids_and_names_are_unique() -> None:
    lib = default_library()
    names = [e.name for e in lib]
    assert len(names) == len(set(names))
    assert len({e.id for e in lib}) == len(lib)


def test_malformed_file_is_named_in_a_chinese_message(tmp_path: Path) -> None:
    good = json.loads(next(iter(sorted((Path(__file__).parent.parent / "resources" / "headings").glob("*.json"))))
                      .read_text("utf-8"))
    bad = dict(good, variants=good["variants"][:1])  # one variant only
    (tmp_path / "broken.json").write_text(json.dumps(bad, ensure_ascii=False), "utf-8")
    with pytest.raises(LibraryError, match=r"broken\.json"):
        load_entry(tmp_path / "broken.json")
    (tmp_path / "broken.json").write_text("{not json", "utf-8")
    with pytest.raises(LibraryError, match="标题库文件"):
        HeadingLibrary.from_dir(tmp_path)


def test_duplicate_ids_are_refused(tmp_path: Path) -> None:
    entry = default_library().entries[0]
    with pytest.raises(LibraryError, match=entry.id):
        HeadingLibrary([entry, entry])


def test_every_library_heading_passes_the_rules_it_is_held_to() -> None:
    """Code fills chapters from the library: its headings meet the bar a person's do — no document to
    attach (业绩证明材料 belongs in the attachment list), none titled like its section."""
    from app.core.rules.registry import HeadingContext, problems

    bad = []
    for e in default_library():
        for v in e.variants:
            for s in v.sections:
                for title, level, parent in [(s.title, 2, e.name), *((c, 3, s.title) for c in s.children)]:
                    found = problems(HeadingContext(title=title, level=level, writer="library", parent=parent))
                    if found:
                        bad.append(f"{e.id}/{v.id}: {title} {found}")
    assert bad == []
