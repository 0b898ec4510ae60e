"""People named in tables: the columns headed 姓名 / 人员姓名 / 负责人 … of staff and reference tables.

Used when a past bid is imported (its staff tables' names are recorded for 查重), by the
library when it records them for bids imported before that, and by 查重 for this bid's own
staff list. Imports nothing of the library (the store uses it too).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

#: Header cells of a table column that lists people (人员表, 业绩表's 项目负责人, 联系人 …).
NAME_HEADERS = frozenset({"姓名", "人员姓名", "成员姓名", "名字", "人员", "负责人", "项目负责人", "技术负责人", "项目经理",
                          "项目总监", "总监理工程师", "联系人", "授权代表", "法定代表人", "委托代理人"})
_PERSON = re.compile(r"^[\u4e00-\u9fff]{2,4}$")
_BRACKETED = re.compile(r"[（(【\[].*?[）)】\]]")
_NOT_A_PERSON = frozenset({"待定", "暂无", "暂定", "同上", "合计", "小计", "若干", "见附件", "另行委派", "不适用", "备注"})
#: Role words and fragments that follow a role label but are not names.
NOT_A_NAME = frozenset({"负责", "组织", "统一", "全面", "具体", "及时", "应当", "必须", "对本", "对项", "本项目", "由其"})


def is_name_header(cell: str) -> bool:
    """Whether a table header cell names a column of people (姓名, 人员姓名, 项目负责人 …)."""
    c = re.sub(r"\s+", "", cell)
    return c in NAME_HEADERS or (2 < len(c) <= 8 and (c.endswith("姓名") or c.endswith("负责人")))


def person_cell(cell: str) -> str:
    """The person named by a table cell (``张三``, ``张 三``, ``张三（高级工程师）``), or ""."""
    v = _BRACKETED.sub("", re.sub(r"\s+", "", cell))
    if not _PERSON.match(v) or v in _NOT_A_PERSON or v in NOT_A_NAME or v in NAME_HEADERS:
        return ""
    return v


def people_in_tables(tables: Iterable[Sequence[Sequence[str]]]) -> list[str]:
    """Names in the columns headed 姓名 / 人员姓名 / 负责人 … of tables (header among the first 3 rows), in order."""
    seen: dict[str, None] = {}
    for table in tables:
        rows = [list(r) for r in table]
        for h in range(min(3, len(rows))):
            cols = [j for j, c in enumerate(rows[h]) if is_name_header(str(c or ""))]
            if not cols:
                continue
            for row in rows[h + 1:]:
                for j in cols:
                    name = person_cell(str(row[j] or "")) if j < len(row) else ""
                    if name:
                        seen.setdefault(name, None)
            break
    return list(seen)
